// SPDX-License-Identifier: GPL-2.0-only
/*
 * kretprobe_example: report what a kernel function returns and how long it
 * took.
 *
 *   insmod kretprobe_example.ko func=<function> [maxactive=<n>]
 *
 * The entry handler stamps the start time into the instance's private data,
 * the return handler prints the return value and the time spent
 * (rate limited).  Calls that found no free instance are counted in nmissed,
 * printed when the module is removed.  Calls made by kernel threads (no mm)
 * are skipped: the entry handler returns 1 for them, so that their returns
 * are not reported, nor counted as missed (unless no instance was free, in
 * which case the entry handler does not run).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/atomic.h>
#include <linux/sched.h>

static char func[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func, sizeof(func), 0444);
MODULE_PARM_DESC(func, "function whose returns are reported (default kernel_clone)");

static int maxactive;
module_param(maxactive, int, 0444);
MODULE_PARM_DESC(maxactive, "invocations tracked at once (0: default)");

struct call_stamp {
	ktime_t start;
};

static atomic_long_t returns = ATOMIC_LONG_INIT(0);

static int example_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;

	/* Kernel threads are not interesting here: skip their calls. */
	if (!current->mm)
		return 1;
	stamp->start = ktime_get();
	return 0;
}

static int example_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;
	s64 ns = ktime_to_ns(ktime_sub(ktime_get(), stamp->start));

	atomic_long_inc(&returns);
	pr_info_ratelimited("%s returned %ld to %pS in %lld ns (%s[%d])\n",
			    func, (long)regs_return_value(regs),
			    (void *)get_kretprobe_retaddr(ri), ns,
			    current->comm, task_pid_nr(current));
	return 0;
}

static struct kretprobe example_rp = {
	.handler = example_return,
	.entry_handler = example_entry,
	.data_size = sizeof(struct call_stamp),
};

static int __init kretprobe_example_init(void)
{
	int ret;

	example_rp.kp.symbol_name = func;
	example_rp.maxactive = maxactive;
	ret = register_kretprobe(&example_rp);
	if (ret) {
		pr_err("cannot probe the returns of %s: %d\n", func, ret);
		return ret;
	}
	pr_info("return probe armed on %s (%pS)\n", func, example_rp.kp.addr);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&example_rp);
	pr_info("return probe on %s removed: %ld returns reported, %d missed\n",
		func, atomic_long_read(&returns), example_rp.nmissed);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("Report the return values and durations of a kernel function");
MODULE_LICENSE("GPL");
