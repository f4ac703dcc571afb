// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes on ftrace: a probe on the ftrace site at a function entry is
 * armed through an ftrace_ops (the core owns it) instead of an int3, and
 * reaches its handlers through kprobe_ftrace_handler() below.
 *
 * Handlers see the same registers as with a breakpoint on the first byte of
 * the 5-byte ftrace instruction: regs->ip = ip + 1 during the pre handlers,
 * and regs->ip = ip + MCOUNT_INSN_SIZE (the nop "executed") during the post
 * handlers.  ftrace_regs_caller returns to regs->ip, so a pre handler
 * redirects execution by changing it and returning non-zero; otherwise
 * regs->ip is put back as ftrace gave it.
 */
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/preempt.h>
#include <asm/text-patching.h>

/*
 * Recursion: kprobe_running() is the guard.  A probe hit from a handler (or
 * from an NMI while the handlers run) finds it set and only counts a miss;
 * before it is set, only get_kprobe() runs, which cannot be probed.  So the
 * handler does without ftrace_test_recursion_trylock(), about 25
 * instructions of every hit, and only disables preemption (current_kprobe
 * is per CPU).
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	/*
	 * The ops asks for FTRACE_OPS_FL_SAVE_REGS: the struct pt_regs is
	 * always there, ftrace_get_regs() need not test for it.
	 */
	struct pt_regs *regs = &arch_ftrace_regs(fregs)->regs;
	unsigned long orig_ip;
	struct kprobe *p;

	preempt_disable_notrace();
	/* A site is never disabled itself, only its members. */
	p = get_kprobe((kprobe_opcode_t *)ip);
	if (unlikely(!p))
		goto out;

	if (kprobe_running()) {
		kprobes_inc_nmissed_count(p);
		goto out;
	}

	orig_ip = regs->ip;
	regs->ip = ip + INT3_INSN_SIZE;
	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	if (!kprobe_call_pre_handlers(p, regs)) {
		if (p->post_handler) {
			regs->ip = ip + MCOUNT_INSN_SIZE;
			__this_cpu_write(kprobe_ctlblk.kprobe_status,
					 KPROBE_HIT_SSDONE);
			kprobe_call_post_handlers(p, regs);
		}
		regs->ip = orig_ip;
	}
	/* Else a handler set regs->ip: ftrace_regs_caller resumes there. */
	reset_current_kprobe();
out:
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	/* Only for display: ftrace owns these bytes and changes them. */
	if (copy_from_kernel_nofault(&p->opcode, p->addr, sizeof(p->opcode)))
		return -EFAULT;
	return 0;
}
