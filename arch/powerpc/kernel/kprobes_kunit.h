/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probed functions of the powerpc kprobes KUnit test, and their probed
 * instructions (kprobes_kunit_asm.S).
 */
#ifndef _POWERPC_KERNEL_KPROBES_KUNIT_H
#define _POWERPC_KERNEL_KPROBES_KUNIT_H

#include <linux/types.h>

long kpp_add(long x);
long kpp_branch(long x);
long kpp_call(long x);
long kpp_big_frame(void);
long kpp_large_gep(long x);
long kpp_redzone(long x);
long kpp_ret_r0(void);
long kpp_ret_r0_call(long *r0);
long kpp_pvr(void);
long kpp_load(const long *p);
long kpp_lmw(const u32 *p);
long kpp_larx(long *p);
long kpp_prefixed(long x);
long kpp_pcrel(void);
void kpp_pcrel_load(void);

extern const u32 kpp_branch_beq[], kpp_branch_blr[];
extern const u32 kpp_call_std[], kpp_call_stdu[], kpp_call_bl[];
extern const u32 kpp_call_blr[];
extern const u32 kpp_big_frame_stdu[];
extern const u32 kpp_redzone_li[];
extern const u32 kpp_refused[];
extern const u32 kpp_hard_window[];
extern const u32 kpp_larx_addi[], kpp_larx_bne[];

/* The words of kpp_refused, all refused with -EINVAL but the last one. */
#define KPP_REFUSED_WORDS	22

/* The words of kpp_hard_window. */
#define KPP_HARD_WINDOW_WORDS	39

#endif /* _POWERPC_KERNEL_KPROBES_KUNIT_H */
