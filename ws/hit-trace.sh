#!/bin/bash
# Trace one probe hit, instruction by instruction: where a kind's path
# length (make bench) goes.  Boots the bench kernel of VARIANT with QEMU's
# gdb stub and the guest's bench mode; gdb (ws/hit-trace.py) waits for a
# kernel function that only KIND's hits call, then single-steps the next
# call of the bench target from its entry to its return, and prints every
# instruction and the count per function.  The count includes the target's
# own instructions, which make bench subtracts.  A reading aid; make bench
# is the measurement.
#
# usage: ws/hit-trace.sh KIND    (ARCH=x86_64|arm64, default x86_64;
#                                 VARIANT=ours|upstream, default ours)
#   kprobe      breakpoint probe, optimization off
#   post        breakpoint probe with a post handler (ours only, arm64:
#               upstream's plain kind takes the same two traps)
#   optimized   jump-optimized probe (x86_64, both variants)
#   kretprobe   kretprobe on the traced function (x86_64, both variants)
# The trace goes to stdout and to $WS_CACHE/build/VARIANT-ARCH/logs.
. "$(dirname "$0")/lib.sh"
[ $# = 1 ] || ws_die "usage: $0 kprobe|post|optimized|kretprobe"
kind=$1
arch=${ARCH:-x86_64}
ws_arch "$arch"
# HT_SYM: called on KIND's hits only (the first call that reaches it with a
# probed address in module space is the bench's), with a struct pt_regs *
# in HT_ARG; the target's entry is regs->ip - HT_BACK (an int3 or an ftrace
# call leaves ip one byte past the probe; a BRK leaves it on the probe).
# HT_PRE, if set, must be reached first: the kind before this one in the
# bench calls HT_SYM too.  HT_RET: where the target returns to, read at its
# entry.
pre=
# shellcheck disable=SC2016 # gdb expressions
case $arch in
x86_64)
	arg=rsi; ret='*(unsigned long *)$rsp'; ip_off=128
	mods='0xffffffffa0000000 0xffffffffff000000'
	case $VARIANT/$kind in
	*/kprobe) sym=kprobe_int3_handler; arg=rdi; back=4 ;;
	ours/optimized) sym=optprobe_detour_handler; back=4 ;;
	# Upstream's detour sets regs->ip in C: read op->kp.addr instead.
	upstream/optimized) sym=optimized_callback; arg=rdi; ip_off=40
		back=3 ;;
	# Ours: a lone kretprobe goes through the ftrace_ops without saved
	# struct pt_regs; ftrace_caller saves ip as the end of the call.
	ours/kretprobe) sym=kretprobe_ftrace_handler; arg=rcx; back=5 ;;
	upstream/kretprobe) sym=pre_handler_kretprobe; back=1 ;;
	esac ;;
arm64)
	# The bench's probe is at kprobes_bench_target+8.
	arg=x0; ret='$x30'; ip_off=256; back=8
	mods='0xffff800000000000 0xffff800080000000'
	case $VARIANT/$kind in
	*/kprobe) sym=kprobe_brk_handler ;;
	# Upstream steps its plain kind's copy too: trace that one.
	ours/post) pre=kprobe_ss_brk_handler; sym=kprobe_brk_handler ;;
	esac ;;
riscv)
	# The bench's probe is at kprobes_bench_target+4.  QEMU 7.2's gdb stub
	# steps over a whole trap (the EBREAK, its handler and the SRET are one
	# stepi): QEMU's log of executed blocks replaces the steps.
	arg=a0; ret='$ra'; ip_off=0; back=4
	mods='0xffffffff00000000 0xffffffff80000000'
	case $VARIANT/$kind in
	*/kprobe) sym=kprobe_breakpoint_handler ;;
	ours/post) pre=kprobe_step_trampoline_handler
		sym=kprobe_breakpoint_handler ;;
	# On the function-entry target (a breakpoint at +0).
	ours/kretprobe) sym=kretprobe_pre_handler; arg=a1; back=0 ;;
	esac ;;
powerpc)
	# The bench's probe is at kprobes_bench_target+4.  As on riscv, the
	# gdb stub steps over a whole trap: QEMU's log of executed blocks.
	arg=r3; ret='$lr'; ip_off=256; back=4
	mods='0xc000000100000000 0xcfffffffffffffff'
	case $VARIANT/$kind in
	*/kprobe) sym=kprobe_handler ;;
	esac ;;
*) ws_die "hit-trace: no $arch (x86_64, arm64, riscv, powerpc)" ;;
esac
[ -n "${sym:-}" ] || ws_die "no trace of '$kind' for VARIANT=$VARIANT on $arch"
# QEMU 7.2's gdb stub cannot single-step an arm64 guest under -icount
# (the first stepi never returns); the trace does not need it.
gdb=gdb icount="-icount shift=0,sleep=off " execlog=
[ "$arch" = x86_64 ] || gdb=gdb-multiarch icount=
if [ "$arch" = riscv ] || [ "$arch" = powerpc ]; then
	# nochain from the start: blocks chained before the log is switched
	# on would run unlogged.
	execlog=$WS_CACHE/hit-trace-exec-$$.log
	rm -f "$execlog"
	icount="-d nochain -D $execlog "
fi
command -v $gdb > /dev/null || ws_die "$gdb is missing (apt-get install $gdb)"

"$WS_REPO/ws/setup.sh" "$arch"
"$WS_REPO/ws/kernel.sh" >&2
build=$(ws_build_dir "$arch")
initrd=$(ws_bench_initrd)
mkdir -p "$build/logs"
out="$build/logs/hit-trace-$kind-$(date +%Y%m%d-%H%M%S).txt"
port=$((20000 + $$ % 10000))

# One vCPU thread: the stub single-steps the CPU that stopped.  The guest
# is killed by gdb once the hit is traced.
WS_QUIET=1 WS_TCG_THREAD=single SMP=1 \
	WS_QEMU_ARGS="$icount-gdb tcp:127.0.0.1:$port" \
	WS_APPEND="kunit.enable=0 nokaslr" WS_TIMEOUT=900 \
	"$WS_REPO/ws/boot.sh" "$arch" bench "$initrd" > /dev/null 2>&1 &
qemu=$!
rc=0
HT_PORT=$port HT_ARCH=$arch HT_EXECLOG=$execlog HT_SYM=$sym HT_PRE="$pre" HT_ARG=$arg HT_BACK=$back HT_OUT=$out \
	HT_RET="$ret" HT_IP_OFF=$ip_off HT_MODS="$mods" \
	timeout 900 $gdb -q -batch -ex "file $build/vmlinux" -x "$WS_REPO/ws/hit-trace.py" >&2 || rc=1
wait $qemu || true
[ -z "$execlog" ] || rm -f "$execlog"
[ -s "$out" ] || ws_die "no trace (gdb failed)"
cat "$out"
ws_log "trace: $out"
exit $rc
