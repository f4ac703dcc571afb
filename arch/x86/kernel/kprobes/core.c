// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: breakpoints, out-of-line execution and branch emulation.
 *
 * A probe is an int3 written over the first byte of the probed instruction.
 * When it traps, kprobe_int3_handler() runs the pre handlers of the site,
 * then makes the probed instruction take effect without ever single-stepping
 * it with TF:
 *
 *  - Control flow instructions (jmp, jcc, call, ret, loop*, jrcxz and the
 *    indirect jmp/call) are emulated in C on the saved registers.  Nothing is
 *    copied for them.
 *
 *  - Any other instruction runs from an instruction slot, which holds two
 *    copies of it (RIP-relative operands adjusted to the copy's address):
 *
 *	slot + 0:		insn; jmp probed_addr + len	("boosted" copy)
 *	slot + int3_off:	insn; push $probed_addr + len;
 *				jmp kprobe_step_trampoline	("stepping" copy)
 *
 *    A site without post handler resumes in the boosted copy: one trap per
 *    hit, and the CPU is back in the probed code after the jump.  A site with
 *    a post handler resumes in the stepping copy with interrupts masked; the
 *    copy pushes the address of the next instruction and goes on to
 *    kprobe_step_trampoline, which builds a struct pt_regs without a second
 *    trap, runs the post handlers as a trap would and returns there with
 *    iret.  The core may add a post handler to a site that is already armed,
 *    so both copies always exist and the choice is made at each hit from
 *    site->post_handler.  Where that iret would be wrong, the stepping copy
 *    ends with an int3 instead, as before the trampoline (see
 *    kp_step_by_trampoline()).
 *
 *  - An instruction with an exception table entry is never boosted: if it
 *    faults in the slot, kprobe_fault_handler() must see the fault to move
 *    the instruction pointer back to the probed address, where the fixup is
 *    registered.
 *
 * Reentry (a probe hit while this CPU already runs a probe's handlers or its
 * out-of-line copy) runs no handler: the hit is counted as missed and the
 * instruction is emulated or run from its boosted copy, which needs no
 * per-CPU state.  Only a non-boostable copy needs the stepping copy; the
 * interrupted probe is then saved in the kcb (one level).
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/execmem.h>
#include <linux/set_memory.h>
#include <linux/uaccess.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/memory.h>
#include <linux/irqflags.h>
#include <linux/entry-common.h>
#include <linux/objtool.h>
#include <linux/linkage.h>
#include <linux/bitmap.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/unaligned.h>

#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/ibt.h>
#include <asm/extable.h>
#include <asm/trapnr.h>
#include <asm/nospec-branch.h>
#include <asm/sections.h>
#include <asm/alternative.h>
#include <asm/kdebug.h>
#include <asm/unwind_hints.h>
#include <asm/segment.h>
#include <asm/smap.h>

#include "common.h"

/* ModRM reg field of "push r/m" (ff /6), see the indirect branch comment. */
#define KP_MODRM_REG_PUSH	6

/* pushq $imm32, after the stepping copy. */
#define KP_PUSH_IMM_OPCODE	0x68
#define KP_PUSH_IMM_SIZE	5

/* ---------------------------------------------------------------------------
 * Instruction analysis (prepare time, kprobe_mutex held)
 * ---------------------------------------------------------------------------
 */

/*
 * The text may carry our own changes: the int3 of a kprobe, or the jump of
 * an optimized probe.  Put the original bytes back in @buf, which holds
 * @len bytes copied from @addr.
 */
static void kp_recover_bytes(unsigned long addr, u8 *buf, int len)
{
	struct kprobe *p;
	int i;

	kprobe_opt_recover_bytes(addr, buf, len);

	for (i = 0; i < len; i++) {
		if (buf[i] != INT3_INSN_OPCODE)
			continue;
		p = get_kprobe((void *)(addr + i));
		if (p && !kprobe_ftrace(p))
			buf[i] = p->opcode;
	}
}

/**
 * kprobe_copy_orig_insn() - copy the original bytes of an instruction
 * @addr: kernel text address
 * @buf: MAX_INSN_SIZE bytes
 * @buf_len: set to the number of bytes copied (the text may end before
 *	MAX_INSN_SIZE bytes)
 *
 * Return: 0, or -EFAULT if @addr cannot be read.
 */
int kprobe_copy_orig_insn(unsigned long addr, u8 *buf, int *buf_len)
{
	int len = MAX_INSN_SIZE;

	if (copy_from_kernel_nofault(buf, (void *)addr, len)) {
		/* Maybe the last instruction before an unmapped page. */
		len = PAGE_SIZE - offset_in_page(addr);
		if (len >= MAX_INSN_SIZE ||
		    copy_from_kernel_nofault(buf, (void *)addr, len))
			return -EFAULT;
	}

	rcu_read_lock();
	kp_recover_bytes(addr, buf, len);
	rcu_read_unlock();

	*buf_len = len;
	return 0;
}

/**
 * kprobe_decode_orig() - decode the original instruction at @addr
 * @insn: decoded instruction
 * @addr: kernel text address
 * @buf: MAX_INSN_SIZE bytes, receives the original bytes
 *
 * Return: 0, or -EILSEQ if there is no valid instruction at @addr.
 */
int kprobe_decode_orig(struct insn *insn, unsigned long addr, u8 *buf)
{
	int len;

	if (kprobe_copy_orig_insn(addr, buf, &len))
		return -EILSEQ;
	if (insn_decode(insn, buf, len, INSN_MODE_KERN) < 0)
		return -EILSEQ;
	return 0;
}

/*
 * Only an address reached by decoding the function from its start is an
 * instruction boundary.  The ftrace site at the entry is skipped as one
 * 5-byte instruction whatever it holds at the moment: ftrace may be
 * rewriting it (int3 + tail of a call) while we look.
 *
 * Decoding costs thousands of instructions per instruction decoded, and
 * probing every instruction of a function would decode it once per probe:
 * the boundaries found in the last function checked are kept, as a bitmap
 * of its offsets, along with how far it has been decoded.  The original
 * instructions of a function never change (patching keeps their lengths,
 * and kp_recover_bytes() hides our own changes); only a module going away
 * can put other code at the same address, so any module state change clears
 * the cache, and only core kernel and module text is cached.
 */
#define KP_BCACHE_MAX_SIZE	SZ_64K

static struct {
	struct mutex lock;	/* protects the fields below */
	unsigned long func;	/* start of the cached function, 0 if none */
	unsigned long size;
	unsigned long next;	/* first boundary not decoded yet */
	unsigned long *bounds;	/* bit n set: func + n is a boundary */
} kp_bcache = {
	.lock = __MUTEX_INITIALIZER(kp_bcache.lock),
};

static void kp_bcache_reset(unsigned long func, unsigned long size)
{
	bitmap_free(kp_bcache.bounds);
	kp_bcache.bounds = NULL;
	kp_bcache.func = 0;
	if (!func || size > KP_BCACHE_MAX_SIZE)
		return;
	kp_bcache.bounds = bitmap_zalloc(size, GFP_KERNEL);
	if (!kp_bcache.bounds)
		return;
	kp_bcache.func = func;
	kp_bcache.size = size;
	kp_bcache.next = func;
}

/*
 * Decode from @addr, a boundary of the function at @func, up to @paddr;
 * record the boundaries passed in @bounds if not NULL.  Return the first
 * boundary at or after @paddr, or 0 if an instruction does not decode.
 */
static unsigned long kp_decode_until(unsigned long func, unsigned long addr,
				     unsigned long paddr, unsigned long *bounds)
{
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	while (addr < paddr) {
		if (bounds)
			__set_bit(addr - func, bounds);
		if (ftrace_location(addr) == addr) {
			addr += MCOUNT_INSN_SIZE;
			continue;
		}
		if (kprobe_decode_orig(&insn, addr, buf))
			return 0;
		addr += insn.length;
	}
	return addr;
}

static int kp_check_boundary(unsigned long paddr)
{
	unsigned long size, offset, func, addr;
	int ret;

	if (!kallsyms_lookup_size_offset(paddr, &size, &offset))
		return -EILSEQ;
	func = paddr - offset;

	/*
	 * text_poke_bp() leaves an int3 in the instruction it changes (jump
	 * labels, static calls, ftrace) until it is done, all under
	 * text_mutex: the decode must not go through one, nor the cache keep
	 * what it found then.
	 */
	mutex_lock(&text_mutex);
	mutex_lock(&kp_bcache.lock);
	/*
	 * Only text whose replacement a module notifier announces is cached:
	 * JIT code (BPF, trampolines) may be freed and reused at the same
	 * address at any time.
	 */
	if (kp_bcache.func != func || kp_bcache.size != size)
		kp_bcache_reset(is_kernel_text(func) ||
				is_module_text_address(func) ? func : 0, size);
	if (!kp_bcache.bounds) {
		addr = kp_decode_until(func, func, paddr, NULL);
	} else if (paddr < kp_bcache.next) {
		addr = test_bit(offset, kp_bcache.bounds) ? paddr : 0;
	} else {
		addr = kp_decode_until(func, kp_bcache.next, paddr,
				       kp_bcache.bounds);
		if (addr)
			kp_bcache.next = addr;
	}
	ret = addr == paddr ? 0 : -EILSEQ;
	mutex_unlock(&kp_bcache.lock);
	mutex_unlock(&text_mutex);
	return ret;
}

static int kp_bcache_module_callback(struct notifier_block *nb,
				     unsigned long val, void *data)
{
	/* Also COMING and LIVE: a module's init text is freed after init. */
	mutex_lock(&kp_bcache.lock);
	kp_bcache_reset(0, 0);
	mutex_unlock(&kp_bcache.lock);
	return NOTIFY_DONE;
}

static struct notifier_block kp_bcache_module_nb = {
	.notifier_call = kp_bcache_module_callback,
};

static int __init kp_bcache_init(void)
{
	return register_module_notifier(&kp_bcache_module_nb);
}
core_initcall(kp_bcache_init);

/**
 * kprobe_check_probeable() - refuse what must never run out of line
 * @insn: a decoded kernel instruction
 *
 * Traps (int3, int n, into, int1, ud*), instructions that change the
 * interrupt flag (popf, cli, sti, iret) or wait for an interrupt (hlt, mwait:
 * the stepping copy runs with interrupts masked), far transfers, system
 * calls and VM entries (they never come back to the copy), xbegin (its abort
 * target is relative) and instructions that hold off interrupts for the
 * next one (mov to ss, pop ss: the latter is invalid in 64-bit mode, which
 * the decoder does not check).
 *
 * Return: 0 or -EINVAL.
 */
int kprobe_check_probeable(struct insn *insn)
{
	u8 op0 = insn->opcode.bytes[0];
	u8 op1 = insn->opcode.bytes[1];
	u8 modrm = insn->modrm.bytes[0];

	if (insn_has_emulate_prefix(insn) || insn_masking_exception(insn))
		return -EINVAL;

	/* VEX/EVEX/XOP encoded instructions are plain computations. */
	if (insn_is_avx(insn))
		return 0;

	switch (op0) {
	case 0xcc:	/* int3 */
	case 0xcd:	/* int n */
	case 0xce:	/* into */
	case 0xf1:	/* int1 */
	case 0x9d:	/* popf */
	case 0xfa:	/* cli */
	case 0xfb:	/* sti */
	case 0xcf:	/* iret */
	case 0x9a:	/* far call */
	case 0xea:	/* far jmp */
	case 0xca:	/* far ret imm16 */
	case 0xcb:	/* far ret */
	case 0xf4:	/* hlt */
	case 0x17:	/* pop ss */
		return -EINVAL;
	case 0x8e:
		/* 8e /2: mov to ss */
		if (X86_MODRM_REG(modrm) == 2)
			return -EINVAL;
		break;
	case 0xff:
		/* ff /3 and ff /5: far indirect call and jmp */
		if (X86_MODRM_REG(modrm) == 3 || X86_MODRM_REG(modrm) == 5)
			return -EINVAL;
		break;
	case 0xc7:
		if (modrm == 0xf8)	/* xbegin */
			return -EINVAL;
		break;
	case 0x0f:
		switch (op1) {
		case 0x05:	/* syscall */
		case 0x07:	/* sysret */
		case 0x34:	/* sysenter */
		case 0x35:	/* sysexit */
		case 0x0b:	/* ud2 */
		case 0xb9:	/* ud1 */
		case 0xff:	/* ud0 */
		case 0xaa:	/* rsm */
			return -EINVAL;
		case 0x01:
			switch (modrm) {
			case 0xc2:	/* vmlaunch */
			case 0xc3:	/* vmresume */
			case 0xc9:	/* mwait */
			case 0xd8:	/* vmrun */
			case 0xfb:	/* mwaitx */
				return -EINVAL;
			}
			break;
		}
		break;
	}
	return 0;
}

/**
 * kprobe_fixup_riprel() - adjust a RIP-relative operand to a copy's address
 * @insn: the decoded original instruction
 * @copy: the copy, same length and layout as the original
 * @orig: address of the original instruction
 * @dest: address the copy will run at
 *
 * Return: 0, or -ERANGE when the operand is out of reach from @dest.
 */
int kprobe_fixup_riprel(struct insn *insn, u8 *copy, unsigned long orig,
			unsigned long dest)
{
	long disp;
	s32 disp32;

	if (!insn_rip_relative(insn))
		return 0;

	/* dest + len + new_disp must equal orig + len + old_disp. */
	disp = (long)insn->displacement.value + (long)orig - (long)dest;
	if (disp != (s32)disp)
		return -ERANGE;
	disp32 = disp;
	memcpy(copy + insn_offset_displacement(insn), &disp32, sizeof(disp32));
	return 0;
}

/**
 * kprobe_is_indirect_thunk() - is @target a retpoline/ITS indirect thunk?
 * @target: destination of a jmp/call rel32
 *
 * A jump to such a thunk is an indirect jump in disguise.
 *
 * Return: true if @target is in one of the thunk arrays.
 */
bool kprobe_is_indirect_thunk(unsigned long target)
{
	/*
	 * target - start, unsigned: below start it is huge.  (An end address
	 * start + size would be a relocation to no ENDBR, which objtool
	 * flags under IBT.)
	 */
	unsigned long __maybe_unused start;

#ifdef CONFIG_MITIGATION_RETPOLINE
	start = (unsigned long)__x86_indirect_thunk_array;
	if (target - start < 16 * RETPOLINE_THUNK_SIZE)
		return true;
#endif
#ifdef CONFIG_MITIGATION_CALL_DEPTH_TRACKING
	start = (unsigned long)__x86_indirect_jump_thunk_array;
	if (target - start < 16 * RETPOLINE_THUNK_SIZE)
		return true;
#endif
#ifdef CONFIG_MITIGATION_ITS
	start = (unsigned long)__x86_indirect_its_thunk_array;
	if (target - start < 16 * ITS_THUNK_SIZE)
		return true;
#endif
	return false;
}

/* Register number (ModRM/SIB with REX extension) of the operand fields. */
static u8 kp_rex_bits(struct insn *insn, u8 mask)
{
	if (!insn->rex_prefix.nbytes)
		return 0;
	return insn->rex_prefix.bytes[0] & mask ? 8 : 0;
}

/* Decode the operand of an indirect jmp/call (ff /2, ff /4). */
static int kp_analyze_indirect(struct arch_specific_insn *ai,
			       struct insn *insn, unsigned long next)
{
	u8 modrm = insn->modrm.bytes[0];
	u8 sib = insn->sib.bytes[0];
	int i;
	insn_byte_t prefix;

	/* The 32-register (REX2) and 16-bit forms are not worth emulating. */
	if (insn_is_rex2(insn) || insn->opnd_bytes == 2)
		return -EINVAL;

	if (X86_MODRM_MOD(modrm) == 3) {
		ai->base = X86_MODRM_RM(modrm) | kp_rex_bits(insn, 1);
		return 0;
	}

	/* fs/gs based operands and 32-bit addressing: refuse. */
	if (insn->addr_bytes != 8)
		return -EINVAL;
	for_each_insn_prefix(insn, i, prefix) {
		if (prefix == 0x64 || prefix == 0x65)
			return -EINVAL;
	}

	ai->mem = 1;
	ai->base = KP_NO_REG;
	ai->index = KP_NO_REG;
	ai->disp = insn->displacement.value;
	ai->target = 0;

	if (insn_rip_relative(insn)) {
		ai->target = next + (long)ai->disp;
		ai->disp = 0;
	} else if (X86_MODRM_RM(modrm) == 4) {
		u8 idx = X86_SIB_INDEX(sib) | kp_rex_bits(insn, 2);
		u8 base = X86_SIB_BASE(sib);

		if (idx != 4)
			ai->index = idx;
		ai->scale = X86_SIB_SCALE(sib);
		if (!(base == 5 && X86_MODRM_MOD(modrm) == 0))
			ai->base = base | kp_rex_bits(insn, 1);
	} else {
		ai->base = X86_MODRM_RM(modrm) | kp_rex_bits(insn, 1);
	}

	/*
	 * The stepping copy turns the branch into "push <same operand>" (see
	 * kp_build_slot()); with %rsp as base the push would read another
	 * address than the branch.  Nobody writes that: refuse it.
	 */
	if (ai->base == 4)
		return -EINVAL;
	return 0;
}

/* Classify the instruction: run from the slot, or emulate. */
static int kp_analyze(struct kprobe *p, struct insn *insn)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long next = (unsigned long)p->addr + insn->length;
	u8 op0 = insn->opcode.bytes[0];
	u8 op1 = insn->opcode.bytes[1];

	ai->kind = KP_INSN_SLOT;
	ai->len = insn->length;
	ai->base = KP_NO_REG;
	ai->index = KP_NO_REG;

	if (insn_is_avx(insn))
		return 0;

	switch (op0) {
	case 0x70 ... 0x7f:	/* jcc rel8 */
		ai->kind = KP_INSN_JCC;
		ai->cond = op0 & 0xf;
		break;
	case 0xe0 ... 0xe3:	/* loopne, loope, loop, jrcxz */
		/* With 0x67 they count in %ecx: not worth emulating. */
		if (insn->addr_bytes != 8)
			return -EINVAL;
		ai->kind = KP_INSN_LOOP;
		ai->cond = op0 & 3;
		break;
	case 0xe8:		/* call rel32 */
		ai->kind = KP_INSN_CALL;
		break;
	case 0xe9:		/* jmp rel32 */
	case 0xeb:		/* jmp rel8 */
		ai->kind = KP_INSN_JMP;
		break;
	case 0xc2:		/* ret imm16 */
		ai->imm = (u16)insn->immediate.value;
		fallthrough;
	case 0xc3:		/* ret */
		ai->kind = KP_INSN_RET;
		break;
	case 0x0f:
		if (op1 >= 0x80 && op1 <= 0x8f) {	/* jcc rel32 */
			ai->kind = KP_INSN_JCC;
			ai->cond = op1 & 0xf;
		}
		break;
	case 0xff:
		switch (X86_MODRM_REG(insn->modrm.bytes[0])) {
		case 2:
			ai->kind = KP_INSN_CALL_IND;
			return kp_analyze_indirect(ai, insn, next);
		case 4:
			ai->kind = KP_INSN_JMP_IND;
			return kp_analyze_indirect(ai, insn, next);
		}
		break;
	}

	if (ai->kind == KP_INSN_SLOT)
		return 0;

	/* An operand size prefix would truncate the new instruction pointer. */
	if (insn->opnd_bytes == 2)
		return -EINVAL;

	switch (ai->kind) {
	case KP_INSN_JCC:
	case KP_INSN_LOOP:
	case KP_INSN_CALL:
	case KP_INSN_JMP:
		ai->target = next + (long)insn->immediate.value;
		break;
	}
	return 0;
}

/*
 * Whether a stepping copy may end in kprobe_step_trampoline, which returns
 * with a plain iretq to __KERNEL_CS.  Not in a Xen PV guest (the kernel runs
 * with other selectors, and the guest's interrupt mask is virtual), nor with
 * FRED (an iret would unblock NMIs, in an NMI handler too): the copy ends
 * with an int3 there, and the trap's own exit does the return.
 */
static bool kp_step_by_trampoline(void)
{
	return !cpu_feature_enabled(X86_FEATURE_XENPV) &&
	       !cpu_feature_enabled(X86_FEATURE_FRED);
}

/*
 * Fill the slot: see the top comment for the layout.  An indirect branch
 * through memory is emulated, but reading its target may fault: then the
 * stepping copy runs instead, as "push <operand>" (same operand, ModRM reg
 * field 6), followed by an int3, so that the fault happens for real and is
 * reported at the probed address; if the read works this time, the second
 * trap pops the target.
 */
static int kp_build_slot(struct kprobe *p, struct insn *insn, const u8 *orig)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long addr = (unsigned long)p->addr;
	u8 buf[KPROBE_INSN_SLOT_SIZE];
	unsigned long slot;
	int len = insn->length, off = 0, size, ret;
	long rel;

	ai->insn = get_insn_slot();
	if (!ai->insn)
		return -ENOMEM;
	slot = (unsigned long)ai->insn;
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));

	if (ai->kind == KP_INSN_SLOT) {
		memcpy(buf, orig, len);
		ret = kprobe_fixup_riprel(insn, buf, addr, slot);
		if (ret)
			goto fail;
		rel = (long)(addr + len) - (long)(slot + len + JMP32_INSN_SIZE);
		if (rel != (s32)rel) {
			ret = -ERANGE;
			goto fail;
		}
		__text_gen_insn(buf + len, JMP32_INSN_OPCODE, (void *)(slot + len),
				(void *)(addr + len), JMP32_INSN_SIZE);
		off = len + JMP32_INSN_SIZE;
	}

	ai->int3_off = off;
	memcpy(buf + off, orig, len);
	if (ai->mem) {
		u8 *modrm = buf + off + insn_offset_modrm(insn);

		*modrm = (*modrm & ~0x38) | (KP_MODRM_REG_PUSH << 3);
	}
	ret = kprobe_fixup_riprel(insn, buf + off, addr, slot + off);
	if (ret)
		goto fail;
	size = off + len + INT3_INSN_SIZE;
	if (ai->kind == KP_INSN_SLOT && kp_step_by_trampoline()) {
		unsigned long next = addr + len;
		unsigned long from = slot + off + len + KP_PUSH_IMM_SIZE;

		/* pushq $imm32 sign-extends: kernel and module text fit. */
		rel = (long)kprobe_step_trampoline - (long)(from + JMP32_INSN_SIZE);
		if ((long)next != (s32)next || rel != (s32)rel) {
			ret = -ERANGE;
			goto fail;
		}
		buf[off + len] = KP_PUSH_IMM_OPCODE;
		put_unaligned((s32)next, (s32 *)(buf + off + len + 1));
		__text_gen_insn(buf + off + len + KP_PUSH_IMM_SIZE,
				JMP32_INSN_OPCODE, (void *)from,
				kprobe_step_trampoline, JMP32_INSN_SIZE);
		size = off + len + KP_PUSH_IMM_SIZE + JMP32_INSN_SIZE;
	}

	text_poke_copy(ai->insn, buf, size);
	perf_event_text_poke(ai->insn, NULL, 0, buf, size);
	return 0;

fail:
	free_insn_slot(ai->insn, 0);
	ai->insn = NULL;
	return ret;
}

/*
 * Instructions that other code owns or recovers in a way a copy cannot
 * follow:
 *  - a lock prefix that the SMP alternatives turned into a DS prefix on a
 *    kernel booted with one CPU, and turn back when a second one comes
 *    online: under a breakpoint, the byte is not theirs to rewrite, and the
 *    copy would run without its lock for as long as the probe stays;
 *  - an access whose exception table entry recovers from a machine check
 *    (copy_mc_*()): the severity grading finds no entry for the copy's
 *    address and panics, where the instruction in place would return
 *    -EFAULT.
 */
static int kp_check_owned(unsigned long addr, int len)
{
	int type = ex_get_fixup_type(addr);
	int ret;

	if (type == EX_TYPE_DEFAULT_MCE_SAFE || type == EX_TYPE_FAULT_MCE_SAFE)
		return -EINVAL;

	mutex_lock(&text_mutex);
	ret = alternatives_text_reserved((void *)addr, (void *)addr + len);
	mutex_unlock(&text_mutex);
	return ret ? -EINVAL : 0;
}

/**
 * arch_prepare_kprobe() - decode and set up the instruction at p->addr
 * @p: the site
 *
 * The core never calls this on an ftrace site: kprobe_check_addr() sends
 * those to arch_prepare_kprobe_ftrace() or refuses them, and ftrace sites
 * do not move, so there is no check here.
 *
 * Return: 0; -EILSEQ if p->addr is not an instruction boundary or holds no
 * valid instruction; -EINVAL if the instruction cannot be probed, branch
 * forms we do not emulate included; -ERANGE if no slot is within reach;
 * -ENOMEM.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	memset(&p->ainsn, 0, sizeof(p->ainsn));

	ret = kp_check_boundary(addr);
	if (ret)
		return ret;
	ret = kprobe_decode_orig(&insn, addr, buf);
	if (ret)
		return ret;
	ret = kprobe_check_probeable(&insn);
	if (ret)
		return ret;
	ret = kp_check_owned(addr, insn.length);
	if (ret)
		return ret;
	ret = kp_analyze(p, &insn);
	if (ret)
		return ret;

	p->opcode = buf[0];
	if (p->ainsn.kind == KP_INSN_SLOT || p->ainsn.mem) {
		ret = kp_build_slot(p, &insn, buf);
		if (ret)
			return ret;
	}

	/* pushf in the stepping copy pushes IF clear: fixed up after it. */
	p->ainsn.pushf = p->ainsn.kind == KP_INSN_SLOT && !insn_is_avx(&insn) &&
			 insn.opcode.bytes[0] == 0x9c;
	p->ainsn.boostable = p->ainsn.kind == KP_INSN_SLOT &&
			     !search_exception_tables(addr);
	return 0;
}

void arch_remove_kprobe(struct kprobe *p)
{
	if (!p->ainsn.insn)
		return;
	/* For perf's decoders, as when it was written. */
	perf_event_text_poke(p->ainsn.insn, p->ainsn.insn, KPROBE_INSN_SLOT_SIZE,
			     NULL, 0);
	/* A task may have been preempted in a boosted copy: let the core wait. */
	free_insn_slot(p->ainsn.insn, p->ainsn.boostable);
	p->ainsn.insn = NULL;
}

void arch_arm_kprobe(struct kprobe *p)
{
	u8 int3 = INT3_INSN_OPCODE;

	text_poke(p->addr, &int3, INT3_INSN_SIZE);
	perf_event_text_poke(p->addr, &p->opcode, 1, &int3, 1);
}

void arch_disarm_kprobe(struct kprobe *p)
{
	u8 int3 = INT3_INSN_OPCODE;

	text_poke(p->addr, &p->opcode, 1);
	perf_event_text_poke(p->addr, &int3, 1, &p->opcode, 1);
}

void arch_kprobe_sync(void)
{
	text_poke_sync();
}

/* Probes on the function entry land after its ENDBR. */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	u32 first;
	bool endbr;

	endbr = !get_kernel_nofault(first, (u32 *)(addr - offset)) &&
		is_endbr(first);
	if (endbr && !offset) {
		addr += ENDBR_INSN_SIZE;
		offset = ENDBR_INSN_SIZE;
	}
	*on_func_entry = !offset || (endbr && offset == ENDBR_INSN_SIZE);
	return (kprobe_opcode_t *)addr;
}

/**
 * arch_populate_kprobe_blacklist() - x86 text that must not hold a breakpoint
 *
 * The core refuses entry, irqentry and noinstr text and NOKPROBE_SYMBOL()
 * code.  Besides that, x86 has text that other code copies, checks or runs
 * on every return:
 *  - what vmlinux.lds.S places between softirqentry text and _etext, entry
 *    text aside: the indirect and return thunks (with return thunks, every
 *    ret of the int3 path, kprobe_int3_handler()'s included, jumps through
 *    one: a probe there recurses until the stack overflows) and the static
 *    call trampolines (arch_static_call_transform() BUG()s on an int3 in
 *    one);
 *  - the templates ftrace copies into the trampolines of its ops, where an
 *    int3 would be nobody's.
 *
 * Return: 0 or -ENOMEM.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	int ret;

	ret = kprobe_add_area_blacklist((unsigned long)__softirqentry_text_end,
					(unsigned long)__entry_text_start);
	ret = ret ?: kprobe_add_area_blacklist((unsigned long)__entry_text_end,
					       (unsigned long)_etext);
#ifdef CONFIG_DYNAMIC_FTRACE
	ret = ret ?: kprobe_add_area_blacklist((unsigned long)ftrace_caller,
					       (unsigned long)ftrace_caller_end);
	ret = ret ?: kprobe_add_area_blacklist((unsigned long)ftrace_regs_caller,
					       (unsigned long)ftrace_regs_caller_end);
#endif
	return ret;
}

/*
 * Slots are executable and read-only: fill the page with int3 while it is
 * still writable, so that a stray jump into an unused slot traps, then seal
 * it.  Slots are written later with text_poke_copy().
 */
void *alloc_insn_page(void)
{
	void *page;

	page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
	if (!page)
		return NULL;
	memset(page, INT3_INSN_OPCODE, PAGE_SIZE);
	if (set_memory_rox((unsigned long)page, 1)) {
		execmem_free(page);
		return NULL;
	}
	return page;
}

/* ---------------------------------------------------------------------------
 * The hit path: int3 and fault handlers (interrupts off, no locks)
 * ---------------------------------------------------------------------------
 */

static nokprobe_inline unsigned long kp_reg(struct pt_regs *regs, u8 reg)
{
	switch (reg) {
	case 0: return regs->ax;
	case 1: return regs->cx;
	case 2: return regs->dx;
	case 3: return regs->bx;
	case 4: return regs->sp;
	case 5: return regs->bp;
	case 6: return regs->si;
	case 7: return regs->di;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	default: return regs->r15;
	}
}

/* Target of an indirect branch; false if its memory operand is unreadable. */
static nokprobe_inline bool kp_indirect_target(const struct arch_specific_insn *ai,
					       struct pt_regs *regs,
					       unsigned long *target)
{
	unsigned long ea;

	if (!ai->mem) {
		*target = kp_reg(regs, ai->base);
		return true;
	}

	ea = ai->target + (long)ai->disp;
	if (ai->base != KP_NO_REG)
		ea += kp_reg(regs, ai->base);
	if (ai->index != KP_NO_REG)
		ea += kp_reg(regs, ai->index) << ai->scale;
	return !copy_from_kernel_nofault(target, (void *)ea, sizeof(*target));
}

/*
 * Emulate a control flow instruction.  The int3 entry leaves a gap below
 * the interrupted stack, so a call can push its return address there.
 * Returns false only when an indirect branch target cannot be read.
 */
static nokprobe_inline bool kp_emulate(struct kprobe *p, struct pt_regs *regs)
{
	const struct arch_specific_insn *ai = &p->ainsn;
	unsigned long next = (unsigned long)p->addr + ai->len;
	unsigned long target;
	bool taken;

	switch (ai->kind) {
	case KP_INSN_JMP:
		regs->ip = ai->target;
		break;
	case KP_INSN_JCC:
		int3_emulate_jcc(regs, ai->cond, next, ai->target - next);
		break;
	case KP_INSN_CALL:
		int3_emulate_push(regs, next);
		regs->ip = ai->target;
		break;
	case KP_INSN_RET:
		regs->ip = int3_emulate_pop(regs);
		regs->sp += ai->imm;
		break;
	case KP_INSN_LOOP:
		if (ai->cond == 3) {			/* jrcxz */
			taken = !regs->cx;
		} else {
			regs->cx--;
			taken = regs->cx != 0;
			if (ai->cond == 0)		/* loopne */
				taken &= !(regs->flags & X86_EFLAGS_ZF);
			else if (ai->cond == 1)		/* loope */
				taken &= !!(regs->flags & X86_EFLAGS_ZF);
		}
		regs->ip = taken ? ai->target : next;
		break;
	case KP_INSN_JMP_IND:
	case KP_INSN_CALL_IND:
		if (!kp_indirect_target(ai, regs, &target))
			return false;
		if (ai->kind == KP_INSN_CALL_IND)
			int3_emulate_push(regs, next);
		regs->ip = target;
		break;
	}
	return true;
}

/* A reentry: keep the interrupted probe for kp_resume_outer(). */
static nokprobe_inline void kp_hold_outer(struct kprobe_ctlblk *kcb)
{
	kcb->outer = kprobe_running();
	kcb->outer_state = kcb->state;
}

static nokprobe_inline void kp_resume_outer(struct kprobe_ctlblk *kcb)
{
	kcb->state = kcb->outer_state;
	__this_cpu_write(current_kprobe, kcb->outer);
}

/*
 * Resume in the stepping copy.  Interrupts stay masked until the step is
 * finished (kprobe_step_callback(), or the int3 after the copy of an
 * indirect branch): the per-CPU state must not be left to another task on
 * this CPU.
 */
static nokprobe_inline void kp_step_trapping(struct kprobe *p,
					     struct pt_regs *regs,
					     struct kprobe_ctlblk *kcb,
					     unsigned long status)
{
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = status;
	kcb->saved_if = regs->flags & X86_EFLAGS_IF;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)p->ainsn.insn + p->ainsn.int3_off;
}

/* Address of the int3 that ends @p's copy when it is an indirect branch. */
static nokprobe_inline unsigned long kp_step_end(struct kprobe *p)
{
	return (unsigned long)p->ainsn.insn + p->ainsn.int3_off + p->ainsn.len;
}

/*
 * Once the core has queued a site for optimization (KPROBE_FLAG_OPTIMIZED),
 * a breakpoint hit must not resume inside the range the jump will replace:
 * resume in the detour's copy of the displaced instructions, which jumps
 * back after the range.  Returns 0 when that does not apply.
 */
static nokprobe_inline unsigned long kp_opt_resume(struct kprobe *p)
{
#ifdef CONFIG_OPTPROBES
	if (unlikely(kprobe_optimized(p)) && !p->post_handler)
		return kprobe_opt_displaced(container_of(p, struct optimized_kprobe,
							 kp));
#endif
	return 0;
}

/* The probed instruction after the pre handlers (no reentry). */
static nokprobe_inline void kp_run_insn(struct kprobe *p, struct pt_regs *regs,
					struct kprobe_ctlblk *kcb)
{
	const struct arch_specific_insn *ai = &p->ainsn;
	unsigned long resume = kp_opt_resume(p);

	if (resume) {
		regs->ip = resume;
		reset_current_kprobe();
		return;
	}

	if (ai->kind != KP_INSN_SLOT) {
		/* Handlers' faults must not be confused with ours: HIT_SS. */
		kcb->kprobe_status = KPROBE_HIT_SS;
		if (unlikely(!kp_emulate(p, regs))) {
			kp_step_trapping(p, regs, kcb, KPROBE_HIT_SS);
			return;
		}
		if (p->post_handler) {
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			kprobe_call_post_handlers(p, regs);
		}
		reset_current_kprobe();
		return;
	}

	if (ai->boostable && !p->post_handler) {
		regs->ip = (unsigned long)ai->insn;
		reset_current_kprobe();
		return;
	}
	kp_step_trapping(p, regs, kcb, KPROBE_HIT_SS);
}

/*
 * After the stepping copy ran (kprobe_step_callback(), or the int3 after
 * the copy of an indirect branch or of any copy without the trampoline):
 * finish the step.
 */
static nokprobe_inline void kp_finish_step(struct kprobe *cur,
					   struct pt_regs *regs,
					   struct kprobe_ctlblk *kcb)
{
	const struct arch_specific_insn *ai = &cur->ainsn;
	unsigned long target;

	regs->flags |= kcb->saved_if;
	if (ai->kind == KP_INSN_SLOT) {
		/*
		 * regs->ip is the next instruction already: the trampoline took
		 * it from the copy's push, or kprobe_int3_handler() set it.
		 */
		if (ai->pushf)
			*(u16 *)regs->sp |= kcb->saved_if;
	} else {
		/* An indirect branch whose copy pushed the target. */
		target = int3_emulate_pop(regs);
		if (ai->kind == KP_INSN_CALL_IND)
			int3_emulate_push(regs, (unsigned long)cur->addr + ai->len);
		regs->ip = target;
	}

	if (kcb->kprobe_status == KPROBE_REENTER) {
		kp_resume_outer(kcb);
		return;
	}
	if (cur->post_handler) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		kprobe_call_post_handlers(cur, regs);
	}
	reset_current_kprobe();
}

/*
 * The end of the stepping copy of a KP_INSN_SLOT instruction, which pushed
 * the address of the next instruction (the "return slot") and jumped here:
 * interrupts are still masked and kprobe_running() is the probe whose copy
 * just ran.  Build below the return slot the struct pt_regs that an int3
 * after the copy would have built, with DF and AC cleared for C as the
 * exception entry does; kprobe_step_callback() runs the post handlers as
 * that trap would, and an iret returns where they left regs, with their
 * flags, stack pointer and segments, interrupts enabled again atomically.
 *
 * Unwinding: until the struct pt_regs is complete (cs, ip, orig_ax and sp
 * filled in), a frame here cannot be described, and is marked so; the
 * struct pt_regs is then what the unwinder goes through to the probed code,
 * and at the iret the frame is an iret frame.  The trampoline is code, not
 * a function: AC may be set at its entry, and it leaves with iret.
 */
/*
 * The pushes follow struct pt_regs down from ss, then PUSH_GPRS_STRING
 * (common.h checks ip, sp, ss and the size).
 */
static_assert(offsetof(struct pt_regs, orig_ax) == 120);
static_assert(offsetof(struct pt_regs, cs) == 136);

asm(".text\n"
	".global kprobe_step_trampoline\n"
	"kprobe_step_trampoline:\n"
	/* Only ever reached by the jump of a slot: no ENDBR needed. */
	ANNOTATE_NOENDBR
	UNWIND_HINT_UNDEFINED
	"	pushq $" __stringify(__KERNEL_DS) "\n"
	"	pushq %rsp\n"
	"	pushfq\n"
	"	cld\n"
	ASM_CLAC "\n"
	"	pushq $" __stringify(__KERNEL_CS) "\n"
	/* ip: the return slot, above ss, sp, flags and cs. */
	"	pushq 32(%rsp)\n"
	"	pushq $-1\n"
	PUSH_GPRS_STRING
	/* "pushq %rsp" ran after two pushes. */
	"	addq $16, " __stringify(KP_REGS_SP) "(%rsp)\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 1)
	"	movq %rsp, %rdi\n"
	"	call kprobe_step_callback\n"
	POP_GPRS_STRING
	/* Skip orig_ax: ip, cs, flags, sp and ss are the iret frame. */
	"	addq $8, %rsp\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS_PARTIAL, ORC_REG_SP, 0, 1)
	"	iretq\n"
	".size kprobe_step_trampoline, .-kprobe_step_trampoline\n"
);
NOKPROBE_SYMBOL(kprobe_step_trampoline);

__used __visible void kprobe_step_callback(struct pt_regs *regs)
{
	irqentry_state_t state;

	/* Only a stepping copy run by kp_step_trapping() comes here. */
	if (unlikely(!kprobe_running() ||
		     !(__this_cpu_read(kprobe_ctlblk.kprobe_status) &
		       (KPROBE_HIT_SS | KPROBE_REENTER)))) {
		die("kprobes: step trampoline without a stepping probe", regs, 0);
		return;
	}

	/*
	 * The context of the trap this replaces, for the post handlers as for
	 * the pre handlers: NMI-like, lockdep's and the irq tracers' state
	 * saved and given back, RCU watching.  The per-CPU state is read again
	 * after the call rather than kept in registers across it.
	 */
	state = irqentry_nmi_enter(regs);
	kp_finish_step(kprobe_running(), regs, get_kprobe_ctlblk());
	irqentry_nmi_exit(regs, state);
}

NOKPROBE_SYMBOL(kprobe_step_callback);

/* A probe hit while this CPU runs another one: no handlers. */
static nokprobe_inline void kp_reenter(struct kprobe *p, struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	const struct arch_specific_insn *ai = &p->ainsn;
	bool nested = kcb->kprobe_status == KPROBE_REENTER;
	unsigned long resume = kp_opt_resume(p);

	kprobes_inc_nmissed_count(p);

	if (resume) {
		regs->ip = resume;
		return;
	}
	if (ai->kind != KP_INSN_SLOT) {
		if (likely(kp_emulate(p, regs)))
			return;
	} else if (ai->boostable || nested) {
		/*
		 * Also for a non-boostable copy when the one saved level is
		 * taken (an NMI hit a probe while this CPU stepped a reentered
		 * one): kp_fault_in_boosted_copy() finds its fault fixup.
		 */
		regs->ip = (unsigned long)ai->insn;
		return;
	}

	if (unlikely(nested)) {
		/*
		 * An indirect branch through unreadable memory, and no level
		 * left to run its stepping copy: the instruction would fault,
		 * report it where it is.
		 */
		regs->ip = (unsigned long)p->addr;
		die("kprobes: unreadable indirect branch target", regs, 0);
		return;
	}
	kp_hold_outer(kcb);
	kp_step_trapping(p, regs, kcb, KPROBE_REENTER);
}

/*
 * An int3 trapped at a site armed through ftrace is not ours: such a site has
 * no breakpoint and no copy of its instruction to run (ainsn is left empty by
 * arch_prepare_kprobe_ftrace()), so the breakpoint path would send the CPU to
 * address 0.  The int3 is ftrace's, patching the call, that the text patching
 * handler did not claim; this CPU can keep trapping on it after the text
 * changed (seen under QEMU TCG), so going back to @addr may loop.  Run what
 * the text holds now instead: the nop, or the call to ftrace.
 */
static nokprobe_inline int kp_ftrace_site_int3(struct pt_regs *regs,
					       unsigned long addr)
{
	u8 insn[MCOUNT_INSN_SIZE];

	if (copy_from_kernel_nofault(insn, (void *)addr, MCOUNT_INSN_SIZE) ||
	    insn[0] == INT3_INSN_OPCODE)
		return 0;

	if (insn[0] == CALL_INSN_OPCODE)
		int3_emulate_call(regs, addr + CALL_INSN_SIZE +
				  *(s32 *)(insn + 1));
	else if (!memcmp(insn, x86_nops[MCOUNT_INSN_SIZE], MCOUNT_INSN_SIZE))
		regs->ip = addr + MCOUNT_INSN_SIZE;
	else
		regs->ip = addr;
	return 1;
}

/**
 * kprobe_int3_handler() - handle an int3 trap in the kernel
 * @regs: registers at the trap; regs->ip is just after the int3
 *
 * Called by do_int3() with interrupts disabled.
 *
 * Return: 1 if the trap was ours (regs updated to resume), 0 otherwise.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	unsigned long addr = regs->ip - INT3_INSN_SIZE;
	struct kprobe_ctlblk *kcb;
	struct kprobe *p, *cur;

	if (user_mode(regs))
		return 0;

	kcb = get_kprobe_ctlblk();
	cur = kprobe_running();

	if (cur && (kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER)) &&
	    addr == kp_step_end(cur)) {
		/* A copy that ends with an int3 (!kp_step_by_trampoline()). */
		if (cur->ainsn.kind == KP_INSN_SLOT)
			regs->ip = (unsigned long)cur->addr + cur->ainsn.len;
		kp_finish_step(cur, regs, kcb);
		return 1;
	}

	p = get_kprobe((void *)addr);
	if (unlikely(!p)) {
		/* The end of a jprobe handler; ip is past the int3 already. */
		if (jprobe_break(regs, addr) != JPROBE_BREAK_NONE)
			return 1;
		/*
		 * The probe went away after this CPU hit its int3: run the
		 * original instruction, which is back in place.
		 */
		if (*(kprobe_opcode_t *)addr != INT3_INSN_OPCODE) {
			regs->ip = addr;
			return 1;
		}
		return 0;
	}

	if (unlikely(kprobe_ftrace(p)))
		return kp_ftrace_site_int3(regs, addr);

	if (unlikely(cur)) {
		kp_reenter(p, regs, kcb);
		return 1;
	}

	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (kprobe_call_pre_handlers(p, regs)) {
		/* Execution was redirected: skip the instruction. */
		reset_current_kprobe();
		return 1;
	}
	kp_run_insn(p, regs, kcb);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_handler);

#ifdef CONFIG_JPROBES
/*
 * The handler is entered as the probed function was: arguments in registers
 * and on the stack untouched, the return address slot at regs->sp (saved by
 * the core) pointing to __jprobe_guard.  IBT: the handler's address is taken,
 * so it starts with ENDBR, and it is reached by iret or by the ret of
 * ftrace_regs_caller anyway.
 */
void arch_jprobe_redirect(struct jprobe *jp, struct pt_regs *regs)
{
	*(unsigned long *)regs->sp = (unsigned long)__jprobe_guard;
	regs->ip = (unsigned long)jp->entry;
}

NOKPROBE_SYMBOL(arch_jprobe_redirect);

/*
 * Registers saved by ftrace_regs_caller have constant segments, those of an
 * int3 may have FRED bits: keep the trap's own.
 */
void arch_jprobe_restore_regs(struct pt_regs *regs, const struct pt_regs *saved)
{
	u64 csx = regs->csx, ssx = regs->ssx;

	*regs = *saved;
	regs->csx = csx;
	regs->ssx = ssx;
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
		regs->ip = (unsigned long)site->addr + MCOUNT_INSN_SIZE;
		if (site->post_handler) {
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			kprobe_call_post_handlers(site, regs);
		}
		reset_current_kprobe();
		return;
	}
#endif
	kp_run_insn(site, regs, kcb);
}

NOKPROBE_SYMBOL(arch_jprobe_resume);
#endif

/*
 * A fault at the start of an instruction slot: the boosted copy of an
 * instruction with an exception table entry, which only a nested reentry
 * runs (kp_reenter(): no level left to step it).  The jump back after the
 * copy tells the probed address: move the fault there, where its fixup
 * is, as for a stepping copy.
 */
static int kp_fault_in_boosted_copy(struct pt_regs *regs, int trapnr)
{
	unsigned long ip = regs->ip, addr;
	struct insn insn;
	u8 *next;

	if (offset_in_page(ip) % KPROBE_INSN_SLOT_SIZE ||
	    !is_kprobe_insn_slot(ip))
		return 0;
	if (insn_decode_kernel(&insn, (void *)ip) < 0)
		return 0;
	next = (u8 *)ip + insn.length;
	if (*next != JMP32_INSN_OPCODE)
		return 0;
	addr = (unsigned long)next + JMP32_INSN_SIZE +
	       get_unaligned((s32 *)(next + 1)) - insn.length;
	if (!search_exception_tables(addr))
		return 0;

	regs->ip = addr;
	/* As below: the page fault path looks up the fixup after us. */
	if (trapnr != X86_TRAP_PF)
		return fixup_exception(regs, trapnr,
				       current->thread.error_code, 0);
	return 0;
}

/**
 * kprobe_fault_handler() - a trap happened while a probe runs on this CPU
 * @regs: registers at the fault
 * @trapnr: X86_TRAP_*
 *
 * A fault of the out-of-line copy is moved back to the probed address, as if
 * the original instruction had faulted; the probes' fault handlers see it
 * there first, then (unless one of them fixed it) the kernel handles it
 * there: page fault, exception table fixup, oops.  The post handlers do not
 * run for an instruction that faulted.  A fault in a handler goes to the
 * probes' fault handlers.
 *
 * Return: 1 if the fault was fixed, 0 to let the kernel handle it.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe *cur = kprobe_running();
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	int fixed;

	if (unlikely(!cur))
		return 0;

	if (kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER)) {
		if (!cur->ainsn.insn ||
		    regs->ip != (unsigned long)cur->ainsn.insn + cur->ainsn.int3_off)
			return kp_fault_in_boosted_copy(regs, trapnr);

		regs->ip = (unsigned long)cur->addr;
		regs->flags |= kcb->saved_if;
		if (kcb->kprobe_status == KPROBE_REENTER) {
			/* A reentered probe runs no handler. */
			kp_resume_outer(kcb);
		} else {
			/* The step is over: a hit now is a miss. */
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			fixed = kprobe_call_fault_handlers(cur, regs, trapnr);
			reset_current_kprobe();
			if (fixed)
				return 1;
		}

		/*
		 * The page fault path looks up the exception table after us;
		 * the others (#GP of an *_safe MSR access) already did, with
		 * the slot address: look again at the original one.
		 */
		if (trapnr != X86_TRAP_PF)
			return fixup_exception(regs, trapnr,
					       current->thread.error_code, 0);
		return 0;
	}

	if (kcb->kprobe_status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE))
		return kprobe_call_fault_handlers(cur, regs, trapnr);
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_handler);
