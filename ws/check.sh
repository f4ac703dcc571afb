#!/bin/bash
# make check: for each ARCH in turn, build the kernel of VARIANT, boot it with
# the guest's check mode (KUnit at boot, the selftests, a kprobe_events smoke
# test), then tell per arch what passed (ws/results.py).  Exits non-zero if
# anything failed.
#
# usage: ws/check.sh [ARCH...]     (default: all four)
#
# Each arch of DEBUG_ARCHES (default: x86_64 arm64) that is checked
# is checked twice: its kernel, then its debug flavour (configs/debug.config
# and configs/debug-ARCH.config if any: KASAN, lockdep, kmemleak, ...),
# with a boot timeout DEBUG_TIMEOUT_FACTOR (3) times the arch's.  The guests
# have SMP (default 4) CPUs, for the stress test; debug flavours DEBUG_SMP
# (default: the host's CPUs, at least 2): with more vCPUs than host CPUs, a
# KASAN+lockdep guest under TCG stops taking interrupts on every CPU at once
# for 20 s and more (soft lockup reports naming whatever ran), while QEMU
# burns all host CPUs; with as many vCPUs as host CPUs it does not.
# Each arch of UP_ARCHES (default: x86_64) that is checked also boots its
# plain kernel a second time with maxcpus=1 and no selftests (KUnit only):
# x86's SMP alternatives then turn lock prefixes into DS prefixes, which a
# KUnit case needs to see refused.  Its row is "ARCH (maxcpus=1)".
# STRESS=SECONDS sets the stress test's duration (default 30).
# ONLY=NAME[,NAME...] runs only those selftests (e.g. ONLY=kprobes_stress),
# for iterating.
#
# x86_64 and powerpc guests run their vCPUs in one host thread
# (WS_TCG_THREAD=single; set WS_TCG_THREAD=multi to override, or to any
# value for every arch).
# QEMU 7.2's multi-threaded TCG invalidates the translations of a code page
# before it stores the write to it, so a vCPU that translates that code in
# between keeps running the old bytes until the next write there.  x86
# patches live text (int3, then the jump) without stopping the other CPUs,
# and the stress test saw what that race explains: a re-armed probe missing
# hits, a CPU looping on an int3 no longer in memory (x86_64 debug flavour,
# 2 of 5 full runs on 22 Nov 2026), and a disarmed probe still counting
# hits (x86-ibt flavour, 1 of 6 runs).  powerpc patches live text too, and
# once (22 Nov 2026, 19:34) a disarmed probe counted 2240 calls while its
# text held the original instruction.  arm64 and riscv write breakpoints in
# stop_machine(), where no other CPU runs the code.  In one thread the x86
# runs take the same time and do as much churn.
. "$(dirname "$0")/lib.sh"

export SMP=${SMP:-4}
host_cpus=$(nproc)
debug_smp=${DEBUG_SMP:-$((host_cpus < 2 ? 2 : host_cpus))}
debug_arches=" ${DEBUG_ARCHES-x86_64 arm64} "
up_arches=" ${UP_ARCHES-x86_64} "
append=${WS_APPEND:-}
[ -z "${STRESS:-}" ] || append="${append:+$append }ws.stress=$STRESS"
[ -z "${ONLY:-}" ] || append="${append:+$append }ws.only=$ONLY"

# Check ARCH's kernel of flavour $1 ("" for the plain one, "up" for the
# plain one booted with one CPU); prints the log.
check_one() {
	local flavour=$1 build timeout log t0 t1 initrd append=$append
	local label="$WS_ARCH${flavour:+ ($flavour)}"

	if [ "$flavour" = up ]; then
		flavour=
		append="${WS_APPEND:+$WS_APPEND }maxcpus=1 ws.only=none"
		label="$WS_ARCH (maxcpus=1)"
	fi

	export WS_FLAVOUR=$flavour
	local SMP=$SMP
	[ "$flavour" != debug ] || SMP=$debug_smp
	export SMP
	build=$(ws_build_dir "$WS_ARCH")
	timeout=${WS_TIMEOUT:-$WS_BOOT_TIMEOUT}
	[ "$flavour" != debug ] || timeout=$((timeout * ${DEBUG_TIMEOUT_FACTOR:-3}))
	t0=$SECONDS
	if ! ARCH=$WS_ARCH "$WS_REPO/ws/setup.sh" "$WS_ARCH" >&2 ||
	   ! ARCH=$WS_ARCH "$WS_REPO/ws/kernel.sh" >&2; then
		# No boot: a log that says why, for the table.
		mkdir -p "$build/logs"
		log="$build/logs/check-$(date +%Y%m%d-%H%M%S).log"
		echo "WS-HOST: $VARIANT/$WS_ARCH base $(ws_base_version) build failed: $build/ws-build.log" > "$log"
		echo "$log"
		return
	fi
	t1=$SECONDS
	if ! initrd=$("$WS_REPO/ws/initramfs.sh" "$WS_ARCH" check); then
		mkdir -p "$build/logs"
		log="$build/logs/check-$(date +%Y%m%d-%H%M%S).log"
		echo "WS-HOST: $VARIANT/$WS_ARCH base $(ws_base_version) build failed: initramfs" > "$log"
		echo "$log"
		return
	fi
	local tcg_thread=${WS_TCG_THREAD:-}
	case "$WS_ARCH" in
	x86_64|powerpc) tcg_thread=${WS_TCG_THREAD-single} ;;
	esac
	WS_QUIET=1 WS_TIMEOUT=$timeout WS_APPEND=$append WS_TCG_THREAD=$tcg_thread \
		"$WS_REPO/ws/boot.sh" "$WS_ARCH" check "$initrd" || true
	realpath "$build/logs/latest-check.log"
	ws_log "$label: setup+kernel $((t1 - t0))s, initramfs+boot $((SECONDS - t1))s"
}

logs=()
[ $# -gt 0 ] || set -- "${WS_ARCHES[@]}"
for a in "$@"; do
	ws_arch "$a"
	flavours=("${WS_FLAVOUR:-}")
	case "$debug_arches" in *" $WS_ARCH "*) flavours+=(debug) ;; esac
	[ -n "${WS_FLAVOUR:-}" ] || case "$up_arches" in
		*" $WS_ARCH "*) flavours+=(up) ;;
	esac
	for flavour in "${flavours[@]}"; do
		logs+=("$(check_one "$flavour")")
	done
done
echo
exec "$WS_REPO/ws/results.py" --expect-kunit "${logs[@]}"
