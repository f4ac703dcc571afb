/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef _ASM_GENERIC_KPROBES_H
#define _ASM_GENERIC_KPROBES_H

#if defined(__KERNEL__) && !defined(__ASSEMBLY__)
#ifdef CONFIG_KPROBES
/*
 * NOKPROBE_SYMBOL(fn) records the address of @fn in the _kprobe_blacklist
 * section.  kprobes reads that section (of vmlinux at boot, of a module when it
 * is loaded) and refuses probes anywhere inside the function.  Taking the
 * address also keeps @fn out of line, so that there is a function to refuse.
 * The macro ends its own declaration: a dozen callers in the tree write it
 * without a semicolon.
 */
# define __NOKPROBE_SYMBOL(fname)					\
	static unsigned long __used __section("_kprobe_blacklist")	\
	__nokprobe_##fname = (unsigned long)(fname);
/* Code placed in .kprobes.text is never probed. */
# define __kprobes	__section(".kprobes.text")
/* Inlined so that the caller's blacklisting covers it too. */
# define nokprobe_inline	__always_inline
#else
/* A harmless declaration, valid with or without the caller's ';'. */
# define __NOKPROBE_SYMBOL(fname)	struct __nokprobe_unused_##fname;
# define __kprobes
# define nokprobe_inline	inline
#endif
# define NOKPROBE_SYMBOL(fname)	__NOKPROBE_SYMBOL(fname)
#endif /* __KERNEL__ && !__ASSEMBLY__ */

#endif /* _ASM_GENERIC_KPROBES_H */
