// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_leak: a module that forgets to unregister its probes.
 *
 * It registers a kprobe (pre and post handlers) and a kretprobe (entry and
 * return handlers) on ksys_sync(), and its exit function does not
 * unregister them.  kprobes_leak.sh checks that the kprobes core unregisters
 * them when the module goes, logs it, and that sync(2) still works.  The
 * parameters pre, post, entry and ret count the handler calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static atomic_t lk_pre, lk_post, lk_entry, lk_ret;

static int lk_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops lk_ops = { .get = lk_get };
module_param_cb(pre, &lk_ops, &lk_pre, 0444);
module_param_cb(post, &lk_ops, &lk_post, 0444);
module_param_cb(entry, &lk_ops, &lk_entry, 0444);
module_param_cb(ret, &lk_ops, &lk_ret, 0444);

static int lk_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&lk_pre);
	return 0;
}

static void lk_post_handler(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
	atomic_inc(&lk_post);
}

static int lk_entry_handler(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	atomic_inc(&lk_entry);
	return 0;
}

static int lk_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&lk_ret);
	return 0;
}

static struct kprobe lk_kp = {
	.symbol_name = "ksys_sync",
	.pre_handler = lk_pre_handler,
	.post_handler = lk_post_handler,
};

static struct kretprobe lk_rp = {
	.kp.symbol_name = "ksys_sync",
	.entry_handler = lk_entry_handler,
	.handler = lk_ret_handler,
};

static int __init lk_init(void)
{
	int ret = register_kprobe(&lk_kp);

	if (ret) {
		pr_err("register_kprobe: %d\n", ret);
		return ret;
	}
	ret = register_kretprobe(&lk_rp);
	if (ret) {
		pr_err("register_kretprobe: %d\n", ret);
		unregister_kprobe(&lk_kp);
	}
	return ret;
}

/* On purpose, the probes are left registered. */
static void __exit lk_exit(void)
{
}

module_init(lk_init);
module_exit(lk_exit);
MODULE_DESCRIPTION("kprobes selftest: a module that leaves its probes registered");
MODULE_LICENSE("GPL");
