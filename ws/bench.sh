#!/bin/bash
# make bench: for ARCH, build (if need be) the kernels of VARIANT=upstream and
# VARIANT=ours and tools/testing/kprobes-bench's module against each, boot
# each with the guest's bench mode under QEMU TCG with -icount (one guest
# nanosecond is one guest instruction), then print one table of both
# (ws/bench.py).  Exits non-zero if a variant failed or a handler count was
# wrong.
#
# usage: ws/bench.sh     (ARCH=x86_64 by default; BENCH_VARIANTS="upstream ours",
#                         BENCH_TRAPS=0 to skip counting the traps)
. "$(dirname "$0")/lib.sh"
ws_arch "$ARCH"
"$WS_REPO/ws/setup.sh" "$WS_ARCH"

# -icount shift=0: guest time counts instructions; sleep=off: an idle guest
# jumps to its next timer at once, so that waits (RCU, the optimizer's delay)
# count their guest time only, not the host's speed.
qemu_args="-icount shift=0,sleep=off"
# riscv64 and powerpc64 hang under -icount in QEMU 7.2 with two CPUs
# (riscv once init runs, powerpc early in the boot): one CPU there, for
# both variants.
case $WS_ARCH in riscv|powerpc) export SMP=${SMP:-1} ;; esac
# KUnit (kprobes' suites) runs at boot otherwise: not what is measured here.
append="kunit.enable=0"

logs=()
rc=0
for v in ${BENCH_VARIANTS:-upstream ours}; do
	export VARIANT=$v
	build=$(ws_build_dir "$WS_ARCH")
	mkdir -p "$build/logs"
	log="$build/logs/bench-$(date +%Y%m%d-%H%M%S).log"
	if ! "$WS_REPO/ws/kernel.sh" >&2; then
		echo "WS-HOST: $v/$WS_ARCH base $(ws_base_version) build failed: $build/ws-build.log" > "$log"
		logs+=("$log"); rc=1
		continue
	fi
	if ! initrd=$(ws_bench_initrd); then
		echo "WS-HOST: $v/$WS_ARCH base $(ws_base_version) build failed: kprobes_bench.ko" > "$log"
		logs+=("$log"); rc=1
		continue
	fi
	WS_QUIET=1 WS_QEMU_ARGS="$qemu_args${WS_QEMU_ARGS:+ $WS_QEMU_ARGS}" \
		WS_APPEND="$append${WS_APPEND:+ $WS_APPEND}" \
		WS_TIMEOUT="${WS_TIMEOUT:-$((2 * WS_BOOT_TIMEOUT))}" \
		"$WS_REPO/ws/boot.sh" "$WS_ARCH" bench "$initrd" || rc=1
	logs+=("$(realpath "$build/logs/latest-bench.log")")
	# The traps of each kind: a short pass under -d int, which logs every
	# exception the guest takes (BENCH_TRAPS=0: skip it).
	[ "${BENCH_TRAPS:-1}" = 0 ] && continue
	# Its exit status is not the guest's: QEMU's exception log may split
	# the guest's last line (powerpc), so bench.py judges this pass from
	# the log (finished, console clean).
	WS_QUIET=1 WS_QEMU_ARGS="$qemu_args -d int${WS_QEMU_ARGS:+ $WS_QEMU_ARGS}" \
		WS_APPEND="$append ws.bench=traps${WS_APPEND:+ $WS_APPEND}" \
		WS_TIMEOUT="${WS_TIMEOUT:-$((2 * WS_BOOT_TIMEOUT))}" \
		"$WS_REPO/ws/boot.sh" "$WS_ARCH" bench "$initrd" || true
	logs+=("$(realpath "$build/logs/latest-bench.log")")
done
echo
"$WS_REPO/ws/bench.py" "${logs[@]}" || rc=1
exit $rc
