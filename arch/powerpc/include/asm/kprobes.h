/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_POWERPC_KPROBES_H
#define _ASM_POWERPC_KPROBES_H
/*
 * powerpc part of kprobes: the types the generic core (<linux/kprobes.h>)
 * needs from the architecture, and the entry points of the trap paths in
 * traps.c.  arch/powerpc/kernel/kprobes*.c and optprobes*.[cS] have the
 * implementation.
 */
#include <asm-generic/kprobes.h>

#ifndef __ASSEMBLY__
#include <linux/types.h>

struct pt_regs;

#ifdef CONFIG_KPROBES
#include <asm/inst.h>
#include <asm/ptrace.h>

struct kprobe;

typedef u32 kprobe_opcode_t;

/*
 * An instruction is one word, or two for a prefixed (ISA 3.1) one: the unit
 * is a word and a slot holds the longest instruction, 8-byte aligned, so
 * that a prefixed copy never crosses a 64-byte boundary.
 */
#define MAX_INSN_SIZE		2

/*
 * How a probed instruction is run: arch_specific_insn::kind.  The kinds
 * that are never emulated come first: the hit path tests one bound.
 */
enum kprobe_insn_kind {
	KP_INSN_NONE,		/* not run by kprobes (a site armed via ftrace) */
	KP_INSN_STEP_ONLY,	/* always stepped in the slot: a large stdu r1 */
	KP_INSN_EMULATE,	/* emulate_step() always handles it: no slot */
	KP_INSN_STEP,		/* emulated if possible, else stepped in the slot */
};

/**
 * struct arch_specific_insn - powerpc state of a probe site
 * @slot: the out-of-line copy for KP_INSN_STEP(_ONLY), NULL otherwise
 * @insn: the probed instruction, prefix and suffix
 * @kind: enum kprobe_insn_kind
 * @len: its length in bytes, 4 or 8
 */
struct arch_specific_insn {
	kprobe_opcode_t *slot;
	ppc_inst_t insn;
	u8 kind;
	u8 len;
};

/* One interrupted probe, saved while a reentered one is single-stepped. */
struct prev_kprobe {
	struct kprobe *kp;
	unsigned int status;
};

/*
 * jprobes: bytes of stack saved at the hit and restored before the probed
 * function runs: the caller's frame header (the probed function and the
 * handler both save LR and CR there) and parameter save area, with up to
 * four stack arguments (r3-r10 take the first eight).
 */
#define MAX_STACK_SIZE		128

/**
 * struct kprobe_ctlblk - per-CPU kprobes state
 * @kprobe_status: KPROBE_HIT_* / KPROBE_REENTER
 * @saved_msr: MSR of the probed context while its copy is stepped
 * @saved_softe: its interrupt soft-mask state (64-bit): interrupts are
 *	soft-masked while the copy runs, so that nothing can preempt or
 *	migrate the task between the trap and the trace interrupt
 * @prev_kprobe: the interrupted probe during a reentry
 */
struct kprobe_ctlblk {
	unsigned int kprobe_status;
	unsigned long saved_msr;
	unsigned long saved_softe;
	struct prev_kprobe prev_kprobe;
};

#ifdef CONFIG_KRETPROBES
/*
 * See <linux/kprobes.h>: after a blr, the link register is the instruction
 * pointer.
 */
static nokprobe_inline void
arch_kretprobe_fixup_return(struct pt_regs *regs,
			    kprobe_opcode_t *correct_ret_addr)
{
	regs->link = (unsigned long)correct_ret_addr;
}
#endif

/*
 * Called by do_program_check() for a trap in the kernel and by the single
 * step (trace) exception handlers; they return 1 when the exception was
 * kprobes', 0 to let the kernel handle it.
 */
int kprobe_handler(struct pt_regs *regs);
int kprobe_post_handler(struct pt_regs *regs);

#ifdef CONFIG_OPTPROBES
/*
 * The detour of an optimized probe: a copy of the template in
 * optprobes_head.S.  The branch replaces the probed instruction only.
 */
#define MAX_OPTINSN_SIZE	128
#define MAX_OPTIMIZED_LENGTH	(MAX_INSN_SIZE * sizeof(kprobe_opcode_t))

/**
 * struct arch_optimized_insn - detour of an optimized probe
 * @insn: the detour slot, NULL when not prepared
 */
struct arch_optimized_insn {
	kprobe_opcode_t *insn;
};
#endif /* CONFIG_OPTPROBES */

#else /* !CONFIG_KPROBES */
static inline int kprobe_handler(struct pt_regs *regs)
{
	return 0;
}

static inline int kprobe_post_handler(struct pt_regs *regs)
{
	return 0;
}
#endif /* CONFIG_KPROBES */
#endif /* !__ASSEMBLY__ */
#endif /* _ASM_POWERPC_KPROBES_H */
