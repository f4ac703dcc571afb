/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detour of an optimized kprobe, and its exit for redirected hits.
 *
 * The probed instruction is replaced by a B to a copy of the template,
 * made by arch_prepare_optimized_kprobe(), which fills in the displaced
 * instruction, the branch back to the instruction after it and the
 * literals.  The template itself is never executed: it lives in .rodata.
 *
 * The detour saves the registers of the probed context as a pt_regs below
 * its stack pointer, with a frame record {x29, probed address} for
 * unwinders, and calls optprobe_callback(probed address, regs).  When that
 * returns 0, it restores the registers (and the condition flags), runs the
 * displaced instruction and branches back.
 *
 * Otherwise a handler moved the PC, and the detour goes to
 * optprobe_detour_exit, which restores the registers and the stack pointer
 * too, then traps: optprobe_exit_brk_handler() sets the PC, which no
 * register is left to hold, and the exception return does the rest, with
 * the PSTATE of the probed context.  optprobe_callback() left interrupts
 * masked for these few instructions, and the new PC in the per-CPU kprobes
 * state.
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/brk-imm.h>

#include "asm-regs.h"

	.pushsection .rodata, "a"
	.align	3
SYM_DATA_START(optprobe_detour)
	sub	sp, sp, #PT_REGS_SIZE
	kprobe_save_gprs
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]
	kprobe_get_pstate x1, x2
	ldr	x0, .Lprobe_addr
	stp	x0, x1, [sp, #S_PC]
	stp	x29, x0, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x1, sp
	ldr	x2, .Lcallback
	blr	x2
	cbnz	w0, .Lredirected

	ldr	x0, [sp, #S_PSTATE]
	and	x0, x0, #PSR_NZCV_MASK
	msr	nzcv, x0
	kprobe_restore_gprs
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
SYM_INNER_LABEL(optprobe_detour_displaced, SYM_L_GLOBAL)
	nop
	nop

.Lredirected:
	ldr	x16, .Lexit
	br	x16

	.align	3
SYM_INNER_LABEL(optprobe_detour_probe_addr, SYM_L_GLOBAL)
.Lprobe_addr:
	.quad	0
SYM_INNER_LABEL(optprobe_detour_callback, SYM_L_GLOBAL)
.Lcallback:
	.quad	0
SYM_INNER_LABEL(optprobe_detour_exit_addr, SYM_L_GLOBAL)
.Lexit:
	.quad	0
SYM_INNER_LABEL(optprobe_detour_end, SYM_L_GLOBAL)
SYM_DATA_END(optprobe_detour)
	.popsection

	.text
/* Entered from a detour by BR X16, with sp at the detour's pt_regs. */
SYM_CODE_START(optprobe_detour_exit)
	hint	#36			// BTI J
	ldr	x0, [sp, #S_PSTATE]
	and	x0, x0, #PSR_NZCV_MASK
	msr	nzcv, x0
	kprobe_restore_gprs
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
SYM_INNER_LABEL(optprobe_detour_exit_brk, SYM_L_GLOBAL)
	brk	#KPROBES_BRK_SS_IMM
SYM_CODE_END(optprobe_detour_exit)
NOKPROBE(optprobe_detour_exit)
