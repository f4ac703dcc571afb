/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probed functions of the riscv kprobes KUnit suite (kunit.c), written in
 * assembly so that the suite knows each instruction: its encoding (".option
 * rvc" with explicit C. mnemonics for compressed ones, ".option norvc" for
 * 32-bit ones), its alignment and its offset.  The offsets of the probed
 * instructions are exported in kprv_sites[] (struct kprv_site in kunit.c),
 * computed by the assembler: linker relaxation is off in this file.
 *
 * Each function writes t1 (and never reads it) where the suite wants a
 * scratch register for boosting or a detour: the analysis only uses dead
 * registers that the function itself writes.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-extable.h>

	.option norelax

	.pushsection .rodata, "a"
	.balign	8
SYM_DATA_START(kprv_sites)
	.popsection

/* A table entry: function, offset of the probed instruction, kind. */
.macro site fn, label, kind
	.pushsection .rodata, "a"
	RISCV_PTR	\fn
	.word		\label - \fn
	.word		\kind
	.popsection
.endm

/* kprv_site::kind, the way kunit.c expects the site to be handled. */
#define K_SLOT		0	/* runs out of line (boostable with t1) */
#define K_SIM		1	/* simulated */

	.text

/*
 * x + 15: compressed and 32-bit instructions, aligned and not.  kprv_seq is
 * near the start of the kernel text, within JAL range of the slots;
 * kprv_seq_far is in .text.unlikely, after the rest of the text.
 */
.macro seq_fn name
	.balign	4
SYM_FUNC_START(\name)
	.option	push
	.option	rvc
.L\name\()0:	c.addi	a0, 1
.L\name\()1:	c.addi	a0, 2
	.option	norvc
.L\name\()2:	addi	a0, a0, 4
	.option	rvc
.L\name\()3:	c.nop
	.option	norvc
.L\name\()4:	addi	a0, a0, 8
.L\name\()5:	li	t1, 0
.L\name\()6:	ret
	.option	pop
SYM_FUNC_END(\name)
	site	\name, .L\name\()0, K_SLOT
	site	\name, .L\name\()1, K_SLOT
	site	\name, .L\name\()2, K_SLOT
	site	\name, .L\name\()3, K_SLOT
	site	\name, .L\name\()4, K_SLOT
	site	\name, .L\name\()5, K_SLOT
	site	\name, .L\name\()6, K_SIM
.endm

	seq_fn	kprv_seq

/* Branches: (a0, a1) -> 1 if taken, 2 if not. */
.macro branch32 name, insn
	.balign	4
SYM_FUNC_START(\name)
	.option	push
	.option	norvc
.L\name\()_b:
	\insn	a0, a1, 1f
	li	a0, 2
	li	t1, 0
	ret
1:	li	a0, 1
	ret
	.option	pop
SYM_FUNC_END(\name)
	site	\name, .L\name\()_b, K_SIM
.endm

	branch32 kprv_beq, beq
	branch32 kprv_bne, bne
	branch32 kprv_blt, blt
	branch32 kprv_bge, bge
	branch32 kprv_bltu, bltu
	branch32 kprv_bgeu, bgeu

/* C.BEQZ, C.BNEZ: (a0) -> 1 if taken, 2 if not; at a 2-mod-4 address. */
.macro branch16 name, insn
	.balign	4
SYM_FUNC_START(\name)
	.option	push
	.option	rvc
	c.nop
.L\name\()_b:
	\insn	a0, 1f
	c.li	a0, 2
	c.li	t1, 0
	c.jr	ra
1:	c.li	a0, 1
	c.jr	ra
	.option	pop
SYM_FUNC_END(\name)
	site	\name, .L\name\()_b, K_SIM
.endm

	branch16 kprv_c_beqz, c.beqz
	branch16 kprv_c_bnez, c.bnez

/* x + 5, through its compressed return. */
	.balign	4
SYM_FUNC_START(kprv_add5)
	.option	push
	.option	norvc
	addi	a0, a0, 5
	.option	rvc
.Ladd5_ret:
	c.jr	ra
	.option	pop
SYM_FUNC_END(kprv_add5)
	site	kprv_add5, .Ladd5_ret, K_SIM

/* x + 1, jumping over a bad "li a0, 99": C.J and JAL x0. */
	.balign	4
SYM_FUNC_START(kprv_c_j)
	.option	push
	.option	rvc
.Lcj:	c.j	1f
	c.li	a0, 9
1:	c.addi	a0, 1
	c.jr	ra
	.option	pop
SYM_FUNC_END(kprv_c_j)
	site	kprv_c_j, .Lcj, K_SIM

	.balign	4
SYM_FUNC_START(kprv_j)
	.option	push
	.option	norvc
.Lj:	j	1f
	li	a0, 99
1:	addi	a0, a0, 1
	ret
	.option	pop
SYM_FUNC_END(kprv_j)
	site	kprv_j, .Lj, K_SIM

/*
 * x + 5 through calls to kprv_add5: JAL, JALR and C.JALR; its stack frame
 * opened and closed by the three forms of stack adjustment (simulated).
 */
	.balign	4
SYM_FUNC_START(kprv_call)
	.option	push
	.option	norvc
.Lcall_sp0:
	addi	sp, sp, -16
	.option	rvc
.Lcall_sp1:
	c.addi	sp, -16
	.option	norvc
	sd	ra, 8(sp)
.Lcall_jal:
	jal	ra, kprv_add5
	addi	a0, a0, -5
	lla	t0, kprv_add5
.Lcall_jalr:
	jalr	ra, 0(t0)
	addi	a0, a0, -5
	lla	t0, kprv_add5
	.option	rvc
.Lcall_cjalr:
	c.jalr	t0
	.option	norvc
	ld	ra, 8(sp)
	.option	rvc
.Lcall_sp2:
	c.addi16sp	sp, 32
	.option	norvc
	ret
	.option	pop
SYM_FUNC_END(kprv_call)
	site	kprv_call, .Lcall_sp0, K_SIM
	site	kprv_call, .Lcall_sp1, K_SIM
	site	kprv_call, .Lcall_sp2, K_SIM
	site	kprv_call, .Lcall_jal, K_SIM
	site	kprv_call, .Lcall_jalr, K_SIM
	site	kprv_call, .Lcall_cjalr, K_SIM

/* AUIPC: the address of the function itself, plus 4096 plus x. */
	.balign	4
SYM_FUNC_START(kprv_auipc)
	.option	push
	.option	norvc
	mv	t2, a0
.Lauipc:
	auipc	a0, 1
	addi	a0, a0, -4
	add	a0, a0, t2
	ret
	.option	pop
SYM_FUNC_END(kprv_auipc)
	site	kprv_auipc, .Lauipc, K_SIM

/*
 * Jump optimization, x + 3: the first two instructions are displaced into
 * the detour, t1 is dead after them (written, never read).
 */
.macro opt_fn name
	.balign	4
SYM_FUNC_START(\name)
	.option	push
	.option	norvc
.L\name\()0:	addi	a0, a0, 1
.L\name\()1:	addi	a0, a0, 2
	li	t1, 0
	ret
	.option	pop
SYM_FUNC_END(\name)
	site	\name, .L\name\()0, K_SLOT
	site	\name, .L\name\()1, K_SLOT
.endm

	opt_fn	kprv_opt

/* The same with an AUIPC displaced: the address of the function + 16. */
	.balign	4
SYM_FUNC_START(kprv_opt_auipc)
	.option	push
	.option	norvc
.Lopta:	auipc	a0, 0
	addi	a0, a0, 16
	li	t1, 0
	ret
	.option	pop
SYM_FUNC_END(kprv_opt_auipc)
	site	kprv_opt_auipc, .Lopta, K_SIM

/*
 * *p += 1 in an LR/SC loop: LR, what is between, and SC may not be
 * probed; the branch after the SC may.  Returns the old value.
 */
	.balign	4
SYM_FUNC_START(kprv_lrsc)
	.option	push
	.option	norvc
.Llr:	lr.w	t0, (a0)
.Linc:	addiw	t2, t0, 1
.Lsc:	sc.w	t1, t2, (a0)
.Lbnez:	bnez	t1, .Llr
	mv	a0, t0
	ret
	.option	pop
SYM_FUNC_END(kprv_lrsc)
	site	kprv_lrsc, .Llr, K_SLOT
	site	kprv_lrsc, .Linc, K_SLOT
	site	kprv_lrsc, .Lsc, K_SLOT
	site	kprv_lrsc, .Lbnez, K_SIM

/*
 * Loads *p, or returns -EFAULT (-14) through its exception table entry.
 * The load has an exception table entry: it is stepped, never boosted.
 */
	.balign	4
SYM_FUNC_START(kprv_load)
	.option	push
	.option	norvc
	li	t1, 0
.Lload:	ld	a0, 0(a0)
2:	ret
3:	li	a0, -14
	j	2b
	.option	pop
	_asm_extable	.Lload, 3b
SYM_FUNC_END(kprv_load)
	site	kprv_load, .Lload, K_SLOT

/* Never called: instructions kprobes refuses. */
	.balign	4
SYM_FUNC_START(kprv_refused)
	.option	push
	.option	norvc
.Lr0:	ebreak
.Lr1:	ecall
.Lr2:	csrr	a0, sstatus
.Lr3:	csrw	sscratch, a0
.Lr4:	wfi
.Lr5:	sret
	.option	rvc
.Lr6:	c.ebreak
	.option	norvc
	ret
	.option	pop
SYM_FUNC_END(kprv_refused)
	site	kprv_refused, .Lr0, K_SLOT
	site	kprv_refused, .Lr1, K_SLOT
	site	kprv_refused, .Lr2, K_SLOT
	site	kprv_refused, .Lr3, K_SLOT
	site	kprv_refused, .Lr4, K_SLOT
	site	kprv_refused, .Lr5, K_SLOT
	site	kprv_refused, .Lr6, K_SLOT

/*
 * Never called: an instruction of a custom opcode, which kprobes refuses
 * but decodes past.
 */
	.balign	4
SYM_FUNC_START(kprv_custom)
	.option	push
	.option	norvc
.Lcu0:	.insn	r 0x0b, 0, 0, t1, t1, t1
.Lcu1:	addi	a0, a0, 1
	ret
	.option	pop
SYM_FUNC_END(kprv_custom)
	site	kprv_custom, .Lcu0, K_SLOT
	site	kprv_custom, .Lcu1, K_SLOT

/* Far from the slots: the jumps back and into detours take AUIPC+JALR. */
	.pushsection .text.unlikely, "ax"
	seq_fn	kprv_seq_far
	opt_fn	kprv_opt_far

/*
 * a0 + 3, ignoring a1, which it overwrites, as it does a5: both are dead at
 * the entry, and no temporary is written.
 */
	.balign	4
SYM_FUNC_START(kprv_opt_args_far)
	.option	push
	.option	norvc
	addi	a0, a0, 1
	addi	a0, a0, 2
	li	a1, 0
	li	a5, 0
	ret
	.option	pop
SYM_FUNC_END(kprv_opt_args_far)
	.popsection

	.pushsection .rodata, "a"
SYM_DATA_END_LABEL(kprv_sites, SYM_L_GLOBAL, kprv_sites_end)
	.popsection
