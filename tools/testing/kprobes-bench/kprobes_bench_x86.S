/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 targets of kprobes_bench (see kprobes_bench.h).
 */
#include <linux/linkage.h>

	.text
SYM_FUNC_START(kprobes_bench_target)
	movq	%rdi, %rax
.Lkpb_probe:
	/* The probed instruction, then 7 more bytes for a 5-byte jump. */
	addq	$1, %rax
	addq	$2, %rax
	addq	%rdi, %rax
	RET
SYM_FUNC_END(kprobes_bench_target)

SYM_FUNC_START(kprobes_bench_nops)
.Lkpb_nops:
	.rept	1024
	nop
	.endr
	RET
SYM_FUNC_END(kprobes_bench_nops)

SYM_FUNC_START(kprobes_bench_calib)
.Lkpb_calib:
	decq	%rdi
	jnz	.Lkpb_calib
	RET
SYM_FUNC_END(kprobes_bench_calib)

	.pushsection .rodata
	.balign 4
SYM_DATA(kprobes_bench_target_offset, .long .Lkpb_probe - kprobes_bench_target)
SYM_DATA(kprobes_bench_nops_offset, .long .Lkpb_nops - kprobes_bench_nops)
SYM_DATA(kprobes_bench_nops_stride, .long 1)
SYM_DATA(kprobes_bench_calib_insns, .long 2)
	.popsection
