/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions probed by the arm64 kprobes KUnit suite (kunit.c): each probed
 * instruction is known, its place is in kpa_sites[].  Every function takes
 * and returns a long in x0.
 */
#include <linux/errno.h>
#include <linux/linkage.h>
#include <asm/asm-extable.h>
#include <asm/assembler.h>

	.text

/* B over an ADD: x + 1. */
SYM_FUNC_START(kpa_b)
	mov	x1, x0
.Lb:	b	1f
	add	x1, x1, #100
1:	add	x0, x1, #1
	ret
SYM_FUNC_END(kpa_b)

SYM_FUNC_START(kpa_add7)
	add	x0, x0, #7
	ret
SYM_FUNC_END(kpa_add7)

/* BL: x + 7. */
SYM_FUNC_START(kpa_bl)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
.Lbl:	bl	kpa_add7
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kpa_bl)

/* B.LT: x < 10 (signed). */
SYM_FUNC_START(kpa_bcond)
	cmp	x0, #10
.Lbcond: b.lt	1f
	mov	x0, #0
	ret
1:	mov	x0, #1
	ret
SYM_FUNC_END(kpa_bcond)

/* CBZ on the low 32 bits: 9 if they are zero, else 5. */
SYM_FUNC_START(kpa_cbz)
.Lcbz:	cbz	w0, 1f
	mov	x0, #5
	ret
1:	mov	x0, #9
	ret
SYM_FUNC_END(kpa_cbz)

/* CBNZ: 9 if x != 0, else 5. */
SYM_FUNC_START(kpa_cbnz)
.Lcbnz:	cbnz	x0, 1f
	mov	x0, #5
	ret
1:	mov	x0, #9
	ret
SYM_FUNC_END(kpa_cbnz)

/* TBZ on bit 35: 9 if clear, else 5. */
SYM_FUNC_START(kpa_tbz)
.Ltbz:	tbz	x0, #35, 1f
	mov	x0, #5
	ret
1:	mov	x0, #9
	ret
SYM_FUNC_END(kpa_tbz)

/* TBNZ on bit 3: 9 if set, else 5. */
SYM_FUNC_START(kpa_tbnz)
.Ltbnz:	tbnz	w0, #3, 1f
	mov	x0, #5
	ret
1:	mov	x0, #9
	ret
SYM_FUNC_END(kpa_tbnz)

/* &kpa_data. */
SYM_FUNC_START(kpa_adr)
.Ladr:	adr	x0, kpa_data
	ret
SYM_FUNC_END(kpa_adr)

/* The 4 KiB page of kpa_data. */
SYM_FUNC_START(kpa_adrp)
.Ladrp:	adrp	x0, kpa_data
	ret
SYM_FUNC_END(kpa_adrp)

/* x == 0: LDR X; x == 1: LDR W; else LDRSW of the high word. */
SYM_FUNC_START(kpa_ldr)
	cbz	x0, 1f
	cmp	x0, #1
	b.eq	2f
.Lldrsw: ldrsw	x0, kpa_data + 4
	ret
1:
.Lldrx:	ldr	x0, kpa_data
	ret
2:
.Lldrw:	ldr	w0, kpa_data
	ret
SYM_FUNC_END(kpa_ldr)

/* PRFM (literal): x + 3. */
SYM_FUNC_START(kpa_prfm)
.Lprfm:	prfm	pldl1keep, kpa_data
	add	x0, x0, #3
	ret
SYM_FUNC_END(kpa_prfm)

/* BR: 3. */
SYM_FUNC_START(kpa_br)
	adr	x1, 1f
.Lbr:	br	x1
	mov	x0, #0
	ret
1:	hint	#36			// BTI J: the target of BR
	mov	x0, #3
	ret
SYM_FUNC_END(kpa_br)

/* BLR: x + 7. */
SYM_FUNC_START(kpa_blr)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x1, kpa_add7
.Lblr:	blr	x1
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kpa_blr)

/* RET: x + 4. */
SYM_FUNC_START(kpa_ret)
	add	x0, x0, #4
.Lret:	ret
SYM_FUNC_END(kpa_ret)

/* NOP: x + 2. */
SYM_FUNC_START(kpa_nop)
.Lnop:	nop
	add	x0, x0, #2
	ret
SYM_FUNC_END(kpa_nop)

/* ADD, run out of line: x + 11. */
SYM_FUNC_START(kpa_add)
.Ladd:	add	x0, x0, #11
	ret
SYM_FUNC_END(kpa_add)

/* ADD: x + 13, where a redirecting handler sends kpa_add. */
SYM_FUNC_START(kpa_add2)
.Ladd2:	add	x0, x0, #13
	ret
SYM_FUNC_END(kpa_add2)

/* CMP, run out of line, then CSET: x == 5, from the flags of the copy. */
SYM_FUNC_START(kpa_cmp)
.Lcmp:	cmp	x0, #5
	cset	x0, eq
	ret
SYM_FUNC_END(kpa_cmp)

/* MSR PAN, #1: only probed, never called (not every CPU has PAN). */
SYM_FUNC_START(kpa_msr_pan)
.Lmsr_pan: .inst 0xd500419f		// MSR PAN, #1
	ret
SYM_FUNC_END(kpa_msr_pan)

/* MSR NZCV, then CSET: 1 if x has the Z bit, from the flags the MSR set. */
SYM_FUNC_START(kpa_msr_nzcv)
.Lmsr_nzcv: msr	nzcv, x0
	cset	x0, eq
	ret
SYM_FUNC_END(kpa_msr_nzcv)

/* PACIASP/AUTIASP around a call, run out of line: x + 7. */
SYM_FUNC_START(kpa_paciasp)
.Lpaciasp: hint	#25			// PACIASP
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	kpa_add7
	ldp	x29, x30, [sp], #16
	hint	#29			// AUTIASP
	ret
SYM_FUNC_END(kpa_paciasp)

/* DAIF as read by MRS. */
SYM_FUNC_START(kpa_mrs_daif)
.Lmrs_daif: mrs	x0, daif
	ret
SYM_FUNC_END(kpa_mrs_daif)

/* DAIF after MSR DAIFSet, #2 (I), restored before returning. */
SYM_FUNC_START(kpa_daifset)
	mrs	x1, daif
.Ldaifset: msr	daifset, #2
	mrs	x0, daif
	msr	daif, x1
	ret
SYM_FUNC_END(kpa_daifset)

/* DAIF after MSR DAIF, x, restored before returning. */
SYM_FUNC_START(kpa_msr_daif)
	mrs	x1, daif
.Lmsr_daif: msr	daif, x0
	mrs	x0, daif
	msr	daif, x1
	ret
SYM_FUNC_END(kpa_msr_daif)

/* *p, or -EFAULT through the exception table. */
SYM_FUNC_START(kpa_load)
	mov	x1, x0
.Lload:	ldr	x0, [x1]
	ret
.Lload_fault:
	mov	x0, #-EFAULT
	ret
	_asm_extable_uaccess .Lload, .Lload_fault
SYM_FUNC_END(kpa_load)

/*
 * *p with acquire semantics, or -EFAULT through the exception table: an
 * LDAR from an address that is not 8-byte aligned takes an alignment fault.
 */
SYM_FUNC_START(kpa_load_acq)
	mov	x1, x0
.Lldar:	ldar	x0, [x1]
	ret
.Lldar_fault:
	mov	x0, #-EFAULT
	ret
	_asm_extable_uaccess .Lldar, .Lldar_fault
SYM_FUNC_END(kpa_load_acq)

/* ++*p, with a load/store exclusive loop. */
SYM_FUNC_START(kpa_excl)
.Lldxr:	ldxr	x1, [x0]
.Lexcl_mid: add	x1, x1, #1
.Lstxr:	stxr	w2, x1, [x0]
.Lexcl_after: cbnz w2, .Lldxr
	mov	x0, x1
	ret
SYM_FUNC_END(kpa_excl)

/* Never called: instructions kprobes refuses. */
SYM_FUNC_START(kpa_refused)
.Lhvc:	hvc	#0
.Leret:	eret
.Lretaa: .inst	0xd65f0bff		// RETAA
.Lmrs_elr: mrs	x0, elr_el1
.Lmsr_spsel: msr spsel, #1
.Lldr_q: ldr	q0, kpa_data
.Lsvc:	svc	#0
	ret
SYM_FUNC_END(kpa_refused)

/* Literals within reach of ADR and LDR (literal): in the text. */
	.align	3
SYM_DATA_START(kpa_data)
	.quad	0x8765432112345678
	.quad	0
SYM_DATA_END(kpa_data)

	.pushsection .rodata, "a"
	.macro	site, fn, label
	.quad	\fn
	.word	\label - \fn
	.word	0
	.endm

	.align	3
SYM_DATA_START(kpa_sites)
	site	kpa_b, .Lb
	site	kpa_bl, .Lbl
	site	kpa_bcond, .Lbcond
	site	kpa_cbz, .Lcbz
	site	kpa_cbnz, .Lcbnz
	site	kpa_tbz, .Ltbz
	site	kpa_tbnz, .Ltbnz
	site	kpa_adr, .Ladr
	site	kpa_adrp, .Ladrp
	site	kpa_ldr, .Lldrx
	site	kpa_ldr, .Lldrw
	site	kpa_ldr, .Lldrsw
	site	kpa_prfm, .Lprfm
	site	kpa_br, .Lbr
	site	kpa_blr, .Lblr
	site	kpa_ret, .Lret
	site	kpa_nop, .Lnop
	site	kpa_add, .Ladd
	site	kpa_add2, .Ladd2
	site	kpa_paciasp, .Lpaciasp
	site	kpa_mrs_daif, .Lmrs_daif
	site	kpa_daifset, .Ldaifset
	site	kpa_msr_daif, .Lmsr_daif
	site	kpa_load, .Lload
	site	kpa_excl, .Lldxr
	site	kpa_excl, .Lexcl_mid
	site	kpa_excl, .Lstxr
	site	kpa_excl, .Lexcl_after
	site	kpa_refused, .Lhvc
	site	kpa_refused, .Leret
	site	kpa_refused, .Lretaa
	site	kpa_refused, .Lmrs_elr
	site	kpa_refused, .Lmsr_spsel
	site	kpa_refused, .Lldr_q
	site	kpa_refused, .Lsvc
	site	kpa_cmp, .Lcmp
	site	kpa_msr_pan, .Lmsr_pan
	site	kpa_load_acq, .Lldar
	site	kpa_msr_nzcv, .Lmsr_nzcv
SYM_DATA_END_LABEL(kpa_sites, SYM_L_GLOBAL, kpa_sites_end)
	.popsection
