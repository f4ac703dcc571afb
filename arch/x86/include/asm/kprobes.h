/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H
/*
 * x86 part of kprobes: the types the generic core (<linux/kprobes.h>) needs
 * from the architecture.  arch/x86/kernel/kprobes/ has the implementation.
 */
#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <asm/ptrace.h>
#include <asm/insn.h>		/* MAX_INSN_SIZE: the longest instruction */

struct pt_regs;
struct kprobe;

typedef u8 kprobe_opcode_t;

#define BREAKPOINT_INSTRUCTION	0xcc

/*
 * An instruction slot holds two copies of the probed instruction: one
 * followed by a jump back to the probed code (boosted execution, no second
 * trap), one followed by a push of the next instruction's address and a
 * jump to kprobe_step_trampoline, or a breakpoint for an indirect branch
 * (when post handlers must run after the instruction).  15 + 5 + 15 + 5 +
 * 5 bytes, rounded up.
 */
#define KPROBE_INSN_SLOT_SIZE	48

/* Detour of an optimized probe: register save template + displaced code. */
#define MAX_OPTINSN_SIZE	192

/*
 * jprobes: bytes of stack saved at the hit and restored before the probed
 * function runs: its return address and up to seven stack arguments.
 */
#define MAX_STACK_SIZE		64

/* Bytes replaced by the jump of an optimized probe. */
#define KPROBE_OPT_JUMP_SIZE	5

/* How a probed instruction is executed: arch_specific_insn::kind. */
enum kprobe_insn_kind {
	KP_INSN_SLOT,		/* copied to the slot and run there */
	KP_INSN_JMP,		/* jmp rel8/rel32: emulated */
	KP_INSN_JCC,		/* jcc rel8/rel32: emulated */
	KP_INSN_CALL,		/* call rel32: emulated */
	KP_INSN_RET,		/* ret, ret imm16: emulated */
	KP_INSN_LOOP,		/* loop, loope, loopne, jrcxz: emulated */
	KP_INSN_JMP_IND,	/* jmp *reg / jmp *mem: emulated */
	KP_INSN_CALL_IND,	/* call *reg / call *mem: emulated */
};

/* Register number meaning "none" in arch_specific_insn::base/index. */
#define KP_NO_REG		0xff

/**
 * struct arch_specific_insn - x86 state of a probe site
 * @insn: the slot (two copies, see KPROBE_INSN_SLOT_SIZE), NULL when the
 *	instruction is emulated
 * @target: absolute branch target (rel branches), or the absolute address
 *	of a RIP-relative memory operand (indirect branches through memory)
 * @disp: memory operand displacement of an indirect branch
 * @imm: bytes released by ret imm16
 * @kind: enum kprobe_insn_kind
 * @len: length of the probed instruction
 * @cond: condition code of a jcc, or low opcode bits of a loop
 * @base: register of an indirect branch (register form) or base register of
 *	its memory operand, KP_NO_REG if none
 * @index: index register of the memory operand, KP_NO_REG if none
 * @scale: log2 of the index scale
 * @mem: the indirect branch reads its target from memory
 * @int3_off: offset of the stepping copy in @insn (followed by a jump to
 *	kprobe_step_trampoline, or by a breakpoint)
 * @boostable: the copy followed by a jump back may be used
 * @pushf: the instruction is pushf (its pushed IF needs fixing up)
 */
struct arch_specific_insn {
	kprobe_opcode_t *insn;
	unsigned long target;
	s32 disp;
	u16 imm;
	u8 kind;
	u8 len;
	u8 cond;
	u8 base;
	u8 index;
	u8 scale;
	u8 mem;
	u8 int3_off;
	u8 boostable;
	u8 pushf;
};

/**
 * struct arch_optimized_insn - detour of an optimized probe
 * @copied_insn: the original bytes under the jump (the first one is the
 *	probed instruction's opcode, also in kprobe::opcode)
 * @insn: the detour slot, NULL when not prepared
 * @size: bytes of instructions displaced to the detour (>= jump size)
 */
struct arch_optimized_insn {
	kprobe_opcode_t copied_insn[KPROBE_OPT_JUMP_SIZE];
	kprobe_opcode_t *insn;
	size_t size;
};

/*
 * What a CPU keeps of the probe it runs, next to current_kprobe.  A reentry
 * saves it whole, and puts it back whole when the reentered probe is done.
 */
struct kprobe_cpu_state {
	unsigned long kprobe_status;
	unsigned long saved_if;
};

/**
 * struct kprobe_ctlblk - per-CPU kprobes state
 * @kprobe_status: KPROBE_HIT_* / KPROBE_REENTER
 * @saved_if: X86_EFLAGS_IF of the probed context, cleared while the
 *	instruction runs out of line before the second trap
 * @state: the two above, as one
 * @outer: the probe a reentry interrupted
 * @outer_state: its state
 */
struct kprobe_ctlblk {
	union {
		struct {
			unsigned long kprobe_status;
			unsigned long saved_if;
		};
		struct kprobe_cpu_state state;
	};
	struct kprobe *outer;
	struct kprobe_cpu_state outer_state;
};

int kprobe_int3_handler(struct pt_regs *regs);

#ifdef CONFIG_KRETPROBES
/*
 * See <linux/kprobes.h>.  __kretprobe_trampoline's struct pt_regs lies right
 * below the slot the function returned from (ri->fp), where the trampoline
 * put its own address for the unwinders: the real one goes there, and the
 * trampoline returns through it.
 */
static nokprobe_inline void
arch_kretprobe_fixup_return(struct pt_regs *regs,
			    kprobe_opcode_t *correct_ret_addr)
{
	*(unsigned long *)(regs + 1) = (unsigned long)correct_ret_addr;
}

/* ftrace_caller saves the stack pointer, where the return address is. */
#ifdef CONFIG_KPROBES_ON_FTRACE
#define __ARCH_WANT_KRETPROBE_FTRACE
#endif
#endif

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
