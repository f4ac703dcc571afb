// SPDX-License-Identifier: GPL-2.0
/*
 * A jprobe on ksys_sync() for jprobes.sh: its handler counts the calls it
 * sees, in the read-only parameter "hits".
 */
#include <linux/kprobes.h>
#include <linux/module.h>

static unsigned int hits;
module_param(hits, uint, 0444);
MODULE_PARM_DESC(hits, "calls of ksys_sync() seen by the jprobe handler");

/* Same prototype as ksys_sync(). */
static void jst_ksys_sync(void)
{
	WRITE_ONCE(hits, hits + 1);
	jprobe_return();
}

static struct jprobe jst = {
	.kp.symbol_name = "ksys_sync",
	.entry = jst_ksys_sync,
};

static int __init jst_init(void)
{
	return register_jprobe(&jst);
}

static void __exit jst_exit(void)
{
	unregister_jprobe(&jst);
}

module_init(jst_init);
module_exit(jst_exit);
MODULE_DESCRIPTION("A jprobe on ksys_sync() for the kprobes selftests");
MODULE_LICENSE("GPL");
