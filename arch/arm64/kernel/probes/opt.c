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

#define DETOUR_SLOT_BYTES	(MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t))
#define DETOUR_OFFSET(sym)	((unsigned long)(sym) - (unsigned long)optprobe_detour)
#define DETOUR_SIZE		DETOUR_OFFSET(optprobe_detour_end)
#define DETOUR_DISPLACED	DETOUR_OFFSET(optprobe_detour_displaced)
/* The displaced instruction, the branch back, then the exit BRK. */
#define DETOUR_EXIT_BRK		(DETOUR_DISPLACED + 2 * AARCH64_INSN_SIZE)

/* The condition flags in PSTATE and SPSR. */
#define PSR_NZCV_MASK		(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)

/**
 * optprobe_callback() - the pre handlers of an optimized site
 * @addr: the probed address
 * @regs: the registers at @addr, built by the detour
 *
 * Return: non-zero if a handler moved the PC: the detour must not run the
 * displaced instruction, but resume where @regs say.
 */
int optprobe_callback(unsigned long addr, struct pt_regs *regs)
{
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

	return ret || instruction_pointer(regs) != addr;
}

NOKPROBE_SYMBOL(optprobe_callback);

/**
 * optprobe_exit_brk_handler() - the exit BRK of a detour was hit
 * @regs: the registers at the BRK; the stack pointer is the detour's pt_regs
 *
 * Return: true if the BRK was a detour's: execution resumes as the pt_regs
 * of the detour say.
 */
bool optprobe_exit_brk_handler(struct pt_regs *regs)
{
	unsigned long pc = instruction_pointer(regs);
	struct pt_regs *saved;
	int i;

	if ((pc & ~PAGE_MASK) % DETOUR_SLOT_BYTES != DETOUR_EXIT_BRK ||
	    !is_kprobe_optinsn_slot(pc))
		return false;

	saved = (struct pt_regs *)regs->sp;
	for (i = 0; i < ARRAY_SIZE(regs->regs); i++)
		regs->regs[i] = saved->regs[i];
	regs->sp = saved->sp;
	regs->pc = saved->pc;
	regs->pstate &= ~(PSR_NZCV_MASK | PSR_BTYPE_MASK);
	regs->pstate |= saved->pstate & PSR_NZCV_MASK;
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
	if (p->ainsn.api.handler == simulate_nop) {
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

	BUILD_BUG_ON(DETOUR_SLOT_BYTES > PAGE_SIZE);
	if (sizeof(buf) < DETOUR_SIZE)
		return -E2BIG;
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
