#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprobe_events on a module's function: p: and r: events defined before the
# module is loaded (trace_kprobe keeps them pending and arms them when it
# comes), events defined while it is loaded, and the same events across an
# unload and a new load.
#
# The module is kprobe_module_target.ko (this directory): each write of N to
# its parameter "call" calls kpmt_target(N) once, which returns 3 * N + 1,
# and nothing else calls it, so the hits are exactly the writes.
#
# riscv64 (6.12) takes kprobe breakpoints in NMI context, where its ring
# buffer drops events: there the trace lines of p: events are checked only
# where they exist (kprobe_profile counts are exact on every arch).
#
# Output: kselftest TAP.  Busybox sh compatible.

T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes
G=kpme
MOD=kprobe_module_target
KO=$(dirname "$0")/$MOD.ko
P=/sys/module/$MOD/parameters
F=$MOD:kpmt_target
NTESTS=24

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

set -f
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

nmi_drops=${WS_NMI_DROPS:-}
[ -z "$nmi_drops" ] && [ "$(uname -m)" = riscv64 ] &&
	grep -q "ws.variant=upstream" /proc/cmdline &&
	nmi_drops="riscv drops trace events of the breakpoint handler (NMI context)"

check_trace() {
	name=$1
	shift
	if "$@"; then
		ok "$name"
	elif [ -n "$nmi_drops" ]; then
		skip "$name" "$nmi_drops"
	else
		not_ok "$name"
	fi
}

add_event() { echo "$1" >> $T/kprobe_events 2>/dev/null; }
loaded() { grep -q "^$MOD " /proc/modules; }
profile() { awk -v e="$2" -v c="$1" '$1 == e { print $c }' $T/kprobe_profile; }
# counts EVENT...: "hits/missed" of each event, space-separated
counts() {
	for e in "$@"; do
		printf "%s " "$(profile 2 "$e")/$(profile 3 "$e")"
	done
}
# call N...: one call of kpmt_target() per argument
call() {
	for v in "$@"; do
		echo "$v" > $P/call || return 1
	done
}
# the probes on kpmt_target in debugfs' kprobes/list, as "k r ..."
listed() {
	awk '$3 ~ /^kpmt_target\+/ { print $2 }' $D/list | sort | tr '\n' ' '
}
lines() { grep -cE "$1" $T/trace; }

remove_events() {
	[ -d $T/events/$G ] && echo 0 > $T/events/$G/enable
	for e in $(sed -n "s|^[pr][0-9]*:$G/\([^ ]*\) .*|\1|p" $T/kprobe_events); do
		echo "-:$G/$e" >> $T/kprobe_events
	done
}

echo "TAP version 13"
echo "1..$NTESTS"
remove_events
loaded && rmmod $MOD
echo > $T/trace

# 1..5: pending events, defined and enabled before the module exists.
# Until the module comes, trace_kprobe cannot tell whether MOD:SYM+OFF is a
# function entry, so a p: event there may not fetch $argN yet.
check "$MOD is not loaded, its kpmt_target unknown" \
	sh -c "! grep -q '^$MOD ' /proc/modules && ! grep -q ' kpmt_target' /proc/kallsyms"
if add_event "p:$G/mpend $F v=\$arg1:s64"; then
	not_ok "refused: p:$G/mpend $F v=\$arg1 before the module is loaded"
	echo "-:$G/mpend" >> $T/kprobe_events
else
	ok "refused: p:$G/mpend $F v=\$arg1 before the module is loaded"
fi
check "add p:$G/mpend $F (no \$argN) before the module is loaded" \
	add_event "p:$G/mpend $F"
check "add r:$G/mpend_ret $F ret=\$retval:s64 before the module is loaded" \
	add_event "r:$G/mpend_ret $F ret=\$retval:s64"
check "enable both pending events" sh -c "echo 1 > $T/events/$G/enable"

# 6..9: the module comes: the pending events arm themselves
check "insmod $MOD.ko" insmod "$KO"
l=$(listed)
check "kprobes/list: a k and an r probe on kpmt_target (got: $l)" test "$l" = "k r "
call 1 2 3 4
c=$(counts mpend mpend_ret)
check "4 calls: mpend and mpend_ret 4 hits, 0 missed (got: $c)" \
	test "$c" = "4/0 4/0 "
check "the module counted 4 calls, last returned 13" \
	test "$(cat $P/calls):$(cat $P/last)" = "4:13"

# 10, 11: their trace lines, and the return values
n=$(lines " mpend: \(kpmt_target\+0x[0-9a-f]+/0x[0-9a-f]+ \[$MOD\]\)$")
[ "$n" = 4 ] || grep -m 4 " mpend: " $T/trace | sed 's/^/# /'
check_trace "trace: 4 mpend lines (got $n)" test "$n" = 4
n=0
for r in 4 7 10 13; do
	[ "$(lines " mpend_ret: \(.* <- kpmt_target\) ret=$r$")" = 1 ] && n=$((n + 1))
done
[ $n = 4 ] || grep -m 4 " mpend_ret: " $T/trace | sed 's/^/# /'
check "trace: one mpend_ret line for each of ret=4,7,10,13 (got $n)" test $n = 4

# 12..16: events defined while the module is loaded, next to the others
check "add p:$G/mlate $F v=\$arg1:s64 with the module loaded" \
	add_event "p:$G/mlate $F v=\$arg1:s64"
check "add r:$G/mlate_ret $F ret=\$retval:s64 with the module loaded" \
	add_event "r:$G/mlate_ret $F ret=\$retval:s64"
echo 1 > $T/events/$G/enable
call 5 6
c=$(counts mpend mpend_ret mlate mlate_ret)
check "2 more calls: 6, 6, 2, 2 hits, 0 missed (got: $c)" \
	test "$c" = "6/0 6/0 2/0 2/0 "
at=" mlate: \(kpmt_target\+0x[0-9a-f]+/0x[0-9a-f]+ \[$MOD\]\)"
n=$(lines "$at v=5$"):$(lines "$at v=6$")
check_trace "trace: mlate saw v=5 and v=6 once each (got $n)" test "$n" = 1:1
at=" mlate_ret: \(.* <- kpmt_target\)"
n=$(lines "$at ret=16$"):$(lines "$at ret=19$")
check "trace: mlate_ret saw ret=16 and ret=19 once each (got $n)" test "$n" = 1:1

# 17: refused: an unknown function of a loaded module
if add_event "p:$G/mbad $MOD:kpmt_no_such_function"; then
	not_ok "refused: p: on $MOD:kpmt_no_such_function"
	echo "-:$G/mbad" >> $T/kprobe_events
else
	ok "refused: p: on $MOD:kpmt_no_such_function"
fi

# 18..21: unloaded with the events enabled, loaded again: they come back
check "rmmod $MOD with its events enabled" rmmod $MOD
# (r: events list as rN: once registered, N the kretprobe's maxactive, if
# register_kretprobe() filled in its default)
check "the events stay defined without their module" sh -c \
	"test \$(grep -c '^[pr][0-9]*:$G/m' $T/kprobe_events) = 4"
check "insmod $MOD.ko again" insmod "$KO"
call 7
c=$(counts mpend mpend_ret mlate mlate_ret)
check "1 call after the new load: 7, 7, 3, 3 hits, 0 missed (got: $c)" \
	test "$c" = "7/0 7/0 3/0 3/0 "

# 22: disabled events count nothing
echo 0 > $T/events/$G/enable
call 8 9
c=$(counts mpend mpend_ret mlate mlate_ret)
check "disabled: 2 calls, counts stay (got: $c)" \
	test "$c" = "7/0 7/0 3/0 3/0 "

# 23, 24: cleanup
remove_events
check "events removed: none of $G left, no probe on kpmt_target" sh -c \
	"! grep -q ':$G/' $T/kprobe_events && test -z \"\$(awk '\$3 ~ /^kpmt_target\\+/' $D/list)\""
check "rmmod $MOD" rmmod $MOD

if [ $N != $NTESTS ]; then
	echo "not ok $((N + 1)) - ran $N tests, planned $NTESTS"
	FAIL=$((FAIL + 1))
fi
diag "$FAIL failed"
[ $FAIL = 0 ]
