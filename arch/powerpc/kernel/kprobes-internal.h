/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of powerpc kprobes: kprobes.c (trap probes),
 * optprobes.c (jump optimization) and kprobes-ftrace.c.
 */
#ifndef _POWERPC_KERNEL_KPROBES_INTERNAL_H
#define _POWERPC_KERNEL_KPROBES_INTERNAL_H

#include <linux/types.h>
#include <asm/inst.h>

struct instruction_op;
struct pt_regs;

/* kprobes.c */
int kprobe_classify(ppc_inst_t insn, struct instruction_op *op);
bool kprobe_insn_pcrel(ppc_inst_t insn);

/* optprobes.c */
#ifdef CONFIG_OPTPROBES
/* The detour template and its fields (optprobes_head.S). */
extern const u32 optprobe_template_entry[];
extern const u32 optprobe_template_insn[];
extern const u32 optprobe_template_branch[];
extern const u32 optprobe_template_exit[];
extern const u32 optprobe_template_probe_addr[];
extern const u32 optprobe_template_callback[];
extern const u32 optprobe_template_end[];

/* The buffer in the kernel text that detour pages are taken from first. */
extern u32 optprobe_buffer[];
extern u32 optprobe_buffer_end[];

bool optprobe_exit_trap(struct pt_regs *regs);
bool optprobe_in_buffer(unsigned long addr);
int optprobe_populate_blacklist(void);
/* Called by the detours, see optprobes_head.S. */
int optprobe_callback(unsigned long addr, struct pt_regs *regs);
#else
static inline bool optprobe_exit_trap(struct pt_regs *regs)
{
	return false;
}

static inline bool optprobe_in_buffer(unsigned long addr)
{
	return false;
}

static inline int optprobe_populate_blacklist(void)
{
	return 0;
}
#endif

#endif /* _POWERPC_KERNEL_KPROBES_INTERNAL_H */
