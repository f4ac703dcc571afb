/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Simulation of the A64 instructions that cannot run out of line.
 */
#ifndef _ARM64_KERNEL_PROBES_SIMULATE_INSN_H
#define _ARM64_KERNEL_PROBES_SIMULATE_INSN_H

#include <linux/types.h>

struct pt_regs;

/*
 * Each one has the probes_handler_t prototype: @opcode was at @addr, @regs
 * are the registers there; on return @regs are those after the instruction
 * (PC included, PSTATE.BTYPE cleared).
 */
void a64_sim_adr_adrp(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_b_bl(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_b_cond(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_br_blr_ret(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_cbz_cbnz(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_tbz_tbnz(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_ldr_literal(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_ldrsw_literal(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_nop(u32 opcode, long addr, struct pt_regs *regs);

/* Kernel code only (kprobes). */
void a64_sim_mrs_daif(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_msr_daif(u32 opcode, long addr, struct pt_regs *regs);
void a64_sim_msr_daif_imm(u32 opcode, long addr, struct pt_regs *regs);

#endif /* _ARM64_KERNEL_PROBES_SIMULATE_INSN_H */
