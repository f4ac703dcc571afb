/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_RISCV_KPROBES_H
#define _ASM_RISCV_KPROBES_H
/*
 * riscv part of kprobes: the types the generic core (<linux/kprobes.h>)
 * needs from the architecture, and the entry points of the EBREAK path.
 * arch/riscv/kernel/probes/ has the implementation.
 */
#include <asm-generic/kprobes.h>

#ifndef __ASSEMBLY__
#include <linux/types.h>

struct pt_regs;

#ifdef CONFIG_KPROBES
#include <asm/ptrace.h>

/*
 * Called by handle_break() for every EBREAK and C.EBREAK taken in kernel
 * mode: kprobe_single_step_handler() first (the EBREAK after an out-of-line
 * copy, or the exit of a detour), then kprobe_breakpoint_handler() (a probe
 * was hit).  They return true when the trap was kprobes' own.
 */
bool kprobe_breakpoint_handler(struct pt_regs *regs);
bool kprobe_single_step_handler(struct pt_regs *regs);

struct kprobe;

/*
 * The unit of an instruction is a 16-bit parcel: with the C extension an
 * instruction may start on any 2-byte boundary, and the core steps through
 * addresses in units of kprobe_opcode_t.
 */
typedef u16 kprobe_opcode_t;

/* The longest instruction kprobes handles: 32 bits, two parcels. */
#define MAX_INSN_SIZE			2

/*
 * Nothing guarantees that a hart fetching an instruction while another one
 * replaces it sees either instruction (Ziccif is optional): breakpoints are
 * written with the harts stopped.  Only the optimizer swaps its breakpoint
 * and the first instruction of its jump while harts run, one aligned store,
 * as jump labels do (probes/opt.c).
 */
#define __ARCH_WANT_KPROBES_STOP_MACHINE

/*
 * An instruction slot holds two copies of the probed instruction:
 *
 *   [KPROBE_SLOT_STEP]		insn; AUIPC rX, hi; JALR x0, lo(rX)
 *				(to kprobe_step_trampoline; or insn; JAL x0,
 *				kprobe_step_trampoline; or insn; EBREAK)
 *   [KPROBE_SLOT_BOOST]	insn; AUIPC rX, hi; JALR x0, lo(rX)
 *				(or insn; JAL x0, back)
 *
 * The first one goes back into kprobes, which resumes after the probed
 * instruction and runs the post handlers: through the trampoline, without
 * a second trap, when the jump reaches and, for AUIPC+JALR, a register rX
 * is dead after the probed instruction (see insn-analysis.c), else through
 * the trap of the EBREAK.  The second
 * one jumps straight back to the probed code (a "boosted" hit takes a
 * single trap); it exists only when the jump reaches and, for AUIPC+JALR,
 * when rX exists.  Offsets and size are in parcels.
 */
#define KPROBE_SLOT_STEP		0
#define KPROBE_SLOT_BOOST		6
#define KPROBE_INSN_SLOT_SIZE		12

/**
 * struct arch_specific_insn - riscv state of a probe site
 * @slot: the slot (see KPROBE_INSN_SLOT_SIZE), NULL when the instruction is
 *	simulated
 * @simulate: handler that emulates the instruction on the saved registers
 *	(PC-relative and control flow instructions), NULL when it runs from
 *	@slot
 * @insn: the probed instruction, zero-extended when it is compressed
 * @len: its length in bytes, 2 or 4
 * @bp_len: length of the breakpoint written over it: 4 (EBREAK) over a
 *	4-byte aligned 32-bit instruction, else 2 (C.EBREAK over the first
 *	parcel, which one 16-bit store replaces atomically)
 * @boostable: @slot has the copy that jumps back
 */
struct arch_specific_insn {
	kprobe_opcode_t *slot;
	bool (*simulate)(u32 insn, unsigned long addr, struct pt_regs *regs);
	u32 insn;
	u8 len;
	u8 bp_len;
	u8 boostable;
};

/*
 * jprobes: bytes of stack saved at the hit and restored before the probed
 * function runs: up to eight stack arguments (a0-a7 take the first eight).
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
 * @saved_spie: SR_SPIE of the probed context; it is cleared while the copy
 *	runs out of line, so that nothing interrupts the task (and it cannot
 *	migrate) between the two traps
 * @prev_kprobe: the interrupted probe during a reentry
 */
struct kprobe_ctlblk {
	unsigned int kprobe_status;
	unsigned long saved_spie;
	struct prev_kprobe prev_kprobe;
};

#ifdef CONFIG_KRETPROBES
/* See <linux/kprobes.h>: after a return through ra, ra is the PC. */
static nokprobe_inline void
arch_kretprobe_fixup_return(struct pt_regs *regs,
			    kprobe_opcode_t *correct_ret_addr)
{
	regs->ra = (unsigned long)correct_ret_addr;
}
#endif

#ifdef CONFIG_OPTPROBES
/*
 * The detour of an optimized probe: a copy of the template in
 * arch/riscv/kernel/probes/opt_detour.S, followed by the displaced
 * instructions and the jump back.  The jump that replaces the probed
 * instructions is AUIPC+JALR (8 bytes) through a register that is dead
 * there, or a JAL (4 bytes) when the detour is within 1 MiB; it covers
 * whole instructions, so at most 8 + 4 - 2 bytes.  Sizes in parcels,
 * MAX_OPTIMIZED_LENGTH in bytes.
 */
#define MAX_OPTINSN_SIZE		256
#define MAX_OPTIMIZED_LENGTH		10

/**
 * struct arch_optimized_insn - detour of an optimized probe
 * @insn: the detour slot, NULL when not prepared
 * @orig: the original bytes of the displaced instructions
 * @jump: the jump written over them
 * @size: bytes of the displaced instructions (at least @jlen)
 * @jlen: bytes of @jump: 4 (JAL) or 8 (AUIPC+JALR)
 * @head: bytes of @jump written last, in one store over the breakpoint
 *	(its length): @jump is aligned so that patch_insn_write() copies
 *	them in one store, which it does only if source and destination are
 *	both aligned
 */
struct arch_optimized_insn {
	kprobe_opcode_t *insn;
	u8 orig[MAX_OPTIMIZED_LENGTH];
	u8 jump[8] __aligned(4);
	u8 size;
	u8 jlen;
	u8 head;
};
#endif /* CONFIG_OPTPROBES */

#else /* !CONFIG_KPROBES */

static inline bool kprobe_breakpoint_handler(struct pt_regs *regs)
{
	return false;
}

static inline bool kprobe_single_step_handler(struct pt_regs *regs)
{
	return false;
}

#endif /* CONFIG_KPROBES */
#endif /* !__ASSEMBLY__ */
#endif /* _ASM_RISCV_KPROBES_H */
