// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit test of the x86 half of kprobes: each way a probed instruction is
 * run (branch emulation, boosted copy, copy + step trampoline, detour of an
 * optimized probe), RIP-relative operands, pushf, faults of the copy that
 * the exception table fixes, reentry, redirection and refused addresses.
 * The probed functions are in kunit_asm.S, so that we know their code.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/cpufeature.h>
#include <linux/debug_locks.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/delay.h>
#include <linux/sizes.h>
#include <linux/stacktrace.h>
#include <linux/vmalloc.h>
#include <asm/extable.h>
#include <asm/text-patching.h>
#include <asm/processor-flags.h>

#include "kunit_asm.h"

enum {
	OFF_JCC8, OFF_JCC32, OFF_CALL, OFF_CALL_REG, OFF_CALL_MEM, OFF_LOOP,
	OFF_RET, OFF_ADD, OFF_RIPREL, OFF_PUSHF, OFF_LOAD, OFF_OPT, OFF_CLI,
	OFF_MID, OFF_MOVSS, OFF_CALL_RSP, OFF_STD, OFF_PUSH, OFF_OPT_FLAGS,
	OFF_OPT_JL, OFF_OPT_SPLIT, OFF_OPT_COLD, OFF_LOCK, OFF_MCE,
};

/* The key of kpx_opt_jl's jump label, never enabled. */
DEFINE_STATIC_KEY_FALSE(kpx_key);

/* The bytes of "lea 1(%rdi), %rax" in kpx_add. */
#define KPX_ADD_LEN	4

static int pre_hits, post_hits, fault_hits;
static unsigned long post_ip;
static bool redirect;

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	pre_hits++;
	if (redirect) {
		/* Return 42 to the caller of the probed function instead. */
		regs->ip = (unsigned long)kpx_leaf;
		return 1;
	}
	return 0;
}

static void count_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	post_hits++;
	post_ip = regs->ip;
}

/* Counts, and leaves the fault to the exception table. */
static int count_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	fault_hits++;
	return 0;
}

static kprobe_opcode_t *kpx_addr(void *func, int off)
{
	unsigned long a = (unsigned long)func;

	/* Summed at run time: not a reference to no ENDBR (objtool, IBT). */
	OPTIMIZER_HIDE_VAR(a);
	return (kprobe_opcode_t *)(a + kpx_offsets[off]);
}

static void kpx_reset(void)
{
	pre_hits = 0;
	post_hits = 0;
	fault_hits = 0;
	post_ip = 0;
	redirect = false;
}

/*
 * The probes a case holds registered.  They live on its stack, and an
 * assertion that fails ends the case at once: kpx_arm() unregisters them
 * all before it asserts, while that stack is still there.  Every probe of
 * this suite goes through kpx_arm() and kpx_disarm(), or kpx_try().
 */
static struct kprobe *kpx_held[4];

static void kpx_disarm(struct kprobe *kp)
{
	int i;

	unregister_kprobe(kp);
	for (i = 0; i < ARRAY_SIZE(kpx_held); i++) {
		if (kpx_held[i] == kp)
			kpx_held[i] = NULL;
	}
}

static void kpx_arm(struct kunit *test, struct kprobe *kp)
{
	int i, ret = -ENOSPC;	/* a test holding too many */

	for (i = 0; i < ARRAY_SIZE(kpx_held); i++) {
		if (!kpx_held[i]) {
			ret = register_kprobe(kp);
			break;
		}
	}
	if (!ret) {
		kpx_held[i] = kp;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(kpx_held); i++) {
		if (kpx_held[i])
			kpx_disarm(kpx_held[i]);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%pS", kp->addr);
}

/* Register and unregister a probe at @sym+@offset; its errno. */
static int kpx_try(const char *sym, unsigned int offset, void *addr)
{
	struct kprobe kp = {
		.symbol_name = sym,
		.offset = offset,
		.addr = addr,
		.pre_handler = count_pre,
	};
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

/* Register a probe on @func + kpx_offsets[@off], with or without post. */
static void kpx_register(struct kunit *test, struct kprobe *kp, void *func,
			 int off, bool post)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = kpx_addr(func, off);
	kp->pre_handler = count_pre;
	kp->post_handler = post ? count_post : NULL;
	kp->fault_handler = count_fault;
	kpx_reset();
	kpx_arm(test, kp);
}

static void kpx_branches(struct kunit *test, bool post)
{
	struct kprobe kp;
	int hits = post ? 1 : 0;

	kpx_register(test, &kp, kpx_jcc8, OFF_JCC8, post);
	KUNIT_EXPECT_EQ(test, kpx_jcc8(0), 2);
	KUNIT_EXPECT_EQ(test, kpx_jcc8(5), 1);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	KUNIT_EXPECT_EQ(test, post_hits, 2 * hits);
	kpx_disarm(&kp);

	kpx_register(test, &kp, kpx_jcc32, OFF_JCC32, post);
	KUNIT_EXPECT_EQ(test, kpx_jcc32(0), 2);
	KUNIT_EXPECT_EQ(test, kpx_jcc32(5), 1);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	kpx_disarm(&kp);

	kpx_register(test, &kp, kpx_call, OFF_CALL, post);
	KUNIT_EXPECT_EQ(test, kpx_call(), 43);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	if (post)
		KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)kpx_leaf);
	kpx_disarm(&kp);

	kpx_register(test, &kp, kpx_call_reg, OFF_CALL_REG, post);
	KUNIT_EXPECT_EQ(test, kpx_call_reg(kpx_leaf), 43);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	kpx_disarm(&kp);

	kpx_register(test, &kp, kpx_call_mem, OFF_CALL_MEM, post);
	KUNIT_EXPECT_EQ(test, kpx_call_mem(), 43);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, post_hits, hits);
	kpx_disarm(&kp);

	kpx_register(test, &kp, kpx_loop, OFF_LOOP, post);
	KUNIT_EXPECT_EQ(test, kpx_loop(5), 5);
	KUNIT_EXPECT_EQ(test, pre_hits, 5);
	KUNIT_EXPECT_EQ(test, post_hits, 5 * hits);
	kpx_disarm(&kp);

	kpx_register(test, &kp, kpx_ret, OFF_RET, post);
	KUNIT_EXPECT_EQ(test, kpx_ret(), 7);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, post_hits, hits);
	kpx_disarm(&kp);
}

/* Control flow instructions are emulated, with and without post handler. */
static void test_emulated_branches(struct kunit *test)
{
	kpx_branches(test, false);
	kpx_branches(test, true);
}

/* Out-of-line copies: boosted, with a post handler, and switching. */
static void test_out_of_line(struct kunit *test)
{
	struct kprobe a, b;

	kpx_register(test, &a, kpx_add, OFF_ADD, false);
	KUNIT_EXPECT_EQ(test, kpx_add(1), 2);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);

	/*
	 * A post handler joins the armed site: the next hit steps the copy
	 * with interrupts masked.
	 */
	memset(&b, 0, sizeof(b));
	b.addr = a.addr;
	b.post_handler = count_post;
	kpx_arm(test, &b);
	KUNIT_EXPECT_EQ(test, kpx_add(2), 3);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)a.addr + KPX_ADD_LEN);

	/* And leaves: boosted again. */
	kpx_disarm(&b);
	KUNIT_EXPECT_EQ(test, kpx_add(3), 4);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	kpx_disarm(&a);

	kpx_register(test, &a, kpx_riprel, OFF_RIPREL, false);
	KUNIT_EXPECT_EQ(test, kpx_riprel(), kpx_data);
	kpx_disarm(&a);
	kpx_register(test, &a, kpx_riprel, OFF_RIPREL, true);
	KUNIT_EXPECT_EQ(test, kpx_riprel(), kpx_data);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	kpx_disarm(&a);
}

/* pushf runs with interrupts masked when a post handler waits for it. */
static void test_pushf(struct kunit *test)
{
	struct kprobe kp;
	unsigned long flags;

	KUNIT_ASSERT_FALSE(test, irqs_disabled());
	kpx_register(test, &kp, kpx_pushf, OFF_PUSHF, true);
	flags = kpx_pushf();
	KUNIT_EXPECT_TRUE(test, flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	kpx_disarm(&kp);
}

/* What a post handler saw of its context, and its stack trace. */
static bool post_irqs_off, post_in_nmi, post_lockdep_on;
static unsigned long post_entries[32];
static unsigned int post_nr_entries;

/* Whether lockdep tracks the interrupt state: lockdep_hardirqs_enabled(). */
static bool kpx_lockdep(void)
{
	return IS_ENABLED(CONFIG_PROVE_LOCKING) && debug_locks;
}

static void ctx_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	post_hits++;
	post_ip = regs->ip;
	post_irqs_off = irqs_disabled();
	post_in_nmi = in_nmi();
	post_lockdep_on = lockdep_hardirqs_enabled();
	post_nr_entries = stack_trace_save(post_entries,
					   ARRAY_SIZE(post_entries), 0);
}

/* Whether the post handler's stack trace went through [@start, @end). */
static bool post_trace_has(unsigned long start, unsigned long end)
{
	unsigned int i;

	for (i = 0; i < post_nr_entries; i++) {
		if (post_entries[i] >= start && post_entries[i] < end)
			return true;
	}
	return false;
}

/*
 * A post handler runs in the context of a trap, as the pre handlers do:
 * NMI-like, interrupts masked, lockdep told so.  The probed code goes on
 * with interrupts on, and lockdep knows that too.  With ORC, the handler's
 * stack trace goes through the probed function to its caller, this test,
 * although the probed instruction (a push) moved the stack pointer.
 */
static void test_post_context(struct kunit *test)
{
	unsigned long here = (unsigned long)test_post_context;
	bool after_irqs_off, after_lockdep_on;
	struct kprobe kp;
	long ret;

	KUNIT_ASSERT_FALSE(test, irqs_disabled());
	memset(&kp, 0, sizeof(kp));
	kp.addr = kpx_addr(kpx_push, OFF_PUSH);
	kp.post_handler = ctx_post;
	kpx_reset();
	kpx_arm(test, &kp);
	post_irqs_off = false;
	post_in_nmi = false;
	post_lockdep_on = true;
	ret = kpx_push(5);
	after_irqs_off = irqs_disabled();
	after_lockdep_on = lockdep_hardirqs_enabled();
	kpx_disarm(&kp);

	KUNIT_EXPECT_EQ(test, ret, 6);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	/* push %rbx is one byte. */
	KUNIT_EXPECT_EQ(test, post_ip,
			(unsigned long)kpx_addr(kpx_push, OFF_PUSH) + 1);
	KUNIT_EXPECT_TRUE(test, post_irqs_off);
	KUNIT_EXPECT_TRUE(test, post_in_nmi);
	KUNIT_EXPECT_FALSE(test, after_irqs_off);
	if (kpx_lockdep()) {
		KUNIT_EXPECT_FALSE(test, post_lockdep_on);
		KUNIT_EXPECT_TRUE(test, after_lockdep_on);
	}
	if (IS_ENABLED(CONFIG_UNWINDER_ORC)) {
		/* Not a relocation to here + 4K, which objtool would check. */
		OPTIMIZER_HIDE_VAR(here);
		KUNIT_EXPECT_TRUE(test, post_trace_has(post_ip, post_ip + 1));
		KUNIT_EXPECT_TRUE(test, post_trace_has(here, here + SZ_4K));
	}
}

static unsigned long post_regs_flags, post_cpu_flags;

static void df_post(struct kprobe *p, struct pt_regs *regs,
		    unsigned long flags)
{
	post_hits++;
	post_regs_flags = regs->flags;
	post_cpu_flags = native_save_fl();
}

/*
 * A post handler runs with the direction flag clear, as C code expects,
 * while the registers it sees, and the probed code after it, have it set.
 */
static void test_post_df(struct kunit *test)
{
	unsigned long flags;
	struct kprobe kp;

	memset(&kp, 0, sizeof(kp));
	kp.addr = kpx_addr(kpx_std, OFF_STD);
	kp.post_handler = df_post;
	kpx_reset();
	kpx_arm(test, &kp);
	post_regs_flags = 0;
	post_cpu_flags = X86_EFLAGS_DF;
	flags = kpx_std(7);
	kpx_disarm(&kp);

	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_TRUE(test, post_regs_flags & X86_EFLAGS_DF);
	KUNIT_EXPECT_FALSE(test, post_cpu_flags & X86_EFLAGS_DF);
	KUNIT_EXPECT_TRUE(test, flags & X86_EFLAGS_DF);
}

/* The guard page after a vmalloc area: a kernel address that faults. */
static u64 *kpx_unmapped;

/* A non-canonical address: #GP rather than a page fault. */
#define KPX_NONCANONICAL	((u64 *)0x8000000000000000UL)

static void kpx_loads(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kpx_load(&kpx_data), (long)kpx_data);
	/* A page fault and a #GP: both fixed up by the exception table. */
	KUNIT_EXPECT_EQ(test, kpx_load(kpx_unmapped), -14);
	KUNIT_EXPECT_EQ(test, kpx_load(KPX_NONCANONICAL), -14);
}

/*
 * A fault of the copy is fixed up as if at the probed instruction, after the
 * fault handlers; the post handlers run for the load that did not fault.
 */
static void test_fault_fixup(struct kunit *test)
{
	struct kprobe kp;

	kpx_register(test, &kp, kpx_load, OFF_LOAD, false);
	kpx_loads(test);
	kpx_disarm(&kp);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, fault_hits, 2);

	kpx_register(test, &kp, kpx_load, OFF_LOAD, true);
	kpx_loads(test);
	kpx_disarm(&kp);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, fault_hits, 2);
}

static long handler_load_ret;

/* Loads through the probed kpx_load, from inside the fault handler. */
static int load_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	fault_hits++;
	handler_load_ret = kpx_load(&kpx_data);
	return 0;
}

/*
 * The fault handler of a stepped copy's fault loads through the same site:
 * the step is over by then, so the hit is a miss whose instruction is
 * stepped, not an unrecoverable reentry.
 */
static void test_fault_handler_reenters(struct kunit *test)
{
	struct kprobe kp;
	int i;

	kpx_register(test, &kp, kpx_load, OFF_LOAD, true);
	kp.fault_handler = load_fault;
	for (i = 1; i <= 3; i++) {
		handler_load_ret = 0;
		KUNIT_EXPECT_EQ(test, kpx_load(kpx_unmapped), -14);
		KUNIT_EXPECT_EQ(test, handler_load_ret, (long)kpx_data);
		KUNIT_EXPECT_EQ(test, fault_hits, i);
		KUNIT_EXPECT_EQ(test, kp.nmissed, i);
	}
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, post_hits, 0);
	KUNIT_EXPECT_EQ(test, kpx_load(&kpx_data), (long)kpx_data);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	kpx_disarm(&kp);
}

static int load_pre(struct kprobe *p, struct pt_regs *regs)
{
	pre_hits++;
	handler_load_ret = kpx_load(kpx_unmapped);
	return 0;
}

/* Fixes the fault as the exception table says, and says so. */
static int fixing_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	fault_hits++;
	return fixup_exception(regs, trapnr, 0, 0);
}

/*
 * A fault in a pre handler, which the probe's fault handler fixes (returns
 * 1): the page fault path takes it as handled, without a warning.
 */
static void test_fault_handler_fixes(struct kunit *test)
{
	struct kprobe kp = {
		.addr = kpx_addr(kpx_add, OFF_ADD),
		.pre_handler = load_pre,
		.fault_handler = fixing_fault,
	};

	kpx_reset();
	handler_load_ret = 0;
	kpx_arm(test, &kp);
	KUNIT_EXPECT_EQ(test, kpx_add(1), 2);
	kpx_disarm(&kp);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, fault_hits, 1);
	KUNIT_EXPECT_EQ(test, handler_load_ret, -14);
}

static struct kprobe inner;
static long inner_ret[3];

static int reenter_pre(struct kprobe *p, struct pt_regs *regs)
{
	inner_ret[0] = kpx_riprel();
	inner_ret[1] = kpx_load(&kpx_data);
	inner_ret[2] = kpx_load(kpx_unmapped);
	return 0;
}

/* A probe hit inside a handler runs no handler but its instruction. */
static void test_reentry(struct kunit *test)
{
	struct kprobe outer = {
		.pre_handler = reenter_pre,
	};
	struct kprobe load;

	kpx_register(test, &inner, kpx_riprel, OFF_RIPREL, false);
	kpx_register(test, &load, kpx_load, OFF_LOAD, true);
	outer.addr = kpx_addr(kpx_add, OFF_ADD);
	kpx_arm(test, &outer);

	KUNIT_EXPECT_EQ(test, kpx_add(1), 2);
	KUNIT_EXPECT_EQ(test, inner_ret[0], (long)kpx_data);
	KUNIT_EXPECT_EQ(test, inner_ret[1], (long)kpx_data);
	KUNIT_EXPECT_EQ(test, inner_ret[2], -14);
	KUNIT_EXPECT_EQ(test, pre_hits, 0);
	KUNIT_EXPECT_EQ(test, post_hits, 0);
	KUNIT_EXPECT_EQ(test, inner.nmissed, 1);
	KUNIT_EXPECT_EQ(test, load.nmissed, 2);

	kpx_disarm(&outer);
	kpx_disarm(&load);
	kpx_disarm(&inner);
}

static atomic_t tail_returns;

static int tail_ret_handler(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	if (regs_return_value(regs) == 7)
		atomic_inc(&tail_returns);
	return 0;
}

/*
 * A function that tail-calls itself enters again at the same stack pointer
 * before it returns: every entry has an instance, and every instance its
 * return handler when the function returns, once.
 */
static void test_kretprobe_tail_call(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpx_tailself",
		.handler = tail_ret_handler,
		.maxactive = 8,
	};

	atomic_set(&tail_returns, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpx_tailself(3), 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&tail_returns), 4);
	KUNIT_EXPECT_EQ(test, kpx_tailself(0), 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&tail_returns), 5);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, rp.kp.nmissed, 0);
	unregister_kretprobe(&rp);
}

static atomic_t keep_returns;

static int keep_ret_handler(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	if (regs_return_value(regs) == 1 && regs->dx == 2 &&
	    (regs->flags & X86_EFLAGS_CF))
		atomic_inc(&keep_returns);
	return 0;
}

/*
 * A kretprobed asm function with a convention of its own (returns in %rdx
 * and CF too, keeps the caller-saved registers): its caller finds every
 * register as the function left it, whatever the return handler's C code
 * did with them.
 */
static void test_kretprobe_own_convention(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpx_keepregs",
		.handler = keep_ret_handler,
	};

	atomic_set(&keep_returns, 0);
	KUNIT_ASSERT_EQ(test, kpx_keepregs_caller(), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpx_keepregs_caller(), 0);
	KUNIT_EXPECT_EQ(test, kpx_keepregs_caller(), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&keep_returns), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	unregister_kretprobe(&rp);
}

/* A pre handler moves execution elsewhere, from a breakpoint and a detour. */
static void test_redirect(struct kunit *test)
{
	struct kprobe kp;

	kpx_register(test, &kp, kpx_jcc8, OFF_JCC8, false);
	redirect = true;
	KUNIT_EXPECT_EQ(test, kpx_jcc8(1), 42);
	redirect = false;
	KUNIT_EXPECT_EQ(test, kpx_jcc8(1), 1);
	kpx_disarm(&kp);
}

/* Straight-line code gets a jump to a detour instead of the int3. */
static void test_optimized(struct kunit *test)
{
	struct kprobe kp;
	u8 orig;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");

	orig = *(u8 *)kpx_addr(kpx_opt, OFF_OPT);
	kpx_register(test, &kp, kpx_opt, OFF_OPT, false);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, JMP32_INSN_OPCODE);

	KUNIT_EXPECT_EQ(test, kpx_opt(1), 20);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	redirect = true;
	KUNIT_EXPECT_EQ(test, kpx_opt(1), 42);
	redirect = false;
	KUNIT_EXPECT_EQ(test, kpx_opt(2), 25);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);

	kpx_disarm(&kp);
	KUNIT_EXPECT_EQ(test, *(u8 *)kpx_addr(kpx_opt, OFF_OPT), orig);
	KUNIT_EXPECT_EQ(test, kpx_opt(1), 20);
}

/*
 * The jump at kpx_opt+0 covers the next instruction too: a probe there takes
 * the jump away (both breakpoints, both counted), and keeps it away; once it
 * is gone, the site at +0 is optimized again.
 */
static void test_opt_covering(struct kunit *test)
{
	kprobe_opcode_t *next = kpx_addr(kpx_opt, OFF_OPT) + 3;
	struct kprobe kp, inside;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");

	kpx_register(test, &kp, kpx_opt, OFF_OPT, false);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, JMP32_INSN_OPCODE);

	memset(&inside, 0, sizeof(inside));
	inside.addr = next;
	inside.pre_handler = count_pre;
	kpx_arm(test, &inside);
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, *(u8 *)next, INT3_INSN_OPCODE);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpx_opt(1), 20);
	KUNIT_EXPECT_EQ(test, kpx_opt(2), 25);
	KUNIT_EXPECT_EQ(test, pre_hits, 4);

	kpx_disarm(&inside);
	KUNIT_EXPECT_EQ(test, *(u8 *)next, 0x48);	/* REX.W of addq */
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpx_opt(1), 20);
	KUNIT_EXPECT_EQ(test, pre_hits, 5);

	/* Refused inside the jump's first instruction: the jump goes back. */
	KUNIT_EXPECT_EQ(test, kpx_try(NULL, 0, kp.addr + 1), -EILSEQ);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpx_opt(1), 20);
	KUNIT_EXPECT_EQ(test, pre_hits, 6);
	kpx_disarm(&kp);
}

static unsigned long opt_regs_flags, opt_cpu_flags;

static int flags_pre(struct kprobe *p, struct pt_regs *regs)
{
	pre_hits++;
	opt_regs_flags = regs->flags;
	opt_cpu_flags = native_save_fl();
	return 0;
}

/*
 * The detour of an optimized probe runs the handlers with DF and AC clear,
 * as the breakpoint path does, while the registers they see and the probed
 * code after them keep both (AC where the CPU has SMAP).
 */
static void test_opt_flags(struct kunit *test)
{
	const unsigned long df_ac = X86_EFLAGS_DF | X86_EFLAGS_AC;
	unsigned long flags, set = X86_EFLAGS_DF;
	struct kprobe kp;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");
	if (boot_cpu_has(X86_FEATURE_SMAP))
		set |= X86_EFLAGS_AC;

	memset(&kp, 0, sizeof(kp));
	kp.addr = kpx_addr(kpx_opt_flags, OFF_OPT_FLAGS);
	kp.pre_handler = flags_pre;
	kpx_reset();
	kpx_arm(test, &kp);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, *(u8 *)kp.addr, JMP32_INSN_OPCODE);
	opt_regs_flags = 0;
	opt_cpu_flags = df_ac;
	flags = kpx_opt_flags(7);
	kpx_disarm(&kp);

	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, opt_regs_flags & df_ac, set);
	KUNIT_EXPECT_EQ(test, opt_cpu_flags & df_ac, 0);
	KUNIT_EXPECT_EQ(test, flags & df_ac, set);
}

/*
 * Jumps into the range a jump would replace that decoding the probed
 * function does not show: the target of a jump label (only with
 * CONFIG_JUMP_LABEL can it ever be a jump), and jumps between the two
 * parts of a split function, both ways.  Those sites keep their breakpoint,
 * which counts the calls that pass it.
 */
static void test_opt_hidden_jumps(struct kunit *test)
{
	static const long args[] = { 1, -1, 0 };
	static const struct {
		long (*fn)(long x);
		int off;
		bool refused;
		int hits;
		long ret[ARRAY_SIZE(args)];
	} sites[] = {
		{ kpx_opt_jl, OFF_OPT_JL, IS_ENABLED(CONFIG_JUMP_LABEL), 3,
		  { 20, 10, 15 } },
		{ kpx_opt, OFF_OPT, false, 3, { 20, 10, 15 } },
		{ kpx_split, OFF_OPT_SPLIT, true, 1, { 20, 20, 15 } },
		{ kpx_split, OFF_OPT_COLD, true, 1, { 20, 20, 15 } },
	};
	unsigned long addr;
	struct kprobe kp;
	int i, j;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");

	addr = (unsigned long)kpx_addr(kpx_opt_jl, OFF_OPT_JL);
	KUNIT_EXPECT_EQ(test, kprobe_jump_label_into(addr, addr + 7),
			IS_ENABLED(CONFIG_JUMP_LABEL));
	KUNIT_EXPECT_FALSE(test, kprobe_jump_label_into(addr + 3, addr + 7));
	addr = (unsigned long)kpx_addr(kpx_opt, OFF_OPT);
	KUNIT_EXPECT_FALSE(test, kprobe_jump_label_into(addr, addr + 7));

	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		kpx_reset();
		kpx_register(test, &kp, sites[i].fn, sites[i].off, false);
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_EQ_MSG(test, *(u8 *)kp.addr,
				    sites[i].refused ? INT3_INSN_OPCODE :
						       JMP32_INSN_OPCODE,
				    "site %d", i);
		for (j = 0; j < ARRAY_SIZE(args); j++)
			KUNIT_EXPECT_EQ_MSG(test, sites[i].fn(args[j]),
					    sites[i].ret[j], "site %d arg %ld",
					    i, args[j]);
		KUNIT_EXPECT_EQ_MSG(test, pre_hits, sites[i].hits, "site %d", i);
		kpx_disarm(&kp);
	}
}

/*
 * A nested reentry (a probe hit in an NMI while this CPU steps a reentered
 * one) runs even an instruction with an exception table entry from its
 * boosted copy, at the start of its slot: a fault there is fixed up as at
 * the probed address.  The copy of kpx_load's load, whose jump back lands
 * on kpx_load's RET, is called as kpx_load would be, in the state such a
 * hit leaves: a probe running, reentered.
 */
static void test_fault_nested_copy(struct kunit *test)
{
	struct kprobe_ctlblk *kcb;
	long (*copy)(const u64 *p);
	struct kprobe *prev, *site;
	unsigned long status;
	long ret[3];
	struct kprobe kp;

	/* A slot has no ENDBR: no indirect call into it under IBT. */
	if (cpu_feature_enabled(X86_FEATURE_IBT))
		kunit_skip(test, "IBT enforced");

	kpx_register(test, &kp, kpx_load, OFF_LOAD, false);
	preempt_disable();
	site = get_kprobe(kp.addr);
	if (!site || !site->ainsn.insn) {
		preempt_enable();
		kpx_disarm(&kp);
		KUNIT_FAIL(test, "no slot for the probe on kpx_load");
		return;
	}
	/* The site holds the slot; the registered probe is its member. */
	copy = (void *)site->ainsn.insn;
	kcb = get_kprobe_ctlblk();
	prev = kprobe_running();
	status = kcb->kprobe_status;
	__this_cpu_write(current_kprobe, site);
	kcb->kprobe_status = KPROBE_REENTER;
	ret[0] = copy(&kpx_data);
	ret[1] = copy(kpx_unmapped);
	ret[2] = copy(KPX_NONCANONICAL);
	kcb->kprobe_status = status;
	__this_cpu_write(current_kprobe, prev);
	preempt_enable();
	kpx_disarm(&kp);

	KUNIT_EXPECT_EQ(test, ret[0], (long)kpx_data);
	KUNIT_EXPECT_EQ(test, ret[1], -14);
	KUNIT_EXPECT_EQ(test, ret[2], -14);
	/* A reentered probe runs no handler, its fault handler included. */
	KUNIT_EXPECT_EQ(test, fault_hits, 0);
}

/* What must not be probed is refused with a clear errno. */
static void test_refused(struct kunit *test)
{
	/* Not probeable, or a branch form not emulated: all -EINVAL. */
	static const int bad[] = { OFF_CLI, OFF_MOVSS, OFF_CALL_RSP };
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kpx_try(NULL, 0, kpx_addr(kpx_bad, bad[i])),
				    -EINVAL, "offset %u", kpx_offsets[bad[i]]);
	KUNIT_EXPECT_EQ(test, kpx_try(NULL, 0, kpx_addr(kpx_bad, OFF_MID)),
			-EILSEQ);
}

/* Text that other code copies, checks or runs on every return. */
static void test_refused_text(struct kunit *test)
{
	unsigned long first_tramp = (unsigned long)__static_call_text_start;

	/* The templates ftrace copies, at their start and inside. */
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE)) {
		KUNIT_EXPECT_EQ(test, kpx_try("ftrace_caller", 0, NULL), -EINVAL);
		KUNIT_EXPECT_EQ(test, kpx_try("ftrace_caller", 0x20, NULL),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, kpx_try("ftrace_regs_caller", 0, NULL),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, kpx_try("ftrace_regs_caller", 0x20, NULL),
				-EINVAL);
	}

	/* A static call trampoline (the tracepoints have some). */
	KUNIT_ASSERT_LT(test, first_tramp,
			(unsigned long)__static_call_text_end);
	KUNIT_EXPECT_EQ(test, kpx_try(NULL, 0, (void *)first_tramp), -EINVAL);

	/* What kprobes only refuses as a kretprobe: see below. */
	KUNIT_EXPECT_EQ(test, kpx_try("__switch_to", 0, NULL), 0);
}

/*
 * The thunks of return thunks and retpolines (the x86-ibt flavour has
 * them; the default builds have no mitigations and skip).  Each one that
 * the config builds is refused.  Without its mitigation a thunk's name may
 * still be a C stub of <asm/nospec-branch.h>, an ordinary function.
 */
static void test_refused_thunks(struct kunit *test)
{
	static const struct {
		const char *name;
		bool built;
	} thunks[] = {
		{ "__x86_indirect_thunk_array",
		  IS_ENABLED(CONFIG_MITIGATION_RETPOLINE) },
		{ "__x86_return_thunk", IS_ENABLED(CONFIG_MITIGATION_RETHUNK) },
		{ "srso_return_thunk", IS_ENABLED(CONFIG_MITIGATION_SRSO) },
		{ "retbleed_return_thunk",
		  IS_ENABLED(CONFIG_MITIGATION_UNRET_ENTRY) },
		{ "its_return_thunk", IS_ENABLED(CONFIG_MITIGATION_ITS) },
	};
	int i, built = 0;

	for (i = 0; i < ARRAY_SIZE(thunks); i++) {
		if (!thunks[i].built)
			continue;
		built++;
		KUNIT_EXPECT_EQ_MSG(test, kpx_try(thunks[i].name, 0, NULL),
				    -EINVAL, "%s", thunks[i].name);
	}
	if (!built)
		kunit_skip(test, "no return thunks or retpolines");
}

/*
 * A lock prefix that the SMP alternatives own: refused when they made it
 * a DS prefix (a kernel booted with one CPU, maxcpus=1), and they may
 * make it a lock again.  With the lock in place (booted SMP) they never
 * touch it again, and the probe is allowed.  An access that recovers from
 * a machine check is refused.
 */
static void test_refused_owned(struct kunit *test)
{
	u8 *lock = kpx_addr(kpx_bad, OFF_LOCK);

	KUNIT_EXPECT_EQ(test, kpx_try(NULL, 0, kpx_addr(kpx_bad, OFF_MCE)),
			-EINVAL);
	if (*lock == 0x3e) {
		kunit_info(test, "lock prefix patched to DS (uniprocessor boot)\n");
		KUNIT_EXPECT_EQ(test, kpx_try(NULL, 0, lock), -EINVAL);
	} else {
		KUNIT_EXPECT_EQ(test, *lock, 0xf0);
		KUNIT_EXPECT_EQ(test, kpx_try(NULL, 0, lock), 0);
	}
}

static int kpx_ret_handler_none(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	return 0;
}

/*
 * __switch_to() returns on the next task's stack, as that task: a kretprobe
 * would hand one task's instance to another.
 */
static void test_kretprobe_switch_to(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "__switch_to",
		.handler = kpx_ret_handler_none,
	};

	int ret = register_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	if (!ret)
		unregister_kretprobe(&rp);
	KUNIT_EXPECT_NULL(test, rp.rph);
}

static struct kretprobe kpx_nmi_rp;

/*
 * Unregisters the kretprobe on itself, then returns as if in an NMI: the
 * return trampoline gives the pending instance of a gone kretprobe back in
 * NMI context.
 */
static noinline long kpx_nmi_return(long x)
{
	unregister_kretprobe(&kpx_nmi_rp);
	local_irq_disable();
	__nmi_enter();
	return x + 1;
}

static unsigned long kpx_drop_rcu;
static atomic_t kpx_drops_nmi, kpx_drops;

/* call_rcu() of an instance that goes back to no pool: counted by context. */
static int kpx_call_rcu_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (regs->si == kpx_drop_rcu)
		atomic_inc(in_nmi() ? &kpx_drops_nmi : &kpx_drops);
	return 0;
}

/*
 * call_rcu() is not NMI-safe: an instance given back in NMI context after
 * its kretprobe went away is freed through an irq_work.
 */
static void test_kretprobe_nmi_drop(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "call_rcu",
		.pre_handler = kpx_call_rcu_pre,
	};
	long (*fn)(long) = kpx_nmi_return;
	int i, ret;

	kpx_drop_rcu = (unsigned long)kprobe_lookup_name("kretprobe_drop_rcu", 0);
	KUNIT_ASSERT_NE(test, kpx_drop_rcu, 0);
	atomic_set(&kpx_drops_nmi, 0);
	atomic_set(&kpx_drops, 0);
	memset(&kpx_nmi_rp, 0, sizeof(kpx_nmi_rp));
	kpx_nmi_rp.kp.addr = (kprobe_opcode_t *)kpx_nmi_return;
	kpx_nmi_rp.handler = kpx_ret_handler_none;
	/* kp is on this stack: never leave it registered on an abort. */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&kpx_nmi_rp), 0);
	ret = register_kprobe(&kp);
	if (ret)
		unregister_kretprobe(&kpx_nmi_rp);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/* Called through a pointer: no constprop clone of it. */
	OPTIMIZER_HIDE_VAR(fn);
	KUNIT_EXPECT_EQ(test, fn(41), 42);
	__nmi_exit();
	local_irq_enable();

	for (i = 0; i < 50 && !atomic_read(&kpx_drops); i++)
		msleep(20);
	kpx_disarm(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_drops_nmi), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_drops), 1);
}

static struct kunit_case x86_kprobes_cases[] = {
	KUNIT_CASE(test_emulated_branches),
	KUNIT_CASE(test_out_of_line),
	KUNIT_CASE(test_pushf),
	KUNIT_CASE(test_post_context),
	KUNIT_CASE(test_post_df),
	KUNIT_CASE(test_fault_fixup),
	KUNIT_CASE(test_reentry),
	KUNIT_CASE(test_redirect),
	KUNIT_CASE(test_kretprobe_tail_call),
	KUNIT_CASE(test_kretprobe_own_convention),
	KUNIT_CASE(test_fault_handler_fixes),
	KUNIT_CASE(test_fault_handler_reenters),
	KUNIT_CASE(test_fault_nested_copy),
	KUNIT_CASE(test_optimized),
	KUNIT_CASE(test_opt_covering),
	KUNIT_CASE(test_opt_flags),
	KUNIT_CASE(test_opt_hidden_jumps),
	KUNIT_CASE(test_refused),
	KUNIT_CASE(test_refused_text),
	KUNIT_CASE(test_refused_thunks),
	KUNIT_CASE(test_refused_owned),
	KUNIT_CASE(test_kretprobe_switch_to),
	KUNIT_CASE(test_kretprobe_nmi_drop),
	{}
};

static void *kpx_area;

static int x86_kprobes_init(struct kunit_suite *suite)
{
	kpx_area = vmalloc(PAGE_SIZE);
	if (!kpx_area)
		return -ENOMEM;
	kpx_unmapped = kpx_area + PAGE_SIZE;
	return 0;
}

static void x86_kprobes_exit(struct kunit_suite *suite)
{
	vfree(kpx_area);
}

/* A case that ended on another assertion left its stack's pointers. */
static int x86_kprobes_case_init(struct kunit *test)
{
	memset(kpx_held, 0, sizeof(kpx_held));
	return 0;
}

static struct kunit_suite x86_kprobes_suite = {
	.name = "x86_kprobes",
	.suite_init = x86_kprobes_init,
	.suite_exit = x86_kprobes_exit,
	.init = x86_kprobes_case_init,
	.test_cases = x86_kprobes_cases,
};

kunit_test_suite(x86_kprobes_suite);

MODULE_DESCRIPTION("KUnit test of the x86 half of kprobes");
MODULE_LICENSE("GPL");
