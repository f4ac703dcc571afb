#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# samples/kprobes in the guest: kprobe_example.ko and kretprobe_example.ko
# (built with the kernel, in /lib/ws-modules) on kpmt_target() of
# kprobe_module_target.ko (this directory), which returns 3 * N + 1 when N
# is written to its parameter "call" and is called by nothing else.  Three
# calls must print three pre and post handler lines, the three return
# values, and, on unload, the totals.
#
# The series' samples print "pre:  SYM+OFF hit by ...", "post: SYM+OFF
# done, ...", "SYM returned VAL to ..." and totals on unload; upstream's
# print "handler_pre: <SYM> ..." and "handler_post: <SYM> ..." (see
# ws/guest/run.sh) and, on unload, only kretprobe_example's "Missed probing
# N instances of SYM": the hit totals are checked on the series only.
#
# Output: kselftest TAP.  Busybox sh compatible.

D=/sys/kernel/debug/kprobes
M=/lib/ws-modules
MOD=kprobe_module_target
KO=$(dirname "$0")/$MOD.ko
P=/sys/module/$MOD/parameters
NTESTS=11

N=0
FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
diag() { echo "# $*"; }
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

variant=unknown
for w in $(cat /proc/cmdline); do
	case "$w" in ws.variant=*) variant=${w#ws.variant=} ;; esac
done

[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mark="kpsamples: begin $$"
echo "$mark" > /dev/kmsg
# the kernel messages since this script began
msgs() { dmesg | sed -n "/$mark/,\$p"; }
count() { msgs | grep -cE "$1"; }
listed() {
	awk '$3 ~ /^kpmt_target\+/ { print $2 }' $D/list | sort | tr '\n' ' '
}

echo "TAP version 13"
echo "1..$NTESTS"
diag "variant: $variant"
grep -q "^$MOD " /proc/modules || insmod "$KO"

# 1..3
check "insmod kprobe_example.ko symbol=kpmt_target" \
	insmod $M/kprobe_example.ko symbol=kpmt_target
check "insmod kretprobe_example.ko func=kpmt_target" \
	insmod $M/kretprobe_example.ko func=kpmt_target
l=$(listed)
check "kprobes/list: a k and an r probe on kpmt_target (got: $l)" test "$l" = "k r "

# 4..6: three calls
for v in 1 2 3; do
	echo $v > $P/call
done
n=$(count "(handler_pre: <kpmt_target>|kprobe_example: pre: +kpmt_target\+0x[0-9a-f]+ hit by )")
check "3 calls: 3 pre handler lines (got $n)" test "$n" = 3
n=$(count "(handler_post: <kpmt_target>|kprobe_example: post: kpmt_target\+0x[0-9a-f]+ done)")
check "3 calls: 3 post handler lines (got $n)" test "$n" = 3
n=0
for r in 4 7 10; do
	[ "$(count "kpmt_target returned ${r}[^0-9]")" = 1 ] && n=$((n + 1))
done
check "kretprobe_example: one line for each of 4, 7, 10 returned (got $n)" test $n = 3
[ $n = 3 ] || msgs | grep "kpmt_target" | sed 's/^/# /'

# 7..11: unload, the totals
check "rmmod kprobe_example kretprobe_example" \
	rmmod kprobe_example kretprobe_example
if [ "$variant" = upstream ]; then
	skip "kprobe_example: 3 pre, 3 post, 0 missed on unload" \
		"upstream's kprobe_example prints no totals"
	n=$(count "Missed probing 0 instances of kpmt_target$")
	check "kretprobe_example: 'Missed probing 0 instances' on unload (upstream)" \
		test "$n" = 1
else
	at="kprobe_example: probe on kpmt_target\+0x[0-9a-f]+ removed:"
	n=$(count "$at 3 pre, 3 post, 0 missed$")
	check "kprobe_example: 3 pre, 3 post, 0 missed on unload" test "$n" = 1
	at="kretprobe_example: return probe on kpmt_target removed:"
	n=$(count "$at 3 returns reported, 0 missed$")
	check "kretprobe_example: 3 returns, 0 missed on unload" test "$n" = 1
fi
check "no probe left on kpmt_target" test -z "$(listed)"
check "rmmod $MOD" rmmod $MOD

if [ $N != $NTESTS ]; then
	echo "not ok $((N + 1)) - ran $N tests, planned $NTESTS"
	FAIL=$((FAIL + 1))
fi
diag "$FAIL failed"
[ $FAIL = 0 ]
