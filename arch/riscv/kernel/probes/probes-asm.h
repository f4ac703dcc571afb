/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Assembly helpers of the kretprobe trampoline and of the detours of
 * optimized kprobes: both build a struct pt_regs of the interrupted code
 * and a frame record for unwinders.
 *
 * The frame is a pt_regs with, above it, right below the stack pointer of
 * the interrupted code (S), a 16-byte frame record {s0, pc}.  s0 is set to
 * S, so that unwinders find the record at s0 - 16, as in any frame.
 */
#ifndef _RISCV_KERNEL_PROBES_PROBES_ASM_H
#define _RISCV_KERNEL_PROBES_PROBES_ASM_H

#define KPROBES_FRAME_SIZE	(PT_SIZE_ON_STACK + 16)
#define KPROBES_RECORD_FP	(KPROBES_FRAME_SIZE - 2 * SZREG)
#define KPROBES_RECORD_RA	(KPROBES_FRAME_SIZE - SZREG)

#ifdef __ASSEMBLY__

/*
 * Save every register but epc into the pt_regs at sp, with the stack
 * pointer S, a status of kernel mode with the current interrupt state as
 * the previous one (what a trap from here would save), and no cause.
 * Clobbers t0 and t1 (after saving them).
 */
.macro kprobes_save_regs
	REG_S	ra, PT_RA(sp)
	REG_S	gp, PT_GP(sp)
	REG_S	tp, PT_TP(sp)
	REG_S	t0, PT_T0(sp)

	save_from_x6_to_x31
	addi	t0, sp, KPROBES_FRAME_SIZE
	REG_S	t0, PT_SP(sp)
	.if SR_PIE != (SR_IE << 4)
	.error "SR_PIE is not SR_IE << 4"
	.endif
	csrr	t0, CSR_STATUS
	andi	t0, t0, SR_IE
	slli	t0, t0, 4
	li	t1, SR_PP
	or	t0, t0, t1
	REG_S	t0, PT_STATUS(sp)
	REG_S	zero, PT_BADADDR(sp)
	REG_S	zero, PT_CAUSE(sp)
	REG_S	a0, PT_ORIG_A0(sp)
.endm

/* The frame record {s0, \pc} below S, and s0 = S. */
.macro kprobes_frame_record pc
	REG_S	s0, KPROBES_RECORD_FP(sp)

	REG_S	\pc, KPROBES_RECORD_RA(sp)
	addi	s0, sp, KPROBES_FRAME_SIZE
.endm

/* Restore the registers from the pt_regs at sp, but sp, gp and tp. */
.macro kprobes_restore_regs
	REG_L	ra, PT_RA(sp)
	REG_L	t0, PT_T0(sp)

	restore_from_x6_to_x31
.endm

#endif /* __ASSEMBLY__ */
#endif /* _RISCV_KERNEL_PROBES_PROBES_ASM_H */
