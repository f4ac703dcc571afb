// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /sys/kernel/debug/kprobes/:
 *   list       one line per registered probe:
 *              <addr>  <k|r|j>  <sym>+<offset>  [<module>]  [GONE] [DISABLED]
 *              [OPTIMIZED] [FTRACE]  hits=<n> missed=<n>
 *   enabled    1 or 0; writing 0 disarms every probe, 1 rearms them (the
 *              probes' own enabled/disabled states are kept)
 *   blacklist  the blacklisted functions: 0x<start>-0x<end>\t<symbol>
 * Addresses are shown only to readers allowed to see kernel addresses.
 */
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "internal.h"

static void show_probe(struct seq_file *m, struct kprobe *site,
		       struct kprobe *p)
{
	char namebuf[KSYM_NAME_LEN];
	unsigned long hits = 0, missed = p->nmissed, size, offset;
	const char *sym = NULL;
	char *modname = NULL;
	char type = 'k';
	int cpu;

	if (p->flags & KPROBE_FLAG_KRETPROBE) {
		type = 'r';
		missed += container_of(p, struct kretprobe, kp)->nmissed;
	} else if (p->flags & KPROBE_FLAG_JPROBE) {
		type = 'j';
	}
	for_each_possible_cpu(cpu)
		hits += *per_cpu_ptr(p->hits, cpu);

	if (!kprobe_gone(p))
		sym = kallsyms_lookup((unsigned long)p->addr, &size, &offset,
				      &modname, namebuf);

	seq_printf(m, "%0*lx  %c  ", (int)(2 * sizeof(long)),
		   kallsyms_show_value(m->file->f_cred) ? (unsigned long)p->addr : 0,
		   type);
	if (sym)
		seq_printf(m, "%s+0x%lx", sym, offset);
	else if (p->symbol_name)
		seq_printf(m, "%s+0x%x", p->symbol_name, p->offset);
	else
		seq_puts(m, "?");
	if (modname)
		seq_printf(m, "  [%s]", modname);
	seq_printf(m, "%s%s%s%s  hits=%lu missed=%lu\n",
		   kprobe_gone(p) ? "  [GONE]" : "",
		   p->flags & KPROBE_FLAG_DISABLED ? "  [DISABLED]" : "",
		   site_jump_installed(site) ? "  [OPTIMIZED]" : "",
		   kprobe_ftrace(site) ? "  [FTRACE]" : "",
		   hits, missed);
}

/* One position per hash bucket; kprobe_mutex held from start to stop. */
static void *kprobe_list_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return *pos < KPROBE_TABLE_SIZE ? pos : NULL;
}

static void *kprobe_list_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return *pos < KPROBE_TABLE_SIZE ? pos : NULL;
}

static void kprobe_list_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_mutex);
}

static int kprobe_list_show(struct seq_file *m, void *v)
{
	struct kprobe *site, *p;

	hlist_for_each_entry(site, &kprobe_table[*(loff_t *)v], hlist) {
		list_for_each_entry(p, &site->list, list)
			show_probe(m, site, p);
	}
	return 0;
}

static const struct seq_operations kprobe_list_sops = {
	.start = kprobe_list_start,
	.next = kprobe_list_next,
	.stop = kprobe_list_stop,
	.show = kprobe_list_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_list);

static int blacklist_show(struct seq_file *m, void *v)
{
	kprobe_blacklist_seq_show(m, kallsyms_show_value(m->file->f_cred));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(blacklist);

static ssize_t enabled_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	char val[3] = { READ_ONCE(kprobes_all_disarmed) ? '0' : '1', '\n' };

	return simple_read_from_buffer(buf, count, ppos, val, 2);
}

static ssize_t enabled_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	bool enable;
	int ret;

	ret = kstrtobool_from_user(buf, count, &enable);
	if (ret)
		return ret;
	ret = kprobes_set_all_armed(enable);
	return ret ?: count;
}

static const struct file_operations enabled_fops = {
	.read = enabled_read,
	.write = enabled_write,
	.llseek = default_llseek,
};

static int __init kprobe_debugfs_init(void)
{
	struct dentry *dir;

	dir = debugfs_create_dir("kprobes", NULL);
	debugfs_create_file("list", 0400, dir, NULL, &kprobe_list_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL, &blacklist_fops);
	return 0;
}
late_initcall(kprobe_debugfs_init);
