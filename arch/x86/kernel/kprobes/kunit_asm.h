/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef __X86_KERNEL_KPROBES_KUNIT_ASM_H
#define __X86_KERNEL_KPROBES_KUNIT_ASM_H
/* The probe targets of the x86 kprobes KUnit test, in kunit_asm.S. */
#include <linux/types.h>
#include <linux/jump_label.h>

extern const u32 kpx_offsets[];
/* The static call trampolines (vmlinux.lds.h), for the refusal test. */
extern const u8 __static_call_text_start[], __static_call_text_end[];
extern u64 kpx_data;
DECLARE_STATIC_KEY_FALSE(kpx_key);
long kpx_leaf(void);
long kpx_tailself(long x);
long kpx_keepregs(void);
int kpx_keepregs_caller(void);
long kpx_jcc8(long x);
long kpx_jcc32(long x);
long kpx_call(void);
long kpx_call_reg(long (*fn)(void));
long kpx_call_mem(void);
long kpx_loop(long n);
long kpx_ret(void);
long kpx_add(long x);
u64 kpx_riprel(void);
unsigned long kpx_pushf(void);
unsigned long kpx_std(long x);
long kpx_push(long x);
long kpx_load(const u64 *p);
long kpx_opt(long x);
unsigned long kpx_opt_flags(long x);
long kpx_opt_jl(long x);
long kpx_split(long x);
void kpx_bad(void);

#endif /* __X86_KERNEL_KPROBES_KUNIT_ASM_H */
