#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprobes' debugfs files and sysctl, driven through kprobe_events:
#   /sys/kernel/debug/kprobes/list       probes, type, sym+off, flags
#   /sys/kernel/debug/kprobes/enabled    global arm/disarm
#   /sys/kernel/debug/kprobes/blacklist  0xSTART-0xEND<TAB>symbol
#   /proc/sys/debug/kprobes-optimization [OPTIMIZED] on and off
#
# Exact hit counts come from ksys_sync(), which only sync(2) calls: nothing
# else runs in the test guest, so N `sync` commands make exactly N hits.
#
# Output: kselftest TAP.  Checks of what only the series has (hits= and
# missed= in the list) run when the kernel command line says ws.variant=ours
# and are skipped with the reason on upstream.  Busybox sh compatible.
#
# Arch notes:
#  - ppc64le (ELFv2, -mprofile-kernel): a probe on ksys_sync (offset 0) is
#    moved by the kernel past the global entry (TOC setup, +0x0..+0x7) to
#    the local entry (+0x8) or, with kprobes on ftrace, to the ftrace call
#    (+0xc, listed [FTRACE]).  The checks use the offset the list shows.
#    Offsets inside the global entry never run (sys_sync calls ksys_sync at
#    its local entry), so the search for an optimizable probe starts past
#    the entry sequence (after +0x10, the last offset the kernel still
#    counts as the function entry).
#  - riscv64 (6.12) takes kprobe breakpoints in NMI context, and its ring
#    buffer drops events there: hits are counted in kprobe_profile but the
#    trace may miss them, so trace line counts are only exact elsewhere.

T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes
OPT=/proc/sys/debug/kprobes-optimization
G=kpsd
NTESTS=22

N=0
FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
diag() { echo "# $*"; }
# check NAME COMMAND...: one result from a command's exit status
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

set -f	# list lines have [FLAGS] in them: no globbing of words

variant=unknown
for w in $(cat /proc/cmdline); do
	case "$w" in ws.variant=*) variant=${w#ws.variant=} ;; esac
done

[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

arch=$(uname -m)
# ws/guest/tap.sh sets WS_NMI_DROPS but does not export it: same rule here.
nmi_drops=${WS_NMI_DROPS:-}
[ -z "$nmi_drops" ] && [ "$arch" = riscv64 ] &&
	grep -q "ws.variant=upstream" /proc/cmdline &&
	nmi_drops="riscv drops trace events of the breakpoint handler (NMI context)"

# add_event DEF: add a kprobe event, 0 on success
add_event() { echo "$1" >> $T/kprobe_events 2>/dev/null; }

remove_events() {
	[ -d $T/events/$G ] && echo 0 > $T/events/$G/enable
	for e in $(sed -n "s|^[pr][0-9]*:$G/\([^ ]*\) .*|\1|p" $T/kprobe_events); do
		echo "-:$G/$e" >> $T/kprobe_events
	done
}

# The list lines of probes on ksys_sync+OFF (OFF as 0x..): "addr type sym+off ..."
list_lines() { grep " ksys_sync+$1[ 	]" $D/list; }
list_line() { list_lines "$1" | head -n 1; }

# hits COLUMN EVENT: hits (2) or misses (3) of EVENT in kprobe_profile
profile() { awk -v e="$2" -v c="$1" '$1 == e { print $c }' $T/kprobe_profile; }

run_sync() {
	i=0
	while [ $i -lt "$1" ]; do
		sync
		i=$((i + 1))
	done
}

# has STRING LINE
has() { case "$2" in *"$1"*) return 0 ;; esac; return 1; }

echo "TAP version 13"
echo "1..$NTESTS"
diag "variant: $variant, arch: $arch"
remove_events

# 1
check "debugfs has kprobes/list, enabled and blacklist" \
	test -r $D/list -a -w $D/enabled -a -r $D/blacklist
# 2
check "kprobes/enabled reads 1" test "$(cat $D/enabled 2>/dev/null)" = 1

# 3: a new event's probe is registered disabled, at the function's entry
# (ppc64le: its local entry or its ftrace call, see the arch notes above)
case "$arch" in
ppc64le) entries="0x8 0xc" ;;
x86_64) entries="0x0 0x4" ;;	# +0x4: after the ENDBR of an IBT kernel
*) entries="0x0" ;;
esac
add_event "p:$G/sync ksys_sync"
l=$(grep " ksys_sync+" $D/list | head -n 1)
diag "list: $l"
set -- $l
E=${3#ksys_sync+}
ent=no
for e in $entries; do [ "$E" = "$e" ] && ent=yes; done
if [ "$2" = k ] && [ $ent = yes ] && has "[DISABLED]" "$l"; then
	ok "list: a new event's probe is 'k ksys_sync+$E [DISABLED]' (entry: $entries)"
else
	not_ok "list: a new event's probe is 'k ksys_sync+($entries) [DISABLED]'"
	[ -n "$E" ] || E=0x0
fi

# 4
echo 1 > $T/events/$G/sync/enable
l=$(list_line $E)
diag "list: $l"
if [ -n "$l" ] && ! has "[DISABLED]" "$l"; then
	ok "list: enabling the event clears [DISABLED]"
else
	not_ok "list: enabling the event clears [DISABLED]"
fi

# 5: [FTRACE] exactly when ftrace has the probe's ops on ksys_sync
onftrace=no
grep -q "^ksys_sync" $T/enabled_functions 2>/dev/null && onftrace=yes
diag "ksys_sync in enabled_functions: $onftrace"
flagged=no
has "[FTRACE]" "$l" && flagged=yes
if [ "$(uname -m)" = x86_64 ] && [ $onftrace = no ]; then
	not_ok "list: [FTRACE] matches ftrace (x86_64 must use ftrace at entries)"
elif [ $flagged = $onftrace ]; then
	ok "list: [FTRACE] matches ftrace's enabled_functions ($onftrace)"
else
	not_ok "list: [FTRACE] matches ftrace's enabled_functions ($onftrace)"
fi

# 6, 7: exact counts
echo > $T/trace
run_sync 5
h=$(profile 2 sync)
check "kprobe_profile: 5 syncs, 5 hits (got ${h:-none})" test "${h:-0}" = 5
l=$(list_line $E)
if [ "$variant" = ours ]; then
	diag "list: $l"
	if has "hits=5" "$l" && has "missed=0" "$l"; then
		ok "list: hits=5 missed=0 after 5 syncs"
	else
		not_ok "list: hits=5 missed=0 after 5 syncs"
	fi
else
	skip "list: hits=5 missed=0 after 5 syncs" \
		"only the series' list has counts (variant: $variant)"
fi

# 8, 9, 10: the global switch
# The trace has the 5 lines of the syncs above (fewer where the kernel drops
# them: riscv, see the arch notes), and must get none while disarmed.
c0=$(grep -c " sync: (" $T/trace)
[ -z "$nmi_drops" ] || diag "trace: $c0 lines of 5 ($nmi_drops)"
echo 0 > $D/enabled
check "enabled=0: the probe stays listed" test -n "$(list_line $E)"
run_sync 3
h=$(profile 2 sync)
c=$(grep -c " sync: (" $T/trace)
check "enabled=0: 3 syncs, no hit (profile ${h:-none}, trace $c0 -> $c)" \
	sh -c "test '${h:-0}' = 5 -a '$c' = '$c0' && { test -n '$nmi_drops' || test '$c0' = 5; }"
echo 1 > $D/enabled
run_sync 2
h=$(profile 2 sync)
check "enabled=1: 2 syncs, 2 more hits (profile ${h:-none})" \
	test "${h:-0}" = 7 -a "$(cat $D/enabled)" = 1

# 11: aggregates: two probes at one address, two lines
add_event "p:$G/sync2 ksys_sync"
echo 1 > $T/events/$G/sync2/enable
check "list: two probes on ksys_sync+$E, two lines" \
	test "$(list_lines $E | wc -l)" = 2

# 12: a kretprobe
add_event "r:$G/sync_ret ksys_sync"
echo 1 > $T/events/$G/sync_ret/enable
check "list: a kretprobe is listed with type r" \
	sh -c "grep ' ksys_sync+$E[ 	]' $D/list | awk '\$2 == \"r\"' | grep -q ."
run_sync 1
check "one sync: each of the three probes hit once" test \
	"$(profile 2 sync):$(profile 2 sync2):$(profile 2 sync_ret)" = "8:1:1"

# 13..16: optimization
if [ ! -w $OPT ]; then
	for t in "sysctl: kprobes-optimization reads 1" \
		 "list: a probe inside ksys_sync becomes [OPTIMIZED]" \
		 "sysctl 0: [OPTIMIZED] gone, hits still counted" \
		 "sysctl 1: [OPTIMIZED] again"; do
		skip "$t" "no $OPT (kernel without CONFIG_OPTPROBES)"
	done
else
	check "sysctl: kprobes-optimization reads 1" test "$(cat $OPT)" = 1
	# The first instruction boundaries of ksys_sync after its entry (on
	# ppc64le after +0x10), until one optimizes.
	found=
	off=$((E + 1))
	[ "$arch" = ppc64le ] && [ $off -le 16 ] && off=17
	lim=$((off + 63))
	tries=0
	while [ $off -lt $lim ] && [ -z "$found" ] && [ $tries -lt 12 ]; do
		if add_event "p:$G/opt ksys_sync+$off"; then
			tries=$((tries + 1))
			echo 1 > $T/events/$G/opt/enable
			x=$(printf "0x%x" $off)
			i=0
			while [ $i -lt 4 ] && [ -z "$found" ]; do
				sleep 1
				has "[OPTIMIZED]" "$(list_line $x)" && found=$x
				i=$((i + 1))
			done
			if [ -z "$found" ]; then
				diag "not optimized: $(list_line $x)"
				echo 0 > $T/events/$G/opt/enable
				echo "-:$G/opt" >> $T/kprobe_events
			fi
		fi
		off=$((off + 1))
	done
	if [ -n "$found" ]; then
		ok "list: a probe inside ksys_sync becomes [OPTIMIZED] (+$found)"
		echo 0 > $OPT
		i=0
		while [ $i -lt 5 ] && has "[OPTIMIZED]" "$(list_line $found)"; do
			sleep 1
			i=$((i + 1))
		done
		l=$(list_line $found)
		diag "list: $l"
		h0=$(profile 2 opt)
		run_sync 2
		h=$(profile 2 opt)
		if [ -n "$l" ] && ! has "[OPTIMIZED]" "$l" &&
		   [ "$h" = $((h0 + 2)) ]; then
			ok "sysctl 0: [OPTIMIZED] gone, hits still counted"
		else
			not_ok "sysctl 0: [OPTIMIZED] gone, hits still counted ($h0 -> $h)"
		fi
		echo 1 > $OPT
		i=0
		while [ $i -lt 5 ] && ! has "[OPTIMIZED]" "$(list_line $found)"; do
			sleep 1
			i=$((i + 1))
		done
		run_sync 1
		h2=$(profile 2 opt)
		if has "[OPTIMIZED]" "$(list_line $found)" && [ "$h2" = $((h + 1)) ]; then
			ok "sysctl 1: [OPTIMIZED] again"
		else
			not_ok "sysctl 1: [OPTIMIZED] again ($(list_line $found), hits $h -> $h2)"
		fi
	else
		not_ok "list: a probe inside ksys_sync becomes [OPTIMIZED]"
		not_ok "sysctl 0: [OPTIMIZED] gone, hits still counted # no optimized probe"
		not_ok "sysctl 1: [OPTIMIZED] again # no optimized probe"
	fi
fi

# 17, 18, 19: the blacklist
bad=$(awk '!/^0x[0-9a-f]+-0x[0-9a-f]+\t[^ \t]+$/' $D/blacklist | head -n 3)
[ -n "$bad" ] && diag "bad blacklist lines: $bad"
nbl=$(wc -l < $D/blacklist)
check "blacklist: $nbl lines of 0xSTART-0xEND<TAB>symbol" \
	test -z "$bad" -a "$nbl" -gt 0
l=$(awk -F'\t' '$2 == "notify_die"' $D/blacklist | head -n 1)
diag "blacklist: $l"
s=${l%%-*}
e=${l#*-}
e=${e%%	*}
check "blacklist: lists notify_die, start < end" \
	test -n "$l" -a "$(printf '%s\n%s\n' "$s" "$e" | sort | head -n 1)" = "$s" -a "$s" != "$e"
if add_event "p:$G/bad notify_die"; then
	not_ok "kprobe_events: a probe on blacklisted notify_die is refused"
else
	ok "kprobe_events: a probe on blacklisted notify_die is refused"
fi

# 20, 21: cleanup
remove_events
check "events removed: no probe left on ksys_sync" \
	sh -c "! grep -q ' ksys_sync+' $D/list"
check "kprobes/enabled and kprobes-optimization restored" \
	sh -c "test \"\$(cat $D/enabled)\" = 1 && { ! test -e $OPT || test \"\$(cat $OPT)\" = 1; }"

if [ $N != $NTESTS ]; then
	echo "not ok $((N + 1)) - ran $N tests, planned $NTESTS"
	FAIL=$((FAIL + 1))
fi
diag "$FAIL failed"
[ $FAIL = 0 ]
