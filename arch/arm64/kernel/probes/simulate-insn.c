// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Simulation of the A64 instructions that cannot run out of line: those that
 * read the PC (ADR, ADRP, loads of literals), branches, and (kernel only)
 * accesses to DAIF, which the out-of-line copy would see masked.
 *
 * kprobes calls these from the BRK handler with the kernel registers of the
 * probed context; a literal is then in the kernel image or in a module and
 * is read directly.  uprobes calls them in process context with the user
 * registers; a literal is then read with get_user(), and a fault raises
 * SIGSEGV with the PC left on the instruction, as the real load would.
 *
 * Branches clear PSTATE.BTYPE like every simulated instruction: the branch
 * target does not see the BTYPE a real BR or BLR would have set, which makes
 * its BTI check weaker, never stricter.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <asm/daifflags.h>
#include <asm/insn.h>

#include "simulate-insn.h"

/* Register fields; 31 means XZR in all the instructions simulated here. */
#define A64_RT(insn)		((insn) & 0x1f)
#define A64_RN(insn)		(((insn) >> 5) & 0x1f)
#define A64_XZR			31

/* Branch offsets, in bytes. */
#define A64_IMM26_OFFSET(insn)	(sign_extend64((insn) & 0x3ffffff, 25) * 4)
#define A64_IMM19_OFFSET(insn)	(sign_extend64(((insn) >> 5) & 0x7ffff, 18) * 4)
#define A64_IMM14_OFFSET(insn)	(sign_extend64(((insn) >> 5) & 0x3fff, 13) * 4)

/* BR, BLR, RET: the opc field. */
#define A64_BR_OPC(insn)	(((insn) >> 21) & 0x3)
#define A64_BR_OPC_BLR		1

/* The bit of CBZ/CBNZ/TBZ/TBNZ that selects the "not zero" form. */
#define A64_CB_TB_NZ		BIT(24)

static nokprobe_inline u64 reg_read(struct pt_regs *regs, int n)
{
	return n == A64_XZR ? 0 : regs->regs[n];
}

static nokprobe_inline void reg_write(struct pt_regs *regs, int n, u64 val)
{
	if (n != A64_XZR)
		regs->regs[n] = val;
}

static nokprobe_inline void set_next_pc(struct pt_regs *regs, unsigned long pc)
{
	instruction_pointer_set(regs, pc);
	regs->pstate &= ~PSR_BTYPE_MASK;
}

static nokprobe_inline void branch_if(struct pt_regs *regs, unsigned long addr,
				      bool taken, long offset)
{
	set_next_pc(regs, taken ? addr + offset : addr + AARCH64_INSN_SIZE);
}

void a64_sim_adr_adrp(u32 opcode, long addr, struct pt_regs *regs)
{
	/* immhi:immlo, a signed 21-bit immediate. */
	s64 imm = sign_extend64(((opcode >> 3) & 0x1ffffc) |
				((opcode >> 29) & 0x3), 20);
	unsigned long pc = addr, val;

	if (opcode & BIT(31))		/* ADRP: 4 KiB pages */
		val = (pc & ~0xfffUL) + imm * SZ_4K;
	else
		val = pc + imm;

	reg_write(regs, A64_RT(opcode), val);
	set_next_pc(regs, pc + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_adr_adrp);

void a64_sim_b_bl(u32 opcode, long addr, struct pt_regs *regs)
{
	if (opcode & BIT(31))		/* BL */
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	set_next_pc(regs, addr + A64_IMM26_OFFSET(opcode));
}

NOKPROBE_SYMBOL(a64_sim_b_bl);

/* B.cond and BC.cond: condition codes are the same as in AArch32. */
void a64_sim_b_cond(u32 opcode, long addr, struct pt_regs *regs)
{
	bool taken = aarch32_opcode_cond_checks[opcode & 0xf](regs->pstate);

	branch_if(regs, addr, taken, A64_IMM19_OFFSET(opcode));
}

NOKPROBE_SYMBOL(a64_sim_b_cond);

void a64_sim_br_blr_ret(u32 opcode, long addr, struct pt_regs *regs)
{
	/* Read the target first: BLR X30 branches to the old X30. */
	unsigned long target = reg_read(regs, A64_RN(opcode));

	if (A64_BR_OPC(opcode) == A64_BR_OPC_BLR)
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	set_next_pc(regs, target);
}

NOKPROBE_SYMBOL(a64_sim_br_blr_ret);

void a64_sim_cbz_cbnz(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 val = reg_read(regs, A64_RT(opcode));

	if (!(opcode & BIT(31)))	/* 32-bit variant */
		val = lower_32_bits(val);
	branch_if(regs, addr, (opcode & A64_CB_TB_NZ) ? val != 0 : val == 0,
		  A64_IMM19_OFFSET(opcode));
}

NOKPROBE_SYMBOL(a64_sim_cbz_cbnz);

void a64_sim_tbz_tbnz(u32 opcode, long addr, struct pt_regs *regs)
{
	/* b5:b40 is the number of the bit tested. */
	int bit = ((opcode >> 26) & 0x20) | ((opcode >> 19) & 0x1f);
	bool set = (reg_read(regs, A64_RT(opcode)) >> bit) & 1;

	branch_if(regs, addr, (opcode & A64_CB_TB_NZ) ? set : !set,
		  A64_IMM14_OFFSET(opcode));
}

NOKPROBE_SYMBOL(a64_sim_tbz_tbnz);

/* A user literal that cannot be read: fault as the load itself would. */
static int literal_fault(unsigned long src)
{
	force_sig_fault(SIGSEGV, SEGV_MAPERR, (void __user *)src);
	return -EFAULT;
}

static nokprobe_inline int read_literal32(struct pt_regs *regs,
					  unsigned long src, u32 *val)
{
	if (user_mode(regs))
		return get_user(*val, (u32 __user *)src) ? literal_fault(src) : 0;
	*val = *(u32 *)src;
	return 0;
}

static nokprobe_inline int read_literal64(struct pt_regs *regs,
					  unsigned long src, u64 *val)
{
	if (user_mode(regs))
		return get_user(*val, (u64 __user *)src) ? literal_fault(src) : 0;
	/* Literals are 4-byte aligned only. */
	*val = get_unaligned((u64 *)src);
	return 0;
}

/* LDR (literal), 32-bit (zero-extended) and 64-bit. */
void a64_sim_ldr_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	unsigned long src = addr + A64_IMM19_OFFSET(opcode);
	u64 val;
	u32 val32;

	if (opcode & BIT(30)) {
		if (read_literal64(regs, src, &val))
			return;
	} else {
		if (read_literal32(regs, src, &val32))
			return;
		val = val32;
	}
	reg_write(regs, A64_RT(opcode), val);
	set_next_pc(regs, addr + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_ldr_literal);

void a64_sim_ldrsw_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	unsigned long src = addr + A64_IMM19_OFFSET(opcode);
	u32 val32;

	if (read_literal32(regs, src, &val32))
		return;
	reg_write(regs, A64_RT(opcode), (s64)(s32)val32);
	set_next_pc(regs, addr + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_ldrsw_literal);

/* NOP, YIELD, WFE, WFI, BTI, PRFM (literal). */
void a64_sim_nop(u32 opcode, long addr, struct pt_regs *regs)
{
	set_next_pc(regs, addr + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_nop);

/* MRS Xt, DAIF: the probed context's mask, not the BRK handler's. */
void a64_sim_mrs_daif(u32 opcode, long addr, struct pt_regs *regs)
{
	reg_write(regs, A64_RT(opcode), regs->pstate & DAIF_MASK);
	set_next_pc(regs, addr + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_mrs_daif);

/* MSR DAIF, Xt: takes effect when the exception returns. */
void a64_sim_msr_daif(u32 opcode, long addr, struct pt_regs *regs)
{
	regs->pstate = (regs->pstate & ~DAIF_MASK) |
		       (reg_read(regs, A64_RT(opcode)) & DAIF_MASK);
	set_next_pc(regs, addr + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_msr_daif);

/* MSR DAIFSet/DAIFClr, #imm: CRm holds D, A, I, F as in PSTATE[9:6]. */
void a64_sim_msr_daif_imm(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 bits = (u64)((opcode >> 8) & 0xf) << 6;

	if (opcode & BIT(5))		/* op2 == 0b111: DAIFClr */
		regs->pstate &= ~bits;
	else
		regs->pstate |= bits;
	set_next_pc(regs, addr + AARCH64_INSN_SIZE);
}

NOKPROBE_SYMBOL(a64_sim_msr_daif_imm);
