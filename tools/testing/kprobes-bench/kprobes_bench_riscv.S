/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riscv64 targets of kprobes_bench (see kprobes_bench.h).  No compressed
 * instructions: every probed instruction is 4 bytes.
 *
 * Both probed functions write t0, a temporary, after the probed
 * instructions, as compiled functions use temporaries: a jump back from an
 * out-of-line copy (boosting), into a detour and back from it
 * (optimization) needs a register that holds nothing of value, and a
 * function that writes none has none to give.
 */
#include <linux/linkage.h>

	.text
	.option	push
	.option	norvc
SYM_FUNC_START(kprobes_bench_target)
	mv	a1, a0
.Lkpb_probe:
	addi	a0, a0, 1
	addi	a0, a0, 2
	li	t0, 0
	add	a0, a0, a1
	ret
SYM_FUNC_END(kprobes_bench_target)

SYM_FUNC_START(kprobes_bench_nops)
.Lkpb_nops:
	.rept	1024
	nop
	.endr
	li	t0, 0
	ret
SYM_FUNC_END(kprobes_bench_nops)

SYM_FUNC_START(kprobes_bench_calib)
.Lkpb_calib:
	addi	a0, a0, -1
	bnez	a0, .Lkpb_calib
	ret
SYM_FUNC_END(kprobes_bench_calib)
	.option	pop

	.pushsection .rodata
	.balign 4
SYM_DATA(kprobes_bench_target_offset, .long .Lkpb_probe - kprobes_bench_target)
SYM_DATA(kprobes_bench_nops_offset, .long .Lkpb_nops - kprobes_bench_nops)
SYM_DATA(kprobes_bench_nops_stride, .long 4)
SYM_DATA(kprobes_bench_calib_insns, .long 2)
	.popsection
