// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite of riscv kprobes: probes on known instructions (kunit_asm.S).
 *
 * Every kind of site the riscv code handles is hit a known number of times
 * and the result of the probed function is checked: compressed and 32-bit
 * instructions, on 4-byte and 2-byte boundaries, stepped (with a post
 * handler: through kprobe_step_trampoline, with the caller's interrupt
 * state), boosted (without), simulated (AUIPC, JAL, JALR, branches and
 * their compressed forms), a fault of a stepped copy, the instructions
 * kprobes refuses, and jump optimization.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/vmalloc.h>
#include <asm/csr.h>
#include <asm/insn.h>

#include "decode-insn.h"
#include "kunit.h"

#define KPRV_CALLS	10

typedef long (*kprv_fn_t)(long a, long b);

/* Call @fn through a pointer the compiler knows nothing about. */
static noinline long kprv_call2(void *fn, long a, long b)
{
	kprv_fn_t f = fn;

	OPTIMIZER_HIDE_VAR(f);
	return f(a, b);
}

struct kprv_probe {
	struct kprobe kp;
	atomic_t pre;
	atomic_t post;
	atomic_t fault;
	unsigned long seen_ip;
	unsigned long seen_status;	/* in the post handler */
	long last_trapnr;
	void *redirect;
	const long *good;	/* kprv_fault_load: what the handler loads */
	long loaded;
	unsigned long seen_a1;	/* kprv_pre_a1 */
};

#define to_kprv(p)	container_of(p, struct kprv_probe, kp)

static int kprv_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kprv_probe *k = to_kprv(p);

	WRITE_ONCE(k->seen_ip, instruction_pointer(regs));
	atomic_inc(&k->pre);
	if (k->redirect) {
		instruction_pointer_set(regs, (unsigned long)k->redirect);
		return 1;
	}
	return 0;
}

static void kprv_post(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
	WRITE_ONCE(to_kprv(p)->seen_status, regs->status);
	atomic_inc(&to_kprv(p)->post);
}

/* The first instruction after the stepped copy of @asi. */
static u32 kprv_step_end(const struct arch_specific_insn *asi)
{
	const u16 *end = (const u16 *)asi->slot + KPROBE_SLOT_STEP +
			 asi->len / 2;

	return end[0] | (u32)end[1] << 16;
}

static int kprv_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	struct kprv_probe *k = to_kprv(p);

	WRITE_ONCE(k->last_trapnr, trapnr);
	atomic_inc(&k->fault);
	return 0;
}

/* Loads through the probed kprv_load, from inside the fault handler. */
static int kprv_fault_load(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	struct kprv_probe *k = to_kprv(p);

	atomic_inc(&k->fault);
	k->loaded = kprv_call2(kprv_load, (long)k->good, 0);
	return 0;
}

static struct kprv_probe *kprv_new(struct kunit *test, unsigned long addr,
				   bool post)
{
	struct kprv_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->kp.addr = (kprobe_opcode_t *)addr;
	k->kp.pre_handler = kprv_pre;
	if (post)
		k->kp.post_handler = kprv_post;
	k->kp.fault_handler = kprv_fault;
	return k;
}

static void kprv_unreg_action(void *p)
{
	unregister_kprobe(p);
}

static int kprv_reg(struct kunit *test, struct kprv_probe *k)
{
	int ret = register_kprobe(&k->kp);

	if (!ret)
		ret = kunit_add_action_or_reset(test, kprv_unreg_action, &k->kp);
	return ret;
}

static void kprv_unreg(struct kunit *test, struct kprv_probe *k)
{
	kunit_release_action(test, kprv_unreg_action, &k->kp);
}

/* Register a probe at @addr, expecting @err; never leave it registered. */
static int kprv_try(unsigned long addr)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)addr, .pre_handler = kprv_pre,
	};
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

/* The state of the site at @addr, copied under RCU. */
static bool kprv_site_state(unsigned long addr, struct arch_specific_insn *asi,
			    u32 *flags, kprobe_opcode_t *opcode)
{
	struct kprobe *site;
	bool found = false;

	preempt_disable();
	site = get_kprobe((void *)addr);
	if (site) {
		*asi = site->ainsn;
		*flags = READ_ONCE(site->flags);
		if (opcode)
			*opcode = site->opcode;
		found = true;
	}
	preempt_enable();
	return found;
}

static bool kprv_is_seq(const void *fn)
{
	return fn == kprv_seq || fn == kprv_seq_far;
}

static bool kprv_refused_site(const struct kprv_site *s)
{
	unsigned long lrsc = (unsigned long)kprv_lrsc;

	if (s->fn == kprv_refused || (s->fn == kprv_custom && !s->off))
		return true;
	/* LR, the instruction after it and SC: offsets 0, 4, 8. */
	return (unsigned long)s->fn == lrsc && s->off <= 8;
}

static unsigned long kprv_addr(const struct kprv_site *s)
{
	return (unsigned long)s->fn + s->off;
}

/* ---------------------------------------------------------------------------
 * What each site becomes
 * ---------------------------------------------------------------------------
 */
static void kprv_test_sites(struct kunit *test)
{
	const struct kprv_site *s;
	int n = 0;

	for (s = kprv_sites; s < kprv_sites_end; s++, n++) {
		unsigned long addr = kprv_addr(s);
		struct kprv_probe *k = kprv_new(test, addr, true);
		struct arch_specific_insn asi;
		kprobe_opcode_t opcode = 0;
		u32 flags;
		int ret;

		ret = kprv_reg(test, k);
		if (kprv_refused_site(s)) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%ps+%u", s->fn, s->off);
			continue;
		}
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%ps+%u", s->fn, s->off);
		KUNIT_ASSERT_TRUE(test, kprv_site_state(addr, &asi, &flags,
							&opcode));
		if (s->kind == KPRV_SIM) {
			KUNIT_EXPECT_NOT_NULL_MSG(test, asi.simulate, "%ps+%u",
						  s->fn, s->off);
			KUNIT_EXPECT_NULL(test, asi.slot);
		} else {
			KUNIT_EXPECT_NULL_MSG(test, asi.simulate, "%ps+%u",
					      s->fn, s->off);
			KUNIT_EXPECT_NOT_NULL(test, asi.slot);
		}
		KUNIT_EXPECT_EQ(test, asi.len, (asi.insn & 3) == 3 ? 4 : 2);
		KUNIT_EXPECT_EQ_MSG(test, asi.bp_len,
				    asi.len == 4 && !(addr & 3) ? 4 : 2,
				    "%ps+%u", s->fn, s->off);
		KUNIT_EXPECT_EQ(test, opcode, (u16)asi.insn);
		/* The breakpoint is in the text. */
		if (asi.bp_len == 4)
			KUNIT_EXPECT_EQ(test, *(u32 *)addr, 0x00100073U);
		else
			KUNIT_EXPECT_EQ(test, *(u16 *)addr, 0x9002U);
		kprv_unreg(test, k);
		KUNIT_EXPECT_EQ(test, *(u16 *)addr, (u16)asi.insn);
	}
	KUNIT_EXPECT_GT(test, n, 20);
}

/* Not instruction boundaries. */
static void kprv_test_boundaries(struct kunit *test)
{
	unsigned long seq = (unsigned long)kprv_seq;

	/* The middle of the 32-bit ADDIs at +4 and +10, odd addresses. */
	KUNIT_EXPECT_EQ(test, kprv_try(seq + 6), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kprv_try(seq + 12), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kprv_try(seq + 1), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kprv_try(seq + 3), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kprv_try(seq + 4), 0);
	KUNIT_EXPECT_EQ(test, kprv_try(seq + 10), 0);
}

/* ---------------------------------------------------------------------------
 * Hits
 * ---------------------------------------------------------------------------
 */

/* Every site of kprv_seq, alone, stepped then boosted. */
static void kprv_test_seq_each(struct kunit *test)
{
	const struct kprv_site *s;
	unsigned long irqflags;
	bool masked;
	long ret;
	u32 op;
	int i;

	for (s = kprv_sites; s < kprv_sites_end; s++) {
		unsigned long addr = kprv_addr(s);
		struct kprv_probe *k;
		struct arch_specific_insn asi;
		u32 flags;

		if (!kprv_is_seq(s->fn))
			continue;

		k = kprv_new(test, addr, true);
		KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
		/*
		 * Stepped through the trampoline, no EBREAK: AUIPC+JALR (t1 is
		 * dead), or a JAL if the slot is within 1 MiB of it.
		 */
		KUNIT_ASSERT_TRUE(test, kprv_site_state(addr, &asi, &flags, NULL));
		if (s->kind == KPRV_SLOT) {
			op = kprv_step_end(&asi) & 0x7f;
			KUNIT_EXPECT_TRUE_MSG(test, op == RVG_OPCODE_AUIPC ||
					      op == RVG_OPCODE_JAL, "%ps+%u",
					      s->fn, s->off);
		}
		for (i = 0; i < KPRV_CALLS; i++)
			KUNIT_EXPECT_EQ(test, kprv_call2(s->fn, i, 0), i + 15);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k->pre), KPRV_CALLS,
				    "%ps+%u", s->fn, s->off);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPRV_CALLS);
		KUNIT_EXPECT_EQ(test, k->seen_ip, addr);
		KUNIT_EXPECT_TRUE(test, k->seen_status & SR_PIE);
		KUNIT_EXPECT_EQ(test, k->kp.nmissed, 0);
		/* The caller's interrupt state, in the handler and after. */
		local_irq_save(irqflags);
		ret = kprv_call2(s->fn, 1, 0);
		masked = irqs_disabled();
		local_irq_restore(irqflags);
		KUNIT_EXPECT_EQ(test, ret, 16);
		KUNIT_EXPECT_TRUE(test, masked);
		KUNIT_EXPECT_FALSE(test, k->seen_status & SR_PIE);
		KUNIT_EXPECT_FALSE(test, irqs_disabled());
		KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPRV_CALLS + 1);
		kprv_unreg(test, k);

		/* Without a post handler: boosted (t1 is dead). */
		k = kprv_new(test, addr, false);
		KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
		KUNIT_ASSERT_TRUE(test, kprv_site_state(addr, &asi, &flags, NULL));
		if (s->kind == KPRV_SLOT)
			KUNIT_EXPECT_TRUE_MSG(test, asi.boostable, "%ps+%u",
					      s->fn, s->off);
		for (i = 0; i < KPRV_CALLS; i++)
			KUNIT_EXPECT_EQ(test, kprv_call2(s->fn, i, 0), i + 15);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k->pre), KPRV_CALLS,
				    "%ps+%u", s->fn, s->off);
		kprv_unreg(test, k);
		KUNIT_EXPECT_EQ(test, kprv_call2(s->fn, 1, 0), 16);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPRV_CALLS);
	}
}

/* Every site of a function at once: decoding goes through the breakpoints. */
static void kprv_seq_all(struct kunit *test, void *fn)
{
	struct kprv_probe *k[8];
	const struct kprv_site *s;
	int n = 0, i, j;

	for (s = kprv_sites; s < kprv_sites_end && n < ARRAY_SIZE(k); s++) {
		if (s->fn != fn)
			continue;
		k[n] = kprv_new(test, kprv_addr(s), n & 1);
		KUNIT_ASSERT_EQ(test, kprv_reg(test, k[n]), 0);
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, 7);
	for (i = 0; i < KPRV_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kprv_call2(fn, -i, 0), 15 - i);
	for (j = 0; j < n; j++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[j]->pre), KPRV_CALLS,
				    "site %d", j);
		KUNIT_EXPECT_EQ(test, atomic_read(&k[j]->post),
				j & 1 ? KPRV_CALLS : 0);
		kprv_unreg(test, k[j]);
	}
}

static void kprv_test_seq_all(struct kunit *test)
{
	kprv_seq_all(test, kprv_seq);
	kprv_seq_all(test, kprv_seq_far);
}

/* Branches, taken and not, 32-bit and compressed. */
static void kprv_test_branches(struct kunit *test)
{
	static const long args[][2] = {
		{ 1, 1 }, { 1, 2 }, { 2, 1 }, { -1, 1 }, { 1, -1 }, { 0, 0 },
	};
	/* In the order of the switch below. */
	static void *const br[] = {
		kprv_beq, kprv_bne, kprv_blt, kprv_bge, kprv_bltu, kprv_bgeu,
		kprv_c_beqz, kprv_c_bnez,
	};
	const struct kprv_site *s;
	unsigned long seen = 0;

	for (s = kprv_sites; s < kprv_sites_end; s++) {
		unsigned long addr = kprv_addr(s);
		struct kprv_probe *k;
		int b, i, calls = 0;

		for (b = 0; b < ARRAY_SIZE(br); b++) {
			if (br[b] == s->fn)
				break;
		}
		if (b == ARRAY_SIZE(br))
			continue;
		seen |= BIT(b);

		k = kprv_new(test, addr, true);
		KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
		for (i = 0; i < ARRAY_SIZE(args); i++) {
			long x = args[i][0], y = args[i][1];
			bool taken;

			switch (b) {
			case 0:
				taken = x == y;
				break;
			case 1:
				taken = x != y;
				break;
			case 2:
				taken = x < y;
				break;
			case 3:
				taken = x >= y;
				break;
			case 4:
				taken = (unsigned long)x < (unsigned long)y;
				break;
			case 5:
				taken = (unsigned long)x >= (unsigned long)y;
				break;
			case 6:
				taken = !x;
				break;
			default:
				taken = x;
				break;
			}
			KUNIT_EXPECT_EQ_MSG(test, kprv_call2(s->fn, x, y),
					    taken ? 1 : 2, "%ps(%ld, %ld)",
					    s->fn, x, y);
			calls++;
		}
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k->pre), calls, "%ps",
				    s->fn);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->post), calls);
		kprv_unreg(test, k);
	}
	/* Every branch has a site in the table. */
	KUNIT_EXPECT_EQ(test, seen, GENMASK(ARRAY_SIZE(br) - 1, 0));
}

/* Jumps, calls, returns and AUIPC, simulated. */
static void kprv_test_jumps(struct kunit *test)
{
	static const struct {
		void *fn;
		long delta;
	} fns[] = {
		{ kprv_add5, 5 }, { kprv_c_j, 1 }, { kprv_j, 1 },
		{ kprv_call, 5 },
	};
	const struct kprv_site *s;
	unsigned long seen = 0;
	int f, i;

	for (s = kprv_sites; s < kprv_sites_end; s++) {
		unsigned long addr = kprv_addr(s);
		struct kprv_probe *k;

		for (f = 0; f < ARRAY_SIZE(fns); f++) {
			if (fns[f].fn == s->fn)
				break;
		}
		if (f == ARRAY_SIZE(fns))
			continue;
		seen |= BIT(f);

		k = kprv_new(test, addr, true);
		KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
		for (i = 0; i < KPRV_CALLS; i++)
			KUNIT_EXPECT_EQ_MSG(test, kprv_call2(s->fn, i, 0),
					    i + fns[f].delta, "%ps+%u", s->fn,
					    s->off);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k->pre), KPRV_CALLS,
				    "%ps+%u", s->fn, s->off);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPRV_CALLS);
		kprv_unreg(test, k);
	}
	/* Every function has a site in the table. */
	KUNIT_EXPECT_EQ(test, seen, GENMASK(ARRAY_SIZE(fns) - 1, 0));
}

static void kprv_test_auipc(struct kunit *test)
{
	unsigned long fn = (unsigned long)kprv_auipc;
	struct kprv_probe *k = kprv_new(test, fn + 4, true);
	int i;

	KUNIT_ASSERT_EQ(test, kprv_call2(kprv_auipc, 0, 0), fn + 4096);
	KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
	for (i = 0; i < KPRV_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kprv_call2(kprv_auipc, i, 0), fn + 4096 + i);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPRV_CALLS);
	kprv_unreg(test, k);
}

/* A probe after the SC of an LR/SC loop; none inside. */
static void kprv_test_lrsc(struct kunit *test)
{
	unsigned long fn = (unsigned long)kprv_lrsc;
	struct kprv_probe *k = kprv_new(test, fn + 12, true);
	u32 v = 40;
	int i;

	KUNIT_EXPECT_EQ(test, kprv_try(fn), -EINVAL);
	KUNIT_EXPECT_EQ(test, kprv_try(fn + 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, kprv_try(fn + 8), -EINVAL);
	KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
	for (i = 0; i < KPRV_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kprv_call2(kprv_lrsc, (long)&v, 0), 40 + i);
	KUNIT_EXPECT_EQ(test, v, 40 + KPRV_CALLS);
	/* The SC may fail spuriously and loop: at least one hit a call. */
	KUNIT_EXPECT_GE(test, atomic_read(&k->pre), KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), atomic_read(&k->post));
	kprv_unreg(test, k);
}

/* ---------------------------------------------------------------------------
 * A fault of the stepped copy
 * ---------------------------------------------------------------------------
 */
static void kprv_vfree_action(void *p)
{
	vfree(p);
}

/* A page holding @val, freed with the test; *@bad is its guard page. */
static long *kprv_guarded(struct kunit *test, long val, const long **bad)
{
	long *buf = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kprv_vfree_action,
							buf), 0);
	*bad = (const long *)((char *)buf + PAGE_SIZE);
	buf[0] = val;
	return buf;
}

static void kprv_test_fault_in_insn(struct kunit *test)
{
	unsigned long addr = (unsigned long)kprv_load + 4;
	struct kprv_probe *k = kprv_new(test, addr, true);
	struct arch_specific_insn asi;
	const long *bad;
	long *buf = kprv_guarded(test, 4242, &bad);
	u32 flags;
	int i;

	KUNIT_ASSERT_EQ(test, kprv_call2(kprv_load, (long)bad, 0), -EFAULT);

	KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
	KUNIT_ASSERT_TRUE(test, kprv_site_state(addr, &asi, &flags, NULL));
	KUNIT_EXPECT_FALSE(test, asi.boostable);
	KUNIT_EXPECT_EQ(test, kprv_call2(kprv_load, (long)buf, 0), 4242);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	for (i = 1; i <= KPRV_CALLS; i++) {
		KUNIT_EXPECT_EQ(test, kprv_call2(kprv_load, (long)bad, 0), -EFAULT);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 1 + i);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), i);
		KUNIT_EXPECT_EQ(test, k->last_trapnr, EXC_LOAD_PAGE_FAULT);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	KUNIT_EXPECT_EQ(test, kprv_call2(kprv_load, (long)buf, 0), 4242);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 2);
	kprv_unreg(test, k);
	KUNIT_EXPECT_EQ(test, kprv_call2(kprv_load, (long)bad, 0), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), KPRV_CALLS);
}

/*
 * The fault handler of a stepped copy's fault loads through the same site:
 * the step is over by then, so the hit is a miss whose instruction is
 * stepped, not an unrecoverable reentry.
 */
static void kprv_test_fault_handler_reenters(struct kunit *test)
{
	unsigned long addr = (unsigned long)kprv_load + 4;
	struct kprv_probe *k = kprv_new(test, addr, true);
	const long *bad;
	long *buf = kprv_guarded(test, 4343, &bad);
	int i;

	k->good = buf;
	k->kp.fault_handler = kprv_fault_load;
	KUNIT_ASSERT_EQ(test, kprv_reg(test, k), 0);
	for (i = 1; i <= KPRV_CALLS; i++) {
		k->loaded = 0;
		KUNIT_EXPECT_EQ(test, kprv_call2(kprv_load, (long)bad, 0), -EFAULT);
		KUNIT_EXPECT_EQ(test, k->loaded, 4343);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), i);
		KUNIT_EXPECT_EQ(test, k->kp.nmissed, i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 0);
	KUNIT_EXPECT_EQ(test, kprv_call2(kprv_load, (long)buf, 0), 4343);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	kprv_unreg(test, k);
}

/* ---------------------------------------------------------------------------
 * Jump optimization
 * ---------------------------------------------------------------------------
 */
#ifdef CONFIG_OPTPROBES
static bool kprv_is_optimized(unsigned long addr)
{
	struct arch_specific_insn asi;
	u32 flags = 0;

	wait_for_kprobe_optimizer();
	return kprv_site_state(addr, &asi, &flags, NULL) &&
	       (flags & KPROBE_FLAG_OPTIMIZED);
}

static void kprv_calls_opt(struct kunit *test, void *fn, long delta)
{
	int i;

	for (i = 0; i < KPRV_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kprv_call2(fn, i, 0), i + delta);
}

/* The jump at @addr: JAL (0x6f) or AUIPC (0x17), as the first parcel says. */
static unsigned int kprv_jump_opcode(unsigned long addr)
{
	return READ_ONCE(*(u16 *)addr) & 0x7f;
}

static void kprv_optimized(struct kunit *test, void *fn, bool far)
{
	unsigned long addr = (unsigned long)fn;
	struct kprv_probe *p = kprv_new(test, addr, false);
	struct kprv_probe *q = kprv_new(test, addr, true);
	struct kprv_probe *in = kprv_new(test, addr + 4, false);
	unsigned int op;

	KUNIT_ASSERT_EQ(test, sysctl_kprobes_optimization, 1);
	KUNIT_ASSERT_EQ(test, kprv_reg(test, p), 0);
	KUNIT_ASSERT_TRUE(test, kprv_is_optimized(addr));
	/* The breakpoint's place holds a jump now. */
	op = kprv_jump_opcode(addr);
	kunit_info(test, "%ps: %s\n", fn, op == 0x6f ? "JAL" : "AUIPC+JALR");
	if (far)
		KUNIT_EXPECT_EQ(test, op, 0x17);
	else
		KUNIT_EXPECT_TRUE(test, op == 0x17 || op == 0x6f);
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, p->seen_ip, addr);

	/* A post handler at the same address: back to a breakpoint. */
	KUNIT_ASSERT_EQ(test, kprv_reg(test, q), 0);
	KUNIT_EXPECT_FALSE(test, kprv_is_optimized(addr));
	KUNIT_EXPECT_EQ(test, *(u32 *)addr, 0x00100073U);
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 2 * KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->post), KPRV_CALLS);
	kprv_unreg(test, q);
	KUNIT_EXPECT_TRUE(test, kprv_is_optimized(addr));
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 3 * KPRV_CALLS);

	/*
	 * A probe on the second instruction, which AUIPC+JALR displaces
	 * (then the first site goes back to a breakpoint) and JAL does not.
	 */
	KUNIT_ASSERT_EQ(test, kprv_reg(test, in), 0);
	KUNIT_EXPECT_EQ(test, kprv_is_optimized(addr), op == 0x6f);
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 4 * KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&in->pre), KPRV_CALLS);
	kprv_unreg(test, in);
	KUNIT_EXPECT_TRUE(test, kprv_is_optimized(addr));
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 5 * KPRV_CALLS);

	/* A handler that redirects: out of the detour through its EBREAK. */
	p->redirect = kprv_add5;
	kprv_calls_opt(test, fn, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 6 * KPRV_CALLS);
	p->redirect = NULL;

	/* Disabled, enabled. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_EQ(test, *(u32 *)addr, 0x00150513U);
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 6 * KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p->kp), 0);
	KUNIT_EXPECT_TRUE(test, kprv_is_optimized(addr));
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 7 * KPRV_CALLS);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0);
	kprv_unreg(test, p);
	kprv_calls_opt(test, fn, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 7 * KPRV_CALLS);
	/* The original instructions are back. */
	KUNIT_EXPECT_EQ(test, *(u32 *)addr, 0x00150513U);
	KUNIT_EXPECT_EQ(test, *(u32 *)(addr + 4), 0x00250513U);
}

static void kprv_test_optimized(struct kunit *test)
{
	kprv_optimized(test, kprv_opt, false);
}

static void kprv_test_optimized_far(struct kunit *test)
{
	kprv_optimized(test, kprv_opt_far, true);
}

static int kprv_pre_a1(struct kprobe *p, struct pt_regs *regs)
{
	struct kprv_probe *k = to_kprv(p);

	WRITE_ONCE(k->seen_a1, regs->a1);
	atomic_inc(&k->pre);
	return 0;
}

/*
 * The register a far jump goes through shows the jump's address to the
 * handlers.  kprv_opt_args_far ignores its second argument: a1 and a5 are
 * both dead at its entry, and the jump takes a5, so that a handler reads
 * the argument that was passed.
 */
static void kprv_test_optimized_scratch(struct kunit *test)
{
	unsigned long addr = (unsigned long)kprv_opt_args_far;
	struct kprv_probe *p = kprv_new(test, addr, false);
	int i;

	p->kp.pre_handler = kprv_pre_a1;
	KUNIT_ASSERT_EQ(test, kprv_reg(test, p), 0);
	KUNIT_ASSERT_TRUE(test, kprv_is_optimized(addr));
	KUNIT_EXPECT_EQ(test, kprv_jump_opcode(addr), 0x17);
	for (i = 1; i <= KPRV_CALLS; i++) {
		KUNIT_EXPECT_EQ(test, kprv_call2(kprv_opt_args_far, i, 1000 + i),
				i + 3);
		KUNIT_EXPECT_EQ(test, p->seen_a1, 1000 + i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), KPRV_CALLS);
	kprv_unreg(test, p);
}

/* An AUIPC among the displaced instructions. */
static void kprv_test_optimized_auipc(struct kunit *test)
{
	unsigned long fn = (unsigned long)kprv_opt_auipc;
	struct kprv_probe *p = kprv_new(test, fn, false);
	int i;

	KUNIT_ASSERT_EQ(test, kprv_call2(kprv_opt_auipc, 0, 0), fn + 16);
	KUNIT_ASSERT_EQ(test, kprv_reg(test, p), 0);
	KUNIT_EXPECT_TRUE(test, kprv_is_optimized(fn));
	for (i = 0; i < KPRV_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kprv_call2(kprv_opt_auipc, i, 0), fn + 16);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), KPRV_CALLS);
	kprv_unreg(test, p);
}
#endif /* CONFIG_OPTPROBES */

/*
 * The decoder of uprobes (riscv_probe_decode_insn()) refuses the traps:
 * ECALL, whose system call could sleep with signals held back, or not come
 * back to the XOL slot, and EBREAK.
 */
static void kprv_test_uprobe_decode(struct kunit *test)
{
	probe_opcode_t ecall = 0x00000073, ebreak = 0x00100073;
	probe_opcode_t addi = 0x00150513;	/* addi a0, a0, 1 */
	struct arch_probe_insn api;

	KUNIT_EXPECT_EQ(test, riscv_probe_decode_insn(&ecall, &api),
			INSN_REJECTED);
	KUNIT_EXPECT_EQ(test, riscv_probe_decode_insn(&ebreak, &api),
			INSN_REJECTED);
	KUNIT_EXPECT_EQ(test, riscv_probe_decode_insn(&addi, &api), INSN_GOOD);
}

/*
 * Code that runs with another trap vector, or with the MMU off, is not
 * probeable: KVM's world switch (stvec is the guest exit from its middle
 * on) and its unprivileged guest access (stvec is __kvm_riscv_unpriv_trap),
 * and the resume from a non-retentive suspend.  The core's decoder of
 * these kernels also tells ECALL apart.
 */
static void kprv_test_foreign_vector(struct kunit *test)
{
	static const char * const names[] = {
		"__kvm_riscv_switch_to", "__kvm_riscv_unpriv_trap",
		"kvm_riscv_vcpu_unpriv_read", "__cpu_resume_enter",
	};
	struct rv_insn d;
	int i;

	KUNIT_ASSERT_TRUE(test, IS_BUILTIN(CONFIG_KVM) && IS_ENABLED(CONFIG_CPU_PM));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct kprobe kp = { .symbol_name = names[i] };
		int ret = register_kprobe(&kp);

		if (!ret)
			unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s", names[i]);
	}
	rv_insn_decode(0x00000073, &d);
	KUNIT_EXPECT_EQ(test, d.kind, RV_INSN_ECALL);
}

static struct kunit_case kprv_cases[] = {
	KUNIT_CASE(kprv_test_sites),
	KUNIT_CASE(kprv_test_boundaries),
	KUNIT_CASE(kprv_test_seq_each),
	KUNIT_CASE(kprv_test_seq_all),
	KUNIT_CASE(kprv_test_branches),
	KUNIT_CASE(kprv_test_jumps),
	KUNIT_CASE(kprv_test_auipc),
	KUNIT_CASE(kprv_test_lrsc),
	KUNIT_CASE(kprv_test_uprobe_decode),
	KUNIT_CASE(kprv_test_foreign_vector),
	KUNIT_CASE(kprv_test_fault_in_insn),
	KUNIT_CASE(kprv_test_fault_handler_reenters),
#ifdef CONFIG_OPTPROBES
	KUNIT_CASE(kprv_test_optimized),
	KUNIT_CASE(kprv_test_optimized_far),
	KUNIT_CASE(kprv_test_optimized_scratch),
	KUNIT_CASE(kprv_test_optimized_auipc),
#endif
	{}
};

static struct kunit_suite kprv_suite = {
	.name = "kprobes_riscv",
	.test_cases = kprv_cases,
};

kunit_test_suite(kprv_suite);

MODULE_DESCRIPTION("KUnit suite of riscv kprobes");
MODULE_LICENSE("GPL");
