/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe targets for the x86 kprobes KUnit test (kunit.c): small functions
 * whose instructions exercise each way x86 kprobes run a probed instruction.
 * kpx_offsets[] gives the offset of each probed instruction in its function.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/alternative.h>
#include <asm/asm.h>
#include <asm/extable_fixup_types.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>
#include <asm/smap.h>

	.text

/* 42: the leaf the call tests call. */
SYM_FUNC_START(kpx_leaf)
	movl	$42, %eax
	RET
SYM_FUNC_END(kpx_leaf)

/*
 * 7, after tail-calling itself x times: each call enters again at the same
 * stack pointer, before any returns.
 */
SYM_FUNC_START(kpx_tailself)
	testq	%rdi, %rdi
	jz	1f
	decq	%rdi
	jmp	kpx_tailself
1:	movl	$7, %eax
	RET
SYM_FUNC_END(kpx_tailself)

/*
 * A callee with a convention of its own, as __get_user_*(): it returns 1 in
 * %rax, 2 in %rdx and CF set, and leaves every other register alone.
 */
SYM_FUNC_START(kpx_keepregs)
	movl	$1, %eax
	movl	$2, %edx
	stc
	RET
SYM_FUNC_END(kpx_keepregs)

.macro kpx_expect slot, val, bit
	cmpq	$\val, \slot(%rsp)
	je	.Lexpect\@
	orl	$\bit, %eax
.Lexpect\@:
.endm

/*
 * Calls kpx_keepregs with known values in the registers it promises to
 * leave alone (caller-saved ones and two callee-saved ones) and returns a
 * mask of what came back wrong: 0 if nothing.
 */
SYM_FUNC_START(kpx_keepregs_caller)
	pushq	%rbx
	pushq	%r12
	movl	$0x101, %ecx
	movl	$0x102, %esi
	movl	$0x103, %edi
	movl	$0x104, %r8d
	movl	$0x105, %r9d
	movl	$0x106, %r10d
	movl	$0x107, %r11d
	movl	$0x108, %ebx
	movl	$0x109, %r12d
	call	kpx_keepregs
	pushfq
	pushq	%rax
	pushq	%rdx
	pushq	%rcx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%r12
	xorl	%eax, %eax
	kpx_expect 0, 0x109, 0x1
	kpx_expect 8, 0x108, 0x2
	kpx_expect 16, 0x107, 0x4
	kpx_expect 24, 0x106, 0x8
	kpx_expect 32, 0x105, 0x10
	kpx_expect 40, 0x104, 0x20
	kpx_expect 48, 0x103, 0x40
	kpx_expect 56, 0x102, 0x80
	kpx_expect 64, 0x101, 0x100
	kpx_expect 72, 2, 0x200
	kpx_expect 80, 1, 0x400
	testq	$X86_EFLAGS_CF, 88(%rsp)
	jnz	1f
	orl	$0x800, %eax
1:	addq	$96, %rsp
	popq	%r12
	popq	%rbx
	RET
SYM_FUNC_END(kpx_keepregs_caller)

/* x ? 1 : 2, through a jz rel8. */
SYM_FUNC_START(kpx_jcc8)
	xorl	%eax, %eax
	testq	%rdi, %rdi
.Ljcc8:
	jz	1f
	movl	$1, %eax
	RET
1:	movl	$2, %eax
	RET
SYM_FUNC_END(kpx_jcc8)

/* x ? 1 : 2, through a jz rel32. */
SYM_FUNC_START(kpx_jcc32)
	xorl	%eax, %eax
	testq	%rdi, %rdi
.Ljcc32:
	.byte	0x0f, 0x84
	.long	1f - 2f
2:	movl	$1, %eax
	RET
1:	movl	$2, %eax
	RET
SYM_FUNC_END(kpx_jcc32)

/* kpx_leaf() + 1, through a call rel32. */
SYM_FUNC_START(kpx_call)
.Lcall:
	call	kpx_leaf
	incl	%eax
	RET
SYM_FUNC_END(kpx_call)

/* fn() + 1, through call *%rdi. */
SYM_FUNC_START(kpx_call_reg)
.Lcall_reg:
	ANNOTATE_RETPOLINE_SAFE
	call	*%rdi
	incl	%eax
	RET
SYM_FUNC_END(kpx_call_reg)

/* kpx_fnptr() + 1, through call *kpx_fnptr(%rip). */
SYM_FUNC_START(kpx_call_mem)
.Lcall_mem:
	ANNOTATE_RETPOLINE_SAFE
	call	*kpx_fnptr(%rip)
	incl	%eax
	RET
SYM_FUNC_END(kpx_call_mem)

/* The number of loop iterations, x (x > 0), through loop rel8. */
SYM_FUNC_START(kpx_loop)
	movq	%rdi, %rcx
	xorl	%eax, %eax
1:	incl	%eax
.Lloop:
	loop	1b
	RET
SYM_FUNC_END(kpx_loop)

/* 7, through a plain ret. */
SYM_FUNC_START(kpx_ret)
	movl	$7, %eax
.Lret:
	ANNOTATE_UNRET_SAFE
	ret
	int3
SYM_FUNC_END(kpx_ret)

/* x + 1: a plain instruction, run out of line. */
SYM_FUNC_START(kpx_add)
.Ladd:
	leaq	1(%rdi), %rax
	RET
SYM_FUNC_END(kpx_add)

/* kpx_data, through a RIP-relative load run out of line. */
SYM_FUNC_START(kpx_riprel)
.Lriprel:
	movq	kpx_data(%rip), %rax
	RET
SYM_FUNC_END(kpx_riprel)

/* The flags, through pushf run out of line. */
SYM_FUNC_START(kpx_pushf)
.Lpushf:
	pushfq
	popq	%rax
	RET
SYM_FUNC_END(kpx_pushf)

/* The flags right after an instruction run out of line with DF set. */
SYM_FUNC_START(kpx_std)
	std
.Lstd:
	leaq	1(%rdi), %rax
	pushfq
	popq	%rax
	cld
	RET
SYM_FUNC_END(kpx_std)

/* x + 1, after a probed push that moves the stack pointer. */
SYM_FUNC_START(kpx_push)
.Lpush:
	pushq	%rbx
	leaq	1(%rdi), %rax
	popq	%rbx
	RET
SYM_FUNC_END(kpx_push)

/* *p, or -14 if reading it faults (exception table fixup). */
SYM_FUNC_START(kpx_load)
.Lload:
1:	movq	(%rdi), %rax
	RET
2:	movq	$-14, %rax
	RET
	_ASM_EXTABLE(1b, 2b)
SYM_FUNC_END(kpx_load)

/* (x + 3) * 5: straight-line code, a candidate for jump optimization. */
SYM_FUNC_START(kpx_opt)
.Lopt:
	movq	%rdi, %rax
	addq	$3, %rax
	imulq	$5, %rax, %rax
	RET
SYM_FUNC_END(kpx_opt)

/*
 * The flags after straight-line code run with DF set, and AC set where the
 * CPU has SMAP: the probed code of an optimized probe in a user access
 * section.
 */
SYM_FUNC_START(kpx_opt_flags)
	std
	ASM_STAC
.Lopt_flags:
	movq	%rdi, %rax
	addq	$3, %rax
	pushfq
	popq	%rax
	ASM_CLAC
	cld
	RET
SYM_FUNC_END(kpx_opt_flags)

/*
 * (x + 3) * 5 as kpx_opt, with a jump label (kpx_key, never enabled) whose
 * jump would land inside the range a jump at .Lopt_jl would replace.
 */
SYM_FUNC_START(kpx_opt_jl)
1:	.byte	0x0f, 0x1f, 0x44, 0x00, 0x00	/* NOP5 */
.Lopt_jl:
	movq	%rdi, %rax
.Ljl_target:
	addq	$3, %rax
	imulq	$5, %rax, %rax
	RET
	.pushsection __jump_table, "aw"
	.balign	8
	.long	1b - .
	.long	.Ljl_target - .
	.quad	kpx_key - .
	.popsection
SYM_FUNC_END(kpx_opt_jl)

/*
 * (|x| + 3) * 5, split as GCC splits a function: the negative case is in
 * kpx_split.cold, which jumps back into the range a jump at .Lopt_split
 * would replace; for 0, kpx_split jumps into the range a jump at .Lopt_cold
 * would replace.
 */
SYM_FUNC_START(kpx_split)
	movq	%rdi, %rax
	testq	%rdi, %rdi
	jz	.Lcold_mid
	js	kpx_split.cold
.Lopt_split:
	movq	%rdi, %rax
.Lsplit_back:
	addq	$3, %rax
	imulq	$5, %rax, %rax
	RET
SYM_FUNC_END(kpx_split)

SYM_FUNC_START_LOCAL(kpx_split.cold)
.Lopt_cold:
	movq	%rdi, %rax
.Lcold_mid:
	negq	%rax
	jmp	.Lsplit_back
SYM_FUNC_END(kpx_split.cold)

/*
 * Never called: cli, mov to ss and a %rsp-based indirect call cannot be
 * probed; .Lmid is not an instruction start.
 */
SYM_FUNC_START(kpx_bad)
	cli
	movabsq	$0x1122334455667788, %rax
.Lmid = . - 4
.Lmovss:
	movl	%eax, %ss
.Lcall_rsp:
	ANNOTATE_RETPOLINE_SAFE
	call	*(%rsp)
	sti
.Llock:
	LOCK_PREFIX
	incq	(%rdi)
.Lmce:
	movq	(%rdi), %rax
.Lmce_fixup:
	RET
	_ASM_EXTABLE_TYPE(.Lmce, .Lmce_fixup, EX_TYPE_DEFAULT_MCE_SAFE)
SYM_FUNC_END(kpx_bad)

	.section .rodata, "a"
	.balign 4
SYM_DATA_START(kpx_offsets)
	.long	.Ljcc8 - kpx_jcc8
	.long	.Ljcc32 - kpx_jcc32
	.long	.Lcall - kpx_call
	.long	.Lcall_reg - kpx_call_reg
	.long	.Lcall_mem - kpx_call_mem
	.long	.Lloop - kpx_loop
	.long	.Lret - kpx_ret
	.long	.Ladd - kpx_add
	.long	.Lriprel - kpx_riprel
	.long	.Lpushf - kpx_pushf
	.long	.Lload - kpx_load
	.long	.Lopt - kpx_opt
	.long	0
	.long	.Lmid - kpx_bad
	.long	.Lmovss - kpx_bad
	.long	.Lcall_rsp - kpx_bad
	.long	.Lstd - kpx_std
	.long	.Lpush - kpx_push
	.long	.Lopt_flags - kpx_opt_flags
	.long	.Lopt_jl - kpx_opt_jl
	.long	.Lopt_split - kpx_split
	.long	.Lopt_cold - kpx_split
	.long	.Llock - kpx_bad
	.long	.Lmce - kpx_bad
SYM_DATA_END(kpx_offsets)

	.data
	.balign 8
SYM_DATA(kpx_data, .quad 0x0123456789abcdef)
SYM_DATA(kpx_fnptr, .quad kpx_leaf)
