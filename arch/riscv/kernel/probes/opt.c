// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * riscv kprobes: jump optimization.
 *
 * The breakpoint of a site without post handlers is replaced by a jump to
 * a detour (opt_detour.S) that calls the pre handlers without any trap,
 * runs the displaced instructions and jumps back after them:
 *
 *   - JAL x0 (4 bytes) when the detour is within 1 MiB;
 *   - else AUIPC rX; JALR x0, lo(rX) (8 bytes) through a register rX that
 *     the liveness analysis of the function (insn-analysis.c) proved dead
 *     after the displaced instructions and that they do not use: it is
 *     then dead before them too.  The jump back goes through the same
 *     register.  There is no way to save a live register around the jump
 *     (kernel stacks have no red zone: an interrupt would clobber a slot
 *     below sp), so without a dead register the site keeps its breakpoint.
 *     Detours come from the module area, within 2 GiB of all kernel text.
 *
 * The jump covers whole instructions, the displaced ones.  A site
 * qualifies when:
 *   - the displaced instructions lie in the probed function, run the same
 *     at any address (AUIPC is rewritten as AUIPC+ADDI computing the same
 *     value), have no exception table entry, are not inside an LR/SC
 *     sequence, hold no other probe and no static branch, static call or
 *     ftrace site, and are followed by an instruction of the function;
 *   - nothing jumps into the middle of them: the whole function (and its
 *     other part, if GCC split it into foo and foo.cold) is decoded, an
 *     indirect jump that is not a return or a call refuses the site, as
 *     does a function that cannot be decoded to its end; nor does a jump
 *     label, whose site a decode sees as a NOP until its key flips.
 *
 * Writing the jump while other harts run (text_mutex held): the core
 * makes breakpoint hits resume in the detour and waits for an RCU-tasks
 * grace period, so no task is inside the range; the bytes of the jump after
 * the breakpoint are written first, then, once every hart sees them, the
 * first parcel or word in one store over the breakpoint.
 *
 * Putting the breakpoint back is the reverse, with one more wait: a task
 * may have run the AUIPC and been interrupted (and preempted) before the
 * JALR.  The rest of the jump is only restored after an RCU-tasks grace
 * period: such a task resumes on the JALR, which is still there, before it
 * can sleep voluntarily.  Meanwhile breakpoint hits still go through the
 * detour.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <asm/cacheflush.h>
#include <asm/csr.h>
#include <asm/patch.h>
#include <asm/ptrace.h>

#include "common.h"
#include "decode-insn.h"
#include "insn-analysis.h"

/* Displaced instructions (AUIPC grows to 8 bytes) and the jump back. */
#define DETOUR_TAIL_MAX		(2 * MAX_OPTIMIZED_LENGTH + 8)

static struct optimized_kprobe *to_op(struct kprobe *p)
{
	return container_of(p, struct optimized_kprobe, kp);
}

/**
 * optprobe_callback() - the pre handlers of an optimized site
 * @addr: the probed address
 * @regs: the registers at @addr, built by the detour
 *
 * The site is looked up again: a task preempted in the detour before this
 * call may come here after the site was removed.  The handlers run with
 * interrupts off, as at a breakpoint.
 *
 * Return: non-zero if a handler moved the PC: the detour must not run the
 * displaced instructions, but resume where @regs say.
 */
int optprobe_callback(unsigned long addr, struct pt_regs *regs)
{
	unsigned long flags;
	struct kprobe *p;
	int ret = 0;

	local_irq_save(flags);
	p = get_kprobe((kprobe_opcode_t *)addr);
	if (p) {
		if (kprobe_running()) {
			kprobes_inc_nmissed_count(p);
		} else {
			__this_cpu_write(current_kprobe, p);
			get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
			ret = kprobe_call_pre_handlers(p, regs);
			reset_current_kprobe();
		}
	}
	local_irq_restore(flags);

	return ret || instruction_pointer(regs) != addr;
}

NOKPROBE_SYMBOL(optprobe_callback);

/*
 * riscv_opt_exit_handler() found the EBREAK at the offset of a detour's exit:
 * @regs are at that EBREAK, and sp points to the detour's pt_regs if it is
 * one.
 */
bool __riscv_opt_exit_handler(struct pt_regs *regs)
{
	struct pt_regs *saved;
	unsigned int i;

	if (!is_kprobe_optinsn_slot(instruction_pointer(regs)))
		return false;

	saved = (struct pt_regs *)regs->sp;
	/* epc and x1..x31 (no memcpy(): it may be probed); status is ours. */
	for (i = 0; i < offsetof(struct pt_regs, status) / sizeof(long); i++)
		((unsigned long *)regs)[i] = ((unsigned long *)saved)[i];
	return true;
}

NOKPROBE_SYMBOL(__riscv_opt_exit_handler);

/**
 * riscv_opt_recover() - undo optimized jumps in a copy of the text
 * @addr: where the copy comes from
 * @buf: the copy
 * @len: its length
 *
 * Context: kprobe_mutex held.
 */
void riscv_opt_recover(unsigned long addr, u8 *buf, size_t len)
{
	unsigned long a, i;

	for (a = addr - (MAX_OPTIMIZED_LENGTH - 2); a < addr + len; a += 2) {
		struct arch_optimized_insn *oi;
		struct kprobe *p = get_kprobe((void *)a);

		if (!p || kprobe_ftrace(p))
			continue;
		oi = &to_op(p)->optinsn;
		if (!oi->insn)
			continue;
		for (i = 0; i < oi->size; i++) {
			if (a + i >= addr && a + i < addr + len)
				buf[a + i - addr] = oi->orig[i];
		}
	}
}

static bool opt_text_reserved(unsigned long addr, unsigned long size)
{
	void *start = (void *)addr, *last = (void *)(addr + size - 1);

	return kprobe_text_reserved(start, last) ||
	       ftrace_text_reserved(start, last);
}

/*
 * The displaced instructions from instruction @idx of @fn: at least @jlen
 * bytes.  Their original bytes go to @oi->orig, the registers they use or
 * write to *@used.  Returns the index of the instruction after them.
 */
static int opt_collect(struct rv_fn *fn, int idx, unsigned int jlen,
		       struct arch_optimized_insn *oi, u32 *used)
{
	unsigned long addr = fn->start + fn->insn[idx].off;
	unsigned int size = 0;
	int k;

	*used = 0;
	for (k = idx; size < jlen; k++) {
		const struct rv_fn_insn *x = &fn->insn[k];
		u32 insn;

		if (k >= fn->n || fn->start + x->off != addr + size)
			return -EINVAL;
		if (k != idx && get_kprobe((void *)(addr + size)))
			return -EBUSY;
		if ((x->kind != RV_INSN_PLAIN && x->kind != RV_INSN_AUIPC) ||
		    x->extable || x->lrsc || x->flow != RV_FLOW_NEXT)
			return -EINVAL;
		if (riscv_kprobe_read_insn(addr + size, &insn))
			return -EFAULT;
		memcpy(oi->orig + size, &insn, x->len);
		*used |= x->use | x->def;
		size += x->len;
	}
	/* Something of the function to jump back to. */
	if (k >= fn->n || fn->start + fn->insn[k].off != addr + size)
		return -EINVAL;
	oi->size = size;
	return k;
}

/*
 * Append the displaced instructions, relocated for @at, to @buf; returns
 * the bytes written, or -ERANGE.  AUIPC x0 is a hint: it is dropped.
 */
static int opt_relocate(const struct arch_optimized_insn *oi,
			unsigned long addr, unsigned long at, u8 *buf)
{
	unsigned int off = 0, n = 0;

	while (off < oi->size) {
		struct rv_insn d;
		u32 raw = 0, pair[2];

		memcpy(&raw, oi->orig + off, min(4U, oi->size - off));
		rv_insn_decode(raw, &d);
		if (d.kind == RV_INSN_AUIPC && d.rd) {
			/* rd = addr + off + imm, from the copy's own PC. */
			unsigned long val = addr + off + d.imm;

			if (!rv_auipc_jalr_reaches(at + n, val))
				return -ERANGE;
			pair[0] = RV_ENC_AUIPC(d.rd);
			pair[1] = RV_ENC_ADDI(d.rd, d.rd);
			riscv_insn_insert_utype_itype_imm(&pair[0], &pair[1],
							  val - (at + n));
			memcpy(buf + n, pair, sizeof(pair));
			n += sizeof(pair);
		} else if (d.kind != RV_INSN_AUIPC) {
			memcpy(buf + n, &d.insn, d.len);
			n += d.len;
		}
		off += d.len;
	}
	return n;
}

/**
 * arch_prepare_optimized_kprobe() - build the detour of a site
 * @op: the site
 * @p: the site's kprobe, &@op->kp
 *
 * Return: 0; -EINVAL if the instructions cannot be displaced, something
 * may jump among them or no register is free for the jump; -EBUSY if
 * another probe or patched site is in the way; -ERANGE if the detour is out
 * of reach; -E2BIG, -ENOMEM, -EFAULT.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *p)
{
	struct arch_optimized_insn *oi = &op->optinsn;
	unsigned long addr = (unsigned long)p->addr;
	unsigned long slot, entry, displaced, back_from;
	u8 buf[DETOUR_SLOT_BYTES] __aligned(8);
	u32 used, scratch, jump[2];
	unsigned int jlen, reg = 0;
	kprobe_opcode_t *insn;
	struct rv_fn *fn;
	int idx, k, n, ret;
	u64 lit;

	BUILD_BUG_ON(!is_power_of_2(DETOUR_SLOT_BYTES));
	if (sizeof(buf) < DETOUR_OFF(optprobe_detour_displaced) + DETOUR_TAIL_MAX)
		return -E2BIG;
	if (p->post_handler || kprobe_ftrace(p) || !p->ainsn.len)
		return -EINVAL;

	fn = rv_fn_get(addr);
	if (IS_ERR(fn))
		return PTR_ERR(fn);
	ret = -EINVAL;
	idx = rv_fn_find(fn, addr);
	if (idx < 0 || rv_fn_liveness(fn))
		goto out_fn;

	insn = get_optinsn_slot();
	ret = -ENOMEM;
	if (!insn)
		goto out_fn;
	slot = (unsigned long)insn;
	entry = slot + DETOUR_OFF(optprobe_detour_entry);
	displaced = slot + DETOUR_OFF(optprobe_detour_displaced);

	jlen = rv_jal_reaches(addr, entry) ? 4 : 8;
	k = opt_collect(fn, idx, jlen, oi, &used);
	ret = k;
	if (k < 0)
		goto out_slot;
	ret = -EBUSY;
	if (opt_text_reserved(addr, oi->size))
		goto out_slot;
	ret = -EINVAL;
	if (rv_fn_targets_into(fn, addr, addr + oi->size) ||
	    kprobe_jump_label_into(addr, addr + oi->size))
		goto out_slot;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, optprobe_detour, DETOUR_OFF(optprobe_detour_displaced));
	lit = addr;
	memcpy(buf + DETOUR_OFF(optprobe_detour_probe_addr), &lit, sizeof(long));
	lit = (unsigned long)optprobe_callback;
	memcpy(buf + DETOUR_OFF(optprobe_detour_callback), &lit, sizeof(long));
	n = opt_relocate(oi, addr, displaced,
			 buf + DETOUR_OFF(optprobe_detour_displaced));
	ret = n;
	if (n < 0)
		goto out_slot;
	n += DETOUR_OFF(optprobe_detour_displaced);

	/* The jump back, and the jump in through the same register. */
	back_from = slot + n;
	scratch = rv_fn_scratch_regs(fn, k) & ~used;
	reg = rv_pick_scratch(scratch);
	if (rv_jal_reaches(back_from, addr + oi->size)) {
		jump[0] = rv_gen_jal(back_from, addr + oi->size);
		memcpy(buf + n, jump, 4);
		n += 4;
	} else if (reg && rv_auipc_jalr_reaches(back_from, addr + oi->size)) {
		rv_gen_auipc_jalr(back_from, addr + oi->size, reg, jump);
		memcpy(buf + n, jump, 8);
		n += 8;
	} else {
		ret = reg ? -ERANGE : -EINVAL;
		goto out_slot;
	}

	if (jlen == 4) {
		jump[0] = rv_gen_jal(addr, entry);
	} else if (reg && rv_auipc_jalr_reaches(addr, entry)) {
		rv_gen_auipc_jalr(addr, entry, reg, jump);
	} else {
		ret = reg ? -ERANGE : -EINVAL;
		goto out_slot;
	}

	ret = riscv_kprobe_write(insn, buf, n);
	if (ret)
		goto out_slot;

	memcpy(oi->jump, jump, jlen);
	oi->jlen = jlen;
	oi->head = p->ainsn.bp_len;
	WRITE_ONCE(oi->insn, insn);
	rv_fn_put(fn);
	return 0;

out_slot:
	free_optinsn_slot(insn, 0);
out_fn:
	rv_fn_put(fn);
	return ret;
}

/**
 * arch_remove_optimized_kprobe() - free the detour of a site
 * @op: the site
 *
 * A task may still be in the detour (it runs preemptible): freed dirty.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	if (!op->optinsn.insn)
		return;
	free_optinsn_slot(op->optinsn.insn, 1);
	WRITE_ONCE(op->optinsn.insn, NULL);
}

static int opt_write(struct optimized_kprobe *op, unsigned int from,
		     unsigned int to, const u8 *bytes)
{
	if (from >= to)
		return 0;
	return patch_insn_write((u8 *)op->kp.addr + from, bytes + from,
				to - from);
}

/**
 * arch_optimize_kprobes() - replace the breakpoint of sites by their jump
 * @oplist: the sites; each one optimized is taken off the list
 *
 * Context: text_mutex and cpus_read_lock() held.  A hart that still sees
 * the breakpoint resumes in the detour, as the site is KPROBE_FLAG_OPTIMIZED.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;
	LIST_HEAD(failed);

	/* The rest of each jump, under the breakpoint's protection. */
	list_for_each_entry_safe(op, tmp, oplist, list) {
		struct arch_optimized_insn *oi = &op->optinsn;

		if (!opt_write(op, oi->head, oi->jlen, oi->jump))
			continue;
		/* Maybe partly written: no head may go in front of it. */
		opt_write(op, oi->head, oi->jlen, oi->orig);
		pr_err("cannot optimize %pS\n", op->kp.addr);
		list_move_tail(&op->list, &failed);
	}
	flush_icache_all();

	list_for_each_entry_safe(op, tmp, oplist, list) {
		struct arch_optimized_insn *oi = &op->optinsn;

		if (opt_write(op, 0, oi->head, oi->jump)) {
			/* No hart ran any of it: the original bytes go back. */
			opt_write(op, oi->head, oi->jlen, oi->orig);
			pr_err("cannot optimize %pS\n", op->kp.addr);
			continue;
		}
		list_del_init(&op->list);
	}
	flush_icache_all();
	list_splice(&failed, oplist);
}

/**
 * arch_unoptimize_kprobes() - put the breakpoint of sites back
 * @oplist: the sites
 * @done_list: where each site goes
 *
 * Context: text_mutex and cpus_read_lock() held.  Sleeps for an RCU-tasks
 * grace period when a jump is AUIPC+JALR (see the top of this file).
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	u32 ebreak = RV_ENC_EBREAK, c_ebreak = RV_ENC_C_EBREAK;
	struct optimized_kprobe *op, *tmp;
	bool wait = false;

	list_for_each_entry(op, oplist, list) {
		struct arch_optimized_insn *oi = &op->optinsn;

		if (opt_write(op, 0, oi->head,
			      oi->head == 4 ? (u8 *)&ebreak : (u8 *)&c_ebreak))
			pr_err("cannot unoptimize %pS\n", op->kp.addr);
		/* A task may be between the AUIPC and the JALR. */
		wait |= oi->jlen == 8;
	}
	flush_icache_all();
	if (wait)
		synchronize_rcu_tasks();

	list_for_each_entry_safe(op, tmp, oplist, list) {
		struct arch_optimized_insn *oi = &op->optinsn;

		if (opt_write(op, oi->head, oi->jlen, oi->orig))
			pr_err("cannot restore %pS\n", op->kp.addr);
		list_move(&op->list, done_list);
	}
	flush_icache_all();
}

/**
 * arch_within_optimized_kprobe() - whether the jump of a site covers an address
 * @op: the site
 * @addr: the address
 *
 * Return: true if @addr is one of the displaced instructions' bytes.
 */
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  kprobe_opcode_t *addr)
{
	unsigned long start = (unsigned long)op->kp.addr;

	return (unsigned long)addr >= start &&
	       (unsigned long)addr < start + op->optinsn.size;
}
