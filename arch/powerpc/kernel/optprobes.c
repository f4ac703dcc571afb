// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerpc kprobes: jump optimization.
 *
 * The trap of a site without post handlers is replaced by a branch to a
 * detour (optprobes_head.S) that calls the pre handlers without any trap
 * and runs the displaced instruction.  The branch replaces exactly one
 * instruction, the probed one, so nothing else can jump into the replaced
 * range; and both the trap and the branch may be written while other CPUs
 * execute them.
 *
 * A site qualifies when:
 *   - it is not in arch_local_irq_restore(), which the callback calls;
 *   - its instruction runs the same at any address: not a branch, nor
 *     PC-relative (addpcis, prefixed with R=1), nor a site armed via ftrace;
 *   - it has no exception table entry: a fault in the detour could not be
 *     moved back to the probed address;
 *   - the detour is within branch range (+/-32 MiB) of the probe, both ways.
 *     Detour pages come from a buffer in the kernel text first (see
 *     alloc_optinsn_page()), in range of the kernel text; module text, and
 *     the kernel when that buffer is used up, keep their traps.  Stepping
 *     slots need no reach: they take no buffer page.
 *
 * The detour's callback runs the pre handlers with interrupts soft-masked,
 * as a trap would, with user access prevented as in an interrupt, and
 * finds the site through get_kprobe(): a task preempted in the detour
 * before the callback does not keep a pointer to a site that may be freed
 * meanwhile; the detour itself is freed dirty, after an RCU-tasks grace
 * period.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bitops.h>
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/code-patching.h>
#include <asm/inst.h>
#include <asm/ppc-opcode.h>
#include <asm/probes.h>
#include <asm/ptrace.h>
#include <asm/sstep.h>

#include "kprobes-internal.h"

#define DETOUR_SLOT_BYTES	(MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t))
#define DETOUR_OFFSET(sym)	((unsigned long)(sym) - \
				 (unsigned long)optprobe_template_entry)
#define DETOUR_SIZE		DETOUR_OFFSET(optprobe_template_end)

#define BUFFER_PAGES		(((unsigned long)optprobe_buffer_end - \
				  (unsigned long)optprobe_buffer) / PAGE_SIZE)
#define BUFFER_MAX_PAGES	32

/* Buffer pages given to the slot caches. */
static DECLARE_BITMAP(optprobe_buffer_used, BUFFER_MAX_PAGES);

/* ---------------------------------------------------------------------------
 * Slot pages
 * ---------------------------------------------------------------------------
 */

/**
 * alloc_optinsn_page() - an executable page for detour slots
 *
 * A page of the buffer in the kernel text, so that detours can be reached
 * by a branch from the kernel text, else any executable page.
 *
 * Return: the page, or NULL.
 */
void *alloc_optinsn_page(void)
{
	unsigned long i, n = min_t(unsigned long, BUFFER_PAGES, BUFFER_MAX_PAGES);

	for (i = 0; i < n; i++) {
		if (!test_and_set_bit(i, optprobe_buffer_used))
			return (void *)optprobe_buffer + i * PAGE_SIZE;
	}
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

/**
 * free_optinsn_page() - give back a page from alloc_optinsn_page()
 * @page: the page
 *
 * A buffer page is filled with traps again before it can be reused.
 */
void free_optinsn_page(void *page)
{
	u32 trap = PPC_RAW_TRAP();
	unsigned long i;

	if (!optprobe_in_buffer((unsigned long)page)) {
		execmem_free(page);
		return;
	}
	i = (page - (void *)optprobe_buffer) / PAGE_SIZE;
	if (patch_instructions(page, &trap, PAGE_SIZE, true))
		pr_warn("cannot clear detour page %p\n", page);
	clear_bit(i, optprobe_buffer_used);
}

/* Whether @addr is in the detour buffer, which must never be probed. */
bool optprobe_in_buffer(unsigned long addr)
{
	return addr >= (unsigned long)optprobe_buffer &&
	       addr < (unsigned long)optprobe_buffer_end;
}

int __init optprobe_populate_blacklist(void)
{
	return kprobe_add_area_blacklist((unsigned long)optprobe_buffer,
					 (unsigned long)optprobe_buffer_end);
}

/* ---------------------------------------------------------------------------
 * The detour at run time
 * ---------------------------------------------------------------------------
 */

/**
 * optprobe_callback() - the pre handlers of an optimized site
 * @addr: the probed address
 * @regs: the registers at @addr, built by the detour
 *
 * Return: non-zero if a handler moved the instruction pointer: the detour
 * must not run the displaced instruction, but resume where @regs say.
 */
int optprobe_callback(unsigned long addr, struct pt_regs *regs)
{
	unsigned long flags, ua;
	struct kprobe *p;
	int ret = 0;

	local_irq_save(flags);
	ua = user_access_save();
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
	user_access_restore(ua);
	local_irq_restore(flags);
	return ret;
}

NOKPROBE_SYMBOL(optprobe_callback);

/**
 * optprobe_exit_trap() - whether a trap is the exit of a detour
 * @regs: the registers at the trap; r1 points to the detour's frame
 *
 * Called by kprobe_handler().  For the exit trap of a detour, @regs become
 * those of the detour's pt_regs, so that the interrupt return resumes where
 * a pre handler sent execution, with every register the handler set.
 *
 * Return: true if the trap was a detour's.
 */
bool optprobe_exit_trap(struct pt_regs *regs)
{
	unsigned long off = DETOUR_OFFSET(optprobe_template_exit);
	struct pt_regs *saved;

	if ((regs->nip & ~PAGE_MASK) % DETOUR_SLOT_BYTES != off ||
	    !is_kprobe_optinsn_slot(regs->nip))
		return false;

	/* r13 is this CPU's paca on 64-bit: never restored. */
	saved = (struct pt_regs *)(regs->gpr[1] + STACK_INT_FRAME_REGS);
	memcpy(regs->gpr, saved->gpr, 13 * sizeof(regs->gpr[0]));
	memcpy(&regs->gpr[14], &saved->gpr[14], 18 * sizeof(regs->gpr[0]));
	regs->link = saved->link;
	regs->ctr = saved->ctr;
	regs->xer = saved->xer;
	regs->ccr = saved->ccr;
	regs_set_return_ip(regs, saved->nip);
	return true;
}

NOKPROBE_SYMBOL(optprobe_exit_trap);

/* ---------------------------------------------------------------------------
 * Preparation and patching (kprobe_mutex held)
 * ---------------------------------------------------------------------------
 */

/* Whether the probed instruction of @p may run in a detour. */
/*
 * On 64-bit, the callback's local_irq_restore() calls arch_local_irq_restore():
 * a detour in that function would call itself without end.  Its sites keep
 * their traps, which its callers in the trap path do not reach.
 */
static bool optprobe_in_irq_restore(unsigned long addr)
{
#ifdef CONFIG_PPC64
	unsigned long start = ppc_global_function_entry(arch_local_irq_restore);
	unsigned long size, off;

	return kallsyms_lookup_size_offset(start, &size, &off) &&
	       addr >= start && addr < start + size;
#else
	return false;
#endif
}

static bool optprobe_can_displace(struct kprobe *p)
{
	struct instruction_op op;
	int kind;

	if (p->ainsn.kind == KP_INSN_NONE ||
	    optprobe_in_irq_restore((unsigned long)p->addr))
		return false;
	kind = kprobe_classify(p->ainsn.insn, &op);
	if (kind < 0 || GETTYPE(op.type) == BRANCH ||
	    kprobe_insn_pcrel(p->ainsn.insn))
		return false;
	return !search_exception_tables((unsigned long)p->addr);
}

static bool optprobe_b_reaches(unsigned long from, unsigned long to)
{
	return is_offset_in_branch_range((long)(to - from));
}

/**
 * arch_prepare_optimized_kprobe() - build the detour of a site
 * @op: the site
 * @p: the site's kprobe, &@op->kp
 *
 * Return: 0; -EINVAL if the instruction cannot be displaced, -ERANGE if the
 * detour is out of branch range, -ENOMEM, -E2BIG or -EFAULT.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	unsigned long detour, back, next;
	kprobe_opcode_t *slot, *buf;
	unsigned long lit;
	ppc_inst_t branch;
	int ret;

	BUILD_BUG_ON(DETOUR_SLOT_BYTES > PAGE_SIZE);
	if (DETOUR_SIZE > DETOUR_SLOT_BYTES)
		return -E2BIG;
	if (!optprobe_can_displace(p))
		return -EINVAL;

	slot = get_optinsn_slot();
	if (!slot)
		return -ENOMEM;
	detour = (unsigned long)slot;
	back = detour + DETOUR_OFFSET(optprobe_template_branch);
	next = addr + p->ainsn.len;
	if (!optprobe_b_reaches(addr, detour) || !optprobe_b_reaches(back, next)) {
		ret = -ERANGE;
		goto fail;
	}

	buf = kmalloc(DETOUR_SIZE, GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto fail;
	}
	memcpy(buf, optprobe_template_entry, DETOUR_SIZE);
	ppc_inst_write(&buf[DETOUR_OFFSET(optprobe_template_insn) / 4],
		       p->ainsn.insn);
	if (create_branch(&branch, (u32 *)back, next, 0)) {
		ret = -ERANGE;
		goto fail_buf;
	}
	buf[DETOUR_OFFSET(optprobe_template_branch) / 4] = ppc_inst_val(branch);
	lit = addr;
	memcpy((void *)buf + DETOUR_OFFSET(optprobe_template_probe_addr), &lit,
	       sizeof(lit));
	lit = ppc_global_function_entry(optprobe_callback);
	memcpy((void *)buf + DETOUR_OFFSET(optprobe_template_callback), &lit,
	       sizeof(lit));

	ret = patch_instructions(slot, buf, DETOUR_SIZE, false);
	kfree(buf);
	if (ret) {
		ret = -EFAULT;
		goto fail;
	}
	op->optinsn.insn = slot;
	return 0;

fail_buf:
	kfree(buf);
fail:
	free_optinsn_slot(slot, 0);
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
	op->optinsn.insn = NULL;
}

/**
 * arch_optimize_kprobes() - replace the trap of sites by a branch to their
 *	detour
 * @oplist: the sites; each one optimized is taken off the list
 *
 * Context: text_mutex and cpus_read_lock() held.  A CPU that still sees the
 * trap handles the hit as usual.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		if (patch_branch(op->kp.addr, (unsigned long)op->optinsn.insn, 0))
			continue;
		list_del_init(&op->list);
	}
}

/**
 * arch_unoptimize_kprobes() - put the trap of sites back
 * @oplist: the sites
 * @done_list: where each site goes
 *
 * Context: text_mutex and cpus_read_lock() held.  Once this returns, no CPU
 * enters a detour any more.
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		if (patch_instruction(op->kp.addr,
				      ppc_inst(BREAKPOINT_INSTRUCTION)))
			pr_err("cannot unoptimize %pS\n", op->kp.addr);
		list_move(&op->list, done_list);
	}
	kick_all_cpus_sync();
}

/**
 * arch_within_optimized_kprobe() - whether the branch of a site covers an
 *	address
 * @op: the site
 * @addr: the address
 *
 * Return: true for the probed instruction itself (both words of a prefixed
 * one).
 */
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  kprobe_opcode_t *addr)
{
	return addr >= op->kp.addr &&
	       (unsigned long)addr < (unsigned long)op->kp.addr + op->kp.ainsn.len;
}
