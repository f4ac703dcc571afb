// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_pin_b: a module that registers another module's handlers.
 *
 * Its init looks up kprobes_pin_a's exported handlers with symbol_get()
 * (so that it does not depend on that module, which would pin it anyway),
 * registers a kprobe and a kretprobe on ksys_sync() with them, and drops
 * its symbol references: from then on only kprobes pins kprobes_pin_a.
 * Its exit unregisters them, unless it was loaded with leak=1; then the
 * core must do it when it goes, and let kprobes_pin_a go too.  Used by
 * kprobes_pin.sh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>

#include "kprobes_pin.h"

static bool leak;
module_param(leak, bool, 0444);

static struct kprobe pb_kp = {
	.symbol_name = "ksys_sync",
};

static struct kretprobe pb_rp = {
	.kp.symbol_name = "ksys_sync",
};

static int __init pb_init(void)
{
	int ret = -ENOENT;

	pb_kp.pre_handler = symbol_get(kprobes_pin_pre);
	pb_rp.handler = symbol_get(kprobes_pin_ret);
	if (!pb_kp.pre_handler || !pb_rp.handler) {
		pr_err("kprobes_pin_a's handlers not found\n");
		goto out;
	}
	ret = register_kprobe(&pb_kp);
	if (ret) {
		pr_err("register_kprobe: %d\n", ret);
		goto out;
	}
	ret = register_kretprobe(&pb_rp);
	if (ret) {
		pr_err("register_kretprobe: %d\n", ret);
		unregister_kprobe(&pb_kp);
	}
out:
	if (pb_kp.pre_handler)
		symbol_put(kprobes_pin_pre);
	if (pb_rp.handler)
		symbol_put(kprobes_pin_ret);
	return ret;
}

static void __exit pb_exit(void)
{
	if (leak)
		return;
	unregister_kretprobe(&pb_rp);
	unregister_kprobe(&pb_kp);
}

module_init(pb_init);
module_exit(pb_exit);
MODULE_DESCRIPTION("kprobes selftest: registers another module's handlers");
MODULE_LICENSE("GPL");
