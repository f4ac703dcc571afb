// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: jump optimization.
 *
 * The BRK of a site without post handlers is replaced by a B to a detour
 * (opt_detour.S) that calls the pre handlers without any trap and runs the
 * displaced instruction.  A B replaces exactly one instruction, the probed
 * one, so nothing else can jump into the replaced range; and both the BRK
 * and the B may be written while other CPUs execute them.
 *
 * A site qualifies when:
 *   - the system does not use software PAN (see
 *     arch_prepare_optimized_kprobe());
 *   - its instruction runs the same at any address (it is copied, not
 *     simulated), or is a NOP-like instruction (the detour has a NOP);
 *   - it has no exception table entry: a fault in the detour could not be
 *     moved back to the probed address;
 *   - it is not a BTI or PACI[AB]SP in a kernel built for BTI: a B there
 *     would not be a valid target for indirect branches;
 *   - the detour slot is within branch range (+/-128 MiB) of the probe.
 *     Slots come from the module region (see alloc_insn_page()), which is
 *     in range of the kernel text unless the layout prevents it.
 *
 * The detour's callback runs the pre handlers with interrupts masked, as a
 * BRK hit would, and finds the site through get_kprobe(): a task preempted
 * in the detour before the callback does not keep a pointer to a site that
 * may be freed meanwhile; the detour itself is freed dirty, after an
 * RCU-tasks grace period.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpufeature.h>
#include <linux/extable.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>

#include "common.h"
#include "simulate-insn.h"

#define DETOUR_OFFSET(sym)	((unsigned long)(sym) - (unsigned long)optprobe_detour)
#define DETOUR_SIZE		DETOUR_OFFSET(optprobe_detour_end)
#define DETOUR_DISPLACED	DETOUR_OFFSET(optprobe_detour_displaced)

/* What current_kprobe is between a redirected hit and its exit trap. */
static struct kprobe optprobe_exiting;

/*
 * PSTATE.{D,A,I,F} only: neither the PMR nor the irq tracing state changes.
 * Debug exceptions too: a watchpoint's perf handler could hit a probe while
 * this CPU waits for the exit trap.
 */
static __always_inline void optprobe_mask_irqs(void)
{
	asm volatile("msr daifset, #0xf" : : : "memory");
}

/**
 * optprobe_callback() - the pre handlers of an optimized site
 * @addr: the probed address
 * @regs: the registers at @addr, built by the detour
 *
 * Runs the pre handlers with interrupts masked, as a BRK hit would.  When
 * a handler moved the PC, masks the interrupts again and records the new
 * PC in the per-CPU state for optprobe_exit_brk_handler(), with this CPU
 * marked busy (a probe hit in between is missed) until then.
 *
 * Return: non-zero if the detour must leave through optprobe_detour_exit
 * instead of running the displaced instruction.
 */
int optprobe_callback(unsigned long addr, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb;
	unsigned long flags;
	struct kprobe *p;
	int ret = 0;

	local_irq_save(flags);
	p = get_kprobe((kprobe_opcode_t *)addr);
	if (p) {
		if (kprobe_running()) {
			kprobes_inc_nmissed_count(p);
		} else {
			__this_cpu_write(current_kprobe, p);
			get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
			ret = kprobe_call_pre_handlers(p, regs);
			reset_current_kprobe();
		}
	}
	local_irq_restore(flags);

	if (!ret && instruction_pointer(regs) == addr)
		return 0;

	/*
	 * Interrupts (and the PMR, with pseudo-NMIs) are back as the probed
	 * context had them: the exit trap records them so.  PSTATE.{D,A,I,F}
	 * only keep this CPU until the trap, which restores them as they were.
	 */
	optprobe_mask_irqs();
	kcb = get_kprobe_ctlblk();
	__this_cpu_write(current_kprobe, &optprobe_exiting);
	kcb->kprobe_status = KPROBE_HIT_SS;
	kcb->saved_irqflag = regs->pstate & DAIF_MASK;
	kcb->resume_pc = instruction_pointer(regs);
	return 1;
}

NOKPROBE_SYMBOL(optprobe_callback);

/**
 * optprobe_exit_brk_handler() - the BRK of optprobe_detour_exit was hit
 * @regs: the registers of the probed context, as a handler left them
 *
 * Return: true if the BRK was the detour exit's: execution resumes where
 * the handler moved the PC.
 */
bool optprobe_exit_brk_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (instruction_pointer(regs) != (unsigned long)optprobe_detour_exit_brk ||
	    kprobe_running() != &optprobe_exiting ||
	    kcb->kprobe_status != KPROBE_HIT_SS)
		return false;

	instruction_pointer_set(regs, kcb->resume_pc);
	regs->pstate &= ~(DAIF_MASK | PSR_BTYPE_MASK);
	regs->pstate |= kcb->saved_irqflag;
	reset_current_kprobe();
	return true;
}

NOKPROBE_SYMBOL(optprobe_exit_brk_handler);

/* What the detour runs in place of the probed instruction, if it can. */
static bool optprobe_displaced_insn(struct kprobe *p, u32 *insn)
{
	if (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) && p->ainsn.landing_pad)
		return false;
	if (search_exception_tables((unsigned long)p->addr))
		return false;

	if (p->ainsn.api.insn) {
		*insn = p->opcode;
		return true;
	}
	if (p->ainsn.api.handler == a64_sim_nop) {
		*insn = aarch64_insn_gen_nop();
		return true;
	}
	return false;
}

/**
 * arch_prepare_optimized_kprobe() - build the detour of a site
 * @op: the site
 * @p: the site's kprobe, &@op->kp
 *
 * Return: 0; -EINVAL if the instruction cannot be displaced, -ERANGE if
 * the detour is out of branch range, -ENOMEM, -EFAULT.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	__le32 buf[MAX_OPTINSN_SIZE];
	unsigned long detour, back;
	kprobe_opcode_t *slot;
	u64 lit;
	u32 insn;

	if (sizeof(buf) < DETOUR_SIZE)
		return -E2BIG;
	/*
	 * With software PAN, only an exception entry saves and restores TTBR0:
	 * a handler's user access from the detour would leave the probed code's
	 * uaccess window with the reserved TTBR0.  Such sites keep their BRK.
	 */
	if (system_uses_ttbr0_pan())
		return -EOPNOTSUPP;
	if (!optprobe_displaced_insn(p, &insn))
		return -EINVAL;

	slot = get_optinsn_slot();
	if (!slot)
		return -ENOMEM;
	detour = (unsigned long)slot;
	back = detour + DETOUR_DISPLACED + AARCH64_INSN_SIZE;
	if (!kprobe_b_reaches(addr, detour) ||
	    !kprobe_b_reaches(back, addr + AARCH64_INSN_SIZE)) {
		free_optinsn_slot(slot, 0);
		return -ERANGE;
	}

	memcpy(buf, optprobe_detour, DETOUR_SIZE);
	buf[DETOUR_DISPLACED / AARCH64_INSN_SIZE] = cpu_to_le32(insn);
	insn = aarch64_insn_gen_branch_imm(back, addr + AARCH64_INSN_SIZE,
					   AARCH64_INSN_BRANCH_NOLINK);
	buf[DETOUR_DISPLACED / AARCH64_INSN_SIZE + 1] = cpu_to_le32(insn);
	lit = addr;
	memcpy((void *)buf + DETOUR_OFFSET(optprobe_detour_probe_addr), &lit,
	       sizeof(lit));
	lit = (unsigned long)optprobe_callback;
	memcpy((void *)buf + DETOUR_OFFSET(optprobe_detour_callback), &lit,
	       sizeof(lit));
	lit = (unsigned long)optprobe_detour_exit;
	memcpy((void *)buf + DETOUR_OFFSET(optprobe_detour_exit_addr), &lit,
	       sizeof(lit));

	if (!aarch64_insn_copy(slot, buf, DETOUR_SIZE)) {
		free_optinsn_slot(slot, 0);
		return -EFAULT;
	}
	op->optinsn.insn = slot;
	return 0;
}

/**
 * arch_remove_optimized_kprobe() - free the detour of a site
 * @op: the site
 *
 * A task may still be in the detour (it runs preemptible): freed dirty.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	if (!op->optinsn.insn)
		return;
	free_optinsn_slot(op->optinsn.insn, 1);
	op->optinsn.insn = NULL;
}

/**
 * arch_optimize_kprobes() - replace the BRK of sites by a B to their detour
 * @oplist: the sites; each one optimized is taken off the list
 *
 * Context: text_mutex and cpus_read_lock() held.  A CPU that still sees the
 * BRK handles the hit as usual.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		unsigned long addr = (unsigned long)op->kp.addr;
		u32 b = aarch64_insn_gen_branch_imm(addr,
					(unsigned long)op->optinsn.insn,
					AARCH64_INSN_BRANCH_NOLINK);

		if (b == AARCH64_BREAK_FAULT ||
		    aarch64_insn_patch_text_nosync(op->kp.addr, b))
			continue;
		list_del_init(&op->list);
	}
}

/**
 * arch_unoptimize_kprobes() - put the BRK of sites back
 * @oplist: the sites
 * @done_list: where each site goes
 *
 * Context: text_mutex and cpus_read_lock() held.  Once this returns, no CPU
 * enters a detour any more.
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		if (aarch64_insn_patch_text_nosync(op->kp.addr,
						   BRK64_OPCODE_KPROBES))
			pr_err("cannot unoptimize %pS\n", op->kp.addr);
		list_move(&op->list, done_list);
	}
	kick_all_cpus_sync();
}

/**
 * arch_within_optimized_kprobe() - whether the B of a site covers an address
 * @op: the site
 * @addr: the address
 *
 * Return: true for the probed instruction itself only.
 */
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  kprobe_opcode_t *addr)
{
	return addr == op->kp.addr;
}
