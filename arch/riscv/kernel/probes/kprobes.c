// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * riscv kprobes: breakpoint probes.
 *
 * A probe is a breakpoint over the first parcel(s) of the probed
 * instruction, written with the kernel's text patching (patch_insn_write())
 * while the other harts are stopped (__ARCH_WANT_KPROBES_STOP_MACHINE: a
 * hart fetching an instruction being replaced may see neither, and QEMU's
 * TCG may keep a translation of the old one made meanwhile), and made
 * visible to every hart once per batch (arch_kprobe_sync()).  Each write is
 * one naturally aligned store:
 *
 *   - EBREAK over a 32-bit instruction on a 4-byte boundary;
 *   - C.EBREAK over a compressed instruction, and over the first parcel of
 *     a 32-bit instruction that is only 2-byte aligned (a 32-bit EBREAK
 *     there would take two stores, and a hart could run half of each).
 *
 * Only instruction boundaries, found by decoding the function from its
 * start, may be probed (insn-analysis.c).  At a hit,
 * kprobe_breakpoint_handler() runs the pre handlers of the site, then the
 * probed instruction, in one of these ways:
 *
 *   - the site is being (or has been) jump optimized: resume in the copy
 *     of the displaced instructions in its detour, which returns after the
 *     replaced range (opt.c);
 *   - simulated on the saved registers: AUIPC, JAL, JALR, branches and
 *     their compressed forms (simulate-insn.c), and the stack adjustments
 *     of function entries and exits (simulate_sp_adjust()); then the post
 *     handlers;
 *   - boosted, when the site has no post handler: resume in a copy
 *     followed by a jump back, a single trap per hit.  The jump is a JAL
 *     when the copy is within 1 MiB of the probed code, else AUIPC+JALR
 *     through a register the liveness analysis proved dead after the
 *     probed instruction; slots come from the module area, within 2 GiB of
 *     all kernel text.  An instruction with an exception table entry is
 *     never boosted: its fault must reach kprobe_fault_handler();
 *   - stepped: resume in a copy followed by a jump to
 *     kprobe_step_trampoline (kprobes_trampoline.S), a JAL or an
 *     AUIPC+JALR through a register dead after the probed instruction as
 *     for boosting, with interrupts off; the
 *     trampoline saves the registers, kprobe_step_trampoline_handler()
 *     runs the post handlers, and an SRET resumes after the probed
 *     instruction with the probed context's interrupt state: a single trap
 *     per hit.  Without such a jump, the copy ends with an EBREAK and
 *     kprobe_single_step_handler() does the same from that trap.
 *
 * A probe hit while another one is handled on this CPU runs no handler: the
 * hit is counted as missed and the instruction is simulated, boosted or, if
 * neither is possible, stepped with the interrupted probe saved (one
 * level).  A fault of a stepped copy is moved back to the probed address,
 * where the exception table entry of the instruction, if any, is.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/entry-common.h>
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/mutex.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>
#include <asm/csr.h>
#include <asm/entry-common.h>
#include <asm/patch.h>
#include <asm/ptrace.h>
#include <asm/suspend.h>

#include "common.h"
#include "decode-insn.h"
#include "insn-analysis.h"

#define KPROBE_SLOT_BYTES	(KPROBE_INSN_SLOT_SIZE * sizeof(kprobe_opcode_t))

/* ---------------------------------------------------------------------------
 * Text and slots (kprobe_mutex held)
 * ---------------------------------------------------------------------------
 */

/**
 * riscv_kprobe_read_insn() - the original instruction at an address
 * @addr: a kernel text address on a 2-byte boundary
 * @insn: receives the instruction (upper parcel zero if compressed)
 *
 * Reads through kprobes' own changes of the text: the breakpoint of a site
 * and the jump of an optimized one.
 *
 * Context: kprobe_mutex held.
 * Return: 0, or -EFAULT if @addr cannot be read.
 */
int riscv_kprobe_read_insn(unsigned long addr, u32 *insn)
{
	u16 p[2] = { 0, 0 };
	struct kprobe *site;

	/* A static branch may be changing: one 32-bit load when aligned. */
	if (IS_ALIGNED(addr, 4) && !get_kernel_nofault(*insn, (u32 *)addr)) {
		p[0] = *insn;
		p[1] = *insn >> 16;
	} else {
		if (get_kernel_nofault(p[0], (u16 *)addr))
			return -EFAULT;
		if (rv_insn_len(p[0]) != 2 &&
		    get_kernel_nofault(p[1], (u16 *)addr + 1))
			return -EFAULT;
	}
	riscv_opt_recover(addr, (u8 *)p, sizeof(p));

	if (p[0] == RV_ENC_C_EBREAK ||
	    (p[0] | (u32)p[1] << 16) == RV_ENC_EBREAK) {
		site = get_kprobe((void *)addr);
		if (site && !kprobe_ftrace(site) && site->ainsn.len) {
			*insn = site->ainsn.insn;
			return 0;
		}
	}
	*insn = p[0];
	if (rv_insn_len(p[0]) != 2)
		*insn |= (u32)p[1] << 16;
	return 0;
}

/**
 * riscv_kprobe_write() - write instructions into a slot or detour
 * @addr: where
 * @buf: what
 * @len: how many bytes
 *
 * Context: text_mutex not held.
 * Return: 0 or -errno.
 */
int riscv_kprobe_write(void *addr, const void *buf, size_t len)
{
	int ret;

	mutex_lock(&text_mutex);
	ret = patch_text_nosync(addr, buf, len);
	mutex_unlock(&text_mutex);
	return ret;
}

#if defined(CONFIG_64BIT) && defined(CONFIG_MMU)
/*
 * A page of the module area as close below the kernel image (which ends
 * the area on 64-bit) as possible: there a JAL (+/-1 MiB) reaches the
 * start of the kernel text, without a register.
 */
static void *kprobe_alloc_near_kernel(void)
{
	unsigned long window;

	for (window = SZ_64K; window <= SZ_1M; window *= 4) {
		/* Quietly: a full window is no error, the next is tried. */
		void *page = __vmalloc_node_range(PAGE_SIZE, PAGE_SIZE,
						  MODULES_END - window,
						  MODULES_END,
						  GFP_KERNEL | __GFP_NOWARN,
						  PAGE_KERNEL, VM_FLUSH_RESET_PERMS,
						  NUMA_NO_NODE,
						  __builtin_return_address(0));
		if (page)
			return page;
	}
	return execmem_alloc(EXECMEM_MODULE_TEXT, PAGE_SIZE);
}
#else
static void *kprobe_alloc_near_kernel(void)
{
	return execmem_alloc(EXECMEM_MODULE_TEXT, PAGE_SIZE);
}
#endif

/**
 * alloc_insn_page() - an executable page for instruction slots and detours
 *
 * Taken from the module area, which is within AUIPC+JALR range (2 GiB) of
 * all kernel and module text, so that copies can jump back without a trap:
 * right below the kernel image when there is room, where JAL reaches the
 * first MiB of kernel text.  Falls back to any executable page: the copies
 * then always trap back, and no site is optimized.
 *
 * Return: a read-only executable page, or NULL.
 */
void *alloc_insn_page(void)
{
	void *page = kprobe_alloc_near_kernel();

	if (page) {
		/* Unused parcels are 0x0000, the defined illegal instruction. */
		memset(page, 0, PAGE_SIZE);
		if (!set_memory_rox((unsigned long)page, 1))
			return page;
		vfree(page);
	}
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

/*
 * A jump from @from to @to, into @buf, given the registers @scratch dead
 * there: a JAL when it reaches, else AUIPC+JALR through one of @scratch.
 * Returns its length, or 0.
 */
static int kprobe_gen_jump(unsigned long from, unsigned long to, u32 scratch,
			   u32 *buf)
{
	if (rv_jal_reaches(from, to)) {
		buf[0] = rv_gen_jal(from, to);
		return 4;
	}
	if (!scratch || !rv_auipc_jalr_reaches(from, to))
		return 0;
	rv_gen_auipc_jalr(from, to, rv_pick_scratch(scratch), buf);
	return 8;
}

/* Registers dead after the probed instruction, at @addr + @len. */
static u32 kprobe_dead_after(struct rv_fn *fn, unsigned long addr,
			     unsigned int len)
{
	if (rv_fn_liveness(fn))
		return 0;
	return rv_fn_scratch_regs(fn, rv_fn_find(fn, addr + len));
}

/* Build the slot of @p, an instruction that runs out of line. */
static int kprobe_prepare_slot(struct kprobe *p, struct rv_fn *fn)
{
	struct arch_specific_insn *asi = &p->ainsn;
	unsigned long addr = (unsigned long)p->addr;
	u8 buf[KPROBE_SLOT_BYTES] __aligned(4);
	unsigned long trampoline = (unsigned long)kprobe_step_trampoline;
	unsigned long step, boost, back = addr + asi->len;
	u32 jump[2], dead;
	kprobe_opcode_t *slot;
	int jlen, ret;

	BUILD_BUG_ON(KPROBE_SLOT_STEP * 2 + 4 + 8 > KPROBE_SLOT_BOOST * 2);
	BUILD_BUG_ON(KPROBE_SLOT_BOOST * 2 + 4 + 8 > KPROBE_SLOT_BYTES);

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;

	memset(buf, 0, sizeof(buf));
	memcpy(buf + KPROBE_SLOT_STEP * 2, &asi->insn, asi->len);
	/*
	 * The stepped copy jumps to the trampoline, else traps.  It runs with
	 * interrupts off, so nothing sees the dead register an AUIPC+JALR
	 * uses between the jump and the trampoline's save of it.
	 */
	step = (unsigned long)&slot[KPROBE_SLOT_STEP] + asi->len;
	dead = kprobe_dead_after(fn, addr, asi->len);
	jlen = kprobe_gen_jump(step, trampoline, dead, jump);
	if (!jlen) {
		jump[0] = RV_ENC_EBREAK;
		jlen = 4;
	}
	memcpy(buf + KPROBE_SLOT_STEP * 2 + asi->len, jump, jlen);

	boost = (unsigned long)&slot[KPROBE_SLOT_BOOST] + asi->len;
	jlen = 0;
	if (!search_exception_tables(addr))
		jlen = kprobe_gen_jump(boost, back, dead, jump);
	if (jlen) {
		memcpy(buf + KPROBE_SLOT_BOOST * 2, &asi->insn, asi->len);
		memcpy(buf + KPROBE_SLOT_BOOST * 2 + asi->len, jump, jlen);
	}

	ret = riscv_kprobe_write(slot, buf, sizeof(buf));
	if (ret) {
		free_insn_slot(slot, 0);
		return ret;
	}
	asi->slot = slot;
	asi->boostable = !!jlen;
	return 0;
}

#ifdef CONFIG_DYNAMIC_FTRACE
/**
 * arch_adjust_kprobe_addr() - where a probe on a function lands
 * @addr: the address asked for
 * @offset: its offset in the function
 * @on_func_entry: set when the probe is on the entry of the function
 *
 * With dynamic ftrace, a function starts with the NOPs that ftrace turns
 * into a call (AUIPC+JALR through t0), and riscv has no kprobes on ftrace:
 * a probe on the entry lands right after them, where ra, sp and the
 * arguments are still those of the entry.
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long func = addr - offset;

	*on_func_entry = !offset;
	if (ftrace_location(func) == func) {
		*on_func_entry = !offset || offset == MCOUNT_INSN_SIZE;
		if (!offset)
			addr += MCOUNT_INSN_SIZE;
	}
	return (kprobe_opcode_t *)addr;
}
#endif

/**
 * arch_prepare_kprobe() - decode a probed instruction, prepare its execution
 * @p: the site
 *
 * Return: 0; -EILSEQ if @p->addr is not an instruction boundary of its
 * function; -EINVAL if the instruction must not be probed (see
 * decode-insn.c) or lies between an LR and its SC; -ENOMEM, -EFAULT.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	struct arch_specific_insn *asi = &p->ainsn;
	struct rv_insn d;
	struct rv_fn *fn;
	int idx, ret;
	u32 raw;

	if (!IS_ALIGNED(addr, 2))
		return -EILSEQ;

	fn = rv_fn_get(addr);
	if (IS_ERR(fn))
		return PTR_ERR(fn) == -ENOMEM ? -ENOMEM : -EILSEQ;
	idx = rv_fn_find(fn, addr);
	if (idx < 0) {
		ret = -EILSEQ;
		goto out;
	}
	ret = -EINVAL;
	if (fn->insn[idx].lrsc)
		goto out;
	if (riscv_kprobe_read_insn(addr, &raw)) {
		ret = -EFAULT;
		goto out;
	}
	rv_insn_decode(raw, &d);

	memset(asi, 0, sizeof(*asi));
	asi->insn = d.insn;
	asi->len = d.len;
	/* One aligned store replaces the first parcel or the whole word. */
	asi->bp_len = d.len == 4 && IS_ALIGNED(addr, 4) ? 4 : 2;
	p->opcode = d.insn;

	switch (d.kind) {
	case RV_INSN_PLAIN:
		/* A stack adjustment: simulated, see simulate_sp_adjust(). */
		if (d.simulate) {
			asi->simulate = d.simulate;
			ret = 0;
			break;
		}
		ret = kprobe_prepare_slot(p, fn);
		break;
	case RV_INSN_AUIPC:
	case RV_INSN_BRANCH:
	case RV_INSN_JAL:
	case RV_INSN_JALR:
		asi->simulate = d.simulate;
		ret = 0;
		break;
	default:
		break;
	}
	if (ret)
		memset(asi, 0, sizeof(*asi));
out:
	rv_fn_put(fn);
	return ret;
}

/*
 * Called in stop_machine() by the task that holds text_mutex, from another
 * context: patch_insn_write() is told not to look for the lock.
 */
static void kprobe_write_insn(struct kprobe *p, const void *insn)
{
	int ret;

	riscv_patch_in_stop_machine = true;
	ret = patch_insn_write(p->addr, insn, p->ainsn.bp_len);
	riscv_patch_in_stop_machine = false;
	if (ret)
		pr_err("cannot patch %pS: %d\n", p->addr, ret);
}

/**
 * arch_arm_kprobe() - write the breakpoint of a site
 * @p: the site
 *
 * Context: stop_machine(), the other harts spinning; visible everywhere
 * after arch_kprobe_sync().
 */
void arch_arm_kprobe(struct kprobe *p)
{
	u32 bp = p->ainsn.bp_len == 4 ? RV_ENC_EBREAK : RV_ENC_C_EBREAK;

	kprobe_write_insn(p, &bp);
}

/**
 * arch_disarm_kprobe() - put back the probed instruction of a site
 * @p: the site
 *
 * Context: stop_machine(), the other harts spinning; visible everywhere
 * after arch_kprobe_sync().
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	kprobe_write_insn(p, &p->ainsn.insn);
}

/**
 * arch_kprobe_sync() - make the text written since the last call visible
 *
 * patch_insn_write() only flushed the local instruction cache: a FENCE.I
 * on every hart.
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void arch_kprobe_sync(void)
{
	flush_icache_all();
}

/**
 * arch_remove_kprobe() - free the slot of a site
 * @p: the site
 *
 * A boosted copy runs with interrupts on and may be preempted: its slot is
 * freed dirty.  A stepped copy only runs with interrupts off, between two
 * traps, which the grace period before this call covers.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (!p->ainsn.slot)
		return;
	free_insn_slot(p->ainsn.slot, p->ainsn.boostable);
	p->ainsn.slot = NULL;
}

/* ---------------------------------------------------------------------------
 * The hit path: EBREAK exception, interrupts off, no lock
 * ---------------------------------------------------------------------------
 */

static void kprobe_save_prev(struct kprobe_ctlblk *kcb)
{
	kcb->prev_kprobe.kp = kprobe_running();
	kcb->prev_kprobe.status = kcb->kprobe_status;
}

NOKPROBE_SYMBOL(kprobe_save_prev);

static void kprobe_restore_prev(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, kcb->prev_kprobe.kp);
	kcb->kprobe_status = kcb->prev_kprobe.status;
}

NOKPROBE_SYMBOL(kprobe_restore_prev);

/* Resume in the stepped copy, with interrupts off until it traps back. */
static void kprobe_step(struct kprobe *p, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb)
{
	kcb->saved_spie = regs->status & SR_PIE;
	regs->status &= ~SR_PIE;
	instruction_pointer_set(regs,
				(unsigned long)&p->ainsn.slot[KPROBE_SLOT_STEP]);
}

NOKPROBE_SYMBOL(kprobe_step);

/* The stepped copy ran or faulted: back to the probed context's mask. */
static void kprobe_step_done(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			     unsigned long pc)
{
	regs->status = (regs->status & ~SR_PIE) | kcb->saved_spie;
	instruction_pointer_set(regs, pc);
}

NOKPROBE_SYMBOL(kprobe_step_done);

/*
 * Run @p's instruction without per-CPU state, if it can be: in an
 * optimized site's detour, simulated, or boosted.  Returns false if it has
 * to be stepped.
 */
static nokprobe_inline bool kprobe_run_stateless(struct kprobe *p,
						 struct pt_regs *regs,
						 bool boost)
{
	unsigned long resume = riscv_opt_resume_addr(p);

	if (resume) {
		instruction_pointer_set(regs, resume);
		return true;
	}
	if (p->ainsn.simulate) {
		p->ainsn.simulate(p->ainsn.insn, (unsigned long)p->addr, regs);
		return true;
	}
	if (boost && p->ainsn.boostable) {
		unsigned long boost = (unsigned long)&p->ainsn.slot[KPROBE_SLOT_BOOST];

		instruction_pointer_set(regs, boost);
		return true;
	}
	return false;
}

/* @p was hit while kprobe_running(): run its instruction, no handler. */
static bool kprobe_reenter(struct kprobe *p, struct pt_regs *regs,
			   struct kprobe_ctlblk *kcb)
{
	kprobes_inc_nmissed_count(p);
	if (kprobe_run_stateless(p, regs, true))
		return true;

	switch (kcb->kprobe_status) {
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SSDONE:
		kprobe_save_prev(kcb);
		__this_cpu_write(current_kprobe, p);
		kcb->kprobe_status = KPROBE_REENTER;
		kprobe_step(p, regs, kcb);
		return true;
	default:
		/*
		 * Hit while a copy was stepped: only an exception taken by
		 * the copy gets here, and the state of the copy would be lost.
		 */
		pr_err("unrecoverable reentry at %pS while stepping %pS\n",
		       p->addr, kprobe_running()->addr);
		return false;
	}
}

NOKPROBE_SYMBOL(kprobe_reenter);

/*
 * The probed instruction of @p, after its pre handlers did not redirect.
 * Inlined: it is most of a hit's work on this side of the trap.
 */
static nokprobe_inline void kprobe_run_insn(struct kprobe *p,
					    struct pt_regs *regs,
					    struct kprobe_ctlblk *kcb)
{
	if (p->ainsn.simulate && !riscv_opt_resume_addr(p)) {
		kprobe_run_stateless(p, regs, false);
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		if (READ_ONCE(p->post_handler))
			kprobe_call_post_handlers(p, regs);
		reset_current_kprobe();
	} else if (kprobe_run_stateless(p, regs, !READ_ONCE(p->post_handler))) {
		reset_current_kprobe();
	} else {
		kcb->kprobe_status = KPROBE_HIT_SS;
		kprobe_step(p, regs, kcb);
	}
}

/*
 * No site at @addr: if the breakpoint is not there any more, it was removed
 * while this hart was on its way to it (or its instruction cache is
 * stale): resume on the restored instruction.  Otherwise the EBREAK is
 * not kprobes' (BUG(), WARN(), kgdb).
 */
static bool kprobe_bp_gone(unsigned long addr)
{
	u16 p0 = READ_ONCE(*(u16 *)addr);

	if (p0 == RV_ENC_C_EBREAK)
		return false;
	if (p0 == (RV_ENC_EBREAK & 0xffff) &&
	    READ_ONCE(*((u16 *)addr + 1)) == RV_ENC_EBREAK >> 16)
		return false;
	local_flush_icache_all();
	return true;
}

NOKPROBE_SYMBOL(kprobe_bp_gone);

/**
 * kprobe_breakpoint_handler() - an EBREAK or C.EBREAK was hit in the kernel
 * @regs: the registers at the EBREAK
 *
 * Return: true if it was a probe's breakpoint, now handled.
 */
bool kprobe_breakpoint_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned long addr = instruction_pointer(regs);
	struct kprobe *p;

	p = get_kprobe((kprobe_opcode_t *)addr);
	if (!p) {
		switch (jprobe_break(regs, addr)) {
		case JPROBE_BREAK_RESUMED:
			return true;
		case JPROBE_BREAK_STRAY:
			/* A 32-bit EBREAK, see kprobes_trampoline.S. */
			instruction_pointer_set(regs, addr + 4);
			return true;
		default:
			return kprobe_bp_gone(addr);
		}
	}
	if (kprobe_running())
		return kprobe_reenter(p, regs, kcb);

	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (kprobe_call_pre_handlers(p, regs)) {
		/* A handler moved the PC: the instruction is not run. */
		reset_current_kprobe();
		return true;
	}
	kprobe_run_insn(p, regs, kcb);
	return true;
}

NOKPROBE_SYMBOL(kprobe_breakpoint_handler);

#ifdef CONFIG_JPROBES
/*
 * The handler is entered as the probed function was, arguments in a0-a7 and
 * on the stack untouched, returning to __jprobe_guard.  The probed entry may
 * be a compressed instruction: the hit path steps or simulates it at resume
 * as for any probe.
 */
void arch_jprobe_redirect(struct jprobe *jp, struct pt_regs *regs)
{
	regs->ra = (unsigned long)__jprobe_guard;
	instruction_pointer_set(regs, (unsigned long)jp->entry);
}

NOKPROBE_SYMBOL(arch_jprobe_redirect);

/* The GPRs and the PC; the CSRs are the EBREAK frame's own. */
void arch_jprobe_restore_regs(struct pt_regs *regs, const struct pt_regs *saved)
{
	memcpy(regs, saved, offsetof(struct pt_regs, status));
}

NOKPROBE_SYMBOL(arch_jprobe_restore_regs);

void arch_jprobe_resume(struct kprobe *site, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	__this_cpu_write(current_kprobe, site);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	kprobe_run_insn(site, regs, kcb);
}

NOKPROBE_SYMBOL(arch_jprobe_resume);
#endif

static bool kprobe_in_step(struct kprobe *p, struct pt_regs *regs,
			   struct kprobe_ctlblk *kcb, unsigned long off)
{
	return p && p->ainsn.slot &&
	       (kcb->kprobe_status == KPROBE_HIT_SS ||
		kcb->kprobe_status == KPROBE_REENTER) &&
	       instruction_pointer(regs) ==
			(unsigned long)&p->ainsn.slot[KPROBE_SLOT_STEP] + off;
}

NOKPROBE_SYMBOL(kprobe_in_step);

/* After the stepped copy of the running probe: the end of a step. */
static nokprobe_inline void kprobe_step_finish(struct kprobe *cur,
					       struct pt_regs *regs,
					       struct kprobe_ctlblk *kcb)
{
	kprobe_step_done(regs, kcb, (unsigned long)cur->addr + cur->ainsn.len);
	if (kcb->kprobe_status == KPROBE_REENTER) {
		kprobe_restore_prev(kcb);
		return;
	}

	kcb->kprobe_status = KPROBE_HIT_SSDONE;
	if (READ_ONCE(cur->post_handler))
		kprobe_call_post_handlers(cur, regs);
	reset_current_kprobe();
}

/**
 * kprobe_step_trampoline_handler() - a stepped copy jumped back
 * @regs: the registers after the copy, status as a trap there would save it
 *	(interrupts were off)
 *
 * Called by kprobe_step_trampoline with interrupts off since the EBREAK of
 * the hit: the probe whose copy ran is still kprobe_running().  Finishes
 * the step as kprobe_single_step_handler() does, in the context the trap
 * of an EBREAK would give the post handlers: an NMI's (irqentry_nmi_enter():
 * lockdep, RCU, preemption), user memory and the FPU and vector units off
 * (as the trap entry leaves them, and restores them on return).  The
 * trampoline then resumes as @regs say.
 */
void kprobe_step_trampoline_handler(struct pt_regs *regs)
{
	unsigned long user = csr_read_clear(CSR_STATUS, SR_SUM | SR_FS_VS);
	irqentry_state_t state = irqentry_nmi_enter(regs);

	kprobe_step_finish(kprobe_running(), regs, get_kprobe_ctlblk());

	irqentry_nmi_exit(regs, state);
	csr_set(CSR_STATUS, user & (SR_SUM | SR_FS_VS));
}

NOKPROBE_SYMBOL(kprobe_step_trampoline_handler);

/*
 * An EBREAK while @cur runs on this CPU: the end of its step, or the exit of
 * a detour.  Out of line, so that the EBREAK of a hit, when nothing runs,
 * does not pay for this one's registers.
 */
static noinline bool kprobe_single_step_running(struct kprobe *cur,
						struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (!kprobe_in_step(cur, regs, kcb, cur->ainsn.len))
		return riscv_opt_exit_handler(regs);

	kprobe_step_finish(cur, regs, kcb);
	return true;
}

NOKPROBE_SYMBOL(kprobe_single_step_running);

/**
 * kprobe_single_step_handler() - the EBREAK after a stepped copy, or at the
 *	exit of a detour, was hit
 * @regs: the registers at the EBREAK
 *
 * Return: true if the EBREAK was kprobes', now handled.
 */
bool kprobe_single_step_handler(struct pt_regs *regs)
{
	struct kprobe *cur = kprobe_running();

	/* The EBREAK of a hit, most often: nothing runs on this CPU. */
	if (!cur)
		return riscv_opt_exit_handler(regs);
	return kprobe_single_step_running(cur, regs);
}

NOKPROBE_SYMBOL(kprobe_single_step_handler);

/**
 * kprobe_fault_handler() - a page fault while a probe runs on this CPU
 * @regs: the registers at the fault
 * @trapnr: the exception cause
 *
 * Called from handle_page_fault().  A fault of a stepped copy is moved back
 * to the probed address with the probed context's interrupt state, as if
 * the original instruction had faulted, and offered to the site's fault
 * handlers; the kernel then handles it there (the exception table entry of
 * the instruction applies).  A fault in a handler goes to that handler's
 * probe.
 *
 * Return: 1 if a fault handler fixed the fault, 0 to let the kernel handle it.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	int ret = 0;

	if (!cur)
		return 0;

	switch (kcb->kprobe_status) {
	case KPROBE_HIT_SS:
	case KPROBE_REENTER:
		if (!kprobe_in_step(cur, regs, kcb, 0))
			return 0;
		kprobe_step_done(regs, kcb, (unsigned long)cur->addr);
		if (kcb->kprobe_status == KPROBE_REENTER) {
			kprobe_restore_prev(kcb);
		} else {
			/*
			 * The step is over: a probe the fault handlers hit
			 * is a miss, stepped as from any handler.
			 */
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			ret = kprobe_call_fault_handlers(cur, regs, trapnr);
			reset_current_kprobe();
		}
		return ret;
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SSDONE:
		return kprobe_call_fault_handlers(cur, regs, trapnr);
	default:
		return 0;
	}
}

NOKPROBE_SYMBOL(kprobe_fault_handler);

/* ---------------------------------------------------------------------------
 * kretprobes
 * ---------------------------------------------------------------------------
 */

/**
 * arch_prepare_kretprobe() - hijack the return of a function at its entry
 * @ri: the instance
 * @regs: the registers at the entry of the function
 *
 * The return address is in ra.  The frame is identified by the stack
 * pointer at the entry, which is also the frame pointer the function sets
 * up, and the stack pointer when it returns into __kretprobe_trampoline:
 * the trampoline passes it back, and the unwinder reads it as the frame
 * pointer of a frame record whose return address is the trampoline.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ri->ret_addr = (kprobe_opcode_t *)regs->ra;
	ri->fp = (void *)regs->sp;
	regs->ra = (unsigned long)kretprobe_trampoline_addr();
}

NOKPROBE_SYMBOL(arch_prepare_kretprobe);

/**
 * arch_populate_kprobe_blacklist() - riscv code that must never be probed
 *
 * The trap entry and traps.c are noinstr or NOKPROBE_SYMBOL() already.
 * What is left:
 *
 *   - what runs when the copy of a probed instruction, stepped with the
 *     probe's state on this CPU, traps: the page fault handler before it
 *     calls kprobe_page_fault(), and the emulation of misaligned accesses.
 *     A probe hit there would find the state of the stepped copy;
 *   - what runs with the MMU off, where an EBREAK has no trap vector to go
 *     to: the resume from a non-retentive suspend, and hibernation's
 *     restore code, copied to a safe page with its breakpoints.
 *
 * (KVM's world switch, which runs with the guest's exit as trap vector, is
 * marked in KVM itself: it may be a module.)
 *
 * Return: 0 or -errno.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	static const unsigned long fns[] __initconst = {
#ifdef CONFIG_MMU
		(unsigned long)handle_page_fault,
#endif
#ifdef CONFIG_RISCV_MISALIGNED
		(unsigned long)handle_misaligned_load,
		(unsigned long)handle_misaligned_store,
#endif
#ifdef CONFIG_CPU_PM
		(unsigned long)__cpu_resume_enter,
#endif
#ifdef CONFIG_HIBERNATION
		(unsigned long)__hibernate_cpu_resume,
		(unsigned long)hibernate_restore_image,
		(unsigned long)hibernate_core_restore_code,
#endif
	};
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		ret = kprobe_add_ksym_blacklist(fns[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * arch_init_kprobes() - nothing to set up: traps.c calls the EBREAK
 *	handlers directly
 *
 * Return: 0.
 */
int __init arch_init_kprobes(void)
{
	return 0;
}
