#!/bin/sh
# Guest run mode, the newcomer's tour: the kprobes sample modules, the list of
# registered probes, a kprobe_events trace, then the user's EXTRA files
# (/extra/*.ko are loaded, /extra/*.sh run).  Exits non-zero if a step failed.
. /ws/tap.sh
M=/lib/ws-modules
T=/sys/kernel/tracing
failed=0
step() { echo; echo "==> $*"; }
fail() { echo "ws: FAILED: $*"; failed=$((failed + 1)); }
try() { "$@" || fail "$*"; }
poke() { for i in 1 2 3; do ls / > /dev/null; done; }	# each command is a fork: kernel_clone

step "insmod kprobe_example.ko symbol=kernel_clone; insmod kretprobe_example.ko"
try insmod $M/kprobe_example.ko symbol=kernel_clone
try insmod $M/kretprobe_example.ko func=kernel_clone
step "run a few commands: each one forks, so kernel_clone is hit"
poke
step "cat /sys/kernel/debug/kprobes/list"
cat /sys/kernel/debug/kprobes/list
step "the samples' kernel messages (dmesg)"
# upstream's samples say "handler_pre: <kernel_clone>", the series' "pre:  kernel_clone+0x0"
dmesg | grep -E "handler_(pre|post)|(pre|post): +kernel_clone|kernel_clone returned|Planted|armed" | tail -8
dmesg | grep -qE "handler_pre: <kernel_clone>|pre: +kernel_clone\+0x0 hit by" ||
	fail "no hit of the kprobe sample"
dmesg | grep -q "kernel_clone returned" || fail "no hit of the kretprobe sample"
step "rmmod the samples"
try rmmod kprobe_example
try rmmod kretprobe_example

step "kprobe_events: p:myprobe kernel_clone, r:myretprobe kernel_clone \$retval"
echo > $T/trace
try sh -c "echo 'p:myprobe kernel_clone' >> $T/kprobe_events"
try sh -c "echo 'r:myretprobe kernel_clone ret=\$retval' >> $T/kprobe_events"
cat $T/kprobe_events
echo 1 > $T/events/kprobes/enable
poke
echo 0 > $T/events/kprobes/enable
step "cat /sys/kernel/tracing/trace (first lines)"
grep -v '^#' $T/trace | head -6
if ! grep -q 'myprobe: (kernel_clone' $T/trace; then
	if [ -n "$WS_NMI_DROPS" ]; then echo "ws: note: no myprobe event: $WS_NMI_DROPS"
	else fail "no myprobe event in the trace"; fi
fi
grep -q 'myretprobe: (.* <- kernel_clone) ret=' $T/trace || fail "no myretprobe event in the trace"
step "cat /sys/kernel/tracing/kprobe_profile (event, hits, misses)"
cat $T/kprobe_profile
try sh -c "echo '-:myprobe' >> $T/kprobe_events && echo '-:myretprobe' >> $T/kprobe_events"

extra=$(ls /extra 2>/dev/null)
if [ -n "$extra" ]; then
	step "your files (EXTRA): $(echo $extra)"
	for f in /extra/*.ko; do [ -f "$f" ] && { echo "--> insmod $f"; try insmod "$f"; }; done
	for f in /extra/*.sh; do [ -f "$f" ] && { echo "--> sh $f"; try sh "$f"; }; done
	poke
	for f in /extra/*.ko; do
		[ -f "$f" ] || continue
		m=$(basename "$f" .ko)
		grep -q "^$m " /proc/modules || grep -q "^$(echo "$m" | tr - _) " /proc/modules || continue
		echo "--> rmmod $m"; try rmmod "$m"
	done
fi
echo
echo "ws: run done, $failed step(s) failed"
[ $failed = 0 ]
