/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The return trampoline of kretprobes.
 */
#include <linux/export.h>
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/csr.h>

#include "probes-asm.h"

	.text

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
