// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump optimization: replace the breakpoint of a site by a jump to a detour
 * that calls the pre handlers and runs the displaced instructions.
 *
 * A site is optimizable when it is armed with a breakpoint (not through
 * ftrace), no member has a post handler (a detour cannot run them) nor is a
 * jprobe (a detour cannot redirect execution), the
 * sysctl debug.kprobes-optimization is 1, and the arch accepts it
 * (arch_prepare_optimized_kprobe() builds the detour).  It then goes through:
 *
 *   queued   KPROBE_FLAG_OPTIMIZED is set: the arch's breakpoint handler runs
 *	      the detour rather than single-stepping, so that a task only ever
 *	      leaves the replaced range through its end;
 *   waiting  the optimizer waits for an RCU-tasks grace period, after which
 *	      no task can be preempted inside the replaced range;
 *   done     arch_optimize_kprobes() wrote the jump.
 *
 * Unoptimization (a post handler joins, the site is disarmed or removed, a
 * new probe lands inside the range, the sysctl goes to 0) is synchronous:
 * the breakpoint is back when it returns.  The detour stays allocated until
 * the site is freed or a probe lands in its range; the arch frees its slot
 * dirty, so the slot cache waits for tasks still running in it.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/memory.h>
#include <linux/rcupdate.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "internal.h"

int sysctl_kprobes_optimization __read_mostly = 1;

/* The int3 path reads a site's flags without a lock. */
static void kprobe_site_clear_optimized(struct kprobe *kp)
{
	WRITE_ONCE(kp->flags, kp->flags & ~KPROBE_FLAG_OPTIMIZED);
}

/* Sites queued for optimization, and those the optimizer waits for. */
static LIST_HEAD(opt_queue);
static LIST_HEAD(opt_waiting);

/* Batch the requests of a burst of registrations into one grace period. */
#define OPTIMIZE_DELAY	5

static void kprobe_optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(optimizing_work, kprobe_optimizer);

/* How far before an address a jump covering it may start, in units. */
#ifdef MAX_OPTIMIZED_LENGTH
#define OPT_SCAN_UNITS	DIV_ROUND_UP(MAX_OPTIMIZED_LENGTH, sizeof(kprobe_opcode_t))
#else
#define OPT_SCAN_UNITS	(MAX_INSN_SIZE + \
			 DIV_ROUND_UP(2 * sizeof(long), sizeof(kprobe_opcode_t)))
#endif

static bool site_may_be_optimized(struct kprobe_site *s)
{
	struct kprobe *kp = site_kp(s);

	return READ_ONCE(sysctl_kprobes_optimization) && !kprobe_ftrace(kp) &&
	       !kp->post_handler && !(kp->flags & KPROBE_FLAG_JPROBE) &&
	       !(s->state & SITE_OPT_FAILED) &&
	       kprobe_site_wants_armed(s);
}

/* Put the breakpoints back for the optimized sites on @ops (via op.list). */
static void unoptimize_list(struct list_head *ops)
{
	struct optimized_kprobe *op, *tmp;
	LIST_HEAD(done);

	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_unoptimize_kprobes(ops, &done);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	/* Not linked to this frame's list head once it is gone. */
	list_for_each_entry_safe(op, tmp, &done, list)
		list_del_init(&op->list);
}

/*
 * Take @s out of the optimizer; a site whose jump is in place is put on
 * @ops for unoptimize_list().  Returns whether it was.
 */
static bool site_stop_optimizing(struct kprobe_site *s, struct list_head *ops)
{
	if (s->state & (SITE_OPT_QUEUED | SITE_OPT_WAITING)) {
		list_del_init(&s->op.list);
		s->state &= ~(SITE_OPT_QUEUED | SITE_OPT_WAITING);
		kprobe_site_clear_optimized(site_kp(s));
		return false;
	}
	if (s->state & SITE_OPT_DONE) {
		s->state &= ~SITE_OPT_DONE;
		list_add_tail(&s->op.list, ops);
		return true;
	}
	return false;
}

static void clear_optimized(struct list_head *batch)
{
	struct kprobe_site *s;

	list_for_each_entry(s, batch, batch) {
		if (!(s->state & SITE_OPT_ACTIVE))
			kprobe_site_clear_optimized(site_kp(s));
	}
}

/* Unoptimize the sites on @batch (kprobe_site::batch) that must not stay so. */
void kprobe_opt_unoptimize_sites(struct list_head *batch)
{
	struct kprobe_site *s;
	LIST_HEAD(ops);
	bool any = false;

	list_for_each_entry(s, batch, batch) {
		if ((s->state & SITE_OPT_ACTIVE) && !site_may_be_optimized(s))
			any |= site_stop_optimizing(s, &ops);
	}
	if (any) {
		unoptimize_list(&ops);
		clear_optimized(batch);
	}
}

/* Unoptimize one site now, e.g. before a probe with a post handler joins. */
void kprobe_opt_unoptimize_site(struct kprobe_site *s)
{
	LIST_HEAD(ops);

	if (site_stop_optimizing(s, &ops))
		unoptimize_list(&ops);
	kprobe_site_clear_optimized(site_kp(s));
}

/* Queue the optimizable sites on @batch, building their detours. */
void kprobe_opt_optimize_sites(struct list_head *batch)
{
	struct kprobe_site *s;
	bool queued = false;

	list_for_each_entry(s, batch, batch) {
		struct kprobe *kp = site_kp(s);

		if ((s->state & SITE_OPT_ACTIVE) || !(s->state & SITE_ARMED) ||
		    !site_may_be_optimized(s))
			continue;
		if (!(s->state & SITE_OPT_READY)) {
			if (arch_prepare_optimized_kprobe(&s->op, kp)) {
				s->state |= SITE_OPT_FAILED;
				continue;
			}
			s->state |= SITE_OPT_READY | SITE_OPT_BUILT;
		}
		s->state |= SITE_OPT_QUEUED;
		WRITE_ONCE(kp->flags, kp->flags | KPROBE_FLAG_OPTIMIZED);
		list_add_tail(&s->op.list, &opt_queue);
		queued = true;
	}
	if (queued)
		schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY);
}

/**
 * get_optimized_kprobe() - the site whose detour covers an address
 * @addr: an address, not the first of the site
 *
 * Called with kprobe_mutex held, e.g. by arch code that needs the original
 * instructions under a jump.
 *
 * Return: the site whose (prepared or active) jump replaces @addr, or NULL.
 */
struct kprobe *get_optimized_kprobe(kprobe_opcode_t *addr)
{
	struct kprobe *kp;
	int i;

	for (i = 1; i < OPT_SCAN_UNITS; i++) {
		kp = get_kprobe(addr - i);
		if (kp && kprobe_is_site(kp) &&
		    (to_site(kp)->state & SITE_OPT_READY) &&
		    arch_within_optimized_kprobe(&to_site(kp)->op, addr))
			return kp;
	}
	return NULL;
}

/*
 * A new site at @addr: a detour covering it copied the instruction that is
 * about to get a breakpoint.  Unoptimize and drop it; the arch decides
 * again, seeing the new breakpoint, when the site is next optimizable.
 * Returns whether there was one (kprobe_opt_retry_before() if the new site
 * is not created after all).
 */
bool kprobe_opt_unoptimize_covering(kprobe_opcode_t *addr)
{
	struct kprobe_site *s;
	struct kprobe *kp;

	kp = get_optimized_kprobe(addr);
	if (!kp)
		return false;
	s = to_site(kp);
	kprobe_opt_unoptimize_site(s);
	arch_remove_optimized_kprobe(&s->op);
	s->state &= ~(SITE_OPT_READY | SITE_OPT_FAILED);
	return true;
}

/*
 * The site at @addr is gone: a site just before it that could not be
 * optimized because of it (or lost its detour to it) may be now.
 */
void kprobe_opt_retry_before(kprobe_opcode_t *addr)
{
	struct kprobe_site *s;
	LIST_HEAD(retry);
	struct kprobe *kp;
	int i;

	for (i = 1; i < OPT_SCAN_UNITS; i++) {
		kp = get_kprobe(addr - i);
		if (!kp || !kprobe_is_site(kp))
			continue;
		s = to_site(kp);
		if ((s->state & SITE_OPT_ACTIVE) || !list_empty(&s->batch))
			continue;
		s->state &= ~SITE_OPT_FAILED;
		list_add_tail(&s->batch, &retry);
	}
	kprobe_opt_optimize_sites(&retry);
	kprobe_batch_finish(&retry);
}

/* Free the detour of a site being freed (after its grace period). */
void kprobe_opt_remove_site(struct kprobe_site *s)
{
	if (s->state & SITE_OPT_READY)
		arch_remove_optimized_kprobe(&s->op);
	s->state &= ~SITE_OPT_READY;
}

static void kprobe_optimizer(struct work_struct *work)
{
	struct optimized_kprobe *op, *tmp;
	bool wait;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(op, &opt_queue, list) {
		struct kprobe_site *s = container_of(op, struct kprobe_site, op);

		s->state = (s->state & ~SITE_OPT_QUEUED) | SITE_OPT_WAITING;
	}
	list_splice_tail_init(&opt_queue, &opt_waiting);
	wait = !list_empty(&opt_waiting);
	mutex_unlock(&kprobe_mutex);
	if (!wait)
		return;

	/*
	 * Tasks preempted inside a range to be replaced must have left it;
	 * new ones cannot enter it but through the breakpoint, which now
	 * takes them through the detour.
	 */
	synchronize_rcu_tasks();

	mutex_lock(&kprobe_mutex);
	if (!list_empty(&opt_waiting)) {
		list_for_each_entry(op, &opt_waiting, list) {
			struct kprobe_site *s =
				container_of(op, struct kprobe_site, op);

			s->state = (s->state & ~SITE_OPT_WAITING) | SITE_OPT_DONE;
		}
		cpus_read_lock();
		mutex_lock(&text_mutex);
		arch_optimize_kprobes(&opt_waiting);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();

		/* The arch takes off the list each op it optimized. */
		list_for_each_entry_safe(op, tmp, &opt_waiting, list) {
			struct kprobe_site *s =
				container_of(op, struct kprobe_site, op);

			list_del_init(&op->list);
			s->state &= ~SITE_OPT_DONE;
			s->state |= SITE_OPT_FAILED;
			kprobe_site_clear_optimized(&op->kp);
		}
	}
	if (!list_empty(&opt_queue))
		schedule_delayed_work(&optimizing_work, OPTIMIZE_DELAY);
	mutex_unlock(&kprobe_mutex);
}

/**
 * wait_for_kprobe_optimizer() - wait until the queued optimizations are done
 *
 * Must not be called with kprobe_mutex held.
 */
void wait_for_kprobe_optimizer(void)
{
	mutex_lock(&kprobe_mutex);
	while (!list_empty(&opt_queue) || !list_empty(&opt_waiting)) {
		mutex_unlock(&kprobe_mutex);
		/* No point waiting for the batching delay. */
		mod_delayed_work(system_wq, &optimizing_work, 0);
		flush_delayed_work(&optimizing_work);
		mutex_lock(&kprobe_mutex);
	}
	mutex_unlock(&kprobe_mutex);
}
EXPORT_SYMBOL_GPL(wait_for_kprobe_optimizer);

/* ---------------------------------------------------------------------------
 * Services for the arch's check that nothing jumps into a replaced range,
 * for what a decode of the probed function cannot see.
 * ---------------------------------------------------------------------------
 */

/**
 * kprobe_jump_label_into() - whether a jump label may jump into a range
 * @lo: the start of the range (a jump to it is fine)
 * @hi: its end
 *
 * The site of a jump label whose key is off is a NOP, like any other to a
 * decoder; flipping the key makes it a jump to the entry's target.  Looks
 * at the jump table of vmlinux, or of the module holding @lo (a jump label
 * targets its own function).
 *
 * Return: true if the target of some jump label lies in (@lo, @hi).
 */
bool kprobe_jump_label_into(unsigned long lo, unsigned long hi)
{
	bool ret = false;
#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *e = __start___jump_table;
	struct jump_entry *stop = __stop___jump_table;
	unsigned long t;
#ifdef CONFIG_MODULES
	struct module *mod;

	preempt_disable();
	mod = __module_text_address(lo);
	if (mod) {
		e = mod->jump_entries;
		stop = e + mod->num_jump_entries;
	}
#endif
	for (; e < stop && !ret; e++) {
		t = jump_entry_target(e);
		ret = t > lo && t < hi;
	}
#ifdef CONFIG_MODULES
	preempt_enable();
#endif
#endif
	return ret;
}

struct split_part_ctx {
	kprobe_part_fn_t fn;
	void *data;
};

static int split_part_one(void *arg, unsigned long addr)
{
	struct split_part_ctx *c = arg;
	unsigned long size, offset;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset) || offset)
		return -EINVAL;
	return c->fn(c->data, addr, addr + size);
}

/**
 * kprobe_walk_split_parts() - the other parts of a split function
 * @func: the start of a function
 * @fn: called with @data and [start, end) of each other part
 * @data: for @fn
 *
 * GCC moves the unlikely blocks of a function "foo" into "foo.cold", which
 * jumps back into foo, as foo jumps into it.  For foo this calls @fn on
 * every foo.cold, for foo.cold on every foo (names repeat across files in
 * vmlinux: they all are, which is only more careful); nothing if @func is
 * not split.  For module text, the module's own.
 *
 * Return: 0, the first non-zero value of @fn, or -errno if the parts
 * cannot be told (then none is looked at).
 */
int kprobe_walk_split_parts(unsigned long func, kprobe_part_fn_t fn,
			    void *data)
{
	struct split_part_ctx c = { .fn = fn, .data = data };
	char buf[MODULE_NAME_LEN + 1 + KSYM_NAME_LEN + 8];
	char name[KSYM_NAME_LEN];
	unsigned long addr, size, offset;
	char *modname, *cold;

	if (!kallsyms_lookup(func, &size, &offset, &modname, name) || offset)
		return -ENOENT;
	cold = strstr(name, ".cold");
	if (cold)
		*cold = '\0';
	if (snprintf(buf, sizeof(buf), "%s%s%s%s", modname ?: "",
		     modname ? ":" : "", name, cold ? "" : ".cold") >=
	    sizeof(buf))
		return -ENAMETOOLONG;
	if (!modname)
		return kallsyms_on_each_match_symbol(split_part_one, buf, &c);
	addr = kallsyms_lookup_name(buf);
	return addr ? split_part_one(&c, addr) : 0;
}

#ifdef CONFIG_SYSCTL
/*
 * debug.kprobes-optimization: a write brings every site in line with the new
 * value, in one batch under kprobe_mutex: 0 unoptimizes the optimized sites,
 * 1 queues those that may be optimized.
 */
static int kprobe_opt_sysctl_write(const struct ctl_table *table, int write,
				   void *buffer, size_t *length, loff_t *ppos)
{
	LIST_HEAD(batch);
	int ret;

	mutex_lock(&kprobe_mutex);
	ret = proc_dointvec_minmax(table, write, buffer, length, ppos);
	if (write && ret == 0) {
		kprobe_batch_all(&batch);
		kprobe_opt_unoptimize_sites(&batch);
		kprobe_opt_optimize_sites(&batch);
		kprobe_batch_finish(&batch);
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

static struct ctl_table kprobe_opt_sysctl[] = {
	{
		.procname	= "kprobes-optimization",
		.mode		= 0644,
		.proc_handler	= kprobe_opt_sysctl_write,
		.data		= &sysctl_kprobes_optimization,
		.maxlen		= sizeof(sysctl_kprobes_optimization),
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

int __init kprobe_optimizer_init(void)
{
	if (!register_sysctl("debug", kprobe_opt_sysctl))
		pr_warn("cannot register debug.kprobes-optimization\n");
	return 0;
}
#else
int __init kprobe_optimizer_init(void)
{
	return 0;
}
#endif
