// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerpc kprobes on ftrace: a probe on the ftrace call site of a function
 * (the "bl _mcount" after the local entry point's "mflr r0", which a probe
 * on the function lands on, see arch_adjust_kprobe_addr()) is armed through
 * an ftrace_ops (the core owns it) instead of a trap, and reaches its
 * handlers through kprobe_ftrace_handler() below.
 *
 * Handlers see the same registers as with a trap on the call site:
 * regs->nip is the site during the pre handlers, and the instruction after
 * it (the call "executed" as the nop it is without ftrace) during the post
 * handlers.  ftrace_regs_caller returns to regs->nip, so a pre handler
 * redirects execution by changing it and returning non-zero; otherwise
 * regs->nip is put back as ftrace gave it.  regs->link is the return address
 * of the function, which a kretprobe replaces.
 */
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <asm/ptrace.h>

/**
 * kprobe_ftrace_handler() - the ftrace callback of kprobes
 * @ip: the ftrace call site
 * @parent_ip: the return address of the traced function
 * @ops: kprobes' ftrace_ops
 * @fregs: the registers at the call site
 *
 * Recursion: kprobe_running() is the guard.  A probe hit from a handler (or
 * from an interrupt while the handlers run) finds it set and only counts a
 * miss; before it is set, only get_kprobe() runs, which cannot be probed.
 * So the handler does without ftrace_test_recursion_trylock() and only
 * disables preemption (current_kprobe is per CPU).
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long orig_nip;
	struct kprobe *p;

	if (unlikely(!regs))
		return;

	preempt_disable_notrace();

	/*
	 * A site is never disabled itself (its members are, and the pre
	 * handler walk skips them), and get_kprobe() returns no gone site.
	 */
	p = get_kprobe((kprobe_opcode_t *)ip);
	if (unlikely(!p))
		goto out;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(p);
		goto out;
	}

	orig_nip = regs->nip;
	regs->nip = ip;
	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	if (!kprobe_call_pre_handlers(p, regs)) {
		regs->nip = ip + MCOUNT_INSN_SIZE;
		if (READ_ONCE(p->post_handler)) {
			__this_cpu_write(kprobe_ctlblk.kprobe_status,
					 KPROBE_HIT_SSDONE);
			kprobe_call_post_handlers(p, regs);
		}
		regs->nip = orig_nip;
	}
	/* Else a handler set regs->nip: ftrace_regs_caller resumes there. */
	reset_current_kprobe();
out:
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/**
 * arch_prepare_kprobe_ftrace() - prepare a site at an ftrace call site
 * @p: the site
 *
 * Nothing is ever run out of line for it.
 *
 * Return: 0, or -EFAULT if the site cannot be read.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.kind = KP_INSN_NONE;
	p->ainsn.len = MCOUNT_INSN_SIZE;
	/* Only for display: ftrace owns this word and changes it. */
	if (copy_from_kernel_nofault(&p->opcode, p->addr, sizeof(p->opcode)))
		return -EFAULT;
	return 0;
}
