/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of powerpc kprobes: kprobes.c (trap probes) and
 * optprobes.c (jump optimization).
 */
#ifndef _POWERPC_KERNEL_KPROBES_INTERNAL_H
#define _POWERPC_KERNEL_KPROBES_INTERNAL_H

#include <linux/types.h>
#include <asm/inst.h>

struct instruction_op;
struct pt_regs;

/* kprobes.c */
int kprobe_classify(ppc_inst_t insn, struct instruction_op *op);
bool kprobe_insn_pcrel(ppc_inst_t insn);

#endif /* _POWERPC_KERNEL_KPROBES_INTERNAL_H */
