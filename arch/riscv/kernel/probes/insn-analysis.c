// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole-function analysis for riscv kprobes.
 *
 * A function (as kallsyms bounds it) is decoded from its first instruction,
 * reading the original instructions under kprobes' own breakpoints and
 * jumps (riscv_kprobe_read_insn()).  That tells:
 *
 *   - the instruction boundaries: only an address reached this way may be
 *     probed;
 *   - the instructions between an LR and its SC, which must not trap;
 *   - every jump target in the function: direct branches and jumps, the
 *     fixups of exception table entries and the targets of static branches
 *     (whichever way they are patched); indirect jumps are only known to
 *     exist;
 *   - which registers are live before each instruction (rv_fn_liveness()),
 *     so that a jump back from an out-of-line copy or into a detour can go
 *     through AUIPC+JALR on a register that holds nothing of value.
 *
 * Liveness is a backward data flow over the decoded instructions, and must
 * only ever err on the side of "live":
 *
 *   - control leaving the function by anything but a return (an indirect
 *     jump, a jump or branch outside, which may be to a ".cold" part, an
 *     undecoded instruction, a trap return) makes every register live;
 *   - a call reads the argument registers, sp, gp, tp and s0 (the frame
 *     chain) and writes its link register only: with -fipa-ra, GCC keeps
 *     values in caller-saved registers across calls to functions it knows
 *     do not clobber them, so a call kills nothing else;
 *   - a return reads ra, and leaves live a0, a1 and every callee-saved
 *     register, and also each caller-saved register that the function
 *     itself never writes, again because of -fipa-ra in its callers.
 *
 * Only temporaries and argument registers (RV_SCRATCH_REGS) are ever used
 * as scratch, and only those the function writes somewhere.
 *
 * The last function analyzed is kept (rv_fn_get()): probing many
 * instructions of one function, in a batch or one by one, analyzes it once.
 */
#include <linux/err.h>
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "common.h"
#include "decode-insn.h"
#include "insn-analysis.h"

#define RV_REG_RA		1
#define RV_REG_SP		2
#define RV_REG_GP		3
#define RV_REG_TP		4
#define RV_REG_T0		5
#define RV_REG_S0		8

#define RV_ARG_REGS		GENMASK(17, 10)
#define RV_CALLEE_SAVED		(BIT(RV_REG_SP) | GENMASK(9, 8) | GENMASK(27, 18))
#define RV_CALLER_SAVED		(BIT(RV_REG_RA) | RV_SCRATCH_REGS)
#define RV_RET_LIVE		(BIT(RV_REG_RA) | BIT(RV_REG_GP) | BIT(RV_REG_TP) | \
				 GENMASK(11, 10) | RV_CALLEE_SAVED)
#define RV_CALL_USE		(RV_ARG_REGS | BIT(RV_REG_SP) | BIT(RV_REG_GP) | \
				 BIT(RV_REG_TP) | BIT(RV_REG_S0))

/* The largest function analyzed; a bigger one cannot be probed. */
#define RV_FN_MAX_SIZE		SZ_1M
/* An LR/SC sequence is at most 16 instructions (the ISA's forward progress). */
#define RV_LRSC_MAX		16
/* The largest function kept by the cache of rv_fn_get(). */
#define RV_FN_CACHE_MAX_SIZE	SZ_16K
/* Passes of the data flow before giving up. */
#define RV_LIVENESS_PASSES	64

/**
 * rv_fn_find() - the instruction at an address
 * @fn: a decoded function
 * @addr: the address
 *
 * Return: its index, or -1 if @addr is not an instruction boundary.
 */
int rv_fn_find(const struct rv_fn *fn, unsigned long addr)
{
	unsigned long off = addr - fn->start;
	int lo = 0, hi = fn->n - 1;

	if (addr < fn->start || off >= fn->size)
		return -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (fn->insn[mid].off == off)
			return mid;
		if (fn->insn[mid].off < off)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void rv_fn_set_target(struct rv_fn *fn, struct rv_fn_insn *x,
			     unsigned long to)
{
	x->target_addr = to;
	x->target = rv_fn_find(fn, to);
}

/* Classify how control leaves @x (decoded as @d at @pc). */
static void rv_fn_flow(struct rv_fn_insn *x, const struct rv_insn *d,
		       unsigned long pc, unsigned long *to)
{
	*to = 0;
	switch (d->kind) {
	case RV_INSN_BRANCH:
		x->flow = RV_FLOW_BRANCH;
		*to = pc + d->imm;
		return;
	case RV_INSN_JAL:
		if (!d->rd) {
			x->flow = RV_FLOW_JUMP;
			*to = pc + d->imm;
			return;
		}
		x->flow = RV_FLOW_CALL;
		/* A call with another link register is not the ABI's. */
		x->use = d->rd == RV_REG_RA ? RV_CALL_USE : RV_REGS_ALL;
		return;
	case RV_INSN_JALR:
		if (d->rd) {
			x->flow = RV_FLOW_CALL;
			x->use |= d->rd == RV_REG_RA ? RV_CALL_USE : RV_REGS_ALL;
			return;
		}
		if (d->rs1 == RV_REG_RA && !d->imm) {
			x->flow = RV_FLOW_RETURN;
			return;
		}
		x->flow = RV_FLOW_EXIT;
		x->indirect = 1;
		return;
	case RV_INSN_PRIV:
		x->flow = RV_FLOW_EXIT;
		return;
	default:
		x->flow = RV_FLOW_NEXT;
		return;
	}
}

#ifdef CONFIG_JUMP_LABEL
/* Static branches are NOPs or jumps depending on their key: both ways. */
static void rv_fn_jump_entries(struct rv_fn *fn, struct jump_entry *start,
			       struct jump_entry *stop)
{
	struct jump_entry *e;

	for (e = start; e < stop; e++) {
		int i = rv_fn_find(fn, jump_entry_code(e));

		if (i < 0)
			continue;
		fn->insn[i].flow = RV_FLOW_BRANCH;
		rv_fn_set_target(fn, &fn->insn[i], jump_entry_target(e));
	}
}

static void rv_fn_static_branches(struct rv_fn *fn)
{
	struct module *mod;

	rv_fn_jump_entries(fn, __start___jump_table, __stop___jump_table);

	/* The core pinned the module of the probed address. */
	preempt_disable();
	mod = __module_text_address(fn->start);
	preempt_enable();
	if (mod)
		rv_fn_jump_entries(fn, mod->jump_entries,
				   mod->jump_entries + mod->num_jump_entries);
}
#else
static void rv_fn_static_branches(struct rv_fn *fn)
{
}
#endif

/* Mark the instructions between an LR and the SC that follows it. */
static void rv_fn_mark_lrsc(struct rv_fn *fn)
{
	unsigned int i, left = 0;

	for (i = 0; i < fn->n; i++) {
		struct rv_fn_insn *x = &fn->insn[i];

		if (x->kind == RV_INSN_LR) {
			left = RV_LRSC_MAX;
			continue;
		}
		if (x->kind == RV_INSN_SC) {
			left = 0;
			continue;
		}
		if (left) {
			x->lrsc = 1;
			left--;
		}
	}
}

/**
 * rv_fn_decode() - decode the function containing an address
 * @addr: an address in the function
 *
 * Decoding stops at the first encoding longer than 32 bits, and goes on
 * through instructions the decoder does not know (a vendor's custom ones,
 * padding): either way @fn->complete is false, the flow of the function is
 * not entirely known.
 * Context: kprobe_mutex held.
 *
 * Return: the function, to be freed with rv_fn_free(); ERR_PTR(-EILSEQ) if
 * kallsyms does not know it, -E2BIG if it is too big, -ENOMEM.
 */
static struct rv_fn *rv_fn_decode(unsigned long addr)
{
	unsigned long size, offset, a, end;
	bool unknown = false;
	struct rv_insn d;
	struct rv_fn *fn;
	unsigned int i;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return ERR_PTR(-EILSEQ);
	if (size > RV_FN_MAX_SIZE)
		return ERR_PTR(-E2BIG);

	fn = kzalloc(sizeof(*fn), GFP_KERNEL);
	if (!fn)
		return ERR_PTR(-ENOMEM);
	fn->start = addr - offset;
	fn->size = size;
	fn->insn = kvcalloc(size / 2 + 1, sizeof(*fn->insn), GFP_KERNEL);
	if (!fn->insn) {
		kfree(fn);
		return ERR_PTR(-ENOMEM);
	}

	end = fn->start + size;
	for (a = fn->start; a < end; a += d.len) {
		struct rv_fn_insn *x = &fn->insn[fn->n];
		unsigned long to;
		u32 raw;

		if (riscv_kprobe_read_insn(a, &raw))
			break;
		rv_insn_decode(raw, &d);
		if (!d.len || a + d.len > end)
			break;
		/* Decodable on, but it might jump anywhere. */
		if (d.kind == RV_INSN_INVALID)
			unknown = true;
		x->off = a - fn->start;
		x->len = d.len;
		x->kind = d.kind;
		x->use = d.use;
		x->def = d.def;
		rv_fn_flow(x, &d, a, &to);
		x->target_addr = to;
		fn->writes |= d.def;
		fn->n++;
	}
	fn->complete = a == end && !unknown;

	/* Targets, now that every boundary is known. */
	for (i = 0; i < fn->n; i++) {
		struct rv_fn_insn *x = &fn->insn[i];
		const struct exception_table_entry *e;

		x->target = RV_FN_OUTSIDE;
		if (x->target_addr)
			rv_fn_set_target(fn, x, x->target_addr);

		e = search_exception_tables(fn->start + x->off);
		if (!e)
			continue;
		x->extable = 1;
		if (x->flow == RV_FLOW_NEXT) {
			x->flow = RV_FLOW_BRANCH;
			rv_fn_set_target(fn, x, (unsigned long)&e->fixup + e->fixup);
		}
	}
	rv_fn_static_branches(fn);
	rv_fn_mark_lrsc(fn);
	return fn;
}

static void rv_fn_free(struct rv_fn *fn)
{
	if (IS_ERR_OR_NULL(fn))
		return;
	kvfree(fn->live);
	kvfree(fn->insn);
	kfree(fn);
}

/*
 * The cache of one function.  Under the core, the text of a function
 * changes only through kprobes (read through by riscv_kprobe_read_insn()),
 * static branches (taken both ways, whatever their state) and ftrace at its
 * entry: the first two instructions are kept with the analysis, which is
 * dropped when they differ.  Module text may be freed and reused once the
 * module goes: any module state change makes the cache stale (rv_fn_gen).
 * Only kernel and module text is cached, since JIT code may be freed at any
 * time.  All of it is used with kprobe_mutex held; the module notifier only
 * bumps the generation.  The cached function is replaced only when no
 * caller holds it (rv_fn_cached_users).
 */
static struct rv_fn *rv_fn_cached;
static u64 rv_fn_cached_head;
static unsigned int rv_fn_cached_gen;
static unsigned int rv_fn_cached_users;
static atomic_t rv_fn_gen;

static int rv_fn_read_head(unsigned long start, u64 *head)
{
	u32 a, b;

	if (riscv_kprobe_read_insn(start, &a) ||
	    riscv_kprobe_read_insn(start + rv_insn_len(a), &b))
		return -EFAULT;
	*head = a | (u64)b << 32;
	return 0;
}

/**
 * rv_fn_get() - the analysis of the function containing an address
 * @addr: an address in the function
 *
 * Context: kprobe_mutex held.
 *
 * Return: the function (decoded, see rv_fn_decode(); its liveness computed
 * on demand by rv_fn_liveness()), to be given back with rv_fn_put() before
 * kprobe_mutex is released; or an ERR_PTR() as rv_fn_decode().
 */
struct rv_fn *rv_fn_get(unsigned long addr)
{
	unsigned int gen = atomic_read(&rv_fn_gen);
	struct rv_fn *fn = rv_fn_cached;
	u64 head;

	if (fn && rv_fn_cached_gen == gen && addr >= fn->start &&
	    addr - fn->start < fn->size &&
	    !rv_fn_read_head(fn->start, &head) && head == rv_fn_cached_head) {
		rv_fn_cached_users++;
		return fn;
	}

	fn = rv_fn_decode(addr);
	if (IS_ERR(fn))
		return fn;
	if (!rv_fn_cached_users && fn->size <= RV_FN_CACHE_MAX_SIZE &&
	    (is_kernel_text(fn->start) || is_module_text_address(fn->start)) &&
	    !rv_fn_read_head(fn->start, &head)) {
		rv_fn_free(rv_fn_cached);
		rv_fn_cached = fn;
		rv_fn_cached_head = head;
		rv_fn_cached_gen = gen;
		rv_fn_cached_users = 1;
	}
	return fn;
}

/**
 * rv_fn_put() - done with a function from rv_fn_get()
 * @fn: the function, or an ERR_PTR() or NULL
 */
void rv_fn_put(struct rv_fn *fn)
{
	if (IS_ERR_OR_NULL(fn))
		return;
	if (fn == rv_fn_cached)
		rv_fn_cached_users--;
	else
		rv_fn_free(fn);
}

static int rv_fn_module_callback(struct notifier_block *nb, unsigned long val,
				 void *data)
{
	/* Also COMING and LIVE: a module's init text is freed after init. */
	atomic_inc(&rv_fn_gen);
	return NOTIFY_DONE;
}

static struct notifier_block rv_fn_module_nb = {
	.notifier_call = rv_fn_module_callback,
};

static int __init rv_fn_cache_init(void)
{
	return register_module_notifier(&rv_fn_module_nb);
}
core_initcall(rv_fn_cache_init);

/* Registers live on entry to the instruction following @i, if it follows. */
static u32 rv_fn_live_next(const struct rv_fn *fn, unsigned int i)
{
	const struct rv_fn_insn *x = &fn->insn[i];

	if (i + 1 < fn->n && fn->insn[i + 1].off == x->off + x->len)
		return fn->live[i + 1];
	return RV_REGS_ALL;
}

static u32 rv_fn_live_target(const struct rv_fn *fn, unsigned int i)
{
	int t = fn->insn[i].target;

	return t == RV_FN_OUTSIDE ? RV_REGS_ALL : fn->live[t];
}

/**
 * rv_fn_liveness() - compute the registers live before each instruction
 * @fn: a decoded function
 *
 * Return: 0, -ENOMEM, or -EDEADLK if the data flow did not converge.
 */
int rv_fn_liveness(struct rv_fn *fn)
{
	/* Caller-saved registers the function never writes may be the caller's. */
	u32 ret_live = RV_RET_LIVE | (RV_CALLER_SAVED & ~fn->writes);
	unsigned int pass;
	bool changed = true;

	if (fn->live)
		return 0;
	fn->live = kvcalloc(fn->n + 1, sizeof(*fn->live), GFP_KERNEL);
	if (!fn->live)
		return -ENOMEM;

	for (pass = 0; changed && pass < RV_LIVENESS_PASSES; pass++) {
		int i;

		changed = false;
		for (i = fn->n - 1; i >= 0; i--) {
			const struct rv_fn_insn *x = &fn->insn[i];
			u32 out, in;

			switch (x->flow) {
			case RV_FLOW_NEXT:
			case RV_FLOW_CALL:
				out = rv_fn_live_next(fn, i);
				break;
			case RV_FLOW_BRANCH:
				out = rv_fn_live_next(fn, i) |
				      rv_fn_live_target(fn, i);
				break;
			case RV_FLOW_JUMP:
				out = rv_fn_live_target(fn, i);
				break;
			case RV_FLOW_RETURN:
				out = ret_live;
				break;
			default:
				out = RV_REGS_ALL;
				break;
			}
			in = x->use | (out & ~x->def);
			if (in != fn->live[i]) {
				fn->live[i] = in;
				changed = true;
			}
		}
	}
	if (changed) {
		kvfree(fn->live);
		fn->live = NULL;
		return -EDEADLK;
	}
	return 0;
}

/**
 * rv_fn_scratch_regs() - registers that may be clobbered before an instruction
 * @fn: a function whose liveness was computed
 * @idx: the instruction
 *
 * Return: the temporaries and argument registers that are dead before
 * instruction @idx and that the function writes somewhere.
 */
u32 rv_fn_scratch_regs(const struct rv_fn *fn, int idx)
{
	if (!fn->live || idx < 0 || idx >= fn->n)
		return 0;
	return RV_SCRATCH_REGS & fn->writes & ~fn->live[idx];
}

#ifdef CONFIG_OPTPROBES
/* Whether a decoded function may jump into (@lo, @hi). */
static bool rv_fn_jumps_into(const struct rv_fn *fn, unsigned long lo,
			     unsigned long hi)
{
	unsigned int i;

	if (!fn->complete)
		return true;
	for (i = 0; i < fn->n; i++) {
		const struct rv_fn_insn *x = &fn->insn[i];

		if (x->indirect)
			return true;
		if (x->target_addr > lo && x->target_addr < hi)
			return true;
	}
	return false;
}

/* kprobe_walk_split_parts()'s callback: does that part jump in? */
static int rv_part_jumps_into(void *data, unsigned long start,
			      unsigned long end)
{
	const unsigned long *range = data;
	struct rv_fn *c = rv_fn_decode(start);
	bool ret;

	if (IS_ERR(c))
		return PTR_ERR(c);
	ret = rv_fn_jumps_into(c, range[0], range[1]);
	rv_fn_free(c);
	return ret;
}

/**
 * rv_fn_targets_into() - whether anything may jump into a range of a function
 * @fn: the decoded function
 * @lo: the start of the range, which may be a target
 * @hi: its end
 *
 * Looks at the function and at its other parts if the compiler split it
 * (foo and foo.cold jump into each other, see kprobe_walk_split_parts()).
 * An indirect jump (it may be a jump table) or an incomplete decoding, of
 * any part, answers yes.
 *
 * Return: true if some jump, branch or fixup may land in (@lo, @hi).
 */
bool rv_fn_targets_into(const struct rv_fn *fn, unsigned long lo,
			unsigned long hi)
{
	unsigned long range[2] = { lo, hi };

	if (rv_fn_jumps_into(fn, lo, hi))
		return true;
	return kprobe_walk_split_parts(fn->start, rv_part_jumps_into,
				       range) != 0;
}
#endif
