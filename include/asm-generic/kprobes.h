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
 *
 * A dozen callers in the tree write NOKPROBE_SYMBOL(fn) without a semicolon,
 * the others with one: the macro ends with an empty inline function, a
 * complete definition after which the caller's ';' is an empty declaration.
 */
# define __NOKPROBE_SYMBOL(fname)					\
	static unsigned long __used __section("_kprobe_blacklist")	\
	__nokprobe_##fname = (unsigned long)(fname);			\
	static inline void __nokprobe_end_##fname(void) { }
/*
 * Code placed in .kprobes.text is never probed, nor traced: the arch code
 * that marks functions __kprobes (fault and debug exception paths, text
 * patching, instruction decoding) is called by kprobes and ftrace alike.
 */
# define __kprobes	notrace __section(".kprobes.text")
/* Inlined so that the caller's blacklisting covers it too. */
# define nokprobe_inline	__always_inline
#else
/* Nothing to record; valid with or without the caller's ';', as above. */
# define __NOKPROBE_SYMBOL(fname)					\
	static inline void __nokprobe_end_##fname(void) { }
# define __kprobes
# define nokprobe_inline	inline
#endif
# define NOKPROBE_SYMBOL(fname)	__NOKPROBE_SYMBOL(fname)
#endif /* __KERNEL__ && !__ASSEMBLY__ */

#endif /* _ASM_GENERIC_KPROBES_H */
