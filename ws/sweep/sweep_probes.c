// SPDX-License-Identifier: GPL-2.0
/*
 * ws/sweep.sh's module: registers a kprobe (or a kretprobe, "r:NAME") at
 * each "NAME+OFFSET" written to its sym parameter, counts the hits, and
 * unregisters them all when 1 is written to clear, logging each probe that
 * missed hits.  The write to sym fails with the errno of the registration.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/moduleparam.h>

struct sweep_probe {
	struct kprobe kp;
	struct kretprobe rp;
	bool ret;
	struct list_head node;
	char name[KSYM_NAME_LEN];
};

static LIST_HEAD(probes);
static DEFINE_MUTEX(probes_lock);
static atomic_long_t hits, returns;
static unsigned long missed_cleared;	/* nmissed of the probes cleared */
static int nr_probes;

static int sweep_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static int sweep_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&returns);
	return 0;
}

static int sweep_register(struct sweep_probe *s)
{
	char *plus = strchr(s->name, '+');
	unsigned int offset = 0;
	int ret;

	if (plus) {
		*plus = '\0';
		ret = kstrtouint(plus + 1, 0, &offset);
		if (ret)
			return ret;
	}
	if (s->ret) {
		s->rp.kp.symbol_name = s->name;
		s->rp.kp.offset = offset;
		s->rp.handler = sweep_ret;
		return register_kretprobe(&s->rp);
	}
	s->kp.symbol_name = s->name;
	s->kp.offset = offset;
	s->kp.pre_handler = sweep_pre;
	return register_kprobe(&s->kp);
}

static int sym_set(const char *val, const struct kernel_param *kp)
{
	struct sweep_probe *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return -ENOMEM;
	strscpy(s->name, skip_spaces(val), sizeof(s->name));
	strim(s->name);
	if (!strncmp(s->name, "r:", 2)) {
		s->ret = true;
		memmove(s->name, s->name + 2, strlen(s->name + 2) + 1);
	}
	ret = sweep_register(s);
	if (ret) {
		kfree(s);
		return ret;
	}
	mutex_lock(&probes_lock);
	list_add(&s->node, &probes);
	nr_probes++;
	mutex_unlock(&probes_lock);
	return 0;
}

static unsigned long sweep_missed(struct sweep_probe *s)
{
	return s->ret ? s->rp.nmissed + s->rp.kp.nmissed : s->kp.nmissed;
}

static void sweep_clear(void)
{
	struct sweep_probe *s, *tmp;

	mutex_lock(&probes_lock);
	list_for_each_entry_safe(s, tmp, &probes, node) {
		if (s->ret)
			unregister_kretprobe(&s->rp);
		else
			unregister_kprobe(&s->kp);
		if (sweep_missed(s))
			pr_info("sweep: %s%s+%u: %lu missed\n",
				s->ret ? "r:" : "", s->name,
				s->ret ? s->rp.kp.offset : s->kp.offset,
				sweep_missed(s));
		missed_cleared += sweep_missed(s);
		list_del(&s->node);
		kfree(s);
	}
	nr_probes = 0;
	mutex_unlock(&probes_lock);
}

static int clear_set(const char *val, const struct kernel_param *kp)
{
	sweep_clear();
	return 0;
}

static int stat_get(char *buf, const struct kernel_param *kp)
{
	unsigned long missed;
	struct sweep_probe *s;
	int n;

	mutex_lock(&probes_lock);
	missed = missed_cleared;
	list_for_each_entry(s, &probes, node)
		missed += sweep_missed(s);
	n = sysfs_emit(buf, "%d probes, %ld hits, %ld returns, %lu missed\n",
		       nr_probes, atomic_long_read(&hits),
		       atomic_long_read(&returns), missed);
	mutex_unlock(&probes_lock);
	return n;
}

static const struct kernel_param_ops sym_ops = { .set = sym_set };
static const struct kernel_param_ops clear_ops = { .set = clear_set };
static const struct kernel_param_ops stat_ops = { .get = stat_get };
module_param_cb(sym, &sym_ops, NULL, 0200);
MODULE_PARM_DESC(sym, "register a probe at NAME+OFFSET (r:NAME: a kretprobe)");
module_param_cb(clear, &clear_ops, NULL, 0200);
MODULE_PARM_DESC(clear, "unregister all probes");
module_param_cb(stat, &stat_ops, NULL, 0444);
MODULE_PARM_DESC(stat, "probes now; hits, returns and missed hits so far");

static void __exit sweep_exit(void)
{
	sweep_clear();
}
module_exit(sweep_exit);

MODULE_DESCRIPTION("Register kprobes where ws/sweep.sh says");
MODULE_LICENSE("GPL");
