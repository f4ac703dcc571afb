// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes on ftrace: a site on an ftrace location (the patched call at a
 * function's entry) is not armed with a breakpoint, which ftrace would
 * overwrite, but by adding its address to the filter of an ftrace_ops whose
 * callback, kprobe_ftrace_handler() (arch code), runs the handlers.
 *
 * An ops is registered while at least one site is armed through it.  Its
 * filter must never be empty while it is registered, since an empty filter
 * means every function: the first address is added before registering, and
 * the ops is unregistered before the last one is removed.
 *
 * The ops does not claim FTRACE_OPS_FL_IPMODIFY, which would keep kprobes
 * and livepatch (or BPF trampolines that modify the return) off the same
 * function: the arch callback gives regs' ip back as ftrace gave it, after
 * the post handlers too; only a pre handler that redirects execution
 * (fail_function, bpf_override_return) changes it, as mainline lets its
 * probes without post handler do.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * An ftrace_ops that sites are armed through, and how many are.
 * kprobe_ftrace_regs saves a full struct pt_regs for the handlers.  With
 * __ARCH_WANT_KRETPROBE_FTRACE, a site whose members are all kretprobes
 * without entry handler needs none: it goes through kprobe_ftrace_lean,
 * whose callback only takes instances and replaces the return address
 * (kretprobe_ftrace_handler() in kretprobe.c).
 */
struct kprobe_ftrace_hook {
	struct ftrace_ops ops;
	unsigned int armed;
	/* The kprobe_site::state bit of the sites armed through it. */
	unsigned int bit;
};

static struct kprobe_ftrace_hook kprobe_ftrace_regs __read_mostly = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS,
	},
	.bit = SITE_FTRACE_REGS,
};

#ifdef KPROBES_FTRACE_LEAN
static struct kprobe_ftrace_hook kprobe_ftrace_lean __read_mostly = {
	.ops = {
		.func = kretprobe_ftrace_handler,
	},
	.bit = SITE_FTRACE_LEAN,
};

static struct kprobe_ftrace_hook *const kprobe_ftrace_hooks[] = {
	&kprobe_ftrace_regs, &kprobe_ftrace_lean,
};

/*
 * kprobe_ftrace_lean if every member of @kp, enabled or not, is a kretprobe
 * without entry handler, else NULL.
 */
static struct kprobe_ftrace_hook *site_lean_hook(struct kprobe *kp)
{
	struct kprobe *p;

	list_for_each_entry(p, &kp->list, list) {
		if (!kretprobe_ftrace_member(p))
			return NULL;
	}
	return &kprobe_ftrace_lean;
}
#else
static struct kprobe_ftrace_hook *const kprobe_ftrace_hooks[] = {
	&kprobe_ftrace_regs,
};

static struct kprobe_ftrace_hook *site_lean_hook(struct kprobe *kp)
{
	return NULL;
}
#endif

/* ftrace_kill() was called: ftrace cannot be trusted any more. */
static bool kprobe_ftrace_disabled;

/**
 * kprobe_ftrace_kill() - ftrace is dead, refuse new probes on it
 *
 * Called by ftrace_kill(), maybe in atomic context.
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_disabled, true);
}

/*
 * A probe at @addr: on an ftrace location it must go through ftrace; inside
 * the instruction ftrace patches it must not go at all.
 */
int kprobe_ftrace_check(unsigned long addr, bool *on_ftrace)
{
	unsigned long loc = ftrace_location_range(addr, addr);

	*on_ftrace = false;
	if (!loc)
		return 0;
	if (loc != addr)
		return -EILSEQ;
	if (READ_ONCE(kprobe_ftrace_disabled))
		return -ENODEV;
	*on_ftrace = true;
	return 0;
}

int kprobe_ftrace_prepare(struct kprobe *kp)
{
	return arch_prepare_kprobe_ftrace(kp);
}

/* The hook that ftrace site @s wants to be armed through, or NULL. */
static struct kprobe_ftrace_hook *site_wanted_hook(struct kprobe_site *s)
{
	struct kprobe_ftrace_hook *h;

	if (!kprobe_site_wants_armed(s))
		return NULL;
	h = site_lean_hook(site_kp(s));
	return h ?: &kprobe_ftrace_regs;
}

/*
 * Whether ftrace site @s must be added to @h (@arm) or removed from it.  A
 * site changing hooks is added to the new one before it leaves the old one
 * (see kprobe_batch_apply()), so that no hit is lost meanwhile; it stays on
 * the old one if ftrace refused the new one.  While it is on both, a hit
 * may run both callbacks (see mark_moving()).
 */
static bool site_needs_change(struct kprobe_site *s,
			      struct kprobe_ftrace_hook *h, bool arm)
{
	struct kprobe_ftrace_hook *want;

	if (!kprobe_ftrace(site_kp(s)) || !!(s->state & h->bit) == arm)
		return false;
	want = site_wanted_hook(s);
	if (arm)
		return want == h;
	return want != h && (!want || (s->state & want->bit));
}

/*
 * Collect the addresses of the ftrace sites of @batch to add to @h (@arm) or
 * remove from it into an array; *@ips is @one for a single address.  Returns
 * how many.
 */
static int collect_ips(struct list_head *batch, struct kprobe_ftrace_hook *h,
		       bool arm, unsigned long **ips, unsigned long *one)
{
	struct kprobe_site *s;
	int n = 0, i = 0;

	list_for_each_entry(s, batch, batch)
		n += site_needs_change(s, h, arm);
	if (!n)
		return 0;

	*ips = one;
	if (n > 1) {
		*ips = kmalloc_array(n, sizeof(**ips), GFP_KERNEL);
		if (!*ips)
			return -ENOMEM;
	}
	list_for_each_entry(s, batch, batch) {
		if (site_needs_change(s, h, arm))
			(*ips)[i++] = (unsigned long)site_kp(s)->addr;
	}
	return n;
}

static void site_set_hook(struct kprobe_site *s, struct kprobe_ftrace_hook *h,
			  bool on)
{
	if (on)
		s->state |= h->bit;
	else
		s->state &= ~h->bit;
	if (s->state & (SITE_FTRACE_REGS | SITE_FTRACE_LEAN))
		s->state |= SITE_ARMED;
	else
		s->state &= ~SITE_ARMED;
}

static void mark_armed(struct list_head *batch, struct kprobe_ftrace_hook *h,
		       bool arm)
{
	struct kprobe_site *s;

	list_for_each_entry(s, batch, batch) {
		if (site_needs_change(s, h, arm))
			site_set_hook(s, h, arm);
	}
}

/* Add to @h the ftrace sites of @batch that want it, in one filter update. */
static int hook_arm_sites(struct kprobe_ftrace_hook *h,
			  struct list_head *batch)
{
	unsigned long one, *ips;
	int n, ret;

	n = collect_ips(batch, h, true, &ips, &one);
	if (n <= 0)
		return n;

	ret = ftrace_set_filter_ips(&h->ops, ips, n, 0, 0);
	if (ret) {
		pr_debug("cannot set ftrace filter (%d)\n", ret);
		goto out;
	}
	if (!h->armed) {
		ret = register_ftrace_function(&h->ops);
		if (ret) {
			pr_debug("cannot register ftrace ops (%d)\n", ret);
			ftrace_set_filter_ips(&h->ops, ips, n, 1, 0);
			goto out;
		}
	}
	h->armed += n;
	mark_armed(batch, h, true);
out:
	if (ips != &one)
		kfree(ips);
	return ret;
}

/* Remove from @h the ftrace sites of @batch that must leave it. */
static void hook_disarm_sites(struct kprobe_ftrace_hook *h,
			      struct list_head *batch)
{
	unsigned long one, *ips;
	struct kprobe_site *s;
	int n;

	n = collect_ips(batch, h, false, &ips, &one);
	if (!n)
		return;
	if (n < 0) {
		/* No memory for the array: one address at a time. */
		list_for_each_entry(s, batch, batch) {
			if (!site_needs_change(s, h, false))
				continue;
			one = (unsigned long)site_kp(s)->addr;
			if (h->armed == 1)
				unregister_ftrace_function(&h->ops);
			ftrace_set_filter_ips(&h->ops, &one, 1, 1, 0);
			h->armed--;
			site_set_hook(s, h, false);
		}
		return;
	}

	if (h->armed == n)
		unregister_ftrace_function(&h->ops);
	ftrace_set_filter_ips(&h->ops, ips, n, 1, 0);
	h->armed -= n;
	mark_armed(batch, h, false);
	if (ips != &one)
		kfree(ips);
}

#ifdef KPROBES_FTRACE_LEAN
/*
 * A site about to move from one hook to the other: while it is on both, a
 * call may go through both callbacks, and the kretprobes they both serve
 * must check that the first did not take the return already (see
 * kretprobe_taken()).
 */
static void site_set_moving(struct kprobe_site *s, bool moving)
{
	struct kprobe *p;

	list_for_each_entry(p, &site_kp(s)->list, list) {
		if (!kretprobe_ftrace_member(p))
			continue;
		if (moving)
			WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_FTRACE_MOVING);
		else
			WRITE_ONCE(p->flags,
				   p->flags & ~KPROBE_FLAG_FTRACE_MOVING);
	}
	if (moving)
		s->state |= SITE_FTRACE_MOVING;
	else
		s->state &= ~SITE_FTRACE_MOVING;
}

static void mark_moving(struct list_head *batch)
{
	struct kprobe_ftrace_hook *want;
	struct kprobe_site *s;

	list_for_each_entry(s, batch, batch) {
		if (!kprobe_ftrace(site_kp(s)) ||
		    !(s->state & (SITE_FTRACE_REGS | SITE_FTRACE_LEAN)))
			continue;
		want = site_wanted_hook(s);
		if (want && !(s->state & want->bit))
			site_set_moving(s, true);
	}
}

/*
 * The sites that moved are on one hook again (or stayed on the old one):
 * once no CPU is in ftrace's list function between their two callbacks any
 * more (it runs with preemption disabled), the kretprobes stop checking.
 */
static void unmark_moving(struct list_head *batch)
{
	struct kprobe_site *s;
	bool moved = false;

	list_for_each_entry(s, batch, batch)
		moved |= !!(s->state & SITE_FTRACE_MOVING);
	if (!moved)
		return;
	synchronize_rcu();
	list_for_each_entry(s, batch, batch) {
		if (s->state & SITE_FTRACE_MOVING)
			site_set_moving(s, false);
	}
}
#else
static void mark_moving(struct list_head *batch) { }
static void unmark_moving(struct list_head *batch) { }
#endif

#if defined(KPROBES_FTRACE_LEAN) && IS_ENABLED(CONFIG_KPROBES_KUNIT_TEST)
/* See internal.h: for the test of a call through both callbacks. */
void (*kprobe_ftrace_both_hook)(kprobe_opcode_t *addr);

static void call_both_hook(struct list_head *batch)
{
	const unsigned int both = SITE_FTRACE_REGS | SITE_FTRACE_LEAN;
	void (*hook)(kprobe_opcode_t *addr) = READ_ONCE(kprobe_ftrace_both_hook);
	struct kprobe_site *s;

	if (!hook)
		return;
	list_for_each_entry(s, batch, batch) {
		if ((s->state & both) == both)
			hook(site_kp(s)->addr);
	}
}
#else
static void call_both_hook(struct list_head *batch) { }
#endif

/*
 * Arm the ftrace sites of @batch that want it, through the hook each wants:
 * one filter update per hook.  Returns 0 or the first error; the sites of a
 * hook that failed stay as they were.
 */
int kprobe_ftrace_arm_sites(struct list_head *batch)
{
	int i, ret = 0;

	mark_moving(batch);
	for (i = 0; i < ARRAY_SIZE(kprobe_ftrace_hooks); i++) {
		int err = hook_arm_sites(kprobe_ftrace_hooks[i], batch);

		if (!ret)
			ret = err;
	}
	return ret;
}

/*
 * Disarm the ftrace sites of @batch from the hooks they must leave; called
 * after kprobe_ftrace_arm_sites().
 */
void kprobe_ftrace_disarm_sites(struct list_head *batch)
{
	int i;

	call_both_hook(batch);
	for (i = 0; i < ARRAY_SIZE(kprobe_ftrace_hooks); i++)
		hook_disarm_sites(kprobe_ftrace_hooks[i], batch);
	unmark_moving(batch);
}
