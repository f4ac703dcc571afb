// SPDX-License-Identifier: GPL-2.0
/*
 * A module for the selftests of events on module functions: writing N to
 * /sys/module/kprobe_module_target/parameters/call calls kpmt_target(N) once,
 * which returns 3 * N + 1; /sys/module/kprobe_module_target/parameters/calls
 * counts the calls and .../last holds the last return value.  Nothing else
 * calls kpmt_target(), so a probe on it hits exactly once per write.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "calls of kpmt_target() so far");

static long last;
module_param(last, long, 0444);
MODULE_PARM_DESC(last, "what kpmt_target() returned last");

/* noinline: one out-of-line copy, under its own name, to probe. */
static noinline long kpmt_target(long v)
{
	WRITE_ONCE(calls, READ_ONCE(calls) + 1);
	return 3 * v + 1;
}

static int kpmt_call_set(const char *val, const struct kernel_param *kp)
{
	long v;
	int ret;

	ret = kstrtol(val, 0, &v);
	if (ret)
		return ret;
	if (v < -1000000 || v > 1000000)
		return -ERANGE;
	WRITE_ONCE(last, kpmt_target(v));
	return 0;
}

static const struct kernel_param_ops kpmt_call_ops = {
	.set = kpmt_call_set,
};
module_param_cb(call, &kpmt_call_ops, NULL, 0200);
MODULE_PARM_DESC(call, "write N: call kpmt_target(N) once");

MODULE_DESCRIPTION("A function to probe, called from sysfs, for the kprobes selftests");
MODULE_LICENSE("GPL");
