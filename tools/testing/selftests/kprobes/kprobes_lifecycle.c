// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_lifecycle: probes whose text, owner or task goes away, driven by
 * kprobes_lifecycle.sh through debugfs kprobes_lifecycle/ctl.  Each command
 * written there checks what it expects and makes the write fail (-EBADMSG,
 * with the details in the kernel log) if something else happened.
 *
 *   reg         kprobe and kretprobe on lct_func (module kprobes_lc_target)
 *   wait_hits   both count new calls of lct_func
 *   gone        lct_func's module was unloaded: both probes are gone,
 *               enable/disable give -EINVAL
 *   rereg       unregister the gone probes and register them again
 *   coming      arm two module notifiers, one before kprobes' own and one
 *               after, that try a probe on lct_func when kprobes_lc_target
 *               is coming
 *   coming_check  the one before was refused (-ENOENT: the module's
 *               blacklist is not there yet), the one after accepted
 *   init_text   a probe on this module's init function, freed after init,
 *               is refused (-EINVAL by address, -ENOENT by name); powerpc64
 *               keeps module init code, and the probe is accepted there
 *   init_blacklist  a NOKPROBE_SYMBOL() in this module's init text was
 *               blacklisted during init and is not any more (powerpc64:
 *               still is)
 *   sleep_rp    kretprobe on lct_sleep; returns once a call entered it, so
 *               that unloading this module unregisters it while the call
 *               sleeps
 *   exitpath    kretprobe (3 instances) on a recursive function whose
 *               innermost call ends its thread: 3 entries, no return, and
 *               the instances come back to the pool once the task is freed
 *   recurse     kretprobe with 5 instances on a recursion of depth 8:
 *               exactly 3 missed per call, 5 returns
 *   maxactive   kretprobe with 2 instances, 5 threads asleep in the
 *               function: exactly 2 entries and 3 missed, 2 returns
 *
 * With autoreg=1 the module registers the probes on lct_func at load time
 * and unregisters them at unload, for unloading it while they fire.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static bool autoreg;
module_param(autoreg, bool, 0444);
MODULE_PARM_DESC(autoreg, "register the probes on lct_func at load time");

#define LCP_POLL_MS	10
#define LCP_POLL_MAX	2000	/* polls of LCP_POLL_MS: 20 s */

static int lcp_fails;

#define lcp_expect(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			pr_err("%s: " fmt "\n", __func__, ##__VA_ARGS__); \
			lcp_fails++;					\
		}							\
	} while (0)

/* ---------------------------------------------------------------------------
 * Probes and handlers
 * ---------------------------------------------------------------------------
 */
struct lcp_kp {
	struct kprobe kp;
	atomic_long_t hits;
};

struct lcp_rp {
	struct kretprobe rp;
	atomic_long_t entry, ret;
};

static int lcp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&container_of(p, struct lcp_kp, kp)->hits);
	return 0;
}

static int lcp_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		atomic_long_inc(&container_of(rp, struct lcp_rp, rp)->entry);
	return 0;
}

static int lcp_rp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		atomic_long_inc(&container_of(rp, struct lcp_rp, rp)->ret);
	return 0;
}

static void lcp_init_rp(struct lcp_rp *r, const char *sym, int maxactive)
{
	memset(&r->rp, 0, sizeof(r->rp));
	atomic_long_set(&r->entry, 0);
	atomic_long_set(&r->ret, 0);
	r->rp.kp.symbol_name = sym;
	r->rp.entry_handler = lcp_rp_entry;
	r->rp.handler = lcp_rp_ret;
	r->rp.maxactive = maxactive;
}

static long lcp_missed(struct lcp_rp *r)
{
	return READ_ONCE(r->rp.nmissed) + READ_ONCE(r->rp.kp.nmissed);
}

/* Poll @cond every LCP_POLL_MS, up to LCP_POLL_MAX times; its last value. */
#define lcp_poll(cond)							\
	({								\
		int __n = 0;						\
		bool __ok;						\
									\
		while (!(__ok = (cond)) && __n++ < LCP_POLL_MAX)	\
			msleep(LCP_POLL_MS);				\
		__ok;							\
	})

/* ---------------------------------------------------------------------------
 * Probes on the target module
 * ---------------------------------------------------------------------------
 */
static struct lcp_kp lcp_func_kp;
static struct lcp_rp lcp_func_rp;
static long lcp_mark_hits, lcp_mark_ret;
static struct lcp_rp lcp_sleep_rp;

static int lcp_reg(void)
{
	int ret;

	memset(&lcp_func_kp.kp, 0, sizeof(lcp_func_kp.kp));
	lcp_func_kp.kp.symbol_name = "lct_func";
	lcp_func_kp.kp.pre_handler = lcp_pre;
	lcp_init_rp(&lcp_func_rp, "lct_func", 2 * num_possible_cpus());
	ret = register_kprobe(&lcp_func_kp.kp);
	if (ret)
		return ret;
	ret = register_kretprobe(&lcp_func_rp.rp);
	if (ret) {
		unregister_kprobe(&lcp_func_kp.kp);
		return ret;
	}
	lcp_mark_hits = atomic_long_read(&lcp_func_kp.hits);
	lcp_mark_ret = atomic_long_read(&lcp_func_rp.ret);
	return 0;
}

static void lcp_unreg(void)
{
	unregister_kretprobe(&lcp_func_rp.rp);
	unregister_kprobe(&lcp_func_kp.kp);
}

static int lcp_wait_hits(void)
{
	bool hit = lcp_poll(atomic_long_read(&lcp_func_kp.hits) > lcp_mark_hits &&
			    atomic_long_read(&lcp_func_rp.ret) > lcp_mark_ret);

	lcp_expect(hit, "no new hit of lct_func: kprobe %ld (was %ld), kretprobe %ld (was %ld)",
		   atomic_long_read(&lcp_func_kp.hits), lcp_mark_hits,
		   atomic_long_read(&lcp_func_rp.ret), lcp_mark_ret);
	lcp_mark_hits = atomic_long_read(&lcp_func_kp.hits);
	lcp_mark_ret = atomic_long_read(&lcp_func_rp.ret);
	return 0;
}

static int lcp_gone(void)
{
	long hits = atomic_long_read(&lcp_func_kp.hits);
	int ret;

	lcp_expect(kprobe_gone(&lcp_func_kp.kp), "the kprobe is not gone");
	lcp_expect(kprobe_gone(&lcp_func_rp.rp.kp), "the kretprobe is not gone");
	ret = enable_kprobe(&lcp_func_kp.kp);
	lcp_expect(ret == -EINVAL, "enable_kprobe() of a gone probe: %d", ret);
	ret = disable_kprobe(&lcp_func_kp.kp);
	lcp_expect(ret == -EINVAL, "disable_kprobe() of a gone probe: %d", ret);
	ret = enable_kretprobe(&lcp_func_rp.rp);
	lcp_expect(ret == -EINVAL, "enable_kretprobe() of a gone probe: %d", ret);
	ret = disable_kretprobe(&lcp_func_rp.rp);
	lcp_expect(ret == -EINVAL, "disable_kretprobe() of a gone probe: %d", ret);
	lcp_expect(kprobe_gone(&lcp_func_kp.kp) && kprobe_gone(&lcp_func_rp.rp.kp),
		   "enable made a gone probe live");
	/* No text, no hit. */
	msleep(50);
	lcp_expect(atomic_long_read(&lcp_func_kp.hits) == hits,
		   "a gone probe was hit");
	return 0;
}

static int lcp_rereg(void)
{
	lcp_unreg();
	lcp_expect(!lcp_func_kp.kp.addr && !lcp_func_rp.rp.kp.addr,
		   "unregistration kept the address of a probe by symbol");
	return lcp_reg();
}

/*
 * Probes tried from module notifiers while kprobes_lc_target is coming, one
 * called before kprobes' notifier (priority 3), one after trace_kprobe's (2).
 */
static int lcp_coming_early, lcp_coming_late;
static bool lcp_coming_armed;

static int lcp_coming_try(void)
{
	struct lcp_kp k = {
		.kp.symbol_name = "kprobes_lc_target:lct_func",
		.kp.pre_handler = lcp_pre,
	};
	int ret = register_kprobe(&k.kp);

	if (!ret)
		unregister_kprobe(&k.kp);
	return ret;
}

static int lcp_coming_cb(struct notifier_block *nb, unsigned long val,
			 void *data, int *result)
{
	struct module *mod = data;

	if (val == MODULE_STATE_COMING && !strcmp(mod->name, "kprobes_lc_target"))
		*result = lcp_coming_try();
	return NOTIFY_DONE;
}

static int lcp_coming_early_cb(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	return lcp_coming_cb(nb, val, data, &lcp_coming_early);
}

static int lcp_coming_late_cb(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	return lcp_coming_cb(nb, val, data, &lcp_coming_late);
}

static struct notifier_block lcp_early_nb = {
	.notifier_call = lcp_coming_early_cb,
	.priority = 10,
};

static struct notifier_block lcp_late_nb = {
	.notifier_call = lcp_coming_late_cb,
	.priority = 1,
};

static void lcp_coming_disarm(void)
{
	if (!lcp_coming_armed)
		return;
	unregister_module_notifier(&lcp_early_nb);
	unregister_module_notifier(&lcp_late_nb);
	lcp_coming_armed = false;
}

static int lcp_coming(void)
{
	int ret;

	lcp_coming_disarm();
	/* Not a register_kprobe() result: "not tried". */
	lcp_coming_early = 1;
	lcp_coming_late = 1;
	ret = register_module_notifier(&lcp_early_nb);
	if (ret)
		return ret;
	ret = register_module_notifier(&lcp_late_nb);
	if (ret) {
		unregister_module_notifier(&lcp_early_nb);
		return ret;
	}
	lcp_coming_armed = true;
	return 0;
}

static int lcp_coming_check(void)
{
	lcp_coming_disarm();
	lcp_expect(lcp_coming_early == -ENOENT,
		   "probe on a coming module before kprobes knew it: %d",
		   lcp_coming_early);
	lcp_expect(lcp_coming_late == 0,
		   "probe on a coming module kprobes knows: %d",
		   lcp_coming_late);
	return 0;
}

/* Registered at load time: the address of this module's init function. */
static unsigned long lcp_init_addr;

static int lcp_init_text(void)
{
	struct kprobe by_addr = {
		.addr = (kprobe_opcode_t *)lcp_init_addr, .pre_handler = lcp_pre,
	};
	struct kprobe by_name = {
		.symbol_name = "lcp_init", .pre_handler = lcp_pre,
	};
	int ret;

	/*
	 * powerpc64 keeps a module's .init sections with its core text
	 * (module_init_section() is false there): the code stays, so does
	 * its symbol, and probing it is fine.
	 */
	bool kept = IS_ENABLED(CONFIG_PPC64);

	ret = register_kprobe(&by_addr);
	lcp_expect(ret == (kept ? 0 : -EINVAL),
		   "probe on init text after init, by address: %d", ret);
	if (!ret)
		unregister_kprobe(&by_addr);
	ret = register_kprobe(&by_name);
	lcp_expect(ret == (kept ? 0 : -ENOENT),
		   "probe on init text after init, by name: %d", ret);
	if (!ret)
		unregister_kprobe(&by_name);
	return 0;
}

/*
 * A NOKPROBE_SYMBOL() in init text is blacklisted while the module inits,
 * and forgotten once it is live: that text is freed, and other text may
 * take its place.  powerpc64 keeps it (see lcp_init_text()).
 */
static noinline int __init lcp_init_nokprobe(int x)
{
	return x + 1;
}

NOKPROBE_SYMBOL(lcp_init_nokprobe);

static unsigned long lcp_nokprobe_addr;
static bool lcp_nokprobe_listed;

static int lcp_init_blacklist(void)
{
	bool kept = IS_ENABLED(CONFIG_PPC64);
	bool listed = within_kprobe_blacklist(lcp_nokprobe_addr);

	lcp_expect(lcp_nokprobe_listed,
		   "init function not blacklisted during init");
	lcp_expect(listed == kept,
		   "init function blacklisted after init: %d", listed);
	return 0;
}

static int lcp_sleep_rp_reg(void)
{
	int ret;

	lcp_init_rp(&lcp_sleep_rp, "lct_sleep", 4);
	ret = register_kretprobe(&lcp_sleep_rp.rp);
	if (ret)
		return ret;
	return 0;
}

static int lcp_sleep_wait(void)
{
	bool in = lcp_poll(atomic_long_read(&lcp_sleep_rp.entry) > 0);

	lcp_expect(in, "no call entered lct_sleep");
	lcp_expect(!atomic_long_read(&lcp_sleep_rp.ret),
		   "lct_sleep returned already");
	return 0;
}

/* ---------------------------------------------------------------------------
 * Paths that never return: a recursion that ends its thread
 * ---------------------------------------------------------------------------
 */
static DECLARE_COMPLETION(lcp_exit_done);
static noinline int lcp_exitpath(int depth, int do_exit);
typedef int (*lcp_fn2_t)(int, int);

static int lcp_call_exitpath(int depth, int do_exit)
{
	lcp_fn2_t fn = lcp_exitpath;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(depth, do_exit);
}

static noinline int lcp_exitpath(int depth, int do_exit)
{
	OPTIMIZER_HIDE_VAR(depth);
	if (depth > 1)
		return lcp_call_exitpath(depth - 1, do_exit) + 1;
	if (do_exit)
		kthread_complete_and_exit(&lcp_exit_done, 0);
	return 0;
}

static int lcp_exit_thread(void *data)
{
	lcp_call_exitpath(3, 1);
	return 0;	/* not reached */
}

static int lcp_exitpath_test(void)
{
	struct lcp_rp *r;
	int round, ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	lcp_init_rp(r, "lcp_exitpath", 3);
	ret = register_kretprobe(&r->rp);
	if (ret) {
		kfree(r);
		return ret;
	}
	for (round = 0; round < 5; round++) {
		long e0 = atomic_long_read(&r->entry), m0 = lcp_missed(r);
		long r0 = atomic_long_read(&r->ret);
		struct task_struct *t;
		bool back;

		reinit_completion(&lcp_exit_done);
		t = kthread_run(lcp_exit_thread, NULL, "lcp_exit");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		wait_for_completion(&lcp_exit_done);
		lcp_expect(atomic_long_read(&r->entry) - e0 == 3 && lcp_missed(r) == m0,
			   "round %d: %ld entries, %ld missed, expected 3 and 0", round,
			   atomic_long_read(&r->entry) - e0, lcp_missed(r) - m0);
		lcp_expect(atomic_long_read(&r->ret) == r0,
			   "round %d: a call that never returns returned", round);
		/*
		 * The instances come back when the dead task is freed (after
		 * an RCU grace period): three nested calls get all three.
		 */
		back = lcp_poll(({
			long e = atomic_long_read(&r->entry), m = lcp_missed(r);
			bool all;

			rcu_barrier();
			lcp_call_exitpath(3, 0);
			all = atomic_long_read(&r->entry) - e == 3 && lcp_missed(r) == m;
			all; }));
		lcp_expect(back, "round %d: the instances of the dead task never came back",
			   round);
	}
	unregister_kretprobe(&r->rp);
	kfree(r);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Recursion beyond maxactive
 * ---------------------------------------------------------------------------
 */
static noinline int lcp_recurse(int depth);

static int lcp_call_recurse(int depth)
{
	int (*fn)(int) = lcp_recurse;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(depth);
}

static noinline int lcp_recurse(int depth)
{
	OPTIMIZER_HIDE_VAR(depth);
	if (depth <= 1)
		return 100;
	return lcp_call_recurse(depth - 1) + 1;
}

static int lcp_recurse_test(void)
{
	struct lcp_rp *r;
	int i, ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	lcp_init_rp(r, "lcp_recurse", 5);
	ret = register_kretprobe(&r->rp);
	if (ret) {
		kfree(r);
		return ret;
	}
	for (i = 1; i <= 10; i++) {
		ret = lcp_call_recurse(8);
		lcp_expect(ret == 107, "call %d returned %d", i, ret);
		lcp_expect(atomic_long_read(&r->entry) == 5 * i &&
			   atomic_long_read(&r->ret) == 5 * i && lcp_missed(r) == 3 * i,
			   "call %d: %ld entries, %ld returns, %ld missed", i,
			   atomic_long_read(&r->entry), atomic_long_read(&r->ret),
			   lcp_missed(r));
	}
	unregister_kretprobe(&r->rp);
	kfree(r);
	return 0;
}

/* ---------------------------------------------------------------------------
 * More sleeping callers than instances
 * ---------------------------------------------------------------------------
 */
#define LCP_BLOCKERS	5
static DECLARE_COMPLETION(lcp_block_go);
static atomic_t lcp_blocked, lcp_block_ok, lcp_block_done;

static noinline int lcp_block(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	atomic_inc(&lcp_blocked);
	wait_for_completion(&lcp_block_go);
	return x + 1;
}

static int lcp_block_thread(void *data)
{
	int (*fn)(int) = lcp_block;
	int x = (long)data;

	OPTIMIZER_HIDE_VAR(fn);
	if (fn(x) == x + 1)
		atomic_inc(&lcp_block_ok);
	atomic_inc(&lcp_block_done);
	return 0;
}

static int lcp_maxactive_test(void)
{
	struct task_struct *t[LCP_BLOCKERS];
	struct lcp_rp *r;
	int i, n, ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	lcp_init_rp(r, "lcp_block", 2);
	ret = register_kretprobe(&r->rp);
	if (ret) {
		kfree(r);
		return ret;
	}
	reinit_completion(&lcp_block_go);
	atomic_set(&lcp_blocked, 0);
	atomic_set(&lcp_block_ok, 0);
	atomic_set(&lcp_block_done, 0);
	for (n = 0; n < LCP_BLOCKERS; n++) {
		t[n] = kthread_run(lcp_block_thread, (void *)(long)n, "lcp_block/%d", n);
		if (IS_ERR(t[n])) {
			ret = PTR_ERR(t[n]);
			break;
		}
		get_task_struct(t[n]);
	}
	lcp_expect(lcp_poll(atomic_read(&lcp_blocked) == n),
		   "%d of %d threads entered", atomic_read(&lcp_blocked), n);
	lcp_expect(atomic_long_read(&r->entry) == 2 && lcp_missed(r) == n - 2,
		   "%d asleep: %ld entries, %ld missed, expected 2 and %d", n,
		   atomic_long_read(&r->entry), lcp_missed(r), n - 2);
	complete_all(&lcp_block_go);
	for (i = 0; i < n; i++) {
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
	lcp_expect(atomic_read(&lcp_block_done) == n && atomic_read(&lcp_block_ok) == n,
		   "%d threads done, %d right values, of %d", atomic_read(&lcp_block_done),
		   atomic_read(&lcp_block_ok), n);
	lcp_expect(atomic_long_read(&r->ret) == 2 && lcp_missed(r) == n - 2,
		   "%ld returns, %ld missed, expected 2 and %d",
		   atomic_long_read(&r->ret), lcp_missed(r), n - 2);
	unregister_kretprobe(&r->rp);
	kfree(r);
	return ret;
}

/* ---------------------------------------------------------------------------
 * debugfs
 * ---------------------------------------------------------------------------
 */
static const struct {
	const char *name;
	int (*fn)(void);
} lcp_cmds[] = {
	{ "reg", lcp_reg },
	{ "wait_hits", lcp_wait_hits },
	{ "gone", lcp_gone },
	{ "rereg", lcp_rereg },
	{ "coming", lcp_coming },
	{ "coming_check", lcp_coming_check },
	{ "init_text", lcp_init_text },
	{ "init_blacklist", lcp_init_blacklist },
	{ "sleep_rp", lcp_sleep_rp_reg },
	{ "sleep_wait", lcp_sleep_wait },
	{ "exitpath", lcp_exitpath_test },
	{ "recurse", lcp_recurse_test },
	{ "maxactive", lcp_maxactive_test },
};

static DEFINE_MUTEX(lcp_lock);

static ssize_t lcp_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[32];
	int i, ret = -EINVAL;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);

	mutex_lock(&lcp_lock);
	for (i = 0; i < ARRAY_SIZE(lcp_cmds); i++) {
		if (strcmp(buf, lcp_cmds[i].name))
			continue;
		lcp_fails = 0;
		ret = lcp_cmds[i].fn();
		if (ret)
			pr_err("%s: %d\n", buf, ret);
		else if (lcp_fails)
			ret = -EBADMSG;
		break;
	}
	mutex_unlock(&lcp_lock);
	return ret ?: count;
}

static const struct file_operations lcp_ctl_fops = {
	.write = lcp_ctl_write,
	.llseek = noop_llseek,
};

static struct dentry *lcp_dir;

static int __init lcp_init(void)
{
	int ret;

	lcp_init_addr = (unsigned long)lcp_init;
	lcp_nokprobe_addr = (unsigned long)lcp_init_nokprobe;
	lcp_nokprobe_listed = within_kprobe_blacklist(lcp_nokprobe_addr);
	if (autoreg) {
		ret = lcp_reg();
		if (ret) {
			pr_err("probes on lct_func: %d\n", ret);
			return ret;
		}
	}
	lcp_dir = debugfs_create_dir("kprobes_lifecycle", NULL);
	debugfs_create_file("ctl", 0200, lcp_dir, NULL, &lcp_ctl_fops);
	return 0;
}

static void __exit lcp_exit(void)
{
	debugfs_remove_recursive(lcp_dir);
	lcp_coming_disarm();
	/* Whatever is registered; the others are not touched. */
	lcp_unreg();
	unregister_kretprobe(&lcp_sleep_rp.rp);
}

module_init(lcp_init);
module_exit(lcp_exit);
MODULE_DESCRIPTION("kprobes whose text, owner or task goes away");
MODULE_LICENSE("GPL");
