// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_example: count and report the calls of one kernel function.
 *
 *   insmod kprobe_example.ko symbol=<function> [offset=<bytes>] [verbose=0]
 *
 * Every hit is counted.  By default each hit also prints (rate limited): the
 * pre handler the task and the instruction pointer, the post handler the
 * address of the next instruction.  verbose=0 counts silently.  The totals
 * are printed when the module is removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/ptrace.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0444);
MODULE_PARM_DESC(symbol, "function to probe (default kernel_clone)");

static uint offset;
module_param(offset, uint, 0444);
MODULE_PARM_DESC(offset, "offset in bytes into the function");

static bool verbose = true;
module_param(verbose, bool, 0644);
MODULE_PARM_DESC(verbose, "print every hit (rate limited)");

static atomic_long_t pre_hits = ATOMIC_LONG_INIT(0);
static atomic_long_t post_hits = ATOMIC_LONG_INIT(0);

static int example_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&pre_hits);
	if (verbose)
		pr_info_ratelimited("pre:  %s+%#x hit by %s[%d], ip=%pS\n",
				    p->symbol_name, p->offset, current->comm,
				    task_pid_nr(current),
				    (void *)instruction_pointer(regs));
	return 0;
}

static void example_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	atomic_long_inc(&post_hits);
	if (verbose)
		pr_info_ratelimited("post: %s+%#x done, next ip=%pS\n",
				    p->symbol_name, p->offset,
				    (void *)instruction_pointer(regs));
}

static struct kprobe example_probe = {
	.pre_handler = example_pre,
	.post_handler = example_post,
};

static int __init kprobe_example_init(void)
{
	int ret;

	example_probe.symbol_name = symbol;
	example_probe.offset = offset;
	ret = register_kprobe(&example_probe);
	if (ret) {
		pr_err("cannot probe %s+%#x: %d\n", symbol, offset, ret);
		return ret;
	}
	pr_info("probe armed at %s+%#x (%pS)\n", symbol, offset,
		example_probe.addr);
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	unregister_kprobe(&example_probe);
	pr_info("probe on %s+%#x removed: %ld pre, %ld post, %lu missed\n",
		symbol, offset, atomic_long_read(&pre_hits),
		atomic_long_read(&post_hits), example_probe.nmissed);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("Count the calls of a kernel function with a kprobe");
MODULE_LICENSE("GPL");
