#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: probes whose text, owner or task goes away.
#  - probes on a module's function across its unload ([GONE] in
#    kprobes/list, enable/disable -EINVAL) and reload (registered again,
#    hits again), and a kprobe_events probe on it, which trace_kprobe
#    re-arms at the reload;
#  - the module owning probes unloaded while they fire on every CPU;
#  - a kretprobe unregistered (by unloading its owner) while a call sleeps
#    in the probed function, which returns later;
#  - kretprobes on a path that ends its thread, on a recursion deeper than
#    maxactive, on more sleeping callers than instances (exact nmissed), and
#    across exec;
#  - a probe on module init text after init is refused, kprobes/list
#    unchanged.
# kprobes_lifecycle.ko checks what it can see from inside (each ctl write
# fails if a check failed; details in the kernel log).
#
# Output: kselftest TAP.  Busybox sh compatible.

D=/sys/kernel/debug/kprobes
T=/sys/kernel/tracing
C=/sys/kernel/debug/kprobes_lifecycle/ctl
LT=/sys/kernel/debug/kprobes_lc_target

N=0
FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
nap() { sleep "$1" 2>/dev/null || sleep 1; }
ctl() { echo "$1" > $C; }
# lines of kprobes/list on lct_func (kprobe_events: kprobes_lc_target:lct_func),
# at its entry: +0x0 while gone, where the arch puts it while live (ppc64le:
# the local entry or the ftrace call)
func_lines() { grep '[ :]lct_func+0x[0-9a-f]*[ 	]' $D/list; }
nfunc() { func_lines | grep -c "$1"; }
status() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" $LT/status; }
profile_hits() { awk -v e="$1" '$1 == e { print $2 }' $T/kprobe_profile; }
event_hits_above() { h=$(profile_hits lcev_f); [ "${h:-0}" -gt "$1" ]; }
no_sleepers() { [ "$(status sleepers)" = 0 ]; }
show_list() { func_lines | while IFS= read -r l; do echo "# list: $l"; done; }
# wait_for COMMAND...: poll COMMAND every 0.1 s, for up to 20 s
wait_for() {
	_w=0
	while ! "$@"; do
		_w=$((_w + 1))
		[ $_w -lt 200 ] || return 1
		nap 0.1
	done
}

cd "$(dirname "$0")" || exit 1
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null

# The checks are this series' semantics: a gone probe refuses enable and
# disable (upstream returns 0), unregistration clears a by-symbol probe's
# .addr, module init text is refused by address with -EINVAL.  Upstream 6.12
# also oopses in unregister_kretprobe() once the kretprobe's module is gone
# (a NULL write in unregister_kretprobes(), seen on x86_64): skip it there.
if grep -q "ws.variant=upstream" /proc/cmdline; then
	echo "ok 1 - lifecycle # SKIP the series' lifecycle semantics; upstream 6.12 oopses here"
	echo "1..1"
	exit 0
fi

# 1. Probes on a module's function across its unload and reload.
check "lifecycle: insmod kprobes_lc_target" insmod ./kprobes_lc_target.ko
check "lifecycle: insmod kprobes_lifecycle" insmod ./kprobes_lifecycle.ko
check "lifecycle: kprobe and kretprobe on lct_func" ctl reg
check "lifecycle: both count calls of lct_func" ctl wait_hits
check "lifecycle: kprobes/list shows both, live" \
	test "$(nfunc '')" = 2 -a "$(nfunc GONE)" = 0
check "lifecycle: kprobe event on kprobes_lc_target:lct_func" sh -c \
	"echo 'p:lcev/lcev_f kprobes_lc_target:lct_func' >> $T/kprobe_events &&
	 echo 1 > $T/events/lcev/enable"
check "lifecycle: rmmod kprobes_lc_target under probes" rmmod kprobes_lc_target
check "lifecycle: kprobes/list shows the three probes [GONE]" \
	test "$(nfunc GONE)" = 3 -a "$(nfunc '')" = 3
check "lifecycle: gone probes: enable/disable -EINVAL, no hit" ctl gone
show_list
h0=$(profile_hits lcev_f)
check "lifecycle: module notifiers around kprobes' own" ctl coming
check "lifecycle: insmod kprobes_lc_target again" insmod ./kprobes_lc_target.ko
check "lifecycle: a coming module is probeable once kprobes knows it, not before" \
	ctl coming_check
check "lifecycle: the kprobe event hits again (trace_kprobe re-registered it)" \
	wait_for event_hits_above "${h0:-0}"
check "lifecycle: the gone probes stay gone" test "$(nfunc GONE)" = 2
check "lifecycle: unregister the gone probes and register them again" ctl rereg
check "lifecycle: they count calls again" ctl wait_hits
check "lifecycle: kprobes/list shows them live" \
	test "$(nfunc GONE)" = 0 -a "$(nfunc '')" = 3
show_list
check "lifecycle: remove the kprobe event" sh -c \
	"echo 0 > $T/events/lcev/enable && echo '-:lcev/lcev_f' >> $T/kprobe_events"

# 2. Module init text after init: refused, nothing registered (the module
# checks; powerpc64 keeps module init code, and the probe is accepted).
# (Counts change, and the optimizer may optimize the live probes meanwhile.)
strip() { sed 's/  \[OPTIMIZED\]//; s/hits=[0-9]* missed=[0-9]*//'; }
strip < $D/list > /tmp/lc.list0s
check "lifecycle: probe on module init text after init refused (ppc64: accepted)" ctl init_text
strip < $D/list > /tmp/lc.list1
cmp -s /tmp/lc.list0s /tmp/lc.list1 || diff /tmp/lc.list0s /tmp/lc.list1 | sed 's/^/# /'
check "lifecycle: kprobes/list unchanged by the refused probes" cmp -s /tmp/lc.list0s /tmp/lc.list1
check "lifecycle: NOKPROBE init function off the blacklist once live (ppc64: stays)" \
	ctl init_blacklist

# 3. A kretprobe unregistered while a call sleeps in the function; its owner
# is unloaded with its probes firing on every CPU.
check "lifecycle: kretprobe on lct_sleep" ctl sleep_rp
echo 3000 > $LT/sleep
check "lifecycle: a call sleeps in lct_sleep" ctl sleep_wait
check "lifecycle: rmmod kprobes_lifecycle, probes firing, a call asleep" \
	rmmod kprobes_lifecycle
check "lifecycle: no probe on lct_ functions left" sh -c "! grep -q ' lct_' $D/list"
check "lifecycle: the sleeping call returned its value" \
	wait_for no_sleepers
check "lifecycle: ... the right value, once" \
	test "$(status sleep_ok)" = 1 -a "$(status sleep_bad)" = 0

# 4. The owner loaded and unloaded ten times while its probes fire.
i=0
fails=0
while [ $i -lt 10 ]; do
	i=$((i + 1))
	if ! insmod ./kprobes_lifecycle.ko autoreg=1; then fails=$((fails + 1)); continue; fi
	nap 0.2
	rmmod kprobes_lifecycle || fails=$((fails + 1))
done
check "lifecycle: 10 loads and unloads of a probe owner, probes firing" test $fails = 0
check "lifecycle: no probe on lct_func left" sh -c "! grep -q ' lct_' $D/list"

# 5. kretprobes on paths that never return, recursion, sleeping callers.
check "lifecycle: insmod kprobes_lifecycle" insmod ./kprobes_lifecycle.ko
check "lifecycle: kretprobe on a path that ends its thread: instances come back" ctl exitpath
check "lifecycle: kretprobe on a recursion deeper than maxactive: nmissed exact" ctl recurse
check "lifecycle: 5 sleeping callers, 2 instances: 2 entries, 3 missed, 2 returns" ctl maxactive
check "lifecycle: rmmod kprobes_lifecycle" rmmod kprobes_lifecycle
check "lifecycle: rmmod kprobes_lc_target" rmmod kprobes_lc_target

# 6. A kretprobe across exec: the call returns into the new program.
fn=
for f in bprm_execve do_execveat_common; do
	if grep -q " [tT] $f\$" /proc/kallsyms; then fn=$f; break; fi
done
if [ -z "$fn" ]; then
	not_ok "lifecycle: kretprobe across exec (no bprm_execve nor do_execveat_common)"
else
	echo > $T/trace
	if echo "r:lcex/lcex_exec $fn ret=\$retval" >> $T/kprobe_events &&
	   echo 1 > $T/events/lcex/enable; then
		n=0
		while [ $n -lt 10 ]; do n=$((n + 1)); /bin/busybox true; done
		echo 0 > $T/events/lcex/enable
		hits=$(profile_hits lcex_exec)
		missed=$(awk '$1 == "lcex_exec" { print $3 }' $T/kprobe_profile)
		rets=$(grep -c ' lcex_exec: (.* <- '"$fn"') ret=0x0' $T/trace)
		echo "# $fn: $hits entries, $missed missed, $rets returns with 0 in the trace"
		check "lifecycle: kretprobe on $fn, 10 execs: 10 entries, 0 missed, 10 returns" \
			test "$hits" = 10 -a "$missed" = 0 -a "$rets" = 10
		echo '-:lcex/lcex_exec' >> $T/kprobe_events
	else
		not_ok "lifecycle: kretprobe event on $fn"
	fi
fi
echo "1..$N"
[ $FAIL = 0 ]
