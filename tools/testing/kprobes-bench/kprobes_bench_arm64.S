/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 targets of kprobes_bench (see kprobes_bench.h).
 */
#include <linux/linkage.h>

	.text
SYM_FUNC_START(kprobes_bench_target)
	mov	x1, x0
.Lkpb_probe:
	add	x0, x0, #1
	add	x0, x0, #2
	add	x0, x0, x1
	ret
SYM_FUNC_END(kprobes_bench_target)

SYM_FUNC_START(kprobes_bench_nops)
.Lkpb_nops:
	.rept	1024
	nop
	.endr
	ret
SYM_FUNC_END(kprobes_bench_nops)

SYM_FUNC_START(kprobes_bench_calib)
.Lkpb_calib:
	subs	x0, x0, #1
	b.ne	.Lkpb_calib
	ret
SYM_FUNC_END(kprobes_bench_calib)

	.pushsection .rodata
	.balign 4
SYM_DATA(kprobes_bench_target_offset, .long .Lkpb_probe - kprobes_bench_target)
SYM_DATA(kprobes_bench_nops_offset, .long .Lkpb_nops - kprobes_bench_nops)
SYM_DATA(kprobes_bench_nops_stride, .long 4)
SYM_DATA(kprobes_bench_calib_insns, .long 2)
	.popsection
