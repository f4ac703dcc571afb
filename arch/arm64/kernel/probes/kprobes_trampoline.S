/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The return trampoline of kretprobes.
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>

#include "asm-regs.h"

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
	sub	sp, sp, #PT_REGS_SIZE
	kprobe_save_gprs
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]
	kprobe_get_pstate x1, x2
	adr	x0, __kretprobe_trampoline
	stp	x0, x1, [sp, #S_PC]
	stp	x29, x0, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

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
