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

# arm WHAT SYMBOL [opt]: write WHAT (a kind, or split:KIND) to the module,
# which registers the probes (on SYMBOL); wait for the optimizer if asked (for
# [OPTIMIZED] at most 30 s, then 2 s more).
arm() {
	local i=0
	echo "$1" > $C || return 1
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
}

# kind KIND SYMBOL [opt]: register the probes of KIND, time them, unregister
# them; then the same with the stamping handlers, to split a hit's path.
kind() {
	local res st
	if ! arm "$@"; then
		res=$(cat $C)
		case "$res" in "kind=$1 error="*) out "$res" ;; *) out "kind=$1 error=write" ;; esac
		failed=$((failed + 1)); return
	fi
	st=$(state "$2")
	grep -F "$2" $L | while IFS= read -r l; do echo "ws-bench-list: $l"; done
	echo measure > $C
	res=$(cat $C)
	echo off > $C
	out "$res probe=$st"
	case "$res" in *hits=ok*) ;; *) failed=$((failed + 1)) ;; esac
	# Let a jump being taken out go, before the next bare run.
	[ "${3:-}" = opt ] && sleep 2
	[ -n "$traps" ] && return
	if arm "split:$1" "$2" "${3:-}" && st=$(state "$2") && echo measure > $C; then
		out "split $(cat $C) probe=$st"
	else
		out "split kind=$1 error=write"
	fi
	echo off > $C
	[ "${3:-}" = opt ] && sleep 2
}

# reg1000 NAME [N]: register and unregister 1000 (or N) probes, report as
# kind NAME.
reg1000() {
	local res
	echo "reg:${2:-1000}" > $C
	res=$(cat $C | sed "s/^kind=register[0-9]*/kind=$1/")
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
if [ -z "$traps" ]; then
	reg1000 register250 250
	reg1000 register500 500
	reg1000 register1000
fi
if [ -w $OPT ]; then
	echo 1 > $OPT
	kind optimized kprobes_bench_target opt
	[ -z "$traps" ] && reg1000 register1000_opt
else
	out "kind=optimized skipped=no_optprobes"
	[ -z "$traps" ] && out "kind=register1000_opt skipped=no_optprobes"
fi
if grep -q "ws.variant=upstream" /proc/cmdline; then
	out "kind=jprobe skipped=not_in_upstream_6.12"
else
	kind jprobe kprobes_bench_func
fi
rmmod kprobes_bench || failed=$((failed + 1))
echo "ws: bench done, $failed kind(s) failed"
[ $failed = 0 ]
