/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef __ASM_KPROBES_H
#define __ASM_KPROBES_H
/*
 * arm64 part of kprobes: the types the generic core (<linux/kprobes.h>)
 * needs from the architecture, and the entry points of the BRK exception
 * path.  arch/arm64/kernel/probes/ has the implementation.
 */
#include <asm-generic/kprobes.h>

#ifndef __ASSEMBLY__
#include <linux/types.h>

struct pt_regs;

/*
 * Called by call_el1_break_hook() for BRK #KPROBES_BRK_IMM (a probe was
 * hit), BRK #KPROBES_BRK_SS_IMM (the out-of-line copy of a probed
 * instruction ran) and BRK #KRETPROBES_BRK_IMM, which kprobes does not use:
 * functions return through a trampoline that does not trap.
 * They return DBG_HOOK_HANDLED or DBG_HOOK_ERROR.
 */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr);
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr);

#ifdef CONFIG_KPROBES
#include <asm/insn.h>
#include <asm/probes.h>
#include <asm/ptrace.h>

struct kprobe;

typedef u32 kprobe_opcode_t;

/* An instruction is a single unit. */
#define MAX_INSN_SIZE			1

/*
 * A BRK may only replace a B, BL, BRK, NOP, ISB, SVC, HVC or SMC that
 * another CPU is executing: breakpoints are written with the CPUs stopped.
 */
#define __ARCH_WANT_KPROBES_STOP_MACHINE

/*
 * An instruction slot holds two copies of the probed instruction:
 *
 *   [KPROBE_SLOT_BOOST]	insn; B <probed address + 4>
 *   [KPROBE_SLOT_STEP]		insn; B kprobe_step_trampoline
 *				   or insn; BRK #KPROBES_BRK_SS_IMM
 *
 * The first one returns straight to the probed code (a "boosted" hit takes
 * a single trap); it is only usable when the branch reaches the probed code
 * (+/-128 MiB).  The second one goes back into kprobes, which restores the
 * state of the probed context and runs the post handlers: through the
 * trampoline, without a second trap, when the branch reaches it and the
 * instruction writes no PSTATE field (MSR); else through a trap.
 */
#define KPROBE_INSN_SLOT_SIZE		4
#define KPROBE_SLOT_BOOST		0
#define KPROBE_SLOT_STEP		2

/**
 * struct arch_specific_insn - arm64 state of a probe site
 * @api: shared with uprobes (<asm/probes.h>): @api.insn is the slot, NULL
 *	when the instruction is simulated by @api.handler; @api.restore is
 *	where execution resumes after the slot (the next instruction)
 * @boostable: the first copy of the slot may be used
 * @landing_pad: the instruction is a BTI or PACI[AB]SP, which an indirect
 *	branch may target: it must not be replaced by a branch
 */
struct arch_specific_insn {
	struct arch_probe_insn api;
	u8 boostable;
	u8 landing_pad;
};

/*
 * jprobes: bytes of stack saved at the hit and restored before the probed
 * function runs: up to eight stack arguments (x0-x7 take the first eight).
 */
#define MAX_STACK_SIZE			64

/* One interrupted probe, saved while a reentered one runs out of line. */
struct prev_kprobe {
	struct kprobe *kp;
	unsigned int status;
};

/**
 * struct kprobe_ctlblk - per-CPU kprobes state
 * @kprobe_status: KPROBE_HIT_* / KPROBE_REENTER
 * @saved_irqflag: PSTATE.{D,A,I,F} of the probed context; all are set
 *	while the instruction runs out of line, so that the task can neither
 *	be interrupted nor migrate between the two traps, nor a debug
 *	exception bring a handler in between
 * @step_pstate: PSTATE of the out-of-line copy, for the exception return
 *	of kprobe_step_trampoline: the probed context's, DAIF set, no BTYPE
 * @prev_kprobe: the interrupted probe during a reentry
 * @resume_pc: where a redirected hit of an optimized probe resumes, from
 *	its detour's exit trap on (interrupts masked in between)
 */
struct kprobe_ctlblk {
	unsigned int kprobe_status;
	unsigned long saved_irqflag;
	unsigned long step_pstate;
	struct prev_kprobe prev_kprobe;
	unsigned long resume_pc;
};

#ifdef CONFIG_KRETPROBES
/* See <linux/kprobes.h>: after a RET, the link register is the PC. */
static nokprobe_inline void
arch_kretprobe_fixup_return(struct pt_regs *regs,
			    kprobe_opcode_t *correct_ret_addr)
{
	regs->regs[30] = (u64)correct_ret_addr;
}
#endif

#ifdef CONFIG_OPTPROBES
/*
 * The detour of an optimized probe: a copy of the template in
 * arch/arm64/kernel/probes/opt_detour.S.  The jump replaces exactly
 * one instruction.
 */
#define MAX_OPTINSN_SIZE		64
#define MAX_OPTIMIZED_LENGTH		AARCH64_INSN_SIZE

/**
 * struct arch_optimized_insn - detour of an optimized probe
 * @insn: the detour slot, NULL when not prepared
 */
struct arch_optimized_insn {
	kprobe_opcode_t *insn;
};
#endif /* CONFIG_OPTPROBES */

#endif /* CONFIG_KPROBES */
#endif /* !__ASSEMBLY__ */
#endif /* __ASM_KPROBES_H */
