// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite of arm64 kprobes: probes on instructions of kunit_asm.S, whose
 * encodings and places are known, with exact hit counts and results.
 *
 * - every simulated instruction (B, BL, B.cond, CBZ/CBNZ, TBZ/TBNZ, ADR,
 *   ADRP, LDR/LDRSW/PRFM literal, BR, BLR, RET, NOP), taken and not, with a
 *   post handler and without;
 * - out-of-line copies (ADD, PACIASP): stepped with a post handler, boosted
 *   without one, jump optimized when the optimizer may;
 * - MRS/MSR DAIF, MSR DAIFSet: the probed context's mask, not the copy's;
 * - the return of stepped copies through kprobe_step_trampoline: the
 *   condition flags of the copy and the probed context's mask, in the post
 *   handler's registers and after it; the trap instead after an MSR;
 * - the refused instructions (exclusive loop, exception generation and
 *   return, RETAA, ELR/SPSel accesses, SIMD&FP literal) and offsets;
 * - a fault of a stepped copy, fixed up by the exception table at the
 *   probed address, shown to the fault handler;
 * - a redirecting pre handler on an optimized site;
 * - reentry from a handler into simulated, boosted and stepped probes.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/irqflags.h>
#include <linux/vmalloc.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

#include "common.h"
#include "kunit.h"

#define KPA_CALLS	5

struct kpa_probe {
	struct kprobe kp;
	atomic_t pre;
	atomic_t post;
	atomic_t fault;
	unsigned long seen_pc;
	long (*call)(long x);	/* kpa_pre_call: what the handler calls */
	const long *good;	/* kpa_fault_load: what the handler loads */
	long loaded;
};

#define to_kpa(p)	container_of(p, struct kpa_probe, kp)

static kprobe_opcode_t *kpa_addr(int site)
{
	return kpa_sites[site].fn + kpa_sites[site].off;
}

static u32 kpa_text(int site)
{
	return le32_to_cpu(*(__le32 *)kpa_addr(site));
}

static int kpa_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpa_probe *k = to_kpa(p);

	WRITE_ONCE(k->seen_pc, instruction_pointer(regs));
	atomic_inc(&k->pre);
	return 0;
}

static void kpa_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&to_kpa(p)->post);
}

static int kpa_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	atomic_inc(&to_kpa(p)->fault);
	return 0;
}

/* Loads through the probed kpa_load, from inside the fault handler. */
static int kpa_fault_load(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	struct kpa_probe *k = to_kpa(p);

	atomic_inc(&k->fault);
	k->loaded = kpa_load(k->good);
	return 0;
}

/* Moves the PC to kpa_add2. */
static int kpa_pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&to_kpa(p)->pre);
	instruction_pointer_set(regs, (unsigned long)kpa_add2);
	return 1;
}

/* Calls a probed function from the handler. */
static int kpa_pre_call(struct kprobe *p, struct pt_regs *regs)
{
	struct kpa_probe *k = to_kpa(p);

	atomic_inc(&k->pre);
	k->call(1);
	return 0;
}

static struct kpa_probe *kpa_new(struct kunit *test, int site, bool post)
{
	struct kpa_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->kp.addr = kpa_addr(site);
	k->kp.pre_handler = kpa_pre;
	if (post)
		k->kp.post_handler = kpa_post;
	k->kp.fault_handler = kpa_fault;
	return k;
}

static void kpa_unreg_action(void *p)
{
	unregister_kprobe(p);
}

static int kpa_reg(struct kunit *test, struct kpa_probe *k)
{
	int ret = register_kprobe(&k->kp);

	if (!ret)
		ret = kunit_add_action_or_reset(test, kpa_unreg_action, &k->kp);
	return ret;
}

static void kpa_unreg(struct kunit *test, struct kpa_probe *k)
{
	kunit_release_action(test, kpa_unreg_action, &k->kp);
}

static u32 kpa_site_flags(int site)
{
	struct kprobe *p;
	u32 flags = 0;

	preempt_disable();
	p = get_kprobe(kpa_addr(site));
	if (p)
		flags = READ_ONCE(p->flags);
	preempt_enable();
	return flags;
}

/* Call @fn(@x) through a pointer the compiler knows nothing about. */
static noinline long kpa_call(long (*fn)(long), long x)
{
	OPTIMIZER_HIDE_VAR(fn);
	return fn(x);
}

/* ---------------------------------------------------------------------------
 * Instructions
 * ---------------------------------------------------------------------------
 */
struct kpa_case {
	const char *desc;
	int site;
	long (*fn)(long x);
	long x;
	bool optimizable;	/* a copy or a NOP: may be jump optimized */
};

static const struct kpa_case kpa_cases[] = {
	{ "b", KPA_B, kpa_b, 5, false },
	{ "bl", KPA_BL, kpa_bl, 5, false },
	{ "b.lt taken", KPA_BCOND, kpa_bcond, -3, false },
	{ "b.lt not taken", KPA_BCOND, kpa_bcond, 50, false },
	{ "cbz w taken", KPA_CBZ, kpa_cbz, 0x100000000L, false },
	{ "cbz w not taken", KPA_CBZ, kpa_cbz, 1, false },
	{ "cbnz taken", KPA_CBNZ, kpa_cbnz, 0x100000000L, false },
	{ "cbnz not taken", KPA_CBNZ, kpa_cbnz, 0, false },
	{ "tbz taken", KPA_TBZ, kpa_tbz, 1L << 34, false },
	{ "tbz not taken", KPA_TBZ, kpa_tbz, 1L << 35, false },
	{ "tbnz taken", KPA_TBNZ, kpa_tbnz, 8, false },
	{ "tbnz not taken", KPA_TBNZ, kpa_tbnz, 7, false },
	{ "adr", KPA_ADR, kpa_adr, 0, false },
	{ "adrp", KPA_ADRP, kpa_adrp, 0, false },
	{ "ldr x literal", KPA_LDR_X, kpa_ldr, 0, false },
	{ "ldr w literal", KPA_LDR_W, kpa_ldr, 1, false },
	{ "ldrsw literal", KPA_LDRSW, kpa_ldr, 2, false },
	{ "prfm literal", KPA_PRFM, kpa_prfm, 1, true },
	{ "br", KPA_BR, kpa_br, 0, false },
	{ "blr", KPA_BLR, kpa_blr, 1, false },
	{ "ret", KPA_RET, kpa_ret, 1, false },
	{ "nop", KPA_NOP, kpa_nop, 1, true },
	{ "add", KPA_ADD, kpa_add, 1, true },
	/* A B over a landing pad would break BTI. */
	{ "paciasp", KPA_PACIASP, kpa_paciasp, 1,
	  !IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) },
};

KUNIT_ARRAY_PARAM_DESC(kpa_cases, kpa_cases, desc);

/*
 * A post handler: simulated or stepped.  No post handler: simulated,
 * boosted, then jump optimized if the instruction allows.  The result of
 * the probed function never changes.
 */
static void kpa_test_insn(struct kunit *test)
{
	const struct kpa_case *c = test->param_value;
	struct kpa_probe *k = kpa_new(test, c->site, true);
	struct kpa_probe *q = kpa_new(test, c->site, false);
	long want = kpa_call(c->fn, c->x);
	bool opt = IS_ENABLED(CONFIG_OPTPROBES) && c->optimizable;
	int i;

	KUNIT_ASSERT_EQ(test, kpa_reg(test, k), 0);
	for (i = 0; i < KPA_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpa_call(c->fn, c->x), want);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPA_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPA_CALLS);
	KUNIT_EXPECT_EQ(test, k->seen_pc, (unsigned long)kpa_addr(c->site));
	kpa_unreg(test, k);

	KUNIT_ASSERT_EQ(test, kpa_reg(test, q), 0);
	KUNIT_EXPECT_EQ(test, kpa_call(c->fn, c->x), want);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, !!(kpa_site_flags(c->site) & KPROBE_FLAG_OPTIMIZED),
			opt);
	KUNIT_EXPECT_EQ(test, aarch64_insn_is_b(kpa_text(c->site)), opt);
	for (i = 0; i < KPA_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpa_call(c->fn, c->x), want);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), KPA_CALLS + 1);
	KUNIT_EXPECT_EQ(test, q->seen_pc, (unsigned long)kpa_addr(c->site));
	KUNIT_EXPECT_EQ(test, q->kp.nmissed, 0);
	kpa_unreg(test, q);
	KUNIT_EXPECT_EQ(test, kpa_call(c->fn, c->x), want);
}

/* The values of the simulated instructions, known in advance. */
static void kpa_test_values(struct kunit *test)
{
	struct kpa_probe *k[] = {
		kpa_new(test, KPA_ADR, true), kpa_new(test, KPA_ADRP, true),
		kpa_new(test, KPA_LDR_X, true), kpa_new(test, KPA_LDR_W, true),
		kpa_new(test, KPA_LDRSW, true), kpa_new(test, KPA_BCOND, true),
		kpa_new(test, KPA_TBZ, true), kpa_new(test, KPA_BL, true),
	};
	static const int runs[] = { 1, 1, 1, 1, 1, 2, 2, 1 };
	int i;

	for (i = 0; i < ARRAY_SIZE(k); i++)
		KUNIT_ASSERT_EQ(test, kpa_reg(test, k[i]), 0);
	KUNIT_EXPECT_EQ(test, kpa_adr(0), (long)kpa_data);
	KUNIT_EXPECT_EQ(test, kpa_adrp(0), (long)kpa_data & ~0xfffL);
	KUNIT_EXPECT_EQ(test, kpa_ldr(0), (long)kpa_data[0]);
	KUNIT_EXPECT_EQ(test, kpa_ldr(1), (long)(u32)kpa_data[0]);
	KUNIT_EXPECT_EQ(test, kpa_ldr(2), (long)(s32)(kpa_data[0] >> 32));
	KUNIT_EXPECT_EQ(test, kpa_bcond(-3), 1);
	KUNIT_EXPECT_EQ(test, kpa_bcond(10), 0);
	KUNIT_EXPECT_EQ(test, kpa_tbz(1L << 34), 9);
	KUNIT_EXPECT_EQ(test, kpa_tbz(1L << 35), 5);
	KUNIT_EXPECT_EQ(test, kpa_bl(1), 8);
	/* Each call above ran one of the sites once; b.cond and tbz twice. */
	for (i = 0; i < ARRAY_SIZE(k); i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[i]->pre), runs[i],
				    "site %d", i);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[i]->post), runs[i],
				    "site %d", i);
	}
}

/* ---------------------------------------------------------------------------
 * Refusals
 * ---------------------------------------------------------------------------
 */
static int kpa_try(kprobe_opcode_t *addr)
{
	struct kprobe kp = { .addr = addr, .pre_handler = kpa_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

static void kpa_test_refused(struct kunit *test)
{
	static const int refused[] = {
		KPA_LDXR, KPA_EXCL_MID, KPA_STXR, KPA_HVC, KPA_ERET,
		KPA_RETAA, KPA_MRS_ELR, KPA_MSR_SPSEL, KPA_LDR_Q, KPA_SVC,
	};
	struct kpa_probe *after;
	long v = 41;
	int i;

	KUNIT_ASSERT_EQ(test, kpa_sites_end - kpa_sites, KPA_NR_SITES);
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		KUNIT_EXPECT_EQ_MSG(test, kpa_try(kpa_addr(refused[i])), -EINVAL,
				    "site %d", refused[i]);
	/* After the store-exclusive, the loop may be probed, and still runs. */
	after = kpa_new(test, KPA_EXCL_AFTER, true);
	KUNIT_ASSERT_EQ(test, kpa_reg(test, after), 0);
	KUNIT_EXPECT_EQ(test, kpa_excl(&v), 42);
	KUNIT_EXPECT_EQ(test, v, 42);
	KUNIT_EXPECT_GE(test, atomic_read(&after->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&after->post),
			atomic_read(&after->pre));
	kpa_unreg(test, after);
	/* Not 4-byte aligned: -EINVAL, as any address arm64 refuses. */
	for (i = 1; i < AARCH64_INSN_SIZE; i++)
		KUNIT_EXPECT_EQ(test,
				kpa_try((void *)kpa_addr(KPA_ADD) + i), -EINVAL);
}

/* ---------------------------------------------------------------------------
 * DAIF
 * ---------------------------------------------------------------------------
 */
static void kpa_test_daif(struct kunit *test)
{
	struct kpa_probe *m = kpa_new(test, KPA_MRS_DAIF, true);
	struct kpa_probe *s = kpa_new(test, KPA_DAIFSET, false);
	struct kpa_probe *w = kpa_new(test, KPA_MSR_DAIF, true);
	unsigned long flags;
	long daif;

	KUNIT_ASSERT_EQ(test, kpa_reg(test, m), 0);
	KUNIT_ASSERT_EQ(test, kpa_reg(test, s), 0);
	KUNIT_ASSERT_EQ(test, kpa_reg(test, w), 0);

	KUNIT_EXPECT_FALSE(test, kpa_mrs_daif(0) & PSR_I_BIT);
	local_irq_save(flags);
	daif = kpa_mrs_daif(0);
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, daif & PSR_I_BIT);

	KUNIT_EXPECT_TRUE(test, kpa_daifset(0) & PSR_I_BIT);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	/* Masking everything, under local_irq_save(): never unmasking. */
	local_irq_save(flags);
	daif = kpa_msr_daif(DAIF_MASK);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, daif & DAIF_MASK, DAIF_MASK);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	KUNIT_EXPECT_EQ(test, atomic_read(&m->pre), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->post), 1);
}

static unsigned long kpa_post_pstate;

static void kpa_post_save_pstate(struct kprobe *p, struct pt_regs *regs,
				 unsigned long flags)
{
	kpa_post_pstate = regs->pstate;
	atomic_inc(&to_kpa(p)->post);
}

/*
 * The instruction that ends the stepped copy of the probe at @site, and
 * where the branch there lands (0 if it is not one).
 */
static u32 kpa_step_end(int site, unsigned long *target)
{
	struct kprobe *p;
	u32 insn = 0;

	*target = 0;
	preempt_disable();
	p = get_kprobe(kpa_addr(site));
	if (p && p->ainsn.api.insn) {
		kprobe_opcode_t *end = &p->ainsn.api.insn[KPROBE_SLOT_STEP + 1];

		insn = le32_to_cpu(*end);
		if (aarch64_insn_is_b(insn))
			*target = (unsigned long)end +
				  aarch64_get_branch_offset(insn);
	}
	preempt_enable();
	return insn;
}

/* @fn(@x) with interrupts masked; *@masked: whether they still were after. */
static long kpa_call_irqs_off(long (*fn)(long), long x, bool *masked)
{
	unsigned long flags;
	long ret;

	local_irq_save(flags);
	ret = fn(x);
	*masked = irqs_disabled();
	local_irq_restore(flags);
	return ret;
}

/*
 * A stepped copy comes back through kprobe_step_trampoline, no trap: the
 * post handler sees the flags the copied CMP set and the caller's interrupt
 * mask, and so does the code after the probe.  An MSR to a PSTATE field
 * keeps the trap.
 */
static void kpa_test_step_trampoline(struct kunit *test)
{
	struct kpa_probe *k = kpa_new(test, KPA_CMP, false);
	struct kpa_probe *m = kpa_new(test, KPA_MSR_PAN, true);
	unsigned long target, pstate;
	bool masked;

	k->kp.post_handler = kpa_post_save_pstate;
	KUNIT_ASSERT_EQ(test, kpa_reg(test, k), 0);
	KUNIT_EXPECT_TRUE(test, aarch64_insn_is_b(kpa_step_end(KPA_CMP, &target)));
	KUNIT_EXPECT_EQ(test, target, (unsigned long)kprobe_step_trampoline);

	KUNIT_EXPECT_EQ(test, kpa_cmp(5), 1);
	pstate = kpa_post_pstate;
	KUNIT_EXPECT_TRUE(test, pstate & PSR_Z_BIT);
	KUNIT_EXPECT_FALSE(test, pstate & PSR_I_BIT);
	KUNIT_EXPECT_EQ(test, pstate & PSR_MODE_MASK,
			is_kernel_in_hyp_mode() ? PSR_MODE_EL2h : PSR_MODE_EL1h);
	KUNIT_EXPECT_EQ(test, kpa_cmp(4), 0);
	KUNIT_EXPECT_FALSE(test, kpa_post_pstate & PSR_Z_BIT);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	KUNIT_EXPECT_EQ(test, kpa_call_irqs_off(kpa_cmp, 5, &masked), 1);
	KUNIT_EXPECT_TRUE(test, masked);
	KUNIT_EXPECT_TRUE(test, kpa_post_pstate & PSR_I_BIT);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 3);

	KUNIT_ASSERT_EQ(test, kpa_reg(test, m), 0);
	KUNIT_EXPECT_EQ(test, kpa_step_end(KPA_MSR_PAN, &target),
			BRK64_OPCODE_KPROBES_SS);
}

/*
 * An MSR ends its stepped copy with the BRK (kprobe_ss_brk_handler()): the
 * flags the copy wrote reach the post handler and the code after the probe,
 * and so does the caller's interrupt mask, not the step's.
 */
static void kpa_test_step_brk(struct kunit *test)
{
	struct kpa_probe *n = kpa_new(test, KPA_MSR_NZCV, false);
	unsigned long target;
	bool masked;

	n->kp.post_handler = kpa_post_save_pstate;
	KUNIT_ASSERT_EQ(test, kpa_reg(test, n), 0);
	KUNIT_EXPECT_EQ(test, kpa_step_end(KPA_MSR_NZCV, &target),
			BRK64_OPCODE_KPROBES_SS);

	KUNIT_EXPECT_EQ(test, kpa_msr_nzcv(PSR_Z_BIT), 1);
	KUNIT_EXPECT_TRUE(test, kpa_post_pstate & PSR_Z_BIT);
	KUNIT_EXPECT_FALSE(test, kpa_post_pstate & PSR_I_BIT);
	KUNIT_EXPECT_EQ(test, kpa_msr_nzcv(PSR_C_BIT), 0);
	KUNIT_EXPECT_FALSE(test, kpa_post_pstate & PSR_Z_BIT);
	KUNIT_EXPECT_TRUE(test, kpa_post_pstate & PSR_C_BIT);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	KUNIT_EXPECT_EQ(test, kpa_call_irqs_off(kpa_msr_nzcv, PSR_Z_BIT, &masked),
			1);
	KUNIT_EXPECT_TRUE(test, masked);
	KUNIT_EXPECT_TRUE(test, kpa_post_pstate & PSR_I_BIT);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->pre), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->post), 3);
}

/*
 * The fault path that gives kprobes a fault of a stepped copy
 * (do_mem_abort(), then the handler of its table, then do_bad_area())
 * must not be probed: a probe there would be hit while a copy is stepped.
 */
static void kpa_test_fault_path_refused(struct kunit *test)
{
	static const char * const names[] = {
		"do_alignment_fault", "do_tag_check_fault", "do_translation_fault",
		"do_page_fault", "do_mem_abort",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct kprobe kp = { .symbol_name = names[i] };
		int ret = register_kprobe(&kp);

		if (!ret)
			unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s", names[i]);
	}
}

#ifdef CONFIG_JPROBES
/*
 * A jprobe resumes with the registers it saved at the hit, of PSTATE only
 * the flags and the interrupt mask: a hit through a detour saved no PAN,
 * DIT or SSBS, which are the BRK frame's own (the same context's).
 */
static void kpa_test_jprobe_pstate(struct kunit *test)
{
	struct pt_regs saved = {}, regs = {};

	saved.pc = 0x1000;
	saved.regs[0] = 42;
	saved.pstate = PSR_MODE_EL1h | PSR_Z_BIT | PSR_I_BIT;
	regs.pstate = PSR_MODE_EL1h | PSR_PAN_BIT | PSR_SSBS_BIT | PSR_C_BIT |
		      PSR_BTYPE_J;
	preempt_disable();
	arch_jprobe_restore_regs(&regs, &saved);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, regs.pc, 0x1000);
	KUNIT_EXPECT_EQ(test, regs.regs[0], 42);
	KUNIT_EXPECT_EQ(test, regs.pstate,
			PSR_MODE_EL1h | PSR_PAN_BIT | PSR_SSBS_BIT | PSR_Z_BIT |
			PSR_I_BIT);
}
#endif

/* ---------------------------------------------------------------------------
 * Faults, redirection, reentry
 * ---------------------------------------------------------------------------
 */
static void kpa_vfree_action(void *p)
{
	vfree(p);
}

/* A page holding @val, freed with the test; *@bad is its guard page. */
static long *kpa_guarded(struct kunit *test, long val, const long **bad)
{
	long *buf = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpa_vfree_action,
							buf), 0);
	*bad = (const long *)((char *)buf + PAGE_SIZE);
	buf[0] = val;
	return buf;
}

/*
 * The copy of a load faults on a vmalloc guard page: the fault is moved
 * back to the probed address, shown to the fault handler, and fixed up by
 * the exception table entry there.  Such an instruction is never boosted
 * nor optimized.
 */
static void kpa_test_fault(struct kunit *test)
{
	struct kpa_probe *k = kpa_new(test, KPA_LOAD, true);
	struct kpa_probe *q = kpa_new(test, KPA_LOAD, false);
	const long *bad;
	long *buf = kpa_guarded(test, 4242, &bad);
	int i;

	KUNIT_ASSERT_EQ(test, kpa_load(bad), -EFAULT);

	KUNIT_ASSERT_EQ(test, kpa_reg(test, k), 0);
	KUNIT_EXPECT_EQ(test, kpa_load(buf), 4242);
	for (i = 0; i < KPA_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpa_load(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPA_CALLS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), KPA_CALLS);
	kpa_unreg(test, k);

	KUNIT_ASSERT_EQ(test, kpa_reg(test, q), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpa_site_flags(KPA_LOAD) & KPROBE_FLAG_OPTIMIZED);
	for (i = 0; i < KPA_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpa_load(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, kpa_load(buf), 4242);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), KPA_CALLS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->fault), KPA_CALLS);
	kpa_unreg(test, q);
}

/*
 * A fault of a stepped copy other than a page fault: an LDAR across a
 * 16-byte boundary takes an alignment fault, which goes back to the probed
 * instruction as a page fault does, where the exception table fixes it.
 */
static void kpa_test_fault_alignment(struct kunit *test)
{
	struct kpa_probe *k = kpa_new(test, KPA_LOAD_ACQ, true);
	char *raw = kunit_kzalloc(test, 64, GFP_KERNEL);
	const long *good, *odd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, raw);
	good = PTR_ALIGN((const long *)raw, 16);
	odd = (const long *)((const char *)good + 12);
	*(long *)good = 4242;
	KUNIT_ASSERT_EQ(test, kpa_load_acq(good), 4242);
	KUNIT_ASSERT_EQ(test, kpa_load_acq(odd), -EFAULT);

	KUNIT_ASSERT_EQ(test, kpa_reg(test, k), 0);
	for (i = 1; i <= KPA_CALLS; i++) {
		KUNIT_EXPECT_EQ(test, kpa_load_acq(odd), -EFAULT);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), i);
	}
	KUNIT_EXPECT_EQ(test, kpa_load_acq(good), 4242);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPA_CALLS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	kpa_unreg(test, k);
}

/*
 * The fault handler of a stepped copy's fault calls the probed function
 * again: the step is over by then, so the hit is a miss whose instruction
 * is stepped, not an unrecoverable reentry.
 */
static void kpa_test_fault_handler_reenters(struct kunit *test)
{
	struct kpa_probe *k = kpa_new(test, KPA_LOAD, true);
	const long *bad;
	long *buf = kpa_guarded(test, 4343, &bad);
	int i;

	k->good = buf;
	k->kp.fault_handler = kpa_fault_load;
	KUNIT_ASSERT_EQ(test, kpa_reg(test, k), 0);
	for (i = 1; i <= KPA_CALLS; i++) {
		k->loaded = 0;
		KUNIT_EXPECT_EQ(test, kpa_load(bad), -EFAULT);
		KUNIT_EXPECT_EQ(test, k->loaded, 4343);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), i);
		KUNIT_EXPECT_EQ(test, k->kp.nmissed, i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPA_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 0);
	KUNIT_EXPECT_EQ(test, kpa_load(buf), 4343);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	kpa_unreg(test, k);
}

/* A pre handler moves the PC: on a breakpoint, then on a jump. */
static void kpa_test_redirect(struct kunit *test)
{
	struct kpa_probe *k = kpa_new(test, KPA_ADD, false);
	struct kpa_probe *r = kpa_new(test, KPA_ADD, false);
	int i;

	r->kp.pre_handler = kpa_pre_redirect;
	KUNIT_ASSERT_EQ(test, kpa_reg(test, k), 0);
	KUNIT_ASSERT_EQ(test, kpa_reg(test, r), 0);
	for (i = 0; i < KPA_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpa_call(kpa_add, 1), 14);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, !!(kpa_site_flags(KPA_ADD) & KPROBE_FLAG_OPTIMIZED),
			IS_ENABLED(CONFIG_OPTPROBES));
	for (i = 0; i < KPA_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpa_call(kpa_add, 1), 14);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 2 * KPA_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->pre), 2 * KPA_CALLS);
	kpa_unreg(test, r);
	KUNIT_EXPECT_EQ(test, kpa_call(kpa_add, 1), 12);
	kpa_unreg(test, k);
	KUNIT_EXPECT_EQ(test, kpa_call(kpa_add, 1), 12);
}

static long kpa_load_buf(long x)
{
	static long val = 77;

	return kpa_load(&val);
}

/*
 * The handler of a probe calls functions with probes on a simulated
 * instruction, a boostable copy and a copy that must be stepped: they miss,
 * and compute what they should.
 */
static void kpa_test_reentry(struct kunit *test)
{
	static long (* const inner[])(long) = { kpa_b, kpa_add, kpa_load_buf };
	static const int sites[] = { KPA_B, KPA_ADD, KPA_LOAD };
	struct kpa_probe *outer = kpa_new(test, KPA_ADD2, true);
	struct kpa_probe *in;
	int i, j;

	outer->kp.pre_handler = kpa_pre_call;
	KUNIT_ASSERT_EQ(test, kpa_reg(test, outer), 0);
	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		in = kpa_new(test, sites[i], true);
		KUNIT_ASSERT_EQ(test, kpa_reg(test, in), 0);
		outer->call = inner[i];
		for (j = 0; j < KPA_CALLS; j++)
			KUNIT_EXPECT_EQ(test, kpa_call(kpa_add2, 1), 14);
		KUNIT_EXPECT_EQ(test, atomic_read(&in->pre), 0);
		KUNIT_EXPECT_EQ(test, in->kp.nmissed, KPA_CALLS);
		KUNIT_EXPECT_EQ(test, kpa_call(inner[i], 1), inner[i] == kpa_b ? 2 :
				inner[i] == kpa_add ? 12 : 77);
		KUNIT_EXPECT_EQ(test, atomic_read(&in->pre), 1);
		kpa_unreg(test, in);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->pre), ARRAY_SIZE(sites) * KPA_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->post), ARRAY_SIZE(sites) * KPA_CALLS);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0);
}

static struct kunit_case kpa_test_cases[] = {
	KUNIT_CASE_PARAM(kpa_test_insn, kpa_cases_gen_params),
	KUNIT_CASE(kpa_test_values),
	KUNIT_CASE(kpa_test_refused),
	KUNIT_CASE(kpa_test_daif),
	KUNIT_CASE(kpa_test_step_trampoline),
	KUNIT_CASE(kpa_test_step_brk),
	KUNIT_CASE(kpa_test_fault_path_refused),
#ifdef CONFIG_JPROBES
	KUNIT_CASE(kpa_test_jprobe_pstate),
#endif
	KUNIT_CASE(kpa_test_fault),
	KUNIT_CASE(kpa_test_fault_alignment),
	KUNIT_CASE(kpa_test_fault_handler_reenters),
	KUNIT_CASE(kpa_test_redirect),
	KUNIT_CASE(kpa_test_reentry),
	{}
};

static struct kunit_suite kpa_suite = {
	.name = "arm64_kprobes",
	.test_cases = kpa_test_cases,
};

kunit_test_suite(kpa_suite);

MODULE_DESCRIPTION("KUnit suite of arm64 kprobes");
MODULE_LICENSE("GPL");
