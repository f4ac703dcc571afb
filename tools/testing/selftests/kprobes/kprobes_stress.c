// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress: probes come and go on functions that every CPU calls all
 * the time, and no hit is lost.
 *
 * Callers: a thread on each online CPU calls kps_busy() and kps_opt() in a
 * loop, an hrtimer on each CPU calls kps_irq() from its (hard interrupt)
 * callback, and KPS_SLEEPERS threads call kps_sleepy(), which sleeps.  The
 * callers count their calls.
 *
 * Sentinel probes stay registered for the whole run: a kprobe on each
 * target (the one on kps_opt inside the function, on an instruction the
 * arch replaces by a jump if it can), and kretprobes on kps_busy, kps_irq
 * and kps_sleepy (one with enough instances, one with a single instance,
 * which misses).  Churn threads meanwhile register, enable, disable and
 * unregister more kprobes and kretprobes at the same addresses (aggregates,
 * a post handler that takes the optimized site back to a breakpoint), and
 * kprobes_stress.sh toggles debug.kprobes-optimization and flips
 * kprobes/enabled, telling this module when it does (ctl: "flip_begin",
 * then "flip_end 0|1" once the write returned).
 *
 * A controller thread cuts the run into windows: it stops the callers
 * (each acknowledges; synchronize_rcu() waits for the timer callbacks),
 * reads the call and hit counts, lets the callers run, and stops them again.
 * In a window where no flip happened and kprobes were enabled, every
 * sentinel counts exactly the calls (a kretprobe: entries + nmissed ==
 * calls, and returns == entries); in a window where kprobes were globally
 * disabled, or the sentinels were disabled (one window in four), none
 * counts anything; in a window with a flip, none counts more than the calls.
 *
 * debugfs kprobes_stress/: ctl (flips), state ("running (what)" or
 * "done"), result (kselftest TAP, once done).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static unsigned int seconds = 30;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "duration of the run (default 30)");

#define KPS_SLEEPERS	3
#define KPS_TIMER_NS	(2 * NSEC_PER_MSEC)
#define KPS_RESULT_SIZE	8192

/* ---------------------------------------------------------------------------
 * Targets: straight-line functions, so that a probe in them hits once a call.
 * ---------------------------------------------------------------------------
 */
enum { T_BUSY, T_IRQ, T_SLEEP, T_OPT, NR_T };

static const char * const kps_tname[NR_T] = {
	"kps_busy", "kps_irq", "kps_sleepy", "kps_opt",
};

/* Calls of each target, counted by the callers once a call returned. */
static atomic_long_t kps_calls[NR_T];
/* Calls that returned a wrong value. */
static atomic_t kps_bad_result;

typedef int (*kps_fn_t)(int);

static noinline int kps_busy(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	return x + 1;
}

static noinline int kps_irq(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	return x + 2;
}

static noinline int kps_sleepy(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	schedule_timeout_uninterruptible(1);
	return x + 3;
}

/* Several simple instructions: one of them can be replaced by a jump. */
static noinline int kps_opt(int x)
{
	int a, b, c;

	OPTIMIZER_HIDE_VAR(x);
	a = x * 3;
	OPTIMIZER_HIDE_VAR(a);
	b = a ^ 0x55;
	OPTIMIZER_HIDE_VAR(b);
	c = b + 0x1234;
	OPTIMIZER_HIDE_VAR(c);
	a = c - 0x1234;
	OPTIMIZER_HIDE_VAR(a);
	return ((a ^ 0x55) / 3) + 4;
}

static const kps_fn_t kps_fns[NR_T] = { kps_busy, kps_irq, kps_sleepy, kps_opt };
static const int kps_delta[NR_T] = { 1, 2, 3, 4 };

/* Call target @t through a pointer the compiler knows nothing about. */
static noinline void kps_call(int t, int x)
{
	kps_fn_t fn = kps_fns[t];

	OPTIMIZER_HIDE_VAR(fn);
	if (fn(x) != x + kps_delta[t])
		atomic_inc(&kps_bad_result);
	atomic_long_inc(&kps_calls[t]);
}

/* ---------------------------------------------------------------------------
 * Probes and their handlers
 * ---------------------------------------------------------------------------
 */
struct kps_kp {
	struct kprobe kp;
	int t;
	atomic_long_t hits;
	atomic_long_t post;
};

struct kps_rp {
	struct kretprobe rp;
	int t;
	atomic_long_t entry;
	atomic_long_t ret;
};

static int kps_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&container_of(p, struct kps_kp, kp)->hits);
	return 0;
}

static void kps_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_long_inc(&container_of(p, struct kps_kp, kp)->post);
}

static int kps_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		atomic_long_inc(&container_of(rp, struct kps_rp, rp)->entry);
	return 0;
}

static int kps_rp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		atomic_long_inc(&container_of(rp, struct kps_rp, rp)->ret);
	return 0;
}

/* The offset of kps_opt probed by the sentinel and churn probes. */
static unsigned int kps_opt_off;
static bool kps_opt_found;

static void kps_init_kp(struct kps_kp *k, int t, bool post)
{
	memset(&k->kp, 0, sizeof(k->kp));
	k->t = t;
	k->kp.symbol_name = kps_tname[t];
	k->kp.offset = t == T_OPT ? kps_opt_off : 0;
	k->kp.pre_handler = kps_pre;
	if (post)
		k->kp.post_handler = kps_post;
}

static void kps_init_rp(struct kps_rp *r, int t, int maxactive)
{
	memset(&r->rp, 0, sizeof(r->rp));
	r->t = t;
	r->rp.kp.symbol_name = kps_tname[t];
	r->rp.entry_handler = kps_rp_entry;
	r->rp.handler = kps_rp_ret;
	r->rp.maxactive = maxactive;
}

/* Sentinels: a kprobe on each target, kretprobes on three. */
enum { R_BUSY, R_IRQ, R_SLEEP, R_SLEEP1, NR_R };
static const int kps_rp_target[NR_R] = { T_BUSY, T_IRQ, T_SLEEP, T_SLEEP };

static struct kps_kp kps_sk[NR_T];
static struct kps_rp kps_sr[NR_R];

/* Churn probes. */
#define KPS_CHURN_KP	8
#define KPS_CHURN_RP	4
static struct kps_kp kps_ck[KPS_CHURN_KP];
static struct kps_rp kps_cr[KPS_CHURN_RP];
static atomic_long_t kps_churn_ops;
static atomic_t kps_churn_fail;
static int kps_churn_first_err;

static void kps_churn_err(const char *what, int i, int ret)
{
	if (atomic_inc_return(&kps_churn_fail) == 1) {
		kps_churn_first_err = ret;
		pr_err("churn: %s #%d: %d\n", what, i, ret);
	}
}

/*
 * Find an offset of kps_opt whose probe the arch optimizes.  Falls back to
 * the first instruction after the entry that can be probed at all.
 */
static void kps_find_opt_offset(void)
{
	unsigned int off, first = 0;

	for (off = 1; off < 64; off++) {
		struct kprobe kp = {
			.symbol_name = "kps_opt", .offset = off,
			.pre_handler = kps_pre,
		};
		struct kprobe *site;
		bool opt = false;

		if (register_kprobe(&kp))
			continue;
		if (!first && kprobe_on_func_entry(NULL, "kps_opt", off))
			first = off;
		wait_for_kprobe_optimizer();
		preempt_disable();
		site = get_kprobe(kp.addr);
		opt = site && (READ_ONCE(site->flags) & KPROBE_FLAG_OPTIMIZED);
		preempt_enable();
		unregister_kprobe(&kp);
		if (opt && kprobe_on_func_entry(NULL, "kps_opt", off)) {
			kps_opt_off = off;
			kps_opt_found = true;
			return;
		}
	}
	kps_opt_off = first;
}

static bool kps_opt_optimized(void)
{
	struct kprobe *site;
	bool opt;

	preempt_disable();
	site = get_kprobe(kps_sk[T_OPT].kp.addr);
	opt = site && (READ_ONCE(site->flags) & KPROBE_FLAG_OPTIMIZED);
	preempt_enable();
	return opt;
}

/* ---------------------------------------------------------------------------
 * Callers
 * ---------------------------------------------------------------------------
 */

/*
 * kps_gen is odd while the callers are stopped.  A caller reads it at the top
 * of each round and stores it in its ack once the round's calls returned.
 */
static unsigned long kps_gen;
static bool kps_stopping;

struct kps_worker {
	struct task_struct *task;
	struct hrtimer timer;
	unsigned long ack;
	int t;			/* T_BUSY: busy and opt; T_SLEEP: sleepy */
	bool timer_started;
};

static struct kps_worker *kps_workers;
static int kps_nworkers;

static enum hrtimer_restart kps_timer_fn(struct hrtimer *timer)
{
	/* Stopped callers: synchronize_rcu() waits for this callback. */
	if (!(READ_ONCE(kps_gen) & 1))
		kps_call(T_IRQ, 5);
	if (READ_ONCE(kps_stopping))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(KPS_TIMER_NS));
	return HRTIMER_RESTART;
}

static int kps_worker_fn(void *data)
{
	struct kps_worker *w = data;
	unsigned long round = 0;

	if (w->t == T_BUSY) {
		hrtimer_init(&w->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		w->timer.function = kps_timer_fn;
		hrtimer_start(&w->timer, ns_to_ktime(KPS_TIMER_NS),
			      HRTIMER_MODE_REL_PINNED);
		w->timer_started = true;
	}
	while (!kthread_should_stop()) {
		/* Pairs with kps_set_gen(). */
		unsigned long g = smp_load_acquire(&kps_gen);

		if (!(g & 1)) {
			if (w->t == T_BUSY) {
				kps_call(T_BUSY, round & 0xffff);
				kps_call(T_OPT, round & 0xffff);
			} else {
				kps_call(T_SLEEP, round & 0xffff);
			}
			round++;
		}
		/* This round's calls returned: kps_wait_acks() reads it. */
		smp_store_release(&w->ack, g);
		/*
		 * Sleep now and then: the optimizer waits for RCU tasks grace
		 * periods, which need every task to block.
		 */
		if ((g & 1) || !(round % 16))
			schedule_timeout_idle(1);
	}
	return 0;
}

static void kps_set_gen(unsigned long g)
{
	/* Pairs with the callers' smp_load_acquire(&kps_gen). */
	smp_store_release(&kps_gen, g);
}

/* Stop the callers: afterwards no target runs and the counts are final. */
static void kps_quiesce(void)
{
	unsigned long g = kps_gen + 1;
	int i;

	kps_set_gen(g);
	for (i = 0; i < kps_nworkers; i++) {
		/* Pairs with the worker's smp_store_release(ack). */
		while (smp_load_acquire(&kps_workers[i].ack) != g)
			schedule_timeout_idle(1);
	}
	/* Timer callbacks that saw the callers running are over. */
	synchronize_rcu();
}

static void kps_resume(void)
{
	kps_set_gen(kps_gen + 1);
}

/* ---------------------------------------------------------------------------
 * Churn threads
 * ---------------------------------------------------------------------------
 */
static struct task_struct *kps_churn_tasks[2];

static void kps_churn_pause(void)
{
	usleep_range(200, 2000);
}

static int kps_churn_kp_fn(void *data)
{
	struct kprobe *kps[KPS_CHURN_KP];
	int i, ret;

	while (!kthread_should_stop()) {
		u32 r = get_random_u32();
		int n = 2 + r % (KPS_CHURN_KP - 1);

		/* Two on each target, one on kps_opt with a post handler. */
		for (i = 0; i < KPS_CHURN_KP; i++) {
			kps_init_kp(&kps_ck[i], i % NR_T, i == KPS_CHURN_KP - 1);
			kps_ck[i].kp.flags = (r >> (8 + i)) & 1 ?
					     KPROBE_FLAG_DISABLED : 0;
			kps[i] = &kps_ck[i].kp;
		}
		if (r & 1) {
			ret = register_kprobes(kps, n);
			if (ret) {
				kps_churn_err("register_kprobes", n, ret);
				n = 0;
			}
		} else {
			for (i = 0; i < n; i++) {
				ret = register_kprobe(kps[i]);
				if (ret) {
					kps_churn_err("register_kprobe", i, ret);
					n = i;
					break;
				}
			}
		}
		atomic_long_inc(&kps_churn_ops);
		kps_churn_pause();
		for (i = 0; i < n; i++) {
			ret = (r >> (16 + i)) & 1 ? disable_kprobe(kps[i]) :
						     enable_kprobe(kps[i]);
			if (ret)
				kps_churn_err("enable/disable_kprobe", i, ret);
		}
		if (r & 2)
			wait_for_kprobe_optimizer();
		kps_churn_pause();
		if (r & 4) {
			unregister_kprobes(kps, n);
		} else {
			for (i = n - 1; i >= 0; i--)
				unregister_kprobe(kps[i]);
		}
		atomic_long_inc(&kps_churn_ops);
	}
	return 0;
}

static int kps_churn_rp_fn(void *data)
{
	static const int target[KPS_CHURN_RP] = { T_BUSY, T_IRQ, T_SLEEP, T_OPT };
	struct kretprobe *rps[KPS_CHURN_RP];
	int i, ret;

	while (!kthread_should_stop()) {
		u32 r = get_random_u32();
		int n = 1 + r % KPS_CHURN_RP;

		for (i = 0; i < KPS_CHURN_RP; i++) {
			kps_init_rp(&kps_cr[i], target[i], 1 + (r >> (4 + i)) % 2);
			rps[i] = &kps_cr[i].rp;
		}
		ret = register_kretprobes(rps, n);
		if (ret) {
			kps_churn_err("register_kretprobes", n, ret);
			continue;
		}
		atomic_long_inc(&kps_churn_ops);
		kps_churn_pause();
		for (i = 0; i < n; i++) {
			ret = (r >> (12 + i)) & 1 ? disable_kretprobe(rps[i]) :
						     enable_kretprobe(rps[i]);
			if (ret)
				kps_churn_err("enable/disable_kretprobe", i, ret);
		}
		kps_churn_pause();
		if (r & (1 << 20)) {
			unregister_kretprobes(rps, n);
		} else {
			for (i = 0; i < n; i++)
				unregister_kretprobe(rps[i]);
		}
		atomic_long_inc(&kps_churn_ops);
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * Windows
 * ---------------------------------------------------------------------------
 */
static DEFINE_SPINLOCK(kps_flip_lock);
static unsigned long kps_flip_gen;	/* odd while a flip is under way */
static bool kps_flip_armed = true;	/* kprobes/enabled after the last flip */
static unsigned long kps_flips;

struct kps_snap {
	long calls[NR_T];
	long hits[NR_T], kmissed[NR_T];
	long entry[NR_R], ret[NR_R], missed[NR_R];
	unsigned long flip_gen;
	bool armed;
};

static void kps_snap(struct kps_snap *s)
{
	int i;

	for (i = 0; i < NR_T; i++) {
		s->calls[i] = atomic_long_read(&kps_calls[i]);
		s->hits[i] = atomic_long_read(&kps_sk[i].hits);
		s->kmissed[i] = READ_ONCE(kps_sk[i].kp.nmissed);
	}
	for (i = 0; i < NR_R; i++) {
		s->entry[i] = atomic_long_read(&kps_sr[i].entry);
		s->ret[i] = atomic_long_read(&kps_sr[i].ret);
		/* No instance left, or hit while another probe ran. */
		s->missed[i] = READ_ONCE(kps_sr[i].rp.nmissed) +
			       READ_ONCE(kps_sr[i].rp.kp.nmissed);
	}
	spin_lock(&kps_flip_lock);
	s->flip_gen = kps_flip_gen;
	s->armed = kps_flip_armed;
	spin_unlock(&kps_flip_lock);
}

static struct {
	unsigned int windows, exact, zero, mixed, disabled, optimized;
	unsigned int bad_exact, bad_zero, bad_mixed, bad_ret;
	long exact_calls;
} kps_st;

static char *kps_result;
static size_t kps_result_len;
static int kps_tap_n, kps_tap_fail;
static bool kps_done;
/* What the controller is doing, for debugfs state. */
static const char *kps_phase = "starting";

static void kps_set_phase(const char *phase)
{
	WRITE_ONCE(kps_phase, phase);
}

static DEFINE_MUTEX(kps_result_lock);

static __printf(1, 2) void kps_out(const char *fmt, ...)
{
	va_list ap;

	mutex_lock(&kps_result_lock);
	va_start(ap, fmt);
	kps_result_len += vscnprintf(kps_result + kps_result_len,
				     KPS_RESULT_SIZE - kps_result_len, fmt, ap);
	va_end(ap);
	if (kps_result_len < KPS_RESULT_SIZE - 1)
		kps_result[kps_result_len++] = '\n';
	kps_result[kps_result_len] = '\0';
	mutex_unlock(&kps_result_lock);
}

static void kps_tap(bool ok, const char *name)
{
	kps_tap_n++;
	if (!ok)
		kps_tap_fail++;
	kps_out("%s %d - %s", ok ? "ok" : "not ok", kps_tap_n, name);
}

/* Report one mismatch of a window, the first few only. */
static __printf(2, 3) void kps_mismatch(unsigned int *count, const char *fmt,
					...)
{
	struct va_format vaf;
	va_list ap;

	if ((*count)++ >= 5)
		return;
	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	kps_out("# window %u: %pV", kps_st.windows, &vaf);
	pr_err("window %u: %pV\n", kps_st.windows, &vaf);
	va_end(ap);
}

/*
 * A sentinel kprobe missed calls, or counted some while disarmed: also say
 * what its text holds now.  Memory that disagrees with what the calls did
 * (a breakpoint or jump they ran past, or the original bytes where they
 * trapped) points at stale translations of an emulator rather than at the
 * kprobes core.
 */
static __printf(3, 4) void kps_mismatch_text(unsigned int *count, int t,
						const char *fmt, ...)
{
	u8 text[8] = {};
	struct va_format vaf;
	va_list ap;

	if (copy_from_kernel_nofault(text, kps_sk[t].kp.addr, sizeof(text)))
		memset(text, 0, sizeof(text));
	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	kps_mismatch(count, "%pV; text at %pS now %8ph%s", &vaf,
		     kps_sk[t].kp.addr, text,
		     t == T_OPT && kps_opt_optimized() ? " (optimized)" : "");
	va_end(ap);
}

/*
 * Check the window between snapshots @a and @b, the callers stopped at both.
 * kind: 'e' (armed and enabled: exact), 'z' (no hit at all), 'm' (a flip:
 * at most the calls).
 */
static void kps_check_window(const struct kps_snap *a, const struct kps_snap *b,
			     char kind)
{
	int i;

	for (i = 0; i < NR_T; i++) {
		long dc = b->calls[i] - a->calls[i];
		long dh = b->hits[i] - a->hits[i];
		long dm = b->kmissed[i] - a->kmissed[i];

		/*
		 * A hit while another probe runs on the CPU is only counted:
		 * only the interrupt's target can be hit so, the others are
		 * called by threads, never from a handler.
		 */
		if (kind == 'e' && (dh + dm != dc || (i != T_IRQ && dm)))
			kps_mismatch_text(&kps_st.bad_exact, i,
					  "kprobe on %s: %ld hits + %ld missed, %ld calls",
					  kps_tname[i], dh, dm, dc);
		else if (kind == 'z' && (dh || dm))
			kps_mismatch_text(&kps_st.bad_zero, i,
					  "kprobe on %s: %ld hits, %ld missed, none expected",
					  kps_tname[i], dh, dm);
		else if (kind == 'm' && (dh < 0 || dm < 0 || dh + dm > dc))
			kps_mismatch(&kps_st.bad_mixed,
				     "kprobe on %s: %ld hits + %ld missed, %ld calls",
				     kps_tname[i], dh, dm, dc);
	}
	for (i = 0; i < NR_R; i++) {
		int t = kps_rp_target[i];
		long dc = b->calls[t] - a->calls[t];
		long de = b->entry[i] - a->entry[i];
		long dr = b->ret[i] - a->ret[i];
		long dm = b->missed[i] - a->missed[i];

		/* Whatever the window, every instance taken came back. */
		if (dr != de)
			kps_mismatch(&kps_st.bad_ret,
				     "kretprobe #%d on %s: %ld entries, %ld returns",
				     i, kps_tname[t], de, dr);
		if (kind == 'e' && de + dm != dc)
			kps_mismatch(&kps_st.bad_exact,
				     "kretprobe #%d on %s: %ld entries + %ld missed, %ld calls",
				     i, kps_tname[t], de, dm, dc);
		else if (kind == 'z' && (de || dm))
			kps_mismatch(&kps_st.bad_zero,
				     "kretprobe #%d on %s: %ld entries, %ld missed, none expected",
				     i, kps_tname[t], de, dm);
		else if (kind == 'm' && (de < 0 || dm < 0 || de + dm > dc))
			kps_mismatch(&kps_st.bad_mixed,
				     "kretprobe #%d on %s: %ld entries + %ld missed, %ld calls",
				     i, kps_tname[t], de, dm, dc);
	}
	if (kind == 'e') {
		kps_st.exact++;
		kps_st.exact_calls += b->calls[T_BUSY] - a->calls[T_BUSY];
	} else if (kind == 'z') {
		kps_st.zero++;
	} else {
		kps_st.mixed++;
	}
}

static int kps_set_sentinels(bool enable)
{
	int i, ret = 0;

	for (i = 0; i < NR_T; i++)
		ret = ret ?: (enable ? enable_kprobe(&kps_sk[i].kp) :
				       disable_kprobe(&kps_sk[i].kp));
	for (i = 0; i < NR_R; i++)
		ret = ret ?: (enable ? enable_kretprobe(&kps_sr[i].rp) :
				       disable_kretprobe(&kps_sr[i].rp));
	return ret;
}

static int kps_register_sentinels(void)
{
	struct kprobe *kps[NR_T];
	struct kretprobe *rps[NR_R];
	int i, ret;

	for (i = 0; i < NR_T; i++) {
		kps_init_kp(&kps_sk[i], i, false);
		kps[i] = &kps_sk[i].kp;
	}
	for (i = 0; i < NR_R; i++) {
		/* Enough instances for every caller, or a single one. */
		kps_init_rp(&kps_sr[i], kps_rp_target[i],
			    i == R_SLEEP1 ? 1 :
			    i == R_SLEEP ? KPS_SLEEPERS : 2 * num_possible_cpus());
		rps[i] = &kps_sr[i].rp;
	}
	ret = register_kprobes(kps, NR_T);
	if (ret)
		return ret;
	ret = register_kretprobes(rps, NR_R);
	if (ret)
		unregister_kprobes(kps, NR_T);
	return ret;
}

static void kps_unregister_sentinels(void)
{
	struct kprobe *kps[NR_T];
	struct kretprobe *rps[NR_R];
	int i;

	for (i = 0; i < NR_T; i++)
		kps[i] = &kps_sk[i].kp;
	for (i = 0; i < NR_R; i++)
		rps[i] = &kps_sr[i].rp;
	unregister_kprobes(kps, NR_T);
	unregister_kretprobes(rps, NR_R);
}

/* ---------------------------------------------------------------------------
 * The run
 * ---------------------------------------------------------------------------
 */
static struct task_struct *kps_ctl_task;

static int kps_start_workers(void)
{
	int cpu, i, n = 0;

	kps_workers = kcalloc(num_online_cpus() + KPS_SLEEPERS,
			      sizeof(*kps_workers), GFP_KERNEL);
	if (!kps_workers)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct kps_worker *w = &kps_workers[n];

		if (n == num_online_cpus())
			break;
		w->t = T_BUSY;
		w->task = kthread_create_on_cpu(kps_worker_fn, w, cpu,
						"kps_busy/%u");
		if (IS_ERR(w->task))
			return PTR_ERR(w->task);
		get_task_struct(w->task);
		kps_nworkers = ++n;
	}
	for (i = 0; i < KPS_SLEEPERS; i++) {
		struct kps_worker *w = &kps_workers[n];

		w->t = T_SLEEP;
		w->task = kthread_create(kps_worker_fn, w, "kps_sleep/%d", i);
		if (IS_ERR(w->task))
			return PTR_ERR(w->task);
		get_task_struct(w->task);
		kps_nworkers = ++n;
	}
	for (i = 0; i < n; i++)
		wake_up_process(kps_workers[i].task);
	return 0;
}

static void kps_stop_workers(void)
{
	int i;

	WRITE_ONCE(kps_stopping, true);
	for (i = 0; i < kps_nworkers; i++) {
		struct kps_worker *w = &kps_workers[i];

		kthread_stop(w->task);
		if (w->timer_started)
			hrtimer_cancel(&w->timer);
		put_task_struct(w->task);
	}
}

static void kps_report(unsigned long churn_ops)
{
	long total[NR_T], after[NR_T];
	bool ok;
	int i;

	kps_out("# %u s, %d callers on %u CPUs, %lu flips of kprobes/enabled",
		seconds, kps_nworkers, num_online_cpus(), kps_flips);
	kps_out("# %u windows: %u exact (%ld calls of kps_busy), %u with a flip",
		kps_st.windows, kps_st.exact, kps_st.exact_calls, kps_st.mixed);
	kps_out("# %u windows without hits (%u with the sentinels disabled)",
		kps_st.zero, kps_st.disabled);
	for (i = 0; i < NR_T; i++)
		total[i] = atomic_long_read(&kps_calls[i]);
	kps_out("# calls: kps_busy %ld, kps_irq %ld, kps_sleepy %ld, kps_opt %ld",
		total[T_BUSY], total[T_IRQ], total[T_SLEEP], total[T_OPT]);
	kps_out("# kretprobe on kps_sleepy with 1 instance: %d missed of %ld calls",
		kps_sr[R_SLEEP1].rp.nmissed, total[T_SLEEP]);

	kps_tap(!atomic_read(&kps_bad_result), "stress: every call returned its value");
	kps_tap(!atomic_read(&kps_churn_fail) && churn_ops > 0,
		"stress: churn threads' register/enable/disable calls all returned 0");
	if (atomic_read(&kps_churn_fail))
		kps_out("# %d churn failures, first error %d",
			atomic_read(&kps_churn_fail), kps_churn_first_err);
	kps_out("# %lu churn registrations and unregistrations", churn_ops);
	kps_tap(!kps_st.bad_exact && kps_st.exact > 0 && kps_st.exact_calls > 0,
		"stress: enabled and armed, every call was counted by every sentinel");
	kps_tap(!kps_st.bad_zero && kps_st.zero > 0,
		"stress: disabled or disarmed, no sentinel counted a call");
	kps_tap(!kps_st.bad_mixed && kps_st.mixed > 0,
		"stress: across a flip, no sentinel counted more than the calls");
	kps_tap(!kps_st.bad_ret,
		"stress: every kretprobe instance came back (returns == entries)");
	ok = true;
	for (i = 0; i < NR_R; i++) {
		if (kps_sr[i].rp.nmissed && i != R_SLEEP1)
			ok = false;
	}
	kps_tap(ok, "stress: kretprobes with enough instances missed none");
	/*
	 * Only powerpc cannot optimize kps_opt: its detours reach kernel text
	 * only, and this is a module.
	 */
	if (kps_opt_found || (IS_ENABLED(CONFIG_OPTPROBES) && !IS_ENABLED(CONFIG_PPC)))
		kps_tap(kps_opt_found && kps_st.optimized > 0,
			"stress: the probe in kps_opt was optimized in some windows");
	else
		kps_out("ok %d - stress: the probe in kps_opt was optimized in some windows %s",
			++kps_tap_n, "# SKIP no optimizable instruction");
	kps_out("# kps_opt+%#x optimized at %u of %u window ends",
		kps_opt_off, kps_st.optimized, kps_st.windows);

	/* Unregistered: calls no longer count. */
	for (i = 0; i < NR_T; i++)
		after[i] = atomic_long_read(&kps_sk[i].hits);
	for (i = 0; i < NR_T; i++)
		if (i != T_SLEEP)
			kps_call(i, 7);
	ok = true;
	for (i = 0; i < NR_T; i++)
		ok &= atomic_long_read(&kps_sk[i].hits) == after[i];
	kps_tap(ok, "stress: after unregistration no sentinel counts a call");

	/* Churn probes: never more hits than calls. */
	ok = true;
	for (i = 0; i < KPS_CHURN_KP; i++)
		ok &= atomic_long_read(&kps_ck[i].hits) <= total[kps_ck[i].t];
	for (i = 0; i < KPS_CHURN_RP; i++)
		ok &= atomic_long_read(&kps_cr[i].ret) <= atomic_long_read(&kps_cr[i].entry);
	kps_tap(ok, "stress: churn probes counted at most the calls");
	kps_out("1..%d", kps_tap_n);
}

static int kps_ctl_fn(void *data)
{
	unsigned long deadline = jiffies + seconds * HZ;
	struct kps_snap a, b;
	unsigned long churn_ops;
	int i, ret;

	ret = kps_start_workers();
	if (!ret) {
		kps_churn_tasks[0] = kthread_run(kps_churn_kp_fn, NULL, "kps_churn_kp");
		kps_churn_tasks[1] = kthread_run(kps_churn_rp_fn, NULL, "kps_churn_rp");
		for (i = 0; i < 2; i++) {
			if (IS_ERR(kps_churn_tasks[i])) {
				ret = PTR_ERR(kps_churn_tasks[i]);
				kps_churn_tasks[i] = NULL;
			} else {
				get_task_struct(kps_churn_tasks[i]);
			}
		}
	}
	if (ret) {
		kps_tap(false, "stress: start the threads");
		goto out;
	}

	while (time_before(jiffies, deadline) && !kthread_should_stop()) {
		bool disabled = kps_st.windows % 4 == 3;
		char kind;

		kps_set_phase("running: sentinels");
		if (disabled && kps_set_sentinels(false))
			kps_mismatch(&kps_st.bad_zero, "disable the sentinels failed");
		kps_snap(&a);
		kps_resume();
		kps_set_phase("running: window");
		msleep(100 + get_random_u32_below(300));
		kps_set_phase("running: stopping the callers");
		kps_quiesce();
		kps_set_phase("running: checking");
		kps_snap(&b);
		if (disabled)
			kind = 'z';
		else if (a.flip_gen != b.flip_gen || (a.flip_gen & 1))
			kind = 'm';
		else
			kind = a.armed ? 'e' : 'z';
		kps_check_window(&a, &b, kind);
		if (disabled) {
			kps_st.disabled++;
			if (kps_set_sentinels(true))
				kps_mismatch(&kps_st.bad_exact, "enable the sentinels failed");
		}
		if (kps_opt_optimized())
			kps_st.optimized++;
		kps_st.windows++;
	}

out:
	/* The callers are stopped (or never ran); stop everything. */
	kps_set_phase("stopping the churn threads");
	for (i = 0; i < 2; i++) {
		if (kps_churn_tasks[i]) {
			kthread_stop(kps_churn_tasks[i]);
			put_task_struct(kps_churn_tasks[i]);
			kps_churn_tasks[i] = NULL;
		}
	}
	churn_ops = atomic_long_read(&kps_churn_ops);
	kps_set_phase("stopping the callers");
	kps_stop_workers();
	kps_set_phase("unregistering the sentinels");
	kps_unregister_sentinels();
	kps_set_phase("reporting");
	if (!ret)
		kps_report(churn_ops);
	kps_set_phase("done");
	/* Pairs with the readers of state and result. */
	smp_store_release(&kps_done, true);
	/* Wait for kthread_stop() from the module's exit. */
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ);
	return 0;
}

/* ---------------------------------------------------------------------------
 * debugfs
 * ---------------------------------------------------------------------------
 */
static struct dentry *kps_dir;

static ssize_t kps_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[32];
	int ret = count;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);

	spin_lock(&kps_flip_lock);
	if (!strcmp(buf, "flip_begin") && !(kps_flip_gen & 1)) {
		kps_flip_gen++;
	} else if ((!strcmp(buf, "flip_end 0") || !strcmp(buf, "flip_end 1")) &&
		   (kps_flip_gen & 1)) {
		kps_flip_armed = buf[9] == '1';
		kps_flip_gen++;
		kps_flips++;
	} else {
		ret = -EINVAL;
	}
	spin_unlock(&kps_flip_lock);
	return ret;
}

static const struct file_operations kps_ctl_fops = {
	.write = kps_ctl_write,
	.llseek = noop_llseek,
};

static int kps_state_show(struct seq_file *m, void *v)
{
	/* Pairs with kps_ctl_fn()'s smp_store_release(&kps_done). */
	if (smp_load_acquire(&kps_done))
		seq_puts(m, "done\n");
	else
		seq_printf(m, "running (%s)\n", READ_ONCE(kps_phase));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kps_state);

static int kps_result_show(struct seq_file *m, void *v)
{
	/* Pairs with kps_ctl_fn()'s smp_store_release(&kps_done). */
	if (smp_load_acquire(&kps_done)) {
		mutex_lock(&kps_result_lock);
		seq_puts(m, kps_result);
		mutex_unlock(&kps_result_lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kps_result);

static int __init kps_init(void)
{
	int ret;

	kps_result = kzalloc(KPS_RESULT_SIZE, GFP_KERNEL);
	if (!kps_result)
		return -ENOMEM;
	kps_find_opt_offset();
	if (!kps_opt_off) {
		pr_err("no probeable instruction in kps_opt\n");
		ret = -ENOENT;
		goto err;
	}
	/* Callers stopped until the first window starts. */
	kps_gen = 1;
	ret = kps_register_sentinels();
	if (ret) {
		pr_err("registering the sentinel probes failed: %d\n", ret);
		goto err;
	}
	kps_dir = debugfs_create_dir("kprobes_stress", NULL);
	debugfs_create_file("ctl", 0200, kps_dir, NULL, &kps_ctl_fops);
	debugfs_create_file("state", 0400, kps_dir, NULL, &kps_state_fops);
	debugfs_create_file("result", 0400, kps_dir, NULL, &kps_result_fops);

	kps_ctl_task = kthread_run(kps_ctl_fn, NULL, "kps_ctl");
	if (IS_ERR(kps_ctl_task)) {
		ret = PTR_ERR(kps_ctl_task);
		debugfs_remove_recursive(kps_dir);
		kps_unregister_sentinels();
		goto err;
	}
	get_task_struct(kps_ctl_task);
	pr_info("%u s, probe in kps_opt at +%#x (%s)\n", seconds, kps_opt_off,
		kps_opt_found ? "optimizable" : "not optimizable");
	return 0;
err:
	kfree(kps_result);
	return ret;
}

static void __exit kps_exit(void)
{
	/* Unloading before the end waits for the end of the run. */
	kthread_stop(kps_ctl_task);
	put_task_struct(kps_ctl_task);
	debugfs_remove_recursive(kps_dir);
	kfree(kps_workers);
	kfree(kps_result);
}

module_init(kps_init);
module_exit(kps_exit);
MODULE_DESCRIPTION("Stress of kprobes registration against hits on every CPU");
MODULE_LICENSE("GPL");
