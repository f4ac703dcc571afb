// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kretprobes: the return trampoline.
 *
 * At function entry arch_prepare_kretprobe() replaces the return address on
 * the stack by __kretprobe_trampoline.  When the function returns there, the
 * trampoline (no trap) builds a struct pt_regs describing the state right
 * after the return and calls the generic __kretprobe_trampoline_handler(),
 * which runs the handlers and gives back the real return address; the
 * trampoline then returns to it.
 *
 * Stack traces: the trampoline first pushes its own address into the slot
 * the function's ret just popped, i.e. at ri->fp.  For the unwinders that
 * slot is the return address of a normal frame (UNWIND_HINT_FUNC); they see
 * the trampoline's address there and ask kretprobe_find_ret_addr() for the
 * real one (asm/unwind.h).  Once the core knows the real address,
 * arch_kretprobe_fixup_return() (asm/kprobes.h) writes it into that slot,
 * and the trampoline's final ret takes it from there.
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/objtool.h>
#include <linux/linkage.h>
#include <asm/unwind_hints.h>
#include <asm/segment.h>
#include <asm/ptrace.h>
#include <asm/switch_to.h>

#include "common.h"

#ifndef ANNOTATE_NOENDBR
#define ANNOTATE_NOENDBR
#endif

/*
 * On entry %rsp = ri->fp + 8.  The frame built, from high to low addresses:
 * the return slot (ri->fp), then a struct pt_regs: ss, sp, flags, cs, ip
 * (the trampoline until the core knows better), orig_ax, then
 * PUSH_GPRS_STRING's part.  "pushq %rsp" saves ri->fp - 8: the addq makes
 * regs->sp the caller's stack pointer, ri->fp + 8, once the flags are saved.
 *
 * Going back, the callee-saved registers are not reloaded: the C calling
 * convention kept them as saved.  Everything else is, flags included: a
 * handler may change the return value, and asm functions with conventions
 * of their own return in other registers or in the flags, or promise to
 * leave the caller-saved registers alone (__get_user_*(),
 * this_cpu_cmpxchg16b_emu()).  lea, unlike add, leaves the flags alone
 * while skipping the slots around the popf.
 */
asm(".text\n"
	".global __kretprobe_trampoline\n"
	".type __kretprobe_trampoline, @function\n"
	"__kretprobe_trampoline:\n"
	/* Only ever reached by a ret: no ENDBR needed. */
	ANNOTATE_NOENDBR
	"	pushq $__kretprobe_trampoline\n"
	UNWIND_HINT_FUNC
	"	pushq $" __stringify(__KERNEL_DS) "\n"
	"	pushq %rsp\n"
	"	pushfq\n"
	"	pushq $" __stringify(__KERNEL_CS) "\n"
	"	pushq $__kretprobe_trampoline\n"
	"	pushq $-1\n"
	PUSH_GPRS_STRING
	"	addq $16, " __stringify(KP_REGS_SP) "(%rsp)\n"
	"	movq %rsp, %rdi\n"
	"	leaq " __stringify(KP_REGS_SIZE) "(%rsp), %rsi\n"
	"	call __kretprobe_trampoline_handler\n"
	LOAD_CALLER_SAVED_STRING
	"	leaq " __stringify(KP_REGS_FLAGS) "(%rsp), %rsp\n"
	"	popfq\n"
	"	leaq 16(%rsp), %rsp\n"
	/* As at the start: objtool need not see rbx..r15 popped. */
	UNWIND_HINT_FUNC
	ASM_RET
	".size __kretprobe_trampoline, .-__kretprobe_trampoline\n"
);
NOKPROBE_SYMBOL(__kretprobe_trampoline);
/*
 * The trampoline does not set up a frame pointer: %rbp still holds the
 * caller's frame, which is what a frame pointer unwinder needs to go on.
 */
STACK_FRAME_NON_STANDARD_FP(__kretprobe_trampoline);

/*
 * At the entry, the return address is at the stack pointer.  So it is at an
 * ftrace location (__ARCH_WANT_KRETPROBE_FTRACE, asm/kprobes.h), where the
 * core swaps it itself.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)regs->sp;

	ri->ret_addr = (kprobe_opcode_t *)*slot;
	ri->fp = slot;
	*slot = (unsigned long)&__kretprobe_trampoline;
}

NOKPROBE_SYMBOL(arch_prepare_kretprobe);

/*
 * __switch_to() is entered by a jump, on the next task's stack and before
 * current changes, and returns to that task's caller, as that task: the
 * instance an entry would push on one task's list would be popped, or
 * missed, by another.
 */
bool arch_kretprobe_blacklisted(unsigned long addr)
{
	unsigned long offset;

	return kallsyms_lookup_size_offset(addr, NULL, &offset) &&
	       addr - offset == (unsigned long)__switch_to;
}
