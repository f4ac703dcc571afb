// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoding of riscv instructions for kprobes and uprobes.
 *
 * rv_insn_decode() tells, for one instruction of RV32/RV64 IMAFDCV and the
 * common extensions (Zicsr, Zifencei, Zba/Zbb/Zbc/Zbs, Zicbo*, Zcb, Zacas,
 * Svinval, H), its length, whether it can run out of line, and which
 * general purpose registers it reads and writes (for the liveness analysis
 * of insn-analysis.c).  The register sets are conservative: an instruction
 * whose integer operands depend on fields this decoder does not look at
 * (floating point, vector) is said to read rs1 and rs2 and to write none.
 *
 * An instruction runs unchanged out of line unless:
 *   - it depends on where it is or changes the control flow: AUIPC, JAL,
 *     JALR, branches, C.J, C.JAL (RV32), C.JR, C.JALR, C.BEQZ, C.BNEZ are
 *     simulated;
 *   - it is LR or SC: the trap after a stepped LR loses the reservation,
 *     and the LR/SC loop would never succeed;
 *   - it traps, returns from a trap or waits: EBREAK, ECALL (for uprobes
 *     too: a system call run from the XOL slot may sleep with the signals
 *     that uprobes hold back while stepping, or never come back to the
 *     slot: sigreturn, exec, the child of a fork), xRET, WFI, WRS,
 *     hypervisor loads and stores;
 *   - it accesses a supervisor, hypervisor or machine CSR: those hold the
 *     trap state (sstatus, sepc, scause, stval, sscratch, stvec...), which
 *     the breakpoint itself changes, or the translation (satp);
 *   - it is not a valid instruction.
 */
#include <linux/kprobes.h>
#include <linux/string.h>
#include <asm/insn.h>

#include "decode-insn.h"
#include "simulate-insn.h"

#define RVG_OPCODE_LOAD		0x03
#define RVG_OPCODE_LOAD_FP	0x07
#define RVG_OPCODE_MISC_MEM	0x0f
#define RVG_OPCODE_OP_IMM	0x13
#define RVG_OPCODE_OP_IMM_32	0x1b
#define RVG_OPCODE_STORE	0x23
#define RVG_OPCODE_STORE_FP	0x27
#define RVG_OPCODE_AMO		0x2f
#define RVG_OPCODE_OP		0x33
#define RVG_OPCODE_LUI		0x37
#define RVG_OPCODE_OP_32	0x3b
#define RVG_OPCODE_MADD		0x43
#define RVG_OPCODE_MSUB		0x47
#define RVG_OPCODE_NMSUB	0x4b
#define RVG_OPCODE_NMADD	0x4f
#define RVG_OPCODE_OP_FP	0x53

#define RV_AMO_LR		0x02
#define RV_AMO_SC		0x03

/* SYSTEM instructions with funct3 == 0 that run anywhere. */
#define RV_FUNCT7_SFENCE_VMA	0x09
#define RV_FUNCT7_SINVAL_VMA	0x0b
#define RV_FUNCT7_SFENCE_INVAL	0x0c
#define RV_FUNCT7_HFENCE_VVMA	0x11
#define RV_FUNCT7_HINVAL_VVMA	0x13
#define RV_FUNCT7_HFENCE_GVMA	0x31
#define RV_FUNCT7_HINVAL_GVMA	0x33
#define RV_ENC_ECALL		0x00000073

#define RV_REG_RA		1
#define RV_REG_SP		2

static inline unsigned int rv_field(u32 insn, unsigned int shift)
{
	return (insn >> shift) & 0x1f;
}

/* CSRs of privilege level 1 (supervisor) and above: bits 9:8 of the number. */
static inline bool rv_csr_is_privileged(unsigned int csr)
{
	return (csr >> 8) & 0x3;
}

static void rv_decode_32(u32 insn, struct rv_insn *d)
{
	unsigned int rd = rv_field(insn, 7), rs1 = rv_field(insn, 15);
	unsigned int rs2 = rv_field(insn, 20);
	unsigned int funct3 = (insn >> 12) & 0x7, funct7 = insn >> 25;
	u32 r1 = RV_REG(rs1), r2 = RV_REG(rs2), w = RV_REG(rd);

	switch (insn & RV_INSN_OPCODE_MASK) {
	case RVG_OPCODE_LOAD:
		if (funct3 == 7)
			return;
		d->use = r1;
		d->def = w;
		break;
	case RVG_OPCODE_OP_IMM:
		/* ADDI sp, sp, imm: a stack adjustment. */
		if (!funct3 && rd == RV_REG_SP && rs1 == RV_REG_SP)
			d->simulate = simulate_sp_adjust;
		fallthrough;
	case RVG_OPCODE_OP_IMM_32:
		d->use = r1;
		d->def = w;
		break;
	case RVG_OPCODE_LOAD_FP:
	case RVG_OPCODE_STORE_FP:
	case RVG_OPCODE_STORE:
	case RVG_OPCODE_MADD:
	case RVG_OPCODE_MSUB:
	case RVG_OPCODE_NMSUB:
	case RVG_OPCODE_NMADD:
	case RVG_OPCODE_OP_FP:
	case RVV_OPCODE_VECTOR:
		d->use = r1 | r2;
		break;
	case RVG_OPCODE_MISC_MEM:
		/* FENCE, FENCE.I, CBO.*: nothing depends on the address. */
		if (funct3 > 2)
			return;
		d->use = r1;
		break;
	case RVG_OPCODE_AMO:
		if ((insn >> 27) == RV_AMO_LR)
			d->kind = RV_INSN_LR;
		else if ((insn >> 27) == RV_AMO_SC)
			d->kind = RV_INSN_SC;
		/* AMOCAS also reads rd, the expected value. */
		d->use = r1 | r2 | w;
		d->def = w;
		if (d->kind != RV_INSN_INVALID)
			return;
		break;
	case RVG_OPCODE_OP:
	case RVG_OPCODE_OP_32:
		d->use = r1 | r2;
		d->def = w;
		break;
	case RVG_OPCODE_LUI:
		d->def = w;
		break;
	case RVG_OPCODE_AUIPC:
		d->kind = RV_INSN_AUIPC;
		d->rd = rd;
		d->imm = (s32)(insn & RV_U_IMM_31_12_MASK);
		d->def = w;
		d->simulate = simulate_auipc;
		return;
	case RVG_OPCODE_BRANCH:
		if (funct3 == 2 || funct3 == 3)
			return;
		d->kind = RV_INSN_BRANCH;
		d->imm = (s32)RV_EXTRACT_BTYPE_IMM(insn);
		d->use = r1 | r2;
		d->simulate = simulate_branch;
		return;
	case RVG_OPCODE_JAL:
		d->kind = RV_INSN_JAL;
		d->rd = rd;
		d->imm = (s32)RV_EXTRACT_JTYPE_IMM(insn);
		d->def = w;
		d->simulate = simulate_jal;
		return;
	case RVG_OPCODE_JALR:
		if (funct3)
			return;
		d->kind = RV_INSN_JALR;
		d->rd = rd;
		d->rs1 = rs1;
		d->imm = (s32)RV_EXTRACT_ITYPE_IMM(insn);
		d->use = r1;
		d->def = w;
		d->simulate = simulate_jalr;
		return;
	case RVG_OPCODE_SYSTEM:
		if (funct3 == 4) {
			/* HLV, HLVX, HSV: guest memory with guest faults. */
			d->kind = RV_INSN_PRIV;
			return;
		}
		if (funct3) {
			/* CSRRW/S/C read rs1, the I forms an immediate. */
			d->use = funct3 < 4 ? r1 : 0;
			d->def = w;
			if (rv_csr_is_privileged(insn >> 20)) {
				d->kind = RV_INSN_TRAP_CSR;
				return;
			}
			break;
		}
		if (insn == RVG_MATCH_EBREAK) {
			d->kind = RV_INSN_EBREAK;
			return;
		}
		if (insn == RV_ENC_ECALL) {
			d->kind = RV_INSN_ECALL;
			d->use = RV_REGS_ALL;
			d->def = 0;
			return;
		}
		if (!rd && (funct7 == RV_FUNCT7_SFENCE_VMA ||
			    funct7 == RV_FUNCT7_SINVAL_VMA ||
			    funct7 == RV_FUNCT7_HFENCE_VVMA ||
			    funct7 == RV_FUNCT7_HINVAL_VVMA ||
			    funct7 == RV_FUNCT7_HFENCE_GVMA ||
			    funct7 == RV_FUNCT7_HINVAL_GVMA ||
			    (funct7 == RV_FUNCT7_SFENCE_INVAL && !rs1 && rs2 <= 1))) {
			d->use = r1 | r2;
			break;
		}
		/* SRET, MRET, WFI, WRS.NTO/STO, DRET and the unknown. */
		d->kind = RV_INSN_PRIV;
		return;
	default:
		/* Custom and reserved major opcodes. */
		return;
	}
	d->kind = RV_INSN_PLAIN;
}

static void rv_decode_16(u32 insn, struct rv_insn *d)
{
	unsigned int funct3 = (insn >> 13) & 0x7;
	unsigned int rd = rv_field(insn, 7), rs2 = rv_field(insn, 2);
	u32 rs1s = RV_REG(8 + ((insn >> 7) & 0x7));
	u32 rs2s = RV_REG(8 + ((insn >> 2) & 0x7));
	u32 sp = RV_REG(RV_REG_SP);

	switch (insn & RVC_INSN_OPCODE_MASK) {
	case RVC_OPCODE_C0:
		switch (funct3) {
		case 0:		/* C.ADDI4SPN; all zeros is the defined illegal */
			if (!(insn & GENMASK(12, 5)))
				return;
			d->use = sp;
			d->def = rs2s;
			break;
		case 2:		/* C.LW */
			d->use = rs1s;
			d->def = rs2s;
			break;
		case 3:		/* C.LD, or C.FLW on RV32 */
			d->use = rs1s;
			d->def = IS_ENABLED(CONFIG_64BIT) ? rs2s : 0;
			break;
		default:	/* C.FLD, Zcb loads and stores, C.FSD, C.SW, C.SD */
			d->use = rs1s | rs2s;
			break;
		}
		break;
	case RVC_OPCODE_C1:
		switch (funct3) {
		case 0:		/* C.ADDI, C.NOP */
			if (rd == RV_REG_SP)
				d->simulate = simulate_sp_adjust;
			d->use = RV_REG(rd);
			d->def = RV_REG(rd);
			break;
		case 1:
			if (!IS_ENABLED(CONFIG_64BIT)) {
				d->kind = RV_INSN_JAL;
				d->rd = RV_REG_RA;
				d->imm = (s32)RVC_EXTRACT_JTYPE_IMM(insn);
				d->def = RV_REG(RV_REG_RA);
				d->simulate = simulate_c_jal;
				return;
			}
			/* C.ADDIW */
			if (!rd)
				return;
			d->use = RV_REG(rd);
			d->def = RV_REG(rd);
			break;
		case 2:		/* C.LI */
			d->def = RV_REG(rd);
			break;
		case 3:		/* C.ADDI16SP, C.LUI */
			if (!(insn & (BIT(12) | GENMASK(6, 2))))
				return;
			if (rd == RV_REG_SP) {
				d->use = sp;
				d->simulate = simulate_sp_adjust;
			}
			d->def = RV_REG(rd);
			break;
		case 4:		/* shifts, logic, C.SUBW/ADDW, Zcb */
			d->use = rs1s | rs2s;
			d->def = rs1s;
			break;
		case 5:
			d->kind = RV_INSN_JAL;
			d->imm = (s32)RVC_EXTRACT_JTYPE_IMM(insn);
			d->simulate = simulate_c_j;
			return;
		case 6:
		case 7:
			d->kind = RV_INSN_BRANCH;
			d->imm = (s32)RVC_EXTRACT_BTYPE_IMM(insn);
			d->use = rs1s;
			d->simulate = funct3 == 6 ? simulate_c_beqz : simulate_c_bnez;
			return;
		}
		break;
	case RVC_OPCODE_C2:
		switch (funct3) {
		case 0:		/* C.SLLI */
			d->use = RV_REG(rd);
			d->def = RV_REG(rd);
			break;
		case 2:		/* C.LWSP */
		case 3:		/* C.LDSP, or C.FLWSP on RV32 */
			if (funct3 == 2 || IS_ENABLED(CONFIG_64BIT)) {
				if (!rd)
					return;
				d->def = RV_REG(rd);
			}
			d->use = sp;
			break;
		case 4:
			if (!(insn & BIT(12))) {
				if (rs2) {	/* C.MV */
					d->use = RV_REG(rs2);
					d->def = RV_REG(rd);
					break;
				}
				if (!rd)
					return;
				d->kind = RV_INSN_JALR;	/* C.JR */
				d->rs1 = rd;
				d->use = RV_REG(rd);
				d->simulate = simulate_c_jr;
				return;
			}
			if (!rs2 && !rd) {
				d->kind = RV_INSN_EBREAK;
				return;
			}
			if (!rs2) {
				d->kind = RV_INSN_JALR;	/* C.JALR */
				d->rd = RV_REG_RA;
				d->rs1 = rd;
				d->use = RV_REG(rd);
				d->def = RV_REG(RV_REG_RA);
				d->simulate = simulate_c_jalr;
				return;
			}
			/* C.ADD */
			d->use = RV_REG(rd) | RV_REG(rs2);
			d->def = RV_REG(rd);
			break;
		default:	/* C.FLDSP, C.FSDSP, C.SWSP, C.SDSP, C.FSWSP */
			d->use = sp | RV_REG(rs2);
			break;
		}
		break;
	}
	d->kind = RV_INSN_PLAIN;
}

/**
 * rv_insn_decode() - decode one instruction
 * @raw: the instruction; for a compressed one, only the low parcel counts
 * @d: the result
 *
 * A 16-bit instruction is decoded as compressed whether or not the kernel
 * was built for the C extension: a kernel without it has none.
 */
void rv_insn_decode(u32 raw, struct rv_insn *d)
{
	unsigned int len = rv_insn_len(raw & 0xffff);

	memset(d, 0, sizeof(*d));
	d->kind = RV_INSN_INVALID;
	d->len = len;
	if (len == 2) {
		d->insn = raw & 0xffff;
		rv_decode_16(d->insn, d);
	} else if (len == 4) {
		d->insn = raw;
		rv_decode_32(raw, d);
	}
	/* What it may read is unknown: everything. */
	if (d->kind == RV_INSN_INVALID)
		d->use = RV_REGS_ALL;
	/* x0 is never read nor written. */
	d->use &= RV_REGS_ALL;
	d->def &= RV_REGS_ALL;
}

/**
 * riscv_probe_decode_insn() - decode an instruction for a uprobe
 * @addr: the instruction (a copy of user memory)
 * @api: receives the simulation handler, if any
 *
 * Return: INSN_GOOD when the instruction runs out of line, INSN_GOOD_NO_SLOT
 * when @api->handler simulates it, INSN_REJECTED when it cannot be probed.
 */
enum probe_insn riscv_probe_decode_insn(probe_opcode_t *addr,
					struct arch_probe_insn *api)
{
	struct rv_insn d;

	rv_insn_decode(*addr, &d);
	api->handler = NULL;
	switch (d.kind) {
	case RV_INSN_PLAIN:
		return INSN_GOOD;
	case RV_INSN_AUIPC:
	case RV_INSN_BRANCH:
	case RV_INSN_JAL:
	case RV_INSN_JALR:
		api->handler = d.simulate;
		return INSN_GOOD_NO_SLOT;
	default:
		return INSN_REJECTED;
	}
}
