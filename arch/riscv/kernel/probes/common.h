/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of riscv kprobes.
 */
#ifndef _RISCV_KERNEL_PROBES_COMMON_H
#define _RISCV_KERNEL_PROBES_COMMON_H

#include <linux/kprobes.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

struct kprobe;
struct pt_regs;

/* kprobes_trampoline.S: where stepped copies go back to (see kprobes.c). */
extern const u16 kprobe_step_trampoline[];
void kprobe_step_trampoline_handler(struct pt_regs *regs);

#define RV_ENC_EBREAK		0x00100073U
#define RV_ENC_C_EBREAK		0x9002U
#define RV_ENC_AUIPC(rd)	(RVG_OPCODE_AUIPC | ((rd) << RVG_RD_OPOFF))
#define RV_ENC_JALR_X0(rs1)	(RVG_OPCODE_JALR | ((rs1) << RVG_RS1_OPOFF))
#define RV_ENC_JAL_X0		RVG_OPCODE_JAL
#define RV_ENC_ADDI(rd, rs1)	(0x13 | ((rd) << RVG_RD_OPOFF) | ((rs1) << RVG_RS1_OPOFF))

/* Whether a JAL at @from reaches @to: +/-1 MiB. */
static inline bool rv_jal_reaches(unsigned long from, unsigned long to)
{
	long off = to - from;

	return off >= -(long)SZ_1M && off < (long)SZ_1M;
}

/* JAL x0, @to, placed at @from; rv_jal_reaches() must hold. */
static inline u32 rv_gen_jal(unsigned long from, unsigned long to)
{
	u32 insn = RV_ENC_JAL_X0;

	riscv_insn_insert_jtype_imm(&insn, to - from);
	return insn;
}

/*
 * Whether AUIPC at @from + JALR reach @to: the sign-extended 20-bit upper
 * immediate, rounded for the signed 12-bit lower one, within an s32.
 */
static inline bool rv_auipc_jalr_reaches(unsigned long from, unsigned long to)
{
	s64 off = (long)(to - from);

	return off >= -(s64)SZ_2G && off < (s64)SZ_2G - SZ_2K;
}

/* AUIPC @reg; JALR x0, lo(@reg): a jump from @from to @to through @reg. */
static inline void rv_gen_auipc_jalr(unsigned long from, unsigned long to,
				     unsigned int reg, u32 insn[2])
{
	insn[0] = RV_ENC_AUIPC(reg);
	insn[1] = RV_ENC_JALR_X0(reg);
	riscv_insn_insert_utype_itype_imm(&insn[0], &insn[1], to - from);
}

/* kprobes.c */
int riscv_kprobe_read_insn(unsigned long addr, u32 *insn);
int riscv_kprobe_write(void *addr, const void *buf, size_t len);

/* opt.c */
#ifdef CONFIG_OPTPROBES
/* The detour template and its fields (opt_detour.S). */
extern const u8 optprobe_detour[];
extern const u8 optprobe_detour_probe_addr[];
extern const u8 optprobe_detour_callback[];
extern const u8 optprobe_detour_exit[];
extern const u8 optprobe_detour_entry[];
extern const u8 optprobe_detour_displaced[];

#define DETOUR_SLOT_BYTES	(MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t))
#define DETOUR_OFF(sym)		((unsigned long)(sym) - (unsigned long)optprobe_detour)

int optprobe_callback(unsigned long addr, struct pt_regs *regs);
void riscv_opt_recover(unsigned long addr, u8 *buf, size_t len);
bool __riscv_opt_exit_handler(struct pt_regs *regs);

/*
 * The two below are on the path of every breakpoint hit, optimized sites
 * or not: inline.
 */

/**
 * riscv_opt_resume_addr() - where a breakpoint hit of a site resumes
 * @p: the site
 *
 * Return: the copy of the displaced instructions in the detour of @p when
 * it is being optimized (or is), else 0.
 */
static nokprobe_inline unsigned long riscv_opt_resume_addr(struct kprobe *p)
{
	kprobe_opcode_t *insn;

	if (!(READ_ONCE(p->flags) & KPROBE_FLAG_OPTIMIZED))
		return 0;
	insn = READ_ONCE(container_of(p, struct optimized_kprobe, kp)->optinsn.insn);
	if (!insn)
		return 0;
	return (unsigned long)insn + DETOUR_OFF(optprobe_detour_displaced);
}

/**
 * riscv_opt_exit_handler() - was the EBREAK at the exit of a detour hit?
 * @regs: the registers at an EBREAK that ended no step
 *
 * Return: true if the EBREAK was a detour's: execution resumes as the
 * pt_regs of the detour say.
 */
static nokprobe_inline bool riscv_opt_exit_handler(struct pt_regs *regs)
{
	/* Detours are aligned to their size: most EBREAKs fail this. */
	if ((instruction_pointer(regs) & (DETOUR_SLOT_BYTES - 1)) !=
	    DETOUR_OFF(optprobe_detour_exit))
		return false;
	return __riscv_opt_exit_handler(regs);
}
#else
static inline void riscv_opt_recover(unsigned long addr, u8 *buf, size_t len)
{
}

static inline unsigned long riscv_opt_resume_addr(struct kprobe *p)
{
	return 0;
}

static inline bool riscv_opt_exit_handler(struct pt_regs *regs)
{
	return false;
}
#endif

#endif /* _RISCV_KERNEL_PROBES_COMMON_H */
