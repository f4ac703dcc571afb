// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_lc_target: the module whose functions kprobes_lifecycle.sh probes
 * across unloads and reloads.
 *
 * A thread on each online CPU calls lct_func() all the time, so that probes
 * on it fire on every CPU while modules come and go.  Writing MS to
 * debugfs kprobes_lc_target/sleep starts a thread that calls lct_sleep(MS),
 * which sleeps MS milliseconds and returns MS + 1.  kprobes_lc_target/status
 * reads "calls=N sleepers=N sleep_ok=N sleep_bad=N": calls of lct_func(),
 * sleeping threads, and sleeps that returned the right or a wrong value.
 * A sleeping thread holds a reference to the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

static atomic_long_t lct_calls;
static atomic_t lct_sleepers, lct_sleep_ok, lct_sleep_bad;

static noinline int lct_func(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	return x + 11;
}

static noinline int lct_sleep(int ms)
{
	OPTIMIZER_HIDE_VAR(ms);
	msleep(ms);
	return ms + 1;
}

typedef int (*lct_fn_t)(int);

static int lct_call(lct_fn_t fn, int x)
{
	OPTIMIZER_HIDE_VAR(fn);
	return fn(x);
}

static struct task_struct **lct_tasks;
static int lct_ntasks;

static int lct_caller_fn(void *data)
{
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		if (lct_call(lct_func, n & 0xff) != (n & 0xff) + 11)
			pr_err("lct_func returned a wrong value\n");
		atomic_long_inc(&lct_calls);
		if (!(++n % 16))
			schedule_timeout_idle(1);
	}
	return 0;
}

static int lct_sleeper_fn(void *data)
{
	int ms = (long)data;

	if (lct_call(lct_sleep, ms) == ms + 1)
		atomic_inc(&lct_sleep_ok);
	else
		atomic_inc(&lct_sleep_bad);
	atomic_dec(&lct_sleepers);
	/* Holds the module until it is out of its text. */
	module_put_and_kthread_exit(0);
}

static ssize_t lct_sleep_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct task_struct *t;
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &ms);
	if (ret)
		return ret;
	if (ms > 60000)
		return -ERANGE;
	atomic_inc(&lct_sleepers);
	__module_get(THIS_MODULE);
	t = kthread_run(lct_sleeper_fn, (void *)(long)ms, "lct_sleeper");
	if (IS_ERR(t)) {
		module_put(THIS_MODULE);
		atomic_dec(&lct_sleepers);
		return PTR_ERR(t);
	}
	return count;
}

static const struct file_operations lct_sleep_fops = {
	.write = lct_sleep_write,
	.llseek = noop_llseek,
};

static int lct_status_show(struct seq_file *m, void *v)
{
	seq_printf(m, "calls=%ld sleepers=%d sleep_ok=%d sleep_bad=%d\n",
		   atomic_long_read(&lct_calls), atomic_read(&lct_sleepers),
		   atomic_read(&lct_sleep_ok), atomic_read(&lct_sleep_bad));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lct_status);

static struct dentry *lct_dir;

static void lct_stop_callers(void)
{
	int i;

	for (i = 0; i < lct_ntasks; i++) {
		kthread_stop(lct_tasks[i]);
		put_task_struct(lct_tasks[i]);
	}
	kfree(lct_tasks);
}

static int __init lct_init(void)
{
	int cpu;

	lct_tasks = kcalloc(num_online_cpus(), sizeof(*lct_tasks), GFP_KERNEL);
	if (!lct_tasks)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (lct_ntasks == num_online_cpus())
			break;
		t = kthread_create_on_cpu(lct_caller_fn, NULL, cpu, "lct_caller/%u");
		if (IS_ERR(t)) {
			lct_stop_callers();
			return PTR_ERR(t);
		}
		get_task_struct(t);
		lct_tasks[lct_ntasks++] = t;
		wake_up_process(t);
	}
	lct_dir = debugfs_create_dir("kprobes_lc_target", NULL);
	debugfs_create_file("sleep", 0200, lct_dir, NULL, &lct_sleep_fops);
	debugfs_create_file("status", 0400, lct_dir, NULL, &lct_status_fops);
	return 0;
}

static void __exit lct_exit(void)
{
	debugfs_remove_recursive(lct_dir);
	lct_stop_callers();
}

module_init(lct_init);
module_exit(lct_exit);
MODULE_DESCRIPTION("Target of the kprobes lifecycle selftest");
MODULE_LICENSE("GPL");
