// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe of your own: counts the calls of a kernel function (ksys_sync,
 * the sync(2) system call, unless symbol= says otherwise).  The count is in
 * /sys/module/my_probe/parameters/hits.
 */
#include <linux/kprobes.h>
#include <linux/module.h>

static char *symbol = "ksys_sync";
module_param(symbol, charp, 0444);
static unsigned long hits;
module_param(hits, ulong, 0444);

static int my_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);	/* racy across CPUs: fine for a demo */
	return 0;
}

static struct kprobe kp = {
	.pre_handler = my_pre_handler,
};

static int __init my_probe_init(void)
{
	int ret;

	kp.symbol_name = symbol;
	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("my_probe: register_kprobe(%s) failed: %d\n", symbol, ret);
		return ret;
	}
	pr_info("my_probe: probing %pS\n", kp.addr);
	return 0;
}

static void __exit my_probe_exit(void)
{
	unregister_kprobe(&kp);
	pr_info("my_probe: %s was hit %lu times\n", symbol, hits);
}

module_init(my_probe_init);
module_exit(my_probe_exit);
MODULE_DESCRIPTION("Count the calls of a kernel function with a kprobe");
MODULE_LICENSE("GPL");
