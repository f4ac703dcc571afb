// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_pin_c: a second module of handlers.  kprobes_pin_b.ko (mixed=1)
 * tries to register one probe with a pre handler of kprobes_pin_a and the
 * post handler of this module, which the core refuses: a probe's handlers
 * may be in one module besides the registrant.  Used by kprobes_pin.sh.
 */
#include <linux/kprobes.h>
#include <linux/module.h>

#include "kprobes_pin.h"

/**
 * kprobes_pin_post() - a post handler, never called: the probe that names
 *	it is refused
 * @p: the probe
 * @regs: the registers after the instruction
 * @flags: unused
 */
void kprobes_pin_post(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
}
EXPORT_SYMBOL_GPL(kprobes_pin_post);

MODULE_DESCRIPTION("kprobes selftest: a second module of handlers");
MODULE_LICENSE("GPL");
