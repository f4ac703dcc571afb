// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of the probe manager: registration errors, hit counts, handler
 * order, redirection, reentrancy, kretprobes, fault handlers, concurrency,
 * jump optimization, kprobes on ftrace and jprobes.
 *
 * Every check is an exact count or value.  The probed functions are only
 * called by this suite, through volatile function pointers, so that the
 * compiler can neither inline nor clone them, and nothing else hits them.
 *
 * lib/test_kprobes.c runs next to this suite; it is not duplicated here.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/error-injection.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/sections.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#include <asm/trapnr.h>
#endif
#ifdef CONFIG_PPC
#include <asm/code-patching.h>
#endif

#include "internal.h"

#define KPK_CALLS	10

/*
 * Where the instruction pointer is when a pre handler runs: x86 reports the
 * address right after the breakpoint (as if the int3 had run), on every kind
 * of site (int3, ftrace, jump optimized); the other arches report the probed
 * address itself.
 */
#ifdef CONFIG_X86
#define KPK_IP_BIAS	sizeof(kprobe_opcode_t)
#else
#define KPK_IP_BIAS	0
#endif

/* ---------------------------------------------------------------------------
 * Probed functions
 * ---------------------------------------------------------------------------
 */
typedef int (*kpk_fn_t)(int);

static noinline __used int kpk_target_a(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 1;
}

static noinline __used int kpk_target_b(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 2;
}

static noinline __used int kpk_target_c(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 3;
}

static noinline __used int kpk_target_ft(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 4;
}

/* Where the redirecting pre handler sends execution. */
static noinline __used int kpk_target_redir(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x * 3 + 7;
}

/* Its probe's handler calls a probed function, which must miss. */
static noinline __used int kpk_target_outer(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 5;
}

/* Never probed successfully: each is on kprobes' blacklist in its own way. */
static noinline __used int kpk_target_nokprobe(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 6;
}

NOKPROBE_SYMBOL(kpk_target_nokprobe);

static noinline __used int __kprobes kpk_target_kprobes_text(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	barrier();
	return x + 7;
}

static noinstr __used int kpk_target_noinstr(int x)
{
	return x + 8;
}

static int kpk_data_var = 42;
static const int kpk_rodata_var[4] = { 1, 2, 3, 4 };

/*
 * Known instructions.  On x86_64 these are written in assembly so that the
 * test knows each instruction's length:
 *
 * kpk_asm_add1000(x)	movl $1000, %eax	5 bytes
 *			addl %edi, %eax		2 bytes
 *			ret			returns x + 1000
 * kpk_asm_load(p)	movq (%rdi), %rax	3 bytes, with an exception table
 *			ret			entry: returns *p, or -EFAULT
 *
 * ASM_ENDBR is empty unless CONFIG_X86_KERNEL_IBT.
 */
#ifdef CONFIG_X86_64
#include <asm/asm.h>
#include <asm/extable_fixup_types.h>
#include <asm/ibt.h>
#include <linux/linkage.h>

#define KPK_ENDBR_LEN	(IS_ENABLED(CONFIG_X86_KERNEL_IBT) ? 4 : 0)
#define KPK_MOVL_LEN	5

asmlinkage int kpk_asm_add1000(int x);
asmlinkage long kpk_asm_load(const long *p);

asm(".pushsection .text, \"ax\"\n"
	".globl kpk_asm_add1000\n"
	".type kpk_asm_add1000, @function\n"
	"kpk_asm_add1000:\n\t"
	ASM_ENDBR
	"movl $1000, %eax\n\t"
	"addl %edi, %eax\n\t"
	ASM_RET
	".size kpk_asm_add1000, . - kpk_asm_add1000\n"
	".globl kpk_asm_load\n"
	".type kpk_asm_load, @function\n"
	"kpk_asm_load:\n\t"
	ASM_ENDBR
	"1: movq (%rdi), %rax\n\t"
	"2: " ASM_RET
	/* On a fault: register 0 (%rax) = -EFAULT, continue at 2. */
	_ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_EFAULT_REG | EX_DATA_REG(0))
	".size kpk_asm_load, . - kpk_asm_load\n"
	".popsection\n");
#endif

/*
 * riscv: the target of the optimization tests.  kpk_asm_add3(x) returns
 * x + 3 in 4-byte instructions and writes t0 last, so t0 is dead over the
 * first ones.  A site whose detour is beyond the 1 MiB a JAL reaches is
 * jumped to with AUIPC+JALR through such a register, and the optimizer only
 * takes one that the function writes (insn-analysis.c).  The C targets,
 * built with frame pointers, write none: whether they are optimized depends
 * on where the image puts them (within the first MiB of kernel text in the
 * plain build, beyond it with KASAN).
 */
#ifdef CONFIG_RISCV
asmlinkage int kpk_asm_add3(int x);

asm(".pushsection .text, \"ax\"\n"
	".option push\n"
	".option norvc\n"
	".balign 4\n"
	".globl kpk_asm_add3\n"
	".type kpk_asm_add3, @function\n"
	"kpk_asm_add3:\n\t"
	"addiw a0, a0, 1\n\t"
	"addiw a0, a0, 1\n\t"
	"addiw a0, a0, 1\n\t"
	"li t0, 0\n\t"
	"ret\n"
	".size kpk_asm_add3, . - kpk_asm_add3\n"
	".option pop\n"
	".popsection\n");
#endif

/* An assembly target whose first instruction the arch's optimizer takes. */
#if defined(CONFIG_X86_64)
#define KPK_OPT_ASM_SITE { "insn", kpk_asm_add1000, "kpk_asm_add1000", 1000 }
#elif defined(CONFIG_RISCV)
#define KPK_OPT_ASM_SITE { "asm", kpk_asm_add3, "kpk_asm_add3", 3 }
#endif

/*
 * The address a probe on @fn+0 lands on (past ENDBR, past the ELFv2 global
 * entry, descriptors resolved).
 */
static unsigned long kpk_entry(void *fn)
{
	unsigned long a = (unsigned long)dereference_kernel_function_descriptor(fn);

#ifdef CONFIG_X86_KERNEL_IBT
	/* A run-time sum: fn + 4 in the code would be a reference to no ENDBR. */
	OPTIMIZER_HIDE_VAR(a);
	if (is_endbr(*(u32 *)a))
		a += ENDBR_INSN_SIZE;
#endif
#ifdef CONFIG_PPC64_ELF_ABI_V2
	/* Past the TOC setup of the global entry, on the ftrace call if any. */
	a = ppc_function_entry((void *)a);
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		a = ftrace_location_range(a, a + 12) ?: a;
#endif
	return a;
}

/* Call @fn(@x) through a pointer the compiler knows nothing about. */
static noinline int kpk_call(kpk_fn_t fn, int x)
{
	OPTIMIZER_HIDE_VAR(fn);
	return fn(x);
}

/*
 * The kinds of probe sites the parameterized tests run on: a C function's
 * entry by symbol (an ftrace site with CONFIG_KPROBES_ON_FTRACE), and a plain
 * instruction (a breakpoint, possibly jump optimized).
 */
struct kpk_site {
	const char *desc;
	kpk_fn_t fn;
	const char *sym;
	int delta;		/* fn(x) == x + delta */
};

static const struct kpk_site kpk_sites[] = {
	{ "func_entry", kpk_target_a, "kpk_target_a", 1 },
#ifdef CONFIG_X86_64
	{ "insn", kpk_asm_add1000, "kpk_asm_add1000", 1000 },
#else
	{ "func_entry_c", kpk_target_c, "kpk_target_c", 3 },
#endif
};

KUNIT_ARRAY_PARAM_DESC(kpk_sites, kpk_sites, desc);

/* ---------------------------------------------------------------------------
 * Counting handlers
 * ---------------------------------------------------------------------------
 */
struct kpk_probe {
	struct kprobe kp;
	int id;
	atomic_t pre;
	atomic_t post;
	atomic_t fault;
	int last_trapnr;
	unsigned long seen_ip;
	unsigned long seen_addr;
	long copy_ret;		/* kpk_pre_fault: what its faulting load returned */
	kpk_fn_t call_inner;	/* kpk_pre_call: function its handler calls */
};

#define to_kpk(p)	container_of(p, struct kpk_probe, kp)

/* The order in which pre handlers ran, by kpk_probe::id. */
static atomic_t kpk_order_n;
static int kpk_order[64];

static void kpk_order_reset(void)
{
	atomic_set(&kpk_order_n, 0);
	memset(kpk_order, 0, sizeof(kpk_order));
}

static int kpk_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpk_probe *k = to_kpk(p);
	int i = atomic_inc_return(&kpk_order_n) - 1;

	if (i < ARRAY_SIZE(kpk_order))
		kpk_order[i] = k->id;
	WRITE_ONCE(k->seen_ip, instruction_pointer(regs));
	WRITE_ONCE(k->seen_addr, (unsigned long)p->addr);
	atomic_inc(&k->pre);
	return 0;
}

/* For probes that are not in a struct kpk_probe: none of them may be hit. */
static atomic_t kpk_stray;

static int kpk_pre_bare(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpk_stray);
	return 0;
}

static void kpk_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&to_kpk(p)->post);
}

static int kpk_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	struct kpk_probe *k = to_kpk(p);

	WRITE_ONCE(k->last_trapnr, trapnr);
	atomic_inc(&k->fault);
	return 0;	/* let the exception table fix it */
}

/* Sends execution to kpk_target_redir instead of the probed function. */
static int kpk_pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	void *to = dereference_kernel_function_descriptor(kpk_target_redir);

	atomic_inc(&to_kpk(p)->pre);
	instruction_pointer_set(regs, (unsigned long)to);
	return 1;
}

/* Calls another (probed) function from inside the handler. */
static int kpk_pre_call(struct kprobe *p, struct pt_regs *regs)
{
	struct kpk_probe *k = to_kpk(p);

	atomic_inc(&k->pre);
	kpk_call(k->call_inner, 1);
	return 0;
}

/*
 * Faults on a user address from inside the handler.  The fault path calls
 * kprobe_page_fault() before anything else for user addresses (x86:
 * do_user_addr_fault(), arm64/riscv/powerpc: do_page_fault()), so the fault
 * reaches kprobe_fault_handler() while this probe is running and the probe's
 * fault_handler is called; it returns 0, and the exception table of
 * __get_user() then makes it return -EFAULT.  __get_user() of one byte is
 * one load, so one fault per hit (a copy routine may retry after a fault).
 * Page 0 is never mapped (the mm is that of a kernel thread, or a lazy one,
 * and mmap_min_addr keeps page 0 free).
 */
static int kpk_pre_fault(struct kprobe *p, struct pt_regs *regs)
{
	struct kpk_probe *k = to_kpk(p);
	u8 v = 0;

	atomic_inc(&k->pre);
	pagefault_disable();
	k->copy_ret = __get_user(v, (const u8 __user *)16);
	pagefault_enable();
	return 0;
}

static void kpk_init_probe(struct kpk_probe *k, int id, const char *sym,
			   unsigned long addr, bool post)
{
	k->id = id;
	k->kp.symbol_name = sym;
	k->kp.addr = (kprobe_opcode_t *)addr;
	k->kp.pre_handler = kpk_pre;
	if (post)
		k->kp.post_handler = kpk_post;
	k->kp.fault_handler = kpk_fault;
}

static struct kpk_probe *kpk_new(struct kunit *test, int id, const char *sym,
				 unsigned long addr, bool post)
{
	struct kpk_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	kpk_init_probe(k, id, sym, addr, post);
	return k;
}

/*
 * Registration with a deferred unregistration, so that a test that fails
 * half-way never leaves a probe behind on memory KUnit frees.  The deferred
 * actions run before the memory allocated earlier is freed.
 */
static void kpk_unreg_action(void *p)
{
	unregister_kprobe(p);
}

static int kpk_reg(struct kunit *test, struct kprobe *p)
{
	int ret = register_kprobe(p);

	if (!ret)
		ret = kunit_add_action_or_reset(test, kpk_unreg_action, p);
	return ret;
}

static void kpk_unreg(struct kunit *test, struct kprobe *p)
{
	kunit_release_action(test, kpk_unreg_action, p);
}

static void kpk_unreg_rp_action(void *rp)
{
	unregister_kretprobe(rp);
}

static int kpk_reg_rp(struct kunit *test, struct kretprobe *rp)
{
	int ret = register_kretprobe(rp);

	if (!ret)
		ret = kunit_add_action_or_reset(test, kpk_unreg_rp_action, rp);
	return ret;
}

static void kpk_unreg_rp(struct kunit *test, struct kretprobe *rp)
{
	kunit_release_action(test, kpk_unreg_rp_action, rp);
}

/* Call @fn(i) for i in [0, n), checking each result. */
static void kpk_calls(struct kunit *test, kpk_fn_t fn, int delta, int n)
{
	int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, kpk_call(fn, i), i + delta);
}

/* Flags of the site at @p's address (the probes' shared, armed struct). */
static u32 __maybe_unused kpk_site_flags(struct kprobe *p)
{
	struct kprobe *site;
	u32 flags = 0;

	preempt_disable();
	rcu_read_lock();
	site = get_kprobe(p->addr);
	if (site)
		flags = READ_ONCE(site->flags);
	rcu_read_unlock();
	preempt_enable();
	return flags;
}

static int kpk_test_init(struct kunit *test)
{
	kpk_order_reset();
	atomic_set(&kpk_stray, 0);
	return 0;
}

/* Probes registered only to see whether they can be: none was hit. */
static void kpk_test_exit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_stray), 0);
}

/* ---------------------------------------------------------------------------
 * Registration errors
 * ---------------------------------------------------------------------------
 */
/*
 * What a refused registration must leave as it was: the sites hashed in
 * kprobe_table, their members and their flags (but KPROBE_FLAG_OPTIMIZED,
 * which the optimizer changes on its own time), i.e. kprobes/list.
 */
struct kpk_state {
	unsigned int sites;
	unsigned int probes;
	unsigned long sum;
};

static void kpk_state_get(struct kpk_state *st)
{
	struct kprobe *site, *p;
	int i;

	memset(st, 0, sizeof(*st));
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(site, &kprobe_table[i], hlist) {
			st->sites++;
			st->sum = st->sum * 31 + (unsigned long)site->addr +
				  (site->flags & ~KPROBE_FLAG_OPTIMIZED);
			list_for_each_entry(p, &site->list, list) {
				st->probes++;
				st->sum = st->sum * 31 + (unsigned long)p + p->flags;
			}
		}
	}
	mutex_unlock(&kprobe_mutex);
}

static void kpk_expect_state(struct kunit *test, const struct kpk_state *before,
			     const char *what, int ret)
{
	struct kpk_state now;

	kpk_state_get(&now);
	KUNIT_EXPECT_EQ_MSG(test, now.sites, before->sites, "%s (%d): sites", what, ret);
	KUNIT_EXPECT_EQ_MSG(test, now.probes, before->probes, "%s (%d): probes", what, ret);
	KUNIT_EXPECT_EQ_MSG(test, now.sum, before->sum, "%s (%d): sites' addresses or flags",
			    what, ret);
}

/*
 * Register @p; if refused, check that nothing changed: the probe table, and
 * @p itself, which the caller may fix and register again.
 */
static int kpk_try(struct kprobe *p)
{
	struct kunit *test = kunit_get_current_test();
	struct kpk_state st;
	struct kprobe copy;
	int ret;

	kpk_state_get(&st);
	memcpy(&copy, p, sizeof(copy));
	ret = register_kprobe(p);
	if (!ret) {	/* a bug, or a probe on purpose; do not leave it */
		unregister_kprobe(p);
		return ret;
	}
	if (test) {
		kpk_expect_state(test, &st, "refused kprobe", ret);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(&copy, p, sizeof(copy)),
				      "refused kprobe (%d) was changed", ret);
	}
	return ret;
}

static int kpk_try_sym(const char *sym, unsigned int offset)
{
	struct kprobe kp = {
		.symbol_name = sym, .offset = offset, .pre_handler = kpk_pre_bare,
	};

	return kpk_try(&kp);
}

static int kpk_try_addr(unsigned long addr)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)addr, .pre_handler = kpk_pre_bare,
	};

	return kpk_try(&kp);
}

static void kpk_test_errno_args(struct kunit *test)
{
	struct kprobe kp = {};

	KUNIT_EXPECT_EQ(test, register_kprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobe(NULL), -EINVAL);

	kp.symbol_name = "kpk_target_a";
	kp.addr = (kprobe_opcode_t *)kpk_entry(kpk_target_a);
	kp.pre_handler = kpk_pre_bare;
	KUNIT_EXPECT_EQ(test, kpk_try(&kp), -EINVAL);

	memset(&kp, 0, sizeof(kp));
	kp.pre_handler = kpk_pre_bare;
	KUNIT_EXPECT_EQ(test, kpk_try(&kp), -EINVAL);

	KUNIT_EXPECT_EQ(test, kpk_try_sym("kpk_no_such_symbol_at_all", 0),
			-ENOENT);
}

/*
 * Offsets past the end of a symbol, as perf probe writes kernel probes
 * (_text+N): the probe is in the function the address is in, at its entry
 * here.  And (x86) offsets into an instruction.
 */
static void kpk_test_errno_offset(struct kunit *test)
{
	struct kpk_probe *rel = kpk_new(test, 1, "_text", 0, false);
	struct kpk_probe *abs = kpk_new(test, 2, "kpk_target_a", 0, false);
	unsigned long fn = (unsigned long)kpk_target_a;
#ifdef CONFIG_X86_64
	unsigned long off;
#endif

	rel->kp.offset = fn - (unsigned long)_text;
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "_text",
						   rel->kp.offset), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &rel->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &abs->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, rel->kp.addr, abs->kp.addr);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&rel->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&abs->pre), KPK_CALLS);
	kpk_unreg(test, &rel->kp);
	kpk_unreg(test, &abs->kp);
#ifdef CONFIG_X86_64
	/* Inside the 5-byte movl: offsets 1..4 from its first byte. */
	for (off = 1; off < KPK_MOVL_LEN; off++) {
		unsigned long insn = kpk_entry(kpk_asm_add1000);

		KUNIT_EXPECT_EQ_MSG(test, kpk_try_sym("kpk_asm_add1000",
						      KPK_ENDBR_LEN + off),
				    -EILSEQ, "offset %lu", off);
		KUNIT_EXPECT_EQ_MSG(test, kpk_try_addr(insn + off), -EILSEQ,
				    "address +%lu", off);
	}
#endif
}

/* Code that must never be probed. */
static void kpk_test_errno_blacklist(struct kunit *test)
{
	static const char * const syms[] = {
		"kpk_target_nokprobe",
		"kpk_target_kprobes_text",
		"kpk_target_noinstr",
		"register_kprobe",
		"__kprobe_call_pre_handlers",
#ifdef CONFIG_X86_64
		"entry_SYSCALL_64",
		"asm_exc_int3",
#endif
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(syms); i++)
		KUNIT_EXPECT_EQ_MSG(test, kpk_try_sym(syms[i], 0), -EINVAL,
				    "symbol %s", syms[i]);

	KUNIT_EXPECT_EQ(test, kpk_try_addr(kpk_entry(kpk_target_nokprobe)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_try_addr(kpk_entry(kpk_target_kprobes_text)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_try_addr(kpk_entry(kpk_target_noinstr)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_try_addr(kpk_entry(register_kprobe)), -EINVAL);
#ifdef CONFIG_KRETPROBES
	KUNIT_EXPECT_EQ(test,
			kpk_try_addr((unsigned long)kretprobe_trampoline_addr()),
			-EINVAL);
#endif

	KUNIT_EXPECT_TRUE(test,
			  within_kprobe_blacklist(kpk_entry(kpk_target_nokprobe)));
	KUNIT_EXPECT_TRUE(test,
			  within_kprobe_blacklist(kpk_entry(kpk_target_noinstr)));
	KUNIT_EXPECT_FALSE(test,
			   within_kprobe_blacklist(kpk_entry(kpk_target_a)));
}

#ifdef CONFIG_FUNCTION_TRACER
/*
 * ftrace's entry and return code: every such name the kernel has is
 * refused, to a kprobe and to a kretprobe, whose swap of a return address
 * would break the traced functions.  ftrace_caller exists with
 * DYNAMIC_FTRACE.
 */
static void kpk_test_errno_ftrace_entry(struct kunit *test)
{
	static const char * const syms[] = {
		"ftrace_caller", "ftrace_call", "ftrace_regs_caller",
		"ftrace_regs_call", "ftrace_stub", "return_to_handler",
		"mcount", "_mcount",
#ifdef CONFIG_PPC64
		"ftrace_no_trace",
#endif
	};
	int i, ret, found = 0;

	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		struct kretprobe rp = { .kp.symbol_name = syms[i] };

		ret = kpk_try_sym(syms[i], 0);
		if (ret == -ENOENT)
			continue;
		found++;
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s", syms[i]);
		ret = register_kretprobe(&rp);
		if (!ret)
			unregister_kretprobe(&rp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "r:%s", syms[i]);
	}
	KUNIT_EXPECT_EQ(test, found > 0, IS_ENABLED(CONFIG_DYNAMIC_FTRACE));
}
#endif

/* Addresses that are not text. */
static void kpk_test_errno_not_text(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kpk_try_addr((unsigned long)&kpk_data_var),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_try_addr((unsigned long)&kpk_rodata_var[1]),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_try_addr((unsigned long)test), -EINVAL);
	/* Data symbols are found by name only with KALLSYMS_ALL. */
	KUNIT_EXPECT_EQ(test, kpk_try_sym("kpk_data_var", 0),
			IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT);
	KUNIT_EXPECT_EQ(test, kpk_try_sym("kpk_rodata_var", 0),
			IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT);
}

/* Only KPROBE_FLAG_DISABLED may be set by the user. */
static void kpk_test_errno_flags(struct kunit *test)
{
	static const u32 bad[] = {
		KPROBE_FLAG_GONE, KPROBE_FLAG_OPTIMIZED, KPROBE_FLAG_FTRACE,
		KPROBE_FLAG_ON_FUNC_ENTRY, KPROBE_FLAG_JPROBE,
		KPROBE_FLAG_KRETPROBE, 0x80, 0x10000,
		KPROBE_FLAG_DISABLED | KPROBE_FLAG_OPTIMIZED,
	};
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_a", 0, false);
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct kprobe kp = {
			.symbol_name = "kpk_target_a",
			.pre_handler = kpk_pre_bare,
			.flags = bad[i],
		};

		KUNIT_EXPECT_EQ_MSG(test, kpk_try(&kp), -EINVAL,
				    "flags %#x", bad[i]);
	}
	/* None of them is armed. */
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);

	/* Registered disabled: no hits until enabled. */
	k->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&k->kp));
	KUNIT_EXPECT_EQ(test, enable_kprobe(&k->kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&k->kp));
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_order_n), KPK_CALLS);
	kpk_unreg(test, &k->kp);
}

/* The same struct twice: refused, and the first registration keeps working. */
static void kpk_test_errno_twice(struct kunit *test)
{
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_a", 0, true);

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&k->kp), -EINVAL);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPK_CALLS);
	kpk_unreg(test, &k->kp);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
}

/* enable/disable of a probe that is not registered. */
static void kpk_test_errno_enable_unregistered(struct kunit *test)
{
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_a", 0, false);

	KUNIT_EXPECT_EQ(test, enable_kprobe(&k->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&k->kp), -EINVAL);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	kpk_unreg(test, &k->kp);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&k->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&k->kp), -EINVAL);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 0);
}

/*
 * The first offset of @sym that is an instruction boundary but not a function
 * entry, found by asking kprobes itself; 0 if none in the first 64 bytes.
 */
static unsigned int kpk_non_entry_offset(const char *sym)
{
	unsigned int off;

	for (off = 1; off < 64; off++) {
		if (!kprobe_on_func_entry(NULL, sym, off))
			continue;	/* an entry (e.g. after ENDBR) */
		if (!kpk_try_sym(sym, off))
			return off;
	}
	return 0;
}

static int kpk_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs);

/* kpk_try() for a kretprobe. */
static int kpk_try_rp(struct kretprobe *rp)
{
	struct kunit *test = kunit_get_current_test();
	struct kretprobe copy;
	struct kpk_state st;
	int ret;

	kpk_state_get(&st);
	memcpy(&copy, rp, sizeof(copy));
	ret = register_kretprobe(rp);
	if (!ret) {
		unregister_kretprobe(rp);
		return ret;
	}
	if (test) {
		kpk_expect_state(test, &st, "refused kretprobe", ret);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(&copy, rp, sizeof(copy)),
				      "refused kretprobe (%d) was changed", ret);
	}
	return ret;
}

static int kpk_try_rp_sym(const char *sym, unsigned int offset)
{
	struct kretprobe rp = {
		.kp.symbol_name = sym, .kp.offset = offset,
		.handler = kpk_rp_handler,
	};

	return kpk_try_rp(&rp);
}

/* kretprobes: only on function entries, and with sane sizes. */
static void kpk_test_errno_kretprobe(struct kunit *test)
{
	static const struct {
		int maxactive;
		size_t data_size;
	} huge[] = {
		{ KRETPROBE_MAX_MAXACTIVE + 1, 0 },
		{ INT_MAX, 0 },
		{ 1, KRETPROBE_MAX_DATA_SIZE + 1 },
		{ 1, SIZE_MAX / 2 },
		{ 1, SIZE_MAX - 7 },
		{ INT_MAX, SIZE_MAX },
	};
	kprobe_opcode_t *fn = dereference_kernel_function_descriptor(kpk_target_a);
	kprobe_opcode_t *entry = (kprobe_opcode_t *)kpk_entry(kpk_target_a);
	unsigned int off;
	int i, ret;

	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpk_target_a", 0), 0);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(entry, NULL, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_lookup_name("kpk_target_a", 0), fn);

	off = kpk_non_entry_offset("kpk_target_a");
	KUNIT_ASSERT_GT_MSG(test, off, 0, "no instruction boundary found");
#ifdef CONFIG_X86_64
	/* The ftrace call (5 bytes), or the first instruction, comes first. */
	KUNIT_EXPECT_GE(test, off, 2);
	KUNIT_EXPECT_EQ(test, kpk_non_entry_offset("kpk_asm_add1000"),
			KPK_ENDBR_LEN + KPK_MOVL_LEN);
#endif
	KUNIT_EXPECT_EQ_MSG(test, kpk_try_rp_sym("kpk_target_a", off), -EINVAL,
			    "kretprobe at kpk_target_a+%u", off);
	KUNIT_EXPECT_EQ(test, kpk_try_rp_sym("kpk_no_such_symbol_at_all", 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kpk_try_rp_sym("kpk_target_nokprobe", 0), -EINVAL);

	for (i = 0; i < ARRAY_SIZE(huge); i++) {
		struct kretprobe rp = {
			.kp.symbol_name = "kpk_target_a",
			.handler = kpk_rp_handler,
			.maxactive = huge[i].maxactive,
			.data_size = huge[i].data_size,
		};

		ret = kpk_try_rp(&rp);
		KUNIT_EXPECT_TRUE_MSG(test, ret == -EINVAL || ret == -E2BIG,
				      "maxactive %d data_size %zu: %d",
				      huge[i].maxactive, huge[i].data_size, ret);
	}
	/* Both limits at once are too much memory. */
	{
		struct kretprobe rp = {
			.kp.symbol_name = "kpk_target_a",
			.handler = kpk_rp_handler,
			.maxactive = KRETPROBE_MAX_MAXACTIVE,
			.data_size = KRETPROBE_MAX_DATA_SIZE,
		};

		KUNIT_EXPECT_EQ(test, kpk_try_rp(&rp), -E2BIG);
	}
	/* The largest maxactive with little data works. */
	{
		struct kretprobe rp = {
			.kp.symbol_name = "kpk_target_a",
			.handler = kpk_rp_handler,
			.maxactive = KRETPROBE_MAX_MAXACTIVE,
			.data_size = 16,
		};

		ret = register_kretprobe(&rp);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (!ret)
			unregister_kretprobe(&rp);
	}
	/* At the limits it works. */
	{
		struct kretprobe rp = {
			.kp.symbol_name = "kpk_target_a",
			.handler = kpk_rp_handler,
			.maxactive = 4,
			.data_size = KRETPROBE_MAX_DATA_SIZE,
		};

		ret = register_kretprobe(&rp);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (!ret)
			unregister_kretprobe(&rp);
	}
}

/* A batch with one bad member registers nothing. */
static void kpk_test_errno_batch(struct kunit *test)
{
	struct kpk_probe *a = kpk_new(test, 1, "kpk_target_a", 0, false);
	struct kpk_probe *b = kpk_new(test, 2, NULL, kpk_entry(kpk_target_b),
				      true);
	struct kpk_probe *bad = kpk_new(test, 3, "kpk_no_such_symbol_at_all",
					0, false);
	struct kpk_probe *c = kpk_new(test, 4, "kpk_target_c", 0, false);
	struct kprobe *kps[4] = { &a->kp, &b->kp, &bad->kp, &c->kp };
	struct kprobe *kps_last[3] = { &a->kp, &c->kp, &bad->kp };

	/* The members undone keep the flags they came with. */
	a->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 4), -ENOENT);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	kpk_calls(test, kpk_target_c, 3, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_order_n), 0);
	KUNIT_EXPECT_TRUE(test, !a->kp.addr);	/* symbol probe: cleared */
	KUNIT_EXPECT_EQ(test, a->kp.flags, KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, b->kp.flags, 0);

	KUNIT_EXPECT_EQ(test, register_kprobes(kps_last, 3), -ENOENT);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_c, 3, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_order_n), 0);
	KUNIT_EXPECT_EQ(test, a->kp.flags, KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_EQ(test, c->kp.flags, 0);
	a->kp.flags = 0;

	/* The good ones can be registered afterwards (c first: an abort). */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &c->kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	kpk_calls(test, kpk_target_c, 3, KPK_CALLS);
	unregister_kprobes(kps, 2);
	kpk_unreg(test, &c->kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&bad->pre), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre), KPK_CALLS);
}

/*
 * More text that must not be probed: entry code, kprobes' own hit path, and
 * (fixed-size or aligned instructions) addresses inside an instruction.
 */
static void kpk_test_errno_sections(struct kunit *test)
{
	static const char * const own[] = {
		"get_kprobe", "kprobe_busy_begin", "kprobe_busy_end",
		"kprobes_inc_nmissed_count", "__kprobe_call_post_handlers",
		"kprobe_call_fault_handlers",
#ifdef CONFIG_KRETPROBES
		"__kretprobe_trampoline_handler", "kretprobe_find_ret_addr",
#endif
	};
	static const struct {
		const char *start, *end;
	} sections[] = {
		{ __entry_text_start, __entry_text_end },
		{ __irqentry_text_start, __irqentry_text_end },
		{ __softirqentry_text_start, __softirqentry_text_end },
	};
	int i;

	/* Sections an arch does not have are empty (powerpc: entry text). */
	for (i = 0; i < ARRAY_SIZE(sections); i++) {
		unsigned long start = (unsigned long)sections[i].start;

		if ((unsigned long)sections[i].end > start)
			KUNIT_EXPECT_EQ_MSG(test, kpk_try_addr(start), -EINVAL,
					    "section #%d at %pS", i, (void *)start);
	}
	for (i = 0; i < ARRAY_SIZE(own); i++)
		KUNIT_EXPECT_EQ_MSG(test, kpk_try_sym(own[i], 0), -EINVAL,
				    "symbol %s", own[i]);
#ifndef CONFIG_X86
	{
		unsigned long fn = (unsigned long)
			dereference_kernel_function_descriptor(kpk_target_a);
		unsigned int off = kpk_non_entry_offset("kpk_target_a");
		/* arm64 refuses an unaligned address as any other: -EINVAL. */
		int err = IS_ENABLED(CONFIG_ARM64) ? -EINVAL : -EILSEQ;
		unsigned int d;

		KUNIT_ASSERT_GT(test, off, 0);
		for (d = 1; d < 4; d++) {
			/* A compressed riscv instruction may end at +2. */
			if (IS_ENABLED(CONFIG_RISCV) && d == 2)
				continue;
			KUNIT_EXPECT_EQ_MSG(test, kpk_try_addr(fn + off + d), err,
					    "kpk_target_a+%u", off + d);
			KUNIT_EXPECT_EQ_MSG(test, kpk_try_sym("kpk_target_a", off + d),
					    err, "kpk_target_a+%u", off + d);
		}
	}
#endif
}

/* ---------------------------------------------------------------------------
 * Hits
 * ---------------------------------------------------------------------------
 */
static void kpk_test_hits(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	unsigned long entry = kpk_entry(s->fn);
	struct kpk_probe *k = kpk_new(test, 1, s->sym, 0, true);
	struct kpk_probe *ka = kpk_new(test, 2, NULL, entry, true);

	/* By symbol. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)k->kp.addr, entry);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, k->seen_addr, entry);
	KUNIT_EXPECT_EQ(test, k->seen_ip, entry + KPK_IP_BIAS);
	KUNIT_EXPECT_EQ(test, k->kp.nmissed, 0);
	kpk_unreg(test, &k->kp);
	KUNIT_EXPECT_TRUE(test, !k->kp.addr);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);

	/* The same struct again. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 2 * KPK_CALLS);
	kpk_unreg(test, &k->kp);

	/* By address, twice. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &ka->kp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ka->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ka->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, ka->seen_ip, entry + KPK_IP_BIAS);
	kpk_unreg(test, &ka->kp);
	KUNIT_EXPECT_EQ(test, (unsigned long)ka->kp.addr, entry);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &ka->kp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ka->pre), 2 * KPK_CALLS);
	kpk_unreg(test, &ka->kp);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ka->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 2 * KPK_CALLS);
}

/* A probe inside a function, not at its entry. */
static void kpk_test_hits_offset(struct kunit *test)
{
	unsigned int off = kpk_non_entry_offset("kpk_target_b");
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_b", 0, true);

	KUNIT_ASSERT_GT(test, off, 0);
	k->kp.offset = off;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)k->kp.addr,
			(unsigned long)dereference_kernel_function_descriptor(kpk_target_b) + off);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, k->seen_ip,
			(unsigned long)k->kp.addr + KPK_IP_BIAS);
	kpk_unreg(test, &k->kp);
#ifdef CONFIG_X86_64
	/* The addl right after the movl. */
	k = kpk_new(test, 2, "kpk_asm_add1000", 0, true);
	k->kp.offset = KPK_ENDBR_LEN + KPK_MOVL_LEN;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	kpk_calls(test, kpk_asm_add1000, 1000, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPK_CALLS);
	kpk_unreg(test, &k->kp);
#endif
}

/* A pre handler that changes the instruction pointer and returns 1. */
static void kpk_test_redirect(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_probe *k = kpk_new(test, 1, s->sym, 0, true);
	int i;

	/* The post handler keeps the site a plain (non-optimized) one. */
	k->kp.pre_handler = kpk_pre_redirect;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	for (i = 0; i < KPK_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpk_call(s->fn, i), i * 3 + 7);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 0);
	kpk_unreg(test, &k->kp);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
}

#ifdef CONFIG_FUNCTION_ERROR_INJECTION
#define KPK_OVERRIDE_RET	-1234

/* What fail_function and bpf_override_return() do. */
static int kpk_pre_override(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&to_kpk(p)->pre);
	regs_set_return_value(regs, KPK_OVERRIDE_RET);
	override_function_with_return(regs);
	return 1;
}

/*
 * A pre handler at a function's entry makes it return at once, with a value
 * of its choosing.  The call is indirect: on arm64 with BTI the BRK keeps the
 * BTYPE of the BLR, which the return address, no landing pad, must not see.
 */
static void kpk_test_override(struct kunit *test)
{
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_a", 0, false);
	int i;

	k->kp.pre_handler = kpk_pre_override;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	for (i = 0; i < KPK_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpk_call(kpk_target_a, i),
				KPK_OVERRIDE_RET);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	kpk_unreg(test, &k->kp);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
}
#endif

/* ---------------------------------------------------------------------------
 * Several probes at one address
 * ---------------------------------------------------------------------------
 */
static void kpk_expect_order(struct kunit *test, const int *ids, int nids,
			     int rounds)
{
	int i;

	KUNIT_ASSERT_EQ(test, atomic_read(&kpk_order_n), nids * rounds);
	for (i = 0; i < nids * rounds; i++)
		KUNIT_EXPECT_EQ_MSG(test, kpk_order[i], ids[i % nids],
				    "handler #%d", i);
	kpk_order_reset();
}

static void kpk_test_aggregate(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_probe *p1 = kpk_new(test, 1, s->sym, 0, false);
	struct kpk_probe *p2 = kpk_new(test, 2, s->sym, 0, true);
	struct kpk_probe *p3 = kpk_new(test, 3, NULL, kpk_entry(s->fn), false);
	static const int all[] = { 1, 2, 3 }, odd[] = { 1, 3 }, two[] = { 2 };
	const int n = 4;

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p1->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p2->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p3->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, p1->kp.addr, p2->kp.addr);
	KUNIT_EXPECT_PTR_EQ(test, p1->kp.addr, p3->kp.addr);

	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, all, 3, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->post), n);

	/* Disable the middle one; the others keep counting. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&p2->kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&p2->kp));
	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, odd, 2, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->post), n);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p2->kp), 0);
	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, all, 3, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->post), 2 * n);

	/* All but one disabled. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&p1->kp), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&p3->kp), 0);
	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, two, 1, n);
	/* All disabled. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&p2->kp), 0);
	kpk_calls(test, s->fn, s->delta, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_order_n), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p1->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p2->kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p3->kp), 0);
	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, all, 3, n);

	/* Unregister the middle one. */
	kpk_unreg(test, &p2->kp);
	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, odd, 2, n);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p2->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&p1->pre), 5 * n);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->pre), 4 * n);
	KUNIT_EXPECT_EQ(test, atomic_read(&p2->post), 4 * n);
	KUNIT_EXPECT_EQ(test, atomic_read(&p3->pre), 5 * n);

	/* Back in, last now. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p2->kp), 0);
	kpk_calls(test, s->fn, s->delta, n);
	{
		static const int reordered[] = { 1, 3, 2 };

		kpk_expect_order(test, reordered, 3, n);
	}
	kpk_unreg(test, &p1->kp);
	kpk_unreg(test, &p3->kp);
	kpk_calls(test, s->fn, s->delta, n);
	kpk_expect_order(test, two, 1, n);
	kpk_unreg(test, &p2->kp);
	kpk_calls(test, s->fn, s->delta, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_order_n), 0);
}

/* ---------------------------------------------------------------------------
 * kretprobes
 * ---------------------------------------------------------------------------
 */
#define KPK_RP_MAGIC	0x6b70726574UL

struct kpk_rp_data {
	unsigned long arg;
	unsigned long magic;
};

struct kpk_rp {
	struct kretprobe rp;
	atomic_t entry;
	atomic_t ret;
	atomic_t match;		/* return value == the argument + delta */
	int delta;
	bool skip_odd;		/* entry handler drops odd arguments */
	unsigned long last_ret;
	/* What the last return handler saw. */
	unsigned long seen_retaddr;	/* get_kretprobe_retaddr() */
	kprobe_opcode_t *seen_addr;	/* kprobe_running()->addr */
	u32 seen_flags;			/* kprobe_running()->flags */
};

#define to_kpk_rp(r)	container_of(r, struct kpk_rp, rp)

static int kpk_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kpk_rp_data *d = (struct kpk_rp_data *)ri->data;
	struct kpk_rp *k;

	/* Being unregistered on another CPU: decline the call. */
	if (!rp)
		return 1;
	k = to_kpk_rp(rp);
	atomic_inc(&k->entry);
	d->arg = regs_get_kernel_argument(regs, 0);
	d->magic = KPK_RP_MAGIC;
	if (k->skip_odd && (d->arg & 1))
		return 1;
	return 0;
}

static int kpk_rp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kpk_rp *k;
	struct kpk_rp_data *d = (struct kpk_rp_data *)ri->data;

	if (!rp)
		return 0;
	k = to_kpk_rp(rp);
	WRITE_ONCE(k->last_ret, regs_return_value(regs));
	WRITE_ONCE(k->seen_retaddr, get_kretprobe_retaddr(ri));
	if (kprobe_running()) {
		WRITE_ONCE(k->seen_addr, kprobe_running()->addr);
		WRITE_ONCE(k->seen_flags, kprobe_running()->flags);
	}
	atomic_inc(&k->ret);
	if (rp->data_size >= sizeof(*d) && d->magic == KPK_RP_MAGIC &&
	    (int)regs_return_value(regs) == (int)d->arg + k->delta)
		atomic_inc(&k->match);
	return 0;
}

static struct kpk_rp *kpk_rp_new(struct kunit *test, const char *sym,
				 int delta, bool entry)
{
	struct kpk_rp *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->rp.kp.symbol_name = sym;
	k->rp.handler = kpk_rp_handler;
	if (entry) {
		k->rp.entry_handler = kpk_rp_entry;
		k->rp.data_size = sizeof(struct kpk_rp_data);
	}
	k->delta = delta;
	return k;
}

static void kpk_test_kretprobe(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_rp *k = kpk_rp_new(test, s->sym, s->delta, true);
	struct kpk_rp *plain = kpk_rp_new(test, s->sym, s->delta, false);
	int i;

	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &plain->rp), 0);
	for (i = 0; i < KPK_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpk_call(s->fn, 100 + i), 100 + i + s->delta);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->match), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, k->last_ret, 100 + KPK_CALLS - 1 + s->delta);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&plain->entry), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&plain->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, plain->last_ret, 100 + KPK_CALLS - 1 + s->delta);

	/* Disabled: nothing; enabled again: counts. */
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&k->rp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&plain->ret), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&k->rp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->match), 2 * KPK_CALLS);

	kpk_unreg_rp(test, &plain->rp);
	KUNIT_EXPECT_TRUE(test, !plain->rp.kp.addr);
	kpk_unreg_rp(test, &k->rp);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&plain->ret), 3 * KPK_CALLS);

	/* Registered again. */
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->match), 3 * KPK_CALLS);
	kpk_unreg_rp(test, &k->rp);
}

#define KPK_RP_FLIP	0x5a5a0

/* Changes the return value, as the kretprobe documentation allows. */
static int kpk_rp_set_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (!rp)
		return 0;
	atomic_inc(&to_kpk_rp(rp)->ret);
	regs_set_return_value(regs, regs_return_value(regs) ^ KPK_RP_FLIP);
	return 0;
}

/* The caller sees the return value the return handler set. */
static void kpk_test_kretprobe_set_return(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_rp *k = kpk_rp_new(test, s->sym, s->delta, false);
	int i;

	k->rp.handler = kpk_rp_set_ret;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	for (i = 0; i < KPK_CALLS; i++)
		KUNIT_EXPECT_EQ(test, kpk_call(s->fn, 100 + i),
				(100 + i + s->delta) ^ KPK_RP_FLIP);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 0);
	kpk_unreg_rp(test, &k->rp);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
}

/* An entry handler returning non-zero: no return handler for that call. */
static void kpk_test_kretprobe_entry_skip(struct kunit *test)
{
	struct kpk_rp *k = kpk_rp_new(test, "kpk_target_b", 2, true);

	k->skip_odd = true;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	kpk_calls(test, kpk_target_b, 2, 2 * KPK_CALLS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), 2 * KPK_CALLS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->match), KPK_CALLS + 1);
	KUNIT_EXPECT_EQ(test, k->last_ret, 2 * KPK_CALLS + 2);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 0);
	kpk_unreg_rp(test, &k->rp);
}

static atomic_t kpk_rp_post_calls;

static void kpk_rp_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	atomic_inc(&kpk_rp_post_calls);
}

/*
 * A kretprobe's kp is the core's: a post handler left there is dropped at
 * registration, on every path (breakpoint and lean ftrace alike).
 */
static void kpk_test_kretprobe_post_dropped(struct kunit *test)
{
	struct kpk_rp *k = kpk_rp_new(test, "kpk_target_b", 2, false);

	atomic_set(&kpk_rp_post_calls, 0);
	k->rp.kp.post_handler = kpk_rp_post;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	KUNIT_EXPECT_NULL(test, k->rp.kp.post_handler);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_rp_post_calls), 0);
	kpk_unreg_rp(test, &k->rp);
}

/*
 * What a return handler sees of its context, with two kretprobes on the
 * function: both the caller's return address (the second one's instance
 * saved the trampoline), and as kprobe_running() the function's entry, as
 * bpf_get_func_ip() reads it.
 */
static void kpk_test_kretprobe_context(struct kunit *test)
{
	struct kpk_rp *a = kpk_rp_new(test, "kpk_target_b", 2, false);
	struct kpk_rp *b = kpk_rp_new(test, "kpk_target_b", 2, false);
	kprobe_opcode_t *entry;

	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &a->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &b->rp), 0);
	entry = a->rp.kp.addr;
	KUNIT_EXPECT_PTR_EQ(test, b->rp.kp.addr, entry);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->ret), KPK_CALLS);
	kpk_unreg_rp(test, &b->rp);
	kpk_unreg_rp(test, &a->rp);

	/* a's instance, the older one, saved the caller's address. */
	KUNIT_EXPECT_FALSE(test, is_kretprobe_trampoline(a->seen_retaddr));
	KUNIT_EXPECT_TRUE(test, __kernel_text_address(a->seen_retaddr));
	KUNIT_EXPECT_EQ(test, b->seen_retaddr, a->seen_retaddr);

	KUNIT_EXPECT_PTR_EQ(test, a->seen_addr, entry);
	KUNIT_EXPECT_PTR_EQ(test, b->seen_addr, entry);
	KUNIT_EXPECT_TRUE(test, a->seen_flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_TRUE(test, b->seen_flags & KPROBE_FLAG_ON_FUNC_ENTRY);
}

/* depth levels of recursion through an opaque pointer. */
static noinline __used int kpk_recurse(int depth)
{
	OPTIMIZER_HIDE_VAR(depth);
	if (depth <= 1)
		return 100;
	return kpk_call(kpk_recurse, depth - 1) + 1;
}

/* maxactive 1 and a recursion of depth 3: two invocations missed per call. */
static void kpk_test_kretprobe_maxactive(struct kunit *test)
{
	struct kpk_rp *k = kpk_rp_new(test, "kpk_recurse", 0, false);
	int i;

	k->rp.maxactive = 1;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	for (i = 1; i <= KPK_CALLS; i++) {
		KUNIT_EXPECT_EQ(test, kpk_call(kpk_recurse, 3), 102);
		KUNIT_EXPECT_EQ(test, k->rp.nmissed, 2 * i);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), i);
		KUNIT_EXPECT_EQ(test, k->last_ret, 102);
	}
	/* Depth 1: nothing missed. */
	KUNIT_EXPECT_EQ(test, kpk_call(kpk_recurse, 1), 100);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS + 1);
	KUNIT_EXPECT_EQ(test, k->last_ret, 100);
	kpk_unreg_rp(test, &k->rp);

	/* Enough instances: every level is seen, innermost first. */
	k = kpk_rp_new(test, "kpk_recurse", 0, false);
	k->rp.maxactive = 3;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	KUNIT_EXPECT_EQ(test, kpk_call(kpk_recurse, 3), 102);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 3);
	KUNIT_EXPECT_EQ(test, k->last_ret, 102);
	kpk_unreg_rp(test, &k->rp);

	/* A negative maxactive means the default, as 0 does. */
	k = kpk_rp_new(test, "kpk_recurse", 0, false);
	k->rp.maxactive = -1;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	KUNIT_EXPECT_EQ(test, kpk_call(kpk_recurse, 1), 100);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 1);
	kpk_unreg_rp(test, &k->rp);
}

#ifdef CONFIG_PROVE_RCU
/*
 * A kretprobe on a function that a kretprobe's return path could call
 * would hit again at each return, nested as deep as its maxactive, were
 * the hit not counted as missed.  rcu_read_lock_any_held() is the function
 * an RCU lockdep check would call.  Its entry handler counts the calls
 * made by this task in task context inside the window, and takes no
 * instance.
 */
static struct task_struct *kpk_rcu_task;
static bool kpk_rcu_window;
static atomic_t kpk_rcu_calls;

static int kpk_rcu_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (READ_ONCE(kpk_rcu_window) && current == kpk_rcu_task && in_task())
		atomic_inc(&kpk_rcu_calls);
	return 1;
}

static void kpk_test_kretprobe_return_calls(struct kunit *test)
{
	struct kpk_rp *k = kpk_rp_new(test, "kpk_target_b", 2, false);
	struct kpk_rp *rcu = kpk_rp_new(test, "rcu_read_lock_any_held", 0,
					false);
	int i;

	rcu->rp.entry_handler = kpk_rcu_entry;
	kpk_rcu_task = current;
	atomic_set(&kpk_rcu_calls, 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &rcu->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);

	for (i = 0; i < KPK_CALLS; i++) {
		preempt_disable();
		WRITE_ONCE(kpk_rcu_window, true);
		KUNIT_EXPECT_EQ(test, kpk_call(kpk_target_b, i), i + 2);
		WRITE_ONCE(kpk_rcu_window, false);
		preempt_enable();
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_rcu_calls), 0);

	/* The probe on rcu_read_lock_any_held() does count direct calls. */
	preempt_disable();
	WRITE_ONCE(kpk_rcu_window, true);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, rcu_read_lock_any_held());
	WRITE_ONCE(kpk_rcu_window, false);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_rcu_calls), 3);

	kpk_unreg_rp(test, &k->rp);
	kpk_unreg_rp(test, &rcu->rp);
}
#endif

/* A kretprobe and kprobes on the same function entry. */
static void kpk_test_kretprobe_and_kprobe(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_rp *r = kpk_rp_new(test, s->sym, s->delta, true);
	struct kpk_probe *k1 = kpk_new(test, 1, s->sym, 0, false);
	struct kpk_probe *k2 = kpk_new(test, 2, s->sym, 0, true);

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k1->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k2->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, k1->kp.addr, r->rp.kp.addr);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k1->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->match), KPK_CALLS);

	kpk_unreg(test, &k1->kp);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k1->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 2 * KPK_CALLS);

	kpk_unreg_rp(test, &r->rp);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->pre), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->post), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 2 * KPK_CALLS);
	kpk_unreg(test, &k2->kp);
}

/* Batch registration of kretprobes, with and without a bad member. */
static void kpk_test_kretprobe_batch(struct kunit *test)
{
	struct kpk_rp *a = kpk_rp_new(test, "kpk_target_a", 1, true);
	struct kpk_rp *b = kpk_rp_new(test, "kpk_target_b", 2, true);
	struct kpk_rp *bad = kpk_rp_new(test, "kpk_target_c", 3, true);
	struct kpk_rp *nok = kpk_rp_new(test, "kpk_target_nokprobe", 0, false);
	struct kretprobe *rps[3] = { &a->rp, &bad->rp, &b->rp };
	unsigned int off = kpk_non_entry_offset("kpk_target_c");

	KUNIT_ASSERT_GT(test, off, 0);
	bad->rp.kp.offset = off;
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 3), -EINVAL);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	kpk_calls(test, kpk_target_c, 3, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry) + atomic_read(&a->ret), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->entry) + atomic_read(&b->ret), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&bad->entry), 0);

	rps[1] = &b->rp;
	KUNIT_ASSERT_EQ(test, register_kretprobes(rps, 2), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	unregister_kretprobes(rps, 2);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->match), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->match), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry), KPK_CALLS);

	/* Undone by the core (blacklisted member): a keeps its own flags. */
	rps[1] = &nok->rp;
	a->rp.kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, a->rp.kp.flags, KPROBE_FLAG_DISABLED);
	KUNIT_EXPECT_TRUE(test, !a->rp.kp.addr);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&nok->ret), 0);

	/* Twice in one unregistration: released once, reusable after. */
	a->rp.kp.flags = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&a->rp), 0);
	rps[1] = &a->rp;
	unregister_kretprobes(rps, 2);
	KUNIT_EXPECT_NULL(test, a->rp.rph);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry), KPK_CALLS);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&a->rp), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	unregister_kretprobe(&a->rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->entry), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->match), 2 * KPK_CALLS);
}

/* Unregistered while an invocation is pending in a sleeping thread. */
static DECLARE_COMPLETION(kpk_sleep_go);

static noinline __used int kpk_sleeper(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	wait_for_completion(&kpk_sleep_go);
	return x + 9;
}

struct kpk_sleep_ctx {
	struct completion done;
	int result;
};

static int kpk_sleep_thread(void *data)
{
	struct kpk_sleep_ctx *c = data;

	c->result = kpk_call(kpk_sleeper, 33);
	kthread_complete_and_exit(&c->done, 0);
}

static void kpk_test_kretprobe_unregister_pending(struct kunit *test)
{
	struct kpk_rp *k = kpk_rp_new(test, "kpk_sleeper", 9, true);
	struct kpk_sleep_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->done);
	reinit_completion(&kpk_sleep_go);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	t = kthread_run(kpk_sleep_thread, c, "kpk_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/*
	 * Wait for the entry handler by its count: it may run in the NMI-like
	 * context of a breakpoint, where it must not take a completion's lock.
	 */
	for (i = 0; i < 5000 && !atomic_read(&k->entry); i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), 1);
	kpk_unreg_rp(test, &k->rp);
	complete(&kpk_sleep_go);
	wait_for_completion(&c->done);
	KUNIT_EXPECT_EQ(test, c->result, 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 0);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed, 0);

	/* The function still works, and the probe can come back. */
	complete(&kpk_sleep_go);
	KUNIT_EXPECT_EQ(test, kpk_call(kpk_sleeper, 1), 10);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	complete(&kpk_sleep_go);
	KUNIT_EXPECT_EQ(test, kpk_call(kpk_sleeper, 2), 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->match), 1);
	kpk_unreg_rp(test, &k->rp);
}

/*
 * The return path marks a probe running until the frame's instances are
 * back: a probe hit while it recycles them counts as missed.  An instance
 * of an unregistered kretprobe goes back through call_rcu(), and a probe
 * there sees the sleeper's return as a missed hit, with no handler run in
 * the sleeper.  (Had the hit gone ahead, a kretprobe on a function the
 * recycling calls, as powerpc's objpool_push() calls
 * arch_local_irq_restore(), would have taken the instance just pushed and
 * returned into the trampoline again, without end.)
 */
static struct task_struct *kpk_recycle_task;
static atomic_t kpk_recycle_pre;

/* Calls of call_rcu() by the thread, from its call of kpk_sleeper(). */
static int kpk_recycle_count(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(kpk_recycle_task) && in_task())
		atomic_inc(&kpk_recycle_pre);
	return 0;
}

static int kpk_recycle_thread(void *data)
{
	struct kpk_sleep_ctx *c = data;

	WRITE_ONCE(kpk_recycle_task, current);
	c->result = kpk_call(kpk_sleeper, 33);
	WRITE_ONCE(kpk_recycle_task, NULL);
	kthread_complete_and_exit(&c->done, 0);
}

static void kpk_test_kretprobe_recycle_running(struct kunit *test)
{
	struct kpk_rp *k = kpk_rp_new(test, "kpk_sleeper", 9, true);
	struct kpk_sleep_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct kprobe *rcu = kunit_kzalloc(test, sizeof(*rcu), GFP_KERNEL);
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, rcu);
	init_completion(&c->done);
	reinit_completion(&kpk_sleep_go);
	atomic_set(&kpk_recycle_pre, 0);
	rcu->symbol_name = "call_rcu";
	rcu->pre_handler = kpk_recycle_count;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	t = kthread_run(kpk_recycle_thread, c, "kpk_recycler");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	for (i = 0; i < 5000 && !atomic_read(&k->entry); i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), 1);
	kpk_unreg_rp(test, &k->rp);

	KUNIT_ASSERT_EQ(test, kpk_reg(test, rcu), 0);
	complete(&kpk_sleep_go);
	wait_for_completion(&c->done);
	kpk_unreg(test, rcu);
	KUNIT_EXPECT_EQ(test, c->result, 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_recycle_pre), 0);
	/* At least: a probe's handler elsewhere may have called it too. */
	KUNIT_EXPECT_GE(test, rcu->nmissed, 1);
}

/* Malformed batches: refused, nothing registered, members untouched. */
static void kpk_test_errno_batch_args(struct kunit *test)
{
	struct kpk_probe *a = kpk_new(test, 1, "kpk_target_a", 0, false);
	struct kpk_probe *b = kpk_new(test, 2, "kpk_target_b", 0, false);
	struct kpk_rp *ra = kpk_rp_new(test, "kpk_target_a", 1, false);
	struct kpk_rp *rc = kpk_rp_new(test, "kpk_target_c", 3, false);
	struct kretprobe *rps[2] = { &ra->rp, NULL };
	struct kprobe *kps[2] = { &a->kp, NULL };
	struct kpk_state st;

	kpk_state_get(&st);
	KUNIT_EXPECT_EQ(test, register_kprobes(NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), -EINVAL);	/* NULL member */
	kps[1] = &a->kp;						/* twice */
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), -EINVAL);
	KUNIT_EXPECT_NULL(test, a->kp.hits);
	KUNIT_EXPECT_EQ(test, register_kretprobes(NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	rps[1] = &ra->rp;
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	KUNIT_EXPECT_NULL(test, ra->rp.rph);
	KUNIT_EXPECT_NULL(test, ra->rp.kp.hits);
	kpk_expect_state(test, &st, "refused batches", 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_order_n), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ra->ret), 0);

	/* A member already registered: refused, and that member untouched. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &b->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &rc->rp), 0);
	kps[1] = &b->kp;
	rps[1] = &rc->rp;
	kpk_state_get(&st);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	kpk_expect_state(test, &st, "batches with a registered member", 0);
	KUNIT_EXPECT_NULL(test, a->kp.hits);
	KUNIT_EXPECT_NULL(test, ra->rp.rph);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	kpk_calls(test, kpk_target_c, 3, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ra->ret), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->match), 0);	/* no entry handler */
	kpk_unreg(test, &b->kp);
	kpk_unreg_rp(test, &rc->rp);
}

/*
 * Unregistering what is not registered, or no longer, does nothing: no
 * change, no message (the console check fails on any WARN).
 */
static void kpk_test_errno_unregister(struct kunit *test)
{
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_a", 0, false);
	struct kpk_probe *never = kpk_new(test, 2, "kpk_target_a", 0, false);
	struct kpk_rp *r = kpk_rp_new(test, "kpk_target_b", 2, false);
	struct kpk_rp *rnever = kpk_rp_new(test, "kpk_target_b", 2, false);
	struct kprobe *kps[3] = { &never->kp, NULL, &k->kp };
	struct kretprobe *rps[3] = { &rnever->rp, NULL, &r->rp };
	struct kretprobe rcopy;
	struct kpk_state st;
	struct kprobe copy;

	kpk_state_get(&st);
	memcpy(&copy, &never->kp, sizeof(copy));
	memcpy(&rcopy, &rnever->rp, sizeof(rcopy));
	unregister_kprobe(&never->kp);
	unregister_kprobe(NULL);
	unregister_kprobes(kps, 3);
	unregister_kprobes(NULL, 1);
	unregister_kprobes(kps, 0);
	unregister_kprobes(kps, -1);
	unregister_kretprobe(&rnever->rp);
	unregister_kretprobe(NULL);
	unregister_kretprobes(rps, 3);
	unregister_kretprobes(NULL, 1);
	kpk_expect_state(test, &st, "nothing to unregister", 0);
	KUNIT_EXPECT_TRUE(test, !memcmp(&copy, &never->kp, sizeof(copy)));
	KUNIT_EXPECT_TRUE(test, !memcmp(&rcopy, &rnever->rp, sizeof(rcopy)));

	/* Registered, then unregistered twice, alone and in batches. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	unregister_kprobes(kps, 3);
	unregister_kprobe(&k->kp);
	unregister_kprobes(kps, 3);
	unregister_kretprobes(rps, 3);
	unregister_kretprobe(&r->rp);
	unregister_kretprobes(rps, 3);
	kpk_expect_state(test, &st, "unregistered twice", 0);
	KUNIT_EXPECT_NULL(test, k->kp.hits);
	KUNIT_EXPECT_NULL(test, r->rp.rph);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&never->pre), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rnever->ret), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&k->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&r->rp), -EINVAL);

	/* Both work again afterwards. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	kpk_calls(test, kpk_target_b, 2, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 2 * KPK_CALLS);
	kpk_unreg(test, &k->kp);
	kpk_unreg_rp(test, &r->rp);
}

/* ---------------------------------------------------------------------------
 * Reentrancy
 * ---------------------------------------------------------------------------
 */
static void kpk_test_reentry(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_probe *outer = kpk_new(test, 1, "kpk_target_outer", 0, true);
	struct kpk_probe *in1 = kpk_new(test, 2, s->sym, 0, false);
	struct kpk_probe *in2 = kpk_new(test, 3, s->sym, 0, true);

	outer->kp.pre_handler = kpk_pre_call;
	outer->call_inner = s->fn;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &in1->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &in2->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &outer->kp), 0);

	kpk_calls(test, kpk_target_outer, 5, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&in1->pre), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&in2->pre), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&in2->post), 0);
	KUNIT_EXPECT_EQ(test, in1->kp.nmissed, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, in2->kp.nmissed, KPK_CALLS);

	/* Called directly, the inner probes hit and miss nothing more. */
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&in1->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&in2->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&in2->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, in1->kp.nmissed, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, in2->kp.nmissed, KPK_CALLS);

	/* One inner probe gone: the other one still misses each time. */
	kpk_unreg(test, &in2->kp);
	kpk_calls(test, kpk_target_outer, 5, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, in1->kp.nmissed, 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, in2->kp.nmissed, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->post), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&in1->pre), KPK_CALLS);

	kpk_unreg(test, &outer->kp);
	kpk_unreg(test, &in1->kp);
}

/* ---------------------------------------------------------------------------
 * Fault handlers
 * ---------------------------------------------------------------------------
 */
static void kpk_test_fault_in_handler(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_probe *k = kpk_new(test, 1, s->sym, 0, true);

	k->kp.pre_handler = kpk_pre_fault;
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, k->copy_ret, -EFAULT);
#ifdef CONFIG_X86
	KUNIT_EXPECT_EQ(test, k->last_trapnr, X86_TRAP_PF);
#endif
	kpk_unreg(test, &k->kp);
}

/*
 * Faults in kretprobe handlers.  The return handler runs with the CPU marked
 * busy, as kprobe_busy_begin() does: kprobe_running() is then kretprobe.c's
 * per-CPU stand-in, so the fault reaches kprobe_fault_handler() with it as
 * the running probe, and kprobe_call_fault_handlers() walks its (empty) list
 * of members.  No fault handler fixes the fault; the exception table of
 * __get_user() does, and the handler sees -EFAULT.  The entry handler runs
 * as the pre handler of the kretprobe's own kprobe.
 */
struct kpk_rp_fault {
	struct kretprobe rp;
	atomic_t entry;
	atomic_t ret;
	long entry_copy;
	long ret_copy;
};

static long kpk_user_load(void)
{
	long ret;
	u8 v = 0;

	pagefault_disable();
	ret = __get_user(v, (const u8 __user *)16);
	pagefault_enable();
	return ret;
}

static int kpk_rp_fault_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct kpk_rp_fault *k =
		container_of(get_kretprobe(ri), struct kpk_rp_fault, rp);

	WRITE_ONCE(k->entry_copy, kpk_user_load());
	atomic_inc(&k->entry);
	return 0;
}

static int kpk_rp_fault_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kpk_rp_fault *k;

	if (!rp)
		return 0;
	k = container_of(rp, struct kpk_rp_fault, rp);
	WRITE_ONCE(k->ret_copy, kpk_user_load());
	atomic_inc(&k->ret);
	return 0;
}

static void kpk_test_fault_in_kretprobe(struct kunit *test)
{
	const struct kpk_site *s = test->param_value;
	struct kpk_rp_fault *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kprobe *running;
	long busy = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->rp.kp.symbol_name = s->sym;
	k->rp.entry_handler = kpk_rp_fault_entry;
	k->rp.handler = kpk_rp_fault_ret;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &k->rp), 0);
	kpk_calls(test, s->fn, s->delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, k->entry_copy, -EFAULT);
	KUNIT_EXPECT_EQ(test, k->ret_copy, -EFAULT);
	KUNIT_EXPECT_EQ(test, k->rp.nmissed + k->rp.kp.nmissed, 0);
	kpk_unreg_rp(test, &k->rp);

	/* The same fault in a kprobe_busy_begin() section of its own (fprobe). */
	preempt_disable();
	running = kprobe_running();
	if (!running) {
		kprobe_busy_begin();
		busy = kpk_user_load();
		kprobe_busy_end();
		running = kprobe_running();
	}
	preempt_enable();
	KUNIT_EXPECT_NULL(test, running);
	KUNIT_EXPECT_EQ(test, busy, -EFAULT);
}

#ifdef CONFIG_X86_64
/*
 * The probed instruction itself faults while it runs out of line: a load
 * from a vmalloc guard page by kpk_asm_load, whose exception table entry makes
 * it return -EFAULT.  kprobe_fault_handler() must put the instruction pointer
 * back on the original instruction (so that the exception table matches),
 * call the fault handler (which returns 0: not fixed), and the kernel's fixup
 * completes.  The post handler keeps the instruction single-stepped (not
 * boosted, not optimized); it does not run for an instruction that faulted.
 */
static void kpk_vfree_action(void *p)
{
	vfree(p);
}

static void kpk_test_fault_in_insn(struct kunit *test)
{
	struct kpk_probe *k = kpk_new(test, 1, NULL, kpk_entry(kpk_asm_load),
				      true);
	long (*load)(const long *p) = kpk_asm_load;
	long *buf = vmalloc(PAGE_SIZE);
	const long *bad;
	int i;

	OPTIMIZER_HIDE_VAR(load);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpk_vfree_action,
							buf), 0);
	bad = (const long *)((char *)buf + PAGE_SIZE);	/* the guard page */
	buf[0] = 4242;
	KUNIT_ASSERT_EQ(test, load(bad), -EFAULT);

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_EXPECT_EQ(test, load(buf), 4242);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), 0);
	for (i = 1; i <= KPK_CALLS; i++) {
		KUNIT_EXPECT_EQ(test, load(bad), -EFAULT);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 1 + i);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), i);
		KUNIT_EXPECT_EQ(test, k->last_trapnr, X86_TRAP_PF);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 1);
	KUNIT_EXPECT_EQ(test, load(buf), 4242);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->post), 2);
	kpk_unreg(test, &k->kp);
	KUNIT_EXPECT_EQ(test, load(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->fault), KPK_CALLS);
}
#endif

/* ---------------------------------------------------------------------------
 * Concurrency
 * ---------------------------------------------------------------------------
 */
struct kpk_worker {
	struct task_struct *task;
	const struct kpk_site *site;	/* the second target */
	int *phase;
	int *round;
	int ack;		/* the phase of the last finished iteration */
	int round_ack;		/* the round it started in */
	unsigned long calls;	/* iterations made in phase 1 */
	bool bad_result;
};

/* Phase 0 and 2: idle; phase 1: call both targets, counting. */
static int kpk_worker_fn(void *data)
{
	struct kpk_worker *w = data;

	while (!kthread_should_stop()) {
		/* Pairs with the test's smp_store_release(phase). */
		int ph = smp_load_acquire(w->phase);
		/* Pairs with the test's smp_store_release(round). */
		int round = smp_load_acquire(w->round);

		if (ph == 1) {
			if (kpk_call(kpk_target_a, 1) != 2)
				w->bad_result = true;
			if (kpk_call(w->site->fn, 1) != 1 + w->site->delta)
				w->bad_result = true;
			w->calls++;
		}
		/* The round's calls are done: kpk_wait_round() reads it. */
		smp_store_release(&w->round_ack, round);
		/* This iteration's calls are done: kpk_wait_acks() reads it. */
		smp_store_release(&w->ack, ph);
		/*
		 * Sleep now and then even when calling: the optimizer waits for
		 * RCU tasks grace periods, which need every task to block.
		 */
		if (ph != 1 || !(w->calls % 32))
			schedule_timeout_idle(1);
	}
	return 0;
}

static void kpk_wait_acks(struct kpk_worker *w, int n, int phase)
{
	int i;

	for (i = 0; i < n; i++)
		/* Pairs with the worker's smp_store_release(ack). */
		while (smp_load_acquire(&w[i].ack) != phase)
			schedule_timeout_idle(1);
}

/* Until every worker made a whole iteration of calls in @round. */
static void kpk_wait_round(struct kpk_worker *w, int n, int round)
{
	int i;

	for (i = 0; i < n; i++)
		/* Pairs with the worker's smp_store_release(round_ack). */
		while (smp_load_acquire(&w[i].round_ack) != round)
			schedule_timeout_idle(1);
}

#ifdef CONFIG_OPTPROBES
static unsigned int kpk_opt_target(struct kunit *test, struct kpk_site *s);
#endif

/*
 * Threads on every online CPU call two targets in a loop, while this thread
 * registers and unregisters probes on them 100 times (at the same addresses
 * as the persistent probes, so the sites change between single and aggregate,
 * optimized and not).  The persistent probes p1 and p2 are registered before
 * the threads start counting their calls and unregistered after every thread
 * stopped: their hit counts equal the calls, exactly.  Each round waits for
 * every thread to call both targets once more before it unregisters: the
 * probes that come and go are hit at least that often.  The second target is
 * probed where the optimizer takes it: after every third round, with q2's
 * post handler gone, that site is optimized while the threads call it, and
 * the next round's q2 takes it back to a breakpoint.
 */
static void kpk_test_concurrent(struct kunit *test)
{
	struct kpk_site s2 = { "c", kpk_target_c, "kpk_target_c", 3 };
	unsigned int off2 = 0;
	struct kpk_probe *p1 = kpk_new(test, 1, "kpk_target_a", 0, false);
	struct kpk_probe *q1 = kpk_new(test, 4, "kpk_target_a", 0, true);
	struct kpk_probe *p2, *p3, *q2, *q3;
	int ncpu = num_online_cpus(), n = 0, i, cpu, opt_rounds = 0;
	unsigned long total = 0;
	struct kpk_worker *w;
	int *phase, *round;

#ifdef CONFIG_OPTPROBES
	off2 = kpk_opt_target(test, &s2);
#endif
	p2 = kpk_new(test, 2, s2.sym, 0, false);
	p3 = kpk_new(test, 3, s2.sym, 0, false);
	q2 = kpk_new(test, 5, s2.sym, 0, true);
	q3 = kpk_new(test, 6, s2.sym, 0, false);
	p2->kp.offset = off2;
	p3->kp.offset = off2;
	q2->kp.offset = off2;
	q3->kp.offset = off2;

	w = kunit_kcalloc(test, ncpu, sizeof(*w), GFP_KERNEL);
	phase = kunit_kzalloc(test, sizeof(*phase), GFP_KERNEL);
	round = kunit_kzalloc(test, sizeof(*round), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, phase);
	KUNIT_ASSERT_NOT_NULL(test, round);

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p1->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p2->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p3->kp), 0);

	for_each_online_cpu(cpu) {
		if (n == ncpu)
			break;
		w[n].site = &s2;
		w[n].phase = phase;
		w[n].round = round;
		w[n].ack = -1;
		w[n].task = kthread_create_on_cpu(kpk_worker_fn, &w[n], cpu,
						  "kpk_worker/%u");
		if (IS_ERR(w[n].task))
			break;
		get_task_struct(w[n].task);
		wake_up_process(w[n].task);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, ncpu);
	kpk_wait_acks(w, n, 0);

	/* The probes are armed before any counted call. */
	smp_store_release(phase, 1);
	for (i = 0; i < 100; i++) {
		struct kprobe *qs[3] = { &q1->kp, &q2->kp, &q3->kp };
		int ret;

		ret = register_kprobes(qs, 3);
		if (ret) {
			KUNIT_FAIL(test, "round %d: register_kprobes: %d", i, ret);
			break;
		}
		switch (i % 3) {
		case 0:
			KUNIT_EXPECT_EQ(test, disable_kprobe(&p3->kp), 0);
			break;
		case 1:
			KUNIT_EXPECT_EQ(test, enable_kprobe(&p3->kp), 0);
			break;
		default:
			wait_for_kprobe_optimizer();
			break;
		}
		/* The probes are registered before the round's calls. */
		smp_store_release(round, i + 1);
		kpk_wait_round(w, n, i + 1);
		unregister_kprobes(qs, 3);
		if (i % 3 == 2) {
			wait_for_kprobe_optimizer();
			if (kpk_site_flags(&p2->kp) & KPROBE_FLAG_OPTIMIZED)
				opt_rounds++;
		}
	}
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p3->kp), 0);
	/* Ordered after the last round; the workers acquire it. */
	smp_store_release(phase, 2);
	kpk_wait_acks(w, n, 2);

	for (i = 0; i < n; i++) {
		kthread_stop(w[i].task);
		put_task_struct(w[i].task);
		total += w[i].calls;
		KUNIT_EXPECT_FALSE(test, w[i].bad_result);
	}
	kunit_info(test, "%lu calls on %d CPUs; p3 %d, q1 %d, q2 %d, q3 %d hits; %s+%u optimized %d times",
		   total, n, atomic_read(&p3->pre), atomic_read(&q1->pre),
		   atomic_read(&q2->pre), atomic_read(&q3->pre), s2.sym, off2,
		   opt_rounds);
	KUNIT_EXPECT_GT(test, total, 0);
	/* Rounds 2, 5, ..., 98: optimized after each with the threads on. */
	KUNIT_EXPECT_EQ(test, opt_rounds,
			IS_ENABLED(CONFIG_OPTPROBES) ? 33 : 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&p1->pre), total);
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&p2->pre), total);
	KUNIT_EXPECT_EQ(test, p1->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, p2->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, p3->kp.nmissed, 0);
	/*
	 * The others were there for a part of the time only, but for at least
	 * one call of each thread a round (p3: in the two rounds of three it
	 * is enabled).
	 */
	KUNIT_EXPECT_LE(test, (unsigned long)atomic_read(&p3->pre), total);
	KUNIT_EXPECT_GE(test, atomic_read(&p3->pre), 66 * n);
	KUNIT_EXPECT_LE(test, (unsigned long)atomic_read(&q1->pre), total);
	KUNIT_EXPECT_GE(test, atomic_read(&q1->pre), 100 * n);
	KUNIT_EXPECT_LE(test, (unsigned long)atomic_read(&q2->pre), total);
	KUNIT_EXPECT_GE(test, atomic_read(&q2->pre), 100 * n);
	KUNIT_EXPECT_LE(test, (unsigned long)atomic_read(&q3->pre), total);
	KUNIT_EXPECT_GE(test, atomic_read(&q3->pre), 100 * n);

	/* Exact once more, with the threads gone. */
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&p1->pre),
			total + KPK_CALLS);
	kpk_unreg(test, &p1->kp);
	kpk_unreg(test, &p2->kp);
	kpk_unreg(test, &p3->kp);
}

/* ---------------------------------------------------------------------------
 * Jump optimization
 * ---------------------------------------------------------------------------
 */
#ifdef CONFIG_OPTPROBES
/*
 * What debugfs shows as [OPTIMIZED]: only a jump really written, not a site
 * still queued or waiting for the optimizer (KPROBE_FLAG_OPTIMIZED already
 * set).  kprobe_mutex holds the optimizer back while this looks; on x86_64
 * the text tells whether the jump is there.  Right after registration the
 * site is normally still queued; if the optimizer was faster, the jump must
 * be there.
 */
static void kpk_expect_opt_shown(struct kunit *test, struct kprobe *p)
{
	struct kprobe *site;

	mutex_lock(&kprobe_mutex);
	rcu_read_lock();
	site = get_kprobe(p->addr);
	rcu_read_unlock();
	if (!site) {
		mutex_unlock(&kprobe_mutex);
		KUNIT_FAIL(test, "no site at %pS", p->addr);
		return;
	}
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(site));
	if (to_site(site)->state & (SITE_OPT_QUEUED | SITE_OPT_WAITING))
		KUNIT_EXPECT_FALSE(test, site_jump_installed(site));
	else
		KUNIT_EXPECT_TRUE(test, site_jump_installed(site));
#ifdef CONFIG_X86_64
	KUNIT_EXPECT_EQ(test, site_jump_installed(site),
			*(u8 *)p->addr == JMP32_INSN_OPCODE);
#endif
	mutex_unlock(&kprobe_mutex);
}

#ifndef KPK_OPT_ASM_SITE
/*
 * The first offset of @sym (@fn) whose instruction kprobes replaces by a
 * jump, or UINT_MAX.  Where the test has an assembly target it knows one
 * (offset 0); elsewhere it asks the optimizer about each instruction of a C
 * function, within the function: an offset past its end would probe the
 * next one, which the test does not call.
 */
static unsigned int kpk_optimizable_offset(const char *sym, kpk_fn_t fn)
{
	unsigned long size, where;
	unsigned int off;

	if (!kallsyms_lookup_size_offset((unsigned long)
			dereference_kernel_function_descriptor(fn), &size, &where))
		return UINT_MAX;
	for (off = 0; off < size; off++) {
		struct kprobe kp = {
			.symbol_name = sym, .offset = off,
			.pre_handler = kpk_pre_bare,
		};
		bool opt;

		if (register_kprobe(&kp))
			continue;
		wait_for_kprobe_optimizer();
		opt = kpk_site_flags(&kp) & KPROBE_FLAG_OPTIMIZED;
		unregister_kprobe(&kp);
		if (opt)
			return off;
	}
	return UINT_MAX;
}
#endif

/* The target of the optimization tests; returns the offset to probe. */
static unsigned int kpk_opt_target(struct kunit *test, struct kpk_site *s)
{
	unsigned int off;

#ifdef KPK_OPT_ASM_SITE
	*s = (struct kpk_site)KPK_OPT_ASM_SITE;
	off = 0;
#else
	*s = (struct kpk_site){ "c", kpk_target_c, "kpk_target_c", 3 };
	off = kpk_optimizable_offset(s->sym, s->fn);
#endif
	KUNIT_ASSERT_NE_MSG(test, off, UINT_MAX,
			    "no instruction of %s is optimized", s->sym);
	return off;
}

static void kpk_test_optimized(struct kunit *test)
{
	struct kpk_site s;
	unsigned int off = kpk_opt_target(test, &s);
	struct kpk_probe *p = kpk_new(test, 1, s.sym, 0, false);
	struct kpk_probe *q = kpk_new(test, 2, s.sym, 0, true);
	unsigned long addr;

	p->kp.offset = off;
	q->kp.offset = off;
	KUNIT_ASSERT_EQ(test, sysctl_kprobes_optimization, 1);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p->kp), 0);
	addr = (unsigned long)p->kp.addr;
	kpk_expect_opt_shown(test, &p->kp);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	kpk_expect_opt_shown(test, &p->kp);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, p->seen_ip, addr + KPK_IP_BIAS);

	/* A post handler at the same address: back to a breakpoint. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &q->kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->post), KPK_CALLS);

	/* Without it, optimized again. */
	kpk_unreg(test, &q->kp);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), KPK_CALLS);

	/* Disabled: no hits; enabled: optimized and counting. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&p->kp), 0);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&p->kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 4 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed, 0);
	kpk_unreg(test, &p->kp);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 4 * KPK_CALLS);
}

/*
 * Runnable and never sleeping: an RCU Tasks grace period started while this
 * runs waits for it to stop.
 */
static int kpk_tasks_rcu_holdout(void *unused)
{
	while (!kthread_should_stop())
		cpu_relax();
	return 0;
}

/*
 * A task preempted in a detour still holds what the detour passes to its
 * handler (the site, on x86_64), and the RCU grace period unregistration
 * waits for does not wait for that task: the site must outlive an RCU-tasks
 * grace period.  Read it after unregistration and, where tasks can be
 * preempted, after every RCU callback queued so far has run, as such a task
 * would, while a task that does not sleep holds RCU Tasks grace periods
 * off (only KASAN, in the debug flavours, sees the read of a freed site:
 * elsewhere this cannot fail).  Reading it without the holdout was a race
 * with the RCU Tasks callback, which KASAN saw once on powerpc.
 */
static void kpk_test_opt_site_lifetime(struct kunit *test)
{
	struct kpk_site s;
	unsigned int off = kpk_opt_target(test, &s);
	struct kpk_probe *p = kpk_new(test, 1, s.sym, 0, false);
	struct task_struct *holdout = NULL;
	struct kprobe *site;
	void *addr;
	bool hold;

	p->kp.offset = off;
	KUNIT_ASSERT_EQ(test, sysctl_kprobes_optimization, 1);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p->kp), 0);
	addr = p->kp.addr;
	wait_for_kprobe_optimizer();
	KUNIT_ASSERT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	rcu_read_lock();
	site = get_kprobe(addr);
	rcu_read_unlock();
	KUNIT_ASSERT_NOT_NULL(test, site);

	/* What makes site_free() wait for RCU Tasks. */
	KUNIT_EXPECT_TRUE(test, to_site(site)->state & SITE_OPT_BUILT);

	/*
	 * Hold RCU Tasks grace periods off, so that the site is still there
	 * after rcu_barrier() if (and only if) an RCU Tasks callback frees it.
	 * Not on riscv, whose unoptimization itself waits for RCU Tasks (a
	 * task may be between a jump's AUIPC and JALR): there the site is not
	 * read after unregistration.
	 */
	hold = IS_ENABLED(CONFIG_TASKS_RCU) && !IS_ENABLED(CONFIG_RISCV);
	if (hold) {
		holdout = kthread_run(kpk_tasks_rcu_holdout, NULL, "kpk_holdout");
		KUNIT_ASSERT_FALSE(test, IS_ERR(holdout));
	}
	kpk_unreg(test, &p->kp);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, get_kprobe(addr));
	rcu_read_unlock();
	if (hold) {
		/* A site freed by call_rcu() would be gone now. */
		rcu_barrier();
		KUNIT_EXPECT_PTR_EQ(test, (void *)READ_ONCE(site->addr), addr);
		KUNIT_EXPECT_TRUE(test, list_empty(&site->list));
		kthread_stop(holdout);
	}
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 0);
	synchronize_rcu_tasks();
}
#endif

/* ---------------------------------------------------------------------------
 * Kprobes on ftrace
 * ---------------------------------------------------------------------------
 */
#ifdef CONFIG_KPROBES_ON_FTRACE
static void kpk_test_ftrace(struct kunit *test)
{
	struct kpk_probe *p = kpk_new(test, 1, "kpk_target_ft", 0, true);
	struct kpk_probe *q = kpk_new(test, 2, "kpk_target_ft", 0, false);
	unsigned long addr;

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p->kp), 0);
	addr = (unsigned long)p->kp.addr;
	KUNIT_EXPECT_EQ(test, ftrace_location(addr), addr);
	KUNIT_EXPECT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_FALSE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, p->seen_ip, addr + KPK_IP_BIAS);

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &q->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, q->kp.addr, p->kp.addr);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->post), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, q->seen_ip, addr + KPK_IP_BIAS);

	KUNIT_EXPECT_EQ(test, disable_kprobe(&p->kp), 0);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), 2 * KPK_CALLS);
	kpk_unreg(test, &p->kp);
	kpk_unreg(test, &q->kp);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, p->kp.nmissed + q->kp.nmissed, 0);
}

/* Hits of @p on every CPU. */
static unsigned long kpk_hits(struct kprobe *p)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(p->hits, cpu));
	return sum;
}

/*
 * The ftrace_ops that the site of @p is armed through (kernel/kprobes/
 * ftrace.c): SITE_FTRACE_REGS, SITE_FTRACE_LEAN (no saved struct pt_regs),
 * both while it moves from one to the other, or none.
 */
static unsigned int kpk_site_ops(struct kprobe *p)
{
	unsigned int state = 0;
	struct kprobe *site;

	mutex_lock(&kprobe_mutex);
	site = get_kprobe(p->addr);
	if (site)
		state = to_site(site)->state;
	mutex_unlock(&kprobe_mutex);
	return state & (SITE_FTRACE_LEAN | SITE_FTRACE_REGS);
}

/* Where a site of kretprobes without entry handler goes. */
#ifdef KPROBES_FTRACE_LEAN
#define KPK_OPS_LEAN	SITE_FTRACE_LEAN
#else
#define KPK_OPS_LEAN	SITE_FTRACE_REGS
#endif

/*
 * A kretprobe without entry handler at an ftrace site, alone or with others
 * that come and go: its site moves between the two ftrace_ops (where the
 * arch has both), and no call is lost or counted twice.
 */
static void kpk_test_ftrace_kretprobe(struct kunit *test)
{
	struct kpk_rp *r = kpk_rp_new(test, "kpk_target_ft", 4, false);
	struct kpk_rp *e = kpk_rp_new(test, "kpk_target_ft", 4, true);
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_ft", 0, false);

	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	KUNIT_EXPECT_TRUE(test, kpk_site_flags(&r->rp.kp) & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), KPK_OPS_LEAN);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, r->last_ret, KPK_CALLS - 1 + 4);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r->rp.kp), KPK_CALLS);

	/* A kprobe joins: it needs the registers. */
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), SITE_FTRACE_REGS);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 2 * KPK_CALLS);
	kpk_unreg(test, &k->kp);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), KPK_OPS_LEAN);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 3 * KPK_CALLS);

	/* So does a kretprobe with an entry handler. */
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &e->rp), 0);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), SITE_FTRACE_REGS);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->match), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 4 * KPK_CALLS);
	kpk_unreg_rp(test, &e->rp);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), KPK_OPS_LEAN);

	/* Disabled, the lone member leaves the site unarmed. */
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), 0);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 4 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&r->rp), 0);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), KPK_OPS_LEAN);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 5 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r->rp.kp), 5 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed + r->rp.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, e->rp.nmissed + k->kp.nmissed, 0);
	kpk_unreg_rp(test, &r->rp);
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 5 * KPK_CALLS);
}

#ifdef KPROBES_FTRACE_LEAN
static kprobe_opcode_t *kpk_both_addr;
static int kpk_both_calls;
static bool kpk_both_bad;

/* kprobe_ftrace_both_hook: calls while the site is on both ftrace_ops. */
static void kpk_call_on_both(kprobe_opcode_t *addr)
{
	int i;

	/* Another task's batch. */
	if (addr != kpk_both_addr)
		return;
	for (i = 0; i < KPK_CALLS; i++) {
		if (kpk_call(kpk_target_ft, i) != i + 4)
			kpk_both_bad = true;
	}
	kpk_both_calls += KPK_CALLS;
}

static void kpk_clear_both_hook(void *unused)
{
	WRITE_ONCE(kprobe_ftrace_both_hook, NULL);
}

/*
 * Calls made while a site of kretprobes is on both ftrace_ops, as it moves
 * from one to the other: each goes through both callbacks (in one order on
 * the way there, maybe the other on the way back), and still takes one
 * instance of each kretprobe and has one return handler.
 */
static void kpk_test_ftrace_kretprobe_both(struct kunit *test)
{
	struct kpk_rp *r = kpk_rp_new(test, "kpk_target_ft", 4, false);
	struct kpk_rp *r2 = kpk_rp_new(test, "kpk_target_ft", 4, false);
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_ft", 0, false);

	kpk_both_calls = 0;
	kpk_both_bad = false;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r2->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_site_ops(&r->rp.kp), SITE_FTRACE_LEAN);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kpk_clear_both_hook,
							NULL), 0);
	kpk_both_addr = r->rp.kp.addr;
	WRITE_ONCE(kprobe_ftrace_both_hook, kpk_call_on_both);

	/* A kprobe joins: the site goes from the lean ops to the other. */
	KUNIT_EXPECT_EQ(test, kpk_reg(test, &k->kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_both_calls, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), SITE_FTRACE_REGS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r2->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r->rp.kp), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r2->rp.kp), KPK_CALLS);

	/* It leaves: back to the lean ops. */
	kpk_unreg(test, &k->kp);
	WRITE_ONCE(kprobe_ftrace_both_hook, NULL);
	KUNIT_EXPECT_EQ(test, kpk_both_calls, 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), SITE_FTRACE_LEAN);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r2->ret), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r->rp.kp), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r2->rp.kp), 2 * KPK_CALLS);

	/* Settled, no check of a moving site is left. */
	kpk_calls(test, kpk_target_ft, 4, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 3 * KPK_CALLS);
	KUNIT_EXPECT_FALSE(test, r->rp.kp.flags & KPROBE_FLAG_FTRACE_MOVING);
	KUNIT_EXPECT_FALSE(test, kpk_both_bad);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed + r->rp.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, r2->rp.nmissed + r2->rp.kp.nmissed, 0);
	kpk_unreg_rp(test, &r2->rp);
	kpk_unreg_rp(test, &r->rp);
}
#endif

struct kpk_ft_caller {
	struct task_struct *task;
	unsigned long calls;
	bool bad_result;
};

static int kpk_ft_caller_fn(void *data)
{
	struct kpk_ft_caller *c = data;

	while (!kthread_should_stop()) {
		if (kpk_call(kpk_target_ft, 1) != 5)
			c->bad_result = true;
		c->calls++;
		cond_resched();
	}
	return 0;
}

/*
 * The same while a thread calls the function all along: every call has
 * exactly one return handler, however the site's ops change meanwhile.
 */
static void kpk_test_ftrace_kretprobe_switch(struct kunit *test)
{
	struct kpk_rp *r = kpk_rp_new(test, "kpk_target_ft", 4, false);
	struct kpk_rp *r2 = kpk_rp_new(test, "kpk_target_ft", 4, false);
	struct kpk_rp *e = kpk_rp_new(test, "kpk_target_ft", 4, true);
	struct kpk_probe *k = kpk_new(test, 1, "kpk_target_ft", 0, false);
	struct kpk_ft_caller c = { };
	int i;

	r->rp.maxactive = 4;
	r2->rp.maxactive = 4;
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r2->rp), 0);
	c.task = kthread_run(kpk_ft_caller_fn, &c, "kpk_ft_caller");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c.task));
	for (i = 0; i < 20; i++) {
		KUNIT_EXPECT_EQ(test, kpk_reg(test, &k->kp), 0);
		usleep_range(100, 200);
		kpk_unreg(test, &k->kp);
		KUNIT_EXPECT_EQ(test, kpk_reg_rp(test, &e->rp), 0);
		usleep_range(100, 200);
		kpk_unreg_rp(test, &e->rp);
	}
	kthread_stop(c.task);
	/* The thread is gone: so are its pending instances, if any. */
	kunit_info(test, "%lu calls, kprobe %d, entry handler %d hits",
		   c.calls, atomic_read(&k->pre), atomic_read(&e->entry));
	KUNIT_EXPECT_FALSE(test, c.bad_result);
	KUNIT_EXPECT_GT(test, c.calls, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), c.calls);
	KUNIT_EXPECT_EQ(test, atomic_read(&r2->ret), c.calls);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r->rp.kp), c.calls);
	KUNIT_EXPECT_EQ(test, kpk_hits(&r2->rp.kp), c.calls);
	KUNIT_EXPECT_EQ(test, r->rp.nmissed + r->rp.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, r2->rp.nmissed + r2->rp.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, kpk_site_ops(&r->rp.kp), KPK_OPS_LEAN);
	kpk_unreg_rp(test, &r2->rp);
	kpk_unreg_rp(test, &r->rp);
}
#endif

/* ---------------------------------------------------------------------------
 * jprobes
 * ---------------------------------------------------------------------------
 */
#ifdef CONFIG_JPROBES
/*
 * Ten integer arguments: four are passed on the stack on x86_64, two on
 * arm64, riscv64 and powerpc64 (in the parameter save area there).
 */
#define KPK_JARGS	10
#define KPK_JPARAMS	long a0, long a1, long a2, long a3, long a4, \
			long a5, long a6, long a7, long a8, long a9
#define KPK_JARGV	{ a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 }

typedef long (*kpk_jfn_t)(KPK_JPARAMS);

/* What the probed functions and the handlers saw last. */
static long kpk_jfn_seen[KPK_JARGS];
static long kpk_jh_seen[KPK_JARGS];

static long kpk_jsum(const long *a)
{
	long r = 0;
	int i;

	for (i = 0; i < KPK_JARGS; i++)
		r += (i + 1) * a[i];
	return r;
}

/* An ftrace site at its entry with CONFIG_KPROBES_ON_FTRACE. */
static noinline __used long kpk_jtarget(KPK_JPARAMS)
{
	long a[KPK_JARGS] = KPK_JARGV;

	memcpy(kpk_jfn_seen, a, sizeof(a));
	return kpk_jsum(a);
}

/* A breakpoint at its entry on every arch. */
static noinline __used notrace long kpk_jtarget_nt(KPK_JPARAMS)
{
	long a[KPK_JARGS] = KPK_JARGV;

	memcpy(kpk_jfn_seen, a, sizeof(a));
	return kpk_jsum(a) + 1;
}

static noinline long kpk_jcall(kpk_jfn_t fn, const long *a)
{
	OPTIMIZER_HIDE_VAR(fn);
	return fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
}

/* How the handler behaves, and what it found. */
static atomic_t kpk_jh_hits;
static bool kpk_jh_scribble;		/* overwrite its copies of the arguments */
static bool kpk_jh_no_return;		/* return without jprobe_return() */
static kpk_jfn_t kpk_jh_call;		/* call this (jprobed) function */
static long kpk_jh_call_ret;
static bool kpk_jh_scribbled;		/* and its copies were changed */
static bool kpk_jh_preemptible;
static bool kpk_jh_irqs_disabled;

/*
 * Out of line, so that the compiler keeps each argument in memory: a stack
 * argument in the slot it was passed in, which is in the probed function's
 * saved area, and writes there.
 */
static noinline void kpk_scribble(long *x)
{
	WRITE_ONCE(*x, ~*x);
}

static long kpk_jhandler(KPK_JPARAMS)
{
	long a[KPK_JARGS] = KPK_JARGV;

	memcpy(kpk_jh_seen, a, sizeof(a));
	kpk_jh_preemptible = preemptible();
	kpk_jh_irqs_disabled = irqs_disabled();
	atomic_inc(&kpk_jh_hits);
	if (READ_ONCE(kpk_jh_call))
		kpk_jh_call_ret = kpk_jcall(kpk_jh_call, a);
	if (READ_ONCE(kpk_jh_scribble)) {
		/* The stack arguments live in the probed function's area. */
		kpk_scribble(&a0);
		kpk_scribble(&a1);
		kpk_scribble(&a2);
		kpk_scribble(&a3);
		kpk_scribble(&a4);
		kpk_scribble(&a5);
		kpk_scribble(&a6);
		kpk_scribble(&a7);
		kpk_scribble(&a8);
		kpk_scribble(&a9);
		kpk_jh_scribbled = a0 == ~kpk_jh_seen[0] &&
				   a1 == ~kpk_jh_seen[1] &&
				   a2 == ~kpk_jh_seen[2] &&
				   a3 == ~kpk_jh_seen[3] &&
				   a4 == ~kpk_jh_seen[4] &&
				   a5 == ~kpk_jh_seen[5] &&
				   a6 == ~kpk_jh_seen[6] &&
				   a7 == ~kpk_jh_seen[7] &&
				   a8 == ~kpk_jh_seen[8] &&
				   a9 == ~kpk_jh_seen[9];
	}
	if (READ_ONCE(kpk_jh_no_return))
		return -1;
	jprobe_return();
	return -1;
}

static void kpk_jreset(void)
{
	atomic_set(&kpk_jh_hits, 0);
	kpk_jh_scribble = false;
	kpk_jh_scribbled = false;
	kpk_jh_no_return = false;
	kpk_jh_call = NULL;
	kpk_jh_call_ret = 0;
	kpk_jh_preemptible = true;
	kpk_jh_irqs_disabled = true;
}

/* The arguments of call @n: distinct, all 64 bits used on 64-bit. */
static void kpk_jargs(long *a, int n)
{
	int i;

	for (i = 0; i < KPK_JARGS; i++)
		a[i] = (long)(((unsigned long)(i + 1) << (BITS_PER_LONG - 8)) |
			      ((unsigned long)n << 8) | (0x10 + i));
}

/*
 * Call @fn @n times: the function must see its arguments and return its
 * result; with @hooked, the handler must have seen the same arguments.
 */
static void kpk_jcalls(struct kunit *test, kpk_jfn_t fn, long delta, int n,
		       bool hooked)
{
	long a[KPK_JARGS];
	int c;

	for (c = 0; c < n; c++) {
		kpk_jargs(a, c);
		memset(kpk_jfn_seen, 0, sizeof(kpk_jfn_seen));
		memset(kpk_jh_seen, 0, sizeof(kpk_jh_seen));
		KUNIT_EXPECT_EQ(test, kpk_jcall(fn, a), kpk_jsum(a) + delta);
		KUNIT_EXPECT_MEMEQ(test, kpk_jfn_seen, a, sizeof(a));
		if (hooked)
			KUNIT_EXPECT_MEMEQ(test, kpk_jh_seen, a, sizeof(a));
	}
}

static struct jprobe *kpk_jnew(struct kunit *test, const char *sym)
{
	struct jprobe *jp = kunit_kzalloc(test, sizeof(*jp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, jp);
	jp->kp.symbol_name = sym;
	jp->entry = kpk_jhandler;
	return jp;
}

static void kpk_unreg_jp_action(void *jp)
{
	unregister_jprobe(jp);
}

/* A registration that should fail; one that does not is not left behind. */
static int kpk_try_jp(struct jprobe *jp)
{
	int ret = register_jprobe(jp);

	if (!ret)
		unregister_jprobe(jp);
	return ret;
}

static int kpk_reg_jp(struct kunit *test, struct jprobe *jp)
{
	int ret = register_jprobe(jp);

	if (!ret)
		ret = kunit_add_action_or_reset(test, kpk_unreg_jp_action, jp);
	return ret;
}

static void kpk_unreg_jp(struct kunit *test, struct jprobe *jp)
{
	kunit_release_action(test, kpk_unreg_jp_action, jp);
}

struct kpk_jsite {
	const char *desc;
	kpk_jfn_t fn;
	const char *sym;
	long delta;		/* fn(a) == kpk_jsum(a) + delta */
	bool traced;
};

static const struct kpk_jsite kpk_jsites[] = {
	{ "traced_entry", kpk_jtarget, "kpk_jtarget", 0, true },
	{ "notrace_entry", kpk_jtarget_nt, "kpk_jtarget_nt", 1, false },
};

KUNIT_ARRAY_PARAM_DESC(kpk_jsites, kpk_jsites, desc);

/*
 * The handler sees the arguments, the function sees them unchanged whatever
 * the handler does to its copies, its result is unaffected; a handler that
 * forgets jprobe_return() does no harm; disabled, unregistered: no handler.
 */
static void kpk_test_jprobe(struct kunit *test)
{
	const struct kpk_jsite *s = test->param_value;
	struct jprobe *jp = kpk_jnew(test, s->sym);
	u32 flags;

	kpk_jreset();
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)jp->kp.addr, kpk_entry(s->fn));
	wait_for_kprobe_optimizer();
	flags = kpk_site_flags(&jp->kp);
	KUNIT_EXPECT_EQ(test, !!(flags & KPROBE_FLAG_FTRACE),
			IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) && s->traced);
	KUNIT_EXPECT_FALSE(test, flags & KPROBE_FLAG_OPTIMIZED);

	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	/* Interrupts as at the call, no preemption. */
	KUNIT_EXPECT_FALSE(test, kpk_jh_preemptible);
	KUNIT_EXPECT_FALSE(test, kpk_jh_irqs_disabled);

	WRITE_ONCE(kpk_jh_scribble, true);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 2 * KPK_CALLS);
	KUNIT_EXPECT_TRUE(test, kpk_jh_scribbled);
	WRITE_ONCE(kpk_jh_scribble, false);

	/* Returning lands on the guard, which does what jprobe_return() does. */
	WRITE_ONCE(kpk_jh_no_return, true);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 3 * KPK_CALLS);
	WRITE_ONCE(kpk_jh_no_return, false);

	KUNIT_EXPECT_EQ(test, disable_jprobe(jp), 0);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, enable_jprobe(jp), 0);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 4 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, jp->kp.nmissed, 0);

	kpk_unreg_jp(test, jp);
	KUNIT_EXPECT_NULL(test, jp->kp.addr);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 4 * KPK_CALLS);

	/* Registered again, by symbol. */
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 5 * KPK_CALLS);
	kpk_unreg_jp(test, jp);
}

static void kpk_test_jprobe_errno(struct kunit *test)
{
	struct jprobe *j1 = kpk_jnew(test, "kpk_jtarget");
	struct jprobe *j2 = kpk_jnew(test, "kpk_jtarget");
	struct jprobe *j3 = kpk_jnew(test, "kpk_jtarget_nt");
	struct jprobe *j4 = kpk_jnew(test, "kpk_jtarget_nt");
	struct jprobe *batch[2];
	struct jprobe bad = {};
	long a[KPK_JARGS];
	int ret;

	kpk_jreset();
	KUNIT_EXPECT_EQ(test, register_jprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_jprobes(NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_jprobes(batch, 0), -EINVAL);

	/* No handler; no address; both an address and a symbol. */
	bad.kp.symbol_name = "kpk_jtarget";
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -EINVAL);
	bad.entry = kpk_jhandler;
	bad.kp.symbol_name = NULL;
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -EINVAL);
	bad.kp.symbol_name = "kpk_jtarget";
	bad.kp.addr = (kprobe_opcode_t *)kpk_entry(kpk_jtarget);
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -EINVAL);
	bad.kp.addr = NULL;

	/* Not a function entry; an unknown function; a core-only flag. */
	bad.kp.offset = 32;
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -EINVAL);
	bad.kp.offset = 0;
	bad.kp.symbol_name = "kpk_no_such_function";
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -ENOENT);
	bad.kp.symbol_name = "kpk_jtarget";
	bad.kp.flags = KPROBE_FLAG_JPROBE;
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -EINVAL);
	bad.kp.flags = 0;
	/* Blacklisted. */
	bad.kp.symbol_name = "jprobe_return";
	KUNIT_EXPECT_EQ(test, kpk_try_jp(&bad), -EINVAL);

	/* One jprobe per function; the same one twice is a bug. */
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, j1), 0);
	KUNIT_EXPECT_EQ(test, register_jprobe(j2), -EBUSY);
	KUNIT_EXPECT_EQ(test, register_jprobe(j1), -EINVAL);

	/* All or nothing: j3 is not left registered. */
	batch[0] = j3;
	batch[1] = j4;
	ret = register_jprobes(batch, 2);
	if (!ret)
		unregister_jprobes(batch, 2);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, j3->kp.flags, 0);
	KUNIT_EXPECT_EQ(test, j4->kp.flags, 0);
	kpk_jcalls(test, kpk_jtarget_nt, 1, KPK_CALLS, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, j3), 0);

	kpk_jcalls(test, kpk_jtarget, 0, KPK_CALLS, true);
	kpk_jcalls(test, kpk_jtarget_nt, 1, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 2 * KPK_CALLS);
	kpk_unreg_jp(test, j1);
	kpk_unreg_jp(test, j3);
	/* Unregistering what is not registered does nothing. */
	unregister_jprobe(j2);
	unregister_jprobe(NULL);
	kpk_jcalls(test, kpk_jtarget, 0, KPK_CALLS, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 2 * KPK_CALLS);

	/* Outside a handler, jprobe_return() logs an error and returns. */
	kpk_jargs(a, 1);
	jprobe_return();
	KUNIT_EXPECT_EQ(test, kpk_jcall(kpk_jtarget, a), kpk_jsum(a));
}

struct kpk_jrp {
	struct kretprobe rp;
	atomic_t entry;
	atomic_t ret;
	atomic_t match;
	long expect;
};

static int kpk_jrp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&container_of(get_kretprobe(ri), struct kpk_jrp, rp)->entry);
	return 0;
}

static int kpk_jrp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kpk_jrp *r;

	if (!rp)
		return 0;
	r = container_of(rp, struct kpk_jrp, rp);
	atomic_inc(&r->ret);
	if ((long)regs_return_value(regs) == READ_ONCE(r->expect))
		atomic_inc(&r->match);
	return 0;
}

/*
 * A kprobe with a post handler, a kretprobe and another kprobe on the
 * function of a jprobe, registered before and after it: each handler runs
 * once per call, the kprobes' pre handlers in registration order.
 */
static void kpk_test_jprobe_coexist(struct kunit *test)
{
	const struct kpk_jsite *s = test->param_value;
	struct kpk_probe *k1 = kpk_new(test, 1, s->sym, 0, true);
	struct kpk_probe *k2 = kpk_new(test, 2, s->sym, 0, false);
	struct jprobe *jp = kpk_jnew(test, s->sym);
	struct kpk_jrp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	static const int order[] = { 1, 2 };
	long a[KPK_JARGS];
	int c;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rp.kp.symbol_name = s->sym;
	r->rp.entry_handler = kpk_jrp_entry;
	r->rp.handler = kpk_jrp_handler;
	kpk_jreset();

	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k1->kp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &k2->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, jp->kp.addr, k1->kp.addr);
	KUNIT_EXPECT_PTR_EQ(test, jp->kp.addr, r->rp.kp.addr);

	for (c = 0; c < KPK_CALLS; c++) {
		kpk_jargs(a, c);
		WRITE_ONCE(r->expect, kpk_jsum(a) + s->delta);
		memset(kpk_jh_seen, 0, sizeof(kpk_jh_seen));
		KUNIT_EXPECT_EQ(test, kpk_jcall(s->fn, a), kpk_jsum(a) + s->delta);
		KUNIT_EXPECT_MEMEQ(test, kpk_jfn_seen, a, sizeof(a));
		KUNIT_EXPECT_MEMEQ(test, kpk_jh_seen, a, sizeof(a));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k1->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k1->post), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->pre), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->match), KPK_CALLS);
	kpk_expect_order(test, order, 2, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, jp->kp.nmissed + k1->kp.nmissed + k2->kp.nmissed, 0);

	/* Without the jprobe, the others go on. */
	kpk_unreg_jp(test, jp);
	kpk_order_reset();
	for (c = 0; c < KPK_CALLS; c++) {
		kpk_jargs(a, c);
		WRITE_ONCE(r->expect, kpk_jsum(a) + s->delta);
		KUNIT_EXPECT_EQ(test, kpk_jcall(s->fn, a), kpk_jsum(a) + s->delta);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k1->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k1->post), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->pre), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->match), 2 * KPK_CALLS);
	kpk_expect_order(test, order, 2, KPK_CALLS);

	/* Back, last again although registered after them. */
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 2 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&k2->pre), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 3 * KPK_CALLS);
	kpk_unreg(test, &k1->kp);
	kpk_unreg(test, &k2->kp);
	kpk_unreg_rp(test, &r->rp);
	kpk_jcalls(test, s->fn, s->delta, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 3 * KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->ret), 3 * KPK_CALLS);
	kpk_unreg_jp(test, jp);
}

/*
 * A kretprobe on the jprobe handler: the handler's frame is abandoned at its
 * jprobe_return(), so its instances are taken back there, not left on the
 * task above the frames that do return.
 */
static void kpk_test_jprobe_kretprobed(struct kunit *test)
{
	struct jprobe *jp = kpk_jnew(test, "kpk_jtarget");
	struct kpk_rp *h = kpk_rp_new(test, "kpk_jhandler", 0, true);
	struct kpk_rp *r = kpk_rp_new(test, "kpk_target_a", 1, true);
	struct llist_node *mark = current->kretprobe_instances.first;

	kpk_jreset();
	h->rp.maxactive = 2;
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &h->rp), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_rp(test, &r->rp), 0);
	kpk_jcalls(test, kpk_jtarget, 0, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_PTR_EQ(test, current->kretprobe_instances.first, mark);
	/* Two instances served every call. */
	KUNIT_EXPECT_EQ(test, atomic_read(&h->entry), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, h->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->ret), 0);
	kpk_calls(test, kpk_target_a, 1, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->match), KPK_CALLS);
	kpk_unreg_rp(test, &r->rp);
	kpk_unreg_rp(test, &h->rp);
	kpk_unreg_jp(test, jp);
}

/*
 * A handler calls another jprobed function: that jprobe misses, the call
 * returns its result.
 */
static void kpk_test_jprobe_nested(struct kunit *test)
{
	struct jprobe *outer = kpk_jnew(test, "kpk_jtarget_nt");
	struct jprobe *inner = kpk_jnew(test, "kpk_jtarget");
	long a[KPK_JARGS];
	int c;

	kpk_jreset();
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, outer), 0);
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, inner), 0);
	WRITE_ONCE(kpk_jh_call, kpk_jtarget);
	for (c = 0; c < KPK_CALLS; c++) {
		kpk_jargs(a, c);
		kpk_jh_call_ret = 0;
		KUNIT_EXPECT_EQ(test, kpk_jcall(kpk_jtarget_nt, a), kpk_jsum(a) + 1);
		KUNIT_EXPECT_EQ(test, kpk_jh_call_ret, kpk_jsum(a));
		KUNIT_EXPECT_MEMEQ(test, kpk_jfn_seen, a, sizeof(a));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, KPK_CALLS);
	WRITE_ONCE(kpk_jh_call, NULL);
	kpk_unreg_jp(test, inner);
	kpk_unreg_jp(test, outer);
}

/* One argument, in a register on every arch: no stack arguments above. */
static noinline __used long kpk_jtarget1(long x)
{
	OPTIMIZER_HIDE_VAR(x);
	return 3 * x;
}

static long kpk_jhandler1(long x)
{
	kpk_jh_seen[0] = x;
	atomic_inc(&kpk_jh_hits);
	jprobe_return();
	return 0;
}

/*
 * Calls kpk_jtarget1() directly, with a local whose address escapes: with
 * KASAN_STACK the redzones of that local are at the top of this frame, just
 * above the callee's return address, where a jprobe hit saves and restores
 * the stack.
 */
static noinline long kpk_jcall_guarded(long x)
{
	char buf[8];
	char *p = buf;

	OPTIMIZER_HIDE_VAR(p);
	p[0] = 1;
	return kpk_jtarget1(x) + p[0] - 1;
}

/*
 * A caller's frame with KASAN redzones under the saved stack bytes: they are
 * copied unchecked (a KASAN report in the debug flavour otherwise).
 */
static void kpk_test_jprobe_guarded_caller(struct kunit *test)
{
	struct jprobe *jp = kpk_jnew(test, "kpk_jtarget1");
	int c;

	jp->entry = kpk_jhandler1;
	kpk_jreset();
	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	for (c = 0; c < KPK_CALLS; c++) {
		KUNIT_EXPECT_EQ(test, kpk_jcall_guarded(c + 5), 3 * (c + 5));
		KUNIT_EXPECT_EQ(test, kpk_jh_seen[0], c + 5);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, jp->kp.nmissed, 0);
	kpk_unreg_jp(test, jp);
}

#ifdef CONFIG_OPTPROBES
static int kpk_jh_int_seen;

static int kpk_jhandler_int(int x)
{
	kpk_jh_int_seen = x;
	atomic_inc(&kpk_jh_hits);
	jprobe_return();
	return 0;
}

#ifndef KPK_OPT_ASM_SITE
/* A leaf without ftrace call: its first instruction can be optimized. */
static noinline __used notrace int kpk_jleaf(int x)
{
	OPTIMIZER_HIDE_VAR(x);
	return x + 9;
}
#endif

/*
 * With optimization on: a jprobe takes its site back to a breakpoint, and
 * leaving lets it be optimized again.
 */
static void kpk_test_jprobe_optimized(struct kunit *test)
{
#ifdef KPK_OPT_ASM_SITE
	const struct kpk_site s = KPK_OPT_ASM_SITE;
#else
	const struct kpk_site s = { "leaf", kpk_jleaf, "kpk_jleaf", 9 };
#endif
	struct kpk_probe *p = kpk_new(test, 1, s.sym, 0, false);
	struct jprobe *jp = kpk_jnew(test, s.sym);
	int i;

	jp->entry = kpk_jhandler_int;
	kpk_jreset();
	KUNIT_ASSERT_EQ(test, sysctl_kprobes_optimization, 1);
	KUNIT_ASSERT_EQ(test, kpk_reg(test, &p->kp), 0);
	wait_for_kprobe_optimizer();
	/* Every arch with OPTPROBES optimizes this first instruction. */
	KUNIT_ASSERT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);

	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	KUNIT_EXPECT_PTR_EQ(test, jp->kp.addr, p->kp.addr);
	KUNIT_EXPECT_FALSE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	for (i = 0; i < KPK_CALLS; i++) {
		kpk_jh_int_seen = -1;
		KUNIT_EXPECT_EQ(test, kpk_call(s.fn, i), i + s.delta);
		KUNIT_EXPECT_EQ(test, kpk_jh_int_seen, i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), KPK_CALLS);

	kpk_unreg_jp(test, jp);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpk_site_flags(&p->kp) & KPROBE_FLAG_OPTIMIZED);
	kpk_calls(test, s.fn, s.delta, KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->pre), 2 * KPK_CALLS);
	kpk_unreg(test, &p->kp);
}
#endif

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* What the function graph tracer saw of kpk_jtarget [0] and the handler [1]. */
static unsigned long kpk_fg_ip[2];
static atomic_t kpk_fg_entries[2];
static atomic_t kpk_fg_returns[2];

static int kpk_fg_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (trace->func == kpk_fg_ip[i]) {
			atomic_inc(&kpk_fg_entries[i]);
			return 1;
		}
	}
	return 0;
}

static void kpk_fg_return(struct ftrace_graph_ret *trace,
			  struct fgraph_ops *gops)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (trace->func == kpk_fg_ip[i])
			atomic_inc(&kpk_fg_returns[i]);
	}
}

static struct fgraph_ops kpk_fg_ops = {
	.entryfunc = kpk_fg_entry,
	.retfunc = kpk_fg_return,
};

static void kpk_fg_unregister(void *unused)
{
	unregister_ftrace_graph(&kpk_fg_ops);
	ftrace_free_filter(&kpk_fg_ops.ops);
}

/*
 * Function graph tracing of the probed function and of the handler: the
 * handler's frames are abandoned at jprobe_return(), so the tracer must not
 * hook their returns (the probed function's return would then pop the
 * handler's entry and return into __jprobe_guard), and the task's return
 * stack is as deep after each call as before.
 */
static void kpk_test_jprobe_graph(struct kunit *test)
{
	struct jprobe *jp = kpk_jnew(test, "kpk_jtarget");
	int i, depth;

	kpk_jreset();
	for (i = 0; i < 2; i++) {
		atomic_set(&kpk_fg_entries[i], 0);
		atomic_set(&kpk_fg_returns[i], 0);
	}
	kpk_fg_ip[0] = ftrace_location((unsigned long)kpk_jtarget);
	kpk_fg_ip[1] = ftrace_location((unsigned long)kpk_jhandler);
	KUNIT_ASSERT_NE(test, kpk_fg_ip[0], 0);
	KUNIT_ASSERT_NE(test, kpk_fg_ip[1], 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&kpk_fg_ops.ops, kpk_fg_ip[0],
						   0, 1), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&kpk_fg_ops.ops, kpk_fg_ip[1],
						   0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_graph(&kpk_fg_ops), 0);
	i = kunit_add_action_or_reset(test, kpk_fg_unregister, NULL);
	KUNIT_ASSERT_EQ(test, i, 0);

	/* The tracer sees each call and return of the function. */
	kpk_jcalls(test, kpk_jtarget, 0, KPK_CALLS, false);
	KUNIT_ASSERT_EQ(test, atomic_read(&kpk_fg_entries[0]), KPK_CALLS);
	KUNIT_ASSERT_EQ(test, atomic_read(&kpk_fg_returns[0]), KPK_CALLS);

	KUNIT_ASSERT_EQ(test, kpk_reg_jp(test, jp), 0);
	depth = current->curr_ret_stack;
	kpk_jcalls(test, kpk_jtarget, 0, KPK_CALLS, true);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), KPK_CALLS);
	KUNIT_EXPECT_EQ(test, current->curr_ret_stack, depth);
	/* Not the handler; the function, when it is, to its return. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_fg_entries[1]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_fg_returns[1]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_fg_entries[0]),
			atomic_read(&kpk_fg_returns[0]));
	KUNIT_EXPECT_EQ(test, jp->kp.nmissed, 0);

	/* Unpaused at the break: traced again without the jprobe. */
	kpk_unreg_jp(test, jp);
	i = atomic_read(&kpk_fg_returns[0]);
	kpk_jcalls(test, kpk_jtarget, 0, KPK_CALLS, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_fg_returns[0]), i + KPK_CALLS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_fg_entries[0]),
			atomic_read(&kpk_fg_returns[0]));
}
#endif

#if defined(CONFIG_ARM64) || defined(CONFIG_RISCV)
/*
 * kpk_call_on_stack(arg, fn, top): fn(arg) with the stack pointer at @top,
 * as arm64's and riscv's call_on_irq_stack() call their function at the
 * top of the IRQ stack.
 */
asmlinkage long kpk_call_on_stack(long arg, long (*fn)(long), void *top);

#ifdef CONFIG_ARM64
asm(".pushsection .text, \"ax\"\n"
	".balign 4\n"
	".globl kpk_call_on_stack\n"
	".type kpk_call_on_stack, @function\n"
	"kpk_call_on_stack:\n\t"
	"stp x29, x30, [sp, #-16]!\n\t"
	"mov x29, sp\n\t"
	"mov sp, x2\n\t"
	"blr x1\n\t"
	"mov sp, x29\n\t"
	"ldp x29, x30, [sp], #16\n\t"
	"ret\n"
	".size kpk_call_on_stack, . - kpk_call_on_stack\n"
	".popsection\n");
#else
asm(".pushsection .text, \"ax\"\n"
	".balign 4\n"
	".globl kpk_call_on_stack\n"
	".type kpk_call_on_stack, @function\n"
	"kpk_call_on_stack:\n\t"
	"addi sp, sp, -16\n\t"
	"sd ra, 8(sp)\n\t"
	"sd s0, 0(sp)\n\t"
	"addi s0, sp, 16\n\t"
	"mv sp, a2\n\t"
	"jalr a1\n\t"
	"addi sp, s0, -16\n\t"
	"ld ra, 8(sp)\n\t"
	"ld s0, 0(sp)\n\t"
	"addi sp, sp, 16\n\t"
	"ret\n"
	".size kpk_call_on_stack, . - kpk_call_on_stack\n"
	".popsection\n");
#endif

#define KPK_JTOP_ORDER	2	/* the stack: 4 pages, then the page above */
#define KPK_JTOP_MARK	0x5eed5eedL

static long *kpk_jtop_above;
static long kpk_jtop_seen;

static noinline __used notrace long kpk_jtop(long x)
{
	OPTIMIZER_HIDE_VAR(x);
	return x + 5;
}

/* Another CPU's data, or whatever lies above the stack, changes meanwhile. */
static long kpk_jtop_handler(long x)
{
	kpk_jtop_seen = x;
	WRITE_ONCE(*kpk_jtop_above, KPK_JTOP_MARK);
	atomic_inc(&kpk_jh_hits);
	jprobe_return();
	return 0;
}

/*
 * A jprobe on a function entered with the stack pointer at the top of a
 * stack other than the task's (a page boundary): nothing above it is saved
 * at the hit, so nothing is written back there at the break.
 */
static void kpk_test_jprobe_stack_top(struct kunit *test)
{
	struct jprobe *jp = kpk_jnew(test, "kpk_jtop");
	unsigned long flags;
	void *stack, *top;
	long ret;

	stack = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					 KPK_JTOP_ORDER + 1);
	KUNIT_ASSERT_NOT_NULL(test, stack);
	top = stack + (PAGE_SIZE << KPK_JTOP_ORDER);
	kpk_jtop_above = top;
	*kpk_jtop_above = -1;

	jp->entry = kpk_jtop_handler;
	kpk_jreset();
	kpk_jtop_seen = 0;
	if (kpk_reg_jp(test, jp)) {
		free_pages((unsigned long)stack, KPK_JTOP_ORDER + 1);
		KUNIT_FAIL(test, "register_jprobe(kpk_jtop) failed");
		return;
	}
	/* No interrupt on this stack. */
	local_irq_save(flags);
	ret = kpk_call_on_stack(37, kpk_jtop, top);
	local_irq_restore(flags);
	kpk_unreg_jp(test, jp);

	KUNIT_EXPECT_EQ(test, ret, 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_jh_hits), 1);
	KUNIT_EXPECT_EQ(test, kpk_jtop_seen, 37);
	KUNIT_EXPECT_EQ(test, *kpk_jtop_above, KPK_JTOP_MARK);
	free_pages((unsigned long)stack, KPK_JTOP_ORDER + 1);
}
#endif
#endif /* CONFIG_JPROBES */

/* The instruction slot pages /proc/kallsyms lists now. */
static int kpk_insn_pages(void)
{
	char sym[KSYM_NAME_LEN], type;
	unsigned long value;
	int i, n = 0;

	for (i = 0; !kprobe_get_kallsym(i, &value, &type, sym); i++)
		n += !strcmp(sym, "kprobe_insn_page");
	return n;
}

/*
 * Slots given back clean (never run, e.g. after a failed prepare) empty their
 * pages, which are then freed but one, as after dirty frees: take slots until
 * two new pages are listed, give them all back, and wait for the collection
 * that scheduled.  A collection scheduled before would free them too: it is
 * waited for first.  Nothing else may take or free slots meanwhile (at boot,
 * nothing does).
 */
static void kpk_test_slot_pages(struct kunit *test)
{
	const int per_page = PAGE_SIZE / (KPROBE_INSN_SLOT_SIZE *
					  sizeof(kprobe_opcode_t));
	int before, during, max, i;
	kprobe_opcode_t **slots;

	kprobe_slots_flush();
	before = kpk_insn_pages();
	max = (before + 3) * per_page;
	slots = kunit_kcalloc(test, max, sizeof(*slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	for (i = 0; i < max && kpk_insn_pages() < before + 2; i++) {
		slots[i] = get_insn_slot();
		if (!slots[i])
			break;
	}
	during = kpk_insn_pages();
	while (i--)
		free_insn_slot(slots[i], 0);
	KUNIT_ASSERT_GE(test, during, before + 2);

	kprobe_slots_flush();
	KUNIT_EXPECT_LE(test, kpk_insn_pages(), before + 1);
}

static struct kunit_case kprobes_kunit_cases[] = {
	KUNIT_CASE(kpk_test_errno_args),
	KUNIT_CASE(kpk_test_errno_offset),
	KUNIT_CASE(kpk_test_errno_blacklist),
#ifdef CONFIG_FUNCTION_TRACER
	KUNIT_CASE(kpk_test_errno_ftrace_entry),
#endif
	KUNIT_CASE(kpk_test_errno_not_text),
	KUNIT_CASE(kpk_test_errno_flags),
	KUNIT_CASE(kpk_test_errno_twice),
	KUNIT_CASE(kpk_test_errno_enable_unregistered),
	KUNIT_CASE(kpk_test_errno_kretprobe),
	KUNIT_CASE(kpk_test_errno_batch),
	KUNIT_CASE(kpk_test_errno_batch_args),
	KUNIT_CASE(kpk_test_errno_unregister),
	KUNIT_CASE(kpk_test_errno_sections),
	KUNIT_CASE(kpk_test_slot_pages),
	KUNIT_CASE_PARAM(kpk_test_hits, kpk_sites_gen_params),
	KUNIT_CASE(kpk_test_hits_offset),
	KUNIT_CASE_PARAM(kpk_test_redirect, kpk_sites_gen_params),
#ifdef CONFIG_FUNCTION_ERROR_INJECTION
	KUNIT_CASE(kpk_test_override),
#endif
	KUNIT_CASE_PARAM(kpk_test_aggregate, kpk_sites_gen_params),
	KUNIT_CASE_PARAM(kpk_test_kretprobe, kpk_sites_gen_params),
	KUNIT_CASE_PARAM(kpk_test_kretprobe_set_return, kpk_sites_gen_params),
	KUNIT_CASE(kpk_test_kretprobe_entry_skip),
	KUNIT_CASE(kpk_test_kretprobe_post_dropped),
	KUNIT_CASE(kpk_test_kretprobe_context),
	KUNIT_CASE(kpk_test_kretprobe_maxactive),
#ifdef CONFIG_PROVE_RCU
	KUNIT_CASE(kpk_test_kretprobe_return_calls),
#endif
	KUNIT_CASE_PARAM(kpk_test_kretprobe_and_kprobe, kpk_sites_gen_params),
	KUNIT_CASE(kpk_test_kretprobe_batch),
	KUNIT_CASE(kpk_test_kretprobe_unregister_pending),
	KUNIT_CASE(kpk_test_kretprobe_recycle_running),
	KUNIT_CASE_PARAM(kpk_test_reentry, kpk_sites_gen_params),
	KUNIT_CASE_PARAM(kpk_test_fault_in_handler, kpk_sites_gen_params),
	KUNIT_CASE_PARAM(kpk_test_fault_in_kretprobe, kpk_sites_gen_params),
#ifdef CONFIG_X86_64
	KUNIT_CASE(kpk_test_fault_in_insn),
#endif
	KUNIT_CASE_SLOW(kpk_test_concurrent),
#ifdef CONFIG_OPTPROBES
	KUNIT_CASE(kpk_test_optimized),
	KUNIT_CASE(kpk_test_opt_site_lifetime),
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_CASE(kpk_test_ftrace),
	KUNIT_CASE(kpk_test_ftrace_kretprobe),
	KUNIT_CASE_SLOW(kpk_test_ftrace_kretprobe_switch),
#ifdef KPROBES_FTRACE_LEAN
	KUNIT_CASE(kpk_test_ftrace_kretprobe_both),
#endif
#endif
#ifdef CONFIG_JPROBES
	KUNIT_CASE_PARAM(kpk_test_jprobe, kpk_jsites_gen_params),
	KUNIT_CASE(kpk_test_jprobe_errno),
	KUNIT_CASE_PARAM(kpk_test_jprobe_coexist, kpk_jsites_gen_params),
	KUNIT_CASE(kpk_test_jprobe_nested),
	KUNIT_CASE(kpk_test_jprobe_guarded_caller),
	KUNIT_CASE(kpk_test_jprobe_kretprobed),
#ifdef CONFIG_OPTPROBES
	KUNIT_CASE(kpk_test_jprobe_optimized),
#endif
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	KUNIT_CASE(kpk_test_jprobe_graph),
#endif
#if defined(CONFIG_ARM64) || defined(CONFIG_RISCV)
	KUNIT_CASE(kpk_test_jprobe_stack_top),
#endif
#endif
	{}
};

static struct kunit_suite kprobes_kunit_suite = {
	.name = "kprobes_manager",
	.init = kpk_test_init,
	.exit = kpk_test_exit,
	.test_cases = kprobes_kunit_cases,
};

kunit_test_suite(kprobes_kunit_suite);

MODULE_DESCRIPTION("KUnit suite of the kprobes probe manager");
MODULE_LICENSE("GPL");
