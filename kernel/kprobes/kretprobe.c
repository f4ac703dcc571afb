// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kretprobes: probes on the return of a function.
 *
 * A kretprobe is a kprobe at the entry of the function whose pre handler
 * (kretprobe_pre_handler()) takes an instance from the kretprobe's pool,
 * lets the arch save the return address in it and replace it by the arch's
 * trampoline, and pushes the instance on the task's list.  When the function
 * returns into the trampoline, __kretprobe_trampoline_handler() pops the
 * instances of that frame, runs the handlers and hands the real return
 * address back to the trampoline.
 *
 * The pool is an objpool of preallocated instances, so that the entry and
 * return paths never allocate nor lock.  It lives in a struct
 * kretprobe_holder that outlives the kretprobe: after unregistration the
 * holder's ->rp is NULL, instances still pending in tasks are dropped as they
 * return (or as their task is freed), and the last one frees the pool and
 * the holder.
 */
#define pr_fmt(fmt) "kretprobes: " fmt

#include <linux/kprobes.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/objpool.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * What kprobe_running() is while a return handler runs: no probe of its own
 * (an empty list, so that a fault in the handler finds no fault handler), but
 * the address and entry flag of the kretprobe whose handler runs, for the
 * handlers that ask where they are (bpf_get_func_ip()).  Per CPU, with
 * preemption disabled: once it is current_kprobe no other return handler
 * runs on the CPU, and one that ran in an NMI just before that set its
 * fields for its own handlers only (they are set before each handler).
 */
static DEFINE_PER_CPU(struct kprobe, kretprobe_running_kp);

void __init kretprobe_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kprobe *running = &per_cpu(kretprobe_running_kp, cpu);

		INIT_LIST_HEAD(&running->list);
		/* kprobe_resolve() put every kretprobe at a function's entry. */
		running->flags = KPROBE_FLAG_ON_FUNC_ENTRY;
	}
}

static void kretprobe_drop_rcu(struct rcu_head *head)
{
	struct kretprobe_instance *ri =
		container_of(head, struct kretprobe_instance, rcu);
	struct objpool_head *pool = &ri->rph->pool;

	/* The last instance to go frees the pool and its holder. */
	objpool_drop(ri, pool);
}

/*
 * Instances of unregistered kretprobes given back in NMI context (a
 * kretprobed function that an NMI handler calls returned after the
 * unregistration), where call_rcu() may not be called: an irq_work passes
 * them on.
 */
static LLIST_HEAD(kretprobe_nmi_drops);

static void kretprobe_drop_nmi_work(struct irq_work *work)
{
	struct llist_node *node = llist_del_all(&kretprobe_nmi_drops);
	struct kretprobe_instance *ri, *tmp;

	llist_for_each_entry_safe(ri, tmp, node, llist)
		call_rcu(&ri->rcu, kretprobe_drop_rcu);
}

static DEFINE_IRQ_WORK(kretprobe_drop_work, kretprobe_drop_nmi_work);

/*
 * Give an instance back.  Called with preemption disabled, which is what
 * unregistration waits for between clearing rph->rp and finishing the pool,
 * so no push can race with objpool_fini().  rph->rp is only tested, hence
 * rcu_access_pointer(): kprobe_flush_task() recycles with no probe marked
 * running, and rcu_dereference_check()'s lockdep test would call
 * rcu_read_lock_any_held(), which may be kretprobed itself.
 */
static nokprobe_inline void kretprobe_recycle(struct kretprobe_instance *ri)
{
	struct kretprobe_holder *rph = ri->rph;

	if (likely(rcu_access_pointer(rph->rp))) {
		objpool_push(ri, &rph->pool);
	} else if (unlikely(in_nmi())) {
		llist_add(&ri->llist, &kretprobe_nmi_drops);
		irq_work_queue(&kretprobe_drop_work);
	} else {
		call_rcu(&ri->rcu, kretprobe_drop_rcu);
	}
}

/* An instance of @rp for a call, or NULL (counted as missed). */
static nokprobe_inline struct kretprobe_instance *
kretprobe_take(struct kretprobe *rp)
{
	struct kretprobe_instance *ri;

	ri = objpool_pop(&rp->rph->pool);
	/* None: every instance is out, in calls that have not returned yet. */
	if (unlikely(!ri))
		kprobe_count_missed(&rp->nmissed);
	return ri;
}

#ifdef KPROBES_FTRACE_LEAN
/*
 * Whether @p's kretprobe already took the return of the frame whose return
 * address is at @sp, in this same call: its site moves between the two
 * ftrace_ops of ftrace.c, and the call went through both callbacks.  The
 * frame's instances are the newest on the task's list, and the arch says
 * ri->fp is that stack pointer (__ARCH_WANT_KRETPROBE_FTRACE).  Asked only
 * while the site moves: a function that tail-calls itself enters again with
 * the same stack pointer before it returns, and then has two instances of
 * its own.
 */
static notrace bool kretprobe_frame_taken(struct kprobe *p, unsigned long sp)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct llist_node *node;

	for (node = current->kretprobe_instances.first; node;
	     node = node->next) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);

		if (ri->fp != (void *)sp)
			break;
		if (ri->rph == rp->rph)
			return true;
	}
	return false;
}

NOKPROBE_SYMBOL(kretprobe_frame_taken);

static nokprobe_inline bool kretprobe_taken(struct kprobe *p, unsigned long sp)
{
	return unlikely(READ_ONCE(p->flags) & KPROBE_FLAG_FTRACE_MOVING) &&
	       kretprobe_frame_taken(p, sp);
}
#endif

/* The pre handler of every kretprobe's kp, at the function's entry. */
notrace int kretprobe_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;

#ifdef KPROBES_FTRACE_LEAN
	if (kretprobe_taken(p, kernel_stack_pointer(regs))) {
		/* Not a hit of its own: the core counted it. */
		this_cpu_dec(*p->hits);
		return 0;
	}
#endif
	ri = kretprobe_take(rp);
	if (unlikely(!ri))
		return 0;

	/* An entry handler may decline this call: then its return is not probed. */
	if (!rp->entry_handler || !rp->entry_handler(ri, regs)) {
		arch_prepare_kretprobe(ri, regs);
		__llist_add(&ri->llist, &current->kretprobe_instances);
	} else {
		objpool_push(ri, &ri->rph->pool);
	}
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_pre_handler);

#ifdef KPROBES_FTRACE_LEAN
/*
 * arch_prepare_kretprobe() from ftrace's struct ftrace_regs: the arch says
 * (__ARCH_WANT_KRETPROBE_FTRACE) that the return address is at the stack
 * pointer of the entry, and that ri->fp is where it is.
 */
static nokprobe_inline void kretprobe_hijack_ftrace(struct kretprobe_instance *ri,
						    unsigned long sp)
{
	kprobe_opcode_t **slot = (kprobe_opcode_t **)sp;

	ri->ret_addr = *slot;
	ri->fp = slot;
	*slot = kretprobe_trampoline_addr();
}

/* A hit of lean member @p, at the entry whose stack pointer is @sp. */
static nokprobe_inline void kretprobe_ftrace_hit(struct kprobe *p,
						 unsigned long sp)
{
	struct kretprobe_instance *ri;

	/* No probe is running: an NMI may hit this site and count too. */
	this_cpu_inc(*p->hits);
	ri = kretprobe_take(container_of(p, struct kretprobe, kp));
	if (unlikely(!ri))
		return;
	kretprobe_hijack_ftrace(ri, sp);
	__llist_add(&ri->llist, &current->kretprobe_instances);
}

/* Whether kretprobe_ftrace_handler() takes a return for @p. */
static nokprobe_inline bool kretprobe_ftrace_serves(struct kprobe *p)
{
	return kretprobe_ftrace_member(p) && !kprobe_disabled(p);
}

/*
 * kretprobe_ftrace_handler() from member @p on, @p being one the fast path
 * does not serve: not a lean member (it joins the site, which is moving to
 * the other ftrace_ops), disabled, or flagged as moving.
 */
static noinline notrace void kretprobe_ftrace_rest(struct kprobe *site,
						   struct kprobe *p,
						   unsigned long sp)
{
	list_for_each_entry_from_rcu(p, &site->list, list) {
		if (kretprobe_ftrace_serves(p) && !kretprobe_taken(p, sp))
			kretprobe_ftrace_hit(p, sp);
	}
}

NOKPROBE_SYMBOL(kretprobe_ftrace_rest);

/* A hit from a probe's handler: every lean member that would count misses. */
static noinline notrace void kretprobe_ftrace_missed(struct kprobe *site)
{
	struct kprobe *p;

	list_for_each_entry_lockless(p, &site->list, list) {
		if (kretprobe_ftrace_serves(p))
			kprobe_count_missed(&p->nmissed);
	}
}

NOKPROBE_SYMBOL(kretprobe_ftrace_missed);

#define KRETPROBE_FTRACE_TESTED	(KPROBE_FLAG_KRETPROBE | KPROBE_FLAG_GONE | \
				 KPROBE_FLAG_DISABLED | \
				 KPROBE_FLAG_FTRACE_MOVING)

/**
 * kretprobe_ftrace_handler() - the ftrace callback of lean kretprobe sites
 * @ip: the ftrace location, the site's address
 * @parent_ip: the caller's address
 * @ops: kprobe_ftrace_lean's ops
 * @fregs: the arguments and stack pointer saved by ftrace
 *
 * For the ftrace sites whose members are all kretprobes without entry
 * handler (ftrace.c): no handler runs at the entry, so the ops does without
 * FTRACE_OPS_FL_SAVE_REGS, and no probe is set running.  A hit from a
 * probe's handler counts as missed, as with kprobe_ftrace_handler().
 *
 * The usual member (a kretprobe without entry handler, enabled, its site
 * not moving) passes one test of its flags; the first other one sends the
 * rest of the site to kretprobe_ftrace_rest().  Nothing is called on the
 * usual path, so that it needs no callee-saved register.
 */
notrace void kretprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	unsigned long sp = ftrace_regs_get_stack_pointer(fregs);
	struct kprobe *site, *p;

	preempt_disable_notrace();
	site = __get_kprobe((kprobe_opcode_t *)ip);
	if (unlikely(!site))
		goto out;
	/* A member joining the site is kprobe_ftrace_handler()'s. */
	if (unlikely(kprobe_running())) {
		kretprobe_ftrace_missed(site);
		goto out;
	}
	list_for_each_entry_lockless(p, &site->list, list) {
		if (unlikely((READ_ONCE(p->flags) & KRETPROBE_FTRACE_TESTED) !=
			     KPROBE_FLAG_KRETPROBE ||
			     container_of(p, struct kretprobe, kp)->entry_handler)) {
			kretprobe_ftrace_rest(site, p, sp);
			break;
		}
		kretprobe_ftrace_hit(p, sp);
	}
out:
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kretprobe_ftrace_handler);
#endif

/*
 * The next real return address on @tsk's list after *@cur (from the newest
 * when *@cur is NULL).  An instance whose saved address is the trampoline
 * itself belongs to a second kretprobe on the same function: the real
 * address is in an older instance of the same frame.
 */
static unsigned long kretprobe_next_ret(struct task_struct *tsk,
					struct llist_node **cur)
{
	void *tramp = kretprobe_trampoline_addr();
	struct llist_node *node;

	node = *cur ? (*cur)->next : tsk->kretprobe_instances.first;
	for (; node; node = node->next) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);

		if (ri->ret_addr != tramp) {
			*cur = node;
			return (unsigned long)ri->ret_addr;
		}
	}
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_next_ret);

/**
 * kretprobe_find_ret_addr() - the real return address of a frame
 * @tsk: current, or a task that is not running
 * @fp: the frame: where its return address is saved (see
 *	arch_prepare_kretprobe())
 * @cur: the unwinder's cursor, *@cur NULL at the first call of an unwind
 *
 * For unwinders that found kretprobe_trampoline_addr() as a return address.
 * Frames must be asked for from the innermost outwards.
 *
 * Return: the return address the trampoline replaced, or 0.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct kretprobe_instance *ri;
	unsigned long ret;

	if (!cur || (tsk != current && task_is_running(tsk)))
		return 0;

	do {
		ret = kretprobe_next_ret(tsk, cur);
		if (!ret)
			break;
		ri = container_of(*cur, struct kretprobe_instance, llist);
	} while (ri->fp != fp);

	return ret;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * is_kretprobe_trampoline() - whether an address is the return trampoline
 * @addr: a return address found by an unwinder
 *
 * Return: true if @addr is where kretprobes make functions return.
 */
bool is_kretprobe_trampoline(unsigned long addr)
{
	return (void *)addr == kretprobe_trampoline_addr();
}

NOKPROBE_SYMBOL(is_kretprobe_trampoline);

/*
 * Run the return handlers of a frame's instances, from @node to @last, with
 * kprobe_running() @running, kretprobe_running_kp.  @ret is the frame's
 * return address, @fp the frame.
 */
static nokprobe_inline void kretprobe_frame_handlers(struct llist_node *node,
						     struct llist_node *last,
						     struct kprobe *running,
						     struct pt_regs *regs,
						     unsigned long ret,
						     void *fp)
{
	for (; ; node = node->next) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);
		struct kretprobe *rp = get_kretprobe(ri);

		WARN_ON_ONCE(ri->fp != fp);
		if (rp && rp->handler) {
			/*
			 * A second kretprobe's instance saved the trampoline
			 * (get_kretprobe_retaddr()).
			 */
			ri->ret_addr = (kprobe_opcode_t *)ret;
			running->addr = rp->kp.addr;
			rp->handler(ri, regs);
		}
		if (node == last)
			break;
	}
}

/* Take a frame's instances, @first to @last, off the list; give them back. */
static nokprobe_inline void kretprobe_frame_recycle(struct llist_node *first,
						    struct llist_node *last)
{
	current->kretprobe_instances.first = last->next;
	last->next = NULL;
	while (first) {
		struct kretprobe_instance *ri =
			container_of(first, struct kretprobe_instance, llist);

		first = first->next;
		kretprobe_recycle(ri);
	}
}

/*
 * The return of a frame inside another probe's handler, which stays the
 * running probe: no handler runs.
 */
static noinline notrace void kretprobe_frame_missed(struct llist_node *first,
						    struct llist_node *last)
{
	struct llist_node *node;

	for (node = first; ; node = node->next) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);
		struct kretprobe *rp = get_kretprobe(ri);

		if (rp && rp->handler)
			kprobe_count_missed(&rp->nmissed);
		if (node == last)
			break;
	}
	kretprobe_frame_recycle(first, last);
}

NOKPROBE_SYMBOL(kretprobe_frame_missed);

/**
 * __kretprobe_trampoline_handler() - a kretprobed function returned
 * @regs: the registers at the return, built by the trampoline
 * @frame_pointer: the frame that returned, as saved in ri->fp
 *
 * Called by the arch trampoline.  Runs the handlers of the frame's
 * instances, newest first, with instruction_pointer(@regs) already the real
 * return address, then recycles the instances.
 *
 * Return: the address the trampoline must return to.
 */
notrace unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
						     void *frame_pointer)
{
	struct llist_node *first, *last = NULL;
	unsigned long correct_ret_addr;

	/*
	 * The list's head, for the handlers' walk below too: an interrupt in
	 * between can only push and pop instances of its own, leaving the head
	 * as it found it.
	 */
	first = current->kretprobe_instances.first;
	correct_ret_addr = kretprobe_next_ret(current, &last);
	/* Nowhere to return to: the task's list is corrupted. */
	if (!correct_ret_addr)
		panic("kretprobe: no return address for the frame at %p\n",
		      frame_pointer);

	preempt_disable();

	/* The registers the handlers see return where the function would. */
	instruction_pointer_set(regs, correct_ret_addr);
	arch_kretprobe_fixup_return(regs, (kprobe_opcode_t *)correct_ret_addr);

	/*
	 * Inside another probe's handler, our handlers would reenter kprobes:
	 * count them as missed.  Otherwise kretprobe_running_kp is the running
	 * probe until the instances are back in their pools: a probe hit by the
	 * handlers or by the recycling counts as missed.  The recycling calls
	 * out of line on some arches (powerpc's arch_local_irq_restore()), and
	 * a kretprobe hit there would take the instance just pushed and return
	 * here again, without end.  The handlers run with the instances still
	 * on the list, so that an unwinder they call finds the return address.
	 */
	if (likely(!kprobe_running())) {
		struct kprobe *running = this_cpu_ptr(&kretprobe_running_kp);

		__this_cpu_write(current_kprobe, running);
		get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
		kretprobe_frame_handlers(first, last, running, regs,
					 correct_ret_addr, frame_pointer);
		kretprobe_frame_recycle(first, last);
		__this_cpu_write(current_kprobe, NULL);
	} else {
		kretprobe_frame_missed(first, last);
	}
	preempt_enable();

	return correct_ret_addr;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/*
 * Frames of current were abandoned without returning (a jprobe handler's,
 * at its jprobe_return()): give back the instances pushed since @mark, from
 * kretprobe_mark(), was the newest.  Preemption must have stayed disabled
 * since @mark was taken: then these instances were taken from their pools
 * within this same section, which unregistration waits for before it
 * finishes a pool, so they go back even if their kretprobe is going away
 * (and call_rcu() is not for the trap context this runs in).
 */
void kretprobe_abandon(struct llist_node *mark)
{
	struct llist_head *head = &current->kretprobe_instances;

	while (head->first && head->first != mark) {
		struct kretprobe_instance *ri =
			container_of(head->first, struct kretprobe_instance,
				     llist);

		head->first = ri->llist.next;
		objpool_push(ri, &ri->rph->pool);
	}
}

NOKPROBE_SYMBOL(kretprobe_abandon);

/**
 * kprobe_flush_task() - recycle the instances of a dead task
 * @tk: the task being freed
 *
 * Its pending instances are of functions that will never return.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node;

	node = __llist_del_all(&tk->kretprobe_instances);
	if (!node)
		return;

	preempt_disable();
	while (node) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);

		node = node->next;
		kretprobe_recycle(ri);
	}
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/* objpool's release callback: the last instance is gone, so is the pool. */
static int kretprobe_holder_free(struct objpool_head *pool, void *context)
{
	kfree(container_of(pool, struct kretprobe_holder, pool));
	return 0;
}

/* objpool's objinit callback: each instance knows its pool for good. */
static int kretprobe_instance_init(void *obj, void *context)
{
	struct kretprobe_instance *ri = obj;

	ri->rph = context;
	return 0;
}

/* Check @rp and give it its pool; nothing is registered yet. */
static int kretprobe_prepare(struct kretprobe *rp)
{
	struct kretprobe_holder *rph;
	int maxactive, ret;

	if (!rp || rp->kp.hits || (rp->kp.flags & ~KPROBE_FLAG_DISABLED))
		return -EINVAL;

	/* Only the entry of a function has its return address at hand. */
	ret = kprobe_on_func_entry(rp->kp.addr, rp->kp.symbol_name,
				   rp->kp.offset);
	if (ret)
		return ret;

	/* Refuse sizes that could only fail, or worse succeed, at allocation. */
	maxactive = rp->maxactive > 0 ? rp->maxactive :
					KRETPROBE_DEFAULT_MAXACTIVE;
	if (maxactive > KRETPROBE_MAX_MAXACTIVE ||
	    rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;
	if ((u64)maxactive * (sizeof(struct kretprobe_instance) +
			      rp->data_size) > KRETPROBE_MAX_POOL_SIZE)
		return -E2BIG;

	rph = kzalloc(sizeof(*rph), GFP_KERNEL);
	if (!rph)
		return -ENOMEM;
	ret = objpool_init(&rph->pool, maxactive,
			   sizeof(struct kretprobe_instance) + rp->data_size,
			   GFP_KERNEL, rph, kretprobe_instance_init,
			   kretprobe_holder_free);
	if (ret) {
		kfree(rph);
		return ret;
	}
	rcu_assign_pointer(rph->rp, rp);

	rp->rph = rph;
	rp->nmissed = 0;
	rp->kp.pre_handler = kretprobe_pre_handler;
	/* Not called on the lean ftrace path, nor pinned: not a kretprobe's. */
	rp->kp.post_handler = NULL;
	rp->kp.flags |= KPROBE_FLAG_KRETPROBE;
	return 0;
}

/*
 * Detach @rp from its pool.  When @live, the kretprobe may have been hit:
 * wait until no CPU can push into the pool before finishing it.  The pool and
 * holder are freed when the last pending instance is dropped.
 */
static void kretprobe_release(struct kretprobe *rp, bool live)
{
	struct kretprobe_holder *rph = rp->rph;

	rcu_assign_pointer(rph->rp, NULL);
	if (live)
		synchronize_rcu();
	objpool_fini(&rph->pool);
	rp->rph = NULL;
	rp->kp.pre_handler = NULL;
	rp->kp.flags &= ~KPROBE_FLAG_KRETPROBE;
}

static struct kprobe *nth_kretprobe(void *vec, int i)
{
	struct kretprobe *rp = ((struct kretprobe **)vec)[i];

	return rp ? &rp->kp : NULL;
}

/* @caller: the return address of the API function called, see kprobe_pin_owner(). */
static int kretprobes_register(struct kretprobe **rps, int num,
			       unsigned long caller)
{
	int i, ret;

	if (num <= 0 || !rps)
		return -EINVAL;

	for (i = 0; i < num; i++) {
		ret = kretprobe_prepare(rps[i]);
		if (ret)
			goto undo;
	}

	ret = __register_kprobes(rps, nth_kretprobe, num, caller);
	if (!ret)
		return 0;
	/* The core unregistered them; some may have been hit meanwhile. */
	for (i = 0; i < num; i++)
		rcu_assign_pointer(rps[i]->rph->rp, NULL);
	synchronize_rcu();
	for (i = 0; i < num; i++)
		kretprobe_release(rps[i], false);
	return ret;
undo:
	while (--i >= 0)
		kretprobe_release(rps[i], false);
	return ret;
}

NOKPROBE_SYMBOL(kretprobes_register);

/**
 * register_kretprobes() - register return probes, all or none
 * @rps: the kretprobes, each at the entry of a function
 * @num: how many
 *
 * Return: 0, or the error of the first that failed (see register_kprobe());
 * besides, -EINVAL if one is not at a function entry, -E2BIG if its maxactive
 * or data_size is above KRETPROBE_MAX_MAXACTIVE or KRETPROBE_MAX_DATA_SIZE, or
 * its instances would take more than KRETPROBE_MAX_POOL_SIZE bytes.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	return kretprobes_register(rps, num, _RET_IP_);
}
EXPORT_SYMBOL_GPL(register_kretprobes);
NOKPROBE_SYMBOL(register_kretprobes);

/**
 * register_kretprobe() - register a return probe
 * @rp: the kretprobe, at the entry of a function
 *
 * Return: see register_kretprobes().
 */
int register_kretprobe(struct kretprobe *rp)
{
	return kretprobes_register(&rp, 1, _RET_IP_);
}
EXPORT_SYMBOL_GPL(register_kretprobe);
NOKPROBE_SYMBOL(register_kretprobe);

/**
 * unregister_kretprobes() - unregister return probes
 * @rps: the kretprobes
 * @num: how many
 *
 * When this returns no handler of them runs any more; invocations still
 * pending return normally without calling them.  One grace period for all.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	LIST_HEAD(dead);
	int i;

	if (num <= 0 || !rps)
		return;
	if (!__unregister_kprobes_top(rps, nth_kretprobe, num, &dead))
		return;

	for (i = 0; i < num; i++) {
		if (rps[i] && (rps[i]->kp.flags & KPROBE_FLAG_UNREGISTERING))
			rcu_assign_pointer(rps[i]->rph->rp, NULL);
	}
	synchronize_rcu();
	for (i = 0; i < num; i++) {
		/* No rph: released already, @rps has it twice. */
		if (rps[i] && (rps[i]->kp.flags & KPROBE_FLAG_UNREGISTERING) &&
		    rps[i]->rph)
			kretprobe_release(rps[i], false);
	}
	__unregister_kprobes_bottom(rps, nth_kretprobe, num, &dead);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);
NOKPROBE_SYMBOL(unregister_kretprobes);

/**
 * unregister_kretprobe() - unregister a return probe
 * @rp: the kretprobe
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);
NOKPROBE_SYMBOL(unregister_kretprobe);
