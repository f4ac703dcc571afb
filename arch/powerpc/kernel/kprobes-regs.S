/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Assembly helpers of powerpc kprobes, included by kretprobe_trampoline.S and
 * optprobes_head.S (not built by itself): a pt_regs built on the stack by
 * code that is not an interrupt handler (the kretprobe trampoline, the
 * detours of optimized probes), for handlers that expect one.
 */
#ifndef _POWERPC_KERNEL_KPROBES_REGS_S
#define _POWERPC_KERNEL_KPROBES_REGS_S

#include <asm/asm-offsets.h>
#include <asm/ppc_asm.h>
#include <asm/ptrace.h>

/*
 * Allocate an interrupt-sized frame, which keeps the red zone of the code
 * below which it is built, and save the registers of that code in its
 * pt_regs: GPRs (r1 as it was), LR, CTR, XER, CR, MSR and the interrupt
 * soft-mask state.  The frame is not marked as an exception frame: the
 * trap, nip and marker words are cleared, and the caller sets nip.
 * Clobbers r0.
 */
.macro kprobe_save_regs
	PPC_STLU	r1, -INT_FRAME_SIZE(r1)
	SAVE_GPR(0, r1)
	SAVE_GPRS(2, 31, r1)
	addi	r0, r1, INT_FRAME_SIZE
	PPC_STL	r0, GPR1(r1)
	mflr	r0
	PPC_STL	r0, _LINK(r1)
	mfctr	r0
	PPC_STL	r0, _CTR(r1)
	mfxer	r0
	PPC_STL	r0, _XER(r1)
	mfcr	r0
	PPC_STL	r0, _CCR(r1)
	mfmsr	r0
	PPC_STL	r0, _MSR(r1)
#ifdef CONFIG_PPC64
	lbz	r0, PACAIRQSOFTMASK(r13)
	std	r0, SOFTE(r1)
#endif
	li	r0, 0
	PPC_STL	r0, _TRAP(r1)
	PPC_STL	r0, _NIP(r1)
	PPC_STL	r0, ORIG_GPR3(r1)
	PPC_STL	r0, RESULT(r1)
	PPC_STL	r0, STACK_INT_FRAME_MARKER(r1)
.endm

/*
 * The non-volatile GPRs as the pt_regs say.  On 64-bit, r13 is the paca of
 * the CPU the code runs on, which may not be the one it was saved on: it
 * is never restored.
 */
.macro kprobe_restore_nvgprs
#ifdef CONFIG_PPC64
	REST_GPRS(14, 31, r1)
#else
	REST_GPRS(13, 31, r1)
#endif
.endm

/*
 * Restore what kprobe_save_regs saved but LR and MSR, as the pt_regs say
 * now (handlers may have changed them), and free the frame.
 */
.macro kprobe_restore_regs_but_lr
	PPC_LL	r0, _CCR(r1)
	mtcr	r0
	PPC_LL	r0, _XER(r1)
	mtxer	r0
	PPC_LL	r0, _CTR(r1)
	mtctr	r0
	REST_GPR(0, r1)
	REST_GPRS(2, 12, r1)
	kprobe_restore_nvgprs
	addi	r1, r1, INT_FRAME_SIZE
.endm

#endif /* _POWERPC_KERNEL_KPROBES_REGS_S */
