// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerpc kprobes: trap probes.
 *
 * A probe is a "trap" (tw 31,0,0, BREAKPOINT_INSTRUCTION) over the probed
 * instruction, written with patch_instruction() and made visible to every
 * CPU once per batch.  A prefixed (ISA 3.1) instruction is probed on its
 * prefix word: the trap replaces the prefix and the suffix is never
 * executed, since execution resumes after the whole instruction.
 *
 * At a hit, do_program_check() calls kprobe_handler(), which runs the pre
 * handlers, then the probed instruction, in one of two ways:
 *
 *   - emulated on the saved registers by emulate_step() (sstep.c), which
 *     handles branches, arithmetic, loads and stores and more: nothing runs
 *     out of line, and the post handlers run at once;
 *   - single-stepped: when emulation is not possible (an instruction
 *     emulate_step() does not know, or a load or store that faults), the
 *     exception returns to a copy of the instruction in an instruction slot
 *     with MSR_SE set and interrupts soft-masked, so that the task can be
 *     neither preempted nor migrated until the trace interrupt, where
 *     kprobe_post_handler() resumes after the probed instruction and runs
 *     the post handlers.
 *
 * Instructions that must not be probed are refused: those that change the
 * MSR or return from interrupt (mtmsr[d], rfid, hrfid, ...), system calls
 * and traps, load-reserve/store-conditional pairs and what lies between them
 * (the return from every trap clears the reservation: the store would fail
 * at each hit, forever), moves to the SPRs the interrupt entry
 * and exit paths use (SRR0/1, SPRGs, AMR, ...), power saving, and
 * PC-relative (prefixed, R=1) loads and stores, which could only be
 * emulated, with nothing to fall back on if that fails, and the words of a
 * hard-disabled window (below).
 *
 * A probe hit while another one is handled on this CPU (a handler calls
 * probed code) runs no handler: the hit is counted as missed and the
 * instruction is emulated, which needs no per-CPU state; only one that must
 * be stepped saves the interrupted probe (one level).  A fault of a stepped
 * copy is moved back to the probed address, where the exception table entry
 * of the instruction, if any, is.
 *
 * On ELFv2, a probe on a function (offset 0) lands on its local entry
 * point, after the TOC setup of the global entry point, where both local and
 * global calls go through; with CONFIG_KPROBES_ON_FTRACE, on the ftrace call
 * site that follows, which is armed through ftrace (kprobes-ftrace.c).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/code-patching.h>
#include <asm/inst.h>
#include <asm/interrupt.h>
#include <asm/paca.h>
#include <asm/probes.h>
#include <asm/ptrace.h>
#include <asm/sections.h>
#include <asm/sstep.h>

#include "kprobes-internal.h"

/* ---------------------------------------------------------------------------
 * Decoding (kprobe_mutex held)
 * ---------------------------------------------------------------------------
 */

/* SPRs the interrupt entry/exit code, and so single-stepping, relies on. */
static bool kprobe_unsafe_spr(unsigned int spr)
{
	switch (spr) {
	case SPRN_SRR0:
	case SPRN_SRR1:
	case SPRN_SPRG0:
	case SPRN_SPRG1:
	case SPRN_SPRG2:
	case SPRN_SPRG3:
	case SPRN_SPRG4:
	case SPRN_SPRG5:
	case SPRN_SPRG6:
	case SPRN_SPRG7:
#ifdef CONFIG_PPC_BOOK3S_64
	case SPRN_HSRR0:
	case SPRN_HSRR1:
	case SPRN_HSPRG0:
	case SPRN_HSPRG1:
	case SPRN_AMR:
	case SPRN_IAMR:
	case SPRN_UAMOR:
	case SPRN_AMOR:
	case SPRN_LPCR:
	case SPRN_LPID:
	case SPRN_PID:
	case SPRN_PTCR:
	case SPRN_PSSCR:
#endif
		return true;
	}
	return false;
}

/**
 * kprobe_insn_pcrel() - whether an instruction uses its own address
 * @insn: the instruction
 *
 * Besides branches: addpcis and the prefixed instructions with R=1.
 *
 * Return: true if it would compute something else at another address.
 */
bool kprobe_insn_pcrel(ppc_inst_t insn)
{
	u32 word = ppc_inst_val(insn);

	if (ppc_inst_prefixed(insn))
		return GET_PREFIX_R(word);
	return get_op(word) == OP_19 && ((word >> 1) & 0x1f) == 2;
}

/* analyse_instr() of @insn in a kernel context (it checks privilege). */
static int kprobe_analyse(struct instruction_op *op, ppc_inst_t insn)
{
	struct pt_regs regs;

	memset(&regs, 0, sizeof(regs));
	regs.msr = mfmsr();
	return analyse_instr(op, &regs, insn);
}

#ifdef CONFIG_PPC64
/*
 * Whether the r13-based access @word (decoded in @op) may reach the paca
 * field at offset @field.  An indexed one could reach any field.
 */
static bool kprobe_paca_field(const struct instruction_op *op, u32 word,
			      unsigned long field)
{
	/* kprobe_analyse() ran with r13 = 0: the address is the offset. */
	return get_op(word) == 31 ||
	       (op->ea <= field && field < op->ea + GETSIZE(op->type));
}
#endif

/*
 * Whether @insn reads or writes this CPU's soft mask of interrupts in the
 * paca.  While it is emulated or stepped, that byte is the trap's own (all
 * masked), and the trap's return writes the probed context's back: a load
 * would read the wrong mask, a store would be lost.  Indexed accesses based
 * on r13 could reach any field: they are refused too.
 */
static bool kprobe_insn_soft_mask(ppc_inst_t insn,
				  const struct instruction_op *op)
{
#ifdef CONFIG_PPC64
	u32 word = ppc_inst_prefixed(insn) ? ppc_inst_suffix(insn) :
					     ppc_inst_val(insn);

	if (!OP_IS_LOAD_STORE(GETTYPE(op->type)) || ((word >> 16) & 0x1f) != 13)
		return false;
	return kprobe_paca_field(op, word,
				 offsetof(struct paca_struct, irq_soft_mask));
#else
	return false;
#endif
}

/**
 * kprobe_classify() - how a probed instruction can be run
 * @insn: the instruction
 * @op: its decoding by analyse_instr(), for the caller
 *
 * Return: the enum kprobe_insn_kind to use, or -EINVAL if it must not be
 * probed.
 */
int kprobe_classify(ppc_inst_t insn, struct instruction_op *op)
{
	u32 word = ppc_inst_val(insn);
	int ret;

	/*
	 * Data, not code.  GCC puts its jump tables in the text after their
	 * bctr: words that are offsets from the table, multiples of 4, of
	 * -1 MiB to 64 MiB.  A trap over one sends the switch to the trap's
	 * value added to the table's address.  The positive ones have opcode
	 * 0, illegal (or "attn"), as has padding; the negative ones are
	 * opcode 63 on f31 and f16-f31 with Rc clear, an FP instruction that
	 * no kernel C code has (it is soft-float).
	 */
	if (!get_op(word) || (word >= 0xfff00000 && !(word & 3)))
		return -EINVAL;
	if (is_trap(word) || !can_single_step(word))
		return -EINVAL;
	/*
	 * bctar (opcode 19, XO 560) is a branch that analyse_instr() does not
	 * know: stepped in the slot, it would leave for TAR, and the trace
	 * interrupt would not be kprobes'.
	 */
	if (get_op(word) == 19 && get_xop(word) == 560)
		return -EINVAL;

	ret = kprobe_analyse(op, insn);

	switch (GETTYPE(op->type)) {
	case SYSCALL:
	case SYSCALL_VECTORED_0:
	case RFI:
	case MTMSR:
	case LARX:
	case STCX:
	case INTERRUPT:
		return -EINVAL;
	case MTSPR:
		if (kprobe_unsafe_spr(op->spr))
			return -EINVAL;
		break;
	}
	if (kprobe_insn_soft_mask(insn, op))
		return -EINVAL;

	/*
	 * A store with update of r1 through r1 allocates a stack frame.
	 * emulate_step() defers the store of its back chain to the trap's
	 * exit when the frame is within an interrupt frame's size, and does
	 * it at once otherwise: below the trap's frame, into the handlers'
	 * own frames.  Step those in the slot; so too the indexed form
	 * (stdux), whose size kprobe_analyse() cannot know.
	 */
	if (GETTYPE(op->type) == STORE && (op->type & UPDATE) &&
	    op->reg == 1 && op->update_reg == 1 &&
	    (get_op(word) == 31 ||
	     (long)op->ea < -(long)STACK_INT_FRAME_SIZE))
		return KP_INSN_STEP_ONLY;

	/*
	 * Register-only instructions and branches are always emulated, and
	 * their emulation cannot fail.  A PC-relative load or store (prefixed,
	 * R=1) would compute its address from the slot if it ran there, so it
	 * could only be emulated, and that may fail (a fault, floating point
	 * or vector state not live in the kernel): with no slot to fall back
	 * on, the trap could then neither be left nor handled.  Refuse it.
	 */
	if (ret > 0)
		return KP_INSN_EMULATE;
	if (kprobe_insn_pcrel(insn))
		return -EINVAL;
	return KP_INSN_STEP;
}

/* The first word of the instruction at @pos, as it was before kprobes. */
static int kprobe_orig_word(unsigned long pos, u32 *word)
{
	struct kprobe *site = get_kprobe((kprobe_opcode_t *)pos);

	if (site) {
		*word = site->opcode;
		return 0;
	}
	return get_kernel_nofault(*word, (u32 *)pos);
}

/*
 * Whether @addr is the suffix of a prefixed instruction, decoding the
 * function from its start.  Armed probes and optimized jumps replaced some
 * first words: their sites give the original ones.  Only a CPU that runs
 * prefixed instructions can have some in its code.
 */
static bool kprobe_in_prefixed(unsigned long addr)
{
	unsigned long size, offset, pos;
	u32 word;

	if (!IS_ENABLED(CONFIG_PPC64) || !cpu_has_feature(CPU_FTR_ARCH_31))
		return false;
	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return false;

	for (pos = addr - offset; pos < addr; pos += 4) {
		if (kprobe_orig_word(pos, &word))
			return false;
		if (get_op(word) == OP_PREFIX)
			pos += 4;
	}
	return pos != addr;
}

/* How far back a load-reserve may be from its store-conditional. */
#define KP_RESERVE_SCAN_WORDS	16

/*
 * LARX, STCX or another type of analyse_instr(), for the word at @pos; 0
 * when it cannot be read.
 */
static int kprobe_reserve_type(unsigned long pos)
{
	struct instruction_op op;
	u32 word;

	if (kprobe_orig_word(pos, &word) || get_op(word) != 31)
		return 0;
	kprobe_analyse(&op, ppc_inst(word));
	return GETTYPE(op.type);
}

/*
 * Whether @addr lies between a load-reserve and its store-conditional:
 * looking back, a larx comes before any stcx.  Not bounded by the symbol of
 * @addr, which may be a label inside the loop; the words before a function
 * can only make a probe refused.
 */
static bool kprobe_in_reservation(unsigned long addr)
{
	int n;

	for (n = 0; n < KP_RESERVE_SCAN_WORDS; n++) {
		addr -= sizeof(u32);
		switch (kprobe_reserve_type(addr)) {
		case STCX:
			return false;
		case LARX:
			return true;
		}
	}
	return false;
}

#ifdef CONFIG_PPC64
/*
 * Hard-disabled windows.  With MSR_EE clear, the paca must say why: the
 * soft mask disabled and PACA_IRQ_HARD_DIS set.  The code that moves
 * between the two states has short stretches where it does not:
 *
 *	hard_irq_disable():		mtmsrd (EE off); soft mask := disabled;
 *					irq_happened |= PACA_IRQ_HARD_DIS
 *	arch_local_irq_restore()'s end:	soft mask := enabled;
 *					irq_happened := 0; mtmsrd (EE on)
 *
 * A trap there is a synchronous interrupt that the interrupt entry does
 * not expect: with PACA_IRQ_HARD_DIS clear it turns MSR_EE on for the
 * handler (INT_SOFT_MASK_BUG_ON() under PPC_IRQ_SOFT_MASK_DEBUG), and an
 * interrupt taken then sets bits of irq_happened that the window's
 * read-modify-write of it overwrites (a lost decrementer or doorbell); a
 * context soft-enabled with MSR_EE clear warns on the return.  Such
 * words are refused: looking back from the probed word, then at it and
 * ahead, in straight-line code (conditional branches and calls are passed
 * over, an unconditional branch or a return ends the run):
 *
 *	an mtmsrd (or wrtee[i]) before it, then a store to irq_happened;
 *	a store to the soft mask or irq_happened before it, then an mtmsrd;
 *	an mtmsrd before it and one after it, and no store to irq_happened
 *	(ppc64_runlatch_off(): mtmsrd, a call, mtmsrd).
 *
 * Whether an mtmsrd turns EE on or off is not decoded: a few words next
 * to a hard_irq_disable() after a local_irq_disable() are refused too.
 * The functions that run inside a window, and those that
 * prep_irq_for_idle() returns to, soft-enabled and hard-disabled until
 * their idle instruction or hypervisor call, are blacklisted by name
 * (kprobe_irq_window[]).
 */
#define KP_MSR_SCAN_WORDS	16

enum kprobe_irq_word {
	KP_IRQ_OTHER,
	KP_IRQ_END,		/* an unconditional branch or a return */
	KP_IRQ_CALL,		/* a branch and link */
	KP_IRQ_MSR,		/* mtmsrd, mtmsr, wrtee, wrteei */
	KP_IRQ_SOFT_MASK,	/* a store to paca->irq_soft_mask */
	KP_IRQ_HAPPENED,	/* a store to paca->irq_happened */
};

/*
 * stb or stbu to a paca field's offset from a register other than r13:
 * taken for a copy of r13 (KASAN's builds keep one across the check's
 * call before each access).
 */
static enum kprobe_irq_word kprobe_irq_byte_store(u32 word)
{
	unsigned int d = word & 0xffff;

	if (get_op(word) != 38 && get_op(word) != 39)
		return KP_IRQ_OTHER;
	if (d == offsetof(struct paca_struct, irq_happened))
		return KP_IRQ_HAPPENED;
	if (d == offsetof(struct paca_struct, irq_soft_mask))
		return KP_IRQ_SOFT_MASK;
	return KP_IRQ_OTHER;
}

static enum kprobe_irq_word kprobe_irq_word(unsigned long pos)
{
	struct instruction_op op;
	u32 word;

	if (kprobe_orig_word(pos, &word))
		return KP_IRQ_END;
	switch (get_op(word)) {
	case 18:				/* b, bl */
		return (word & 1) ? KP_IRQ_CALL : KP_IRQ_END;
	case 19:				/* bclr, bcctr, bctar */
		if (get_xop(word) != 16 && get_xop(word) != 528 &&
		    get_xop(word) != 560)
			return KP_IRQ_OTHER;
		fallthrough;
	case 16:				/* bc */
		if (word & 1)
			return KP_IRQ_CALL;
		/* BO "branch always"; else it may not be taken. */
		if (((word >> 21) & 0x14) == 0x14)
			return KP_IRQ_END;
		return KP_IRQ_OTHER;
	case 31:
		switch (get_xop(word)) {
		case 178:			/* mtmsrd */
		case 146:			/* mtmsr */
		case 131:			/* wrtee */
		case 163:			/* wrteei */
			return KP_IRQ_MSR;
		}
		break;
	}
	if (((word >> 16) & 0x1f) != 13)
		return kprobe_irq_byte_store(word);
	kprobe_analyse(&op, ppc_inst(word));
	if (GETTYPE(op.type) != STORE)
		return KP_IRQ_OTHER;
	if (kprobe_paca_field(&op, word,
			      offsetof(struct paca_struct, irq_happened)))
		return KP_IRQ_HAPPENED;
	if (kprobe_paca_field(&op, word,
			      offsetof(struct paca_struct, irq_soft_mask)))
		return KP_IRQ_SOFT_MASK;
	return KP_IRQ_OTHER;
}

/*
 * Scan from @pos by @step words for one of the kinds in the mask @want,
 * passing over calls and those in @skip; anything else that is not
 * KP_IRQ_OTHER, or KP_MSR_SCAN_WORDS words, ends the scan.
 */
static bool kprobe_irq_scan(unsigned long pos, long step, unsigned int want,
			    unsigned int skip)
{
	enum kprobe_irq_word kind;
	int n;

	skip |= BIT(KP_IRQ_OTHER) | BIT(KP_IRQ_CALL);
	for (n = 0; n < KP_MSR_SCAN_WORDS; n++, pos += step) {
		kind = kprobe_irq_word(pos);
		if (BIT(kind) & want)
			return true;
		if (!(BIT(kind) & skip))
			return false;
	}
	return false;
}

static bool kprobe_in_hard_disabled(unsigned long addr)
{
	const long w = sizeof(u32);
	const unsigned int mask = BIT(KP_IRQ_SOFT_MASK);
	const unsigned int store = mask | BIT(KP_IRQ_HAPPENED);

	/* EE turned off, irq_happened not written before EE changes again. */
	if (kprobe_irq_scan(addr - w, -w, BIT(KP_IRQ_MSR), mask) &&
	    kprobe_irq_scan(addr, w, BIT(KP_IRQ_HAPPENED) | BIT(KP_IRQ_MSR),
			    mask))
		return true;
	/* The paca says enabled, EE not turned on yet. */
	return kprobe_irq_scan(addr - w, -w, store, 0) &&
	       kprobe_irq_scan(addr, w, BIT(KP_IRQ_MSR), store);
}
#else
static bool kprobe_in_hard_disabled(unsigned long addr)
{
	return false;
}
#endif

/**
 * arch_prepare_kprobe() - decode a probed instruction, prepare its execution
 * @p: the site
 *
 * Return: 0; -EILSEQ if @p->addr is not word aligned or is the suffix of a
 * prefixed instruction; -EINVAL if the instruction must not be probed;
 * -ENOMEM or -EFAULT.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	struct arch_specific_insn *asi = &p->ainsn;
	unsigned long addr = (unsigned long)p->addr;
	struct instruction_op op;
	ppc_inst_t insn;
	int kind;

	if (!IS_ALIGNED(addr, sizeof(kprobe_opcode_t)) || kprobe_in_prefixed(addr))
		return -EILSEQ;
	if (copy_inst_from_kernel_nofault(&insn, p->addr))
		return -EFAULT;

	kind = kprobe_classify(insn, &op);
	if (kind < 0)
		return kind;
	if (kprobe_in_reservation(addr) || kprobe_in_hard_disabled(addr))
		return -EINVAL;

	memset(asi, 0, sizeof(*asi));
	asi->insn = insn;
	asi->len = ppc_inst_len(insn);
	asi->kind = kind;
	if (kind == KP_INSN_STEP || kind == KP_INSN_STEP_ONLY) {
		asi->slot = get_insn_slot();
		if (!asi->slot)
			return -ENOMEM;
		if (patch_instruction(asi->slot, insn)) {
			free_insn_slot(asi->slot, 0);
			asi->slot = NULL;
			return -EFAULT;
		}
	}
	p->opcode = ppc_inst_val(insn);
	return 0;
}

static void kprobe_write(struct kprobe *p, ppc_inst_t insn)
{
	int ret = patch_instruction(p->addr, insn);

	if (ret)
		pr_err("cannot patch %pS: %d\n", p->addr, ret);
}

/**
 * arch_arm_kprobe() - write the trap of a site
 * @p: the site
 *
 * Context: text_mutex held; visible everywhere after arch_kprobe_sync().
 */
void arch_arm_kprobe(struct kprobe *p)
{
	kprobe_write(p, ppc_inst(BREAKPOINT_INSTRUCTION));
}

/**
 * arch_disarm_kprobe() - put back the probed instruction of a site
 * @p: the site
 *
 * Only the word the trap replaced is written: the suffix of a prefixed
 * instruction never changed, and a single aligned word is replaced
 * atomically for a CPU fetching it.
 *
 * Context: text_mutex held; visible everywhere after arch_kprobe_sync().
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	/* Not patch_instruction(): it would write a prefix with a suffix. */
	int ret = patch_u32(p->addr, p->opcode);

	if (ret)
		pr_err("cannot patch %pS: %d\n", p->addr, ret);
}

/**
 * arch_kprobe_sync() - make the text written since the last call visible
 *
 * patch_instruction() flushed the caches; what another CPU may still have
 * fetched is discarded by the context synchronization of an IPI.
 *
 * Context: text_mutex held.
 */
void arch_kprobe_sync(void)
{
	kick_all_cpus_sync();
}

/**
 * arch_remove_kprobe() - free the slot of a site
 * @p: the site
 *
 * A copy only runs stepped, with interrupts soft-masked between two
 * exceptions, which the grace period before this call covers: the slot is
 * clean.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (!p->ainsn.slot)
		return;
	free_insn_slot(p->ainsn.slot, 0);
	p->ainsn.slot = NULL;
}

/* ---------------------------------------------------------------------------
 * Where probes land, and what must not be probed
 * ---------------------------------------------------------------------------
 */

/* The global entry of the large code model (modules): TOC from a literal. */
#define KPROBE_LD_R2_M8_R12	0xe84cfff8	/* ld r2,-8(r12) */
#define KPROBE_ADD_R2_R2_R12	0x7c426214	/* add r2,r2,r12 */

/*
 * The entry of the function at @func: its local entry point (ELFv2), or the
 * ftrace call site right after it when probes there go through ftrace.  The
 * global entry words are read as they were before kprobes (a probe may
 * already be on the second one).  ppc_function_entry() knows the global
 * entry of the medium code model, the kernel's; modules are built with the
 * large one.
 */
static unsigned long kprobe_func_entry(unsigned long func)
{
	unsigned long entry = func, size, offset;
	u32 gep[2];
	int err;

	if (IS_ENABLED(CONFIG_PPC64_ELF_ABI_V2)) {
		rcu_read_lock();
		err = kprobe_orig_word(func, &gep[0]) ||
		      kprobe_orig_word(func + sizeof(u32), &gep[1]);
		rcu_read_unlock();
		if (!err && gep[0] == KPROBE_LD_R2_M8_R12 &&
		    gep[1] == KPROBE_ADD_R2_R2_R12)
			entry = func + sizeof(gep);
		else if (!err)
			entry = ppc_function_entry(gep) - (unsigned long)gep + func;
	}
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
		/* mflr r0; [std r0,16(r1);] bl _mcount, in the function. */
		unsigned long last = entry + 12, site;

		if (kallsyms_lookup_size_offset(func, &size, &offset))
			last = min(last, func - offset + size - 1);
		site = ftrace_location_range(entry, last);
		if (site)
			entry = site;
	}
	return entry;
}

/**
 * arch_adjust_kprobe_addr() - where a probe in a function lands
 * @addr: the requested address
 * @offset: its offset in its function
 * @on_func_entry: set if the probe is at the entry of the function
 *
 * A probe on the function itself (@offset 0) goes to its entry (see
 * kprobe_func_entry()); any address up to that entry counts as the entry,
 * since the return address is still in the link register there.
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long func = addr - offset;
	unsigned long entry = kprobe_func_entry(func);

	*on_func_entry = IS_ALIGNED(addr, sizeof(kprobe_opcode_t)) &&
			 addr <= entry;
	return (kprobe_opcode_t *)(offset ? addr : entry);
}

#ifdef CONFIG_PPC64_ELF_ABI_V1
/**
 * kprobe_lookup_name() - the text address of a function, for probing
 * @name: "func" or "module:func", with or without the dot of ELFv1 text
 *	symbols
 * @offset: unused
 *
 * Return: the address of ".func", or of @name when there is no dot symbol.
 */
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset)
{
	char dot[MODULE_NAME_LEN + 1 + KSYM_NAME_LEN];
	const char *colon = strchr(name, ':');
	const char *sym = colon ? colon + 1 : name;
	unsigned long addr = 0;
	int len = colon ? colon - name + 1 : 0;

	if (*sym != '.' &&
	    snprintf(dot, sizeof(dot), "%.*s.%s", len, name, sym) < sizeof(dot))
		addr = kallsyms_lookup_name(dot);
	if (!addr)
		addr = kallsyms_lookup_name(name);
	return (kprobe_opcode_t *)addr;
}
#endif

/*
 * The interrupt code: the head of the kernel (interrupt vectors, real mode
 * trampolines), which runs with translation off or with state that a trap
 * would destroy, and on 64-bit Book3S the rest of head_64.S up to
 * __end_soft_masked: the common interrupt handlers and the system call and
 * interrupt return code, much of which runs with MSR_RI clear (a program
 * check there is unrecoverable) or with the soft-mask state half set up.
 * NOKPROBE_SYMBOL() does not cover it: the _real and _virt labels inside
 * each *_common handler end that symbol early.  The soft-mask and restart
 * tables only list ranges within it.
 */
static unsigned long kprobe_interrupt_code_end(void)
{
#ifdef CONFIG_PPC_BOOK3S_64
	return (unsigned long)__end_soft_masked;
#else
	return (unsigned long)__head_end;
#endif
}

static bool kprobe_in_interrupt_code(unsigned long addr)
{
	return addr >= (unsigned long)_stext &&
	       addr < kprobe_interrupt_code_end();
}

/**
 * arch_within_kprobe_blacklist() - whether an address is in powerpc code that
 *	must never be probed
 * @addr: the address
 *
 * Return: true for the interrupt code at the start of the kernel text and
 * for the detour buffer of optprobes.
 */
bool arch_within_kprobe_blacklist(unsigned long addr)
{
	return kprobe_in_interrupt_code(addr) || optprobe_in_buffer(addr);
}

/*
 * The C functions a probe's own trap goes through, before kprobe_handler() or
 * kprobe_post_handler() and after them, on the way back: a probe in one would
 * trap again from its own handling, without end.  With them the C exit
 * functions of system calls and of interrupts to user mode, which end with
 * MSR_RI clear (prep_irq_for_enabled_exit()), where a program check is
 * unrecoverable.  Entry and exit code elsewhere is noinstr, which the core
 * refuses; here it is plain C.  The static ones are looked up by name: they
 * may have been inlined.
 */
static const char *const kprobe_trap_path[] __initconst = {
	"program_check_exception",
	"emulation_assist_interrupt",
	"do_program_check",
	"single_step_exception",
	"__single_step_exception",
	"interrupt_exit_kernel_prepare",
	"interrupt_exit_kernel_restart",
	"check_return_regs_valid",
	"syscall_exit_prepare",
	"syscall_exit_restart",
	"interrupt_exit_user_prepare",
	"interrupt_exit_user_prepare_main",
	"interrupt_exit_user_restart",
};

/*
 * The parts of ftrace's entry code (trace/ftrace_entry.S) the core does not
 * know by name (see blacklist_ftrace_entry()).  Every traced function calls
 * that code before its prologue, with r0 the caller's LR and LR the return
 * into the function: a kretprobe would send the traced function itself to
 * the return trampoline.  Names a configuration lacks are not found.
 */
static const char *const kprobe_ftrace_entry[] __initconst = {
	"ftrace_no_trace",
	"livepatch_handler",
};

/*
 * Hard-disabled windows across calls (see kprobe_in_hard_disabled()): the
 * runlatch writes, called between the two mtmsrd of ppc64_runlatch_on()
 * and _off(), and the callers of prep_irq_for_idle(), which go on
 * soft-enabled with MSR_EE clear until the idle instruction or hypervisor
 * call turns it on.  Its cpuidle caller, check_and_cede_processor(), is
 * __cpuidle, in the noinstr text the core refuses.
 */
static const char *const kprobe_irq_window[] __initconst = {
	"__ppc64_runlatch_on",
	"__ppc64_runlatch_off",
	"pseries_lpar_idle",
	"power4_idle",
	"cbe_power_save",
};

static int __init kprobe_blacklist_names(const char *const *names, int n)
{
	unsigned long addr;
	int i, ret;

	for (i = 0; i < n; i++) {
		addr = kallsyms_lookup_name(names[i]);
		ret = addr ? kprobe_add_ksym_blacklist(addr) : 0;
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * arch_populate_kprobe_blacklist() - the powerpc ranges and functions that
 *	must never be probed
 *
 * The interrupt code at the start of the kernel text, the functions of the
 * trap path, the rest of ftrace's entry code, the functions in or after
 * hard-disabled windows and the detour buffer.
 *
 * Return: 0 or -errno.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	int ret;

	ret = kprobe_add_area_blacklist((unsigned long)_stext,
					kprobe_interrupt_code_end());
	ret = ret ?: kprobe_blacklist_names(kprobe_trap_path,
					    ARRAY_SIZE(kprobe_trap_path));
	ret = ret ?: kprobe_blacklist_names(kprobe_ftrace_entry,
					    ARRAY_SIZE(kprobe_ftrace_entry));
	ret = ret ?: kprobe_blacklist_names(kprobe_irq_window,
					    ARRAY_SIZE(kprobe_irq_window));
	return ret ?: optprobe_populate_blacklist();
}

/* ---------------------------------------------------------------------------
 * The hit path: program check or trace interrupt, interrupts soft-masked
 * ---------------------------------------------------------------------------
 */

static void kprobe_save_prev(struct kprobe_ctlblk *kcb)
{
	kcb->prev_kprobe.kp = kprobe_running();
	kcb->prev_kprobe.status = kcb->kprobe_status;
}

NOKPROBE_SYMBOL(kprobe_save_prev);

static void kprobe_restore_prev(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, kcb->prev_kprobe.kp);
	kcb->kprobe_status = kcb->prev_kprobe.status;
}

NOKPROBE_SYMBOL(kprobe_restore_prev);

/*
 * Run the probed instruction on @regs, which must be at the probed address.
 * With page faults disabled: a load or store that faults fails here and is
 * retried in the slot, where the fault is the probed context's.
 */
static nokprobe_inline bool kprobe_emulate(struct kprobe *p,
					   struct pt_regs *regs)
{
	int ret;

	if (p->ainsn.kind < KP_INSN_EMULATE)
		return false;
	pagefault_disable();
	ret = emulate_step(regs, p->ainsn.insn);
	pagefault_enable();
	return ret > 0;
}

/* Resume in the slot, stepping one instruction, interrupts soft-masked. */
static void kprobe_step(struct kprobe *p, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb)
{
	kcb->saved_msr = regs->msr;
#ifdef CONFIG_PPC64
	kcb->saved_softe = regs->softe;
	regs->softe = IRQS_ALL_DISABLED;
#else
	regs_set_return_msr(regs, regs->msr & ~MSR_EE);
#endif
	enable_single_step(regs);
	regs_set_return_ip(regs, (unsigned long)p->ainsn.slot);
}

NOKPROBE_SYMBOL(kprobe_step);

/*
 * The stepped copy ran, or faulted: back to the probed context's interrupt
 * state, at @nip.  A masked interrupt may have hard-disabled interrupts
 * meanwhile; a context with interrupts enabled gets MSR_EE back, and the
 * interrupt return replays what is pending.
 */
static void kprobe_step_done(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			     unsigned long nip)
{
	unsigned long msr = regs->msr & ~MSR_SINGLESTEP;

#ifdef CONFIG_PPC64
	regs->softe = kcb->saved_softe;
	if (!arch_irq_disabled_regs(regs))
		msr |= kcb->saved_msr & MSR_EE;
#else
	msr |= kcb->saved_msr & MSR_EE;
#endif
	regs_set_return_msr(regs, msr);
	regs_set_return_ip(regs, nip);
}

NOKPROBE_SYMBOL(kprobe_step_done);

/* Whether @cur's copy is being stepped and @regs are at @off in its slot. */
static bool kprobe_in_step(struct kprobe *cur, struct pt_regs *regs,
			   struct kprobe_ctlblk *kcb, unsigned int off)
{
	return cur && cur->ainsn.slot &&
	       (kcb->kprobe_status == KPROBE_HIT_SS ||
		kcb->kprobe_status == KPROBE_REENTER) &&
	       regs->nip == (unsigned long)cur->ainsn.slot + off;
}

NOKPROBE_SYMBOL(kprobe_in_step);

/* @p was hit while kprobe_running(): run its instruction, no handler. */
static int kprobe_reenter(struct kprobe *p, struct pt_regs *regs,
			  struct kprobe_ctlblk *kcb)
{
	struct kprobe *prev = kprobe_running();
	unsigned int status = kcb->kprobe_status;
	bool done;

	kprobes_inc_nmissed_count(p);

	/* Emulation needs no saved state: any depth of reentry works. */
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_REENTER;
	done = kprobe_emulate(p, regs);
	__this_cpu_write(current_kprobe, prev);
	kcb->kprobe_status = status;
	if (done)
		return 1;

	if (!p->ainsn.slot || (status != KPROBE_HIT_ACTIVE &&
			       status != KPROBE_HIT_SSDONE)) {
		/* The state of the interrupted step would be lost. */
		pr_err("unrecoverable reentry at %pS while handling %pS\n",
		       p->addr, prev->addr);
		return 0;
	}
	kprobe_save_prev(kcb);
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_REENTER;
	kprobe_step(p, regs, kcb);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_reenter);

/*
 * The probed instruction of @p, after its pre handlers did not redirect.
 * Returns 0 if it can be neither emulated nor stepped.  Inlined: it is
 * most of a hit's work after the handlers.
 */
static nokprobe_inline int kprobe_run_insn(struct kprobe *p,
					   struct pt_regs *regs,
					   struct kprobe_ctlblk *kcb)
{
	kcb->kprobe_status = KPROBE_HIT_SS;
	if (kprobe_emulate(p, regs)) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		if (READ_ONCE(p->post_handler))
			kprobe_call_post_handlers(p, regs);
		reset_current_kprobe();
		return 1;
	}
	if (unlikely(!p->ainsn.slot)) {
		pr_err("cannot emulate %pS\n", p->addr);
		reset_current_kprobe();
		return 0;
	}
	kprobe_step(p, regs, kcb);
	return 1;
}

/*
 * No site at @addr: if the trap is not there any more, it was removed while
 * this CPU was on its way to it; resume on the restored instruction.  Any
 * other trap (BUG(), WARN(), a debugger's) is not kprobes'.
 */
static int kprobe_trap_gone(unsigned long addr)
{
	u32 word;

	if (get_kernel_nofault(word, (u32 *)addr) || is_trap(word))
		return 0;
	return 1;
}

NOKPROBE_SYMBOL(kprobe_trap_gone);

/**
 * kprobe_handler() - a trap was hit in the kernel
 * @regs: the registers at the trap
 *
 * Return: 1 if the trap was a probe's (or the exit of a detour), 0 if not.
 */
int kprobe_handler(struct pt_regs *regs)
{
	unsigned long addr = regs->nip;
	struct kprobe_ctlblk *kcb;
	struct kprobe *p;

	if (user_mode(regs) || !(regs->msr & MSR_IR) || !(regs->msr & MSR_DR))
		return 0;

	p = get_kprobe((kprobe_opcode_t *)addr);
	if (!p) {
		/*
		 * jprobe_return() first: two compares tell it from the rest,
		 * while a trap whose offset in its page matches a detour's
		 * exit costs optprobe_exit_trap() a walk of the slot pages.
		 */
		switch (jprobe_break(regs, addr)) {
		case JPROBE_BREAK_RESUMED:
			return 1;
		case JPROBE_BREAK_STRAY:
			regs_set_return_ip(regs, addr + 4);
			return 1;
		default:
			break;
		}
		/* Detour slots are never probed: look there after the sites. */
		if (optprobe_exit_trap(regs))
			return 1;
		return kprobe_trap_gone(addr);
	}
	if (unlikely(p->ainsn.kind == KP_INSN_NONE))
		return 0;

	kcb = get_kprobe_ctlblk();
	if (kprobe_running())
		return kprobe_reenter(p, regs, kcb);

	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (kprobe_call_pre_handlers(p, regs)) {
		/* A handler moved the instruction pointer: nothing to run. */
		reset_current_kprobe();
		return 1;
	}
	return kprobe_run_insn(p, regs, kcb);
}

NOKPROBE_SYMBOL(kprobe_handler);

#ifdef CONFIG_JPROBES
/*
 * The handler is entered at its global entry point with r12 set to it, as
 * a call through a function pointer would, so that it sets up its own TOC
 * (it may be in a module); arguments in r3-r10 and in the caller's parameter
 * save area are untouched, and it returns to __jprobe_guard.
 */
void arch_jprobe_redirect(struct jprobe *jp, struct pt_regs *regs)
{
	unsigned long entry = ppc_global_function_entry(jp->entry);

	regs->link = (unsigned long)__jprobe_guard;
	regs->gpr[12] = entry;
	regs_set_return_ip(regs, entry);
}

NOKPROBE_SYMBOL(arch_jprobe_redirect);

/*
 * The GPRs but r13 (this CPU's paca, the same since preemption is disabled
 * anyway), NIP, LR, CTR, XER and CR.  MSR and the soft-mask state are the
 * trap frame's own: the handler ran with those of the hit, and registers
 * saved by ftrace_regs_caller have no soft-mask state.
 */
void arch_jprobe_restore_regs(struct pt_regs *regs, const struct pt_regs *saved)
{
	unsigned long r13 = regs->gpr[13];

	memcpy(regs->gpr, saved->gpr, sizeof(regs->gpr));
	regs->gpr[13] = r13;
	regs->link = saved->link;
	regs->ctr = saved->ctr;
	regs->xer = saved->xer;
	regs->ccr = saved->ccr;
	regs_set_return_ip(regs, saved->nip);
}

NOKPROBE_SYMBOL(arch_jprobe_restore_regs);

void arch_jprobe_resume(struct kprobe *site, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	__this_cpu_write(current_kprobe, site);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (kprobe_ftrace(site)) {
		/* As kprobe_ftrace_handler() does once the call "ran". */
		regs_set_return_ip(regs, (unsigned long)site->addr + MCOUNT_INSN_SIZE);
		/*
		 * And as ftrace_regs_exit does: r0 is the LR the prologue may
		 * save after the call, possibly a kretprobe's trampoline now.
		 */
		regs->gpr[0] = regs->link;
		if (READ_ONCE(site->post_handler)) {
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			kprobe_call_post_handlers(site, regs);
		}
		reset_current_kprobe();
		return;
	}
#endif
	kprobe_run_insn(site, regs, kcb);
}

NOKPROBE_SYMBOL(arch_jprobe_resume);
#endif

/**
 * kprobe_post_handler() - the trace interrupt after a stepped copy
 * @regs: the registers after the copy ran
 *
 * Return: 1 if the step was a probe's, 0 if not.
 */
int kprobe_post_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (!cur || user_mode(regs) ||
	    !kprobe_in_step(cur, regs, kcb, cur->ainsn.len))
		return 0;

	kprobe_step_done(regs, kcb, (unsigned long)cur->addr + cur->ainsn.len);
	if (kcb->kprobe_status == KPROBE_REENTER) {
		kprobe_restore_prev(kcb);
		return 1;
	}

	kcb->kprobe_status = KPROBE_HIT_SSDONE;
	if (READ_ONCE(cur->post_handler))
		kprobe_call_post_handlers(cur, regs);
	reset_current_kprobe();
	return 1;
}

NOKPROBE_SYMBOL(kprobe_post_handler);

/**
 * kprobe_fault_handler() - a page fault while a probe runs on this CPU
 * @regs: the registers at the fault
 * @trapnr: the signal the fault would raise (SIGSEGV, or SIGBUS)
 *
 * Called from do_page_fault(), and for a kernel fault from the bad segment
 * and alignment handlers.  A fault of a stepped copy is moved back to
 * the probed address, with the probed context's interrupt state, as if the
 * original instruction had faulted, and offered to the site's fault
 * handlers; the kernel then handles it there (the exception table entry of
 * the instruction applies).  A fault in a handler goes to that handler's
 * probe.  A fault while emulating is the emulation's: its own exception
 * table makes it fail, and the instruction is stepped instead.
 *
 * Return: 1 if a fault handler fixed the fault, 0 to let the kernel handle it.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	int ret = 0;

	if (!cur)
		return 0;

	switch (kcb->kprobe_status) {
	case KPROBE_HIT_SS:
	case KPROBE_REENTER:
		if (!kprobe_in_step(cur, regs, kcb, 0))
			return 0;
		kprobe_step_done(regs, kcb, (unsigned long)cur->addr);
		if (kcb->kprobe_status == KPROBE_REENTER) {
			kprobe_restore_prev(kcb);
		} else {
			/*
			 * The step is over: a probe the fault handlers hit
			 * is a miss, stepped as from any handler.
			 */
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			ret = kprobe_call_fault_handlers(cur, regs, trapnr);
			reset_current_kprobe();
		}
		return ret;
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SSDONE:
		return kprobe_call_fault_handlers(cur, regs, trapnr);
	default:
		return 0;
	}
}

NOKPROBE_SYMBOL(kprobe_fault_handler);

/* ---------------------------------------------------------------------------
 * kretprobes
 * ---------------------------------------------------------------------------
 */

#ifdef CONFIG_KRETPROBES
/**
 * arch_prepare_kretprobe() - hijack the return of a function at its entry
 * @ri: the instance
 * @regs: the registers at the entry of the function
 *
 * The return address is in the link register.  The frame is identified by
 * the stack pointer at the entry, which is the caller's: the function
 * returns to __kretprobe_trampoline with the same stack pointer, and saves
 * its link register in that frame's LR save slot, where unwinders find the
 * trampoline (see arch/powerpc/kernel/stacktrace.c).
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ri->ret_addr = (kprobe_opcode_t *)regs->link;
	ri->fp = (void *)regs->gpr[1];
	regs->link = (unsigned long)kretprobe_trampoline_addr();
}

NOKPROBE_SYMBOL(arch_prepare_kretprobe);

#endif /* CONFIG_KRETPROBES */
