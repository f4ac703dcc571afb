/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the static test programs of kprobes' clients (kprobe_perf.c,
 * kprobe_bpf.c): kselftest TAP, sysfs and debugfs files, perf's kprobe PMU.
 */
#ifndef KPROBE_CLIENTS_H
#define KPROBE_CLIENTS_H

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The function a system call's table entry points to: the one that only
 * that system call reaches, and that ALLOW_ERROR_INJECTION() marks.
 */
#if defined(__x86_64__)
#define SYS_PREFIX "__x64_sys_"
#elif defined(__aarch64__)
#define SYS_PREFIX "__arm64_sys_"
#elif defined(__riscv)
#define SYS_PREFIX "__riscv_sys_"
#elif defined(__powerpc64__)
#define SYS_PREFIX "sys_"
#else
#error "what are this arch's system call functions called?"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe"
#define KPROBES_LIST "/sys/kernel/debug/kprobes/list"

static int tap_n, tap_fails;

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* One result; the name is printed after "ok N - ". */
static inline int check(int ok, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!ok)
		tap_fails++;
	printf("%sok %d - ", ok ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

static inline void skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %d - ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

/* The end of the TAP: the plan must have been met. */
static inline int tap_done(int planned)
{
	if (tap_n != planned) {
		printf("not ok %d - ran %d tests, planned %d\n", tap_n + 1,
		       tap_n, planned);
		tap_fails++;
	}
	diag("%d failed", tap_fails);
	return tap_fails ? 1 : 0;
}

/* The first line of a file, without its newline; -1 with errno set. */
static inline int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, size, f)) {
		fclose(f);
		errno = ENODATA;
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Write a string to a file; 0, or -1 with the write's errno. */
static inline int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	if (n == (ssize_t)strlen(s))
		return 0;
	errno = n < 0 ? err : EIO;
	return -1;
}

/* The address of function @sym in /proc/kallsyms, or 0. */
static inline unsigned long long sym_addr(const char *sym)
{
	char line[512], name[256], t;
	unsigned long long a, found = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 &&
		    (t == 't' || t == 'T') && !strcmp(name, sym))
			found = a;
	fclose(f);
	return found;
}

/*
 * The probes of type @type ('k' or 'r') that debugfs' kprobes/list shows
 * in the first 0x20 bytes of function @sym, or -1 if it cannot tell.  By
 * address: where functions share an address (x86's __x64_sys_getppid and
 * __do_sys_getppid), the list may name either.
 */
static inline int probes_listed(const char *sym, char type)
{
	unsigned long long a, start = sym_addr(sym);
	char line[512], t[8];
	int n = 0;
	FILE *f;

	f = fopen(KPROBES_LIST, "r");
	if (!f || !start) {
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %7s", &a, t) == 2 && t[0] == type &&
		    !t[1] && a >= start && a < start + 0x20)
			n++;
	fclose(f);
	return n;
}

/* perf's kprobe PMU: its type, and the config bit that makes a kretprobe. */
static int kprobe_pmu_type = -1, kprobe_pmu_retbit = -1;

static inline int kprobe_pmu_init(void)
{
	char buf[64];

	if (read_line(KPROBE_PMU "/type", buf, sizeof(buf)) == 0)
		kprobe_pmu_type = atoi(buf);
	if (read_line(KPROBE_PMU "/format/retprobe", buf, sizeof(buf)) == 0 &&
	    !strncmp(buf, "config:", 7))
		kprobe_pmu_retbit = atoi(buf + 7);
	return kprobe_pmu_type > 0 && kprobe_pmu_retbit >= 0 &&
	       kprobe_pmu_retbit < 64 ? 0 : -1;
}

/*
 * A kprobe (or kretprobe) perf event on @func+@offset, counting for task
 * @pid (0: the caller) on any CPU; -1 with errno set on failure.
 */
static inline int perf_kprobe_open(const char *func, uint64_t offset,
				   int retprobe, pid_t pid, int disabled)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = kprobe_pmu_type;
	attr.config = retprobe ? 1ULL << kprobe_pmu_retbit : 0;
	attr.config1 = (uint64_t)(uintptr_t)func;	/* kprobe_func */
	attr.config2 = offset;				/* probe_offset */
	attr.disabled = disabled;
	return syscall(SYS_perf_event_open, &attr, pid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* A perf event's count, or -1. */
static inline long long perf_count(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return (long long)v;
}

#endif /* KPROBE_CLIENTS_H */
