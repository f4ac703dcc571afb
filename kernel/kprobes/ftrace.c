// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes on ftrace: a site on an ftrace location (the patched call at a
 * function's entry) is not armed with a breakpoint, which ftrace would
 * overwrite, but by adding its address to the filter of one ftrace_ops
 * whose callback, kprobe_ftrace_handler() (arch code), runs the handlers.
 *
 * The ops is registered while at least one site is armed through it.  Its
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

static struct ftrace_ops kprobe_ftrace_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

/* Sites armed through kprobe_ftrace_ops. */
static unsigned int kprobe_ftrace_armed;

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

/*
 * Collect the addresses of the ftrace sites of @batch that need a change
 * (@arm: not armed but wanted; else armed but not wanted) into an array;
 * *@ips is @one for a single address.  Returns how many.
 */
static int collect_ips(struct list_head *batch, bool arm, unsigned long **ips,
		       unsigned long *one)
{
	struct kprobe_site *s;
	int n = 0, i = 0;

	list_for_each_entry(s, batch, batch) {
		if (kprobe_ftrace(site_kp(s)) &&
		    !!(s->state & SITE_ARMED) != arm &&
		    kprobe_site_wants_armed(s) == arm)
			n++;
	}
	if (!n)
		return 0;

	*ips = one;
	if (n > 1) {
		*ips = kmalloc_array(n, sizeof(**ips), GFP_KERNEL);
		if (!*ips)
			return -ENOMEM;
	}
	list_for_each_entry(s, batch, batch) {
		if (kprobe_ftrace(site_kp(s)) &&
		    !!(s->state & SITE_ARMED) != arm &&
		    kprobe_site_wants_armed(s) == arm)
			(*ips)[i++] = (unsigned long)site_kp(s)->addr;
	}
	return n;
}

static void mark_armed(struct list_head *batch, bool arm)
{
	struct kprobe_site *s;

	list_for_each_entry(s, batch, batch) {
		if (kprobe_ftrace(site_kp(s)) &&
		    !!(s->state & SITE_ARMED) != arm &&
		    kprobe_site_wants_armed(s) == arm) {
			if (arm)
				s->state |= SITE_ARMED;
			else
				s->state &= ~SITE_ARMED;
		}
	}
}

/* Arm the ftrace sites of @batch that want it, in one filter update. */
int kprobe_ftrace_arm_sites(struct list_head *batch)
{
	unsigned long one, *ips;
	int n, ret;

	n = collect_ips(batch, true, &ips, &one);
	if (n <= 0)
		return n;

	ret = ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 0, 0);
	if (ret) {
		pr_debug("cannot set ftrace filter (%d)\n", ret);
		goto out;
	}
	if (!kprobe_ftrace_armed) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (ret) {
			pr_debug("cannot register ftrace ops (%d)\n", ret);
			ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0);
			goto out;
		}
	}
	kprobe_ftrace_armed += n;
	mark_armed(batch, true);
out:
	if (ips != &one)
		kfree(ips);
	return ret;
}

/* Disarm the ftrace sites of @batch that must not stay armed. */
void kprobe_ftrace_disarm_sites(struct list_head *batch)
{
	unsigned long one, *ips;
	struct kprobe_site *s;
	int n;

	n = collect_ips(batch, false, &ips, &one);
	if (!n)
		return;
	if (n < 0) {
		/* No memory for the array: one address at a time. */
		list_for_each_entry(s, batch, batch) {
			if (!kprobe_ftrace(site_kp(s)) ||
			    !(s->state & SITE_ARMED) || kprobe_site_wants_armed(s))
				continue;
			one = (unsigned long)site_kp(s)->addr;
			if (kprobe_ftrace_armed == 1)
				unregister_ftrace_function(&kprobe_ftrace_ops);
			ftrace_set_filter_ips(&kprobe_ftrace_ops, &one, 1, 1, 0);
			kprobe_ftrace_armed--;
			s->state &= ~SITE_ARMED;
		}
		return;
	}

	if (kprobe_ftrace_armed == n)
		unregister_ftrace_function(&kprobe_ftrace_ops);
	ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0);
	kprobe_ftrace_armed -= n;
	mark_armed(batch, false);
	if (ips != &one)
		kfree(ips);
}
