#!/bin/bash
# Boot the kernel of VARIANT for ARCH with an initramfs under QEMU (TCG), the
# guest running ws/guest/MODE.sh.  The console goes to a log in the build dir
# (and to stdout unless WS_QUIET=1).  Exit status: the guest's, or 1 if it never
# finished (crash, timeout).  The last line on stderr names the log.
#
# usage: ws/boot.sh ARCH MODE INITRAMFS
#   SMP=N (2)  WS_TIMEOUT=seconds (per arch)  WS_APPEND="more kernel args"
#   WS_QEMU_ARGS="more qemu args" (e.g. "-icount shift=0" for make bench)
. "$(dirname "$0")/lib.sh"
[ $# = 3 ] || ws_die "usage: $0 ARCH MODE INITRAMFS"
ws_arch "$1"; mode=$2; initrd=$3
build=$(ws_build_dir "$WS_ARCH")
image="$build/$K_IMAGE"
[ -f "$image" ] || ws_die "$image missing: build the kernel first (ws/kernel.sh)"
[ -f "$initrd" ] || ws_die "$initrd missing"

# The console log, and latest-MODE.log pointing at it.
logdir="$build/logs"
mkdir -p "$logdir"
log="$logdir/$mode-$(date +%Y%m%d-%H%M%S).log"
ln -sfn "${log##*/}" "$logdir/latest-$mode.log"

# The check mode boots with kprobe events defined on the command line: see
# tools/testing/selftests/kprobes/kprobe_boot_events.sh.
append=${WS_APPEND:-}
if [ "$mode" = check ]; then
	# shellcheck disable=SC2016
	append="kprobe_event=p:kpboot/falloc,vfs_fallocate,mode=\$arg2:s32,len=\$arg4:s64;r:kpboot/falloc_ret,vfs_fallocate,ret=\$retval:s32${append:+ $append}"
fi

# shellcheck disable=SC2206
cmd=("${QEMU[@]}" ${WS_QEMU_ARGS:-} -smp "$QEMU_SMP" -m 1G -nographic -no-reboot
     -kernel "$image" -initrd "$initrd"
     -append "console=$CONSOLE${EARLYCON:+ $EARLYCON} panic=-1 ws.mode=$mode ws.variant=$VARIANT${append:+ $append}")
limit=${WS_TIMEOUT:-$WS_BOOT_TIMEOUT}
echo "WS-HOST: $VARIANT/$WS_ARCH base $(ws_base_version) limit ${limit}s: ${cmd[*]}" > "$log"
ws_log "booting $VARIANT/$WS_ARCH ($mode), console log: $log"
start=$SECONDS
set +e
if [ "${WS_QUIET:-0}" = 1 ]; then
	timeout -k 10 "$limit" "${cmd[@]}" < /dev/null >> "$log" 2>&1
	qrc=$?
else
	timeout -k 10 "$limit" "${cmd[@]}" < /dev/null 2>&1 | tee -a "$log"
	qrc=${PIPESTATUS[0]}
fi
set -e
[ $qrc = 124 ] && echo "WS-HOST: timeout: killed QEMU after ${limit}s" | tee -a "$log" >&2
echo "WS-HOST: qemu exit $qrc after $((SECONDS - start))s" >> "$log"

ws_log "log: $log"
rc=$(sed -n 's/.*WS-GUEST-DONE rc=\([0-9]*\).*/\1/p' "$log" | tail -1)
exit "${rc:-1}"
