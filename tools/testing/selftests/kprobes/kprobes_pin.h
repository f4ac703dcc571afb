/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The handlers that kprobes_pin_a.ko and kprobes_pin_c.ko export and
 * kprobes_pin_b.ko registers.
 */
#ifndef KPROBES_PIN_H
#define KPROBES_PIN_H

#include <linux/kprobes.h>

int kprobes_pin_pre(struct kprobe *p, struct pt_regs *regs);
int kprobes_pin_ret(struct kretprobe_instance *ri, struct pt_regs *regs);
void kprobes_pin_post(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags);

#endif /* KPROBES_PIN_H */
