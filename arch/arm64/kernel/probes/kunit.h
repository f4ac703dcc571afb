/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probed functions of the arm64 kprobes KUnit suite (kunit_asm.S).
 */
#ifndef _ARM64_KERNEL_PROBES_KUNIT_H
#define _ARM64_KERNEL_PROBES_KUNIT_H

#include <linux/linkage.h>
#include <linux/types.h>

/**
 * struct kpa_site - a probed instruction of kunit_asm.S
 * @fn: the function
 * @off: the offset of the instruction in it
 * @pad: padding, to match the 16-byte entries of kunit_asm.S
 */
struct kpa_site {
	void *fn;
	u32 off;
	u32 pad;
};

/* Indexes in kpa_sites[], in the order of kunit_asm.S. */
enum {
	KPA_B, KPA_BL, KPA_BCOND, KPA_CBZ, KPA_CBNZ, KPA_TBZ, KPA_TBNZ,
	KPA_ADR, KPA_ADRP, KPA_LDR_X, KPA_LDR_W, KPA_LDRSW, KPA_PRFM,
	KPA_BR, KPA_BLR, KPA_RET, KPA_NOP, KPA_ADD, KPA_ADD2, KPA_PACIASP,
	KPA_MRS_DAIF, KPA_DAIFSET, KPA_MSR_DAIF, KPA_LOAD,
	KPA_LDXR, KPA_EXCL_MID, KPA_STXR, KPA_EXCL_AFTER,
	KPA_HVC, KPA_ERET, KPA_RETAA, KPA_MRS_ELR, KPA_MSR_SPSEL,
	KPA_LDR_Q, KPA_SVC, KPA_CMP, KPA_MSR_PAN, KPA_LOAD_ACQ, KPA_MSR_NZCV,
	KPA_NR_SITES
};

extern const struct kpa_site kpa_sites[], kpa_sites_end[];
extern const u64 kpa_data[2];

asmlinkage long kpa_b(long x);
asmlinkage long kpa_bl(long x);
asmlinkage long kpa_add7(long x);
asmlinkage long kpa_bcond(long x);
asmlinkage long kpa_cbz(long x);
asmlinkage long kpa_cbnz(long x);
asmlinkage long kpa_tbz(long x);
asmlinkage long kpa_tbnz(long x);
asmlinkage long kpa_adr(long x);
asmlinkage long kpa_adrp(long x);
asmlinkage long kpa_ldr(long x);
asmlinkage long kpa_prfm(long x);
asmlinkage long kpa_br(long x);
asmlinkage long kpa_blr(long x);
asmlinkage long kpa_ret(long x);
asmlinkage long kpa_nop(long x);
asmlinkage long kpa_add(long x);
asmlinkage long kpa_cmp(long x);
asmlinkage long kpa_msr_nzcv(long x);
asmlinkage long kpa_add2(long x);
asmlinkage long kpa_paciasp(long x);
asmlinkage long kpa_mrs_daif(long x);
asmlinkage long kpa_daifset(long x);
asmlinkage long kpa_msr_daif(long x);
asmlinkage long kpa_load(const long *p);
asmlinkage long kpa_load_acq(const long *p);
asmlinkage long kpa_excl(long *p);
asmlinkage void kpa_refused(void);

#endif /* _ARM64_KERNEL_PROBES_KUNIT_H */
