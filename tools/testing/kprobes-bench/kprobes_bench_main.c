// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_bench: what a kprobe hit costs, per kind of probe, and what
 * registering and unregistering 1000 probes costs.
 *
 * Built out of tree against both upstream's kprobes and the series', so it
 * uses only their common API.  It is driven through
 * /sys/kernel/debug/kprobes_bench/ctl by the guest script ws/guest/bench.sh
 * (make bench), which sets debug.kprobes-optimization and reads the state of
 * the probes (optimized, on ftrace) from /sys/kernel/debug/kprobes/list:
 *
 *   echo calib > ctl     time a loop of known length (see below)
 *   echo KIND > ctl      time the bare target, then register the probes of
 *                        KIND (see kpb_kinds[]) and leave them registered
 *   echo measure > ctl   time the probed target, check the handlers' counts
 *   echo split:KIND > ctl
 *                        like KIND, but with handlers that take a timestamp:
 *                        "measure" then tells where a hit's instructions go
 *                        (up to the first handler, between handlers, after
 *                        the last one; a kretprobe gets an entry handler)
 *   echo off > ctl       unregister the probes
 *   echo reg1000 > ctl   time register_kprobes() and unregister_kprobes() of
 *                        1000 probes on the nops of kprobes_bench_nops()
 *   echo reg:N > ctl     the same with the first N of them
 *   cat ctl              the result of the last command, one line of
 *                        key=value pairs
 *
 * A timed run calls the target @hits times with interrupts off on one CPU,
 * between two ktime_get_ns().  Under QEMU TCG with -icount shift=0 one
 * nanosecond of guest time is one guest instruction, so the difference
 * between the probed and the bare run, over @hits, is the length of the
 * probe's path in instructions.  The run is repeated @reps times and the
 * minimum taken (another CPU's timer tick also counts in QEMU's instruction
 * counter); "calib" checks the ns-per-instruction scale with a loop whose
 * length the arch code knows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kprobes_bench.h"

static unsigned int hits = 1000;
module_param(hits, uint, 0644);
MODULE_PARM_DESC(hits, "calls of the target per timed run");
static unsigned int reps = 5;
module_param(reps, uint, 0644);
MODULE_PARM_DESC(reps, "timed runs per measurement (the minimum counts)");
static bool marks;
module_param(marks, bool, 0644);
MODULE_PARM_DESC(marks, "print the calls of each measurement before and after it");

/* The function-entry target: traced (it has an ftrace site where the arch has one). */
#define KPB_FUNC_NAME	"kprobes_bench_func"

noinline unsigned long kprobes_bench_func(unsigned long x)
{
	return x + 1;
}

/* What the handlers count. */
enum { CNT_PRE, CNT_POST, CNT_PRE2, CNT_RET, CNT_JP, CNT_NR };
static const char * const kpb_cnt_name[CNT_NR] = {
	"pre", "post", "pre2", "ret", "jprobe"
};

static unsigned long kpb_cnt[CNT_NR];

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpb_cnt[CNT_PRE]++;
	return 0;
}

static void kpb_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	kpb_cnt[CNT_POST]++;
}

static int kpb_pre2(struct kprobe *p, struct pt_regs *regs)
{
	kpb_cnt[CNT_PRE2]++;
	return 0;
}

static int kpb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpb_cnt[CNT_RET]++;
	return 0;
}

/*
 * The same handlers, also taking a timestamp each: the path of a hit split
 * into segments (up to the first handler, between handlers, after the last).
 */
#define KPB_MAX_ST	4
static u64 kpb_st[KPB_MAX_ST];
static unsigned int kpb_nst;

static void kpb_stamp(void)
{
	if (kpb_nst < KPB_MAX_ST)
		kpb_st[kpb_nst++] = ktime_get_ns();
}

static int kpb_pre_st(struct kprobe *p, struct pt_regs *regs)
{
	kpb_cnt[CNT_PRE]++;
	kpb_stamp();
	return 0;
}

static void kpb_post_st(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	kpb_cnt[CNT_POST]++;
	kpb_stamp();
}

static int kpb_pre2_st(struct kprobe *p, struct pt_regs *regs)
{
	kpb_cnt[CNT_PRE2]++;
	kpb_stamp();
	return 0;
}

static int kpb_entry_st(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpb_stamp();
	return 0;
}

static int kpb_ret_st(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpb_cnt[CNT_RET]++;
	kpb_stamp();
	return 0;
}

#ifdef CONFIG_JPROBES
/* The jprobe handlers: the prototype of kprobes_bench_func(). */
static unsigned long kpb_jentry(unsigned long x)
{
	kpb_cnt[CNT_JP]++;
	jprobe_return();
	return 0;
}

static unsigned long kpb_jentry_st(unsigned long x)
{
	kpb_cnt[CNT_JP]++;
	kpb_stamp();
	jprobe_return();
	return 0;
}

static struct jprobe kpb_jp;
#endif

/* What a kind registers. */
#define K_KP	BIT(0)	/* a kprobe with kpb_pre */
#define K_POST	BIT(1)	/* ... and kpb_post */
#define K_KP2	BIT(2)	/* a second kprobe at the same place, kpb_pre2 */
#define K_RET	BIT(3)	/* a kretprobe on KPB_FUNC_NAME, kpb_ret */
#define K_FUNC	BIT(4)	/* the kprobes go on KPB_FUNC_NAME+0, not in the asm target */
#define K_JP	BIT(5)	/* a jprobe on KPB_FUNC_NAME, kpb_jentry (CONFIG_JPROBES) */

struct kpb_kind {
	const char *name;
	unsigned int what;
};

/*
 * "kprobe" and "optimized" register the same probe: the guest script runs
 * the first with debug.kprobes-optimization=0, the second with it on.
 */
static const struct kpb_kind kpb_kinds[] = {
	{ "kprobe",		K_KP },
	{ "kprobe_post",	K_KP | K_POST },
	{ "aggregate",		K_KP | K_KP2 },
	{ "optimized",		K_KP },
	{ "func_entry",		K_KP | K_FUNC },
	{ "kretprobe",		K_RET },
	{ "kretprobe_kprobe",	K_RET | K_KP | K_FUNC },
#ifdef CONFIG_JPROBES
	{ "jprobe",		K_JP | K_FUNC },
#endif
};

static DEFINE_MUTEX(kpb_lock);
static char kpb_result[320];
static const struct kpb_kind *kpb_armed;	/* registered, or NULL */
static bool kpb_split;				/* ... with the stamping handlers */
static u64 kpb_split_bare;			/* the bare call between two stamps */
static struct kprobe kpb_kp, kpb_kp2;
static struct kretprobe kpb_krp;
static u64 kpb_bare_min, kpb_bare_max;

static void *kpb_mid(void)
{
	return (void *)((unsigned long)kprobes_bench_target +
			kprobes_bench_target_offset);
}

static unsigned long (*kpb_fn(const struct kpb_kind *k))(unsigned long)
{
	return k->what & (K_FUNC | K_RET) ? kprobes_bench_func : kprobes_bench_target;
}

/* @n calls of @fn, interrupts off: guest nanoseconds. */
static noinline u64 kpb_time(unsigned long (*fn)(unsigned long), unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		fn(i);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

/*
 * @reps timed runs of @fn; the minimum and maximum time.  With @expect (a
 * mask of counters), check that each run counted exactly @hits in each of
 * them and nothing in the others; returns false if not, with the counts of
 * the bad run in @bad.
 */
static bool kpb_runs(unsigned long (*fn)(unsigned long), unsigned int expect,
		     u64 *min, u64 *max, unsigned long *bad)
{
	bool ok = true;
	unsigned int r;
	int c;
	u64 t;

	*min = U64_MAX;
	*max = 0;
	for (r = 0; r < reps; r++) {
		fn(0);		/* not timed: the first hit after arming */
		memset(kpb_cnt, 0, sizeof(kpb_cnt));
		t = kpb_time(fn, hits);
		*min = min(*min, t);
		*max = max(*max, t);
		for (c = 0; c < CNT_NR; c++) {
			if (kpb_cnt[c] != (expect & BIT(c) ? hits : 0)) {
				if (ok)
					memcpy(bad, kpb_cnt, sizeof(kpb_cnt));
				ok = false;
			}
		}
	}
	return ok;
}

static void kpb_disarm(void)
{
	const struct kpb_kind *k = kpb_armed;

	if (!k)
		return;
	if (k->what & K_KP2)
		unregister_kprobe(&kpb_kp2);
	if (k->what & K_KP)
		unregister_kprobe(&kpb_kp);
	if (k->what & K_RET)
		unregister_kretprobe(&kpb_krp);
#ifdef CONFIG_JPROBES
	if (k->what & K_JP)
		unregister_jprobe(&kpb_jp);
#endif
	kpb_armed = NULL;
}

static int kpb_arm(const struct kpb_kind *k)
{
	int ret = 0;

	memset(&kpb_kp, 0, sizeof(kpb_kp));
	memset(&kpb_kp2, 0, sizeof(kpb_kp2));
	memset(&kpb_krp, 0, sizeof(kpb_krp));
#ifdef CONFIG_JPROBES
	/* Alone in its kind: nothing to undo if it fails. */
	memset(&kpb_jp, 0, sizeof(kpb_jp));
	if (k->what & K_JP) {
		kpb_jp.kp.symbol_name = KPB_FUNC_NAME;
		kpb_jp.entry = kpb_split ? kpb_jentry_st : kpb_jentry;
		ret = register_jprobe(&kpb_jp);
		if (ret)
			return ret;
	}
#endif
	if (k->what & K_RET) {
		kpb_krp.kp.symbol_name = KPB_FUNC_NAME;
		kpb_krp.handler = kpb_split ? kpb_ret_st : kpb_ret;
		/* Split: also a timestamp when the entry is taken. */
		if (kpb_split)
			kpb_krp.entry_handler = kpb_entry_st;
		ret = register_kretprobe(&kpb_krp);
		if (ret)
			return ret;
	}
	if (k->what & K_KP) {
		if (k->what & K_FUNC)
			kpb_kp.symbol_name = KPB_FUNC_NAME;
		else
			kpb_kp.addr = kpb_mid();
		kpb_kp.pre_handler = kpb_split ? kpb_pre_st : kpb_pre;
		if (k->what & K_POST)
			kpb_kp.post_handler = kpb_split ? kpb_post_st : kpb_post;
		ret = register_kprobe(&kpb_kp);
		if (ret)
			goto out_ret;
	}
	if (k->what & K_KP2) {
		kpb_kp2.addr = kpb_kp.addr;
		kpb_kp2.pre_handler = kpb_split ? kpb_pre2_st : kpb_pre2;
		ret = register_kprobe(&kpb_kp2);
		if (ret)
			goto out_kp;
	}
	kpb_armed = k;
	return 0;

out_kp:
	if (k->what & K_KP)
		unregister_kprobe(&kpb_kp);
out_ret:
	if (k->what & K_RET)
		unregister_kretprobe(&kpb_krp);
	return ret;
}

static unsigned int kpb_expect(const struct kpb_kind *k)
{
	return (k->what & K_KP ? BIT(CNT_PRE) : 0) |
	       (k->what & K_POST ? BIT(CNT_POST) : 0) |
	       (k->what & K_KP2 ? BIT(CNT_PRE2) : 0) |
	       (k->what & K_RET ? BIT(CNT_RET) : 0) |
	       (k->what & K_JP ? BIT(CNT_JP) : 0);
}

/*
 * One timed run of @fn with the stamping handlers: @seg[j] gets the guest ns
 * of segment j summed over the calls; returns the number of segments, or -1
 * if it changed from call to call.
 */
static noinline int kpb_split_run(unsigned long (*fn)(unsigned long),
				  u64 *seg)
{
	unsigned long flags;
	int nseg = 0, j;
	unsigned int i;
	u64 t0, t1, prev;

	memset(seg, 0, (KPB_MAX_ST + 1) * sizeof(*seg));
	local_irq_save(flags);
	for (i = 0; i < hits; i++) {
		kpb_nst = 0;
		t0 = ktime_get_ns();
		fn(i);
		t1 = ktime_get_ns();
		prev = t0;
		for (j = 0; j < kpb_nst; j++) {
			seg[j] += kpb_st[j] - prev;
			prev = kpb_st[j];
		}
		seg[kpb_nst] += t1 - prev;
		if (i && nseg != kpb_nst + 1)
			nseg = -1;
		else
			nseg = kpb_nst + 1;
	}
	local_irq_restore(flags);
	return nseg;
}

/* Guest ns of @hits back-to-back timestamps: what each segment includes. */
static noinline u64 kpb_stamp_cost(void)
{
	unsigned long flags;
	unsigned int i;
	u64 t0, t1, sum = 0;

	local_irq_save(flags);
	for (i = 0; i < hits; i++) {
		t0 = ktime_get_ns();
		t1 = ktime_get_ns();
		sum += t1 - t0;
	}
	local_irq_restore(flags);
	return sum;
}

/* The minimum over @reps runs of the bare call between two timestamps. */
static u64 kpb_split_min(unsigned long (*fn)(unsigned long))
{
	u64 seg[KPB_MAX_ST + 1], bare = U64_MAX;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		kpb_split_run(fn, seg);
		bare = min(bare, seg[0]);
	}
	return bare;
}

static int kpb_start(const struct kpb_kind *k, bool split)
{
	unsigned long bad[CNT_NR];
	int ret;

	kpb_disarm();
	kpb_split = split;
	if (split)
		kpb_split_bare = kpb_split_min(kpb_fn(k));
	kpb_runs(kpb_fn(k), 0, &kpb_bare_min, &kpb_bare_max, bad);
	ret = kpb_arm(k);
	if (ret) {
		snprintf(kpb_result, sizeof(kpb_result),
			 "kind=%s error=%d\n", k->name, ret);
		return ret;
	}
	snprintf(kpb_result, sizeof(kpb_result), "kind=%s armed%s\n", k->name,
		 split ? " split" : "");
	return 0;
}

/*
 * The split of a hit: each segment's minimum over @reps runs, summed over
 * the calls of a run; with the cost of a timestamp and of the bare call
 * (timestamp included), for the host to subtract.
 */
static int kpb_measure_split(const struct kpb_kind *k)
{
	u64 seg[KPB_MAX_ST + 1], best[KPB_MAX_ST + 1], stamp = U64_MAX;
	unsigned int r, nst;
	int nseg = 0, n, j, len;

	for (j = 0; j <= KPB_MAX_ST; j++)
		best[j] = U64_MAX;
	for (r = 0; r < reps; r++) {
		kpb_split_run(kpb_fn(k), seg);		/* warm-up */
		n = kpb_split_run(kpb_fn(k), seg);
		if (n <= 0 || (r && n != nseg))
			return -EIO;
		nseg = n;
		for (j = 0; j < nseg; j++)
			best[j] = min(best[j], seg[j]);
		stamp = min(stamp, kpb_stamp_cost());
	}
	nst = nseg - 1;
	len = scnprintf(kpb_result, sizeof(kpb_result), "kind=%s n=%u stamps=%u seg=",
			k->name, hits, nst);
	for (j = 0; j < nseg; j++)
		len += scnprintf(kpb_result + len, sizeof(kpb_result) - len,
				 "%s%llu", j ? "," : "", best[j]);
	scnprintf(kpb_result + len, sizeof(kpb_result) - len,
		  " stamp=%llu bare=%llu\n", stamp, kpb_split_bare);
	return 0;
}

static int kpb_measure(void)
{
	const struct kpb_kind *k = kpb_armed;
	unsigned long bad[CNT_NR], missed;
	unsigned int expect;
	char hitbuf[64];
	bool ok;
	u64 min, max;
	int c, len;

	if (!k)
		return -ENOENT;
	if (kpb_split)
		return kpb_measure_split(k);
	expect = kpb_expect(k);
	/*
	 * With marks set, the console brackets the probed runs, so that the
	 * host can count the traps between the two lines in QEMU's -d int log.
	 */
	if (marks)
		pr_info("ws-bench-traps: begin kind=%s calls=%u\n", k->name,
			reps * (hits + 1));
	ok = kpb_runs(kpb_fn(k), expect, &min, &max, bad);
	if (marks)
		pr_info("ws-bench-traps: end kind=%s\n", k->name);
	if (ok) {
		strscpy(hitbuf, "ok", sizeof(hitbuf));
	} else {
		len = scnprintf(hitbuf, sizeof(hitbuf), "BAD");
		for (c = 0; c < CNT_NR; c++)
			len += scnprintf(hitbuf + len, sizeof(hitbuf) - len,
					 "%c%s:%lu", c ? ',' : ':',
					 kpb_cnt_name[c], bad[c]);
	}
	missed = kpb_kp.nmissed + kpb_kp2.nmissed + kpb_krp.nmissed +
		 kpb_krp.kp.nmissed;
	snprintf(kpb_result, sizeof(kpb_result),
		 "kind=%s n=%u reps=%u bare_min=%llu bare_max=%llu probed_min=%llu probed_max=%llu hits=%s missed=%lu\n",
		 k->name, hits, reps, kpb_bare_min, kpb_bare_max, min, max,
		 hitbuf, missed);
	return 0;
}

/* A loop of known length: guest ns for n * kprobes_bench_calib_insns instructions. */
static noinline u64 kpb_time_calib(unsigned long n)
{
	unsigned long flags;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	kprobes_bench_calib(n);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

static int kpb_calib(void)
{
	const unsigned long n = 100000;
	u64 t1 = U64_MAX, t2 = U64_MAX;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		t1 = min(t1, kpb_time_calib(n));
		t2 = min(t2, kpb_time_calib(2 * n));
	}
	snprintf(kpb_result, sizeof(kpb_result), "kind=calib insns=%llu ns=%llu\n",
		 (u64)n * kprobes_bench_calib_insns, t2 - t1);
	return 0;
}

static int kpb_reg(int nr)
{
	struct kprobe *kps, **v;
	u64 t0, t1, t2, t3;
	unsigned long on, off;
	int i, ret;

	kpb_disarm();
	kps = kcalloc(nr, sizeof(*kps), GFP_KERNEL);
	v = kcalloc(nr, sizeof(*v), GFP_KERNEL);
	ret = -ENOMEM;
	if (!kps || !v)
		goto out;
	for (i = 0; i < nr; i++) {
		kps[i].addr = (void *)((unsigned long)kprobes_bench_nops +
				       kprobes_bench_nops_offset +
				       i * kprobes_bench_nops_stride);
		kps[i].pre_handler = kpb_pre;
		v[i] = &kps[i];
	}
	t0 = ktime_get_ns();
	ret = register_kprobes(v, nr);
	t1 = ktime_get_ns();
	if (ret) {
		snprintf(kpb_result, sizeof(kpb_result),
			 "kind=register%d error=%d\n", nr, ret);
		goto out;
	}
	kpb_cnt[CNT_PRE] = 0;
	kprobes_bench_nops();
	on = kpb_cnt[CNT_PRE];
	t2 = ktime_get_ns();
	unregister_kprobes(v, nr);
	t3 = ktime_get_ns();
	kpb_cnt[CNT_PRE] = 0;
	kprobes_bench_nops();
	off = kpb_cnt[CNT_PRE];
	snprintf(kpb_result, sizeof(kpb_result),
		 "kind=register%d n=%d register_ns=%llu unregister_ns=%llu hits=%s%s missed=0\n",
		 nr, nr, t1 - t0, t3 - t2,
		 on == nr && !off ? "ok" : "BAD", on == nr ? "" : ":registered");
out:
	kfree(v);
	kfree(kps);
	return ret;
}

static int kpb_command(const char *cmd)
{
	bool split = false;
	int i;

	if (!strcmp(cmd, "off")) {
		kpb_disarm();
		snprintf(kpb_result, sizeof(kpb_result), "off\n");
		return 0;
	}
	if (!strcmp(cmd, "measure"))
		return kpb_measure();
	if (!strcmp(cmd, "calib"))
		return kpb_calib();
	if (!strcmp(cmd, "reg1000"))
		return kpb_reg(KPB_NOPS);
	if (str_has_prefix(cmd, "reg:")) {
		if (kstrtoint(cmd + strlen("reg:"), 10, &i) || i < 1 || i > KPB_NOPS)
			return -EINVAL;
		return kpb_reg(i);
	}
	if (str_has_prefix(cmd, "split:")) {
		split = true;
		cmd += strlen("split:");
	}
	for (i = 0; i < ARRAY_SIZE(kpb_kinds); i++) {
		if (!strcmp(cmd, kpb_kinds[i].name))
			return kpb_start(&kpb_kinds[i], split);
	}
	return -EINVAL;
}

static ssize_t kpb_ctl_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[32];
	int ret;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (!hits || !reps)
		return -EINVAL;
	mutex_lock(&kpb_lock);
	ret = kpb_command(strim(buf));
	mutex_unlock(&kpb_lock);
	return ret ?: len;
}

static ssize_t kpb_ctl_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&kpb_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, kpb_result,
				      strlen(kpb_result));
	mutex_unlock(&kpb_lock);
	return ret;
}

static const struct file_operations kpb_ctl_fops = {
	.owner = THIS_MODULE,
	.read = kpb_ctl_read,
	.write = kpb_ctl_write,
	.llseek = default_llseek,
};

static struct dentry *kpb_dir;

static int __init kpb_init(void)
{
	kpb_dir = debugfs_create_dir("kprobes_bench", NULL);
	debugfs_create_file("ctl", 0600, kpb_dir, NULL, &kpb_ctl_fops);
	return 0;
}

static void __exit kpb_exit(void)
{
	debugfs_remove_recursive(kpb_dir);
	mutex_lock(&kpb_lock);
	kpb_disarm();
	mutex_unlock(&kpb_lock);
}

module_init(kpb_init);
module_exit(kpb_exit);
MODULE_DESCRIPTION("kprobes benchmark: cost per hit of each kind of probe");
MODULE_LICENSE("GPL");
