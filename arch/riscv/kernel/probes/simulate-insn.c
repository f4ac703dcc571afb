// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Simulation of PC-relative and control flow instructions for kprobes and
 * uprobes.
 *
 * pt_regs holds x1..x31 right after epc, in register order, so a register
 * number indexes it; x0 reads as zero and ignores writes.  A register is
 * read before the destination is written, so that e.g. "jalr ra, 0(ra)"
 * jumps where ra pointed before.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/kprobes.h>
#include <linux/stddef.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

#include "simulate-insn.h"

static inline unsigned long rv_get(struct pt_regs *regs, unsigned int n)
{
	BUILD_BUG_ON(offsetof(struct pt_regs, ra) != sizeof(long));
	BUILD_BUG_ON(offsetof(struct pt_regs, t6) != 31 * sizeof(long));

	return n ? ((unsigned long *)regs)[n] : 0;
}

static inline void rv_set(struct pt_regs *regs, unsigned int n,
			  unsigned long val)
{
	if (n)
		((unsigned long *)regs)[n] = val;
}

static inline unsigned int rv_rd(u32 insn)
{
	return (insn >> 7) & 0x1f;
}

static inline unsigned int rv_rs1(u32 insn)
{
	return (insn >> 15) & 0x1f;
}

static inline unsigned int rv_rs2(u32 insn)
{
	return (insn >> 20) & 0x1f;
}

/* rs1' of the CB format: x8..x15. */
static inline unsigned int rvc_rs1s(u32 insn)
{
	return 8 + ((insn >> 7) & 0x7);
}

bool simulate_auipc(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	long off = (s32)(insn & RV_U_IMM_31_12_MASK);

	rv_set(regs, rv_rd(insn), addr + off);
	instruction_pointer_set(regs, addr + 4);
	return true;
}

NOKPROBE_SYMBOL(simulate_auipc);

bool simulate_jal(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	long off = (s32)RV_EXTRACT_JTYPE_IMM(insn);

	rv_set(regs, rv_rd(insn), addr + 4);
	instruction_pointer_set(regs, addr + off);
	return true;
}

NOKPROBE_SYMBOL(simulate_jal);

bool simulate_jalr(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	long off = (s32)RV_EXTRACT_ITYPE_IMM(insn);
	unsigned long base = rv_get(regs, rv_rs1(insn));

	rv_set(regs, rv_rd(insn), addr + 4);
	instruction_pointer_set(regs, (base + off) & ~1UL);
	return true;
}

NOKPROBE_SYMBOL(simulate_jalr);

bool simulate_branch(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	unsigned long a = rv_get(regs, rv_rs1(insn));
	unsigned long b = rv_get(regs, rv_rs2(insn));
	long off = (s32)RV_EXTRACT_BTYPE_IMM(insn);
	bool taken;

	switch ((insn & RV_INSN_FUNCT3_MASK) >> RV_INSN_FUNCT3_OPOFF) {
	case RVG_FUNCT3_BEQ:
		taken = a == b;
		break;
	case RVG_FUNCT3_BNE:
		taken = a != b;
		break;
	case RVG_FUNCT3_BLT:
		taken = (long)a < (long)b;
		break;
	case RVG_FUNCT3_BGE:
		taken = (long)a >= (long)b;
		break;
	case RVG_FUNCT3_BLTU:
		taken = a < b;
		break;
	case RVG_FUNCT3_BGEU:
		taken = a >= b;
		break;
	default:
		/* Refused by the decoder; do not loop on it. */
		return false;
	}
	instruction_pointer_set(regs, taken ? addr + off : addr + 4);
	return true;
}

NOKPROBE_SYMBOL(simulate_branch);

bool simulate_c_j(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	long off = (s32)RVC_EXTRACT_JTYPE_IMM(insn & 0xffff);

	instruction_pointer_set(regs, addr + off);
	return true;
}

NOKPROBE_SYMBOL(simulate_c_j);

/* RV32 only: C.JAL is C.ADDIW on RV64 (the decoder knows). */
bool simulate_c_jal(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	long off = (s32)RVC_EXTRACT_JTYPE_IMM(insn & 0xffff);

	regs->ra = addr + 2;
	instruction_pointer_set(regs, addr + off);
	return true;
}

NOKPROBE_SYMBOL(simulate_c_jal);

bool simulate_c_jr(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	unsigned long target = rv_get(regs, RVC_EXTRACT_C2_RS1_REG(insn & 0xffff));

	instruction_pointer_set(regs, target & ~1UL);
	return true;
}

NOKPROBE_SYMBOL(simulate_c_jr);

bool simulate_c_jalr(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	unsigned long target = rv_get(regs, RVC_EXTRACT_C2_RS1_REG(insn & 0xffff));

	regs->ra = addr + 2;
	instruction_pointer_set(regs, target & ~1UL);
	return true;
}

NOKPROBE_SYMBOL(simulate_c_jalr);

static bool simulate_c_bz(u32 insn, unsigned long addr, struct pt_regs *regs,
			  bool if_zero)
{
	long off = (s32)RVC_EXTRACT_BTYPE_IMM(insn & 0xffff);
	bool zero = !rv_get(regs, rvc_rs1s(insn));

	instruction_pointer_set(regs, zero == if_zero ? addr + off : addr + 2);
	return true;
}

NOKPROBE_SYMBOL(simulate_c_bz);

bool simulate_c_beqz(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	return simulate_c_bz(insn, addr, regs, true);
}

NOKPROBE_SYMBOL(simulate_c_beqz);

bool simulate_c_bnez(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	return simulate_c_bz(insn, addr, regs, false);
}

NOKPROBE_SYMBOL(simulate_c_bnez);

/* ADDI sp, sp, imm; C.ADDI sp, imm; C.ADDI16SP imm (see decode-insn.c). */
bool simulate_sp_adjust(u32 insn, unsigned long addr, struct pt_regs *regs)
{
	long imm;

	if ((insn & 3) == 3) {
		imm = (s32)RV_EXTRACT_ITYPE_IMM(insn);
		instruction_pointer_set(regs, addr + 4);
	} else {
		if ((insn >> 13) & 7)	/* C.ADDI16SP */
			imm = sign_extend64(((insn >> 12) & 1) << 9 |
					    ((insn >> 6) & 1) << 4 |
					    ((insn >> 5) & 1) << 6 |
					    ((insn >> 3) & 3) << 7 |
					    ((insn >> 2) & 1) << 5, 9);
		else			/* C.ADDI */
			imm = sign_extend64(((insn >> 12) & 1) << 5 |
					    ((insn >> 2) & 0x1f), 5);
		instruction_pointer_set(regs, addr + 2);
	}
	regs->sp += imm;
	return true;
}

NOKPROBE_SYMBOL(simulate_sp_adjust);
