/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of arm64 kprobes.
 */
#ifndef _ARM64_KERNEL_PROBES_COMMON_H
#define _ARM64_KERNEL_PROBES_COMMON_H

#include <linux/sizes.h>
#include <linux/types.h>

/* Whether a B at @from reaches @to: +/-128 MiB. */
static inline bool kprobe_b_reaches(unsigned long from, unsigned long to)
{
	long off = to - from;

	return off >= -(long)SZ_128M && off < (long)SZ_128M;
}

#endif /* _ARM64_KERNEL_PROBES_COMMON_H */
