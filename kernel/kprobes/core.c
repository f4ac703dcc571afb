// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes core: probes, sites, registration and the services of the hit path.
 *
 * Every probed address has one site: a struct kprobe allocated by the core
 * (inside a struct kprobe_site), hashed by address and armed by arch code.
 * The users' probes at that address are the site's members; the site's hit
 * path services walk them in registration order.  The arch code never sees a
 * user's probe, so adding a second probe at an address is a list insertion
 * and removing one never touches the text unless it was the last.
 *
 * Locking: kprobe_mutex serializes every change.  The hash and the member
 * lists are RCU lists: the hit path walks them with preemption disabled and
 * no lock, so an unlinked probe or site is freed only after synchronize_rcu().
 * Text changes are made under text_mutex, in batches: a whole register_kprobes()
 * or unregister_kprobes() call arms or disarms its sites and synchronizes the
 * other CPUs once (arch_kprobe_sync()), and waits for one grace period.  On
 * arches that cannot swap a breakpoint and an arbitrary instruction under a
 * CPU executing it, the batch's writes are made in one stop_machine().
 *
 * Besides the hit path, the entry points of the API are NOKPROBE_SYMBOL():
 * kprobes does not probe its own code.  The functions of the hit path are
 * not traced either (notrace here, the arch's files are built without the
 * ftrace flags): a tracer's callback would run inside every hit.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/cpu.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/stop_machine.h>
#include <asm/sections.h>

#include "internal.h"

/* Serializes registration, arming and text changes of probes. */
DEFINE_MUTEX(kprobe_mutex);

/* Sites by address; a user's probe is never hashed, only its site. */
struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

/* debugfs kprobes/enabled: when set, no site is armed, whatever its members. */
bool kprobes_all_disarmed;

static bool kprobes_initialized;

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
EXPORT_PER_CPU_SYMBOL_GPL(current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* See <linux/kprobes.h>: set around the handler calls of aggregates. */
DEFINE_PER_CPU(struct kprobe *, kprobe_instance);

/* ---------------------------------------------------------------------------
 * The hit path.  Preemption is disabled, no lock is taken.
 *
 * Its walks of the RCU hash and site lists are the lockless (unchecked)
 * ones: a lockdep check (CONFIG_PROVE_RCU_LIST) calls rcu_read_lock_any_held()
 * and what it calls, which can be probed, before any reentry test, so that
 * a probe there would recurse until the stack overflows.
 * ---------------------------------------------------------------------------
 */

/**
 * get_kprobe() - the site armed at an address
 * @addr: the probed address
 *
 * Called by arch code on the hit path (RCU, preemption disabled) and with
 * kprobe_mutex held.  Sites whose text went away are not returned.
 *
 * Return: the site at @addr, or NULL.
 */
notrace struct kprobe *get_kprobe(void *addr)
{
	return __get_kprobe(addr);
}
EXPORT_SYMBOL_GPL(get_kprobe);
NOKPROBE_SYMBOL(get_kprobe);

/**
 * __kprobe_call_pre_handlers() - run the pre handlers of a site's probes
 * @site: the site that was hit
 * @regs: the registers at the probed address
 *
 * Counts a hit for every enabled probe and calls its pre handler, in
 * registration order.  A handler that returns non-zero changed the
 * instruction pointer: the remaining handlers are skipped.
 *
 * Return: non-zero if a handler redirected execution.
 */
notrace int __kprobe_call_pre_handlers(struct kprobe *site,
				       struct pt_regs *regs)
{
	struct kprobe *p;
	int ret = 0;

	/*
	 * The arch set current_kprobe before calling us, so a probe hit on
	 * this CPU until it is cleared, by an interrupt or an NMI too, counts
	 * a miss and no hit: the hit counts need no irq-safe increment.
	 */
	list_for_each_entry_lockless(p, &site->list, list) {
		if (unlikely(kprobe_disabled(p)))
			continue;
		__this_cpu_inc(*p->hits);
		if (!p->pre_handler)
			continue;
		__this_cpu_write(kprobe_instance, p);
		ret = p->pre_handler(p, regs);
		if (ret)
			break;
	}
	__this_cpu_write(kprobe_instance, NULL);
	return ret;
}

NOKPROBE_SYMBOL(__kprobe_call_pre_handlers);

/**
 * __kprobe_call_post_handlers() - run the post handlers of a site's probes
 * @site: the site whose probed instruction just ran
 * @regs: the registers after the probed instruction
 */
notrace void __kprobe_call_post_handlers(struct kprobe *site,
					 struct pt_regs *regs)
{
	struct kprobe *p;

	list_for_each_entry_lockless(p, &site->list, list) {
		if (!p->post_handler || unlikely(kprobe_disabled(p)))
			continue;
		__this_cpu_write(kprobe_instance, p);
		p->post_handler(p, regs, 0);
	}
	__this_cpu_write(kprobe_instance, NULL);
}

NOKPROBE_SYMBOL(__kprobe_call_post_handlers);

/**
 * kprobe_call_fault_handlers() - offer a fault to the probes of a site
 * @site: the site being handled on this CPU
 * @regs: the registers at the fault
 * @trapnr: the arch's trap number
 *
 * A fault inside a pre or post handler of an aggregate's member is offered
 * to that member only; a fault of the probed instruction itself, running out
 * of line, or of a lone member's handler, is offered to every enabled probe
 * of the site until one fixes it.
 *
 * Return: 1 if a fault handler fixed the fault, else 0.
 */
notrace int kprobe_call_fault_handlers(struct kprobe *site,
				       struct pt_regs *regs, int trapnr)
{
	struct kprobe *cur = __this_cpu_read(kprobe_instance);
	struct kprobe *p;

	if (cur)
		return cur->fault_handler && cur->fault_handler(cur, regs, trapnr);

	list_for_each_entry_lockless(p, &site->list, list) {
		if (p->fault_handler && !kprobe_disabled(p) &&
		    p->fault_handler(p, regs, trapnr))
			return 1;
	}
	return 0;
}

NOKPROBE_SYMBOL(kprobe_call_fault_handlers);

/**
 * kprobes_inc_nmissed_count() - count a hit whose handlers did not run
 * @site: the site that was hit, typically while another probe was running
 */
notrace void kprobes_inc_nmissed_count(struct kprobe *site)
{
	struct kprobe *p;

	list_for_each_entry_lockless(p, &site->list, list) {
		if (!kprobe_disabled(p))
			kprobe_count_missed(&p->nmissed);
	}
}

NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/*
 * A site's own handlers.  Arch code is expected to call the services above
 * directly; these make a site behave if it calls the pointers anyway, and
 * identify a struct kprobe as a site.
 */
static int site_pre_handler(struct kprobe *site, struct pt_regs *regs)
{
	return __kprobe_call_pre_handlers(site, regs);
}

NOKPROBE_SYMBOL(site_pre_handler);

static void site_post_handler(struct kprobe *site, struct pt_regs *regs,
			      unsigned long flags)
{
	__kprobe_call_post_handlers(site, regs);
}

NOKPROBE_SYMBOL(site_post_handler);

static int site_fault_handler(struct kprobe *site, struct pt_regs *regs,
			      int trapnr)
{
	return kprobe_call_fault_handlers(site, regs, trapnr);
}

NOKPROBE_SYMBOL(site_fault_handler);

bool kprobe_is_site(struct kprobe *p)
{
	return p->pre_handler == site_pre_handler;
}

/*
 * What kprobe_running() returns between kprobe_busy_begin() and _end(): not a
 * real probe, so that a probe hit in between counts as a reentry.
 */
struct kprobe kprobe_busy = {
	.addr = (kprobe_opcode_t *)kprobe_busy_begin,
	/*
	 * A fault in code run while this is kprobe_running() is offered to
	 * this one's probes: it has none, but its list must be walkable.
	 */
	.list = LIST_HEAD_INIT(kprobe_busy.list),
};

/**
 * kprobe_busy_begin() - make probe hits on this CPU count as missed
 *
 * Disables preemption until kprobe_busy_end().  The caller must have checked
 * that no probe is running on this CPU.
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
}
EXPORT_SYMBOL_GPL(kprobe_busy_begin);
NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end of a kprobe_busy_begin() section
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}
EXPORT_SYMBOL_GPL(kprobe_busy_end);
NOKPROBE_SYMBOL(kprobe_busy_end);

/* ---------------------------------------------------------------------------
 * Default arch hooks.
 * ---------------------------------------------------------------------------
 */

/**
 * kprobe_lookup_name() - the address of a function, for probing
 * @name: the symbol ("func" or "module:func")
 * @offset: the offset that will be probed in it, for arches whose function
 *	symbols need it to pick an entry point
 *
 * Return: the function's address, or NULL if there is no such symbol.
 */
kprobe_opcode_t *__weak kprobe_lookup_name(const char *name,
					   unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}
EXPORT_SYMBOL_GPL(kprobe_lookup_name);

kprobe_opcode_t *__weak arch_adjust_kprobe_addr(unsigned long addr,
						unsigned long offset,
						bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)addr;
}

int __weak arch_init_kprobes(void)
{
	return 0;
}

/* ---------------------------------------------------------------------------
 * Where a probe lands, and whether it may land there.
 * ---------------------------------------------------------------------------
 */

/*
 * Resolve @sym (or @addr) + @offset.  The result may lie past the end of
 * @sym: perf probe writes kernel probes as _text+N.  What counts is the
 * function that contains it.  Returns the address the probe lands on, as
 * adjusted by the arch, or ERR_PTR(): -EINVAL for a malformed request or an
 * address no function contains, -ENOENT for an unknown symbol (or an offset
 * from it that lands in no function).
 */
static kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr, const char *sym,
				       unsigned long offset, bool *on_entry)
{
	unsigned long target, size, off;

	if (!addr == !sym)
		return ERR_PTR(-EINVAL);

	if (sym) {
		addr = kprobe_lookup_name(sym, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}
	if (check_add_overflow((unsigned long)addr, offset, &target) ||
	    !kallsyms_lookup_size_offset(target, &size, &off))
		return ERR_PTR(sym ? -ENOENT : -EINVAL);

	return arch_adjust_kprobe_addr(target, off, on_entry);
}

/**
 * kprobe_on_func_entry() - whether a probe would be at a function's entry
 * @addr: the address to probe, or NULL with @sym
 * @sym: the function to probe, or NULL with @addr
 * @offset: the offset from @addr or @sym
 *
 * Return: 0 if the probe would be on the entry of a function, -EINVAL if
 * not, or another -errno if the request cannot be resolved (-ENOENT for an
 * unknown symbol).
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	kprobe_opcode_t *where;
	bool on_entry;

	where = kprobe_resolve(addr, sym, offset, &on_entry);
	if (IS_ERR(where))
		return PTR_ERR(where);
	return on_entry ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(kprobe_on_func_entry);
NOKPROBE_SYMBOL(kprobe_on_func_entry);

#ifdef CONFIG_MODULES
/*
 * The coming modules whose MODULE_STATE_COMING notification kprobes had
 * (kprobe_mutex).  A module is COMING, its text found by address and
 * pinnable, before the notifier chain runs: until kprobes' notifier has
 * blacklisted its NOKPROBE_SYMBOL()s, and while a notifier before ours may
 * still fail the load (and free the text without a GOING notification), its
 * text is not probed.
 */
struct kprobe_coming_module {
	struct list_head list;
	struct module *mod;
};

static LIST_HEAD(kprobe_coming_modules);

static struct kprobe_coming_module *kprobe_find_coming(struct module *mod)
{
	struct kprobe_coming_module *c;

	list_for_each_entry(c, &kprobe_coming_modules, list) {
		if (c->mod == mod)
			return c;
	}
	return NULL;
}

/*
 * Pin the module whose text contains @a for as long as the batch patches it.
 * Module init text is probeable only while the module's init runs.
 */
static int kprobe_get_text_module(unsigned long a, struct module **modp)
{
	struct module *mod;

	preempt_disable();
	mod = __module_text_address(a);
	if (mod && !try_module_get(mod)) {
		preempt_enable();
		return -ENOENT;
	}
	preempt_enable();
	if (!mod)
		return -EINVAL;
	/* Not announced yet: as if it were not there. */
	if (mod->state == MODULE_STATE_COMING && !kprobe_find_coming(mod)) {
		module_put(mod);
		return -ENOENT;
	}
	if (within_module_init(a, mod) && mod->state != MODULE_STATE_COMING) {
		module_put(mod);
		return -EINVAL;
	}
	*modp = mod;
	return 0;
}
#else
static int kprobe_get_text_module(unsigned long a, struct module **modp)
{
	return -EINVAL;
}
#endif

#ifndef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_check(unsigned long addr, bool *on_ftrace)
{
	/* ftrace would rewrite an instruction the breakpoint replaced. */
	*on_ftrace = false;
	return ftrace_text_reserved((void *)addr, (void *)addr) ? -EINVAL : 0;
}

void kprobe_ftrace_kill(void)
{
}
#endif

/*
 * The padding before a function (__pfx_*), and kCFI's type hash there
 * (__cfi_*), which callers read as data: not code to probe.
 */
static bool kprobe_in_preamble(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name(addr, name))
		return false;
	return str_has_prefix(name, "__pfx_") || str_has_prefix(name, "__cfi_");
}

/**
 * kprobe_text_reserved() - whether jump labels or static calls own some text
 * @start: its first byte
 * @end: its last byte
 *
 * For the core's checks of a new probe and the arch's checks of the range a
 * jump replaces; kprobe_mutex held, no CPU hotplug or jump label lock.
 *
 * Return: true if a jump label or a static call site lies in [@start, @end].
 */
bool kprobe_text_reserved(void *start, void *end)
{
	bool ret;

	cpus_read_lock();
	jump_label_lock();
	ret = jump_label_text_reserved(start, end) ||
	      static_call_text_reserved(start, end);
	jump_label_unlock();
	cpus_read_unlock();
	return ret;
}

/*
 * May @addr be probed?  On success the module containing it, if any, is
 * pinned in *@modp, and *@on_ftrace says whether the site must be armed
 * through ftrace.
 */
static int kprobe_check_addr(kprobe_opcode_t *addr, struct module **modp,
			     bool *on_ftrace)
{
	unsigned long a = (unsigned long)addr;
	struct module *mod = NULL;
	int ret;

	if (!core_kernel_text(a)) {
		ret = kprobe_get_text_module(a, &mod);
		if (ret)
			return ret;
	}

	if (within_kprobe_blacklist(a) || kprobe_in_preamble(a)) {
		ret = -EINVAL;
		goto fail;
	}
	ret = kprobe_ftrace_check(a, on_ftrace);
	if (ret)
		goto fail;

	/* Code patched by jump labels and static calls is theirs. */
	if (kprobe_text_reserved(addr, addr)) {
		ret = -EBUSY;
		goto fail;
	}

	*modp = mod;
	return 0;
fail:
	module_put(mod);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Sites.
 * ---------------------------------------------------------------------------
 */

static bool site_has_enabled_member(struct kprobe *kp)
{
	struct kprobe *p;

	list_for_each_entry(p, &kp->list, list) {
		if (!kprobe_disabled(p))
			return true;
	}
	return false;
}

static bool site_has_post_handler(struct kprobe *kp)
{
	struct kprobe *p;

	list_for_each_entry(p, &kp->list, list) {
		if (p->post_handler)
			return true;
	}
	return false;
}

/* The jprobe of a site, always its last member, or NULL. */
static struct kprobe *site_jprobe(struct kprobe *kp)
{
	struct kprobe *last;

	if (list_empty(&kp->list))
		return NULL;
	last = list_last_entry(&kp->list, struct kprobe, list);
	return last->flags & KPROBE_FLAG_JPROBE ? last : NULL;
}

/* Whether @s should be armed, given its members and the global switch. */
bool kprobe_site_wants_armed(struct kprobe_site *s)
{
	struct kprobe *kp = site_kp(s);

	if (kprobes_all_disarmed || kprobe_gone(kp) ||
	    (s->state & (SITE_DYING | SITE_GOING)))
		return false;
	return site_has_enabled_member(kp);
}

/* The site a registered probe hangs off, gone or not. */
static struct kprobe_site *find_member_site(struct kprobe *p)
{
	struct kprobe *kp, *q;

	if (!p->hits)
		return NULL;
	hlist_for_each_entry(kp, kprobe_bucket(p->addr), hlist) {
		if (kp->addr != p->addr)
			continue;
		list_for_each_entry(q, &kp->list, list) {
			if (q == p)
				return to_site(kp);
		}
	}
	return NULL;
}

static void batch_add(struct list_head *batch, struct kprobe_site *s)
{
	if (list_empty(&s->batch))
		list_add_tail(&s->batch, batch);
}

/* Add every site to @batch. */
void kprobe_batch_all(struct list_head *batch)
{
	struct kprobe *kp;
	int i;

	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(kp, &kprobe_table[i], hlist)
			batch_add(batch, to_site(kp));
	}
}

/* Done with @batch: unpin the modules, unlink the sites. */
void kprobe_batch_finish(struct list_head *batch)
{
	struct kprobe_site *s, *tmp;

	list_for_each_entry_safe(s, tmp, batch, batch) {
		module_put(s->mod);
		s->mod = NULL;
		list_del_init(&s->batch);
	}
}

/* Whether the breakpoint of @s must be written or removed. */
static bool site_needs_write(struct kprobe_site *s)
{
	return !kprobe_ftrace(site_kp(s)) &&
	       kprobe_site_wants_armed(s) != !!(s->state & SITE_ARMED);
}

/*
 * Write or remove the breakpoints of the sites on @batch that need it.
 * Runs in stop_machine() with __ARCH_WANT_KPROBES_STOP_MACHINE: the task
 * that stopped the CPUs holds kprobe_mutex, so nothing read here changes.
 */
static int batch_write_breakpoints(void *batch)
{
	struct kprobe_site *s;

	list_for_each_entry(s, (struct list_head *)batch, batch) {
		if (!site_needs_write(s))
			continue;
		if (s->state & SITE_ARMED)
			arch_disarm_kprobe(site_kp(s));
		else
			arch_arm_kprobe(site_kp(s));
		s->state ^= SITE_ARMED;
	}
	return 0;
}

/*
 * Bring the text of every site on @batch in line with what it wants: leave
 * the optimized state where it must not stay, arm and disarm the ftrace
 * sites (arming first: a site changing ftrace_ops is on both for a while,
 * never on none), disarm or arm the breakpoints with a single
 * arch_kprobe_sync() for all, and queue for optimization what can be.
 * Returns 0 or the error of arming through ftrace.
 */
int kprobe_batch_apply(struct list_head *batch)
{
	struct kprobe_site *s;
	bool write = false;
	int ret;

	lockdep_assert_held(&kprobe_mutex);

	kprobe_opt_unoptimize_sites(batch);
	ret = kprobe_ftrace_arm_sites(batch);
	kprobe_ftrace_disarm_sites(batch);

	list_for_each_entry(s, batch, batch)
		write |= site_needs_write(s);
	if (write) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
#ifdef __ARCH_WANT_KPROBES_STOP_MACHINE
		stop_machine_cpuslocked(batch_write_breakpoints, batch, NULL);
#else
		batch_write_breakpoints(batch);
#endif
		arch_kprobe_sync();
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
	}

	kprobe_opt_optimize_sites(batch);
	return ret;
}

static struct kprobe_site *site_create(kprobe_opcode_t *addr, bool on_entry,
				       bool on_ftrace)
{
	struct kprobe_site *s;
	struct kprobe *kp;
	bool covered;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&s->batch);
	kp = site_kp(s);
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&kp->list);
	kp->addr = addr;
	kp->pre_handler = site_pre_handler;
	kp->fault_handler = site_fault_handler;
	if (on_entry)
		kp->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;

	/*
	 * A jump optimizing a site just before @addr may cover it: put the
	 * original instructions back before the arch decodes them.
	 */
	covered = kprobe_opt_unoptimize_covering(addr);

	if (on_ftrace) {
		kp->flags |= KPROBE_FLAG_FTRACE;
		ret = kprobe_ftrace_prepare(kp);
	} else {
		ret = arch_prepare_kprobe(kp);
	}
	if (ret) {
		kfree(s);
		/* No new site after all: that jump may go back in. */
		if (covered)
			kprobe_opt_retry_before(addr);
		return ERR_PTR(ret);
	}
	return s;
}

static void site_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct kprobe_site, rcu));
}

static void site_free(struct kprobe_site *s)
{
	kprobe_opt_remove_site(s);
	arch_remove_kprobe(site_kp(s));
	/*
	 * A task preempted in a detour of the site, even one removed long
	 * ago, may still pass the site to the detour's handler: the RCU grace
	 * period that the site's unlinking waited for does not wait for it.
	 */
	if (s->state & SITE_OPT_BUILT)
		call_rcu_tasks(&s->rcu, site_free_rcu);
	else
		kfree(s);
}

/* ---------------------------------------------------------------------------
 * The modules of the handlers.
 * ---------------------------------------------------------------------------
 */

#define KPROBE_USER_CODE	3

/*
 * The code that the user of @p gave it to call: its handlers, or those of
 * the kretprobe or jprobe around it (whose kprobe handlers are the core's).
 */
static void kprobe_user_code(struct kprobe *p,
			     unsigned long code[KPROBE_USER_CODE])
{
	code[0] = (unsigned long)p->pre_handler;
	code[1] = (unsigned long)p->post_handler;
	code[2] = (unsigned long)p->fault_handler;
#ifdef CONFIG_KRETPROBES
	if (p->flags & KPROBE_FLAG_KRETPROBE) {
		struct kretprobe *rp = container_of(p, struct kretprobe, kp);

		code[0] = (unsigned long)rp->handler;
		code[1] = (unsigned long)rp->entry_handler;
	}
#endif
#ifdef CONFIG_JPROBES
	if (p->flags & KPROBE_FLAG_JPROBE) {
		struct jprobe *jp = container_of(p, struct jprobe, kp);

		code[0] = (unsigned long)jp->entry;
		code[1] = 0;
	}
#endif
}

#ifdef CONFIG_MODULES
/*
 * A module whose handlers another module registered stays loaded until the
 * probe is unregistered: nothing else would stop it from going while its
 * code is called.  A module registering its own handlers is not pinned, or
 * it could never be unloaded: its exit is what unregisters them, and it
 * cannot run while the module is pinned (the core unregisters what a going
 * module left, see kprobe_remove_owned()).
 *
 * The registrant is the module the probe's structure is in, which is the
 * one that unregisters it; for a structure allocated at run time, the
 * module that called the API (@caller, the return address of the API
 * function).  A module that tail-calls the API (return register_kprobe(p);)
 * leaves no frame of its own: then the caller looks like core code, which
 * in-tree never registers a module's handlers, and nothing is pinned.
 *
 * Return: 0; -ENOENT if the handlers' module is going away; -EINVAL if the
 * handlers are in two modules besides the registrant.
 */
static int kprobe_pin_owner(struct kprobe *p, unsigned long caller)
{
	unsigned long code[KPROBE_USER_CODE];
	struct module *by, *m, *mod = NULL;
	int i, ret = 0;

	kprobe_user_code(p, code);
	preempt_disable();
	by = __module_address((unsigned long)p);
	if (!by)
		by = __module_text_address(caller);
	for (i = 0; by && i < KPROBE_USER_CODE; i++) {
		m = code[i] ? __module_text_address(code[i]) : NULL;
		if (!m || m == by || m == mod)
			continue;
		if (mod) {
			ret = -EINVAL;
			break;
		}
		mod = m;
	}
	if (!ret && mod && !try_module_get(mod))
		ret = -ENOENT;
	preempt_enable();
	p->owner = ret ? NULL : mod;
	return ret;
}

static void kprobe_unpin_owner(struct kprobe *p)
{
	module_put(p->owner);
	p->owner = NULL;
}
#else
static int kprobe_pin_owner(struct kprobe *p, unsigned long caller)
{
	return 0;
}

static void kprobe_unpin_owner(struct kprobe *p)
{
}
#endif

/* Flags a probe may carry into registration. */
#define KPROBE_FLAGS_IN	(KPROBE_FLAG_DISABLED | KPROBE_FLAG_KRETPROBE | \
			 KPROBE_FLAG_JPROBE)

/* Register @p as a member of the site at its address; the site joins @batch. */
static int __kprobe_add(struct kprobe *p, struct list_head *batch)
{
	struct kprobe_site *s;
	struct module *mod = NULL;
	kprobe_opcode_t *addr;
	struct kprobe *kp, *jp;
	bool on_entry, on_ftrace = false;
	int ret;

	addr = kprobe_resolve(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	/* A jprobe sees the arguments of a function: only at its entry. */
	if ((p->flags & KPROBE_FLAG_JPROBE) && !on_entry)
		return -EINVAL;
	if ((p->flags & KPROBE_FLAG_KRETPROBE) &&
	    arch_kretprobe_blacklisted((unsigned long)addr))
		return -EINVAL;
	ret = kprobe_check_addr(addr, &mod, &on_ftrace);
	if (ret)
		return ret;

	p->hits = alloc_percpu(unsigned long);
	if (!p->hits) {
		ret = -ENOMEM;
		goto out_put;
	}

	kp = get_kprobe(addr);
	if (kp && (p->flags & KPROBE_FLAG_JPROBE) && site_jprobe(kp)) {
		/* Two would each restore the registers the other changed. */
		ret = -EBUSY;
		free_percpu(p->hits);
		p->hits = NULL;
		goto out_put;
	}
	if (kp) {
		s = to_site(kp);
	} else {
		s = site_create(addr, on_entry, on_ftrace);
		if (IS_ERR(s)) {
			ret = PTR_ERR(s);
			free_percpu(p->hits);
			p->hits = NULL;
			goto out_put;
		}
		kp = site_kp(s);
	}

	p->addr = addr;
	p->nmissed = 0;
	p->flags |= on_entry ? KPROBE_FLAG_ON_FUNC_ENTRY : 0;
	INIT_HLIST_NODE(&p->hlist);

	/*
	 * The arch must not boost a site with a post handler and a detour does
	 * not run post handlers: go back to the breakpoint before the new
	 * probe can be hit.
	 */
	if (p->post_handler && !kp->post_handler) {
		WRITE_ONCE(kp->post_handler, site_post_handler);
		kprobe_opt_unoptimize_site(s);
	}

	/*
	 * A jprobe's pre handler redirects execution: the other probes' run
	 * before it, and a jump detour cannot redirect, so a site with a
	 * jprobe goes back to (or stays) a breakpoint.
	 */
	jp = site_jprobe(kp);
	if (p->flags & KPROBE_FLAG_JPROBE) {
		WRITE_ONCE(kp->flags, kp->flags | KPROBE_FLAG_JPROBE);
		kprobe_opt_unoptimize_site(s);
	}
	if (jp)
		list_add_tail_rcu(&p->list, &jp->list);
	else
		list_add_tail_rcu(&p->list, &kp->list);
	if (hlist_unhashed(&kp->hlist))
		hlist_add_head_rcu(&kp->hlist, kprobe_bucket(addr));

	batch_add(batch, s);
	if (!s->mod) {
		s->mod = mod;
		mod = NULL;
	}
	ret = 0;
out_put:
	module_put(mod);
	return ret;
}

static int kprobe_add(struct kprobe *p, struct list_head *batch,
		      unsigned long caller)
{
	int ret;

	if (!p || p->hits || (p->flags & ~KPROBE_FLAGS_IN))
		return -EINVAL;
	ret = kprobe_pin_owner(p, caller);
	if (ret)
		return ret;
	ret = __kprobe_add(p, batch);
	if (ret)
		kprobe_unpin_owner(p);
	return ret;
}

static struct kprobe *nth_kprobe(void *vec, int i)
{
	return ((struct kprobe **)vec)[i];
}

/*
 * Unregistration, first half: unlink the probes, disarm the sites left
 * without members and unhash them onto @dead.  Returns how many probes were
 * unlinked; they are marked KPROBE_FLAG_UNREGISTERING until the second half.
 */
static int kprobes_unlink(void *vec, kprobe_nth_t nth, int num,
			  struct list_head *dead)
{
	struct kprobe_site *s, *tmp;
	LIST_HEAD(batch);
	int i, count = 0;

	lockdep_assert_held(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		struct kprobe *p = nth(vec, i);
		struct kprobe *kp;

		if (!p)
			continue;
		s = find_member_site(p);
		if (!s)
			continue;
		kp = site_kp(s);
		list_del_rcu(&p->list);
		if (p->flags & KPROBE_FLAG_JPROBE)
			WRITE_ONCE(kp->flags, kp->flags & ~KPROBE_FLAG_JPROBE);
		p->flags |= KPROBE_FLAG_UNREGISTERING;
		count++;
		if (list_empty(&kp->list))
			s->state |= SITE_DYING;
		else if (p->post_handler && !site_has_post_handler(kp))
			WRITE_ONCE(kp->post_handler, NULL);
		batch_add(&batch, s);
	}

	/* Disarming does not fail; what ftrace might refuse is left to it. */
	kprobe_batch_apply(&batch);

	list_for_each_entry_safe(s, tmp, &batch, batch) {
		module_put(s->mod);
		s->mod = NULL;
		if (s->state & SITE_DYING) {
			hlist_del_init_rcu(&site_kp(s)->hlist);
			list_move_tail(&s->batch, dead);
		} else {
			list_del_init(&s->batch);
		}
	}
	list_for_each_entry(s, dead, batch)
		kprobe_opt_retry_before(site_kp(s)->addr);
	return count;
}

int __unregister_kprobes_top(void *vec, kprobe_nth_t nth, int num,
			     struct list_head *dead)
{
	int count;

	mutex_lock(&kprobe_mutex);
	count = kprobes_unlink(vec, nth, num, dead);
	mutex_unlock(&kprobe_mutex);
	return count;
}

/*
 * Unregistration, second half, after a grace period: no CPU runs a handler
 * of the unlinked probes or uses the dead sites any more.
 */
void __unregister_kprobes_bottom(void *vec, kprobe_nth_t nth, int num,
				 struct list_head *dead)
{
	struct kprobe_site *s, *tmp;
	int i;

	if (!list_empty(dead)) {
		mutex_lock(&kprobe_mutex);
		list_for_each_entry_safe(s, tmp, dead, batch) {
			list_del(&s->batch);
			site_free(s);
		}
		mutex_unlock(&kprobe_mutex);
	}

	for (i = 0; i < num; i++) {
		struct kprobe *p = nth(vec, i);

		if (!p || !(p->flags & KPROBE_FLAG_UNREGISTERING))
			continue;
		free_percpu(p->hits);
		p->hits = NULL;
		kprobe_unpin_owner(p);
		INIT_LIST_HEAD(&p->list);
		INIT_HLIST_NODE(&p->hlist);
		/*
		 * Ready to be registered again by symbol; one given by address
		 * keeps the resolved one (see struct kprobe).
		 */
		if (p->symbol_name)
			p->addr = NULL;
		if (p->flags & KPROBE_FLAG_ROLLBACK)
			p->flags &= KPROBE_FLAG_DISABLED;
		else
			p->flags = 0;
	}
}

void __unregister_kprobes(void *vec, kprobe_nth_t nth, int num)
{
	LIST_HEAD(dead);

	if (num <= 0)
		return;
	if (!__unregister_kprobes_top(vec, nth, num, &dead))
		return;
	synchronize_rcu();
	__unregister_kprobes_bottom(vec, nth, num, &dead);
}

/*
 * Register @num probes all or nothing: on failure the ones already added are
 * unregistered and the error of the failing one returned.  They are unlinked
 * before kprobe_mutex is dropped, so that nothing (a probe added at the same
 * address, enable_kprobe(), debugfs' "enabled") can arm them in between.
 */
int __register_kprobes(void *vec, kprobe_nth_t nth, int num,
		       unsigned long caller)
{
	LIST_HEAD(batch);
	LIST_HEAD(dead);
	int i, j, ret = 0, count = 0;

	if (num <= 0 || !vec)
		return -EINVAL;
	if (!READ_ONCE(kprobes_initialized))
		return -EAGAIN;

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		ret = kprobe_add(nth(vec, i), &batch, caller);
		if (ret)
			break;
	}
	if (!ret)
		ret = kprobe_batch_apply(&batch);
	kprobe_batch_finish(&batch);
	for (j = 0; ret && j < i; j++) {
		struct kprobe *p = nth(vec, j);

		WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_ROLLBACK);
	}
	if (ret)
		count = kprobes_unlink(vec, nth, i, &dead);
	mutex_unlock(&kprobe_mutex);

	if (count) {
		synchronize_rcu();
		__unregister_kprobes_bottom(vec, nth, i, &dead);
	}
	return ret;
}

static bool kprobe_user_flags_ok(struct kprobe *p)
{
	return p && !(p->flags & ~KPROBE_FLAG_DISABLED);
}

/**
 * register_kprobe() - register a probe
 * @p: the probe: .addr or .symbol_name (not both), .offset, handlers, and
 *	.flags 0 or KPROBE_FLAG_DISABLED
 *
 * While @p is registered, the module of its handlers is pinned if another
 * module registered it (see Documentation/trace/kprobes.rst).
 *
 * Return: 0, or -EINVAL for a malformed or already registered probe or an
 * address that cannot be probed, -ENOENT for an unknown symbol or a module
 * going away (the probed one, or the one of the handlers), -EILSEQ for an
 * address not on an instruction boundary, -EBUSY for
 * text owned by jump labels or static calls, -ENOMEM; -EAGAIN before kprobes
 * are initialized; -ENODEV on an ftrace site once ftrace is dead, or the
 * error of arming through ftrace; what the arch returns (x86: -ERANGE;
 * -EFAULT).  See Documentation/trace/kprobes.rst.
 */
int register_kprobe(struct kprobe *p)
{
	if (!kprobe_user_flags_ok(p))
		return -EINVAL;
	return __register_kprobes(&p, nth_kprobe, 1, _RET_IP_);
}
EXPORT_SYMBOL_GPL(register_kprobe);
NOKPROBE_SYMBOL(register_kprobe);

/**
 * register_kprobes() - register probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * The probes are armed together, with one synchronization of the CPUs.
 *
 * Return: 0, or the error of the first probe that failed (see
 * register_kprobe()); then none is registered.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	int i;

	if (num <= 0 || !kps)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		if (!kprobe_user_flags_ok(kps[i]))
			return -EINVAL;
	}
	return __register_kprobes(kps, nth_kprobe, num, _RET_IP_);
}
EXPORT_SYMBOL_GPL(register_kprobes);
NOKPROBE_SYMBOL(register_kprobes);

/**
 * unregister_kprobe() - unregister a probe
 * @p: the probe; nothing happens if it is not registered
 *
 * When this returns, no handler of @p runs any more.  A probe registered by
 * symbol gets its .addr cleared, so that it can be registered again; one
 * given by address keeps the probed address in .addr (with .offset added).
 */
void unregister_kprobe(struct kprobe *p)
{
	__unregister_kprobes(&p, nth_kprobe, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);
NOKPROBE_SYMBOL(unregister_kprobe);

/**
 * unregister_kprobes() - unregister probes
 * @kps: the probes
 * @num: how many
 *
 * Waits for a single grace period for the whole batch.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	if (kps)
		__unregister_kprobes(kps, nth_kprobe, num);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);
NOKPROBE_SYMBOL(unregister_kprobes);

static int kprobe_set_disabled(struct kprobe *p, bool disable)
{
	struct kprobe_site *s;
	LIST_HEAD(batch);
	int ret = -EINVAL;

	if (!p)
		return -EINVAL;

	mutex_lock(&kprobe_mutex);
	s = find_member_site(p);
	if (!s || kprobe_gone(p))
		goto out;

	WRITE_ONCE(p->flags, disable ? p->flags | KPROBE_FLAG_DISABLED :
				       p->flags & ~KPROBE_FLAG_DISABLED);
	batch_add(&batch, s);
	ret = kprobe_batch_apply(&batch);
	if (ret && !disable) {
		WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_DISABLED);
		kprobe_batch_apply(&batch);
	}
	kprobe_batch_finish(&batch);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * disable_kprobe() - stop calling a probe's handlers, keep it registered
 * @kp: a registered probe
 *
 * The site is disarmed when none of its probes is enabled any more.
 *
 * Return: 0, or -EINVAL if @kp is not registered or its text is gone.
 */
int disable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, true);
}
EXPORT_SYMBOL_GPL(disable_kprobe);
NOKPROBE_SYMBOL(disable_kprobe);

/**
 * enable_kprobe() - call a disabled probe's handlers again
 * @kp: a registered probe
 *
 * Return: 0, -EINVAL if @kp is not registered or its text is gone, or the
 * error of arming the site.
 */
int enable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, false);
}
EXPORT_SYMBOL_GPL(enable_kprobe);
NOKPROBE_SYMBOL(enable_kprobe);

/* debugfs kprobes/enabled: arm or disarm every site, keeping probe states. */
int kprobes_set_all_armed(bool armed)
{
	LIST_HEAD(batch);
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed == !armed)
		goto out;
	kprobes_all_disarmed = !armed;
	kprobe_batch_all(&batch);
	ret = kprobe_batch_apply(&batch);
	kprobe_batch_finish(&batch);
	pr_info("kprobes globally %s\n", armed ? "enabled" : "disabled");
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Text going away: module unloading, module and vmlinux init text.
 * ---------------------------------------------------------------------------
 */

/*
 * Disarm the sites on @batch, then mark them and their probes gone.  The
 * text still exists when this runs (the notifier and kprobe_free_init_mem()
 * run before it is freed), and may still run: code of a module's init can
 * until its init text is freed.  So a site stays visible to get_kprobe()
 * while its breakpoint is in place, and only then is gone: the core never
 * touches its text again.
 */
static void kprobe_kill_sites(struct list_head *batch)
{
	struct kprobe_site *s;
	struct kprobe *p;

	list_for_each_entry(s, batch, batch)
		s->state |= SITE_GOING;
	kprobe_batch_apply(batch);
	list_for_each_entry(s, batch, batch) {
		s->state &= ~SITE_GOING;
		WRITE_ONCE(site_kp(s)->flags,
			   site_kp(s)->flags | KPROBE_FLAG_GONE);
		list_for_each_entry(p, &site_kp(s)->list, list)
			WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_GONE);
	}
	kprobe_batch_finish(batch);
}

/**
 * kprobe_free_init_mem() - vmlinux init text is about to be freed
 */
void kprobe_free_init_mem(void)
{
	LIST_HEAD(batch);
	struct kprobe *kp;
	int i;

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(kp, &kprobe_table[i], hlist) {
			if (!kprobe_gone(kp) &&
			    is_kernel_inittext((unsigned long)kp->addr))
				batch_add(&batch, to_site(kp));
		}
	}
	kprobe_kill_sites(&batch);
	mutex_unlock(&kprobe_mutex);
}

#ifdef CONFIG_MODULES
/*
 * Whether @p, the kretprobe or jprobe around it, or a handler it calls, is
 * in @mod.  A kprobe is the first member of both, so testing @p's address
 * tests theirs.
 */
static bool kprobe_owned_by(struct kprobe *p, struct module *mod)
{
	unsigned long code[KPROBE_USER_CODE];
	int i;

	if (within_module((unsigned long)p, mod))
		return true;
	kprobe_user_code(p, code);
	for (i = 0; i < KPROBE_USER_CODE; i++) {
		if (code[i] && within_module(code[i], mod))
			return true;
	}
	return false;
}

static struct kprobe *kprobe_find_owned(struct module *mod)
{
	struct kprobe *kp, *p;
	int i;

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(kp, &kprobe_table[i], hlist) {
			list_for_each_entry(p, &kp->list, list) {
				if (kprobe_owned_by(p, mod))
					goto out;
			}
		}
	}
	p = NULL;
out:
	mutex_unlock(&kprobe_mutex);
	return p;
}

/*
 * @mod is going and its exit has run: a probe it left registered would call
 * its handlers, or be read, after its memory is freed.  Unregister each one,
 * as the module should have, and say so.  A module cannot be pinned by its
 * own handlers: its exit is what unregisters them.
 */
static void kprobe_remove_owned(struct module *mod)
{
	struct kprobe *p, *last = NULL;
	int n = 0;

	while ((p = kprobe_find_owned(mod)) && p != last) {
		if (IS_ENABLED(CONFIG_KRETPROBES) &&
		    (p->flags & KPROBE_FLAG_KRETPROBE))
			unregister_kretprobe(container_of(p, struct kretprobe, kp));
#ifdef CONFIG_JPROBES
		else if (p->flags & KPROBE_FLAG_JPROBE)
			unregister_jprobe(container_of(p, struct jprobe, kp));
#endif
		else
			unregister_kprobe(p);
		last = p;
		n++;
	}
	if (n)
		pr_err("module %s unloaded with %d probe%s still registered: unregistered\n",
		       mod->name, n, n == 1 ? "" : "s");
}

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct kprobe_coming_module *c;
	struct module *mod = data;
	LIST_HEAD(batch);
	struct kprobe *kp;
	int i, ret;

	if (val != MODULE_STATE_COMING && val != MODULE_STATE_LIVE &&
	    val != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	mutex_lock(&kprobe_mutex);
	if (val == MODULE_STATE_COMING) {
		/* Probeable only with its blacklist complete, or not loaded. */
		c = kmalloc(sizeof(*c), GFP_KERNEL);
		ret = c ? kprobe_blacklist_add_module(mod) : -ENOMEM;
		if (ret) {
			kprobe_blacklist_remove_module(mod, false);
			kfree(c);
			mutex_unlock(&kprobe_mutex);
			return notifier_from_errno(ret);
		}
		c->mod = mod;
		list_add(&c->list, &kprobe_coming_modules);
		goto out;
	}
	c = kprobe_find_coming(mod);
	if (c) {
		list_del(&c->list);
		kfree(c);
	}

	/* Going: all its text; live: its init text, freed right after. */
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(kp, &kprobe_table[i], hlist) {
			unsigned long a = (unsigned long)kp->addr;

			if (kprobe_gone(kp))
				continue;
			if (within_module_init(a, mod) ||
			    (val == MODULE_STATE_GOING && within_module_core(a, mod)))
				batch_add(&batch, to_site(kp));
		}
	}
	kprobe_kill_sites(&batch);
	kprobe_blacklist_remove_module(mod, val == MODULE_STATE_LIVE);
out:
	mutex_unlock(&kprobe_mutex);
	if (val == MODULE_STATE_GOING)
		kprobe_remove_owned(mod);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_callback,
	/* Before trace_kprobe (2), which re-registers probes of a coming module. */
	.priority = 3,
};

static int __init kprobes_module_init(void)
{
	return register_module_notifier(&kprobes_module_nb);
}
#else
static int __init kprobes_module_init(void)
{
	return 0;
}
#endif

#ifndef CONFIG_OPTPROBES
void wait_for_kprobe_optimizer(void)
{
}
EXPORT_SYMBOL_GPL(wait_for_kprobe_optimizer);
#endif

/*
 * Early, so that boot-time probe events (kprobe_event=, set up by
 * trace_kprobe at core/fs initcall time) find the blacklist populated.
 */
static int __init init_kprobes(void)
{
	int ret;

	mutex_lock(&kprobe_mutex);
	ret = kprobe_blacklist_init();
	mutex_unlock(&kprobe_mutex);
	if (ret) {
		pr_err("cannot build the blacklist (%d), kprobes unavailable\n",
		       ret);
		return ret;
	}

	ret = arch_init_kprobes();
	if (ret) {
		pr_err("arch initialization failed (%d), kprobes unavailable\n",
		       ret);
		return ret;
	}
	ret = kprobes_module_init();
	if (ret) {
		pr_err("cannot watch modules (%d), kprobes unavailable\n", ret);
		return ret;
	}
	kprobe_optimizer_init();
	kretprobe_init();
	WRITE_ONCE(kprobes_initialized, true);
	return 0;
}
early_initcall(init_kprobes);
