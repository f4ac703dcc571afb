/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The return trampoline of kretprobes, the return path of stepped copies and
 * the breakpoints of jprobes.
 */
#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/csr.h>

#include "probes-asm.h"

	.text

#ifdef CONFIG_KRETPROBES
/*
 * A kretprobed function returns here: arch_prepare_kretprobe() replaced its
 * return address.  Build a pt_regs of the registers the function returned
 * with (epc: this trampoline, sp: the stack pointer at the return, which
 * identifies the frame) and, right below that stack pointer, a frame record
 * {caller's frame pointer, this trampoline} for unwinders, which find the
 * real return address of a frame whose return address is the trampoline
 * through kretprobe_find_ret_addr().  The generic handler runs the
 * kretprobe handlers and gives the real return address, where the caller
 * resumes with the registers in pt_regs (a handler may change the return
 * value), ra included, as after a return.
 */
SYM_CODE_START(__kretprobe_trampoline)
	addi	sp, sp, -KPROBES_FRAME_SIZE
	kprobes_save_regs
	lla	t1, __kretprobe_trampoline
	REG_S	t1, PT_EPC(sp)
	kprobes_frame_record t1

	mv	a0, sp
	mv	a1, s0
	call	__kretprobe_trampoline_handler
	REG_S	a0, PT_RA(sp)

	kprobes_restore_regs
	addi	sp, sp, KPROBES_FRAME_SIZE
	ret
SYM_CODE_END(__kretprobe_trampoline)
ASM_NOKPROBE(__kretprobe_trampoline)
#endif

/*
 * A stepped copy jumps here after its instruction (JAL, or AUIPC+JALR
 * through a register dead after the probed one), with interrupts off since
 * the EBREAK of the hit:
 * nothing can run on this hart, nor move the task.  Build a pt_regs of the
 * registers after the instruction, status as a trap here would save it,
 * and a frame record; kprobe_step_trampoline_handler() restores the probed
 * context's interrupt state in it (SPIE), sets epc after the probed
 * instruction and runs the post handlers.  SRET resumes there, as the
 * handlers left the registers, with SIE from SPIE: epc and the interrupt
 * state need no general register.  sp, gp and tp are not restored, as by
 * the kernel's return from a trap.
 */
SYM_CODE_START(kprobe_step_trampoline)
	addi	sp, sp, -KPROBES_FRAME_SIZE
	kprobes_save_regs
	lla	t1, kprobe_step_trampoline
	REG_S	t1, PT_EPC(sp)
	kprobes_frame_record t1

	mv	a0, sp
	call	kprobe_step_trampoline_handler

	REG_L	t0, PT_EPC(sp)
	csrw	CSR_EPC, t0
	REG_L	t0, PT_STATUS(sp)
	li	t1, SR_PIE
	and	t0, t0, t1
	csrc	CSR_STATUS, t1
	csrs	CSR_STATUS, t0
	li	t1, SR_PP
	csrs	CSR_STATUS, t1
	kprobes_restore_regs
	addi	sp, sp, KPROBES_FRAME_SIZE
#ifdef CONFIG_RISCV_M_MODE
	mret
#else
	sret
#endif
SYM_CODE_END(kprobe_step_trampoline)
ASM_NOKPROBE(kprobe_step_trampoline)

#ifdef CONFIG_JPROBES
/*
 * The breakpoints that end a jprobe handler (see "jprobes" in
 * <linux/kprobes.h>): jprobe_return() traps and is resumed elsewhere, or,
 * called outside a handler, right after its EBREAK, and returns.  A handler
 * that returns lands on __jprobe_guard.  Both are 32-bit EBREAKs at no probe
 * site, which kprobe_breakpoint_handler() hands to jprobe_break().
 */
SYM_FUNC_START(jprobe_return)
	.option push
	.option norvc
SYM_INNER_LABEL(jprobe_return_break, SYM_L_GLOBAL)
	ebreak
	.option pop
	ret
SYM_FUNC_END(jprobe_return)
EXPORT_SYMBOL_GPL(jprobe_return)

	.balign 4
SYM_CODE_START(__jprobe_guard)
	.option push
	.option norvc
SYM_INNER_LABEL(jprobe_guard_break, SYM_L_GLOBAL)
	ebreak
	.option pop
SYM_CODE_END(__jprobe_guard)
#endif
