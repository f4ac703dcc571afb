#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Dynamic events on kprobes (tracefs kprobe_events): p: and r: events by
# symbol and symbol+offset, $argN / +0($argN):ustring / $retval / $comm,
# registers (%REG: the first argument's and the return value's, which must
# equal $arg1 and $retval),
# r10: maxactive, several events on one address, kprobe_profile counts, and
# the definitions kprobe_events must refuse.
#
# Counts are exact where the kernel makes them so:
#  - ksys_sync() is called by sync(2) only: N `sync` commands, N hits;
#  - do_sys_openat2() is called by every open, but only this script opens
#    /tmp/kpse-none, from a subshell whose comm it sets to "kpsecomm": the
#    trace lines for that file name and comm are exactly the opens made.
#
# Arch notes:
#  - ppc64le (ELFv2, -mprofile-kernel): a probe on ksys_sync (offset 0) is
#    moved by the kernel past the global entry (TOC setup, +0x0..+0x7) to
#    the local entry (+0x8) or, with kprobes on ftrace, to the ftrace call
#    (+0xc).  The offset it really got is read from debugfs kprobes/list,
#    and the trace lines name that offset.  Offsets inside the global entry
#    never run (sys_sync calls ksys_sync at its local entry), and the
#    kernel still counts offsets up to +0x10 as the function entry for a
#    kretprobe (arch_kprobe_on_func_entry()), so the mid-function offset is
#    the first instruction boundary past +0x10.
#  - riscv64 (6.12) takes kprobe breakpoints in NMI context, and its ring
#    buffer drops events there without ARCH_HAVE_NMI_SAFE_CMPXCHG, which
#    only the series selects: on upstream, p: events are counted in
#    kprobe_profile but may not reach the trace (an optimized probe's do),
#    so a failed trace check of p: events is a skip there (r: events, run
#    from the return trampoline, do reach it and are always checked).
#
# Output: kselftest TAP.  Busybox sh compatible.

T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes
G=kpse
NTESTS=22
NOPEN=4
NSYNC=6

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

# check_trace NAME COMMAND...: a check of p: events' trace lines; where
# the kernel drops them (see the arch notes above) a failure is a skip
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

set -f
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

arch=$(uname -m)
# ws/guest/tap.sh sets WS_NMI_DROPS but does not export it: same rule here.
nmi_drops=${WS_NMI_DROPS:-}
[ -z "$nmi_drops" ] && [ "$arch" = riscv64 ] &&
	grep -q "ws.variant=upstream" /proc/cmdline &&
	nmi_drops="riscv drops trace events of the breakpoint handler (NMI context)"

# The registers of the first argument and of the return value.
case "$arch" in
x86_64) rarg=di rret=ax ;;
aarch64) rarg=x0 rret=x0 ;;
riscv64) rarg=a0 rret=a0 ;;
ppc64le) rarg=r3 rret=r3 ;;
*) rarg=unknown-arch rret=unknown-arch ;;
esac

add_event() { echo "$1" >> $T/kprobe_events 2>/dev/null; }
# refused DEF: 0 if kprobe_events refuses DEF; an event it wrongly accepts is
# removed at once, so that the next check's name is free again.
refused() {
	add_event "$1" || return 0
	ev=${1%% *}
	echo "-:${ev#*:}" >> $T/kprobe_events
	return 1
}

remove_events() {
	[ -d $T/events/$G ] && echo 0 > $T/events/$G/enable
	for e in $(sed -n "s|^[pr][0-9]*:$G/\([^ ]*\) .*|\1|p" $T/kprobe_events); do
		echo "-:$G/$e" >> $T/kprobe_events
	done
}

profile() { awk -v e="$2" -v c="$1" '$1 == e { print $c }' $T/kprobe_profile; }

# lines PATTERN: trace lines matching the extended regex PATTERN
lines() { grep -cE "$1" $T/trace; }

run_sync() {
	i=0
	while [ $i -lt "$1" ]; do
		sync
		i=$((i + 1))
	done
}

echo "TAP version 13"
echo "1..$NTESTS"
remove_events
echo 0 > $T/tracing_on
echo > $T/trace
echo 1 > $T/tracing_on

# 1..3: definitions with fetch arguments
args="dfd=\$arg1:s32 rdfd=%$rarg:s32 name=+0(\$arg2):ustring comm=\$comm"
check "add p:$G/open do_sys_openat2 with \$arg1, %$rarg, +0(\$arg2):ustring, \$comm" \
	add_event "p:$G/open do_sys_openat2 $args"
check "add r:$G/open_ret do_sys_openat2 with \$retval, %$rret, \$comm" \
	add_event "r:$G/open_ret do_sys_openat2 ret=\$retval:s32 rret=%$rret:s32 comm=\$comm"
check "kprobe_events lists both definitions" sh -c \
	"grep -q '^p:$G/open do_sys_openat2 ' $T/kprobe_events &&
	 grep -q '^r[0-9]*:$G/open_ret do_sys_openat2 ' $T/kprobe_events"

# 4..6: a known number of opens of a known file by a known comm
echo 1 > $T/events/$G/enable
i=0
while [ $i -lt $NOPEN ]; do
	(echo -n kpsecomm > /proc/self/comm; : < /tmp/kpse-none) 2>/dev/null
	i=$((i + 1))
done
echo 0 > $T/events/$G/enable
at="\(do_sys_openat2\+0x[0-9a-f]+/0x[0-9a-f]+\)"
n=$(lines " open: $at dfd=-100 rdfd=-100 name=\"/tmp/kpse-none\" comm=\"kpsecomm\"$")
[ "$n" = $NOPEN ] || grep -m 3 " open: " $T/trace | sed 's/^/# /'
what="dfd=-100 rdfd=-100 (%$rarg) name=\"/tmp/kpse-none\" comm=\"kpsecomm\""
check_trace "trace: $NOPEN opens with $what (got $n)" test "$n" = $NOPEN
n=$(lines " open_ret: \(.* <- do_sys_openat2\) ret=-2 rret=-2 comm=\"kpsecomm\"$")
[ "$n" = $NOPEN ] || grep -m 3 " open_ret: " $T/trace | sed 's/^/# /'
check "trace: $NOPEN returns with ret=-2 (ENOENT) rret=-2 (%$rret) comm=\"kpsecomm\" (got $n)" \
	test "$n" = $NOPEN
h=$(profile 2 open)
hr=$(profile 2 open_ret)
check "kprobe_profile: open $h, open_ret $hr hits, both >= $NOPEN, no misses" \
	test "${h:-0}" -ge $NOPEN -a "${hr:-0}" -ge $NOPEN -a \
	"$(profile 3 open)$(profile 3 open_ret)" = 00

# 7..11: five events on ksys_sync, exact counts
# The offset the kernel gave a probe on ksys_sync (0x0 but on ppc64le, see
# the arch notes above), from debugfs kprobes/list.
add_event "p:$G/sync ksys_sync"
entry=$(sed -n 's/^[0-9a-f]*  *k  *ksys_sync+\(0x[0-9a-f]*\).*/\1/p' $D/list | head -n 1)
diag "a probe on ksys_sync is at ksys_sync+${entry:-?}"
case "$arch" in
ppc64le) entries=" 0x8 0xc " ;;
x86_64) entries=" 0x0 0x4 " ;;	# +0x4: after the ENDBR of an IBT kernel
*) entries=" 0x0 " ;;
esac
case "$entries" in *" $entry "*) ;; *) entry_ok=no ;; esac
# The mid-function offset: the first instruction boundary after the entry
# (on ppc64le, after +0x10).
o=$((${entry:-0} + 1))
[ "$arch" = ppc64le ] && [ $o -le 16 ] && o=17
lim=$((o + 63))
off=
while [ $o -lt $lim ] && [ -z "$off" ]; do
	add_event "p:$G/sync_off ksys_sync+$o" && off=$o
	o=$((o + 1))
done
diag "first instruction boundary after ksys_sync's entry: +$off"
check "add p:, a second p:, r:, r10: on ksys_sync (at +${entry:-?}), p: on ksys_sync+$off" sh -c \
	"test -n '$off' -a -n '$entry' -a '${entry_ok:-yes}' = yes &&
	 grep -q '^p:$G/sync ksys_sync' $T/kprobe_events &&
	 echo 'p:$G/sync2 ksys_sync' >> $T/kprobe_events &&
	 echo 'r:$G/sync_ret ksys_sync' >> $T/kprobe_events &&
	 echo 'r10:$G/sync_r10 ksys_sync' >> $T/kprobe_events"
check "kprobe_events lists r10:$G/sync_r10 ksys_sync" \
	grep -q "^r10:$G/sync_r10 ksys_sync" $T/kprobe_events
check "kprobe_events lists p:$G/sync_off ksys_sync+$off" \
	grep -qE "^p:$G/sync_off ksys_sync\+$off( |$)" $T/kprobe_events
echo > $T/trace
run_sync $NSYNC
c=$(profile 2 sync)
check "disabled events count nothing (sync: ${c:-none})" test "${c:-0}" = 0
echo 1 > $T/events/$G/enable
run_sync $NSYNC
echo 0 > $T/events/$G/enable
got=
want=
for e in sync sync2 sync_ret sync_r10 sync_off; do
	got="$got $e:$(profile 2 $e)/$(profile 3 $e)"
	want="$want $e:$NSYNC/0"
done
check "kprobe_profile: $NSYNC syncs, $NSYNC hits and no miss for each event" \
	test "$got" = "$want"
[ "$got" = "$want" ] && diag "$got"

# 12..16: the trace lines
check_trace "trace: $NSYNC lines of sync (ksys_sync+$entry)" \
	test "$(lines " sync: \(ksys_sync\+$entry/")" = $NSYNC
check_trace "trace: $NSYNC lines of sync2 (ksys_sync+$entry)" \
	test "$(lines " sync2: \(ksys_sync\+$entry/")" = $NSYNC
check "trace: $NSYNC lines of sync_ret (<- ksys_sync)" \
	test "$(lines " sync_ret: \(.* <- ksys_sync\)")" = $NSYNC
check "trace: $NSYNC lines of sync_r10" \
	test "$(lines " sync_r10: \(.* <- ksys_sync\)")" = $NSYNC
x=$(printf "0x%x" "${off:-0}")
check_trace "trace: $NSYNC lines of sync_off (ksys_sync+$x)" \
	test "$(lines " sync_off: \(ksys_sync\+$x/")" = $NSYNC

# 17..20: refused definitions, and one that is not
check "refused: an unknown symbol" refused "p:$G/bad kpse_no_such_function"
check "refused: an offset inside an instruction (ksys_sync+1)" \
	refused "p:$G/bad ksys_sync+1"
check "refused: a kretprobe not at a function entry (ksys_sync+$off)" \
	refused "r:$G/bad ksys_sync+${off:-4}"
# perf probe writes kernel probes as _text+N: an offset past the end of
# the symbol lands in the function N bytes away, a kretprobe at its entry.
ksym() { awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms; }
text_rel() {
	t=$(ksym _text)
	k=$(ksym ksys_sync)
	[ ${#t} = 16 ] && [ ${#k} = 16 ] || return 1
	# The low 32 bits: the shell's arithmetic is signed.
	rel=$((0x${k#????????} - 0x${t#????????}))
	[ $rel -gt 0 ] || return 1
	diag "ksys_sync is _text+$rel"
	add_event "p:$G/far _text+$rel" && add_event "r:$G/far_ret _text+$rel" &&
		grep -q "^p:$G/far _text+$rel\$" $T/kprobe_events &&
		grep -q "^r[0-9]*:$G/far_ret _text+$rel\$" $T/kprobe_events
}
check "_text+N (perf probe's form) is accepted for p: and r: at ksys_sync" text_rel

# 21, 22: removal
remove_events
check "all $G events removed" sh -c "! grep -q ':$G/' $T/kprobe_events"
check "no $G event left in kprobe_profile" sh -c \
	"! awk '{ print \$1 }' $T/kprobe_profile |
	 grep -qE '^(open|open_ret|sync|sync2|sync_ret|sync_r10|sync_off)$'"

if [ $N != $NTESTS ]; then
	echo "not ok $((N + 1)) - ran $N tests, planned $NTESTS"
	FAIL=$((FAIL + 1))
fi
diag "$FAIL failed"
[ $FAIL = 0 ]
