/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The targets of kprobes_bench, in kprobes_bench_$(SRCARCH).S: small
 * assembly functions whose probe offsets are exact on every arch.
 */
#ifndef _KPROBES_BENCH_H
#define _KPROBES_BENCH_H

#include <linux/types.h>

/* Probeable instructions of kprobes_bench_nops() (it has a few more). */
#define KPB_NOPS	1000

/*
 * A few plain instructions and a return; the breakpoint and jump probes go on
 * the instruction kprobes_bench_target_offset bytes into it, which is
 * followed by enough plain instructions for a jump to replace.
 */
unsigned long kprobes_bench_target(unsigned long x);
extern const u32 kprobes_bench_target_offset;

/*
 * KPB_NOPS and more nops, kprobes_bench_nops_stride bytes each, from
 * kprobes_bench_nops_offset bytes into the function (after a landing pad),
 * then return.
 */
void kprobes_bench_nops(void);
extern const u32 kprobes_bench_nops_offset;
extern const u32 kprobes_bench_nops_stride;

/* @n (>= 1) rounds of a loop of kprobes_bench_calib_insns instructions. */
void kprobes_bench_calib(unsigned long n);
extern const u32 kprobes_bench_calib_insns;

/*
 * The function-entry target, in C (kprobes_bench_main.c): traced, so that it
 * has an ftrace site where the arch has one.
 */
unsigned long kprobes_bench_func(unsigned long x);

#endif /* _KPROBES_BENCH_H */
