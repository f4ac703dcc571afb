// SPDX-License-Identifier: GPL-2.0
/*
 * perf's kprobe PMU on kprobes: a kprobe and a kretprobe opened with
 * perf_event_open() (the PMU type from sysfs, the function name in config1,
 * the retprobe bit from the PMU's format), counting for this task only.
 *
 * The probed function is the one the getppid() system call's table entry
 * points to: only getppid() reaches it, and the events count for this
 * task, so the counts are exactly the calls this program makes.
 *
 * Output: kselftest TAP.  Built static, run by kprobe_perf.sh.
 */
#include "kprobe_clients.h"

#define NTESTS 16
#define FUNC SYS_PREFIX "getppid"

static void call_getppid(int n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
}

/* Opening @func+@off fails with @want. */
static void expect_refused(const char *what, const char *func, uint64_t off,
			   int retprobe, int want)
{
	int fd = perf_kprobe_open(func, off, retprobe, 0, 1);
	int err = errno;

	if (fd >= 0)
		close(fd);
	check(fd < 0 && err == want, "refused: %s: %s (want %s)", what,
	      fd >= 0 ? "opened" : strerror(err), strerror(want));
}

int main(void)
{
	long long k, r, k0, r0;
	int kfd, rfd, status;
	char longname[600];
	pid_t child;

	printf("TAP version 13\n1..%d\n", NTESTS);
	diag("probed function: %s", FUNC);

	/* 1 */
	k = kprobe_pmu_init();
	if (!check(k == 0, "%s: type %d, format/retprobe config:%d", KPROBE_PMU,
		   kprobe_pmu_type, kprobe_pmu_retbit))
		return tap_done(NTESTS);

	/* 2, 3 */
	kfd = perf_kprobe_open(FUNC, 0, 0, 0, 1);
	check(kfd >= 0, "perf_event_open: kprobe on %s (%s)", FUNC,
	      kfd >= 0 ? "ok" : strerror(errno));
	rfd = perf_kprobe_open(FUNC, 0, 1, 0, 1);
	check(rfd >= 0, "perf_event_open: kretprobe on %s (%s)", FUNC,
	      rfd >= 0 ? "ok" : strerror(errno));
	if (kfd < 0 || rfd < 0)
		return tap_done(NTESTS);

	/* 4 */
	check(probes_listed(FUNC, 'k') == 1 && probes_listed(FUNC, 'r') == 1,
	      "kprobes/list: one k and one r probe on %s (got %d, %d)", FUNC,
	      probes_listed(FUNC, 'k'), probes_listed(FUNC, 'r'));

	/* 5: opened disabled, they count nothing */
	call_getppid(3);
	k = perf_count(kfd);
	r = perf_count(rfd);
	check(k == 0 && r == 0, "disabled: 3 calls, counts 0 and 0 (got %lld, %lld)",
	      k, r);

	/* 6 */
	check(ioctl(kfd, PERF_EVENT_IOC_ENABLE, 0) == 0 &&
	      ioctl(rfd, PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "PERF_EVENT_IOC_ENABLE both");

	/* 7, 8: exact counts */
	call_getppid(7);
	k = perf_count(kfd);
	r = perf_count(rfd);
	check(k == 7, "kprobe: 7 calls, count 7 (got %lld)", k);
	check(r == 7, "kretprobe: 7 calls, count 7 (got %lld)", r);

	/* 9: another task's calls are not this task's events' */
	child = fork();
	if (child == 0) {
		call_getppid(5);
		_exit(0);
	}
	waitpid(child, &status, 0);
	k0 = k;
	r0 = r;
	k = perf_count(kfd);
	r = perf_count(rfd);
	check(child > 0 && k == k0 && r == r0,
	      "a child's 5 calls: counts stay %lld, %lld (got %lld, %lld)",
	      k0, r0, k, r);

	/* 10: disabled again */
	ioctl(kfd, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(rfd, PERF_EVENT_IOC_DISABLE, 0);
	call_getppid(2);
	k = perf_count(kfd);
	r = perf_count(rfd);
	check(k == 7 && r == 7, "disabled: 2 more calls, counts stay 7 (got %lld, %lld)",
	      k, r);

	/* 11: closing the events unregisters their probes */
	close(kfd);
	close(rfd);
	check(probes_listed(FUNC, 'k') == 0 && probes_listed(FUNC, 'r') == 0,
	      "closed: no probe left on %s (got %d, %d)", FUNC,
	      probes_listed(FUNC, 'k'), probes_listed(FUNC, 'r'));

	/* 12..16: what perf_event_open() must refuse, and with which errno */
	expect_refused("an unknown function", "kpperf_no_such_function", 0, 0, ENOENT);
	expect_refused("a kretprobe on an unknown function",
		       "kpperf_no_such_function", 0, 1, ENOENT);
	expect_refused("blacklisted notify_die", "notify_die", 0, 0, EINVAL);
	expect_refused("a kretprobe at +0x20, not a function entry", FUNC,
		       0x20, 1, EINVAL);
	memset(longname, 'k', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_refused("a name longer than KSYM_NAME_LEN", longname, 0, 0,
		       E2BIG);

	return tap_done(NTESTS);
}
