/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpc64 targets of kprobes_bench (see kprobes_bench.h).  Leaf functions
 * that use no TOC: called through a pointer, they need no global entry code.
 */
#include <linux/linkage.h>

	.text
SYM_FUNC_START(kprobes_bench_target)
	mr	4, 3
.Lkpb_probe:
	addi	3, 3, 1
	addi	3, 3, 2
	add	3, 3, 4
	blr
SYM_FUNC_END(kprobes_bench_target)

SYM_FUNC_START(kprobes_bench_nops)
.Lkpb_nops:
	.rept	1024
	nop
	.endr
	blr
SYM_FUNC_END(kprobes_bench_nops)

SYM_FUNC_START(kprobes_bench_calib)
	mtctr	3
.Lkpb_calib:
	bdnz	.Lkpb_calib
	blr
SYM_FUNC_END(kprobes_bench_calib)

	.pushsection .rodata
	.balign 4
SYM_DATA(kprobes_bench_target_offset, .long .Lkpb_probe - kprobes_bench_target)
SYM_DATA(kprobes_bench_nops_offset, .long .Lkpb_nops - kprobes_bench_nops)
SYM_DATA(kprobes_bench_nops_stride, .long 4)
SYM_DATA(kprobes_bench_calib_insns, .long 1)
	.popsection
