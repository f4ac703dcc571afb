/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whole-function analysis for riscv kprobes: instruction boundaries,
 * LR/SC sequences, jump targets and register liveness.
 */
#ifndef _RISCV_KERNEL_PROBES_INSN_ANALYSIS_H
#define _RISCV_KERNEL_PROBES_INSN_ANALYSIS_H

#include <linux/bitops.h>
#include <linux/types.h>

/* How control leaves an instruction: rv_fn_insn::flow. */
enum rv_flow {
	RV_FLOW_NEXT,		/* to the next instruction only */
	RV_FLOW_BRANCH,		/* to the next one or to @target */
	RV_FLOW_JUMP,		/* to @target only */
	RV_FLOW_CALL,		/* a call: to the next one when it returns */
	RV_FLOW_RETURN,		/* out of the function: ret */
	RV_FLOW_EXIT,		/* anywhere: indirect or outside jump, trap... */
};

/* rv_fn_insn::target when the target is not an instruction of the function. */
#define RV_FN_OUTSIDE		(-1)

/**
 * struct rv_fn_insn - an instruction of an analyzed function
 * @off: its offset in the function
 * @len: its length
 * @kind: enum rv_insn_kind
 * @flow: enum rv_flow
 * @lrsc: it lies between an LR and its SC
 * @extable: it has an exception table entry (its fixup is @target)
 * @indirect: a JALR that is neither a call nor a return
 * @target: index of the instruction a branch, jump or fixup goes to, or
 *	RV_FN_OUTSIDE
 * @target_addr: the address it goes to (0 if not known)
 * @use: registers it reads (a call: the argument registers)
 * @def: registers it always writes
 */
struct rv_fn_insn {
	u32 off;
	u8 len;
	u8 kind;
	u8 flow;
	u8 lrsc:1;
	u8 extable:1;
	u8 indirect:1;
	int target;
	unsigned long target_addr;
	u32 use;
	u32 def;
};

/**
 * struct rv_fn - a decoded function
 * @start: its address
 * @size: its size (from kallsyms)
 * @n: instructions decoded, from the start on
 * @complete: every instruction up to @size was decoded, and is known
 * @writes: registers written by some instruction of the function
 * @insn: the instructions
 * @live: registers live before each instruction, after rv_fn_liveness()
 */
struct rv_fn {
	unsigned long start;
	unsigned long size;
	unsigned int n;
	bool complete;
	u32 writes;
	struct rv_fn_insn *insn;
	u32 *live;
};

struct rv_fn *rv_fn_get(unsigned long addr);
void rv_fn_put(struct rv_fn *fn);
int rv_fn_find(const struct rv_fn *fn, unsigned long addr);
int rv_fn_liveness(struct rv_fn *fn);
u32 rv_fn_scratch_regs(const struct rv_fn *fn, int idx);
bool rv_fn_targets_into(const struct rv_fn *fn, unsigned long lo,
			unsigned long hi);

/* The registers a jump may clobber when the analysis proved them dead. */
#define RV_SCRATCH_REGS	(GENMASK(7, 5) | GENMASK(17, 10) | GENMASK(31, 28))
/* a0-a7, among them. */
#define RV_ARG_REGS	GENMASK(17, 10)

/*
 * The register of @scratch an AUIPC+JALR jump goes through, 0 if none.
 * Handlers see the jump's address in it, not its dead value: temporaries
 * first, then the argument registers from a7 down, since tracers read the
 * first arguments, one of which the function may ignore.
 */
static inline unsigned int rv_pick_scratch(u32 scratch)
{
	u32 temps = scratch & ~RV_ARG_REGS;

	if (temps)
		return __ffs(temps);
	return scratch ? __fls(scratch) : 0;
}

#endif /* _RISCV_KERNEL_PROBES_INSN_ANALYSIS_H */
