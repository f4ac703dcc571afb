/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Jump optimization of kprobes: the detour template, and the buffer detours
 * are made in.
 */
#include <asm/page.h>
#include <asm/ppc_asm.h>
#include <asm/ppc-opcode.h>

#include "kprobes-regs.S"

/* 128 KiB of detours, or a page if that is larger. */
#if PAGE_SHIFT > 17
#define OPTPROBE_BUFFER_SIZE	PAGE_SIZE
#else
#define OPTPROBE_BUFFER_SIZE	(128 * 1024)
#endif

/*
 * The detour of an optimized probe.  The probed instruction is replaced by a
 * branch to a copy of this template, made by arch_prepare_optimized_kprobe(),
 * which fills in the displaced instruction, the branch back to the
 * instruction after it and the two literals.  The template itself is never
 * executed: it lives in .rodata.  Everything in it is position independent.
 *
 * The detour builds a pt_regs of the probed context (nip: the probed
 * address) below its red zone and calls optprobe_callback(probed address,
 * regs) with the kernel TOC.  When that returns 0, it restores the registers
 * as the pt_regs say, runs the displaced instruction and branches back.
 * Otherwise a handler moved the instruction pointer: the trap at
 * optprobe_template_exit, with the non-volatile registers restored, lets
 * optprobe_exit_trap() resume where the pt_regs say, with the volatile ones
 * restored by the interrupt return.
 */
	.pushsection .rodata, "a"
	.balign	8
	.globl	optprobe_template_entry
optprobe_template_entry:
	kprobe_save_regs
	bcl	20, 31, 1f
1:	mflr	r31
	PPC_LL	r3, (.Lprobe_addr - 1b)(r31)
	PPC_STL	r3, _NIP(r1)
	PPC_LL	r12, (.Lcallback - 1b)(r31)
#ifdef CONFIG_PPC64
	LOAD_PACA_TOC()
#endif
	addi	r4, r1, STACK_INT_FRAME_REGS
	mtctr	r12
	bctrl
	PPC_LCMPI r3, 0
	bne	.Lexit
	PPC_LL	r0, _LINK(r1)
	mtlr	r0
	kprobe_restore_regs_but_lr
	/* 8-byte aligned, so that a prefixed instruction crosses no 64 bytes. */
	.balignl 8, 0x60000000	/* nop */
	.globl	optprobe_template_insn
optprobe_template_insn:
	nop
	nop
	.globl	optprobe_template_branch
optprobe_template_branch:
	trap
	/* The interrupt return restores the volatile registers only. */
.Lexit:
	kprobe_restore_nvgprs
	.globl	optprobe_template_exit
optprobe_template_exit:
	trap
	.balign	8
	.globl	optprobe_template_probe_addr
optprobe_template_probe_addr:
.Lprobe_addr:
	PPC_LONG 0
	.globl	optprobe_template_callback
optprobe_template_callback:
.Lcallback:
	PPC_LONG 0
	.globl	optprobe_template_end
optprobe_template_end:
	.popsection

/*
 * Detours must be within branch range (+/-32 MiB) of the probed code: their
 * pages are taken from this buffer in the kernel text first (see
 * alloc_optinsn_page()).  Never executed but by a detour; it is blacklisted.
 */
	.text
	.balign	PAGE_SIZE
	.globl	optprobe_buffer
optprobe_buffer:
	.fill	OPTPROBE_BUFFER_SIZE / 4, 4, 0x7fe00008	/* trap */
	.globl	optprobe_buffer_end
optprobe_buffer_end:
