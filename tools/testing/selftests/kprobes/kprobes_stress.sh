#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stress: kprobes_stress.ko registers, unregisters, enables and disables
# kprobes, kretprobes, aggregates and optimized probes on functions that
# every CPU calls (one from an hrtimer, one that sleeps) and checks that no
# hit is lost (see kprobes_stress.c); meanwhile this script toggles
# debug.kprobes-optimization and flips kprobes/enabled, telling the module
# before and after each flip.
#
# Duration: ws.stress=SECONDS on the kernel command line (make check
# STRESS=SECONDS), else KPROBES_STRESS_SECONDS, else 30.
#
# Output: kselftest TAP.  Busybox sh compatible.

D=/sys/kernel/debug/kprobes
S=/sys/kernel/debug/kprobes_stress
OPT=/proc/sys/debug/kprobes-optimization

N=0
FAIL=0
ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $*"; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
nap() { sleep "$1" 2>/dev/null || sleep 1; }
finish() { echo "1..$N"; [ $FAIL = 0 ]; exit; }

secs=
for w in $(cat /proc/cmdline); do
	case "$w" in ws.stress=*) secs=${w#ws.stress=} ;; esac
done
secs=${secs:-${KPROBES_STRESS_SECONDS:-30}}
cd "$(dirname "$0")" || exit 1
[ -d $D ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null

echo "# $(nproc) CPUs, $secs s"
echo 1 > $D/enabled
opt0=
[ -w $OPT ] && opt0=$(cat $OPT)
if [ ! -f ./kprobes_stress.ko ]; then
	skip "stress: insmod kprobes_stress.ko" \
		"not built: this kernel does not export get_kprobe() and wait_for_kprobe_optimizer() (upstream)"
	finish
fi
if ! insmod ./kprobes_stress.ko seconds="$secs"; then
	not_ok "stress: insmod kprobes_stress.ko"
	finish
fi
ok "stress: insmod kprobes_stress.ko seconds=$secs"

# Optimization toggled every step, kprobes/enabled off for 3 steps in 10,
# for the run's duration only: wait_for_kprobe_optimizer() in the module's
# threads waits for an empty optimizer queue, which endless toggling can
# keep busy forever.
t0=$(date +%s)
limit=$((secs * 2 + 60))
i=0
while [ "$(cat $S/state)" != done ]; do
	if [ $(($(date +%s) - t0)) -ge "$secs" ]; then
		[ $(($(date +%s) - t0)) -lt $limit ] || break
		nap 0.5
		continue
	fi
	i=$((i + 1))
	[ -n "$opt0" ] && echo $((i % 2)) > $OPT
	v=
	case $((i % 10)) in
	4) v=0 ;;
	7) v=1 ;;
	esac
	if [ -n "$v" ]; then
		echo flip_begin > $S/ctl
		echo $v > $D/enabled || echo "# writing $v to kprobes/enabled failed"
		echo "flip_end $v" > $S/ctl
	fi
	nap 0.3
done
# Left as found, whatever happened.
echo 1 > $D/enabled
[ -n "$opt0" ] && echo "$opt0" > $OPT
if [ "$(cat $S/state)" = done ]; then
	ok "stress: the run ended ($i steps, $(($(date +%s) - t0)) s)"
else
	not_ok "stress: the run ended (after $limit s: $(cat $S/state))"
	# Where the module's threads are stuck.
	for p in /proc/[0-9]*; do
		case "$(cat $p/comm 2>/dev/null)" in
		kps_*)
			echo "# $(cat $p/comm): $(cut -d' ' -f3 $p/stat)"
			sed 's/^/#   /' $p/stack 2>/dev/null
			;;
		esac
	done
	finish	# unloading would wait for the stuck run
fi

# The module's own checks, renumbered into this script's TAP.
cat $S/result > /tmp/kps.result
grep -q '^ok\|^not ok' /tmp/kps.result || not_ok "stress: the module reported results"
while IFS= read -r l; do
	case "$l" in
	"ok "*) ok "${l#ok * - }" ;;
	"not ok "*) not_ok "${l#not ok * - }" ;;
	"#"*) echo "$l" ;;
	esac
done < /tmp/kps.result

check "stress: no probe of the module left in kprobes/list" \
	sh -c "! grep -q 'kps_' $D/list"
check "stress: rmmod kprobes_stress" rmmod kprobes_stress
finish
