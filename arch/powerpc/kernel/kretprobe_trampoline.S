/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The return trampoline of kretprobes.
 */
#include <linux/export.h>
#include <asm/ppc_asm.h>

#include "kprobes-regs.S"

	.text

/*
 * A kretprobed function returns here: arch_prepare_kretprobe() replaced its
 * return address, so LR is this address and r1 the stack pointer the
 * function was entered with, which identifies the frame.  Build a pt_regs
 * of the registers the function returned with (r0 too: nothing uses it
 * before it is saved), and, like a called function, store LR in the
 * caller's LR save slot, where unwinders find the trampoline and ask
 * kretprobe_find_ret_addr() for the real return address (the returned
 * function did not save LR if it is a leaf).  Then let the generic handler
 * run the kretprobe handlers; it gives back the real return address, where
 * the caller resumes with the registers in pt_regs (a handler may change
 * the return value) and LR set, as after a blr.  No trap.
 */
_GLOBAL(__kretprobe_trampoline)
	kprobe_save_regs
	PPC_LL	r0, _LINK(r1)
	PPC_STL	r0, _NIP(r1)
	PPC_STL	r0, INT_FRAME_SIZE + LRSAVE(r1)
#ifdef CONFIG_PPC64
	LOAD_PACA_TOC()
#endif
	addi	r3, r1, STACK_INT_FRAME_REGS
	addi	r4, r1, INT_FRAME_SIZE
	bl	CFUNC(__kretprobe_trampoline_handler)
	mtlr	r3
	kprobe_restore_regs_but_lr
	blr
_ASM_NOKPROBE_SYMBOL(DOTSYM(__kretprobe_trampoline))

#ifdef CONFIG_JPROBES
/*
 * The traps that end a jprobe handler (see "jprobes" in <linux/kprobes.h>):
 * jprobe_return() traps and is resumed elsewhere, or, called outside a
 * handler, right after its trap, and returns.  A handler that returns lands
 * on __jprobe_guard.  Both traps are at no probe site, and kprobe_handler()
 * hands them to jprobe_break().
 */
_GLOBAL(jprobe_return)
	.globl	jprobe_return_break
jprobe_return_break:
	trap
	blr
EXPORT_SYMBOL_GPL(jprobe_return)

	.balign	4
	.globl	__jprobe_guard
__jprobe_guard:
	.globl	jprobe_guard_break
jprobe_guard_break:
	trap
#endif
