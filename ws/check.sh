#!/bin/bash
# make check: for each ARCH in turn, build the kernel of VARIANT, boot it with
# the guest's check mode (KUnit at boot, the selftests, a kprobe_events smoke
# test), then tell per arch what passed (ws/results.py).  Exits non-zero if
# anything failed.
#
# usage: ws/check.sh [ARCH...]     (default: all four)
. "$(dirname "$0")/lib.sh"

logs=()
[ $# -gt 0 ] || set -- "${WS_ARCHES[@]}"
for a in "$@"; do
	ws_arch "$a"
	build=$(ws_build_dir "$WS_ARCH")
	t0=$SECONDS
	if ! ARCH=$WS_ARCH "$WS_REPO/ws/setup.sh" "$WS_ARCH" ||
	   ! ARCH=$WS_ARCH "$WS_REPO/ws/kernel.sh" >&2; then
		# No boot: a log that says why, for the table.
		mkdir -p "$build/logs"
		log="$build/logs/check-$(date +%Y%m%d-%H%M%S).log"
		echo "WS-HOST: $VARIANT/$WS_ARCH base $(ws_base_version) build failed: $build/ws-build.log" > "$log"
		logs+=("$log")
		continue
	fi
	t1=$SECONDS
	initrd=$("$WS_REPO/ws/initramfs.sh" "$WS_ARCH" check)
	WS_QUIET=1 "$WS_REPO/ws/boot.sh" "$WS_ARCH" check "$initrd" || true
	logs+=("$(realpath "$build/logs/latest-check.log")")
	ws_log "$WS_ARCH: setup+kernel $((t1 - t0))s, initramfs+boot $((SECONDS - t1))s"
done
echo
exec "$WS_REPO/ws/results.py" --expect-kunit "${logs[@]}"
