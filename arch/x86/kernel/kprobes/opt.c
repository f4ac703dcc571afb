// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization of kprobes.
 *
 * An optimized site replaces the int3 and the next bytes by a 5-byte
 * "jmp detour".  The instructions whose bytes the jump covers (at least 5
 * bytes, rounded up to instruction boundaries) are "displaced": the detour
 * runs them, relocated, before jumping back.  A detour slot holds:
 *
 *	push ss, sp, flags			struct pt_regs on the stack,
 *	clac (if SMAP); cld			   as an exception entry
 *	push cs, ip, orig_ax			   would build it
 *	PUSH_GPRS_STRING
 *	movabs $op, %rdi; call detour_handler	run the pre handlers
 *	test %eax, %eax; jz 1f
 *	regs->ss = regs->ip; RESTORE_REGS_STRING
 *	popf; lea 8(%rsp), %rsp; ret		redirected: see below
 *   1:	RESTORE_REGS_STRING
 *	popf; lea 16(%rsp), %rsp
 *	<displaced instructions, relocated>
 *	jmp addr + size
 *
 * The first part is the template below, copied; the rest is generated.
 *
 * Redirection: when a pre handler changes regs->ip and returns non-zero,
 * the detour stores regs->ip in the ss slot of the frame and returns to it
 * with the other registers (and flags) as the handlers left them, without
 * running the displaced instructions.  A change of regs->sp is not
 * honoured: the stack pointer is back where the probe hit.  (fail_function
 * and bpf_override_return only change ip and ax.)
 *
 * Sites with post handlers are not optimized: the core keeps them on their
 * breakpoint.
 *
 * Safety of the replacement, checked by arch_prepare_optimized_kprobe():
 * the displaced range lies in one function, holds no branch, no instruction
 * with an exception table entry and no other probe or patched site; nothing
 * in the function jumps into the middle of it (the whole function is
 * decoded, and so are its other parts if GCC split it into foo and
 * foo.cold; an indirect jump, which may come from a jump table, refuses the
 * site); the fixup of no exception table entry of the function lands in it,
 * nor does the target of a jump label, which a decode sees as a NOP.
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/preempt.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/perf_event.h>

#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/ibt.h>
#include <asm/alternative.h>
#include <asm/segment.h>

#include "common.h"

/*
 * The detour template (symbols in common.h).  It lives in .rodata: it is
 * never executed in place, only copied into detour slots and patched there.
 */
asm(".pushsection .rodata, \"a\"\n"
	".global optprobe_tmpl_start\n"
	"optprobe_tmpl_start:\n"
	"	pushq $" __stringify(__KERNEL_DS) "\n"
	"	pushq %rsp\n"
	"	pushfq\n"
	/*
	 * The handlers run with AC and DF clear, as after a breakpoint: the
	 * probed code may be in a user access section.  popfq restores both.
	 * A 3-byte NOP, made a clac on CPUs with SMAP.
	 */
	".global optprobe_tmpl_clac\n"
	"optprobe_tmpl_clac:\n"
	"	.byte 0x0f, 0x1f, 0x00\n"
	"	cld\n"
	"	pushq $" __stringify(__KERNEL_CS) "\n"
	/* pushq $imm32, the ip a breakpoint would show: patched in. */
	".global optprobe_tmpl_ip\n"
	"optprobe_tmpl_ip:\n"
	"	.byte 0x68\n"
	"	.long 0\n"
	"	pushq $-1\n"
	PUSH_GPRS_STRING
	"	movq %rsp, %rsi\n"
	".global optprobe_tmpl_op\n"
	"optprobe_tmpl_op:\n"
	"	movabsq $0, %rdi\n"
	".global optprobe_tmpl_call\n"
	"optprobe_tmpl_call:\n"
	"	.byte 0xe8\n"
	"	.long 0\n"
	"	testl %eax, %eax\n"
	"	jz 1f\n"
	/* Redirected: the ret below pops the ss slot. */
	"	movq " __stringify(KP_REGS_IP) "(%rsp), %rax\n"
	"	movq %rax, " __stringify(KP_REGS_SS) "(%rsp)\n"
	RESTORE_REGS_STRING
	"	popfq\n"
	"	leaq 8(%rsp), %rsp\n"
	".global optprobe_tmpl_ret\n"
	"optprobe_tmpl_ret:\n"
	"	.fill 5, 1, 0xcc\n"
	"1:\n"
	RESTORE_REGS_STRING
	"	popfq\n"
	"	leaq 16(%rsp), %rsp\n"
	".global optprobe_tmpl_end\n"
	"optprobe_tmpl_end:\n"
	".popsection\n"
);

#define TMPL_OFF(sym)	((long)((sym) - optprobe_tmpl_start))
/* movabsq $imm64, %rdi: REX.W, opcode, then the immediate. */
#define TMPL_OP_IMM_OFF	2
/* pushq $imm32: opcode, then the immediate. */
#define TMPL_IP_IMM_OFF	1

/*
 * Called by the detour with the registers of the probed context.  Returns
 * non-zero if a pre handler redirected execution to regs->ip.
 */
static __used int optprobe_detour_handler(struct optimized_kprobe *op,
					  struct pt_regs *regs)
{
	struct kprobe *p = &op->kp;
	int redirected = 0;

	preempt_disable();
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(p);
		goto out;
	}

	/* As a breakpoint on the first byte would show it (cs, ip: the asm). */
	regs->sp += sizeof(long);	/* "pushq %rsp" ran after "pushq ss" */

	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	redirected = kprobe_call_pre_handlers(p, regs);
	reset_current_kprobe();
out:
	preempt_enable();
	return redirected;
}

NOKPROBE_SYMBOL(optprobe_detour_handler);

static struct optimized_kprobe *kp_to_op(struct kprobe *p)
{
	return container_of(p, struct optimized_kprobe, kp);
}

/*
 * Undo optimized jumps in a copy of the text: @buf holds @len bytes copied
 * from @addr.  A detour exists once prepared; copied_insn then holds the
 * original bytes, whatever the jump's state.
 */
void kprobe_opt_recover_bytes(unsigned long addr, u8 *buf, int len)
{
	unsigned long a, i;
	struct optimized_kprobe *op;
	struct kprobe *p;

	for (a = addr - (KPROBE_OPT_JUMP_SIZE - 1); a < addr + len; a++) {
		p = get_kprobe((void *)a);
		if (!p || kprobe_ftrace(p))
			continue;
		op = kp_to_op(p);
		if (!op->optinsn.insn)
			continue;
		for (i = 0; i < KPROBE_OPT_JUMP_SIZE; i++) {
			if (a + i >= addr && a + i < addr + len)
				buf[a + i - addr] = op->optinsn.copied_insn[i];
		}
	}
}

/* Any branch instruction (direct, indirect or return). */
static bool opt_is_branch(struct insn *insn)
{
	u8 op0 = insn->opcode.bytes[0];
	u8 op1 = insn->opcode.bytes[1];

	if (insn_is_avx(insn))
		return false;
	switch (op0) {
	case 0x70 ... 0x7f:
	case 0xe0 ... 0xe3:
	case 0xe8:
	case 0xe9:
	case 0xeb:
	case 0xc2:
	case 0xc3:
		return true;
	case 0x0f:
		return op1 >= 0x80 && op1 <= 0x8f;
	case 0xff:
		return X86_MODRM_REG(insn->modrm.bytes[0]) >= 2 &&
		       X86_MODRM_REG(insn->modrm.bytes[0]) <= 5;
	}
	return false;
}

/* Target of a relative branch, or 0. */
static unsigned long opt_rel_target(struct insn *insn, unsigned long addr)
{
	u8 op0 = insn->opcode.bytes[0];
	u8 op1 = insn->opcode.bytes[1];

	if (insn_is_avx(insn))
		return 0;
	switch (op0) {
	case 0x70 ... 0x7f:
	case 0xe0 ... 0xe3:
	case 0xe8:
	case 0xe9:
	case 0xeb:
		break;
	case 0x0f:
		if (op1 >= 0x80 && op1 <= 0x8f)
			break;
		return 0;
	default:
		return 0;
	}
	return addr + insn->length + (long)insn->immediate.value;
}

static bool opt_is_indirect_jump(struct insn *insn, unsigned long addr)
{
	unsigned long target;

	if (insn_is_avx(insn))
		return false;
	if (insn->opcode.bytes[0] == 0xff) {
		u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

		return reg == 4 || reg == 5;
	}
	/* jmp/jcc __x86_indirect_thunk_* (a call to one is an indirect call). */
	if (insn->opcode.bytes[0] == CALL_INSN_OPCODE)
		return false;
	target = opt_rel_target(insn, addr);
	return target && kprobe_is_indirect_thunk(target);
}

static unsigned long opt_extable_fixup(const struct exception_table_entry *e)
{
	return (unsigned long)&e->fixup + e->fixup;
}

/*
 * Decode the whole function [func, end): nothing may jump into
 * (addr, addr + size).
 */
static int opt_check_function(unsigned long func, unsigned long end,
			      unsigned long addr, unsigned long size)
{
	const struct exception_table_entry *e;
	u8 buf[MAX_INSN_SIZE];
	unsigned long a, target;
	struct insn insn;

	for (a = func; a < end; a += insn.length) {
		if (ftrace_location(a) == a) {
			insn.length = MCOUNT_INSN_SIZE;
			continue;
		}
		if (kprobe_decode_orig(&insn, a, buf))
			return -EILSEQ;

		if (opt_is_indirect_jump(&insn, a))
			return -EINVAL;
		target = opt_rel_target(&insn, a);
		if (target > addr && target < addr + size)
			return -EINVAL;

		e = search_exception_tables(a);
		if (e) {
			target = opt_extable_fixup(e);
			if (target > addr && target < addr + size)
				return -EINVAL;
		}
	}
	return 0;
}

struct opt_range {
	unsigned long addr;
	unsigned long size;
};

/* kprobe_walk_split_parts()'s callback: decode that part too. */
static int opt_check_part(void *data, unsigned long start, unsigned long end)
{
	struct opt_range *r = data;

	return opt_check_function(start, end, r->addr, r->size);
}

/*
 * Collect the displaced instructions from @addr: @orig receives their
 * original bytes, *@size their total length.
 */
static int opt_collect_displaced(unsigned long addr, unsigned long end,
				 u8 *orig, int *size)
{
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	unsigned long a;
	u32 word;
	int len = 0, ret;

	while (len < KPROBE_OPT_JUMP_SIZE) {
		a = addr + len;
		if (a != addr) {
			/* Another probe or an indirect branch target inside. */
			if (get_kprobe((void *)a))
				return -EBUSY;
			if (!get_kernel_nofault(word, (u32 *)a) && is_endbr(word))
				return -EINVAL;
		}
		if (ftrace_location(a))
			return -EBUSY;
		ret = kprobe_decode_orig(&insn, a, buf);
		if (ret)
			return ret;
		ret = kprobe_check_probeable(&insn);
		if (ret)
			return ret;
		if (opt_is_branch(&insn) || search_exception_tables(a))
			return -EINVAL;
		if (a + insn.length > end)
			return -EINVAL;
		memcpy(orig + len, buf, insn.length);
		len += insn.length;
	}
	*size = len;
	return 0;
}

static bool opt_text_reserved(unsigned long addr, int size)
{
	void *start = (void *)addr, *last = (void *)(addr + size - 1);
	bool ret;

	if (kprobe_text_reserved(start, last) ||
	    ftrace_text_reserved(start, last))
		return true;
	/*
	 * The alternatives' module list is protected by text_mutex, which the
	 * core does not hold here (it nests inside the jump label and static
	 * call locks, so it is taken for this check only).
	 */
	mutex_lock(&text_mutex);
	ret = alternatives_text_reserved(start, last);
	mutex_unlock(&text_mutex);
	return ret;
}

static bool opt_rel32_ok(unsigned long from_next, unsigned long to)
{
	long rel = (long)to - (long)from_next;

	return rel == (s32)rel;
}

static const u8 opt_clac[] = { 0x0f, 0x01, 0xca };

/* Build the detour for @op at @slot into @buf; returns its size or -errno. */
static int opt_build_detour(struct optimized_kprobe *op, unsigned long slot,
			    u8 *buf, const u8 *orig, int size)
{
	unsigned long addr = (unsigned long)op->kp.addr;
	long tmpl = TMPL_OFF(optprobe_tmpl_end);
	unsigned long call = slot + TMPL_OFF(optprobe_tmpl_call);
	unsigned long ret = slot + TMPL_OFF(optprobe_tmpl_ret);
	u64 opaddr = (unsigned long)op;
	s32 ip = (s32)(addr + INT3_INSN_SIZE);
	struct insn insn;
	int off, err;

	if (tmpl + size + JMP32_INSN_SIZE > MAX_OPTINSN_SIZE)
		return -E2BIG;
	/* pushq sign-extends its immediate: kernel and module text fit. */
	if ((long)ip != (long)(addr + INT3_INSN_SIZE) ||
	    !opt_rel32_ok(addr + JMP32_INSN_SIZE, slot) ||
	    !opt_rel32_ok(call + CALL_INSN_SIZE,
			  (unsigned long)optprobe_detour_handler) ||
	    !opt_rel32_ok(slot + tmpl + size + JMP32_INSN_SIZE, addr + size))
		return -ERANGE;

	memcpy(buf, optprobe_tmpl_start, tmpl);
	if (boot_cpu_has(X86_FEATURE_SMAP))
		memcpy(buf + TMPL_OFF(optprobe_tmpl_clac), opt_clac,
		       sizeof(opt_clac));
	memcpy(buf + TMPL_OFF(optprobe_tmpl_ip) + TMPL_IP_IMM_OFF, &ip,
	       sizeof(ip));
	memcpy(buf + TMPL_OFF(optprobe_tmpl_op) + TMPL_OP_IMM_OFF, &opaddr,
	       sizeof(opaddr));
	__text_gen_insn(buf + TMPL_OFF(optprobe_tmpl_call), CALL_INSN_OPCODE,
			(void *)call, optprobe_detour_handler, CALL_INSN_SIZE);
	if (cpu_wants_rethunk_at((void *)ret)) {
		__text_gen_insn(buf + TMPL_OFF(optprobe_tmpl_ret),
				JMP32_INSN_OPCODE, (void *)ret,
				x86_return_thunk, JMP32_INSN_SIZE);
	} else {
		buf[TMPL_OFF(optprobe_tmpl_ret)] = RET_INSN_OPCODE;
	}

	/* The displaced instructions, one by one: each has its own RIP. */
	for (off = 0; off < size; off += insn.length) {
		u8 *dst = buf + tmpl + off;

		memcpy(dst, orig + off, size - off);
		if (insn_decode(&insn, dst, size - off, INSN_MODE_KERN) < 0)
			return -EILSEQ;
		err = kprobe_fixup_riprel(&insn, dst, addr + off,
					  slot + tmpl + off);
		if (err)
			return err;
	}

	__text_gen_insn(buf + tmpl + size, JMP32_INSN_OPCODE,
			(void *)(slot + tmpl + size), (void *)(addr + size),
			JMP32_INSN_SIZE);
	return tmpl + size + JMP32_INSN_SIZE;
}

/**
 * arch_prepare_optimized_kprobe() - build the detour of a site
 * @op: the site's optimized_kprobe
 * @p: the site (&op->kp)
 *
 * Return: 0 when @p can be replaced by a jump, else -EINVAL (unsuitable
 * instructions or jumps into the range), -EBUSY (other users of the text),
 * -EILSEQ (undecodable function), -ERANGE (detour out of reach), -E2BIG,
 * -ENOMEM.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	unsigned long size, offset;
	u8 orig[MAX_INSN_SIZE + KPROBE_OPT_JUMP_SIZE];
	u8 buf[MAX_OPTINSN_SIZE];
	kprobe_opcode_t *slot;
	int len, ret;

	if (p->post_handler)
		return -EINVAL;
	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EINVAL;

	rcu_read_lock();
	ret = opt_collect_displaced(addr, addr - offset + size, orig, &len);
	rcu_read_unlock();
	if (ret)
		return ret;
	if (opt_text_reserved(addr, len))
		return -EBUSY;
	if (kprobe_jump_label_into(addr, addr + len))
		return -EINVAL;
	/*
	 * Decode under text_mutex, as kp_check_boundary() does: no int3 of
	 * text_poke_bp() in the middle of an instruction on the way.
	 */
	mutex_lock(&text_mutex);
	ret = opt_check_function(addr - offset, addr - offset + size, addr,
				 len);
	if (!ret) {
		struct opt_range r = { .addr = addr, .size = len };

		ret = kprobe_walk_split_parts(addr - offset, opt_check_part,
					      &r);
	}
	mutex_unlock(&text_mutex);
	if (ret)
		return ret < 0 ? ret : -EINVAL;

	slot = get_optinsn_slot();
	if (!slot)
		return -ENOMEM;
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));
	ret = opt_build_detour(op, (unsigned long)slot, buf, orig, len);
	if (ret < 0) {
		free_optinsn_slot(slot, 0);
		return ret;
	}
	text_poke_copy(slot, buf, ret);
	perf_event_text_poke(slot, NULL, 0, buf, ret);

	memcpy(op->optinsn.copied_insn, orig, KPROBE_OPT_JUMP_SIZE);
	op->optinsn.size = len;
	op->optinsn.insn = slot;
	return 0;
}

void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	if (!op->optinsn.insn)
		return;
	perf_event_text_poke(op->optinsn.insn, op->optinsn.insn,
			     MAX_OPTINSN_SIZE, NULL, 0);
	free_optinsn_slot(op->optinsn.insn, 1);
	WRITE_ONCE(op->optinsn.insn, NULL);
	op->optinsn.size = 0;
}

/* The jump to @op's detour, padded for the decoder of text_poke_queue(). */
static void opt_gen_jump(struct optimized_kprobe *op, u8 *insn)
{
	memset(insn, INT3_INSN_OPCODE, MAX_INSN_SIZE);
	__text_gen_insn(insn, JMP32_INSN_OPCODE, op->kp.addr, op->optinsn.insn,
			JMP32_INSN_SIZE);
}

/*
 * text_poke_queue() replaces the 5 bytes safely on live CPUs: while it
 * works, a CPU reaching the int3 it keeps at @addr is sent to the detour by
 * the text patching int3 handler (it emulates the jump), before kprobes
 * sees the trap.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;
	u8 jmp[MAX_INSN_SIZE];

	list_for_each_entry_safe(op, tmp, oplist, list) {
		opt_gen_jump(op, jmp);
		text_poke_queue(op->kp.addr, jmp, JMP32_INSN_SIZE, NULL);
		list_del_init(&op->list);
	}
	text_poke_finish();
}

/*
 * Back to int3 + original bytes.  Until that is done everywhere, the int3 is
 * handled as the jump it replaces (the detour), so no CPU can resume from
 * the breakpoint path into bytes still holding the jump's displacement.
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *op, *tmp;
	u8 new[MAX_INSN_SIZE], jmp[MAX_INSN_SIZE];

	list_for_each_entry_safe(op, tmp, oplist, list) {
		opt_gen_jump(op, jmp);
		memset(new, INT3_INSN_OPCODE, sizeof(new));
		memcpy(new + INT3_INSN_SIZE, op->optinsn.copied_insn + INT3_INSN_SIZE,
		       JMP32_INSN_SIZE - INT3_INSN_SIZE);
		text_poke_queue(op->kp.addr, new, JMP32_INSN_SIZE, jmp);
		list_move(&op->list, done_list);
	}
	text_poke_finish();
}

bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  kprobe_opcode_t *addr)
{
	unsigned long start = (unsigned long)op->kp.addr;

	return (unsigned long)addr >= start &&
	       (unsigned long)addr < start + op->optinsn.size;
}
