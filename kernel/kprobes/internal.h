/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Declarations shared by the files of the generic kprobes core.
 *
 * The core is split by mechanism: core.c (probes, sites, registration, hit
 * path services), slots.c (executable instruction slots), kretprobe.c,
 * optimizer.c (jump optimization), ftrace.c (kprobes on ftrace),
 * blacklist.c and debugfs.c.  Everything here is called with kprobe_mutex
 * held unless said otherwise.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>

struct module;
struct seq_file;

/* Serializes every change to probes, sites and the text they patch. */
extern struct mutex kprobe_mutex;

/*
 * A site is the one struct kprobe the core hashes and arms for an address;
 * the users' probes at that address are its members, on its kp.list (see
 * "Probes and aggregates" in <linux/kprobes.h>).  Arch code only ever sees
 * the struct kprobe, or the struct optimized_kprobe around it; the rest is
 * the core's bookkeeping, protected by kprobe_mutex.
 */
struct kprobe_site {
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe op;
#else
	struct kprobe kp;
#endif
	/* Link in a batch of sites whose text is being brought up to date. */
	struct list_head batch;
	/* Module pinned while the batch patches the site's text, or NULL. */
	struct module *mod;
	unsigned int state;
	/* Freeing after an RCU-tasks grace period, see site_free(). */
	struct rcu_head rcu;
};

/* kprobe_site::state */
#define SITE_ARMED		0x01	/* breakpoint or ftrace hook in place */
#define SITE_DYING		0x02	/* no member left, being removed */
#define SITE_OPT_READY		0x04	/* the arch built a detour */
#define SITE_OPT_FAILED		0x08	/* the arch refused a detour */
#define SITE_OPT_QUEUED		0x10	/* waiting for the optimizer */
#define SITE_OPT_WAITING	0x20	/* optimizer waits for RCU tasks */
#define SITE_OPT_DONE		0x40	/* the jump is in place */
#define SITE_OPT_BUILT		0x80	/* had a detour once, see site_free() */
#define SITE_FTRACE_REGS	0x100	/* armed through kprobe_ftrace_regs */
#define SITE_FTRACE_LEAN	0x200	/* armed through kprobe_ftrace_lean */
#define SITE_FTRACE_MOVING	0x400	/* from one of the two to the other */
#define SITE_GOING		0x800	/* its text goes away: disarm, then gone */
#define SITE_OPT_ACTIVE		(SITE_OPT_QUEUED | SITE_OPT_WAITING | SITE_OPT_DONE)

/*
 * Set on a member between the two halves of its unregistration, so that the
 * second half knows which of the probes it was given were really removed.
 * Users may only set KPROBE_FLAG_DISABLED, so this bit is the core's own.
 */
#define KPROBE_FLAG_UNREGISTERING	0x80000000U

/*
 * Set with KPROBE_FLAG_UNREGISTERING on the members a failed registration
 * removes again: unlike an unregistration, that keeps the flag the user may
 * set (KPROBE_FLAG_DISABLED), so the probe is left as its caller gave it.
 */
#define KPROBE_FLAG_ROLLBACK		0x40000000U

/*
 * Set on the members that kretprobe_ftrace_handler() serves while their
 * site moves from one ftrace_ops to the other (ftrace.c): a call may then go
 * through both callbacks, and the second must not take the return again.
 */
#define KPROBE_FLAG_FTRACE_MOVING	0x20000000U

static inline struct kprobe *site_kp(struct kprobe_site *s)
{
#ifdef CONFIG_OPTPROBES
	return &s->op.kp;
#else
	return &s->kp;
#endif
}

static inline struct kprobe_site *to_site(struct kprobe *p)
{
#ifdef CONFIG_OPTPROBES
	return container_of(p, struct kprobe_site, op.kp);
#else
	return container_of(p, struct kprobe_site, kp);
#endif
}

/*
 * Whether the jump of @kp's site is really written (not only queued, with
 * KPROBE_FLAG_OPTIMIZED already set).  kprobe_mutex held.
 */
static inline bool site_jump_installed(struct kprobe *kp)
{
	return to_site(kp)->state & SITE_OPT_DONE;
}

/*
 * Count a missed hit in the nmissed of a struct kprobe or struct kretprobe.
 * Misses happen on several CPUs at once (and in NMI context on some
 * arches): a lock-free atomic increment keeps the count exact.
 */
#define kprobe_count_missed(counter)					\
	do {								\
		typeof(counter) __cnt = (counter);			\
		typeof(*__cnt) __old = READ_ONCE(*__cnt);		\
									\
		while (!try_cmpxchg(__cnt, &__old, __old + 1))		\
			;						\
	} while (0)

/* core.c */
extern struct hlist_head kprobe_table[];
#define KPROBE_HASH_BITS	8
#define KPROBE_TABLE_SIZE	BIT(KPROBE_HASH_BITS)

static __always_inline struct hlist_head *kprobe_bucket(void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)];
}

/* get_kprobe(), for the generic hit paths. */
static __always_inline struct kprobe *__get_kprobe(void *addr)
{
	struct kprobe *p;

	hlist_for_each_entry_rcu_notrace(p, kprobe_bucket(addr), hlist) {
		if (p->addr == addr && !kprobe_gone(p))
			return p;
	}
	return NULL;
}

extern bool kprobes_all_disarmed;

bool kprobe_is_site(struct kprobe *p);
bool kprobe_site_wants_armed(struct kprobe_site *s);
void kprobe_batch_all(struct list_head *batch);
int kprobe_batch_apply(struct list_head *batch);
void kprobe_batch_finish(struct list_head *batch);
int kprobes_set_all_armed(bool armed);

/*
 * Batches of probes are given as an opaque vector and an accessor, so that
 * arrays of struct kretprobe * go through the same code as struct kprobe *.
 */
typedef struct kprobe *(*kprobe_nth_t)(void *vec, int i);
int __register_kprobes(void *vec, kprobe_nth_t nth, int num,
		       unsigned long caller);
int __unregister_kprobes_top(void *vec, kprobe_nth_t nth, int num,
			     struct list_head *dead);
void __unregister_kprobes_bottom(void *vec, kprobe_nth_t nth, int num,
				 struct list_head *dead);
void __unregister_kprobes(void *vec, kprobe_nth_t nth, int num);

/* blacklist.c */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];
/*
 * Not every arch has an .entry.text section (powerpc has none): a weak
 * reference resolves to an empty range there.
 */
extern char __entry_text_start[] __weak;
extern char __entry_text_end[] __weak;

int __init kprobe_blacklist_init(void);
int kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod, bool init_only);
void kprobe_blacklist_seq_show(struct seq_file *m, bool show_addr);

/* What kprobe_running() is under kprobe_busy_begin(). */
extern struct kprobe kprobe_busy;

/* slots.c: wait for the slot collections scheduled so far (for KUnit). */
void kprobe_slots_flush(void);

/* kretprobe.c */
#ifdef CONFIG_KRETPROBES
void __init kretprobe_init(void);
int kretprobe_pre_handler(struct kprobe *p, struct pt_regs *regs);
void kretprobe_abandon(struct llist_node *mark);

/*
 * Kretprobes without entry handler at ftrace sites go through an ftrace_ops
 * of their own (ftrace.c, kretprobe.c).
 */
#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(__ARCH_WANT_KRETPROBE_FTRACE)
#define KPROBES_FTRACE_LEAN

void kretprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *ops, struct ftrace_regs *fregs);

/*
 * Whether @p is a member that kretprobe_ftrace_handler() serves: a
 * kretprobe's kprobe, without entry handler (which would want the
 * registers).
 */
static inline bool kretprobe_ftrace_member(struct kprobe *p)
{
	return (p->flags & KPROBE_FLAG_KRETPROBE) &&
	       !container_of(p, struct kretprobe, kp)->entry_handler;
}

/*
 * ftrace.c, for the KUnit suite: if set, called (kprobe_mutex held) with
 * the address of each site of the batch being applied that is on both
 * ftrace_ops, so that a test can call its function then.
 */
extern void (*kprobe_ftrace_both_hook)(kprobe_opcode_t *addr);
#endif

static inline struct llist_node *kretprobe_mark(void)
{
	return current->kretprobe_instances.first;
}
#else
static inline void kretprobe_init(void) { }
static inline void kretprobe_abandon(struct llist_node *mark) { }
static inline struct llist_node *kretprobe_mark(void) { return NULL; }
#endif

/* optimizer.c: sites are struct optimized_kprobe, replaced by jumps. */
#ifdef CONFIG_OPTPROBES
void kprobe_opt_unoptimize_sites(struct list_head *batch);
void kprobe_opt_optimize_sites(struct list_head *batch);
void kprobe_opt_unoptimize_site(struct kprobe_site *s);
bool kprobe_opt_unoptimize_covering(kprobe_opcode_t *addr);
void kprobe_opt_retry_before(kprobe_opcode_t *addr);
void kprobe_opt_remove_site(struct kprobe_site *s);
int __init kprobe_optimizer_init(void);
#else
static inline void kprobe_opt_unoptimize_sites(struct list_head *batch) { }
static inline void kprobe_opt_optimize_sites(struct list_head *batch) { }
static inline void kprobe_opt_unoptimize_site(struct kprobe_site *s) { }
static inline bool kprobe_opt_unoptimize_covering(kprobe_opcode_t *addr) { return false; }
static inline void kprobe_opt_retry_before(kprobe_opcode_t *addr) { }
static inline void kprobe_opt_remove_site(struct kprobe_site *s) { }
static inline int kprobe_optimizer_init(void) { return 0; }
#endif

/* ftrace.c: sites on an ftrace location, armed through an ftrace_ops. */
int kprobe_ftrace_check(unsigned long addr, bool *on_ftrace);
#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_prepare(struct kprobe *kp);
int kprobe_ftrace_arm_sites(struct list_head *batch);
void kprobe_ftrace_disarm_sites(struct list_head *batch);
#else
static inline int kprobe_ftrace_prepare(struct kprobe *kp)
{
	return -EINVAL;
}

static inline int kprobe_ftrace_arm_sites(struct list_head *batch)
{
	return 0;
}

static inline void kprobe_ftrace_disarm_sites(struct list_head *batch) { }
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
