// SPDX-License-Identifier: GPL-2.0
/*
 * BPF and error injection on kprobes, without libbpf:
 *  - BPF_PROG_TYPE_KPROBE programs of raw instructions, attached with
 *    PERF_EVENT_IOC_SET_BPF to perf kprobe events: one counts the calls of a
 *    function in an array map, one stores what it returns (a kretprobe);
 *  - bpf_override_return() makes an error-injectable function return an
 *    errno without running it;
 *  - fail_function (debugfs) does the same through its own kprobe, for
 *    any caller: nothing else calls getpgid() while it is armed.
 *
 * The probed functions are the ones the getsid() and getpgid() system
 * calls' table entries point to: only those system calls reach them, and
 * the programs act for this process only (they compare the tgid), so the
 * counts are exactly the calls made here.
 *
 * Where the running kernel lacks a feature (the verifier does not know
 * bpf_override_return(), no fail_function in debugfs), its tests are
 * skipped with the kernel's own words.
 *
 * Output: kselftest TAP.  Built static, run by kprobe_bpf.sh.
 */
#include <linux/bpf.h>
#include "kprobe_clients.h"

#define NTESTS 25
#define CNT_FUNC SYS_PREFIX "getsid"
#define INJ_FUNC SYS_PREFIX "getpgid"
#define FAIL_FUNCTION "/sys/kernel/debug/fail_function"

/* Where a kretprobe's pt_regs hold the return value. */
#if defined(__x86_64__)
#define REGS_RC 80	/* ax */
#elif defined(__aarch64__)
#define REGS_RC 0	/* regs[0] */
#elif defined(__riscv)
#define REGS_RC 80	/* a0, after epc, ra, sp, gp, tp, t0-t2, s0, s1 */
#elif defined(__powerpc64__)
#define REGS_RC 24	/* gpr[3] */
#endif

#define INSN(c, d, s, o, i)					\
	((struct bpf_insn){ .code = (c), .dst_reg = (d),	\
			    .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD64_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define RSH64_IMM(d, i)	INSN(BPF_ALU64 | BPF_RSH | BPF_K, d, 0, 0, i)
#define ST_W(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define LDX_DW(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define XADD_DW(d, s, o) INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
/* A 16-byte load of a map's address: LD_MAP_FD, then LD_IMM64_HI. */
#define LD_MAP_FD(d, fd) INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM64_HI()	INSN(0, 0, 0, 0, 0)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JNE_IMM(d, i, o) INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R6 BPF_REG_6
#define R10 BPF_REG_10

/* Map slots */
#define SLOT_CALLS 0	/* kprobe hits */
#define SLOT_RET 1	/* last return value */
#define SLOT_RETS 2	/* kretprobe hits */

static char vlog[65536];

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(uint32_t);
	a.value_size = sizeof(uint64_t);
	a.max_entries = 4;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static long long map_get(int fd, uint32_t key)
{
	union bpf_attr a;
	uint64_t v;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)&v;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		return -1;
	return (long long)v;
}

/*
 * Load a program; on failure load it again with the verifier's log in vlog
 * and return -1 with the errno of the first attempt.
 */
static int prog_load(int type, const struct bpf_insn *insns, int n)
{
	union bpf_attr a;
	int fd, err;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uint64_t)(uintptr_t)"GPL";
	vlog[0] = '\0';
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0)
		return fd;
	err = errno;
	a.log_level = 1;
	a.log_buf = (uint64_t)(uintptr_t)vlog;
	a.log_size = sizeof(vlog);
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0)
		close(fd);
	errno = err;
	return -1;
}

/* The verifier log's lines, as TAP diagnostics. */
static void diag_log(void)
{
	char *l, *save = NULL;

	for (l = strtok_r(vlog, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		diag("verifier: %s", l);
}

/* A perf kprobe event on @func with program @prog attached, enabled. */
static int attach(const char *func, int retprobe, int prog)
{
	int fd = perf_kprobe_open(func, 0, retprobe, 0, 1);
	int err;

	if (fd < 0)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static long call(long nr, int n)
{
	long r = 0;

	while (n-- > 0)
		r = syscall(nr, 0);
	return r;
}

static const char *err_name(int ok, int err)
{
	return ok ? "ok" : strerror(err);
}

/* 1..10: a counting kprobe program and a kretprobe program */
static void test_counting(pid_t tgid)
{
	struct bpf_insn count[] = {
		CALL(BPF_FUNC_get_current_pid_tgid),
		RSH64_IMM(R0, 32),
		JNE_IMM(R0, tgid, 9),			/* not us: out */
		ST_W(R10, -4, SLOT_CALLS),
		MOV64_REG(R2, R10),
		ADD64_IMM(R2, -4),
		LD_MAP_FD(R1, 0),			/* [6] */
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(R0, 0, 2),			/* out */
		MOV64_IMM(R1, 1),
		XADD_DW(R0, R1, 0),
		MOV64_IMM(R0, 0),			/* out: */
		EXIT(),
	};
	struct bpf_insn ret[] = {
		MOV64_REG(R6, R1),
		CALL(BPF_FUNC_get_current_pid_tgid),
		RSH64_IMM(R0, 32),
		JNE_IMM(R0, tgid, 18),			/* not us: out */
		ST_W(R10, -4, SLOT_RET),
		MOV64_REG(R2, R10),
		ADD64_IMM(R2, -4),
		LD_MAP_FD(R1, 0),			/* [7] */
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(R0, 0, 11),			/* out */
		LDX_DW(R1, R6, REGS_RC),
		STX_DW(R0, R1, 0),
		ST_W(R10, -4, SLOT_RETS),
		MOV64_REG(R2, R10),
		ADD64_IMM(R2, -4),
		LD_MAP_FD(R1, 0),			/* [16] */
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(R0, 0, 2),			/* out */
		MOV64_IMM(R1, 1),
		XADD_DW(R0, R1, 0),
		MOV64_IMM(R0, 0),			/* out: */
		EXIT(),
	};
	struct bpf_insn tracepoint[] = { MOV64_IMM(R0, 0), EXIT() };
	int map, pc, pr, ps, ek, er, fd;
	long long c, rs, rv;
	long sid;

	/* 1 */
	map = map_create();
	check(map >= 0, "BPF_MAP_CREATE: an array of 4 u64 (%s)",
	      err_name(map >= 0, errno));
	if (map < 0) {
		for (c = 2; c <= 10; c++)
			check(0, "no map");
		return;
	}
	count[6].imm = map;
	ret[7].imm = map;
	ret[16].imm = map;

	/* 2, 3 */
	pc = prog_load(BPF_PROG_TYPE_KPROBE, count, ARRAY_SIZE(count));
	check(pc >= 0, "BPF_PROG_LOAD: a kprobe program counting calls in the map (%s)",
	      err_name(pc >= 0, errno));
	if (pc < 0)
		diag_log();
	ek = pc >= 0 ? attach(CNT_FUNC, 0, pc) : -1;
	check(ek >= 0, "PERF_EVENT_IOC_SET_BPF: on a kprobe on %s (%s)", CNT_FUNC,
	      err_name(ek >= 0, errno));

	/* 4 */
	sid = call(SYS_getsid, 6);
	c = map_get(map, SLOT_CALLS);
	check(c == 6, "kprobe program: 6 calls, map counts 6 (got %lld)", c);

	/* 5, 6 */
	pr = prog_load(BPF_PROG_TYPE_KPROBE, ret, ARRAY_SIZE(ret));
	check(pr >= 0, "BPF_PROG_LOAD: a kretprobe program storing the return value (%s)",
	      err_name(pr >= 0, errno));
	if (pr < 0)
		diag_log();
	er = pr >= 0 ? attach(CNT_FUNC, 1, pr) : -1;
	check(er >= 0, "PERF_EVENT_IOC_SET_BPF: on a kretprobe on %s (%s)", CNT_FUNC,
	      err_name(er >= 0, errno));

	/* 7, 8 */
	sid = call(SYS_getsid, 4);
	c = map_get(map, SLOT_CALLS);
	rs = map_get(map, SLOT_RETS);
	check(c == 10 && rs == 4,
	      "4 more calls: kprobe program counts 10, kretprobe program 4 (got %lld, %lld)",
	      c, rs);
	rv = map_get(map, SLOT_RET);
	check(sid > 0 && rv == sid,
	      "kretprobe program: the return value is getsid(0)'s %ld (got %lld)",
	      sid, rv);

	/* 9: closed, the programs are detached and the probes gone */
	if (ek >= 0)
		close(ek);
	if (er >= 0)
		close(er);
	call(SYS_getsid, 2);
	c = map_get(map, SLOT_CALLS);
	rs = map_get(map, SLOT_RETS);
	check(c == 10 && rs == 4 && probes_listed(CNT_FUNC, 'k') == 0 &&
	      probes_listed(CNT_FUNC, 'r') == 0,
	      "events closed: 2 calls, counts stay 10, 4 (got %lld, %lld), no probe on %s",
	      c, rs, CNT_FUNC);

	/* 10: a program of another type does not attach to a kprobe */
	ps = prog_load(BPF_PROG_TYPE_TRACEPOINT, tracepoint, 2);
	fd = perf_kprobe_open(CNT_FUNC, 0, 0, 0, 1);
	errno = 0;
	c = ps >= 0 && fd >= 0 ? ioctl(fd, PERF_EVENT_IOC_SET_BPF, ps) : -2;
	check(c == -1 && errno == EINVAL,
	      "refused: SET_BPF of a tracepoint program on a kprobe (%s, want %s)",
	      c == -2 ? "no program or event" : err_name(c == 0, errno),
	      strerror(EINVAL));
	if (fd >= 0)
		close(fd);
	if (ps >= 0)
		close(ps);
	if (pc >= 0)
		close(pc);
	if (pr >= 0)
		close(pr);
	close(map);
}

/* 11..16: bpf_override_return() */
static void test_override(pid_t tgid, long pgid)
{
	struct bpf_insn ovr[] = {
		MOV64_REG(R6, R1),
		CALL(BPF_FUNC_get_current_pid_tgid),
		RSH64_IMM(R0, 32),
		JNE_IMM(R0, tgid, 3),			/* not us: out */
		MOV64_REG(R1, R6),
		MOV64_IMM(R2, -EDOM),
		CALL(BPF_FUNC_override_return),
		MOV64_IMM(R0, 0),			/* out: */
		EXIT(),
	};
	static const char * const t[] = {
		"refused: an overriding program on a kprobe on ksys_sync (not error-injectable)",
		"override: attach to a kprobe on " INJ_FUNC,
		"override: 3 calls of getpgid(0) fail with EDOM",
		"override: a child's getpgid(0) runs (the program checks the tgid)",
		"override: detached, getpgid(0) runs again",
	};
	int p, fd, i, bad, status;
	pid_t child;
	long r;

	/* 11 */
	p = prog_load(BPF_PROG_TYPE_KPROBE, ovr, ARRAY_SIZE(ovr));
	if (p < 0 && strstr(vlog, "unknown func")) {
		char why[256];

		snprintf(why, sizeof(why), "this kernel has no bpf_override_return(): verifier: %s",
			 strstr(vlog, "unknown func"));
		why[strcspn(why, "\n")] = '\0';
		skip(why, "BPF_PROG_LOAD: a program calling bpf_override_return()");
		for (i = 0; i < 5; i++)
			skip(why, "%s", t[i]);
		return;
	}
	check(p >= 0, "BPF_PROG_LOAD: a program calling bpf_override_return() (%s)",
	      err_name(p >= 0, errno));
	if (p < 0) {
		diag_log();
		for (i = 0; i < 5; i++)
			check(0, "%s # no program", t[i]);
		return;
	}

	/* 12 */
	fd = attach("ksys_sync", 0, p);
	check(fd < 0 && errno == EINVAL, "%s (%s, want %s)", t[0],
	      err_name(fd >= 0, errno), strerror(EINVAL));
	if (fd >= 0)
		close(fd);

	/* 13, 14 */
	fd = attach(INJ_FUNC, 0, p);
	check(fd >= 0, "%s (%s)", t[1], err_name(fd >= 0, errno));
	bad = 0;
	for (i = 0; i < 3; i++) {
		errno = 0;
		r = syscall(SYS_getpgid, 0);
		if (r != -1 || errno != EDOM) {
			diag("getpgid(0) #%d: %ld, errno %d", i + 1, r, errno);
			bad++;
		}
	}
	check(fd >= 0 && !bad, "%s", t[2]);

	/* 15 */
	child = fork();
	if (child == 0)
		_exit(syscall(SYS_getpgid, 0) == pgid ? 0 : 1);
	status = -1;
	waitpid(child, &status, 0);
	check(child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s", t[3]);

	/* 16 */
	if (fd >= 0)
		close(fd);
	close(p);
	r = syscall(SYS_getpgid, 0);
	check(r == pgid && probes_listed(INJ_FUNC, 'k') == 0,
	      "%s (%ld, want %ld)", t[4], r, pgid);
}

/* Write to a file of fail_function: 0 or errno. */
static int fail_set(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", FAIL_FUNCTION, file);
	return write_str(path, val) ? errno : 0;
}

/* 17..25: fail_function */
static void test_fail_function(long pgid)
{
	static const char * const t[] = {
		"fail_function: inject " INJ_FUNC,
		"refused: inject ksys_sync (not error-injectable)",
		"refused: inject an unknown function",
		"refused: inject " INJ_FUNC " twice",
		"fail_function: retval -ERANGE, probability 0, times 3",
		"fail_function: probability 0: 2 calls of getpgid(0) run",
		"fail_function: probability 100: 5 calls, the first 3 fail with ERANGE",
		"fail_function: !" INJ_FUNC " removes it and its kprobe",
		"refused: !" INJ_FUNC " again",
	};
	char retval[32], buf[256];
	int i, e, bad, fails;
	long r;

	if (access(FAIL_FUNCTION, F_OK)) {
		snprintf(buf, sizeof(buf), "%s: %s (no CONFIG_FAIL_FUNCTION)",
			 FAIL_FUNCTION, strerror(errno));
		for (i = 0; i < 9; i++)
			skip(buf, "%s", t[i]);
		return;
	}

	/* 17..20 */
	e = fail_set("inject", INJ_FUNC);
	check(!e && read_line(FAIL_FUNCTION "/inject", buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, INJ_FUNC) && probes_listed(INJ_FUNC, 'k') == 1,
	      "%s: listed in inject and kprobes/list (%s)", t[0], err_name(!e, e));
	e = fail_set("inject", "ksys_sync");
	check(e == ERANGE, "%s (%s, want %s)", t[1], err_name(!e, e), strerror(ERANGE));
	e = fail_set("inject", "kpbpf_no_such_function");
	check(e == EINVAL, "%s (%s, want %s)", t[2], err_name(!e, e), strerror(EINVAL));
	e = fail_set("inject", INJ_FUNC);
	check(e == EBUSY, "%s (%s, want %s)", t[3], err_name(!e, e), strerror(EBUSY));

	/* 21 */
	snprintf(retval, sizeof(retval), "%llu", (unsigned long long)(long long)-ERANGE);
	e = fail_set(INJ_FUNC "/retval", retval);
	e = e ?: fail_set("probability", "0");
	e = e ?: fail_set("interval", "1");
	e = e ?: fail_set("times", "3");
	e = e ?: fail_set("space", "0");
	e = e ?: fail_set("verbose", "0");	/* no stack dump on the console */
	/*
	 * No task-filter: it only fails calls in task context, and riscv
	 * takes kprobe breakpoints in NMI context.  Nothing else calls
	 * getpgid() meanwhile, so every failure is one of these calls.
	 */
	e = e ?: fail_set("task-filter", "N");
	check(!e, "%s (%s)", t[4], err_name(!e, e));

	/* 22 */
	r = call(SYS_getpgid, 2);
	check(r == pgid, "%s (%ld, want %ld)", t[5], r, pgid);

	/* 23 */
	bad = 0;
	fails = 0;
	e = fail_set("probability", "100");
	for (i = 0; i < 5; i++) {
		errno = 0;
		r = syscall(SYS_getpgid, 0);
		if (r == -1 && errno == ERANGE)
			fails++;
		if (i < 3 ? r != -1 || errno != ERANGE : r != pgid) {
			diag("getpgid(0) #%d: %ld, errno %d", i + 1, r, errno);
			bad++;
		}
	}
	fail_set("probability", "0");
	check(!e && !bad, "%s (%d failed)", t[6], fails);

	/* 24, 25 */
	e = fail_set("inject", "!" INJ_FUNC);
	r = syscall(SYS_getpgid, 0);
	check(!e && probes_listed(INJ_FUNC, 'k') == 0 && r == pgid, "%s (%s)",
	      t[7], err_name(!e, e));
	e = fail_set("inject", "!" INJ_FUNC);
	check(e == ENOENT, "%s (%s, want %s)", t[8], err_name(!e, e), strerror(ENOENT));

	/* The defaults again, for whoever comes next. */
	fail_set("inject", " ");
	fail_set("probability", "0");
	fail_set("times", "1");
	fail_set("verbose", "2");
}

int main(void)
{
	int status = -1;
	pid_t tgid;
	long pgid;

	printf("TAP version 13\n1..%d\n", NTESTS);
	diag("counted: %s, error-injected: %s", CNT_FUNC, INJ_FUNC);
	if (kprobe_pmu_init()) {
		for (int i = 0; i < NTESTS; i++)
			check(0, "no kprobe PMU in %s", KPROBE_PMU);
		return tap_done(NTESTS);
	}
	/*
	 * The tests run in a session of their own, so that getsid(0) and
	 * getpgid(0) return its id (in the guest they would return init's
	 * 0): a value a program could not find by chance.  A forked child
	 * is no group leader, so its setsid() succeeds.
	 */
	fflush(stdout);
	tgid = fork();
	if (tgid == 0) {
		tgid = getpid();
		if (setsid() != tgid) {
			check(0, "setsid(): %s", strerror(errno));
			_exit(tap_done(NTESTS));
		}
		pgid = syscall(SYS_getpgid, 0);
		diag("session and group %ld", pgid);
		test_counting(tgid);
		test_override(tgid, pgid);
		test_fail_function(pgid);
		_exit(tap_done(NTESTS));
	}
	if (tgid < 0 || waitpid(tgid, &status, 0) != tgid || !WIFEXITED(status)) {
		printf("not ok - the test process: fork %d, status %#x\n", tgid, status);
		return 1;
	}
	return WEXITSTATUS(status);
}
