/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The return trampoline of kretprobes, the return path of stepped copies and
 * the breakpoints of jprobes.
 */
#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/alternative.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/brk-imm.h>

#include "asm-regs.h"

/*
 * Push a pt_regs of the registers at this point, with SP as it was before
 * the push, PC \pc and PSTATE as kprobe_get_pstate reads it (or, if
 * \nzcv_only is 1, the condition flags only), and a frame record {x29, \pc}
 * for unwinders, which x29 points to.  Clobbers x0-x2 (after saving them).
 */
	.macro	kprobe_push_regs, pc, nzcv_only
	sub	sp, sp, #PT_REGS_SIZE
	kprobe_save_gprs
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]
	.if	\nzcv_only
	mrs	x1, nzcv
	.else
	kprobe_get_pstate x1, x2
	.endif
	adr	x0, \pc
	stp	x0, x1, [sp, #S_PC]
	stp	x29, x0, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME
	.endm

	.text

/*
 * A kretprobed function returns here: arch_prepare_kretprobe() replaced its
 * return address.  Build a pt_regs of the registers the function returned
 * with, and a frame record {caller's frame pointer, this trampoline} for
 * unwinders, which find the real return address of a frame whose return
 * address is the trampoline through kretprobe_find_ret_addr().  The generic
 * handler runs the kretprobe handlers and gives the real return address,
 * where the function's caller resumes with the registers in pt_regs (a
 * handler may change the return value), x30 included, as after a RET.
 */
SYM_CODE_START(__kretprobe_trampoline)
	kprobe_push_regs __kretprobe_trampoline, 0

	mov	x0, sp
	ldr	x1, [sp, #S_FP]
	bl	__kretprobe_trampoline_handler
	mov	x30, x0

	ldr	x0, [sp, #S_PSTATE]
	and	x0, x0, #PSR_NZCV_MASK
	msr	nzcv, x0
	kprobe_restore_gprs
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(__kretprobe_trampoline)
NOKPROBE(__kretprobe_trampoline)

/*
 * A stepped copy branches here after its instruction, with PSTATE.{D,A,I,F}
 * set since the BRK of the hit: nothing can run on this CPU, nor move the
 * task, nor use the stack below SP.  Build a pt_regs of the registers after
 * the instruction (PSTATE: the condition flags only), with a frame record
 * for unwinders; kprobe_step_trampoline_handler() completes it as a trap
 * after the copy would have (PC, PSTATE), runs the post handlers in the
 * context of that trap, and the exception return resumes the probed code
 * as they left the registers: ELR and SPSR take PC and PSTATE, which no
 * general register could hold.
 * SP is not restored from pt_regs, as by any exception return to EL1.
 */
SYM_CODE_START(kprobe_step_trampoline)
	kprobe_push_regs kprobe_step_trampoline, 1

	mov	x0, sp
	bl	kprobe_step_trampoline_handler

	ldp	x0, x1, [sp, #S_PC]
	msr	elr_el1, x0
	msr	spsr_el1, x1
	kprobe_restore_gprs
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
	/* As kernel_exit does before an ERET: erratum 1508412. */
	alternative_insn nop, "dmb sy", ARM64_WORKAROUND_1508412
	eret
	sb
SYM_CODE_END(kprobe_step_trampoline)
NOKPROBE(kprobe_step_trampoline)

#ifdef CONFIG_JPROBES
/*
 * The breakpoints that end a jprobe handler (see "jprobes" in
 * <linux/kprobes.h>): jprobe_return() traps and is resumed elsewhere, or,
 * called outside a handler, right after its BRK, and returns.  A handler
 * that returns lands on __jprobe_guard.  Both BRKs are #KPROBES_BRK_IMM at
 * no probe site, which kprobe_brk_handler() hands to jprobe_break().
 *
 * An exception return to EL1 keeps SP as it was at the exception: in a
 * handler, jprobe_return() first moves SP back to where it was at the hit
 * (jprobe_entry_sp; the handler's frames are dead), so that the BRK's frame
 * lies below the saved stack area and the probed function resumes with its
 * own SP.  A handler that returns has SP there already.  x16 and x17 may be
 * clobbered by any call.
 */
SYM_FUNC_START(jprobe_return)
	ldr_this_cpu	x16, jprobe_entry_sp, x17
	cbz	x16, jprobe_return_break
	mov	sp, x16
SYM_INNER_LABEL(jprobe_return_break, SYM_L_GLOBAL)
	brk	#KPROBES_BRK_IMM
	ret
SYM_FUNC_END(jprobe_return)
EXPORT_SYMBOL_GPL(jprobe_return)

SYM_CODE_START(__jprobe_guard)
SYM_INNER_LABEL(jprobe_guard_break, SYM_L_GLOBAL)
	brk	#KPROBES_BRK_IMM
SYM_CODE_END(__jprobe_guard)
#endif
