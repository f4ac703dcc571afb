/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H
/*
 * kprobes: breakpoints on (almost) any kernel instruction.
 *
 * This header has four parts:
 *
 *   1. The API for probe users: struct kprobe, struct kretprobe, struct jprobe
 *      and the register/unregister/enable/disable functions of kprobes and
 *      jprobes.
 *   2. The contract between the generic core (kernel/kprobes/) and each
 *      architecture: every hook an architecture provides, with its semantics,
 *      and the generic services arch code calls on the hit path.
 *   3. Stubs for kernels built without CONFIG_KPROBES.
 *   4. The kretprobe API, with inline stubs without CONFIG_KRETPROBES.
 *
 * Documentation/trace/kprobes.rst describes the design.
 */
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/objpool.h>
#include <asm/kprobes.h>

/*
 * Size of an instruction slot (get_insn_slot()), in kprobe_opcode_t.  It is
 * MAX_INSN_SIZE unless asm/kprobes.h says otherwise: on x86, MAX_INSN_SIZE
 * comes from <asm/insn.h> and means the longest instruction (15 bytes), while
 * a slot holds more than one copy of it.
 */
#if defined(CONFIG_KPROBES) && !defined(KPROBE_INSN_SLOT_SIZE)
#define KPROBE_INSN_SLOT_SIZE	MAX_INSN_SIZE
#endif

/* kprobe::flags */
#define KPROBE_FLAG_GONE		BIT(0)	/* its text went away (module unloaded) */
#define KPROBE_FLAG_DISABLED		BIT(1)	/* registered but not armed */
#define KPROBE_FLAG_OPTIMIZED		BIT(2)	/* replaced by a jump to a detour */
#define KPROBE_FLAG_FTRACE		BIT(3)	/* armed through ftrace, not a breakpoint */
#define KPROBE_FLAG_ON_FUNC_ENTRY	BIT(4)	/* at the entry of a function */
#define KPROBE_FLAG_JPROBE		BIT(5)	/* the kprobe of a struct jprobe */
#define KPROBE_FLAG_KRETPROBE		BIT(6)	/* the kprobe of a struct kretprobe */

/* kprobe_status values, kept per CPU in struct kprobe_ctlblk by arch code. */
#define KPROBE_HIT_ACTIVE	0x00000001	/* running the pre handlers */
#define KPROBE_HIT_SS		0x00000002	/* running the instruction out of line */
#define KPROBE_REENTER		0x00000004	/* hit while another probe was active */
#define KPROBE_HIT_SSDONE	0x00000008	/* running the post handlers */

#ifdef CONFIG_KPROBES

/* ---------------------------------------------------------------------------
 * 1. The API for probe users
 * ---------------------------------------------------------------------------
 */
struct kprobe;
struct pt_regs;
struct kretprobe;
struct kretprobe_instance;
struct module;
struct task_struct;

typedef int (*kprobe_pre_handler_t)(struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t)(struct kprobe *, struct pt_regs *,
				      unsigned long flags);
typedef int (*kprobe_fault_handler_t)(struct kprobe *, struct pt_regs *,
				      int trapnr);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

/**
 * struct kprobe - a probe on one kernel instruction
 * @hlist: link in the probe hash; hashed only for the probe that owns an
 *	address (see "aggregates" in the arch contract below)
 * @list: link in the list of probes sharing one address
 * @nmissed: hits whose handlers were skipped because another probe was
 *	running on the same CPU
 * @addr: the probed address.  register_kprobe() sets it to the address of
 *	the probed instruction (@symbol_name or the given @addr, plus @offset);
 *	unregister_kprobe() clears it for a probe given by @symbol_name.  A
 *	probe given by address with a non-zero @offset keeps the resolved
 *	address: set @addr again before registering it again
 * @symbol_name: probe the function of this name ...
 * @offset: ... at this offset in bytes
 * @pre_handler: called before the probed instruction runs; a non-zero return
 *	means the handler changed the instruction pointer and execution resumes
 *	there, without running the probed instruction or the post handler
 * @post_handler: called after the probed instruction ran
 * @fault_handler: called when a fault happens in @pre_handler,
 *	@post_handler, or while the probed instruction runs out of line; return
 *	1 if the handler fixed the fault, 0 to let the kernel handle it
 * @opcode: the original instruction (first unit) at @addr, for arch code
 * @ainsn: arch state: the out-of-line copy of the instruction and its decoding
 * @flags: KPROBE_FLAG_*, owned by the core; only KPROBE_FLAG_DISABLED may be
 *	set by the user before registration, to register the probe disabled
 * @hits: per-CPU hit counts, owned by the core (shown in debugfs)
 * @owner: owned by the core: the module whose code the probe's handlers are
 *	in, pinned while the probe is registered, when the probe's structure
 *	is in (or was registered by) another module; NULL otherwise
 */
struct kprobe {
	struct hlist_node hlist;
	struct list_head list;
	unsigned long nmissed;
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_fault_handler_t fault_handler;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
	u32 flags;
	unsigned long __percpu *hits;
	struct module *owner;
};

static inline bool kprobe_gone(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_GONE;
}

static inline bool kprobe_disabled(const struct kprobe *p)
{
	return p->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

static inline bool kprobe_optimized(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_OPTIMIZED;
}

static inline bool kprobe_ftrace(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE;
}

/*
 * kretprobes.  The entry probe takes a preallocated instance, saves the return
 * address in it and replaces it with the arch's return trampoline.  When the
 * function returns, the trampoline (arch code, no trap) calls the generic
 * __kretprobe_trampoline_handler(), which runs @handler and gives back the
 * real return address.
 */
struct kretprobe_holder;

/**
 * struct kretprobe - a probe on the return of a function
 * @kp: the entry probe (its pre_handler is owned by the core)
 * @handler: called when the probed function returns
 * @entry_handler: called at function entry; a non-zero return drops this
 *	instance (no @handler call for this invocation)
 * @maxactive: instances preallocated, i.e. how many invocations may be
 *	tracked at once; <= 0 means the default (see KRETPROBE_DEFAULT_MAXACTIVE)
 * @nmissed: invocations not tracked because no instance was free
 * @data_size: bytes of private data per instance (kretprobe_instance::data)
 * @rph: instance pool, owned by the core; outlives the kretprobe until every
 *	instance in use has returned
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
	struct kretprobe_holder *rph;
};

/*
 * Hard limits, so that a bad maxactive/data_size fails instead of OOMing:
 * an instance and its data in one objpool object, and all instances in
 * KRETPROBE_MAX_POOL_SIZE bytes (objpool's rings of pointers, one per
 * possible CPU, come on top).
 */
#define KRETPROBE_MAX_MAXACTIVE		BIT(16)
#define KRETPROBE_MAX_DATA_SIZE		\
	(OBJPOOL_OBJECT_SIZE_MAX - sizeof(struct kretprobe_instance))
#define KRETPROBE_MAX_POOL_SIZE		(16UL << 20)

/**
 * struct kretprobe_holder - the instance pool of a kretprobe
 * @rp: the kretprobe, or NULL once it has been unregistered
 * @pool: the preallocated instances
 *
 * Freed with the last instance, which may be after the kretprobe itself.
 */
struct kretprobe_holder {
	struct kretprobe __rcu *rp;
	struct objpool_head pool;
};

/**
 * struct kretprobe_instance - one tracked invocation of a kretprobed function
 * @rcu: for freeing after the pool is gone
 * @llist: link in the task's list of pending instances (newest first)
 * @rph: the pool this instance belongs to
 * @ret_addr: the real return address
 * @fp: the arch's key of the frame it belongs to, which the trampoline and
 *	the unwinders pass back (x86: the stack address of the return address;
 *	arm64: x29 at entry; riscv, powerpc: the stack pointer at entry)
 * @data: the kretprobe's private data, kretprobe::data_size bytes
 */
struct kretprobe_instance {
	struct rcu_head rcu;
	struct llist_node llist;
	struct kretprobe_holder *rph;
	kprobe_opcode_t *ret_addr;
	void *fp;
	char data[];
};

/**
 * get_kretprobe() - the kretprobe an instance belongs to
 * @ri: the instance
 *
 * Return: the kretprobe, or NULL when it has been unregistered while this
 * invocation was pending, or (in an entry handler) is being unregistered on
 * another CPU.
 */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return rcu_dereference_check(ri->rph->rp, rcu_read_lock_any_held());
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}

#ifdef CONFIG_JPROBES
/**
 * struct jprobe - a probe that calls a handler with the probed function's
 *	arguments
 * @kp: the entry probe (its handlers are owned by the core)
 * @entry: the handler; it has the probed function's prototype and must end
 *	with jprobe_return()
 */
struct jprobe {
	struct kprobe kp;
	void *entry;
};
#endif

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int enable_kprobe(struct kprobe *kp);
int disable_kprobe(struct kprobe *kp);

#ifdef CONFIG_JPROBES
int register_jprobe(struct jprobe *jp);
void unregister_jprobe(struct jprobe *jp);
int register_jprobes(struct jprobe **jps, int num);
void unregister_jprobes(struct jprobe **jps, int num);

/**
 * jprobe_return() - end of a jprobe handler
 *
 * The last thing a jprobe handler does: traps back into kprobes, which
 * restores the registers and the stack area of the probed function's entry
 * as they were before the handler ran, and lets the probed function run.
 * Never returns to its caller when called from a jprobe handler.  Called
 * anywhere else, it logs an error and returns.
 */
void jprobe_return(void);

static inline int enable_jprobe(struct jprobe *jp)
{
	return enable_kprobe(&jp->kp);
}

static inline int disable_jprobe(struct jprobe *jp)
{
	return disable_kprobe(&jp->kp);
}
#endif

/* Where would a probe on @sym+@offset (or @addr) land, and is it an entry? */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
bool within_kprobe_blacklist(unsigned long addr);
void wait_for_kprobe_optimizer(void);

/* The probe whose handler runs on this CPU, or NULL. */
DECLARE_PER_CPU(struct kprobe *, current_kprobe);

static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

/*
 * kprobe_busy_begin/end() bracket code that must not be probed recursively
 * (fprobe, for handlers it shares with kprobes): a probe hit in between is
 * counted as missed.
 */
void kprobe_busy_begin(void);
void kprobe_busy_end(void);

/* Hooks of the rest of the kernel into kprobes (kretprobes: section 4). */
void kprobe_free_init_mem(void);
bool is_kprobe_insn_slot(unsigned long addr);
bool is_kprobe_optinsn_slot(unsigned long addr);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);
void kprobe_ftrace_kill(void);

static inline bool kprobes_built_in(void)
{
	return true;
}

/* The arch's fault recovery (see "Faults" in the arch contract below). */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);

static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
	if (user_mode(regs) || preemptible() || !kprobe_running())
		return false;
	return kprobe_fault_handler(regs, trap);
}

/* ---------------------------------------------------------------------------
 * 2. The arch contract
 * ---------------------------------------------------------------------------
 *
 * Probes and aggregates.  The core never arms a user's struct kprobe.  For
 * each probed address it allocates one "site" (a struct kprobe, embedded in a
 * struct optimized_kprobe when CONFIG_OPTPROBES) that is hashed, armed and
 * passed to every arch hook; the users' probes at that address hang off the
 * site's @list.  A site has a non-NULL @post_handler exactly when one of its
 * probes has a post handler (arch code must not boost it then), and a
 * non-NULL @pre_handler/@fault_handler always; arch code never calls them but
 * uses the kprobe_call_*() services below.  @post_handler may change while
 * the site is armed (a probe joins or leaves): arch code tests it at each
 * hit, not only in arch_prepare_kprobe().  current_kprobe is the site.
 *
 * asm/kprobes.h provides, under CONFIG_KPROBES:
 *   kprobe_opcode_t		the unit of an instruction
 *   MAX_INSN_SIZE		size of an instruction slot, in kprobe_opcode_t,
 *				unless KPROBE_INSN_SLOT_SIZE is defined (the
 *				core uses KPROBE_INSN_SLOT_SIZE, see above)
 *   struct arch_specific_insn	site::ainsn: slot, decoding, emulation
 *   struct kprobe_ctlblk	per-CPU state: kprobe_status and what is needed
 *				to save one interrupted probe (reentry)
 * and with CONFIG_OPTPROBES:
 *   struct arch_optimized_insn	the detour of an optimized site
 *   MAX_OPTINSN_SIZE		size of an optinsn slot, in kprobe_opcode_t
 *   MAX_OPTIMIZED_LENGTH	(optional) most bytes a jump may replace;
 *				default MAX_INSN_SIZE units + 2 longs
 *   __ARCH_WANT_KPROBES_STOP_MACHINE
 *				(optional) defined when a breakpoint may not
 *				replace an instruction, nor be replaced by it,
 *				while another CPU may be executing it: the
 *				core then calls arch_arm_kprobe() and
 *				arch_disarm_kprobe() from stop_machine()
 *
 * Hooks (called with kprobe_mutex held unless said otherwise; the
 * prepare and remove hooks without text_mutex, so that they can use
 * text_poke_copy() and friends).  The lookup hooks
 * arch_adjust_kprobe_addr() and arch_within_kprobe_blacklist() are called
 * without kprobe_mutex, from the exported kprobe_on_func_entry() and
 * within_kprobe_blacklist() too, so they only read; arch_init_kprobes() is
 * called once at init without it.
 *
 * arch_prepare_kprobe(p)	Decode the instruction at p->addr, refuse what
 *				cannot be probed (-EILSEQ: not an instruction
 *				boundary, or no instruction that decodes, or
 *				x86 text that cannot be read; -EINVAL: not
 *				probeable, whatever the reason, arm64's
 *				misaligned addresses too), set
 *				up p->ainsn (a slot from get_insn_slot(), or
 *				emulation) and save p->opcode.  Nothing armed.
 *				The only other errnos: -ERANGE (x86: the slot
 *				is out of reach of a RIP-relative operand or of
 *				the jump back, a placement failure, not the
 *				instruction's), -ENOMEM and -EFAULT.
 *				Never called on an ftrace site (see
 *				arch_prepare_kprobe_ftrace()).
 * arch_arm_kprobe(p)		Write the breakpoint at p->addr.  Called with
 *				cpus_read_lock() and text_mutex held, possibly
 *				many times in a row; the writes are guaranteed
 *				visible on every CPU only after
 *				arch_kprobe_sync().  With
 *				__ARCH_WANT_KPROBES_STOP_MACHINE, called from
 *				the stop_machine() callback: interrupts off,
 *				every other CPU spinning, text_mutex held by
 *				the task that stopped them, not by this one.
 * arch_disarm_kprobe(p)	Restore p->opcode at p->addr; same rules.
 * arch_kprobe_sync()		Make all arm/disarm writes since the last call
 *				visible to every CPU (one synchronization for a
 *				whole batch).  cpus_read_lock() and text_mutex
 *				held.
 * arch_remove_kprobe(p)	Free what arch_prepare_kprobe() (or
 *				arch_prepare_kprobe_ftrace()) allocated, after
 *				a grace period: no CPU is in the handlers any
 *				more, but a preempted task may still be in a
 *				boosted copy, so such a slot is freed dirty.
 * arch_adjust_kprobe_addr(addr, offset, on_func_entry)
 *				Where a probe on the function at @addr - @offset
 *				lands (e.g. after ENDBR, or on the ELFv2 local
 *				entry); sets *on_func_entry.  Default: @addr,
 *				entry iff offset == 0.
 * kprobe_lookup_name(name, offset)
 *				(Weak; default: kallsyms_lookup_name().)  The
 *				address to probe for a symbol, for an ABI whose
 *				function symbols are not their code (powerpc
 *				ELFv1: function descriptors).  Called without
 *				kprobe_mutex, as arch_adjust_kprobe_addr().
 * arch_within_kprobe_blacklist(addr)
 *				Arch ranges that must never be probed.
 * arch_populate_kprobe_blacklist()
 *				Add arch ranges to the blacklist (at init):
 *				registration refuses them, and debugfs lists
 *				them.
 * arch_kretprobe_blacklisted(addr)
 *				(Default: false.)  A function entry, probeable,
 *				whose return a kretprobe cannot take: one that
 *				returns on another task's stack, as that task
 *				(x86's __switch_to()).
 * arch_init_kprobes()		Once, at init.
 * alloc_insn_page() / free_insn_page(page)
 *				Executable page for slots (default: execmem).
 *
 * kretprobes (CONFIG_KRETPROBES):
 * arch_prepare_kretprobe(ri, regs)
 *				At function entry (in the entry probe's
 *				pre handler): save the return address into
 *				ri->ret_addr and the frame's key into ri->fp
 *				(a value that identifies this call's frame,
 *				which the trampoline passes back and which the
 *				arch's unwinder gives kretprobe_find_ret_addr();
 *				see struct kretprobe_instance), and replace
 *				the return address by __kretprobe_trampoline.
 * __kretprobe_trampoline	Asm: builds a full pt_regs, calls
 *				__kretprobe_trampoline_handler(regs, fp) and
 *				returns to what it returns; no trap.  Going
 *				back it must reload from regs whatever the
 *				C call may have clobbered (a handler may
 *				change the return value, and asm functions
 *				may return in any register or the flags, or
 *				promise to keep caller-saved ones); the
 *				callee-saved registers it may take as they
 *				are.
 * arch_kretprobe_fixup_return(regs, ret)
 *				Make @regs (as seen by handlers) return to @ret.
 *				Called before the handlers run; the generic
 *				code has already set instruction_pointer(regs).
 *				A static inline of <asm/kprobes.h>: it runs on
 *				every return.
 *
 * Jump optimization (CONFIG_OPTPROBES):
 * arch_prepare_optimized_kprobe(op, p)
 *				Decide whether site @p can be replaced by a jump
 *				(whole-function decode: no jump into the replaced
 *				range, no other probe in it, every displaced
 *				instruction relocatable, ...); if so build the
 *				detour in op->optinsn and return 0, else -errno
 *				having freed what it allocated.  op->kp is @p.
 *				Once it succeeded the core queues the site and
 *				sets KPROBE_FLAG_OPTIMIZED.  Where the jump
 *				replaces more than the probed instruction, a
 *				hit of the breakpoint should from then on resume
 *				in the detour's copy of the displaced
 *				instructions rather than in a slot that returns
 *				inside the range, so that after the RCU-tasks
 *				wait no task can be inside the range when the
 *				jump is written.
 * arch_remove_optimized_kprobe(op)
 *				Free the detour.  May be called right after
 *				arch_unoptimize_kprobes(): free the slot dirty.
 *				A breakpoint hit that reads op->optinsn to
 *				resume in the detour may race with this one
 *				(it saw KPROBE_FLAG_OPTIMIZED still set):
 *				clear with WRITE_ONCE() what it reads.  The
 *				core frees a site that ever had a detour only
 *				after an RCU-tasks grace period, so a detour
 *				may pass @op to its handler from preemptible
 *				code.
 * arch_optimize_kprobes(list)	Replace the breakpoint of every op on @list by
 *				its jump; take each one off the list.  Called
 *				after an RCU-tasks grace period, with
 *				text_mutex and cpus_read_lock held.
 * arch_unoptimize_kprobes(list, done)
 *				Put the breakpoint back for every op on @list,
 *				moving it to @done.  Same locks.
 * arch_within_optimized_kprobe(op, addr)
 *				@addr lies in the bytes replaced by op's jump.
 * alloc_optinsn_page() / free_optinsn_page(page)
 *				Executable page for detour slots (default:
 *				alloc_insn_page() / free_insn_page()), for an
 *				arch whose detours must be in reach of the
 *				text while its instruction slots need not be.
 * The core's services for arch_prepare_optimized_kprobe(), for the jumps
 * into a range that decoding the probed function does not show:
 *   kprobe_jump_label_into(lo, hi)
 *				a jump label's jump would land in (@lo, @hi)
 *   kprobe_walk_split_parts(func, fn, data)
 *				call @fn on the other parts of a function
 *				GCC split (foo and foo.cold jump into each
 *				other): decode them too
 *
 * Kprobes on ftrace (CONFIG_KPROBES_ON_FTRACE):
 * arch_prepare_kprobe_ftrace(p)	Prepare a site at an ftrace location.
 * kprobe_ftrace_handler()	The ftrace_ops callback (arch code): calls
 *				the pre handlers, emulates the nop for the
 *				post handlers as if it had run.
 * __ARCH_WANT_KRETPROBE_FTRACE	Optional, defined by asm/kprobes.h with
 *				CONFIG_KRETPROBES: at an ftrace location the
 *				return address is in memory at the stack
 *				pointer (ftrace_regs_get_stack_pointer()),
 *				and arch_prepare_kretprobe() sets ri->fp to
 *				that address.  The arch must have
 *				HAVE_DYNAMIC_FTRACE_WITH_ARGS.  The core then
 *				arms the ftrace sites whose members are all
 *				kretprobes without entry handler through an
 *				ftrace_ops without FTRACE_OPS_FL_SAVE_REGS,
 *				and swaps their return address itself: no
 *				struct pt_regs is saved at their entry.
 *
 * Faults: the arch's fault path calls kprobe_fault_handler(regs, trapnr)
 * (arch code) when kprobe_running(); it recovers a fault in the out-of-line
 * slot and gives handlers a chance through kprobe_call_fault_handlers().
 *
 * Services of the core for arch code (hit path: preemption disabled,
 * no locks, may run in NMI context on some arches):
 *   get_kprobe(addr)		the site at @addr, or NULL (RCU)
 *   kprobe_call_pre_handlers(site, regs)
 *				count the hit and run the pre handlers of every
 *				enabled probe at the site, in registration order
 *				(a jprobe last); returns non-zero if one
 *				redirected execution.
 *				current_kprobe must be set already (a nested
 *				hit must count a miss, not touch the counts)
 *   kprobe_call_post_handlers(site, regs)
 *   kprobe_call_fault_handlers(site, regs, trapnr)
 *   kprobes_inc_nmissed_count(site)
 *				a hit that runs no handler (reentry)
 *   get_insn_slot() / free_insn_slot(slot, dirty)
 *   get_optinsn_slot() / free_optinsn_slot(slot, dirty)
 * and, not on the hit path (kprobe_mutex held):
 *   kprobe_text_reserved(start, end)
 *				jump labels or static calls own some of the text
 */
struct kprobe *get_kprobe(void *addr);
bool kprobe_text_reserved(void *start, void *end);
int __kprobe_call_pre_handlers(struct kprobe *site, struct pt_regs *regs);
void __kprobe_call_post_handlers(struct kprobe *site, struct pt_regs *regs);

/*
 * The member whose handler runs on this CPU, for kprobe_call_fault_handlers():
 * a fault in a handler goes to that member's fault handler only.  Set for
 * the members of aggregates only: a lone member is the one probe that
 * kprobe_call_fault_handlers() would offer the fault to anyway.
 */
DECLARE_PER_CPU(struct kprobe *, kprobe_instance);

/*
 * Is @first, read from @site->list.next, the only member of @site?  Most
 * sites have one: its handlers are then called from the arch's hit path
 * directly, without the call and the list walk.
 */
static __always_inline bool kprobe_lone_member(struct kprobe *site,
					       struct list_head *first)
{
	return first != &site->list && READ_ONCE(first->next) == &site->list;
}

static __always_inline int kprobe_call_pre_handlers(struct kprobe *site,
						    struct pt_regs *regs)
{
	struct list_head *first = READ_ONCE(site->list.next);
	struct kprobe *p;

	if (unlikely(!kprobe_lone_member(site, first)))
		return __kprobe_call_pre_handlers(site, regs);
	p = list_entry(first, struct kprobe, list);
	if (unlikely(kprobe_disabled(p)))
		return 0;
	/* Not irq-safe, and need not be: see __kprobe_call_pre_handlers(). */
	__this_cpu_inc(*p->hits);
	if (!p->pre_handler)
		return 0;
	return p->pre_handler(p, regs);
}

static __always_inline void kprobe_call_post_handlers(struct kprobe *site,
						      struct pt_regs *regs)
{
	struct list_head *first = READ_ONCE(site->list.next);
	struct kprobe *p;

	if (unlikely(!kprobe_lone_member(site, first))) {
		__kprobe_call_post_handlers(site, regs);
		return;
	}
	p = list_entry(first, struct kprobe, list);
	if (!p->post_handler || unlikely(kprobe_disabled(p)))
		return;
	p->post_handler(p, regs, 0);
}

int kprobe_call_fault_handlers(struct kprobe *site, struct pt_regs *regs,
			       int trapnr);
void kprobes_inc_nmissed_count(struct kprobe *site);

DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
void arch_kprobe_sync(void);
void arch_remove_kprobe(struct kprobe *p);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);
bool arch_within_kprobe_blacklist(unsigned long addr);
int arch_populate_kprobe_blacklist(void);
bool arch_kretprobe_blacklisted(unsigned long addr);
int arch_init_kprobes(void);
void *alloc_insn_page(void);
void free_insn_page(void *page);

int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot, int dirty);

#ifdef CONFIG_KRETPROBES
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void __kretprobe_trampoline(void);
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer);

static nokprobe_inline void *kretprobe_trampoline_addr(void)
{
	return dereference_kernel_function_descriptor(__kretprobe_trampoline);
}

/* Default maxactive when the user gives none. */
#ifdef CONFIG_PREEMPTION
#define KRETPROBE_DEFAULT_MAXACTIVE	max_t(unsigned int, 10, 2 * num_possible_cpus())
#else
#define KRETPROBE_DEFAULT_MAXACTIVE	num_possible_cpus()
#endif
#endif /* CONFIG_KRETPROBES */

#ifdef CONFIG_OPTPROBES
/**
 * struct optimized_kprobe - a site that can be replaced by a jump
 * @kp: the site
 * @list: link in the optimizer's queues
 * @optinsn: the arch's detour
 */
struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;
	struct arch_optimized_insn optinsn;
};

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *p);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
void arch_optimize_kprobes(struct list_head *oplist);
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list);
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  kprobe_opcode_t *addr);

void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);
kprobe_opcode_t *get_optinsn_slot(void);
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty);

/* The site whose replaced range covers @addr (excluding its first byte). */
struct kprobe *get_optimized_kprobe(kprobe_opcode_t *addr);

/* For arch_prepare_optimized_kprobe(): see "Jump optimization" above. */
bool kprobe_jump_label_into(unsigned long lo, unsigned long hi);
typedef int (*kprobe_part_fn_t)(void *data, unsigned long start,
				unsigned long end);
int kprobe_walk_split_parts(unsigned long func, kprobe_part_fn_t fn,
			    void *data);

extern int sysctl_kprobes_optimization;
#endif /* CONFIG_OPTPROBES */

#ifdef CONFIG_KPROBES_ON_FTRACE
int arch_prepare_kprobe_ftrace(struct kprobe *p);
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
#endif

#ifdef CONFIG_JPROBES
/*
 * jprobes (kernel/kprobes/jprobes.c).  A jprobe is a member of the site at a
 * function's entry, always its last member, whose pre handler saves the
 * registers and up to MAX_STACK_SIZE bytes of stack from the stack pointer
 * (the argument area), per CPU, and redirects execution to jprobe::entry.
 * The handler runs in the probed context, with preemption disabled,
 * interrupts as they were at the hit and no kprobe running: probes in it are
 * hit normally, except another jprobe, which misses.  Its jprobe_return()
 * executes a breakpoint at jprobe_return_break; a handler that returns
 * instead lands on __jprobe_guard, which breaks at jprobe_guard_break.  The
 * arch's breakpoint handler passes either trap to jprobe_break(), which
 * restores the stack area and the registers and then calls
 * arch_jprobe_resume().  A site with a jprobe is never jump optimized.
 *
 * asm/kprobes.h provides, under CONFIG_KPROBES:
 *   MAX_STACK_SIZE		bytes of stack saved and restored, at most
 *
 * The arch provides (asm):
 *   jprobe_return()		a function whose body is a breakpoint at the
 *				global label jprobe_return_break, then a
 *				return to its caller (for a call outside a
 *				jprobe handler, see below).  An arch whose
 *				exception return cannot set the stack pointer
 *				(arm64) first moves it back to where it was
 *				at the hit, in a handler only
 *   __jprobe_guard		the return address a handler sees: a
 *				breakpoint at the global label
 *				jprobe_guard_break, with the stack pointer
 *				back where it was at the hit (no room for the
 *				trap's frame is taken from the saved area)
 *
 * arch_jprobe_redirect(jp, regs)
 *				In the jprobe's pre handler, after the save:
 *				make @regs enter jp->entry as a call from the
 *				probed function's caller would (arguments and
 *				stack pointer untouched, whatever the ABI needs
 *				at an entry point), with __jprobe_guard as the
 *				return address (in the link register, or in the
 *				stack slot of the return address).
 * arch_jprobe_restore_regs(regs, saved)
 *				In the trap of jprobe_return_break or
 *				jprobe_guard_break: make @regs the registers
 *				@saved at the hit, keeping what the trap's own
 *				frame needs (x86: the segments; arm64: the
 *				stack pointer, which jprobe_return() restored).
 * arch_jprobe_resume(site, regs)
 *				Right after: carry on at @site as when its pre
 *				handlers return 0: run the probed instruction
 *				out of line, or the ftrace call as if it had
 *				run, and the post handlers.  No probe is
 *				running on this CPU when it is called.
 *
 * Service of the core for the arch's breakpoint handler, for a trap at no
 * site (interrupts disabled):
 *   jprobe_break(regs, addr)	JPROBE_BREAK_NONE: @addr is not a jprobe
 *				break, or a stray __jprobe_guard (the kernel
 *				should handle it as any stray breakpoint);
 *				JPROBE_BREAK_RESUMED: @regs are set to resume;
 *				JPROBE_BREAK_STRAY: jprobe_return() was called
 *				outside a jprobe handler (an error is logged):
 *				resume after the breakpoint instruction.
 */
extern char jprobe_return_break[];
extern char __jprobe_guard[];
extern char jprobe_guard_break[];

void arch_jprobe_redirect(struct jprobe *jp, struct pt_regs *regs);
void arch_jprobe_restore_regs(struct pt_regs *regs,
			      const struct pt_regs *saved);
void arch_jprobe_resume(struct kprobe *site, struct pt_regs *regs);
#endif

enum jprobe_break_result {
	JPROBE_BREAK_NONE,
	JPROBE_BREAK_RESUMED,
	JPROBE_BREAK_STRAY,
};

#ifdef CONFIG_JPROBES
enum jprobe_break_result jprobe_break(struct pt_regs *regs,
				      unsigned long addr);
#else
static inline enum jprobe_break_result jprobe_break(struct pt_regs *regs,
						    unsigned long addr)
{
	return JPROBE_BREAK_NONE;
}
#endif

#else /* !CONFIG_KPROBES */
/* ---------------------------------------------------------------------------
 * 3. Without CONFIG_KPROBES
 * ---------------------------------------------------------------------------
 */
/* asm/kprobes.h defines it with CONFIG_KPROBES only. */
typedef u8 kprobe_opcode_t;

struct kprobe {
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	unsigned long nmissed;
	u32 flags;
};

struct kretprobe {
	struct kprobe kp;
	int maxactive;
	int nmissed;
	size_t data_size;
};

/* The API: nothing can be probed. */
static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p)
{
}

static inline void unregister_kprobes(struct kprobe **kps, int num)
{
}

static inline bool kprobes_built_in(void)
{
	return false;
}

/* Hooks of the rest of the kernel: no site, no slot, everything refused. */
static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}

static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

static inline void kprobe_free_init_mem(void)
{
}

static inline void kprobe_ftrace_kill(void)
{
}

/* The hit path: never running, no fault is a probe's. */
static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

#define kprobe_busy_begin()	do {} while (0)
#define kprobe_busy_end()	do {} while (0)

static inline bool kprobe_page_fault(struct pt_regs *regs, unsigned int trap)
{
	return false;
}

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}
#endif /* CONFIG_KPROBES */

/* ---------------------------------------------------------------------------
 * 4. The kretprobe API, with or without CONFIG_KRETPROBES
 * ---------------------------------------------------------------------------
 */
#ifdef CONFIG_KRETPROBES
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);

/* Hooks of the rest of the kernel: task exit, stack unwinders. */
void kprobe_flush_task(struct task_struct *tk);
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);
bool is_kretprobe_trampoline(unsigned long addr);
#else
static inline int register_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobe(struct kretprobe *rp)
{
}

static inline void unregister_kretprobes(struct kretprobe **rps, int num)
{
}

static inline void kprobe_flush_task(struct task_struct *tk)
{
}

static inline unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
						    void *fp,
						    struct llist_node **cur)
{
	return 0;
}

static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}
#endif /* CONFIG_KRETPROBES */

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}

#endif /* _LINUX_KPROBES_H */
