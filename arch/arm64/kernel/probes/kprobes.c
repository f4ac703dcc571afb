// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: breakpoint probes.
 *
 * A probe is a BRK #KPROBES_BRK_IMM over the probed instruction.  The
 * architecture lets one CPU modify an instruction that another one executes
 * only when both the old and the new instruction are among B, BL, BRK, NOP,
 * ISB, SVC, HVC and SMC; anything else may run as neither.  So the core
 * writes the BRKs of a batch with the other CPUs stopped
 * (__ARCH_WANT_KPROBES_STOP_MACHINE), with aarch64_insn_patch_text_nosync();
 * only the optimizer swaps a BRK and a B while CPUs run (opt.c).  Emulators
 * need it as much: QEMU's TCG may keep a translation of the old instruction
 * made while it was being written.  At a hit, kprobe_brk_handler() runs the
 * pre handlers, then the probed instruction, in one of three ways:
 *
 *   - simulated on the saved registers (PC-relative instructions, branches,
 *     NOPs, DAIF accesses: see decode-insn.c), then the post handlers run;
 *   - boosted, when the site has no post handler: the exception returns to
 *     a copy of the instruction followed by a branch back to the probed
 *     code, a single trap per hit;
 *   - stepped: the exception returns to a copy followed by a branch to
 *     kprobe_step_trampoline (kprobes_trampoline.S), with PSTATE.{D,A,I,F}
 *     set so that nothing runs on this CPU in between; the trampoline saves
 *     the registers, kprobe_step_trampoline_handler() restores the mask and
 *     runs the post handlers, and an ERET resumes after the probed
 *     instruction: a single trap per hit.  Where the branch does not
 *     reach, the instruction writes a PSTATE field that the ERET would
 *     undo, or the kernel uses pseudo-NMIs or software PAN (see
 *     kprobe_step_end()), the copy ends with BRK #KPROBES_BRK_SS_IMM
 *     instead, and kprobe_ss_brk_handler() does the same from that trap.
 *
 * A probe hit while another one is handled on this CPU (a handler calls
 * probed code) runs no handler: the hit is counted as missed, and the
 * instruction is simulated or boosted, which needs no per-CPU state; only a
 * copy that cannot be boosted is stepped, saving the interrupted probe
 * (one level).  A fault of a stepped copy is moved back to the probed
 * address, where the exception table entry of the instruction, if any, is.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/context_tracking_irq.h>
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/kprobes.h>
#include <linux/sched/debug.h>
#include <linux/set_memory.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/cacheflush.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>
#include <asm/sections.h>

#include "common.h"
#include "decode-insn.h"

#define KPROBE_PSR_NZCV	(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)

/* ---------------------------------------------------------------------------
 * Slots and preparation (kprobe_mutex held)
 * ---------------------------------------------------------------------------
 */

/**
 * alloc_insn_page() - an executable page for instruction slots
 *
 * Taken from the module region, which is within branch range of the kernel
 * text when the layout allows it, so that copies can branch back.  Falls
 * back to any executable page: the copies are then stepped, never boosted.
 *
 * Return: a read-only executable page, or NULL.
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_MODULE_TEXT, PAGE_SIZE);

	if (page) {
		/* The unused slots fault if ever executed. */
		memset32(page, cpu_to_le32(AARCH64_BREAK_FAULT),
			 PAGE_SIZE / AARCH64_INSN_SIZE);
		if (!set_memory_rox((unsigned long)page, 1))
			return page;
		execmem_free(page);
	}
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

/*
 * Whether the copy at @slot can jump back to the instruction after @addr.
 * Not when the instruction has an exception table entry: its fault must be
 * seen by kprobe_fault_handler(), which needs the probe still running.
 */
static bool kprobe_can_boost(unsigned long addr, kprobe_opcode_t *slot)
{
	unsigned long from = (unsigned long)&slot[KPROBE_SLOT_BOOST + 1];

	return kprobe_b_reaches(from, addr + AARCH64_INSN_SIZE) &&
	       !search_exception_tables(addr);
}

/*
 * The end of the stepped copy: a branch to kprobe_step_trampoline when it
 * reaches it and the exception return there can restore PSTATE: that return
 * rebuilds PSTATE from the copy's (kcb->step_pstate) but for the condition
 * flags, which an MSR to a PSTATE field (PAN, SSBS, DIT...) would defeat.
 * Else a BRK, whose exception keeps all of PSTATE.  The BRK too where an
 * exception entry does more than the trampoline: with pseudo-NMIs (the
 * PMR, which irqs_disabled() reads, is raised) and with software PAN
 * (TTBR0 is switched, and kept in a PSTATE bit that an ERET must not see).
 */
static u32 kprobe_step_end(u32 insn, kprobe_opcode_t *slot)
{
	unsigned long from = (unsigned long)&slot[KPROBE_SLOT_STEP + 1];
	unsigned long to = (unsigned long)kprobe_step_trampoline;

	if (aarch64_insn_is_msr_imm(insn) || aarch64_insn_is_msr_reg(insn) ||
	    !kprobe_b_reaches(from, to) || system_uses_irq_prio_masking() ||
	    system_uses_ttbr0_pan())
		return BRK64_OPCODE_KPROBES_SS;
	return aarch64_insn_gen_branch_imm(from, to, AARCH64_INSN_BRANCH_NOLINK);
}

/**
 * arch_prepare_kprobe() - decode a probed instruction, prepare its execution
 * @p: the site
 *
 * Return: 0; -EINVAL if @p->addr is not 4-byte aligned or the instruction
 * must not be probed; -ENOMEM or -EFAULT.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	struct arch_specific_insn *asi = &p->ainsn;
	__le32 copy[KPROBE_INSN_SLOT_SIZE];
	kprobe_opcode_t *slot;
	u32 insn;

	if (!IS_ALIGNED(addr, AARCH64_INSN_SIZE))
		return -EINVAL;
	if (aarch64_insn_read(p->addr, &insn))
		return -EFAULT;

	memset(asi, 0, sizeof(*asi));
	switch (arm_kprobe_decode_insn(p->addr, insn, asi)) {
	case INSN_REJECTED:
		return -EINVAL;
	case INSN_GOOD_NO_SLOT:
		p->opcode = insn;
		return 0;
	case INSN_GOOD:
		break;
	}

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;

	copy[KPROBE_SLOT_BOOST] = cpu_to_le32(insn);
	copy[KPROBE_SLOT_BOOST + 1] = cpu_to_le32(AARCH64_BREAK_FAULT);
	copy[KPROBE_SLOT_STEP] = cpu_to_le32(insn);
	copy[KPROBE_SLOT_STEP + 1] = cpu_to_le32(kprobe_step_end(insn, slot));
	if (kprobe_can_boost(addr, slot)) {
		unsigned long from = (unsigned long)&slot[KPROBE_SLOT_BOOST + 1];
		u32 b = aarch64_insn_gen_branch_imm(from, addr + AARCH64_INSN_SIZE,
						    AARCH64_INSN_BRANCH_NOLINK);

		copy[KPROBE_SLOT_BOOST + 1] = cpu_to_le32(b);
		asi->boostable = 1;
	}
	if (!aarch64_insn_copy(slot, copy, sizeof(copy))) {
		free_insn_slot(slot, 0);
		return -EFAULT;
	}

	asi->api.insn = slot;
	asi->api.restore = addr + AARCH64_INSN_SIZE;
	p->opcode = insn;
	return 0;
}

static void kprobe_write_insn(struct kprobe *p, u32 insn)
{
	int ret = aarch64_insn_patch_text_nosync(p->addr, insn);

	if (ret)
		pr_err("cannot patch %pS: %d\n", p->addr, ret);
}

/**
 * arch_arm_kprobe() - write the breakpoint of a site
 * @p: the site
 *
 * Context: stop_machine(), the other CPUs spinning; visible everywhere
 * after arch_kprobe_sync().
 */
void arch_arm_kprobe(struct kprobe *p)
{
	kprobe_write_insn(p, BRK64_OPCODE_KPROBES);
}

/**
 * arch_disarm_kprobe() - put back the probed instruction of a site
 * @p: the site
 *
 * Context: stop_machine(), the other CPUs spinning; visible everywhere
 * after arch_kprobe_sync().
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	kprobe_write_insn(p, p->opcode);
}

/**
 * arch_kprobe_sync() - make the text written since the last call visible
 *
 * The writes cleaned the data cache and invalidated the instruction caches
 * of all CPUs; what another CPU may still hold is in its pipeline, which
 * the context synchronization of an IPI discards.
 *
 * Context: cpus_read_lock() and text_mutex held.
 */
void arch_kprobe_sync(void)
{
	kick_all_cpus_sync();
}

/**
 * arch_remove_kprobe() - free the slot of a site
 * @p: the site
 *
 * A boosted copy runs preemptible: its slot is freed dirty.  A stepped
 * copy only runs with interrupts masked, between two traps, which the
 * grace period before this call covers.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (!p->ainsn.api.insn)
		return;
	free_insn_slot(p->ainsn.api.insn, p->ainsn.boostable);
	p->ainsn.api.insn = NULL;
}

/* ---------------------------------------------------------------------------
 * Blacklist
 * ---------------------------------------------------------------------------
 */

/* Code that runs with the MMU off, at EL2, or from a trampoline mapping. */
static const struct {
	const char *start;
	const char *end;
} arm64_noprobe_sections[] = {
	{ __idmap_text_start, __idmap_text_end },
	{ __hyp_idmap_text_start, __hyp_idmap_text_end },
	{ __hyp_text_start, __hyp_text_end },
#ifdef CONFIG_HIBERNATION
	{ __hibernate_exit_text_start, __hibernate_exit_text_end },
#endif
#ifdef CONFIG_KEXEC_CORE
	{ __relocate_new_kernel_start, __relocate_new_kernel_end },
#endif
#ifdef CONFIG_UNMAP_KERNEL_AT_EL0
	{ __entry_tramp_text_start, __entry_tramp_text_end },
#endif
};

/**
 * arch_within_kprobe_blacklist() - whether an address is in arm64 code that
 *	must never be probed
 * @addr: the address
 *
 * Return: true for the identity-mapped, hypervisor, hibernation exit, kexec
 * relocation and entry trampoline text.
 */
bool arch_within_kprobe_blacklist(unsigned long addr)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(arm64_noprobe_sections); i++) {
		if (addr >= (unsigned long)arm64_noprobe_sections[i].start &&
		    addr < (unsigned long)arm64_noprobe_sections[i].end)
			return true;
	}
	return false;
}

/**
 * arch_populate_kprobe_blacklist() - list the arm64 ranges in debugfs
 *
 * Return: 0 or -errno.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	int i, ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(arm64_noprobe_sections); i++) {
		if (arm64_noprobe_sections[i].start == arm64_noprobe_sections[i].end)
			continue;
		ret = kprobe_add_area_blacklist((unsigned long)arm64_noprobe_sections[i].start,
						(unsigned long)arm64_noprobe_sections[i].end);
	}
	return ret;
}

/* ---------------------------------------------------------------------------
 * The hit path: BRK exception context, interrupts masked, no lock
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

static void kprobe_simulate(struct kprobe *p, struct pt_regs *regs)
{
	p->ainsn.api.handler(p->opcode, (long)p->addr, regs);
}

NOKPROBE_SYMBOL(kprobe_simulate);

/* Resume in the copy that branches back: nothing left for kprobes to do. */
static void kprobe_boost(struct kprobe *p, struct pt_regs *regs)
{
	instruction_pointer_set(regs,
				(unsigned long)&p->ainsn.api.insn[KPROBE_SLOT_BOOST]);
	regs->pstate &= ~PSR_BTYPE_MASK;
}

NOKPROBE_SYMBOL(kprobe_boost);

/*
 * Resume in the copy that comes back (by kprobe_step_trampoline or a BRK),
 * with every exception that could bring a handler masked: interrupts, and
 * debug exceptions (a watchpoint's perf handler may hit a probe, which could
 * not be stepped meanwhile).
 */
static void kprobe_step(struct kprobe *p, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb)
{
	kcb->saved_irqflag = regs->pstate & DAIF_MASK;
	regs->pstate |= DAIF_MASK;
	regs->pstate &= ~PSR_BTYPE_MASK;
	kcb->step_pstate = regs->pstate;
	instruction_pointer_set(regs,
				(unsigned long)&p->ainsn.api.insn[KPROBE_SLOT_STEP]);
}

NOKPROBE_SYMBOL(kprobe_step);

/* The stepped copy ran, or faulted: back to the probed context's mask. */
static void kprobe_step_done(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			     unsigned long pc)
{
	regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->saved_irqflag;
	instruction_pointer_set(regs, pc);
}

NOKPROBE_SYMBOL(kprobe_step_done);

static bool kprobe_in_step(struct kprobe *p, struct pt_regs *regs,
			   struct kprobe_ctlblk *kcb, int slot_off)
{
	return p && p->ainsn.api.insn &&
	       (kcb->kprobe_status == KPROBE_HIT_SS ||
		kcb->kprobe_status == KPROBE_REENTER) &&
	       instruction_pointer(regs) ==
			(unsigned long)&p->ainsn.api.insn[slot_off];
}

NOKPROBE_SYMBOL(kprobe_in_step);

/* @p was hit while kprobe_running(): run its instruction, no handler. */
static int kprobe_reenter(struct kprobe *p, struct pt_regs *regs,
			  struct kprobe_ctlblk *kcb)
{
	kprobes_inc_nmissed_count(p);

	if (p->ainsn.api.handler) {
		kprobe_simulate(p, regs);
		return DBG_HOOK_HANDLED;
	}
	if (p->ainsn.boostable) {
		kprobe_boost(p, regs);
		return DBG_HOOK_HANDLED;
	}

	switch (kcb->kprobe_status) {
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SSDONE:
		kprobe_save_prev(kcb);
		__this_cpu_write(current_kprobe, p);
		kcb->kprobe_status = KPROBE_REENTER;
		kprobe_step(p, regs, kcb);
		return DBG_HOOK_HANDLED;
	default:
		/*
		 * Hit while a copy was stepped: only an exception taken by
		 * the copy can get here, and its state would be lost.
		 */
		pr_err("unrecoverable reentry at %pS while stepping %pS\n",
		       p->addr, kprobe_running()->addr);
		return DBG_HOOK_ERROR;
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
	if (p->ainsn.api.handler) {
		kprobe_simulate(p, regs);
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		if (READ_ONCE(p->post_handler))
			kprobe_call_post_handlers(p, regs);
		reset_current_kprobe();
	} else if (p->ainsn.boostable && !READ_ONCE(p->post_handler)) {
		kprobe_boost(p, regs);
		reset_current_kprobe();
	} else {
		kcb->kprobe_status = KPROBE_HIT_SS;
		kprobe_step(p, regs, kcb);
	}
}

/*
 * No site at @addr: if the BRK is not there any more, it was removed while
 * this CPU was on its way to it; resume on the restored instruction.
 */
static int kprobe_brk_gone(unsigned long addr)
{
	u32 insn;

	if (aarch64_insn_read((void *)addr, &insn) ||
	    insn == BRK64_OPCODE_KPROBES)
		return DBG_HOOK_ERROR;
	return DBG_HOOK_HANDLED;
}

NOKPROBE_SYMBOL(kprobe_brk_gone);

/**
 * kprobe_brk_handler() - a BRK #KPROBES_BRK_IMM was hit
 * @regs: the registers at the probed address
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR if the BRK is not a probe's.
 */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned long addr = instruction_pointer(regs);
	struct kprobe *p;

	p = get_kprobe((kprobe_opcode_t *)addr);
	if (!p) {
		switch (jprobe_break(regs, addr)) {
		case JPROBE_BREAK_RESUMED:
			return DBG_HOOK_HANDLED;
		case JPROBE_BREAK_STRAY:
			instruction_pointer_set(regs, addr + AARCH64_INSN_SIZE);
			return DBG_HOOK_HANDLED;
		default:
			return kprobe_brk_gone(addr);
		}
	}
	if (kprobe_running())
		return kprobe_reenter(p, regs, kcb);

	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (kprobe_call_pre_handlers(p, regs)) {
		/*
		 * A handler moved the PC: the instruction is not run.  The
		 * BRK left the BTYPE of a BR or BLR that reached @addr in
		 * PSTATE, and the new PC need not be a landing pad.
		 */
		if (instruction_pointer(regs) != addr)
			regs->pstate &= ~PSR_BTYPE_MASK;
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	}
	kprobe_run_insn(p, regs, kcb);
	return DBG_HOOK_HANDLED;
}

NOKPROBE_SYMBOL(kprobe_brk_handler);

#ifdef CONFIG_JPROBES
/*
 * The stack pointer at the hit while a jprobe handler runs on this CPU, else
 * 0.  An exception return to EL1 does not load SP from pt_regs: the
 * handler's jprobe_return() (kprobes_trampoline.S) moves SP back there
 * itself before its BRK, so that the trap returns with SP as at the hit.
 */
DEFINE_PER_CPU(unsigned long, jprobe_entry_sp);

/*
 * The handler is entered as the probed function was, arguments in x0-x7 and
 * on the stack untouched, returning to __jprobe_guard.  BTYPE is cleared as
 * for any ERET to a redirected PC; the handler's own PAC signs and checks
 * whatever return address it finds in x30.
 */
void arch_jprobe_redirect(struct jprobe *jp, struct pt_regs *regs)
{
	__this_cpu_write(jprobe_entry_sp, regs->sp);
	regs->regs[30] = (unsigned long)__jprobe_guard;
	regs->pstate &= ~PSR_BTYPE_MASK;
	instruction_pointer_set(regs, (unsigned long)jp->entry);
}

NOKPROBE_SYMBOL(arch_jprobe_redirect);

/*
 * The GPRs, PC, and of PSTATE the flags and the interrupt mask; the rest is
 * the BRK frame's own, of the same context: a hit through a detour saved
 * no PAN, UAO, DIT, SSBS or TCO (kprobe_get_pstate).  SP is already the
 * saved one, see jprobe_entry_sp.
 */
void arch_jprobe_restore_regs(struct pt_regs *regs, const struct pt_regs *saved)
{
	u64 keep = regs->pstate & ~(KPROBE_PSR_NZCV | DAIF_MASK | PSR_BTYPE_MASK);

	__this_cpu_write(jprobe_entry_sp, 0);
	regs->user_regs = saved->user_regs;
	regs->pstate = keep | (saved->pstate & (KPROBE_PSR_NZCV | DAIF_MASK));
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

/* After the stepped copy of the running probe: the end of a step. */
static nokprobe_inline void kprobe_step_finish(struct kprobe *cur,
					       struct pt_regs *regs,
					       struct kprobe_ctlblk *kcb)
{
	kprobe_step_done(regs, kcb, cur->ainsn.api.restore);
	if (kcb->kprobe_status == KPROBE_REENTER) {
		kprobe_restore_prev(kcb);
		return;
	}

	kcb->kprobe_status = KPROBE_HIT_SSDONE;
	kprobe_call_post_handlers(cur, regs);
	reset_current_kprobe();
}

/**
 * kprobe_step_trampoline_handler() - a stepped copy branched back
 * @regs: the registers after the copy; PSTATE holds the condition flags only
 *
 * Called by kprobe_step_trampoline with interrupts masked since the BRK of
 * the hit: the probe whose copy ran is still kprobe_running().  Completes
 * @regs as the trap of a BRK after the copy would have, and finishes the
 * step as kprobe_ss_brk_handler() does, in the context that trap would
 * give the post handlers (el1_brk64()): lockdep's interrupts off, RCU
 * watching as in an NMI, preemption disabled.  The trampoline then resumes
 * as @regs say.
 */
void kprobe_step_trampoline_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	bool lockdep_irqs_on = lockdep_hardirqs_enabled();

	lockdep_hardirqs_off(CALLER_ADDR0);
	ct_nmi_enter();
	preempt_disable();

	regs->pstate = (kcb->step_pstate & ~KPROBE_PSR_NZCV) |
		       (regs->pstate & KPROBE_PSR_NZCV);
	kprobe_step_finish(kprobe_running(), regs, kcb);

	preempt_enable_no_resched();
	if (lockdep_irqs_on)
		lockdep_hardirqs_on_prepare();
	ct_nmi_exit();
	if (lockdep_irqs_on)
		lockdep_hardirqs_on(CALLER_ADDR0);
}

NOKPROBE_SYMBOL(kprobe_step_trampoline_handler);

/**
 * kprobe_ss_brk_handler() - a BRK #KPROBES_BRK_SS_IMM was hit
 * @regs: the registers after the stepped copy (or at a detour's exit)
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR if the BRK is not kprobes'.
 */
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (!kprobe_in_step(cur, regs, kcb, KPROBE_SLOT_STEP + 1)) {
		if (optprobe_exit_brk_handler(regs))
			return DBG_HOOK_HANDLED;
		return DBG_HOOK_ERROR;
	}

	kprobe_step_finish(cur, regs, kcb);
	return DBG_HOOK_HANDLED;
}

NOKPROBE_SYMBOL(kprobe_ss_brk_handler);

/*
 * kretprobes return through __kretprobe_trampoline, never through a BRK:
 * BRK #KRETPROBES_BRK_IMM is not kprobes'.
 */
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return DBG_HOOK_ERROR;
}

NOKPROBE_SYMBOL(kretprobe_brk_handler);

/**
 * kprobe_fault_handler() - a page fault while a probe runs on this CPU
 * @regs: the registers at the fault
 * @trapnr: the exception syndrome
 *
 * Called from do_page_fault().  A fault of a stepped copy is moved back to
 * the probed address with the probed context's interrupt mask, as if the
 * original instruction had faulted, and offered to the site's fault
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
		if (!kprobe_in_step(cur, regs, kcb, KPROBE_SLOT_STEP))
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
		/*
		 * The abort handler inherited the copy's masked DAIF; the
		 * fault is now the probed context's: so are the interrupts.
		 * Only now, once this CPU's kprobe state is no longer used:
		 * with interrupts on, the task may move to another CPU.
		 */
		local_daif_inherit(regs);
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
 * The return address is in the link register.  The frame is identified by
 * the caller's frame pointer, still in x29 at the entry and again when the
 * function returns: __kretprobe_trampoline passes it back, and the unwinder
 * reads it from the frame record whose return address is the trampoline.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ri->ret_addr = (kprobe_opcode_t *)regs->regs[30];
	ri->fp = (void *)regs->regs[29];
	regs->regs[30] = (u64)kretprobe_trampoline_addr();
}

NOKPROBE_SYMBOL(arch_prepare_kretprobe);

/**
 * arch_init_kprobes() - nothing to set up: the BRK handlers are called
 *	directly by the debug exception code
 *
 * Return: 0.
 */
int __init arch_init_kprobes(void)
{
	return 0;
}
