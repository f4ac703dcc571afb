#!/bin/bash
# Trace one probe hit on x86_64, instruction by instruction: where a kind's
# path length (make bench) goes.  Boots the bench kernel of VARIANT with
# QEMU's gdb stub and the guest's bench mode; gdb (ws/hit-trace.py) waits
# for a kernel function that only KIND's hits call, then single-steps the
# next call of the bench target from its entry to its return, and prints
# every instruction and the count per function.  The count includes the
# target's own instructions (4 for kretprobe, 5 for kprobe and optimized),
# which make bench subtracts.  A reading aid; make bench is the measurement.
#
# usage: ws/hit-trace.sh KIND    (VARIANT=ours|upstream, default ours)
#   kprobe      breakpoint probe, optimization off
#   optimized   jump-optimized probe (ours only)
#   kretprobe   kretprobe on the traced function (both variants)
# The trace goes to stdout and to $WS_CACHE/build/VARIANT-x86_64/logs.
. "$(dirname "$0")/lib.sh"
[ $# = 1 ] || ws_die "usage: $0 kprobe|optimized|kretprobe"
kind=$1
ws_arch x86_64
# HT_SYM: called on KIND's hits only (the first int3 that reaches
# kprobe_int3_handler() is the first kind's), with a struct pt_regs * in
# HT_ARG; the target's entry is regs->ip - HT_BACK (an int3 or an ftrace
# call leaves ip one byte past the probe; the probe of the asm target is at
# +3, its function-entry probe at +0).
arg=rsi
case $VARIANT/$kind in
*/kprobe) sym=kprobe_int3_handler; arg=rdi; back=4 ;;
ours/optimized) sym=optprobe_detour_handler; back=4 ;;
ours/kretprobe) sym=kretprobe_pre_handler; back=1 ;;
upstream/kretprobe) sym=pre_handler_kretprobe; back=1 ;;
*) ws_die "no trace of '$kind' for VARIANT=$VARIANT" ;;
esac
command -v gdb > /dev/null || ws_die "gdb is missing (apt-get install gdb)"

"$WS_REPO/ws/setup.sh" x86_64
"$WS_REPO/ws/kernel.sh" >&2
build=$(ws_build_dir x86_64)
initrd=$(ws_bench_initrd)
mkdir -p "$build/logs"
out="$build/logs/hit-trace-$kind-$(date +%Y%m%d-%H%M%S).txt"
port=$((20000 + $$ % 10000))

# One vCPU thread: the stub single-steps the CPU that stopped.  The guest
# is killed by gdb once the hit is traced.
WS_QUIET=1 WS_TCG_THREAD=single SMP=1 \
	WS_QEMU_ARGS="-icount shift=0,sleep=off -gdb tcp:127.0.0.1:$port" \
	WS_APPEND="kunit.enable=0 nokaslr" WS_TIMEOUT=900 \
	"$WS_REPO/ws/boot.sh" x86_64 bench "$initrd" > /dev/null 2>&1 &
qemu=$!
rc=0
HT_PORT=$port HT_SYM=$sym HT_ARG=$arg HT_BACK=$back HT_OUT=$out \
	timeout 900 gdb -q -batch -ex "file $build/vmlinux" -x "$WS_REPO/ws/hit-trace.py" >&2 || rc=1
wait $qemu || true
[ -s "$out" ] || ws_die "no trace (gdb failed)"
cat "$out"
ws_log "trace: $out"
exit $rc
