// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_pin_a: a module whose handlers another module registers.
 *
 * It exports a kprobe pre handler and a kretprobe handler, which
 * kprobes_pin_b.ko registers on ksys_sync(); while those probes are
 * registered this module must stay pinned.  It also registers a kprobe of
 * its own with its own handler, which must not pin it.  The parameters
 * count the calls: pre and ret (the handlers lent to kprobes_pin_b), own.
 * Used by kprobes_pin.sh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

#include "kprobes_pin.h"

static atomic_t pa_pre, pa_ret, pa_own;

static int pa_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops pa_ops = { .get = pa_get };
module_param_cb(pre, &pa_ops, &pa_pre, 0444);
module_param_cb(ret, &pa_ops, &pa_ret, 0444);
module_param_cb(own, &pa_ops, &pa_own, 0444);

/**
 * kprobes_pin_pre() - a kprobe pre handler lent to kprobes_pin_b.ko
 * @p: the probe
 * @regs: the registers at the probe
 *
 * Return: 0, the instruction runs.
 */
int kprobes_pin_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&pa_pre);
	return 0;
}
EXPORT_SYMBOL_GPL(kprobes_pin_pre);

/**
 * kprobes_pin_ret() - a kretprobe handler lent to kprobes_pin_b.ko
 * @ri: the instance
 * @regs: the registers at the return
 *
 * Return: 0.
 */
int kprobes_pin_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&pa_ret);
	return 0;
}
EXPORT_SYMBOL_GPL(kprobes_pin_ret);

static int pa_own_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&pa_own);
	return 0;
}

static struct kprobe pa_kp = {
	.symbol_name = "ksys_sync",
	.pre_handler = pa_own_pre,
};

static int __init pa_init(void)
{
	int ret = register_kprobe(&pa_kp);

	if (ret)
		pr_err("register_kprobe: %d\n", ret);
	return ret;
}

static void __exit pa_exit(void)
{
	unregister_kprobe(&pa_kp);
}

module_init(pa_init);
module_exit(pa_exit);
MODULE_DESCRIPTION("kprobes selftest: handlers registered by another module");
MODULE_LICENSE("GPL");
