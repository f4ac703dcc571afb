// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_pin_b: a module that registers another module's handlers.
 *
 * Its init looks up kprobes_pin_a's exported handlers with symbol_get()
 * (so that it does not depend on that module, which would pin it anyway),
 * registers a kprobe and a kretprobe on ksys_sync() with them, and drops
 * its symbol references: from then on only kprobes pins kprobes_pin_a.
 * Its exit unregisters them, unless it was loaded with leak=1; then the
 * core must do it when it goes, and let kprobes_pin_a go too.  With
 * mixed=1 its init also tries a probe with a pre handler of kprobes_pin_a
 * and the post handler of kprobes_pin_c, and keeps what registration
 * returned in mixed_ret (-EINVAL expected).  Used by kprobes_pin.sh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>

#include "kprobes_pin.h"

static bool leak, mixed;
module_param(leak, bool, 0444);
module_param(mixed, bool, 0444);
static int mixed_ret = 1;
module_param(mixed_ret, int, 0444);

/* Never called: the mixed probe's address, should it be registered. */
static noinline void pb_never(void)
{
	barrier();
}

static struct kprobe pb_kp = {
	.symbol_name = "ksys_sync",
};

static struct kretprobe pb_rp = {
	.kp.symbol_name = "ksys_sync",
};

static struct kprobe pb_mixed;

static void pb_try_mixed(void)
{
	pb_mixed.addr = (kprobe_opcode_t *)pb_never;
	pb_mixed.pre_handler = symbol_get(kprobes_pin_pre);
	pb_mixed.post_handler = symbol_get(kprobes_pin_post);
	if (pb_mixed.pre_handler && pb_mixed.post_handler) {
		mixed_ret = register_kprobe(&pb_mixed);
		if (!mixed_ret)
			unregister_kprobe(&pb_mixed);
	}
	if (pb_mixed.pre_handler)
		symbol_put(kprobes_pin_pre);
	if (pb_mixed.post_handler)
		symbol_put(kprobes_pin_post);
}

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
	if (!ret && mixed)
		pb_try_mixed();
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
