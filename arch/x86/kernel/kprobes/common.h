/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef __X86_KERNEL_KPROBES_COMMON_H
#define __X86_KERNEL_KPROBES_COMMON_H
/*
 * Helpers shared by the x86 kprobes files and by arch/x86/kernel/rethook.c.
 *
 * SAVE_REGS_STRING / RESTORE_REGS_STRING build and tear down a struct
 * pt_regs on the stack in asm.  The caller pushes the top of the frame
 * itself (ss, sp and flags, in that order, so that it controls what goes
 * there); SAVE_REGS_STRING then reserves cs, ip and orig_ax, which the C
 * code fills in, and pushes the general purpose registers so that %rsp
 * (%esp) ends up pointing to the struct pt_regs; PUSH_GPRS_STRING (64-bit)
 * only pushes the general purpose registers, for a caller that pushed cs,
 * ip and orig_ax itself.  RESTORE_REGS_STRING reloads the general purpose
 * registers and leaves the stack pointer on the flags slot; POP_GPRS_STRING
 * (64-bit) only reloads them, leaving it on orig_ax, and
 * LOAD_CALLER_SAVED_STRING only the caller-saved ones, leaving it alone.
 * They do not modify
 * the arithmetic flags, so that code after them may still branch on a
 * comparison made before them.
 */
#include <asm/asm.h>

#ifdef CONFIG_X86_64

/*
 * Offsets in struct pt_regs for the asm that builds one (x86's asm-offsets
 * has no ip, ss or size); checked against the struct below.
 */
#define KP_REGS_FLAGS		144
#define KP_REGS_IP		128
#define KP_REGS_SP		152
#define KP_REGS_SS		160
#define KP_REGS_SIZE		168

#define SAVE_REGS_STRING		\
	"	subq $24, %rsp\n"	\
	PUSH_GPRS_STRING

/* The general purpose registers in the order of struct pt_regs, top down. */
#define KP_GPRS_DOWN	"rdi, rsi, rdx, rcx, rax, r8, r9, r10, r11, " \
			"rbx, rbp, r12, r13, r14, r15"
#define KP_GPRS_UP	"r15, r14, r13, r12, rbp, rbx, " \
			"r11, r10, r9, r8, rax, rcx, rdx, rsi, rdi"

#define PUSH_GPRS_STRING		\
	"	.irp reg, " KP_GPRS_DOWN "\n"	\
	"	pushq %\\reg\n"		\
	"	.endr\n"

#define POP_GPRS_STRING		\
	"	.irp reg, " KP_GPRS_UP "\n"	\
	"	popq %\\reg\n"		\
	"	.endr\n"

#define RESTORE_REGS_STRING		\
	POP_GPRS_STRING			\
	"	leaq 24(%rsp), %rsp\n"

/* From struct pt_regs at %rsp: r11 to di, in order (checked below). */
#define LOAD_CALLER_SAVED_STRING	\
	"	movq 48(%rsp), %r11\n"	\
	"	movq 56(%rsp), %r10\n"	\
	"	movq 64(%rsp), %r9\n"	\
	"	movq 72(%rsp), %r8\n"	\
	"	movq 80(%rsp), %rax\n"	\
	"	movq 88(%rsp), %rcx\n"	\
	"	movq 96(%rsp), %rdx\n"	\
	"	movq 104(%rsp), %rsi\n"	\
	"	movq 112(%rsp), %rdi\n"

#else /* !CONFIG_X86_64 */

/* cs, ip, orig_ax, gs and fs are reserved; the data segments are saved. */
#define SAVE_REGS_STRING		\
	"	subl $20, %esp\n"	\
	"	.irp reg, es, ds, eax, ebp, edi, esi, edx, ecx, ebx\n" \
	"	pushl %\\reg\n"		\
	"	.endr\n"

#define RESTORE_REGS_STRING		\
	"	.irp reg, ebx, ecx, edx, esi, edi, ebp, eax\n" \
	"	popl %\\reg\n"		\
	"	.endr\n"			\
	"	leal 28(%esp), %esp\n"

#endif /* CONFIG_X86_64 */

#ifndef __ASSEMBLY__
#include <linux/types.h>
#include <linux/kprobes.h>

#ifdef CONFIG_X86_64
static_assert(offsetof(struct pt_regs, flags) == KP_REGS_FLAGS);
static_assert(offsetof(struct pt_regs, r11) == 48 &&
	      offsetof(struct pt_regs, di) == 112);
static_assert(offsetof(struct pt_regs, ip) == KP_REGS_IP);
static_assert(offsetof(struct pt_regs, sp) == KP_REGS_SP);
static_assert(offsetof(struct pt_regs, ssx) == KP_REGS_SS);
static_assert(sizeof(struct pt_regs) == KP_REGS_SIZE);
#endif

struct kprobe;
struct insn;
struct pt_regs;

/*
 * Where the stepping copy of a slot jumps, and what it calls (core.c).  The
 * trampoline is code, not a function: it is only ever jumped to.
 */
extern const u8 kprobe_step_trampoline[];
__visible void kprobe_step_callback(struct pt_regs *regs);

/* The optimized probe detour template (opt.c), copied into detour slots. */
extern const u8 optprobe_tmpl_start[];
extern const u8 optprobe_tmpl_clac[];
extern const u8 optprobe_tmpl_ip[];
extern const u8 optprobe_tmpl_op[];
extern const u8 optprobe_tmpl_call[];
extern const u8 optprobe_tmpl_ret[];
extern const u8 optprobe_tmpl_end[];

/* Shared by core.c and opt.c (instruction analysis). */
int kprobe_copy_orig_insn(unsigned long addr, u8 *buf, int *buf_len);
int kprobe_decode_orig(struct insn *insn, unsigned long addr, u8 *buf);
int kprobe_check_probeable(struct insn *insn);
int kprobe_fixup_riprel(struct insn *insn, u8 *copy, unsigned long orig,
			unsigned long dest);
bool kprobe_is_indirect_thunk(unsigned long target);

/* The ends of the templates ftrace copies into its trampolines (ftrace_64.S). */
extern const u8 ftrace_caller_end[];
extern const u8 ftrace_regs_caller_end[];

#ifdef CONFIG_OPTPROBES
/* Original bytes under optimized probes' jumps, in a copy of the text. */
void kprobe_opt_recover_bytes(unsigned long addr, u8 *buf, int len);

/* Where the detour of @op runs the displaced instructions. */
static nokprobe_inline unsigned long
kprobe_opt_displaced(struct optimized_kprobe *op)
{
	/* NULL when a probe landing in the range took the detour away. */
	kprobe_opcode_t *insn = READ_ONCE(op->optinsn.insn);

	if (!insn)
		return 0;
	return (unsigned long)insn + (optprobe_tmpl_end - optprobe_tmpl_start);
}
#else
static inline void kprobe_opt_recover_bytes(unsigned long addr, u8 *buf,
					    int len)
{
}
#endif

#endif /* !__ASSEMBLY__ */

#endif /* __X86_KERNEL_KPROBES_COMMON_H */
