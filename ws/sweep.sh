#!/bin/bash
# Probe every function: boot the kernel of VARIANT=ours for ARCH in the run
# mode with ws/sweep's module and script, which register a kprobe (or a
# kretprobe) in every text symbol of the kernel, 400 at a time, each batch
# followed by a workload.  The verdict is the run's: the guest finished and
# its console is clean (no Oops, WARN or stall).  A robustness check, not
# part of make check: a sweep takes 6 to 25 minutes per arch and mode.
#
# usage: ws/sweep.sh [entry|mid|ret]   (ARCH=x86_64 by default; SEED=N for
#                                       mid's random offsets, default 1;
#                                       MATCH=RE only the symbols whose name
#                                       matches the awk regex RE; FROM=N,
#                                       TO=M the Nth to the Mth symbol)
. "$(dirname "$0")/lib.sh"
mode=${1:-entry}
case $mode in entry|mid|ret) ;; *) ws_die "usage: $0 [entry|mid|ret]" ;; esac
ws_arch "${ARCH:-x86_64}"
export VARIANT=ours
"$WS_REPO/ws/setup.sh" "$WS_ARCH"
"$WS_REPO/ws/kernel.sh" >&2
build=$(ws_build_dir "$WS_ARCH")
mod=$(mktemp -d "$build/ws-sweep.XXXXXX")
mon=$mod/monitor.sock
trap 'kill $watch 2>/dev/null; rm -rf "$mod"' EXIT
cp "$WS_REPO"/ws/sweep/* "$mod/"
ws_kmake "$WS_ARCH" M="$mod" modules >&2

# QEMU 7.2's TCG now and then keeps running a breakpoint that a probe's
# removal overwrote (the text reads back right, the vCPU traps on the old
# instruction forever).  A single step from gdb makes QEMU flush all its
# translations (tb_flush()).  When the console stays silent for two
# minutes, or prints an RCU stall report (vCPUs stuck in stop_machine()'s
# wait loop take their timer interrupts and report every minute, so the
# console is never silent), the watcher logs where each vCPU is (gdb's
# "info threads", with vmlinux's symbols) and steps once.  The stall
# reports stay in the console and fail the verdict: the log says why.
# gdb-multiarch for the other arches.
watch=
gdb=
if command -v gdb-multiarch > /dev/null; then
	gdb=gdb-multiarch
elif [ "$WS_ARCH" = x86_64 ] && command -v gdb > /dev/null; then
	gdb=gdb
fi
if [ -n "$gdb" ]; then
	export WS_QEMU_ARGS="-monitor unix:$mon,server,nowait -gdb unix:$mod/gdb.sock,server,nowait${WS_QEMU_ARGS:+ $WS_QEMU_ARGS}"
	(
		log=; last=; quiet=0; stalls=0
		while sleep 30; do
			log=$(realpath "$build/logs/latest-run.log" 2>/dev/null) || continue
			size=$(stat -c %s "$log") || continue
			if [ "$size" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; fi
			last=$size
			n=$(grep -c 'rcu: INFO: .* detected stalls' "$log") || true
			if [ "${n:-0}" -gt "$stalls" ]; then
				stalls=$n; why="printed an RCU stall report"
			elif [ $quiet -ge 4 ]; then
				why="silent for 2 minutes"
			else
				continue
			fi
			ws_log "sweep: console $why: flushing QEMU's translations (gdb stepi)"
			timeout 60 $gdb -q -batch "$build/vmlinux" \
				-ex "target remote $mod/gdb.sock" -ex "info threads" \
				-ex stepi -ex detach 2>&1 | grep -E '^[* ] +[0-9]+ +Thread' |
				sed "s/^/WS-HOST: sweep: console $why, stepi; vCPU/" >> "$log" || true
			last=$(stat -c %s "$log") || true; quiet=0
		done
	) &
	watch=$!
fi
WS_EXPECT_KUNIT=0 WS_APPEND="kunit.enable=0 ws.sweep=$mode ws.sweep_seed=${SEED:-1}${MATCH:+ ws.sweep_match=$MATCH}${FROM:+ ws.sweep_from=$FROM}${TO:+ ws.sweep_to=$TO}${WS_APPEND:+ $WS_APPEND}" \
	WS_TIMEOUT=${WS_TIMEOUT:-3600} \
	"$WS_REPO/ws/run.sh" "$mod/sweep_probes.ko" "$mod/sweep_probes.sh"
