/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 jprobes: the breakpoints that end a jprobe handler.
 *
 * jprobe_return() traps at jprobe_return_break; jprobe_break() then resumes
 * the probed function, so the int3 never returns here, except when it was
 * called outside a jprobe handler: the trap then resumes after it and
 * jprobe_return() returns.
 *
 * __jprobe_guard is the return address a jprobe handler finds on its stack.
 * A handler that returns lands here with the stack pointer one slot above
 * where it was at the hit: taking the slot back before the int3 keeps the
 * trap's frame out of the stack area jprobe_break() restores.  Reached any
 * other way, its int3 is a stray breakpoint.
 */
#include <linux/export.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/unwind_hints.h>

	.text
SYM_FUNC_START(jprobe_return)
SYM_INNER_LABEL(jprobe_return_break, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	int3
	RET
SYM_FUNC_END(jprobe_return)
EXPORT_SYMBOL_GPL(jprobe_return)

SYM_CODE_START(__jprobe_guard)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$8, %rsp
SYM_INNER_LABEL(jprobe_guard_break, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	int3
	ud2
SYM_CODE_END(__jprobe_guard)
