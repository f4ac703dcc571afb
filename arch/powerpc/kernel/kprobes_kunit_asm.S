/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The functions the powerpc kprobes KUnit test probes (kprobes_kunit.c),
 * in assembly so that the test knows each probed instruction.  The
 * kpp_*_<insn> labels are the probed instructions.
 */
#include <asm/asm-offsets.h>
#include <asm/ppc_asm.h>
#include <asm/extable.h>

	.text

/* long kpp_add(long x): x + 1 */
_GLOBAL(kpp_add)
	addi	r3, r3, 1
	blr

/* long kpp_branch(long x): x ? x + 10 : 0 */
_GLOBAL(kpp_branch)
	cmpdi	r3, 0
	.globl	kpp_branch_beq
kpp_branch_beq:
	beq	1f
	addi	r3, r3, 10
	.globl	kpp_branch_blr
kpp_branch_blr:
1:	blr

/* long kpp_call(long x): kpp_add(x) + 1, in a stack frame */
_GLOBAL(kpp_call)
	mflr	r0
	.globl	kpp_call_std
kpp_call_std:
	std	r0, 16(r1)
	.globl	kpp_call_stdu
kpp_call_stdu:
	stdu	r1, -32(r1)
	.globl	kpp_call_bl
kpp_call_bl:
	bl	kpp_add
	addi	r3, r3, 1
	addi	r1, r1, 32
	ld	r0, 16(r1)
	mtlr	r0
	.globl	kpp_call_blr
kpp_call_blr:
	blr

/* long kpp_big_frame(void): 1024, from the back chain its stdu r1 wrote */
_GLOBAL(kpp_big_frame)
	.globl	kpp_big_frame_stdu
kpp_big_frame_stdu:
	stdu	r1, -1024(r1)
	ld	r3, 0(r1)
	subf	r3, r1, r3
	addi	r1, r1, 1024
	blr

/*
 * long kpp_large_gep(long x): x + 3, with the global entry of the large code
 * model (modules'), which loads the TOC offset from the doubleword before.
 */
	.balign	8
	.quad	0
	.globl	kpp_large_gep
	.type	kpp_large_gep, @function
kpp_large_gep:
	ld	r2, -8(r12)
	add	r2, r2, r12
	.localentry kpp_large_gep, . - kpp_large_gep
	addi	r3, r3, 3
	blr
	.size	kpp_large_gep, . - kpp_large_gep

/* long kpp_redzone(long x): x + 2, kept meanwhile below the stack pointer */
_GLOBAL(kpp_redzone)
	std	r3, -8(r1)
	.globl	kpp_redzone_li
kpp_redzone_li:
	li	r3, 0
	ld	r3, -8(r1)
	addi	r3, r3, 2
	blr

/*
 * long kpp_ret_r0(void): 7, returning with r0 = 0x7e57, which a kretprobe
 * must leave to its handlers and to the caller (volatile, but asm callers
 * may agree on it)
 */
_GLOBAL(kpp_ret_r0)
	li	r3, 7
	li	r0, 0x7e57
	blr

/* long kpp_ret_r0_call(long *r0): kpp_ret_r0(), and r0 after it in *r0 */
_GLOBAL(kpp_ret_r0_call)
	mflr	r0
	std	r0, 16(r1)
	std	r31, -8(r1)
	stdu	r1, -48(r1)
	mr	r31, r3
	li	r0, 0
	bl	kpp_ret_r0
	std	r0, 0(r31)
	addi	r1, r1, 48
	ld	r31, -8(r1)
	ld	r0, 16(r1)
	mtlr	r0
	blr

/* long kpp_pvr(void): the PVR, which emulate_step() does not read */
_GLOBAL(kpp_pvr)
	mfspr	r3, 287		/* SPRN_PVR */
	blr

/* long kpp_load(const long *p): *p, or -EFAULT (-14) if it faults */
_GLOBAL(kpp_load)
1:	ld	r3, 0(r3)
	blr
2:	li	r3, -14
	blr
	EX_TABLE(1b, 2b)

/*
 * long kpp_lmw(const u32 *p): *p by lmw, or -EFAULT (-14) if it faults.
 * In little-endian mode lmw takes an alignment interrupt, and
 * fix_alignment() emulates it (or fails, and the exception table fixes
 * it).  Encoded by hand: the assembler refuses lmw in little-endian mode.
 */
_GLOBAL(kpp_lmw)
	std	r31, -8(r1)
1:	.long	0xbbe30000	/* lmw r31, 0(r3) */
	mr	r3, r31
	ld	r31, -8(r1)
	blr
2:	ld	r31, -8(r1)
	li	r3, -14
	blr
	EX_TABLE(1b, 2b)

/* long kpp_larx(long *p): ++*p in a reservation loop, the new value */
_GLOBAL(kpp_larx)
1:	ldarx	r4, 0, r3
	.globl	kpp_larx_addi
kpp_larx_addi:
	addi	r4, r4, 1
	stdcx.	r4, 0, r3
	.globl	kpp_larx_bne
kpp_larx_bne:
	bne-	1b
	mr	r3, r4
	blr

/* long kpp_prefixed(long x): x + 1000, with a prefixed instruction */
	.balign	8
_GLOBAL(kpp_prefixed)
	.long	0x06000000	/* paddi r3, r3, 1000 */
	.long	0x386303e8
	blr

/* long kpp_pcrel(void): its own address, with a PC-relative pla */
	.balign	8
_GLOBAL(kpp_pcrel)
	.long	0x06100000	/* pla r3, 0 */
	.long	0x38600000
	blr

/*
 * A PC-relative load, never executed: it cannot run out of line and its
 * emulation may fail, so it is refused.
 */
	.balign	8
_GLOBAL(kpp_pcrel_load)
	.long	0x04100000	/* pld r3, 0(0), 1 */
	.long	0xe4600000
	blr

/*
 * Never executed: a hard_irq_disable(), the end of an
 * arch_local_irq_restore(), a ppc64_runlatch_off() and a hard_irq_disable()
 * of a KASAN build, as GCC writes them.  The words between the
 * mtmsrd and the paca stores are in hard-disabled windows (the test's
 * table says which).
 */
_GLOBAL(kpp_hard_window)
	addi	r3, r3, 1
	li	r9, 2
	mtmsrd	r9, 1
	li	r10, 3
	stb	r10, PACAIRQSOFTMASK(r13)
	lbz	r9, PACAIRQHAPPENED(r13)
	ori	r9, r9, 1
	stb	r9, PACAIRQHAPPENED(r13)
	addi	r3, r3, 1
	b	1f
1:	li	r9, 0
	stb	r9, PACAIRQSOFTMASK(r13)
	li	r10, 0
	stb	r9, PACAIRQHAPPENED(r13)
	ori	r10, r10, 0x8002
	mtmsrd	r10, 1
	addi	r3, r3, 1
	blr
	/* ppc64_runlatch_off(): a window across a call */
	li	r9, 2
	mtmsrd	r9, 1
	bl	kpp_add
	lbz	r9, PACAIRQHAPPENED(r13)
	andi.	r9, r9, 1
	bne	2f
	li	r9, 0
	ori	r9, r9, 0x8002
	mtmsrd	r9, 1
2:	addi	r3, r3, 1
	blr
	/* hard_irq_disable() under KASAN: the paca through a copy of r13 */
	li	r9, 2
	mtmsrd	r9, 1
	mr	r31, r13
	bl	kpp_add
	lbz	r9, PACAIRQHAPPENED(r31)
	ori	r9, r9, 1
	stb	r9, PACAIRQHAPPENED(r31)
	b	3f
3:	addi	r3, r3, 1
	blr

/* Instructions that must not be probed, never executed. */
_GLOBAL(kpp_refused)
	.long	0x7c600164	/* mtmsrd r3 */
	.long	0x7c602028	/* lwarx r3, 0, r4 */
	.long	0x7c60212d	/* stwcx. r3, 0, r4 */
	.long	0x7c6020a8	/* ldarx r3, 0, r4 */
	.long	0x7c6021ad	/* stdcx. r3, 0, r4 */
	.long	0x44000002	/* sc */
	.long	0x7fe00008	/* trap */
	.long	0x0c830000	/* twi 4, r3, 0 */
	.long	0x4c000024	/* rfid */
	.long	0x4c000224	/* hrfid */
	.long	0x7c7a03a6	/* mtspr SRR0, r3 */
	.long	0x7c7d03a6	/* mtspr AMR, r3 */
	.long	0x7c7043a6	/* mtspr SPRG0, r3 */
	.long	0x4c0002e4	/* stop */
	.long	0x4e800460	/* bctar: a branch analyse_instr() does not know */
	.long	0x00000000	/* not an instruction */
	.long	0x00000028	/* a jump table's entry */
	.long	0xffffff80	/* a negative one, -128 (opcode 63) */
	lbz	r3, PACAIRQSOFTMASK(r13)
	stb	r3, PACAIRQSOFTMASK(r13)
	lbzx	r3, r13, r4
	.long	0x7c6803a6	/* mtlr r3: this one may be probed */
	blr
