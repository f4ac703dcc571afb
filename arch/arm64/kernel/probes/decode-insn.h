/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a probed A64 instruction is executed: shared by kprobes and uprobes.
 */
#ifndef _ARM64_KERNEL_PROBES_DECODE_INSN_H
#define _ARM64_KERNEL_PROBES_DECODE_INSN_H

#include <asm/probes.h>
#ifdef CONFIG_KPROBES
#include <asm/kprobes.h>
#endif

/**
 * enum probe_insn - what arm_probe_decode_insn() found
 * @INSN_REJECTED: the instruction must not be probed
 * @INSN_GOOD_NO_SLOT: the instruction is simulated by api->handler
 * @INSN_GOOD: the instruction does the same at any address: it may run
 *	out of line
 */
enum probe_insn {
	INSN_REJECTED,
	INSN_GOOD_NO_SLOT,
	INSN_GOOD,
};

enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api);

#ifdef CONFIG_KPROBES
enum probe_insn arm_kprobe_decode_insn(kprobe_opcode_t *addr, u32 insn,
				       struct arch_specific_insn *asi);
#endif

#endif /* _ARM64_KERNEL_PROBES_DECODE_INSN_H */
