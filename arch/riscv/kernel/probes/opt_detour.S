/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detour of an optimized kprobe.
 *
 * The probed instructions are replaced by a jump to a copy of this
 * template, made by arch_prepare_optimized_kprobe(), which fills in the
 * two literals and appends the displaced instructions and the jump back to
 * the instruction after them.  The template itself is never executed: it
 * lives in .rodata.  Linker relaxation is off, so that its PC-relative
 * references stay within it wherever it is copied.
 *
 * The jump lands on optprobe_detour_entry with every register of the
 * probed code but the dead one the jump went through.  The detour saves
 * them as a pt_regs below the stack pointer, with a frame record {s0,
 * probed address} for unwinders, and calls optprobe_callback(probed
 * address, regs).  When that returns 0, it restores the registers and runs
 * the displaced instructions.  Otherwise a handler moved the PC: the
 * EBREAK at optprobe_detour_exit lets riscv_opt_exit_handler() resume where
 * the pt_regs say, every register included, through an exception return.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/csr.h>

#include "probes-asm.h"

	.pushsection .rodata, "a"
	.option push
	.option norelax
	.balign	8
SYM_DATA_START(optprobe_detour)
SYM_INNER_LABEL(optprobe_detour_probe_addr, SYM_L_GLOBAL)
	RISCV_PTR	0
SYM_INNER_LABEL(optprobe_detour_callback, SYM_L_GLOBAL)
	RISCV_PTR	0
SYM_INNER_LABEL(optprobe_detour_exit, SYM_L_GLOBAL)
	ebreak
SYM_INNER_LABEL(optprobe_detour_entry, SYM_L_GLOBAL)
	addi	sp, sp, -KPROBES_FRAME_SIZE
	kprobes_save_regs
	REG_L	a0, optprobe_detour_probe_addr
	REG_S	a0, PT_EPC(sp)
	kprobes_frame_record a0

	mv	a1, sp
	REG_L	t0, optprobe_detour_callback
	jalr	t0
	bnez	a0, optprobe_detour_exit

	kprobes_restore_regs
	addi	sp, sp, KPROBES_FRAME_SIZE
SYM_INNER_LABEL(optprobe_detour_displaced, SYM_L_GLOBAL)
SYM_DATA_END(optprobe_detour)
	.option pop
	.popsection
