#!/bin/sh
# Guest bench mode (make bench): time each kind of probe with
# /extra/kprobes_bench.ko (tools/testing/kprobes-bench) and print one
# "ws-bench: key=value ..." line per kind for ws/bench.py.  The breakpoint
# kinds run with debug.kprobes-optimization=0, "optimized" with it on; the
# probe= key says how the probe was armed, as /sys/kernel/debug/kprobes/list
# shows it: optimized, ftrace or breakpoint.  Exits non-zero if a kind failed.
#
# With ws.bench=traps on the kernel command line (a boot under QEMU -d int),
# a short pass instead: few calls per kind, bracketed on the console by the
# module, so that the host counts the traps each kind takes.
C=/sys/kernel/debug/kprobes_bench/ctl
L=/sys/kernel/debug/kprobes/list
OPT=/proc/sys/debug/kprobes-optimization
failed=0
out() { echo "ws-bench: $*"; }

# How the probes on symbol $1 of the bench module are armed.
state() {
	local l
	l=$(grep -F "$1+" $L)
	case "$l" in
	"") echo none ;;
	*OPTIMIZED*) echo optimized ;;
	*FTRACE*) echo ftrace ;;
	*) echo breakpoint ;;
	esac
}

# kind KIND SYMBOL [opt]: register the probes of KIND (on SYMBOL), wait for
# the optimizer if asked (at most 30 s), time them, unregister them.
kind() {
	local i=0 res st
	if ! echo "$1" > $C; then
		res=$(cat $C)
		case "$res" in "kind=$1 error="*) out "$res" ;; *) out "kind=$1 error=write" ;; esac
		failed=$((failed + 1)); return
	fi
	if [ "${3:-}" = opt ]; then
		while [ "$(state "$2")" != optimized ] && [ $i -lt 300 ]; do
			usleep 100000; i=$((i + 1))
		done
		# [OPTIMIZED] shows once the probe is queued for optimization; the
		# jump is written after the optimizer's delay and an RCU-tasks
		# grace period (wait_for_kprobe_optimizer() is not exported
		# upstream): give it time.  The trap count tells if it was enough.
		sleep 2
	fi
	st=$(state "$2")
	grep -F "$2" $L | while IFS= read -r l; do echo "ws-bench-list: $l"; done
	echo measure > $C
	res=$(cat $C)
	echo off > $C
	out "$res probe=$st"
	case "$res" in *hits=ok*) ;; *) failed=$((failed + 1)) ;; esac
}

# reg1000 NAME: register and unregister 1000 probes, report as kind NAME.
reg1000() {
	local res
	echo reg1000 > $C
	res=$(cat $C | sed "s/^kind=register1000/kind=$1/")
	case "$res" in "kind=$1 "*) ;; *) res="kind=$1 error=write" ;; esac
	out "$res"
	case "$res" in *hits=ok*) ;; *) failed=$((failed + 1)) ;; esac
}

out "arch=$(uname -m) variant=$(sed -n 's/.*ws\.variant=\([a-z]*\).*/\1/p' /proc/cmdline)" \
    "cpus=$(grep -c '^processor' /proc/cpuinfo)" \
    "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
traps=
grep -q 'ws\.bench=traps' /proc/cmdline && traps="hits=10 reps=1 marks=1"
# shellcheck disable=SC2086
if ! insmod /extra/kprobes_bench.ko $traps; then
	out "error=insmod"; exit 1
fi
if [ ! -w $OPT ]; then
	out "note=no $OPT (no CONFIG_OPTPROBES)"
fi
echo calib > $C && out "$(cat $C)"

[ -w $OPT ] && echo 0 > $OPT
kind kprobe kprobes_bench_target
kind kprobe_post kprobes_bench_target
kind aggregate kprobes_bench_target
kind func_entry kprobes_bench_func
kind kretprobe kprobes_bench_func
kind kretprobe_kprobe kprobes_bench_func
[ -z "$traps" ] && reg1000 register1000
if [ -w $OPT ]; then
	echo 1 > $OPT
	kind optimized kprobes_bench_target opt
	[ -z "$traps" ] && reg1000 register1000_opt
else
	out "kind=optimized skipped=no_optprobes"
fi
out "kind=jprobe skipped=not_in_upstream_6.12"
rmmod kprobes_bench || failed=$((failed + 1))
echo "ws: bench done, $failed kind(s) failed"
[ $failed = 0 ]
