/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Simulation of the riscv instructions that cannot run out of line: they
 * depend on where they are (AUIPC) or change the control flow; and of the
 * stack adjustment that opens and closes functions, which kprobes simulate
 * so that a function entry takes one trap.  Each
 * handler updates the registers as the instruction at @addr would have,
 * instruction pointer included.  @insn is the instruction as read from
 * memory: for a compressed one only its low 16 bits count.
 */
#ifndef _RISCV_KERNEL_PROBES_SIMULATE_INSN_H
#define _RISCV_KERNEL_PROBES_SIMULATE_INSN_H

#include <linux/types.h>

struct pt_regs;

bool simulate_auipc(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_jal(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_jalr(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_branch(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_c_j(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_c_jal(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_c_jr(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_c_jalr(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_c_beqz(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_c_bnez(u32 insn, unsigned long addr, struct pt_regs *regs);
bool simulate_sp_adjust(u32 insn, unsigned long addr, struct pt_regs *regs);

#endif /* _RISCV_KERNEL_PROBES_SIMULATE_INSN_H */
