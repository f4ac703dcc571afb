/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probed functions of the riscv kprobes KUnit suite (kunit_asm.S).
 */
#ifndef _RISCV_KERNEL_PROBES_KUNIT_H
#define _RISCV_KERNEL_PROBES_KUNIT_H

#include <linux/linkage.h>
#include <linux/types.h>

/**
 * struct kprv_site - a probed instruction of kunit_asm.S
 * @fn: the function
 * @off: the offset of the instruction in it
 * @kind: KPRV_SLOT (runs out of line) or KPRV_SIM (simulated)
 */
struct kprv_site {
	void *fn;
	u32 off;
	u32 kind;
};

#define KPRV_SLOT	0
#define KPRV_SIM	1

extern const struct kprv_site kprv_sites[], kprv_sites_end[];

asmlinkage long kprv_seq(long x);
asmlinkage long kprv_seq_far(long x);
asmlinkage long kprv_beq(long a, long b);
asmlinkage long kprv_bne(long a, long b);
asmlinkage long kprv_blt(long a, long b);
asmlinkage long kprv_bge(long a, long b);
asmlinkage long kprv_bltu(long a, long b);
asmlinkage long kprv_bgeu(long a, long b);
asmlinkage long kprv_c_beqz(long a);
asmlinkage long kprv_c_bnez(long a);
asmlinkage long kprv_add5(long x);
asmlinkage long kprv_c_j(long x);
asmlinkage long kprv_j(long x);
asmlinkage long kprv_call(long x);
asmlinkage long kprv_auipc(long x);
asmlinkage long kprv_opt(long x);
asmlinkage long kprv_opt_far(long x);
asmlinkage long kprv_opt_args_far(long x, long ignored);
asmlinkage long kprv_opt_auipc(long x);
asmlinkage long kprv_lrsc(u32 *p);
asmlinkage long kprv_load(const long *p);
asmlinkage void kprv_refused(void);
asmlinkage void kprv_custom(void);

#endif /* _RISCV_KERNEL_PROBES_KUNIT_H */
