#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# jprobes through a module: jprobes_selftest.ko (built from this directory's
# Kbuild when the kernel has CONFIG_JPROBES) puts a jprobe on ksys_sync(),
# which only sync(2) calls: N `sync` commands are exactly N handler calls.
# Checks that the probe is listed as type 'j' in debugfs kprobes/list with
# its hits, that its handler runs once per call and that sync keeps working,
# and that it is gone once the module is removed.
#
# Output: kselftest TAP.  Without the module (no CONFIG_JPROBES, e.g.
# upstream) every check is skipped with the reason.  Busybox sh compatible.

D=/sys/kernel/debug/kprobes
P=/sys/module/jprobes_selftest/parameters/hits
KO=${0%/*}/jprobes_selftest.ko
NTESTS=5

N=0
FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
diag() { echo "# $*"; }
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

set -f

run_sync() {
	i=0
	while [ $i -lt "$1" ]; do
		sync || return 1
		i=$((i + 1))
	done
}

# The list lines of jprobes on ksys_sync: "addr  j  ksys_sync+0x..  ..."
jlines() { grep -E "^[0-9a-f]+  j  ksys_sync\+0x[0-9a-f]+" $D/list; }

echo "TAP version 13"
echo "1..$NTESTS"
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

if [ ! -f "$KO" ]; then
	why="no jprobes_selftest.ko (kernel without CONFIG_JPROBES)"
	# Only upstream has no jprobes: with the series, that is a failure.
	if grep -q "ws.variant=upstream" /proc/cmdline; then
		skip "insmod jprobes_selftest.ko" "$why"
	else
		check "insmod jprobes_selftest.ko ($why)" false
	fi
	skip "list: the jprobe is 'j ksys_sync+...'" "$why"
	skip "5 syncs, 5 handler calls" "$why"
	skip "list: hits=5 missed=0" "$why"
	skip "rmmod: no jprobe left" "$why"
	[ $FAIL = 0 ]
	exit
fi

check "insmod jprobes_selftest.ko" insmod "$KO"
l=$(jlines)
diag "list: $l"
check "list: the jprobe is 'j ksys_sync+...'" test "$(jlines | wc -l)" = 1

run_sync 5
h=$(cat $P 2>/dev/null)
check "5 syncs, 5 handler calls (got ${h:-none})" test "${h:-0}" = 5
l=$(jlines)
diag "list: $l"
case "$l" in
*"hits=5 missed=0"*) ok "list: hits=5 missed=0" ;;
*) not_ok "list: hits=5 missed=0" ;;
esac

rmmod jprobes_selftest
run_sync 1 && [ -z "$(jlines)" ]
check "rmmod: no jprobe left, sync works" test $? = 0

if [ $N != $NTESTS ]; then
	echo "not ok $((N + 1)) - ran $N tests, planned $NTESTS"
	FAIL=$((FAIL + 1))
fi
diag "$FAIL failed"
[ $FAIL = 0 ]
