#!/bin/bash
# Common definitions for the kprobes workshop scripts.  Sourced, not run.
# shellcheck disable=SC2034
set -euo pipefail

WS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WS_CACHE=${KPROBES_WS_CACHE:-$HOME/.cache/kprobes-ws}
WS_BASE_PKG=linux-source-6.12
WS_BASE_WANT=6.12.117-1~deb12u1
VARIANT=${VARIANT:-ours}
ARCH=${ARCH:-x86_64}
CCACHE_DIR=${CCACHE_DIR:-$WS_CACHE/ccache}
WS_BUILD_LOCK=${WS_BUILD_LOCK:-/tmp/kprobes-build.lock}
WS_ARCHES=(x86_64 arm64 riscv powerpc)
export CCACHE_DIR

case "$VARIANT" in
ours|upstream) ;;
*) echo "VARIANT must be 'ours' or 'upstream', not '$VARIANT'" >&2; exit 2 ;;
esac

ws_die() { echo "ws: error: $*" >&2; exit 1; }
ws_log() { echo "ws: $*" >&2; }

# Per-arch facts: kernel ARCH, cross compiler, image, qemu command, console,
# boot timeout (seconds, TCG).  EARLYCON: a kernel argument that prints from
# the first line on, where the console registers late: a riscv guest that
# hung before its 8250 console came up used to leave an empty log.
ws_arch() {
	local a=$1 tcg=tcg${WS_TCG_THREAD:+,thread=$WS_TCG_THREAD}
	QEMU_SMP=${SMP:-2}
	EARLYCON=
	case "$a" in
	x86_64)
		K_ARCH=x86_64; K_CROSS=; K_IMAGE=arch/x86/boot/bzImage
		DEB_ARCH=amd64; GNU_TRIPLE=x86_64-linux-gnu
		QEMU=(qemu-system-x86_64 -M q35 -cpu max -accel "$tcg")
		CONSOLE=ttyS0; WS_BOOT_TIMEOUT=300 ;;
	arm64)
		K_ARCH=arm64; K_CROSS=aarch64-linux-gnu-; K_IMAGE=arch/arm64/boot/Image
		DEB_ARCH=arm64; GNU_TRIPLE=aarch64-linux-gnu
		QEMU=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel "$tcg")
		CONSOLE=ttyAMA0; WS_BOOT_TIMEOUT=480 ;;
	riscv|riscv64)
		K_ARCH=riscv; K_CROSS=riscv64-linux-gnu-; K_IMAGE=arch/riscv/boot/Image
		DEB_ARCH=riscv64; GNU_TRIPLE=riscv64-linux-gnu
		QEMU=(qemu-system-riscv64 -M virt -accel "$tcg"
		      -bios /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin)
		CONSOLE=ttyS0; EARLYCON=earlycon; WS_BOOT_TIMEOUT=600 ;;
	powerpc|ppc64le)
		K_ARCH=powerpc; K_CROSS=powerpc64le-linux-gnu-; K_IMAGE=vmlinux
		DEB_ARCH=ppc64el; GNU_TRIPLE=powerpc64le-linux-gnu
		QEMU=(qemu-system-ppc64 -M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off
		      -cpu power10 -accel "$tcg" -vga none)
		CONSOLE=hvc0; WS_BOOT_TIMEOUT=600 ;;
	*) ws_die "unknown ARCH '$a' (x86_64 arm64 riscv powerpc)" ;;
	esac
	WS_ARCH=$a
	[ "$a" = riscv64 ] && WS_ARCH=riscv
	[ "$a" = ppc64le ] && WS_ARCH=powerpc
	true
}

ws_base_dir() { echo "$WS_CACHE/base/$(cat "$WS_CACHE/base/VERSION" 2>/dev/null || echo none)"; }
ws_base_version() { cat "$WS_CACHE/base/VERSION" 2>/dev/null || echo unknown; }
ws_tree_dir() { echo "$WS_CACHE/tree-$VARIANT"; }
ws_build_dir() { echo "$WS_CACHE/build/$VARIANT-$1${WS_FLAVOUR:+-$WS_FLAVOUR}"; }

# Does this process or one of its ancestors hold the build lock?  (Taking it
# again would wait for ourselves.)  A held flock shows in the fdinfo of the
# processes that have the locked file open.
ws_build_lock_held() {
	local ino p=$BASHPID
	ino=$(stat -c %i "$WS_BUILD_LOCK" 2>/dev/null) || return 1
	while [ "$p" -gt 1 ]; do
		grep -qs "^lock:.*FLOCK.*:$ino " /proc/"$p"/fdinfo/* && return 0
		p=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f2) || return 1
		[ -n "$p" ] || return 1
	done
	return 1
}

# Hold the build lock for the rest of the calling script, waiting for it if
# need be (unless a caller holds it).
ws_build_lock() {
	ws_build_lock_held && return 0
	exec 9>>"$WS_BUILD_LOCK"
	flock -n 9 && return 0
	ws_log "waiting for another kernel build ($WS_BUILD_LOCK)"
	flock 9
}

ws_kmake() {
	# ws_kmake <arch> <make args...>: make in the assembled tree, output in the build dir.
	local a=$1; shift
	ws_arch "$a"
	local cc="${K_CROSS}gcc"
	command -v ccache >/dev/null && cc="ccache $cc"
	# One kernel build at a time on the machine (2 cores): wait for the lock,
	# unless a caller of ours holds it (`flock LOCK ws/kernel.sh`).
	local lock=(flock "$WS_BUILD_LOCK")
	if ws_build_lock_held; then
		lock=()
	elif ! flock -n "$WS_BUILD_LOCK" true; then
		ws_log "waiting for another kernel build ($WS_BUILD_LOCK)"
	fi
	# Not the MAKEFLAGS of a calling make (its variables, its jobserver).
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${lock[@]}" make -C "$(ws_tree_dir)" O="$(ws_build_dir "$WS_ARCH")" ARCH="$K_ARCH" \
		CROSS_COMPILE="$K_CROSS" CC="$cc" -j"$(nproc)" -s "$@"
}

# Build tools/testing/kprobes-bench's module against the kernel of VARIANT
# for WS_ARCH (ws_arch first; the kernel must be built) and the bench
# initramfs with it; print the initramfs' path.  The module is built out of
# tree, in $WS_CACHE/bench/VARIANT-ARCH, not under the build dir: make check
# would pack it into its initramfs.  Cheap: no need for the build lock.
ws_bench_initrd() {
	local build mod
	build=$(ws_build_dir "$WS_ARCH")
	mod="$WS_CACHE/bench/$VARIANT-$WS_ARCH"
	rm -rf "$mod"; mkdir -p "$mod"
	cp -r "$WS_REPO/tools/testing/kprobes-bench/." "$mod/"
	ws_log "building kprobes_bench.ko against $build"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$build" M="$mod" ARCH="$K_ARCH" \
		CROSS_COMPILE="$K_CROSS" -j"$(nproc)" -s modules >&2 || return 1
	"$WS_REPO/ws/initramfs.sh" "$WS_ARCH" bench "$mod/kprobes_bench.ko"
}
