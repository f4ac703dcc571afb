// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which A64 instructions may be probed, and how each one is executed.
 *
 * A probed instruction either runs unchanged out of line (a copy in a slot,
 * or the single-step area of uprobes), is simulated on the saved registers,
 * or is refused.  A copy behaves like the original only if the instruction
 * does not depend on where it is:
 *
 *   - PC-relative instructions (ADR, ADRP, loads of literals) and branches
 *     are simulated;
 *   - exception generating instructions, exception returns and branches
 *     that authenticate their target are refused;
 *   - load/store exclusive instructions are refused: the exception taken
 *     for the probe clears the exclusive monitor, the store-exclusive of
 *     the sequence would then fail forever;
 *   - MOPS memory copy/set instructions come in prologue/main/epilogue
 *     triples that must be executed in order: refused;
 *   - anything this decoder does not know (SVE, SME, unallocated) is
 *     refused.
 *
 * kprobes adds its own rules for kernel code (arm_kprobe_decode_insn()):
 * system registers written by the BRK exception or used by the probe
 * machinery, instructions inside an exclusive sequence, and DAIF accesses,
 * which are simulated because the out-of-line copy runs with interrupts
 * masked.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/types.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/sysreg.h>

#include "decode-insn.h"
#include "simulate-insn.h"

/* Top-level encoding group: bits [28:25]. */
#define A64_OP0(insn)		(((insn) >> 25) & 0xf)

/* Literal loads: LDR (32/64-bit, SIMD&FP), LDRSW, PRFM. */
#define A64_LDST_LIT_MASK	0x3b000000
#define A64_LDST_LIT_VAL	0x18000000

/* System instructions SYS (DC, IC, AT, TLBI...) and SYSL. */
#define A64_SYS_MASK		0xfff80000
#define A64_SYS_VAL		0xd5080000
#define A64_SYSL_VAL		0xd5280000

/* The op1:op2 field of MSR (immediate), compared to pstate_field(). */
#define A64_MSR_IMM_FIELD	(GENMASK(18, 16) | GENMASK(7, 5))
#define A64_MSR_IMM_CRM(insn)	(((insn) >> 8) & 0xf)

static enum probe_insn simulate_by(struct arch_probe_insn *api,
				   probes_handler_t *handler)
{
	api->handler = handler;
	return INSN_GOOD_NO_SLOT;
}

static enum probe_insn decode_hint(u32 insn, struct arch_probe_insn *api)
{
	/*
	 * NOP, and the hints that may complete at once (YIELD, WFE, WFI):
	 * a trap already happened, nothing more to run.  BTI too: the landing
	 * was checked when the BRK was reached, the simulation clears BTYPE.
	 */
	switch (insn & 0xfe0) {
	case AARCH64_INSN_HINT_NOP:
	case AARCH64_INSN_HINT_YIELD:
	case AARCH64_INSN_HINT_WFE:
	case AARCH64_INSN_HINT_WFI:
		return simulate_by(api, a64_sim_nop);
	}
	if (aarch64_insn_is_bti(insn))
		return simulate_by(api, a64_sim_nop);

	/*
	 * Pointer authentication hints (PACIASP, AUTIASP...) use LR and SP,
	 * not the PC: they run out of line.  So do SEV, CSDB, ESB and the
	 * hints this CPU does not implement, which are NOPs.
	 */
	return INSN_GOOD;
}

/* MSR (immediate): the PSTATE fields whose change the exception keeps. */
static enum probe_insn decode_msr_imm(u32 insn)
{
	switch (insn & A64_MSR_IMM_FIELD) {
	case PSTATE_PAN:
	case PSTATE_UAO:
	case PSTATE_SSBS:
	case PSTATE_DIT:
	case PSTATE_TCO:
		return INSN_GOOD;
	case pstate_field(0, 0):	/* CFINV */
	case pstate_field(0, 1):	/* XAFLAG */
	case pstate_field(0, 2):	/* AXFLAG */
		return A64_MSR_IMM_CRM(insn) ? INSN_REJECTED : INSN_GOOD;
	default:
		/* SPSel, DAIFSet/DAIFClr, SVCR, ALLINT, and unknown fields. */
		return INSN_REJECTED;
	}
}

static enum probe_insn decode_branch_sys(u32 insn, struct arch_probe_insn *api)
{
	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		return simulate_by(api, a64_sim_b_bl);
	if (aarch64_insn_is_bcond(insn))
		return simulate_by(api, a64_sim_b_cond);
	if (aarch64_insn_is_cbz(insn) || aarch64_insn_is_cbnz(insn))
		return simulate_by(api, a64_sim_cbz_cbnz);
	if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		return simulate_by(api, a64_sim_tbz_tbnz);
	if (aarch64_insn_is_br(insn) || aarch64_insn_is_blr(insn) ||
	    aarch64_insn_is_ret(insn))
		return simulate_by(api, a64_sim_br_blr_ret);

	if (aarch64_insn_is_hint(insn))
		return decode_hint(insn, api);
	if (aarch64_insn_is_barrier(insn))
		return INSN_GOOD;
	if (aarch64_insn_is_msr_imm(insn))
		return decode_msr_imm(insn);
	if ((insn & A64_SYS_MASK) == A64_SYS_VAL ||
	    (insn & A64_SYS_MASK) == A64_SYSL_VAL)
		return INSN_GOOD;
	if (aarch64_insn_is_mrs(insn) || aarch64_insn_is_msr_reg(insn))
		return INSN_GOOD;

	/*
	 * SVC, HVC, SMC, BRK, HLT, DCPS, ERET*, DRPS, the authenticating
	 * branches (BRAA, BLRAA, RETAA...), TSTART/TTEST, SYSP and
	 * unallocated encodings.
	 */
	return INSN_REJECTED;
}

static enum probe_insn decode_ldst(u32 insn, struct arch_probe_insn *api)
{
	if (aarch64_insn_is_ldr_lit(insn))
		return simulate_by(api, a64_sim_ldr_literal);
	if (aarch64_insn_is_ldrsw_lit(insn))
		return simulate_by(api, a64_sim_ldrsw_literal);
	if (aarch64_insn_is_prfm_lit(insn))
		return simulate_by(api, a64_sim_nop);
	/* Literal loads into SIMD&FP registers. */
	if ((insn & A64_LDST_LIT_MASK) == A64_LDST_LIT_VAL)
		return INSN_REJECTED;

	if (aarch64_insn_is_exclusive(insn) || aarch64_insn_is_mops(insn))
		return INSN_REJECTED;

	return INSN_GOOD;
}

/**
 * arm_probe_decode_insn() - how to execute a probed instruction
 * @insn: the instruction
 * @api: where to store the simulation handler, if any
 *
 * Context: any; used by kprobes and by uprobes (user instructions).
 *
 * Return: INSN_GOOD if @insn may run out of line, INSN_GOOD_NO_SLOT if
 * @api->handler simulates it, INSN_REJECTED if it must not be probed.
 */
enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	switch (A64_OP0(insn)) {
	case 0x8:
	case 0x9:
		/* Data processing (immediate). */
		if (aarch64_insn_is_adr_adrp(insn))
			return simulate_by(api, a64_sim_adr_adrp);
		return INSN_GOOD;
	case 0xa:
	case 0xb:
		return decode_branch_sys(insn, api);
	case 0x4:
	case 0x6:
	case 0xc:
	case 0xe:
		return decode_ldst(insn, api);
	case 0x5:
	case 0xd:
		/* Data processing (register). */
		return INSN_GOOD;
	case 0x7:
	case 0xf:
		/* Data processing (SIMD and floating point). */
		return INSN_GOOD;
	default:
		/* Reserved, SME, SVE and unallocated. */
		return INSN_REJECTED;
	}
}

#ifdef CONFIG_KPROBES

/* System registers without a SYS_* name in <asm/sysreg.h>. */
#define KP_SYS_SP_EL0		sys_reg(3, 0, 4, 1, 0)
#define KP_SYS_SPSEL		sys_reg(3, 0, 4, 2, 0)
#define KP_SYS_ALLINT		sys_reg(3, 0, 4, 3, 0)
#define KP_SYS_DAIF		sys_reg(3, 3, 4, 2, 1)
#define KP_SYS_SVCR		sys_reg(3, 3, 4, 2, 2)

/* The system register of MRS/MSR (register), in sys_reg() form. */
#define A64_SYSREG(insn)	((insn) & GENMASK(20, 5))

/* Written by the BRK exception taken for the probe, at EL1 or (VHE) EL2. */
static bool sysreg_clobbered_by_brk(u32 reg)
{
	switch (reg) {
	case SYS_ELR_EL1:
	case SYS_SPSR_EL1:
	case SYS_ESR_EL1:
	case SYS_FAR_EL1:
	case SYS_ELR_EL2:
	case SYS_SPSR_EL2:
	case SYS_ESR_EL2:
	case SYS_FAR_EL2:
		return true;
	default:
		return false;
	}
}

/*
 * Registers the probe machinery relies on between the two traps of an
 * out-of-line execution: stack pointers, per-CPU offset, exception vectors,
 * translation, debug control.  Changing them in a copy is refused.
 */
static bool sysreg_unsafe_to_write(u32 reg)
{
	switch (reg) {
	case KP_SYS_SP_EL0:
	case KP_SYS_SPSEL:
	case KP_SYS_ALLINT:
	case KP_SYS_SVCR:
	case SYS_SP_EL1:
	case SYS_TPIDR_EL1:
	case SYS_TPIDR_EL2:
	case SYS_VBAR_EL1:
	case SYS_VBAR_EL2:
	case SYS_SCTLR_EL1:
	case SYS_SCTLR_EL2:
	case SYS_TTBR0_EL1:
	case SYS_TTBR1_EL1:
	case SYS_TCR_EL1:
	case SYS_MDSCR_EL1:
	case SYS_OSLAR_EL1:
	case SYS_OSDLR_EL1:
		return true;
	default:
		return sysreg_clobbered_by_brk(reg);
	}
}

/*
 * Kernel-only rules for system register accesses.  Returns INSN_GOOD when
 * the generic decoder is to decide.
 */
static enum probe_insn decode_kernel_system(u32 insn,
					    struct arch_probe_insn *api)
{
	if (aarch64_insn_is_mrs(insn)) {
		if (A64_SYSREG(insn) == KP_SYS_DAIF)
			return simulate_by(api, a64_sim_mrs_daif);
		if (sysreg_clobbered_by_brk(A64_SYSREG(insn)))
			return INSN_REJECTED;
	} else if (aarch64_insn_is_msr_reg(insn)) {
		if (A64_SYSREG(insn) == KP_SYS_DAIF)
			return simulate_by(api, a64_sim_msr_daif);
		if (sysreg_unsafe_to_write(A64_SYSREG(insn)))
			return INSN_REJECTED;
	} else if (aarch64_insn_is_msr_imm(insn)) {
		switch (insn & A64_MSR_IMM_FIELD) {
		case pstate_field(3, 6):	/* DAIFSet */
		case pstate_field(3, 7):	/* DAIFClr */
			return simulate_by(api, a64_sim_msr_daif_imm);
		}
	}
	return INSN_GOOD;
}

/* Load/store exclusive register (pair), not CASP. */
static bool is_exclusive(u32 insn)
{
	return aarch64_insn_is_exclusive(insn) &&
	       ((insn & BIT(31)) || !(insn & BIT(21)));
}

static bool is_load_exclusive(u32 insn)
{
	return is_exclusive(insn) && (insn & BIT(22));
}

static bool is_store_exclusive(u32 insn)
{
	return is_exclusive(insn) && !(insn & BIT(22));
}

/* How far back a load-exclusive is looked for. */
#define EXCLUSIVE_SCAN_INSNS	16

/*
 * Whether @addr lies between a load-exclusive and its store-exclusive: a
 * probe there would make the store fail at each hit, retrying forever.
 * Looks back in the same function for a load-exclusive not followed by a
 * store-exclusive.
 */
static bool in_exclusive_sequence(kprobe_opcode_t *addr)
{
	unsigned long size, offset, n, i;
	u32 insn;

	if (!kallsyms_lookup_size_offset((unsigned long)addr, &size, &offset))
		offset = EXCLUSIVE_SCAN_INSNS * AARCH64_INSN_SIZE;
	n = min_t(unsigned long, EXCLUSIVE_SCAN_INSNS,
		  offset / AARCH64_INSN_SIZE);

	for (i = 1; i <= n; i++) {
		if (aarch64_insn_read(addr - i, &insn))
			break;
		if (is_store_exclusive(insn))
			break;
		if (is_load_exclusive(insn))
			return true;
	}
	return false;
}

static bool is_landing_pad(u32 insn)
{
	if (aarch64_insn_is_bti(insn))
		return true;
	switch (insn & 0xfe0) {
	case AARCH64_INSN_HINT_PACIASP:
	case AARCH64_INSN_HINT_PACIBSP:
		return aarch64_insn_is_hint(insn);
	default:
		return false;
	}
}

/**
 * arm_kprobe_decode_insn() - how to execute a kernel instruction under a kprobe
 * @addr: where the instruction is
 * @insn: the instruction
 * @asi: the site's arch state: the simulation handler, if any, and whether
 *	the instruction is a landing pad are stored there
 *
 * Context: kprobe_mutex held.
 *
 * Return: as arm_probe_decode_insn(), with the kernel's own refusals.
 */
enum probe_insn arm_kprobe_decode_insn(kprobe_opcode_t *addr, u32 insn,
				       struct arch_specific_insn *asi)
{
	enum probe_insn ret;

	ret = decode_kernel_system(insn, &asi->api);
	if (ret == INSN_GOOD)
		ret = arm_probe_decode_insn(insn, &asi->api);
	if (ret == INSN_REJECTED || in_exclusive_sequence(addr))
		return INSN_REJECTED;

	asi->landing_pad = is_landing_pad(insn);
	return ret;
}
#endif /* CONFIG_KPROBES */
