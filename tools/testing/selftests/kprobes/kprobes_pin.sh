#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Probe handlers in a module pin it while another module has them
# registered: kprobes_pin_b.ko registers a kprobe and a kretprobe on
# ksys_sync() with kprobes_pin_a.ko's handlers.  Then kprobes_pin_a cannot
# be unloaded (its refcount counts the two probes) until kprobes_pin_b
# unregisters them, or goes without doing so (leak=1) and the core does it.
# kprobes_pin_a's own probe, with its own handler, does not pin it.  A
# probe whose handlers are in two modules besides the registrant is refused
# (kprobes_pin_b.ko mixed=1, with kprobes_pin_c.ko).
#
# Output: kselftest TAP.  Busybox sh compatible.

D=/sys/kernel/debug/kprobes
A=/sys/module/kprobes_pin_a
B=/sys/module/kprobes_pin_b
NTESTS=20

N=0
FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
nlines() { grep -c ' ksys_sync+' $D/list; }
refcnt() { cat "$1/refcnt" 2>/dev/null || echo none; }
counts() { echo "$(cat $A/parameters/pre) $(cat $A/parameters/ret) $(cat $A/parameters/own)"; }

cd "$(dirname "$0")" || exit 1
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
echo "TAP version 13"
echo "1..$NTESTS"

# Upstream 6.12 pins no handler module, and keeps a gone module's probes.
if grep -q "ws.variant=upstream" /proc/cmdline; then
	i=0
	while [ $i -lt $NTESTS ]; do
		i=$((i + 1))
		echo "ok $i - handler modules # SKIP upstream does not pin them"
	done
	exit 0
fi

before=$(nlines)
check "insmod kprobes_pin_a.ko" insmod ./kprobes_pin_a.ko
check "its own probe (its own handler) is listed and leaves it unpinned: refcnt $(refcnt $A)" \
	test "$(nlines)" = $((before + 1)) -a "$(refcnt $A)" = 0
check "insmod kprobes_pin_b.ko (registers kprobes_pin_a's handlers)" \
	insmod ./kprobes_pin_b.ko
check "kprobes_pin_a pinned once per probe: refcnt $(refcnt $A), want 2" \
	test "$(refcnt $A)" = 2
check "kprobes_pin_b itself unpinned: refcnt $(refcnt $B)" test "$(refcnt $B)" = 0
sync; sync; sync
check "3 syncs: pre, ret, own handler calls $(counts), want 3 3 3" \
	test "$(counts)" = "3 3 3"
rmmod kprobes_pin_a 2>/dev/null
check "rmmod kprobes_pin_a refused while its handlers are registered" \
	test -d $A -a "$(refcnt $A)" = 2
sync
check "its handlers still run: $(counts), want 4 4 4" test "$(counts)" = "4 4 4"
check "rmmod kprobes_pin_b" rmmod kprobes_pin_b
check "its probes are gone and kprobes_pin_a unpinned: refcnt $(refcnt $A)" \
	test "$(nlines)" = $((before + 1)) -a "$(refcnt $A)" = 0

# kprobes_pin_b goes without unregistering: the core does it, and unpins.
check "insmod kprobes_pin_b.ko leak=1" insmod ./kprobes_pin_b.ko leak=1
check "kprobes_pin_a pinned again: refcnt $(refcnt $A)" test "$(refcnt $A)" = 2
dmesg -c > /dev/null 2>&1
check "rmmod kprobes_pin_b (leaving its probes registered)" rmmod kprobes_pin_b
check "the core unregistered them, naming kprobes_pin_b" \
	sh -c "dmesg | grep -q 'module kprobes_pin_b unloaded with 2 probes still registered'"
check "kprobes_pin_a unpinned: refcnt $(refcnt $A)" test "$(refcnt $A)" = 0
check "rmmod kprobes_pin_a, no probe of either left on ksys_sync" \
	sh -c "rmmod kprobes_pin_a && test \"\$(grep -c ' ksys_sync+' $D/list)\" = $before"

# Handlers in kprobes_pin_a and kprobes_pin_c, registered by kprobes_pin_b.
insmod ./kprobes_pin_a.ko && insmod ./kprobes_pin_c.ko
check "insmod kprobes_pin_b.ko mixed=1" insmod ./kprobes_pin_b.ko mixed=1
mixed=$(cat $B/parameters/mixed_ret 2>/dev/null)
check "handlers in two other modules: $mixed, want -22 (-EINVAL)" \
	test "$mixed" = -22
C=/sys/module/kprobes_pin_c
check "it pins neither: refcnt A $(refcnt $A) (B's 2 probes), C $(refcnt $C)" \
	test "$(refcnt $A)" = 2 -a "$(refcnt $C)" = 0
check "rmmod kprobes_pin_b kprobes_pin_c kprobes_pin_a" \
	sh -c "rmmod kprobes_pin_b && rmmod kprobes_pin_c && rmmod kprobes_pin_a"

if [ $N != $NTESTS ]; then
	echo "not ok $((N + 1)) - ran $N tests, planned $NTESTS"
	FAIL=$((FAIL + 1))
fi
echo "# $FAIL failed"
[ $FAIL = 0 ]
