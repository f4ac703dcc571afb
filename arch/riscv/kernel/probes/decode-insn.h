/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding of RV32/RV64 instructions (with the C extension) for kprobes and
 * uprobes.
 */
#ifndef _RISCV_KERNEL_PROBES_DECODE_INSN_H
#define _RISCV_KERNEL_PROBES_DECODE_INSN_H

#include <linux/bits.h>
#include <linux/types.h>

struct pt_regs;

#include <asm/probes.h>

/* What riscv_probe_decode_insn() says about an instruction. */
enum probe_insn {
	INSN_REJECTED,		/* must not be probed */
	INSN_GOOD_NO_SLOT,	/* simulated by api->handler */
	INSN_GOOD,		/* runs unchanged out of line */
};

/* What an instruction is, as far as probing it is concerned. */
enum rv_insn_kind {
	RV_INSN_PLAIN,		/* runs the same at any address */
	RV_INSN_AUIPC,		/* PC-relative: simulated */
	RV_INSN_BRANCH,		/* conditional branch: simulated */
	RV_INSN_JAL,		/* JAL, C.J, C.JAL: simulated */
	RV_INSN_JALR,		/* JALR, C.JR, C.JALR: simulated */
	RV_INSN_LR,		/* load-reserved */
	RV_INSN_SC,		/* store-conditional */
	RV_INSN_EBREAK,		/* EBREAK, C.EBREAK */
	RV_INSN_ECALL,
	RV_INSN_PRIV,		/* xRET, WFI, WRS, hypervisor loads/stores... */
	RV_INSN_TRAP_CSR,	/* accesses a supervisor or higher CSR */
	RV_INSN_INVALID,	/* reserved, unknown, or longer than 32 bits */
};

/* Register masks: bit n is xn. */
#define RV_REG(n)		BIT(n)
#define RV_REGS_ALL		GENMASK(31, 1)

/**
 * struct rv_insn - a decoded instruction
 * @insn: the instruction; the upper parcel is zero when it is compressed
 * @len: 2 or 4 bytes, 0 for encodings longer than 32 bits
 * @kind: enum rv_insn_kind
 * @rd: destination of AUIPC, JAL, JALR (0 if none)
 * @rs1: base of JALR
 * @imm: offset of a branch, JAL or JALR; upper immediate of AUIPC
 * @use: general purpose registers the instruction may read (all of them
 *	when it is RV_INSN_INVALID)
 * @def: general purpose registers it always writes
 * @simulate: the simulation handler of PC-relative and control flow
 *	instructions, and of the stack adjustments of RV_INSN_PLAIN (which
 *	kprobes simulate and uprobes run out of line), else NULL
 */
struct rv_insn {
	u32 insn;
	u8 len;
	u8 kind;
	u8 rd;
	u8 rs1;
	s32 imm;
	u32 use;
	u32 def;
	probes_handler_t *simulate;
};

/**
 * rv_insn_len() - length in bytes of the instruction starting with @parcel
 * @parcel: its first 16 bits
 *
 * Return: 2, 4, or 0 for encodings longer than 32 bits.
 */
static inline unsigned int rv_insn_len(u16 parcel)
{
	if ((parcel & 0x3) != 0x3)
		return 2;
	if ((parcel & 0x1c) != 0x1c)
		return 4;
	return 0;
}

void rv_insn_decode(u32 raw, struct rv_insn *d);

enum probe_insn riscv_probe_decode_insn(probe_opcode_t *addr,
					struct arch_probe_insn *api);

#endif /* _RISCV_KERNEL_PROBES_DECODE_INSN_H */
