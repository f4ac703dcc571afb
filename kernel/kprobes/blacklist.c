// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kprobe blacklist: code that must never be probed, because kprobes
 * itself runs it while handling a probe (a breakpoint there would recurse),
 * or because it runs where the breakpoint exception cannot be taken safely.
 *
 * It is made of:
 *   - the functions listed by NOKPROBE_SYMBOL() in the _kprobe_blacklist
 *     section of vmlinux and of each module;
 *   - the .kprobes.text section (__kprobes) of vmlinux and of each module;
 *   - entry, irqentry and softirqentry text, and noinstr text;
 *   - ftrace's entry and return code (blacklist_ftrace_entry());
 *   - what the arch adds (arch_populate_kprobe_blacklist()) or refuses
 *     (arch_within_kprobe_blacklist()).
 * and, for kretprobes only, the function entries the arch names
 * (arch_kretprobe_blacklisted()).
 *
 * Each function becomes an entry of an RCU list, which debugfs shows; the
 * sections are also checked directly.  Writers hold kprobe_mutex.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/sections.h>

#include "internal.h"

struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
	struct module *mod;
	struct rcu_head rcu;
};

static LIST_HEAD(kprobe_blacklist);

bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return false;
}

int __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

bool __weak arch_kretprobe_blacklisted(unsigned long addr)
{
	return false;
}

static bool in_section(unsigned long addr, const char *start, const char *end)
{
	return addr >= (unsigned long)start && addr < (unsigned long)end;
}

static bool __within_kprobe_blacklist(unsigned long addr)
{
	struct kprobe_blacklist_entry *ent;
	bool ret = false;

	if (in_section(addr, __kprobes_text_start, __kprobes_text_end) ||
	    in_section(addr, __entry_text_start, __entry_text_end) ||
	    in_section(addr, __irqentry_text_start, __irqentry_text_end) ||
	    in_section(addr, __softirqentry_text_start, __softirqentry_text_end) ||
	    in_section(addr, __noinstr_text_start, __noinstr_text_end) ||
	    arch_within_kprobe_blacklist(addr))
		return true;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		if (addr >= ent->start_addr && addr < ent->end_addr) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/**
 * within_kprobe_blacklist() - whether an address must not be probed
 * @addr: the address
 *
 * Return: true if @addr is blacklisted, including in a part of a blacklisted
 * function the compiler split off ("func.cold", "func.part.0").
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	char symname[KSYM_NAME_LEN], *p;

	if (__within_kprobe_blacklist(addr))
		return true;

	if (lookup_symbol_name(addr, symname))
		return false;
	p = strchr(symname, '.');
	if (!p)
		return false;
	*p = '\0';
	addr = (unsigned long)kprobe_lookup_name(symname, 0);
	return addr && __within_kprobe_blacklist(addr);
}
EXPORT_SYMBOL_GPL(within_kprobe_blacklist);

static int blacklist_add(unsigned long entry, struct module *mod)
{
	struct kprobe_blacklist_entry *ent;
	unsigned long size, offset;

	if (!kernel_text_address(entry) ||
	    !kallsyms_lookup_size_offset(entry, &size, &offset))
		return -EINVAL;

	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	ent->start_addr = entry - offset;
	ent->end_addr = entry - offset + size;
	ent->mod = mod;
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	/* What is left of the function from @entry, to step through areas. */
	return size - offset;
}

static int blacklist_add_area(unsigned long start, unsigned long end,
			      struct module *mod)
{
	unsigned long entry;
	int ret;

	for (entry = start; entry < end; entry += ret) {
		ret = blacklist_add(entry, mod);
		if (ret == -ENOMEM)
			return ret;
		/* A gap without symbol (padding): skip it. */
		if (ret <= 0)
			ret = 1;
	}
	return 0;
}

/**
 * kprobe_add_ksym_blacklist() - blacklist the function containing an address
 * @entry: an address in the function
 *
 * For arch_populate_kprobe_blacklist(); kprobe_mutex is held.
 *
 * Return: the size of the function from @entry on, or -errno.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	return blacklist_add(entry, NULL);
}

/**
 * kprobe_add_area_blacklist() - blacklist every function of an area
 * @start: start of the area
 * @end: end of the area (excluded)
 *
 * Return: 0 or -ENOMEM.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	return blacklist_add_area(start, end, NULL);
}

/*
 * ftrace's entry and return code, in each arch's asm, under the names that
 * <linux/ftrace.h> declares.  A traced function calls it before its
 * prologue, or returns into it when the graph tracer took its return, with
 * conventions of its own: what is in the link register or on top of the
 * stack there is not a return address for a kretprobe to take, and ftrace
 * patches the calls at ftrace_call and ftrace_regs_call.  Names a
 * configuration lacks are not found; those the arch already blacklisted
 * (x86's templates) are not listed twice.  The arch lists its other such
 * code itself.
 */
static const char *const ftrace_entry_names[] __initconst = {
	"ftrace_caller",
	"ftrace_call",
	"ftrace_regs_caller",
	"ftrace_regs_call",
	"ftrace_stub",
	"return_to_handler",
	"mcount",
	"_mcount",
};

static int __init blacklist_ftrace_entry(void)
{
	unsigned long addr;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(ftrace_entry_names); i++) {
		addr = kallsyms_lookup_name(ftrace_entry_names[i]);
		if (!addr || __within_kprobe_blacklist(addr))
			continue;
		ret = blacklist_add(addr, NULL);
		if (ret == -ENOMEM)
			return ret;
	}
	return 0;
}

int __init kprobe_blacklist_init(void)
{
	unsigned long *iter;
	int ret;

	for (iter = __start_kprobe_blacklist; iter < __stop_kprobe_blacklist;
	     iter++) {
		/* A function descriptor's address on ppc64 ELFv1. */
		ret = blacklist_add((unsigned long)
				    dereference_symbol_descriptor((void *)*iter),
				    NULL);
		if (ret == -ENOMEM)
			return ret;
		/* Others: the symbol is not text (compiled out), skip it. */
	}

	ret = blacklist_add_area((unsigned long)__kprobes_text_start,
				 (unsigned long)__kprobes_text_end, NULL);
	ret = ret ?: blacklist_add_area((unsigned long)__entry_text_start,
					(unsigned long)__entry_text_end, NULL);
	ret = ret ?: blacklist_add_area((unsigned long)__irqentry_text_start,
					(unsigned long)__irqentry_text_end, NULL);
	ret = ret ?: blacklist_add_area((unsigned long)__softirqentry_text_start,
					(unsigned long)__softirqentry_text_end, NULL);
	ret = ret ?: blacklist_add_area((unsigned long)__noinstr_text_start,
					(unsigned long)__noinstr_text_end, NULL);
	ret = ret ?: arch_populate_kprobe_blacklist();
	return ret ?: blacklist_ftrace_entry();
}

#ifdef CONFIG_MODULES
/* A module is coming: blacklist its NOKPROBE_SYMBOL()s and sections. */
int kprobe_blacklist_add_module(struct module *mod)
{
	unsigned long start;
	unsigned int i;
	int ret;

	for (i = 0; i < mod->num_kprobe_blacklist; i++) {
		void *fn = (void *)mod->kprobe_blacklist[i];

		ret = blacklist_add((unsigned long)
				    dereference_symbol_descriptor(fn), mod);
		if (ret == -ENOMEM)
			goto fail;
	}
	start = (unsigned long)mod->kprobes_text_start;
	ret = blacklist_add_area(start, start + mod->kprobes_text_size, mod);
	if (ret)
		goto fail;
	start = (unsigned long)mod->noinstr_text_start;
	ret = blacklist_add_area(start, start + mod->noinstr_text_size, mod);
	if (ret)
		goto fail;
	return 0;
fail:
	pr_warn("blacklist of module %s incomplete\n", mod->name);
	return ret;
}

/*
 * A module is going: forget its entries.  Or, @init_only, it is live: forget
 * those in its init text, which is freed next and may then hold other text.
 */
void kprobe_blacklist_remove_module(struct module *mod, bool init_only)
{
	struct kprobe_blacklist_entry *ent, *tmp;

	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (ent->mod != mod ||
		    (init_only && !within_module_init(ent->start_addr, mod)))
			continue;
		list_del_rcu(&ent->list);
		kfree_rcu(ent, rcu);
	}
}
#endif

/* debugfs kprobes/blacklist: one "0x<start>-0x<end>\t<symbol>" per entry. */
void kprobe_blacklist_seq_show(struct seq_file *m, bool show_addr)
{
	const int width = 2 * sizeof(long);
	struct kprobe_blacklist_entry *ent;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(ent, &kprobe_blacklist, list) {
		seq_printf(m, "0x%0*lx-0x%0*lx\t%ps\n",
			   width, show_addr ? ent->start_addr : 0,
			   width, show_addr ? ent->end_addr : 0,
			   (void *)ent->start_addr);
	}
	mutex_unlock(&kprobe_mutex);
}
