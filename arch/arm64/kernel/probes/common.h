/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of arm64 kprobes.
 */
#ifndef _ARM64_KERNEL_PROBES_COMMON_H
#define _ARM64_KERNEL_PROBES_COMMON_H

#include <linux/sizes.h>
#include <linux/types.h>

struct pt_regs;

/* Whether a B at @from reaches @to: +/-128 MiB. */
static inline bool kprobe_b_reaches(unsigned long from, unsigned long to)
{
	long off = to - from;

	return off >= -(long)SZ_128M && off < (long)SZ_128M;
}

/* kprobes_trampoline.S: where stepped copies go back to (see kprobes.c). */
extern const u32 kprobe_step_trampoline[];
void kprobe_step_trampoline_handler(struct pt_regs *regs);

#ifdef CONFIG_OPTPROBES
/* The detour template and its fields (opt_detour.S). */
extern const u32 optprobe_detour[];
extern const u32 optprobe_detour_displaced[];
extern const u32 optprobe_detour_probe_addr[];
extern const u32 optprobe_detour_callback[];
extern const u32 optprobe_detour_exit_addr[];
extern const u32 optprobe_detour_end[];
extern const u32 optprobe_detour_exit[];
extern const u32 optprobe_detour_exit_brk[];

/* opt.c: called by the detours, and by kprobe_ss_brk_handler(). */
int optprobe_callback(unsigned long addr, struct pt_regs *regs);
bool optprobe_exit_brk_handler(struct pt_regs *regs);
#else
static inline bool optprobe_exit_brk_handler(struct pt_regs *regs)
{
	return false;
}
#endif

#endif /* _ARM64_KERNEL_PROBES_COMMON_H */
