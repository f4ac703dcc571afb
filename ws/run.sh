#!/bin/bash
# make run: build the kernel of VARIANT for ARCH, boot it with the guest's run
# mode (the kprobes samples, a kprobe_events trace, the EXTRA files), show it.
#
# usage: ws/run.sh [extra files...]
. "$(dirname "$0")/lib.sh"
ws_arch "$ARCH"
"$WS_REPO/ws/setup.sh" "$WS_ARCH"
"$WS_REPO/ws/kernel.sh" >&2
initrd=$("$WS_REPO/ws/initramfs.sh" "$WS_ARCH" run "$@")
rc=0
"$WS_REPO/ws/boot.sh" "$WS_ARCH" run "$initrd" || rc=$?
echo
# WS_EXPECT_KUNIT=0: a boot with kunit.enable=0 (ws/sweep.sh).
kunit=--expect-kunit
[ "${WS_EXPECT_KUNIT:-1}" = 1 ] || kunit=
"$WS_REPO/ws/results.py" $kunit "$(ws_build_dir "$WS_ARCH")/logs/latest-run.log" || rc=1
exit $rc
