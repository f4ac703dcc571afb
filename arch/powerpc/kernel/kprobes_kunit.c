// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit test of the powerpc half of kprobes: each way a probed instruction
 * is run (emulated, single-stepped out of line, displaced into the detour
 * of an optimized probe), faults of a stepped copy fixed up by the
 * exception table at the probed address, reentry into a stepped probe,
 * prefixed and PC-relative instructions, redirection, and the instructions
 * that must not be probed.  The probed functions are in
 * kprobes_kunit_asm.S, so that we know their code.
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/code-patching.h>
#include <asm/cputable.h>
#include <asm/disassemble.h>
#include <asm/paca.h>
#include <asm/reg.h>

#include "kprobes-internal.h"
#include "kprobes_kunit.h"

static int pre_hits, post_hits, fault_hits;
static unsigned long pre_nip, post_nip;
static bool redirect;

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	pre_hits++;
	pre_nip = regs->nip;
	if (redirect) {
		/* At a function entry: return 42 to its caller. */
		regs->gpr[3] = 42;
		instruction_pointer_set(regs, regs->link);
		return 1;
	}
	return 0;
}

static void count_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	post_hits++;
	post_nip = regs->nip;
}

static int count_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	fault_hits++;
	return 0;	/* let the exception table fix it */
}

static void kpp_reset(void)
{
	pre_hits = 0;
	post_hits = 0;
	fault_hits = 0;
	pre_nip = 0;
	post_nip = 0;
	redirect = false;
}

/*
 * The probes a case holds registered.  They live on its stack, and an
 * assertion that fails ends the case at once: kpp_arm() unregisters them
 * all before it asserts, while that stack is still there.  Every probe of
 * this suite goes through kpp_arm() and kpp_disarm(), or kpp_try*().
 */
static struct kprobe *kpp_held[4];

static void kpp_disarm(struct kprobe *kp)
{
	int i;

	unregister_kprobe(kp);
	for (i = 0; i < ARRAY_SIZE(kpp_held); i++) {
		if (kpp_held[i] == kp)
			kpp_held[i] = NULL;
	}
}

static void kpp_arm(struct kunit *test, struct kprobe *kp)
{
	int i, ret = -ENOSPC;	/* a test holding too many */

	for (i = 0; i < ARRAY_SIZE(kpp_held); i++) {
		if (!kpp_held[i]) {
			ret = register_kprobe(kp);
			break;
		}
	}
	if (!ret) {
		kpp_held[i] = kp;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(kpp_held); i++) {
		if (kpp_held[i])
			kpp_disarm(kpp_held[i]);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%pS", kp->addr);
}

static void kpp_register(struct kunit *test, struct kprobe *kp,
			 const void *addr, bool post)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = (kprobe_opcode_t *)addr;
	kp->pre_handler = count_pre;
	kp->post_handler = post ? count_post : NULL;
	kp->fault_handler = count_fault;
	kpp_reset();
	kpp_arm(test, kp);
}

/* register_kprobe() of a probe at @addr, unregistered at once. */
static int kpp_try(const void *addr)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)addr,
		.pre_handler = count_pre,
	};
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

/* The same at the symbol @name plus @offset. */
static int kpp_try_sym(const char *name, unsigned int offset)
{
	struct kprobe kp = {
		.symbol_name = name,
		.offset = offset,
		.pre_handler = count_pre,
	};
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

/* The site at @addr: how its instruction runs, and its slot (0: none). */
static int kpp_kind(const void *addr, unsigned long *slot)
{
	struct kprobe *site;
	int kind = -1;

	preempt_disable();
	site = get_kprobe((void *)addr);
	if (site) {
		kind = site->ainsn.kind;
		*slot = (unsigned long)site->ainsn.slot;
	}
	preempt_enable();
	return kind;
}

static u32 kpp_flags(const void *addr)
{
	struct kprobe *site;
	u32 flags = 0;

	preempt_disable();
	site = get_kprobe((void *)addr);
	if (site)
		flags = READ_ONCE(site->flags);
	preempt_enable();
	return flags;
}

static bool kpp_has_prefixed(void)
{
	return cpu_has_feature(CPU_FTR_ARCH_31);
}

/* Branches and register-only instructions are emulated, without a slot. */
static void test_emulated(struct kunit *test)
{
	unsigned long add = (unsigned long)kpp_add;
	struct kprobe kp;
	unsigned long slot = 1;

	kpp_register(test, &kp, kpp_add, true);
	KUNIT_EXPECT_EQ(test, kpp_kind(kp.addr, &slot), KP_INSN_EMULATE);
	KUNIT_EXPECT_FALSE(test, slot);
	KUNIT_EXPECT_EQ(test, kpp_add(1), 2);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, pre_nip, add);
	KUNIT_EXPECT_EQ(test, post_nip, add + 4);
	kpp_disarm(&kp);

	kpp_register(test, &kp, kpp_branch_beq, true);
	KUNIT_EXPECT_EQ(test, kpp_branch(0), 0);
	KUNIT_EXPECT_EQ(test, post_nip, (unsigned long)kpp_branch_blr);
	KUNIT_EXPECT_EQ(test, kpp_branch(5), 15);
	KUNIT_EXPECT_EQ(test, post_nip, (unsigned long)kpp_branch_beq + 4);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	KUNIT_EXPECT_EQ(test, post_hits, 2);
	kpp_disarm(&kp);

	/* bl: LR is the instruction after it; blr: back to the caller. */
	kpp_register(test, &kp, kpp_call_bl, true);
	KUNIT_EXPECT_EQ(test, kpp_call(1), 3);
	KUNIT_EXPECT_EQ(test, post_nip, add);
	kpp_disarm(&kp);
	kpp_register(test, &kp, kpp_call_blr, false);
	KUNIT_EXPECT_EQ(test, kpp_call(2), 4);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	kpp_disarm(&kp);

	/* Stores to the stack, stdu r1 included (the store is deferred). */
	kpp_register(test, &kp, kpp_call_std, true);
	KUNIT_EXPECT_EQ(test, kpp_call(3), 5);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	kpp_disarm(&kp);
	kpp_register(test, &kp, kpp_call_stdu, true);
	KUNIT_EXPECT_EQ(test, kpp_call(4), 6);
	KUNIT_EXPECT_EQ(test, kpp_call(5), 7);
	KUNIT_EXPECT_EQ(test, post_hits, 2);
	kpp_disarm(&kp);

	/* Untouched once unregistered. */
	kpp_reset();
	KUNIT_EXPECT_EQ(test, kpp_add(1), 2);
	KUNIT_EXPECT_EQ(test, kpp_call(1), 3);
	KUNIT_EXPECT_EQ(test, pre_hits, 0);
}

/*
 * A stdu r1 that allocates a frame larger than an interrupt's is stepped in
 * the slot: emulated, its back chain would land in the trap handlers' own
 * frames.  The probed function reads it back.  A small one is emulated,
 * its store deferred to the trap's exit (test_emulated).
 */
static void test_stack_frame(struct kunit *test)
{
	struct kprobe kp;
	unsigned long slot = 0;
	int i;

	kpp_register(test, &kp, kpp_big_frame_stdu, true);
	KUNIT_EXPECT_EQ(test, kpp_kind(kp.addr, &slot), KP_INSN_STEP_ONLY);
	KUNIT_EXPECT_TRUE(test, slot);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kpp_big_frame(), 1024);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, post_hits, 3);
	KUNIT_EXPECT_EQ(test, post_nip, (unsigned long)kpp_big_frame_stdu + 4);
	kpp_disarm(&kp);

	kpp_register(test, &kp, kpp_call_stdu, true);
	KUNIT_EXPECT_EQ(test, kpp_kind(kp.addr, &slot), KP_INSN_STEP);
	kpp_disarm(&kp);
}

/*
 * A probe by name at offset 0 lands on the local entry, after the global
 * entry of the large code model too (modules): direct calls enter there.
 */
static void test_large_model_entry(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpp_large_gep", .pre_handler = count_pre,
	};

	kpp_reset();
	kpp_arm(test, &kp);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr,
			(unsigned long)kpp_large_gep + 8);
	KUNIT_EXPECT_EQ(test, kpp_large_gep(1), 4);
	KUNIT_EXPECT_EQ(test, kpp_large_gep(2), 5);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	kpp_disarm(&kp);
}

static unsigned long ret_r0;

static int ret_r0_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ret_r0 = regs->gpr[0];
	return 0;
}

/*
 * The kretprobe trampoline saves every register the function returned
 * with before it uses one: its handlers and the caller see r0 as
 * kpp_ret_r0() left it, not the trampoline's LR.
 */
static void test_kretprobe_r0(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpp_ret_r0,
		.handler = ret_r0_handler,
	};
	long r0 = 0;

	ret_r0 = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpp_ret_r0_call(&r0), 7);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, ret_r0, 0x7e57);
	KUNIT_EXPECT_EQ(test, r0, 0x7e57);
}

/*
 * What emulate_step() cannot do is single-stepped in a slot, interrupts
 * masked in between; the probed context's interrupt state is back after.
 */
static void test_single_step(struct kunit *test)
{
	unsigned long pvr = (unsigned long)kpp_pvr;
	unsigned long flags;
	struct kprobe kp;
	unsigned long slot = 0;

	KUNIT_ASSERT_FALSE(test, irqs_disabled());
	kpp_register(test, &kp, kpp_pvr, true);
	KUNIT_EXPECT_EQ(test, kpp_kind(kp.addr, &slot), KP_INSN_STEP);
	KUNIT_EXPECT_TRUE(test, slot);
	/* A stepping slot needs no reach: the detours' buffer is not for it. */
	KUNIT_EXPECT_FALSE(test, optprobe_in_buffer(slot));

	KUNIT_EXPECT_EQ(test, kpp_pvr(), (long)mfspr(SPRN_PVR));
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, pre_nip, pvr);
	KUNIT_EXPECT_EQ(test, post_nip, pvr + 4);

	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, kpp_pvr(), (long)mfspr(SPRN_PVR));
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, post_hits, 2);

	/* No post handler: stepped all the same. */
	kpp_disarm(&kp);
	kpp_register(test, &kp, kpp_pvr, false);
	KUNIT_EXPECT_EQ(test, kpp_pvr(), (long)mfspr(SPRN_PVR));
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	kpp_disarm(&kp);
}

/*
 * A load that faults is not emulated but stepped; the fault of the copy is
 * moved back to the probed address, where the exception table fixes it.
 * So too when the copy's fault is an alignment interrupt's.
 */
static void test_fault_fixup(struct kunit *test)
{
	const u32 word = 0x4243;
	const long data = 4242;
	const long *bad;
	struct kprobe kp;
	long *buf;

	buf = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	bad = (const long *)((char *)buf + PAGE_SIZE);	/* the guard page */
	KUNIT_EXPECT_EQ(test, kpp_load(bad), -EFAULT);

	kpp_register(test, &kp, kpp_load, true);
	KUNIT_EXPECT_EQ(test, kpp_load(&data), data);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpp_load(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, fault_hits, 1);
	KUNIT_EXPECT_EQ(test, kpp_load(&data), data);
	KUNIT_EXPECT_EQ(test, post_hits, 2);
	kpp_disarm(&kp);

	kpp_register(test, &kp, kpp_load, false);
	KUNIT_EXPECT_EQ(test, kpp_load(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, kpp_load(&data), data);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	KUNIT_EXPECT_EQ(test, fault_hits, 1);
	kpp_disarm(&kp);

	/*
	 * The same through an alignment interrupt that fix_alignment()
	 * cannot fix: lmw (little-endian) of the guard page.
	 */
	KUNIT_EXPECT_EQ(test, kpp_lmw(&word), word);
	KUNIT_EXPECT_EQ(test, kpp_lmw((const u32 *)bad), -EFAULT);
	kpp_register(test, &kp, (char *)kpp_lmw + 4, true);
	KUNIT_EXPECT_EQ(test, kpp_lmw(&word), word);
	KUNIT_EXPECT_EQ(test, kpp_lmw((const u32 *)bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, pre_hits, 2);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	KUNIT_EXPECT_EQ(test, fault_hits, 1);
	kpp_disarm(&kp);
	vfree(buf);
}

static long reload;

/* Calls kpp_pvr, whose probe must be stepped, from the fault handler. */
static int pvr_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	fault_hits++;
	reload = kpp_pvr();
	return 0;
}

/*
 * The fault handler of a stepped copy's fault calls a function whose probe
 * is stepped too: the first step is over by then, so the hit is a miss
 * whose instruction is stepped, not an unrecoverable reentry.
 */
static void test_fault_handler_reenters(struct kunit *test)
{
	const long *bad;
	struct kprobe kp, inner;
	long *buf;
	int i;

	buf = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	bad = (const long *)((char *)buf + PAGE_SIZE);	/* the guard page */
	kpp_register(test, &inner, kpp_pvr, true);
	kpp_register(test, &kp, kpp_load, true);
	kp.fault_handler = pvr_fault;
	for (i = 1; i <= 3; i++) {
		reload = 0;
		KUNIT_EXPECT_EQ(test, kpp_load(bad), -EFAULT);
		KUNIT_EXPECT_EQ(test, reload, (long)mfspr(SPRN_PVR));
		KUNIT_EXPECT_EQ(test, fault_hits, i);
		KUNIT_EXPECT_EQ(test, inner.nmissed, i);
	}
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, post_hits, 0);
	kpp_disarm(&kp);
	kpp_disarm(&inner);
	vfree(buf);
}

static int call_pvr_pre(struct kprobe *p, struct pt_regs *regs)
{
	pre_hits += 100;
	kpp_pvr();
	return 0;
}

/* A handler hits a probe that must be stepped: missed, stepped anyway. */
static void test_reentry(struct kunit *test)
{
	struct kprobe outer = {
		.addr = (kprobe_opcode_t *)kpp_add,
		.pre_handler = call_pvr_pre,
		.post_handler = count_post,
	};
	struct kprobe inner;

	kpp_register(test, &inner, kpp_pvr, true);
	kpp_arm(test, &outer);
	KUNIT_EXPECT_EQ(test, kpp_add(1), 2);
	KUNIT_EXPECT_EQ(test, kpp_add(2), 3);
	KUNIT_EXPECT_EQ(test, pre_hits, 200);
	KUNIT_EXPECT_EQ(test, post_hits, 2);	/* the outer one's */
	KUNIT_EXPECT_EQ(test, inner.nmissed, 2);
	KUNIT_EXPECT_EQ(test, outer.nmissed, 0);

	/* Called directly, the inner probe hits and misses nothing more. */
	KUNIT_EXPECT_EQ(test, kpp_pvr(), (long)mfspr(SPRN_PVR));
	KUNIT_EXPECT_EQ(test, pre_hits, 201);
	KUNIT_EXPECT_EQ(test, post_hits, 3);
	KUNIT_EXPECT_EQ(test, inner.nmissed, 2);
	kpp_disarm(&outer);
	kpp_disarm(&inner);
}

/* ISA 3.1: probes on the prefix, never on the suffix; PC-relative ones. */
static void test_prefixed(struct kunit *test)
{
	unsigned long pre = (unsigned long)kpp_prefixed;
	struct kprobe kp;

	KUNIT_EXPECT_EQ(test, kpp_try((void *)pre + 2), -EILSEQ);
	if (!kpp_has_prefixed())
		kunit_skip(test, "no prefixed instructions on this CPU");

	KUNIT_EXPECT_EQ(test, kpp_try((void *)pre + 4), -EILSEQ);
	kpp_register(test, &kp, kpp_prefixed, true);
	KUNIT_EXPECT_EQ(test, kpp_prefixed(5), 1005);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, post_nip, pre + 8);
	kpp_disarm(&kp);
	KUNIT_EXPECT_EQ(test, kpp_prefixed(5), 1005);

	/* pla computes the address of the probed instruction, not a copy's. */
	kpp_register(test, &kp, kpp_pcrel, true);
	KUNIT_EXPECT_EQ(test, kpp_pcrel(), (long)kpp_pcrel);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	kpp_disarm(&kp);

	/* A PC-relative load can only be emulated, which may fail: refused. */
	KUNIT_EXPECT_EQ(test, kpp_try(kpp_pcrel_load), -EINVAL);
}

/* Instructions that cannot be run but where they are, and no instruction. */
static void test_refused(struct kunit *test)
{
	int i;

	for (i = 0; i < KPP_REFUSED_WORDS - 1; i++)
		KUNIT_EXPECT_EQ_MSG(test, kpp_try(&kpp_refused[i]), -EINVAL,
				    "word %d: %08x", i, kpp_refused[i]);
	KUNIT_EXPECT_EQ(test, kpp_try(&kpp_refused[KPP_REFUSED_WORDS - 1]), 0);
	KUNIT_EXPECT_EQ(test, kpp_try((void *)kpp_add + 1), -EILSEQ);
}

#ifdef CONFIG_PPC64
/*
 * Hard-disabled windows (MSR_EE clear, the paca not saying so yet or any
 * more): a trap there would run its handler with MSR_EE set, or return
 * with a warning.  Refused, in kpp_hard_window and in the build's own
 * arch_local_irq_restore(), whose every store to irq_happened is in one;
 * the functions called in one, or returned to in one, by name.
 */
static void test_hard_disabled(struct kunit *test)
{
	/* kpp_hard_window: 0 probed, 1 refused as in a window or for itself. */
	static const u8 refused[KPP_HARD_WINDOW_WORDS] = {
		0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0,
		0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0,
		0, 1, 1, 1, 1, 1, 1, 0, 0, 0,
	};
	static const char * const names[] = {
		"__ppc64_runlatch_on",
		"__ppc64_runlatch_off",
#ifdef CONFIG_PPC_PSERIES
		"pseries_lpar_idle",
#endif
	};
	const unsigned long happened = offsetof(struct paca_struct,
						irq_happened);
	unsigned long pos = ppc_function_entry(arch_local_irq_restore);
	char name[KSYM_NAME_LEN];
	int i, stores = 0;
	u32 word;

	for (i = 0; i < KPP_HARD_WINDOW_WORDS; i++)
		KUNIT_EXPECT_EQ_MSG(test, kpp_try(&kpp_hard_window[i]),
				    refused[i] ? -EINVAL : 0, "word %d: %08x",
				    i, kpp_hard_window[i]);

	for (;; pos += sizeof(u32)) {
		snprintf(name, sizeof(name), "%ps", (void *)pos);
		if (strcmp(name, "arch_local_irq_restore"))
			break;
		word = *(u32 *)pos;
		/* stb rS, irq_happened(rA): r13, or a copy of it (KASAN) */
		if (get_op(word) != 38 || (word & 0xffff) != happened)
			continue;
		stores++;
		KUNIT_EXPECT_EQ_MSG(test, kpp_try((void *)pos), -EINVAL,
				    "%pS", (void *)pos);
	}
	KUNIT_EXPECT_GE(test, stores, 2);

	for (i = 0; i < ARRAY_SIZE(names); i++)
		KUNIT_EXPECT_EQ_MSG(test, kpp_try_sym(names[i], 0), -EINVAL, "%s",
				    names[i]);
}
#endif

/*
 * The C functions of a probe's own trap, where a probe would trap again, and
 * the exit functions that end with MSR_RI clear.
 */
static void test_trap_path_refused(struct kunit *test)
{
	static const char * const names[] = {
		"program_check_exception",
		"single_step_exception",
		"interrupt_exit_kernel_prepare",
		"do_program_check",
		"__single_step_exception",
		"check_return_regs_valid",
		"syscall_exit_prepare",
		"syscall_exit_restart",
		"interrupt_exit_user_prepare",
		"interrupt_exit_user_restart",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		KUNIT_EXPECT_EQ_MSG(test, kpp_try_sym(names[i], 0), -EINVAL, "%s",
				    names[i]);
}

#ifdef CONFIG_PPC_BOOK3S_64
/*
 * The interrupt code up to __end_soft_masked, inside the labels that split
 * its NOKPROBE_SYMBOL() handlers and in the return code, the functions it
 * calls before setting MSR_RI, the return from RTAS and the idle loop's
 * H_CEDE.
 */
static void test_interrupt_code_refused(struct kunit *test)
{
	static const struct {
		const char *name;
		unsigned int offset;
	} sites[] = {
		{ "data_access_common_virt", 8 },
		{ "program_check_common_virt", 8 },
		{ "decrementer_common_virt", 8 },
		{ "masked_interrupt", 4 },
		{ "system_call_common", 8 },
		{ "interrupt_return_srr_kernel", 8 },
		{ "interrupt_return_hsrr_kernel_restart", 4 },
		/* Entered with MSR_RI clear from the *_unavailable handlers. */
		{ "load_up_fpu", 4 },
		{ "load_up_altivec", 4 },
#ifdef CONFIG_VSX
		{ "load_up_vsx", 4 },
#endif
#ifdef CONFIG_PPC_RTAS
		/* Entered by an rfi from RTAS, a real-mode address in LR. */
		{ "rtas_restore_regs", 0 },
#endif
#ifdef CONFIG_PPC_PSERIES
		/* Cedes from idle, soft-enabled but hard-disabled. */
		{ "plpar_hcall_norets_notrace", 0 },
#endif
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    kpp_try_sym(sites[i].name, sites[i].offset),
				    -EINVAL, "%s+%u", sites[i].name,
				    sites[i].offset);
}
#endif

/*
 * Between a load-reserve and its store-conditional, a trap would cancel the
 * reservation at each pass: refused; after the store, probed as usual.
 */
static void test_reservation(struct kunit *test)
{
	struct kprobe kp;
	long v = 41;

	KUNIT_EXPECT_EQ(test, kpp_try(kpp_larx_addi), -EINVAL);
	kpp_register(test, &kp, kpp_larx_bne, true);
	KUNIT_EXPECT_EQ(test, kpp_larx(&v), 42);
	KUNIT_EXPECT_EQ(test, v, 42);
	KUNIT_EXPECT_EQ(test, pre_hits, 1);
	KUNIT_EXPECT_EQ(test, post_hits, 1);
	kpp_disarm(&kp);
}

#ifdef CONFIG_OPTPROBES
/*
 * Register a probe without post handler at @addr, and let it optimize.  A
 * module is out of branch range of the detours in the kernel text.
 */
static void kpp_register_opt(struct kunit *test, struct kprobe *kp,
			     const void *addr, bool optimizable)
{
	optimizable &= core_kernel_text((unsigned long)addr);
	kpp_register(test, kp, addr, false);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ_MSG(test, !!(kpp_flags(addr) & KPROBE_FLAG_OPTIMIZED),
			    optimizable, "%pS", addr);
}

static int call_add_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpp_add(0);
	return 0;
}

/* The probed instruction runs displaced in the detour. */
static void test_optimized(struct kunit *test)
{
	struct kprobe kp, outer;
	int i;

	KUNIT_ASSERT_EQ(test, sysctl_kprobes_optimization, 1);

	kpp_register_opt(test, &kp, kpp_add, true);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kpp_add(i), i + 1);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	KUNIT_EXPECT_EQ(test, pre_nip, (unsigned long)kpp_add);

	/* A redirection leaves the detour through its exit trap. */
	redirect = true;
	KUNIT_EXPECT_EQ(test, kpp_add(1), 42);
	redirect = false;
	KUNIT_EXPECT_EQ(test, kpp_add(1), 2);
	KUNIT_EXPECT_EQ(test, pre_hits, 5);

	/* Hit from a handler: missed, the instruction still runs. */
	memset(&outer, 0, sizeof(outer));
	outer.addr = (kprobe_opcode_t *)kpp_call_bl;
	outer.pre_handler = call_add_pre;
	outer.post_handler = count_post;
	kpp_arm(test, &outer);
	KUNIT_EXPECT_EQ(test, kpp_call(1), 3);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, pre_hits, 6);	/* the call of kpp_call */
	kpp_disarm(&outer);
	kpp_disarm(&kp);

	/* Stores to the stack and to the red zone below it. */
	kpp_register_opt(test, &kp, kpp_call_std, true);
	KUNIT_EXPECT_EQ(test, kpp_call(1), 3);
	kpp_disarm(&kp);
	kpp_register_opt(test, &kp, kpp_call_stdu, true);
	KUNIT_EXPECT_EQ(test, kpp_call(2), 4);
	kpp_disarm(&kp);
	kpp_register_opt(test, &kp, kpp_redzone_li, true);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kpp_redzone(i), i + 2);
	KUNIT_EXPECT_EQ(test, pre_hits, 3);
	kpp_disarm(&kp);

	if (kpp_has_prefixed()) {
		kpp_register_opt(test, &kp, kpp_prefixed, true);
		KUNIT_EXPECT_EQ(test, kpp_prefixed(7), 1007);
		KUNIT_EXPECT_EQ(test, pre_hits, 1);
		kpp_disarm(&kp);
		kpp_register_opt(test, &kp, kpp_pcrel, false);
		KUNIT_EXPECT_EQ(test, kpp_pcrel(), (long)kpp_pcrel);
		kpp_disarm(&kp);
	}

	/* Not relocatable, or with an exception table entry: trap kept. */
	kpp_register_opt(test, &kp, kpp_branch_beq, false);
	KUNIT_EXPECT_EQ(test, kpp_branch(1), 11);
	kpp_disarm(&kp);
	kpp_register_opt(test, &kp, kpp_call_bl, false);
	KUNIT_EXPECT_EQ(test, kpp_call(1), 3);
	kpp_disarm(&kp);
	kpp_register_opt(test, &kp, kpp_load, false);
	KUNIT_EXPECT_EQ(test, kpp_load((const long *)&kp.nmissed), 0);
	kpp_disarm(&kp);
}

/*
 * Whether the arch would build a detour for a site at @addr, asked of
 * arch_prepare_optimized_kprobe() itself, nothing armed.  Without
 * kprobe_mutex, which the core holds for these hooks: the op is this
 * test's alone, and powerpc's slot caches and text patching take their
 * own locks.
 */
static int kpp_prepare_opt(struct kunit *test, const void *addr)
{
	struct optimized_kprobe *op;
	int ret;

	op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, op);
	op->kp.addr = (kprobe_opcode_t *)addr;
	KUNIT_ASSERT_EQ(test, arch_prepare_kprobe(&op->kp), 0);
	ret = arch_prepare_optimized_kprobe(op, &op->kp);
	if (!ret)
		arch_remove_optimized_kprobe(op);
	arch_remove_kprobe(&op->kp);
	return ret;
}

/*
 * The detour's callback calls arch_local_irq_restore(): a detour there
 * would enter itself without end, so the arch refuses to build one.  Its
 * local entry holds a compare (kpp_add's addi shows such an instruction
 * displaceable elsewhere).  Not armed: every interrupt enable on every
 * CPU would trap, and under QEMU's single-threaded TCG each trap ends the
 * vCPU's time slice (the exception prologue's HMT_MEDIUM) while a CPU
 * spinning in kick_all_cpus_sync() keeps its own; the guest livelocked so
 * once in about 50 boots.
 */
static void test_opt_irq_restore(struct kunit *test)
{
	unsigned long entry = ppc_function_entry(arch_local_irq_restore);

	KUNIT_EXPECT_EQ(test, kpp_prepare_opt(test, kpp_add), 0);
	KUNIT_EXPECT_EQ(test, kpp_prepare_opt(test, (void *)entry), -EINVAL);
}
#endif /* CONFIG_OPTPROBES */

static struct kunit_case powerpc_kprobes_cases[] = {
	KUNIT_CASE(test_emulated),
	KUNIT_CASE(test_single_step),
	KUNIT_CASE(test_fault_fixup),
	KUNIT_CASE(test_fault_handler_reenters),
	KUNIT_CASE(test_reentry),
	KUNIT_CASE(test_prefixed),
	KUNIT_CASE(test_refused),
#ifdef CONFIG_PPC64
	KUNIT_CASE(test_hard_disabled),
#endif
	KUNIT_CASE(test_trap_path_refused),
#ifdef CONFIG_PPC_BOOK3S_64
	KUNIT_CASE(test_interrupt_code_refused),
#endif
	KUNIT_CASE(test_stack_frame),
	KUNIT_CASE(test_large_model_entry),
	KUNIT_CASE(test_kretprobe_r0),
	KUNIT_CASE(test_reservation),
#ifdef CONFIG_OPTPROBES
	KUNIT_CASE(test_optimized),
	KUNIT_CASE(test_opt_irq_restore),
#endif
	{}
};

/* A case that ended on another assertion left its stack's pointers. */
static int powerpc_kprobes_case_init(struct kunit *test)
{
	memset(kpp_held, 0, sizeof(kpp_held));
	return 0;
}

static struct kunit_suite powerpc_kprobes_suite = {
	.name = "powerpc_kprobes",
	.init = powerpc_kprobes_case_init,
	.test_cases = powerpc_kprobes_cases,
};

kunit_test_suite(powerpc_kprobes_suite);

MODULE_DESCRIPTION("KUnit test of the powerpc half of kprobes");
MODULE_LICENSE("GPL");
