// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jprobes: call a handler with the arguments of the probed function.
 *
 * A jprobe is a kprobe at a function's entry whose pre handler saves, per
 * CPU, the registers and up to MAX_STACK_SIZE bytes of stack from the stack
 * pointer (where the arguments that do not fit in registers are), then
 * redirects execution to the handler, which has the probed function's
 * prototype and so sees its arguments.  The handler ends with
 * jprobe_return(), a breakpoint: jprobe_break() puts the saved stack bytes
 * and registers back, so that whatever the handler did to its copies of the
 * arguments, the probed function runs with the ones it was called with, and
 * the arch carries on at the site as after any pre handler (the probed
 * instruction out of line, the post handlers).
 *
 * The core keeps a jprobe last among the probes of its site, since its pre
 * handler redirects execution and the others must run before; there is at
 * most one per site, and a site with a jprobe is never jump optimized.
 *
 * The handler runs with preemption disabled from the hit to its
 * jprobe_return(), so that the per-CPU save stays its own; unregistration's
 * grace period therefore also waits for running handlers.  A jprobe hit while
 * a handler runs on the CPU (the handler calls a jprobed function, or an
 * interrupt does) misses: the function just runs.  A kretprobe on the
 * handler (or on a function that calls jprobe_return() for it) loses its
 * instance at the break, where the frame is abandoned: its handler does not
 * run.  For the same reason the function graph tracer is paused for the
 * task from the hit to the break.
 *
 * The saved stack bytes are put back at the break as they were at the hit:
 * what else wrote there meanwhile (the caller's locals may lie in that
 * area, and an interrupt may complete an on-stack completion of the caller
 * while the handler runs) is undone.  That is the nature of jprobes and the
 * reason for MAX_STACK_SIZE to be small; a handler that must not risk it is
 * a kprobe's pre handler, which sees the arguments in pt_regs.
 */
#define pr_fmt(fmt) "jprobes: " fmt

#include <linux/ftrace.h>
#include <linux/kasan.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#include "internal.h"

/**
 * struct jprobe_frame - what a running jprobe handler saved
 * @site: the site that was hit; NULL when no handler runs on this CPU
 * @task: the task the handler runs in
 * @sp: the stack pointer at the hit
 * @len: bytes of stack saved from @sp
 * @kri: the task's newest kretprobe instance at the hit
 * @regs: the registers at the hit, after the other pre handlers
 * @stack: the saved stack bytes
 */
struct jprobe_frame {
	struct kprobe *site;
	struct task_struct *task;
	unsigned long sp;
	unsigned long len;
	struct llist_node *kri;
	struct pt_regs regs;
	u8 stack[MAX_STACK_SIZE] __aligned(sizeof(long));
};

static DEFINE_PER_CPU(struct jprobe_frame, jprobe_frame);

/* How much of MAX_STACK_SIZE from @sp lies in the stack @sp is on. */
static unsigned long jprobe_stack_len(unsigned long sp)
{
	unsigned long base = (unsigned long)task_stack_page(current);

	if (sp >= base && sp <= base + THREAD_SIZE)
		return min_t(unsigned long, MAX_STACK_SIZE,
			     base + THREAD_SIZE - sp);
	/*
	 * Other stacks (interrupts, exceptions) end on a page boundary.  One
	 * may end at @sp: arm64's and riscv's call_on_irq_stack() enter their
	 * callee with the IRQ stack empty, and the page above may be a vmap
	 * guard or another CPU's data.  Save nothing there; the arguments of
	 * such a function are in registers.
	 */
	if (!offset_in_page(sp))
		return 0;
	return min_t(unsigned long, MAX_STACK_SIZE,
		     PAGE_SIZE - offset_in_page(sp));
}

NOKPROBE_SYMBOL(jprobe_stack_len);

/*
 * The stack bytes at the hit are the top of the caller's frame, which may
 * hold the KASAN redzones of its locals: copy them unchecked.  @sp is long
 * aligned, so is the length.
 */
static __no_sanitize_address void jprobe_copy_stack(void *dst, const void *src,
						    unsigned long len)
{
	const unsigned long *s = src;
	unsigned long *d = dst;
	unsigned long i;

	for (i = 0; i < len / sizeof(long); i++)
		d[i] = READ_ONCE_NOCHECK(s[i]);
}

NOKPROBE_SYMBOL(jprobe_copy_stack);

/*
 * The handler's frames below @sp are abandoned without their epilogues: with
 * KASAN, the redzones of their locals would stay poisoned under the stack
 * the probed function goes on with.  Unpoison from the base of the task
 * stack, or on another stack from @low, the stack pointer of the break (on
 * arm64 that is @sp already: such a handler's redzones stay).
 */
static void jprobe_unpoison_stack(unsigned long sp, unsigned long low)
{
	unsigned long base = (unsigned long)task_stack_page(current);

	if (sp >= base && sp < base + THREAD_SIZE)
		low = base;
	if (low < sp)
		kasan_unpoison_range((void *)low, sp - low);
}

NOKPROBE_SYMBOL(jprobe_unpoison_stack);

/* The pre handler of every jprobe's kp: always the last of its site. */
static int jprobe_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct jprobe *jp = container_of(p, struct jprobe, kp);
	struct jprobe_frame *f = this_cpu_ptr(&jprobe_frame);
	struct kprobe *site = kprobe_running();
	unsigned long sp = kernel_stack_pointer(regs);

	if (unlikely(f->site || !site)) {
		kprobe_count_missed(&p->nmissed);
		return 0;
	}

	f->len = jprobe_stack_len(sp);
	jprobe_copy_stack(f->stack, (void *)sp, f->len);
	f->regs = *regs;
	f->sp = sp;
	f->task = current;
	f->kri = kretprobe_mark();
	/* Until jprobe_break(): the save is this CPU's, and RCU waits for it. */
	preempt_disable();
	/*
	 * The handler's frames are abandoned at the break: the function graph
	 * tracer must not hook their returns (it would later return into
	 * __jprobe_guard), nor the probed function's call, whose return
	 * address is about to be saved and restored under it.
	 */
	pause_graph_tracing();
	WRITE_ONCE(f->site, site);
	arch_jprobe_redirect(jp, regs);
	return 1;
}

NOKPROBE_SYMBOL(jprobe_pre_handler);

/**
 * jprobe_break() - a breakpoint of jprobe_return() or of __jprobe_guard
 * @regs: the registers at the trap
 * @addr: the address of the breakpoint instruction
 *
 * Called by the arch's breakpoint handler for a trap at an address that is
 * no probe site, with interrupts disabled.  When a handler runs on this CPU,
 * restores the stack area and the registers saved at its hit and lets the
 * arch resume at the site.
 *
 * Return: see "jprobes" in the arch contract of <linux/kprobes.h>.
 */
enum jprobe_break_result jprobe_break(struct pt_regs *regs, unsigned long addr)
{
	struct jprobe_frame *f = this_cpu_ptr(&jprobe_frame);
	bool guard = addr == (unsigned long)jprobe_guard_break;
	struct kprobe *site;

	if (!guard && addr != (unsigned long)jprobe_return_break)
		return JPROBE_BREAK_NONE;

	site = f->site;
	if (unlikely(!site || f->task != current)) {
		if (guard)
			return JPROBE_BREAK_NONE;
		pr_err_ratelimited("jprobe_return() called outside a jprobe handler\n");
		return JPROBE_BREAK_STRAY;
	}
	if (unlikely(guard))
		pr_err_once("a jprobe handler of %pS returned without jprobe_return()\n",
			    site->addr);

	jprobe_unpoison_stack(f->sp, kernel_stack_pointer(regs));
	jprobe_copy_stack((void *)f->sp, f->stack, f->len);
	arch_jprobe_restore_regs(regs, &f->regs);
	/* The handler's frame never returns: nor do kretprobes on it. */
	kretprobe_abandon(f->kri);
	unpause_graph_tracing();
	WRITE_ONCE(f->site, NULL);
	arch_jprobe_resume(site, regs);
	preempt_enable_no_resched();
	return JPROBE_BREAK_RESUMED;
}

NOKPROBE_SYMBOL(jprobe_break);

/* jprobe_return() and __jprobe_guard are arch asm, exported there. */
NOKPROBE_SYMBOL(jprobe_return);
NOKPROBE_SYMBOL(__jprobe_guard);

static struct kprobe *nth_jprobe(void *vec, int i)
{
	struct jprobe *jp = ((struct jprobe **)vec)[i];

	return jp ? &jp->kp : NULL;
}

/* @caller: the return address of the API function called, see kprobe_pin_owner(). */
static int jprobes_register(struct jprobe **jps, int num, unsigned long caller)
{
	int i, ret;

	if (num <= 0 || !jps)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		struct jprobe *jp = jps[i];

		if (!jp || !jp->entry || jp->kp.hits ||
		    (jp->kp.flags & ~KPROBE_FLAG_DISABLED))
			return -EINVAL;
	}
	for (i = 0; i < num; i++) {
		struct kprobe *kp = &jps[i]->kp;

		kp->pre_handler = jprobe_pre_handler;
		kp->post_handler = NULL;
		kp->fault_handler = NULL;
		kp->flags |= KPROBE_FLAG_JPROBE;
	}

	ret = __register_kprobes(jps, nth_jprobe, num, caller);
	if (ret) {
		for (i = 0; i < num; i++)
			jps[i]->kp.flags &= ~KPROBE_FLAG_JPROBE;
	}
	return ret;
}

NOKPROBE_SYMBOL(jprobes_register);

/**
 * register_jprobes() - register jprobes, all or none
 * @jps: the jprobes: each with .entry, and .kp.addr or .kp.symbol_name of a
 *	function (.kp.offset 0, or whatever lands on the function's entry),
 *	.kp.flags 0 or KPROBE_FLAG_DISABLED; the core owns the kp's handlers
 * @num: how many
 *
 * Return: 0, or the error of the first jprobe that failed, and then none is
 * registered: -EINVAL for a malformed or already registered jprobe, no
 * handler, or an address that is not the entry of a function; -EBUSY when
 * the function already has a jprobe; else as register_kprobe().
 */
int register_jprobes(struct jprobe **jps, int num)
{
	return jprobes_register(jps, num, _RET_IP_);
}
EXPORT_SYMBOL_GPL(register_jprobes);
NOKPROBE_SYMBOL(register_jprobes);

/**
 * register_jprobe() - register a jprobe
 * @jp: the jprobe (see register_jprobes())
 *
 * The handler @jp->entry is called, at each call of the probed function,
 * with the function's arguments; it must have the function's prototype, not
 * sleep, and end with jprobe_return().  Then the function runs with its
 * arguments as they were, whatever the handler did to its copies.
 *
 * Return: see register_jprobes().
 */
int register_jprobe(struct jprobe *jp)
{
	return jprobes_register(&jp, 1, _RET_IP_);
}
EXPORT_SYMBOL_GPL(register_jprobe);
NOKPROBE_SYMBOL(register_jprobe);

/**
 * unregister_jprobes() - unregister jprobes
 * @jps: the jprobes; those not registered are ignored
 * @num: how many
 *
 * When this returns, none of their handlers runs any more.  Waits for a
 * single grace period for the whole batch.
 */
void unregister_jprobes(struct jprobe **jps, int num)
{
	if (jps)
		__unregister_kprobes(jps, nth_jprobe, num);
}
EXPORT_SYMBOL_GPL(unregister_jprobes);
NOKPROBE_SYMBOL(unregister_jprobes);

/**
 * unregister_jprobe() - unregister a jprobe
 * @jp: the jprobe; nothing happens if it is not registered
 *
 * When this returns, its handler does not run any more.
 */
void unregister_jprobe(struct jprobe *jp)
{
	unregister_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(unregister_jprobe);
NOKPROBE_SYMBOL(unregister_jprobe);
