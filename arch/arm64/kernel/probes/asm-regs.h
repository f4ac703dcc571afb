/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a struct pt_regs on the stack outside of an exception, for the
 * kretprobe trampoline and the detours of optimized probes.
 */
#ifndef _ARM64_KERNEL_PROBES_ASM_REGS_H
#define _ARM64_KERNEL_PROBES_ASM_REGS_H

#ifdef __ASSEMBLY__

#include <asm/ptrace.h>

/* The condition flags in PSTATE and SPSR. */
#define PSR_NZCV_MASK	(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)

/* Store x0-x29 into the pt_regs at sp. */
	.macro	kprobe_save_gprs
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	stp	x18, x19, [sp, #S_X18]
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]
	.endm

/* Load x0-x29 from the pt_regs at sp. */
	.macro	kprobe_restore_gprs
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldp	x8, x9, [sp, #S_X8]
	ldp	x10, x11, [sp, #S_X10]
	ldp	x12, x13, [sp, #S_X12]
	ldp	x14, x15, [sp, #S_X14]
	ldp	x16, x17, [sp, #S_X16]
	ldp	x18, x19, [sp, #S_X18]
	ldp	x20, x21, [sp, #S_X20]
	ldp	x22, x23, [sp, #S_X22]
	ldp	x24, x25, [sp, #S_X24]
	ldp	x26, x27, [sp, #S_X26]
	ldp	x28, x29, [sp, #S_X28]
	.endm

/*
 * \reg = what SPSR would hold for the current context: NZCV, DAIF, the
 * exception level, SP_ELx.  The other PSTATE fields are not readable on
 * every CPU; nothing restores this value as a whole.
 */
	.macro	kprobe_get_pstate, reg, tmp
	mrs	\reg, nzcv
	mrs	\tmp, daif
	orr	\reg, \reg, \tmp
	mrs	\tmp, currentel
	orr	\reg, \reg, \tmp
	orr	\reg, \reg, #1
	.endm

#endif /* __ASSEMBLY__ */
#endif /* _ARM64_KERNEL_PROBES_ASM_REGS_H */
