// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes through tracefs' uprobe_events, on ut_target(), a function of
 * this program written in assembly for each arch.  arm64 and riscv uprobes
 * decode and simulate user instructions with the code they share with
 * kprobes (arch/{arm64,riscv}/kernel/probes/{decode,simulate}-insn.c): the
 * function has an instruction of each kind they handle, either stepped out
 * of line or simulated (PC-relative address and literal loads, conditional
 * branches both ways, direct and indirect jumps, call and return, and on
 * riscv compressed and full-size forms).
 *
 * Every instruction the function can run gets a uprobe; a uretprobe
 * fetches the return value, and the entry probe the argument register.
 * The function then runs for a set of inputs, with every probe enabled:
 *  - each result must be model()'s, the same function in C: a simulated
 *    instruction that writes a wrong register or jumps to a wrong place
 *    changes it (or kills the program);
 *  - each probe must count, in uprobe_profile, exactly the times model()
 *    runs its instruction's block;
 *  - the trace must show each call's argument and return value.
 *
 * Output: kselftest TAP.  Built static, run by uprobe_events.sh.
 */
#include <stdbool.h>

#include "kprobe_clients.h"
#include "uprobe_events.h"

#define TRACING "/sys/kernel/tracing"
#define GROUP "wsup"
#define ROUNDS 3

/*
 * What ut_target() computes.  Each of its instructions is in one block:
 * 0 runs on every call, 1 when n != 0 (the call of ut_leaf()), 2 when
 * the sum is even, 3 when the result is below 2000.
 */
static long model(long n, int pass[4])
{
	pass[0] = 1;
	pass[1] = n != 0;
	if (n)
		n += 3;
	pass[2] = !(n & 1);
	if (pass[2])
		n += 1000 + 7;		/* ut_data + ut_lit */
	pass[3] = n < 2000;
	if (pass[3])
		n = -n;
	return n;
}

static const long inputs[] = { 0, 1, 2, 7, 4001, 5000 };

/* ut_point::block: the block of model(), and flags. */
#define UT_BLOCK	0x3
/*
 * An LDR (literal), which upstream 6.12 refuses to uprobe (since "arm64:
 * probes: Remove broken LDR (literal) uprobe support"); the series
 * simulates it with get_user().  Not probed on VARIANT=upstream.
 */
#define UT_LIT		0x10

static bool upstream;

static bool ut_skipped(const struct ut_point *pt)
{
	return upstream && (pt->block & UT_LIT);
}

/*
 * P BLOCK, before an instruction: records the instruction's address and
 * block in section utp_points.  Only instructions that run are marked.
 */
#define UT_POINT_MACRO					\
	".macro P blk\n"				\
	".Lp\\@:\n"					\
	"	.pushsection utp_points, \"aw\"\n"	\
	"	.balign 8\n"				\
	"	.8byte .Lp\\@, \\blk\n"			\
	"	.popsection\n"				\
	".endm\n"

#if defined(__aarch64__)
#define ARG_REG "%x0"
asm(UT_POINT_MACRO
"	.text\n"
"	.globl ut_target\n"
"	.type ut_target, %function\n"
"	.p2align 2\n"
"ut_target:\n"
"P 0;	stp	x29, x30, [sp, #-16]!\n"	/* stepped */
"P 0;	mov	x29, sp\n"
"P 0;	adrp	x1, ut_data\n"			/* simulated: ADRP */
"P 0;	ldr	x2, [x1, :lo12:ut_data]\n"
"P 0x10;	ldr	x3, ut_lit\n"			/* simulated: LDR (literal) */
"P 0;	add	x2, x2, x3\n"
"P 0;	adr	x4, ut_leaf\n"			/* simulated: ADR */
"P 0;	cbz	x0, 1f\n"			/* simulated: CBZ */
"P 1;	blr	x4\n"				/* simulated: BLR */
"1:\n"
"P 0;	tbnz	x0, #0, 2f\n"			/* simulated: TBNZ */
"P 2;	add	x0, x0, x2\n"
"2:\n"
"P 0;	cmp	x0, #2000\n"
"P 0;	b.ge	3f\n"				/* simulated: B.cond */
"P 3;	neg	x0, x0\n"
"3:\n"
"P 0;	ldp	x29, x30, [sp], #16\n"
"P 0;	ret\n"					/* simulated: RET */
"	.size ut_target, . - ut_target\n"
"	.type ut_leaf, %function\n"
"ut_leaf:\n"
"P 1;	b	4f\n"				/* simulated: B */
"	brk	#0x100\n"
"4:\n"
"P 1;	add	x0, x0, #3\n"
"P 1;	ret\n"
"	.size ut_leaf, . - ut_leaf\n"
"	.p2align 3\n"
"ut_lit:	.8byte 7\n"
"	.data\n"
"	.p2align 3\n"
"ut_data:	.8byte 1000\n"
"	.text\n");
#elif defined(__riscv)
#define ARG_REG "%a0"
asm(UT_POINT_MACRO
"	.text\n"
"	.option push\n"
"	.option norelax\n"
"	.option norvc\n"
"	.globl ut_target\n"
"	.type ut_target, @function\n"
"	.p2align 2\n"
"ut_target:\n"
"P 0;	addi	sp, sp, -16\n"			/* stepped */
"P 0;	sd	ra, 8(sp)\n"
"P 0;.Lhi0:	auipc	t0, %pcrel_hi(ut_data)\n"	/* simulated: AUIPC */
"P 0;	ld	t1, %pcrel_lo(.Lhi0)(t0)\n"
"P 0;.Lhi1:	auipc	t2, %pcrel_hi(ut_lit)\n"
"P 0;	ld	t3, %pcrel_lo(.Lhi1)(t2)\n"
"P 0;	add	t1, t1, t3\n"
"	.option rvc\n"
"P 0;	c.beqz	a0, 1f\n"			/* simulated: C.BEQZ */
"	.option norvc\n"
"P 1;	jal	ra, ut_leaf\n"			/* simulated: JAL */
"1:\n"
"	.option rvc\n"
"P 0;	c.mv	a5, a0\n"			/* stepped, compressed */
"P 0;	c.andi	a5, 1\n"
"P 0;	c.bnez	a5, 2f\n"			/* simulated: C.BNEZ */
"	.option norvc\n"
"P 2;	add	a0, a0, t1\n"
"2:\n"
"P 0;	addi	t5, zero, 2000\n"
"P 0;	bge	a0, t5, 3f\n"			/* simulated: BGE */
"P 3;	sub	a0, zero, a0\n"
"3:\n"
"P 0;	ld	ra, 8(sp)\n"
"P 0;	addi	sp, sp, 16\n"
"	.option rvc\n"
"P 0;	c.jr	ra\n"				/* simulated: C.JR */
"	.option norvc\n"
"	.size ut_target, . - ut_target\n"
"	.type ut_leaf, @function\n"
"ut_leaf:\n"
"	.option rvc\n"
"P 1;	c.j	4f\n"				/* simulated: C.J */
"	c.ebreak\n"
"4:\n"
"P 1;	c.addi	a0, 3\n"			/* stepped, compressed */
"	.option norvc\n"
"P 1;	beq	a0, zero, 5f\n"			/* simulated: BEQ, not taken */
"P 1;	jalr	zero, 0(ra)\n"			/* simulated: JALR */
"5:	ebreak\n"
"	.size ut_leaf, . - ut_leaf\n"
"	.p2align 3\n"
"ut_lit:	.8byte 7\n"
"	.option pop\n"
"	.data\n"
"	.p2align 3\n"
"ut_data:	.8byte 1000\n"
"	.text\n");
#elif defined(__x86_64__)
#define ARG_REG "%di"
asm(UT_POINT_MACRO
"	.text\n"
"	.globl ut_target\n"
"	.type ut_target, @function\n"
"ut_target:\n"
"P 0;	push	%rbp\n"
"P 0;	mov	%rsp, %rbp\n"
"P 0;	mov	ut_data(%rip), %rsi\n"		/* RIP-relative */
"P 0;	add	ut_lit(%rip), %rsi\n"
"P 0;	mov	%rdi, %rax\n"
"P 0;	test	%rax, %rax\n"
"P 0;	jz	1f\n"
"P 1;	call	ut_leaf\n"
"1:\n"
"P 0;	test	$1, %al\n"
"P 0;	jnz	2f\n"
"P 2;	add	%rsi, %rax\n"
"2:\n"
"P 0;	cmp	$2000, %rax\n"
"P 0;	jge	3f\n"
"P 3;	neg	%rax\n"
"3:\n"
"P 0;	pop	%rbp\n"
"P 0;	ret\n"
"	.size ut_target, . - ut_target\n"
"	.type ut_leaf, @function\n"
"ut_leaf:\n"
"P 1;	jmp	4f\n"
"	int3\n"
"4:\n"
"P 1;	add	$3, %rax\n"
"P 1;	ret\n"
"	.size ut_leaf, . - ut_leaf\n"
"	.p2align 3\n"
"ut_lit:	.8byte 7\n"
"	.data\n"
"	.p2align 3\n"
"ut_data:	.8byte 1000\n"
"	.text\n");
#elif defined(__powerpc64__)
#define ARG_REG "%r3"
/* ELFv2: the static program has one TOC, which r2 holds on entry. */
asm(UT_POINT_MACRO
"	.text\n"
"	.globl ut_target\n"
"	.type ut_target, @function\n"
"	.p2align 2\n"
"ut_target:\n"
"P 0;	mflr	0\n"
"P 0;	std	0, 16(1)\n"
"P 0;	stdu	1, -32(1)\n"
"P 0;	addis	5, 2, ut_data@toc@ha\n"
"P 0;	ld	5, ut_data@toc@l(5)\n"
"P 0;	addis	6, 2, ut_lit@toc@ha\n"
"P 0;	ld	6, ut_lit@toc@l(6)\n"
"P 0;	add	5, 5, 6\n"
"P 0;	cmpdi	3, 0\n"
"P 0;	beq	1f\n"
"P 1;	bl	ut_leaf\n"
"1:\n"
"P 0;	andi.	7, 3, 1\n"
"P 0;	bne	2f\n"
"P 2;	add	3, 3, 5\n"
"2:\n"
"P 0;	cmpdi	3, 2000\n"
"P 0;	bge	3f\n"
"P 3;	neg	3, 3\n"
"3:\n"
"P 0;	addi	1, 1, 32\n"
"P 0;	ld	0, 16(1)\n"
"P 0;	mtlr	0\n"
"P 0;	blr\n"
"	.size ut_target, . - ut_target\n"
"	.type ut_leaf, @function\n"
"ut_leaf:\n"
"P 1;	b	4f\n"
"	trap\n"
"4:\n"
"P 1;	addi	3, 3, 3\n"
"P 1;	blr\n"
"	.size ut_leaf, . - ut_leaf\n"
"	.p2align 3\n"
"ut_lit:	.8byte 7\n"
"	.data\n"
"	.p2align 3\n"
"ut_data:	.8byte 1000\n"
"	.text\n");
#else
#error "no ut_target() for this arch"
#endif

#define NPOINTS_MAX 64

/* The file and offset that map @addr in this process (/proc/self/maps). */
static int file_offset(unsigned long addr, char *path, size_t size,
		       unsigned long *off)
{
	unsigned long start, end, pgoff;
	char line[512], perms[8], file[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end,
			   perms, &pgoff, file) != 5)
			continue;
		if (addr < start || addr >= end || perms[2] != 'x')
			continue;
		snprintf(path, size, "%s", file);
		*off = addr - start + pgoff;
		found = 0;
	}
	fclose(f);
	return found;
}

/* uprobe_profile's hit count of event @name of group GROUP, or -1. */
static long profile_hits(const char *name)
{
	char line[512], file[256], ev[128], want[160];
	unsigned long hits;
	long found = -1;
	FILE *f = fopen(TRACING "/uprobe_profile", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), GROUP "/%s", name);
	while (found < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %127s %lu", file, ev, &hits) == 3 &&
		    (!strcmp(ev, name) || !strcmp(ev, want)))
			found = hits;
	fclose(f);
	return found;
}

/* Appends definition @def (one line, no newline) to uprobe_events. */
static int add_event(const char *def)
{
	int fd = open(TRACING "/uprobe_events", O_WRONLY | O_APPEND);
	char line[600];
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	snprintf(line, sizeof(line), "%s\n", def);
	n = write(fd, line, strlen(line));
	err = errno;
	close(fd);
	errno = n < 0 ? err : EIO;
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

/*
 * The trace's lines of event @name, in order: the value of field @field
 * ("n=" or "ret=") of the first @max; the number of lines found.
 */
static int trace_values(const char *name, const char *field, long *vals,
			int max)
{
	char line[1024], tag[160];
	FILE *f = fopen(TRACING "/trace", "r");
	int n = 0;
	char *p;

	if (!f)
		return -1;
	snprintf(tag, sizeof(tag), " %s: (", name);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, tag))
			continue;
		p = strstr(line, field);
		if (n < max)
			vals[n] = p ? strtol(p + strlen(field), NULL, 10) : -1;
		n++;
	}
	fclose(f);
	return n;
}

int main(void)
{
	const struct ut_point *pt;
	int npoints = __stop_utp_points - __start_utp_points;
	int nin = ARRAY_SIZE(inputs), ntests = npoints + 9;
	long counts[4] = { 0 }, got[ROUNDS * ARRAY_SIZE(inputs)];
	long want[ROUNDS * ARRAY_SIZE(inputs)], args[ROUNDS * ARRAY_SIZE(inputs)];
	char path[256], def[512], name[32];
	unsigned long off, entry_off;
	int i, r, pass[4], bad, defined = 0, wrong, fd;
	bool def_ok[NPOINTS_MAX] = { false };
	char cmdline[1024];

	upstream = !read_line("/proc/cmdline", cmdline, sizeof(cmdline)) &&
		   strstr(cmdline, "ws.variant=upstream");

	printf("TAP version 13\n1..%d\n", ntests);

	/* 1: the points, and where they are in this program's file. */
	bad = npoints < 8 || npoints > NPOINTS_MAX;
	if (!bad)
		bad = file_offset((unsigned long)ut_target, path, sizeof(path),
				  &entry_off);
	for (pt = __start_utp_points; !bad && pt < __stop_utp_points; pt++)
		bad = file_offset(pt->addr, path, sizeof(path), &off) ||
		      (pt->block & ~(unsigned long)(UT_BLOCK | UT_LIT));
	if (!check(!bad, "%d probe points in %s, ut_target() at offset 0x%lx",
		   npoints, path, entry_off))
		return tap_done(ntests);

	/* 2: the function agrees with its model, before any probe. */
	for (wrong = 0, i = 0; i < nin; i++)
		if (ut_target(inputs[i]) != model(inputs[i], pass)) {
			diag("unprobed: ut_target(%ld) = %ld, want %ld",
			     inputs[i], ut_target(inputs[i]),
			     model(inputs[i], pass));
			wrong++;
		}
	check(!wrong, "%d calls of ut_target() without probes: %d wrong results",
	      nin, wrong);

	/* 3: the events, one per instruction, and the return probe. */
	write_str(TRACING "/events/enable", "0");
	fd = open(TRACING "/trace", O_WRONLY | O_TRUNC);	/* clears it */
	if (fd >= 0)
		close(fd);
	bad = 0;
	for (i = 0, pt = __start_utp_points; !bad && pt < __stop_utp_points;
	     i++, pt++) {
		if (ut_skipped(pt))
			continue;
		file_offset(pt->addr, path, sizeof(path), &off);
		snprintf(def, sizeof(def), "p:" GROUP "/p%d %s:0x%lx%s", i,
			 path, off, off == entry_off ? " n=" ARG_REG ":s64" : "");
		bad = add_event(def);
		if (bad)
			diag("refused: %s (%s)", def, strerror(errno));
		else
			def_ok[i] = true;
		defined += !bad;
	}
	if (!bad) {
		snprintf(def, sizeof(def),
			 "r:" GROUP "/ret %s:0x%lx ret=$retval:s64", path,
			 entry_off);
		bad = add_event(def);
		if (bad)
			diag("refused: %s (%s)", def, strerror(errno));
	}
	check(!bad, "uprobe_events: %d p: events and an r: event defined",
	      defined);
	if (bad)
		goto out;

	/* 4: enable them all. */
	check(!write_str(TRACING "/events/" GROUP "/enable", "1"),
	      "events/" GROUP "/enable: 1");

	/* 5: the results, with every instruction probed. */
	wrong = 0;
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < nin; i++) {
			int k = r * nin + i, b;

			args[k] = inputs[i];
			got[k] = ut_target(inputs[i]);
			want[k] = model(inputs[i], pass);
			for (b = 0; b < 4; b++)
				counts[b] += pass[b];
			if (got[k] != want[k]) {
				diag("ut_target(%ld) = %ld, want %ld",
				     inputs[i], got[k], want[k]);
				wrong++;
			}
		}
	check(!wrong, "%d calls of ut_target() under the probes: %d wrong results",
	      ROUNDS * nin, wrong);

	write_str(TRACING "/events/" GROUP "/enable", "0");

	/* 6..: each probe's hits, exactly its block's runs. */
	for (i = 0, pt = __start_utp_points; pt < __stop_utp_points; i++, pt++) {
		long hits;

		if (ut_skipped(pt)) {
			skip("upstream 6.12 refuses uprobes on LDR (literal)",
			     "p%d (+0x%lx)", i,
			     pt->addr - (unsigned long)ut_target);
			continue;
		}
		snprintf(name, sizeof(name), "p%d", i);
		hits = profile_hits(name);
		check(hits == counts[pt->block & UT_BLOCK],
		      "p%d (+0x%lx in block %lu): %ld hits, want %ld", i,
		      pt->addr - (unsigned long)ut_target,
		      pt->block & UT_BLOCK, hits,
		      counts[pt->block & UT_BLOCK]);
	}
	/* uprobe_profile counts a uretprobe's entries; its returns: below. */
	check(profile_hits("ret") == ROUNDS * nin,
	      "ret: %ld hits, want %d", profile_hits("ret"), ROUNDS * nin);

	/* The trace: each call's argument, then each return value. */
	{
		long vals[ROUNDS * ARRAY_SIZE(inputs)];
		int nv, eq;

		snprintf(name, sizeof(name), "p%d", 0);
		nv = trace_values(name, " n=", vals, ARRAY_SIZE(vals));
		for (eq = 0, i = 0; i < nv && i < (int)ARRAY_SIZE(vals); i++)
			eq += vals[i] == args[i];
		check(nv == ROUNDS * nin && eq == nv,
		      "trace: p0 n=%s: %d lines, %d as passed", ARG_REG, nv, eq);
		nv = trace_values("ret", " ret=", vals, ARRAY_SIZE(vals));
		for (eq = 0, i = 0; i < nv && i < (int)ARRAY_SIZE(vals); i++)
			eq += vals[i] == want[i];
		check(nv == ROUNDS * nin && eq == nv,
		      "trace: ret=$retval: %d lines, %d as returned", nv, eq);
	}

out:
	/* Last: the events go away, which unregisters the uprobes. */
	write_str(TRACING "/events/" GROUP "/enable", "0");
	bad = add_event("-:" GROUP "/ret");
	for (i = 0; i < NPOINTS_MAX; i++) {
		if (!def_ok[i])
			continue;
		snprintf(def, sizeof(def), "-:" GROUP "/p%d", i);
		bad |= add_event(def);
	}
	check(!bad && profile_hits("ret") < 0 && profile_hits("p0") < 0,
	      "uprobe_events: the %d events deleted", defined + 1);
	return tap_done(ntests);
}
