#!/bin/sh
# Guest check mode: the series' selftests (/ws/selftests/*.sh, each printing
# its own TAP) and a smoke test of kprobe_events, as nested kselftest TAP.
# KUnit ran during boot, before init: its results are on the console already.
. /ws/tap.sh
T=/sys/kernel/tracing

# Run a selftest script, its TAP nested one level down.
selftest() {
	local s=$1 name=selftests/${1##*/} out=/tmp/selftest.out rc
	tap "# $name"
	{ cd /ws/selftests && timeout "${WS_SELFTEST_TIMEOUT:-600}" sh "$s" 2>&1; echo $? > /tmp/selftest.rc; } |
		tee $out | while IFS= read -r l; do echo "ws-tap:     $l"; done
	rc=$(cat /tmp/selftest.rc)
	if [ "$rc" != 0 ] && ! grep -q '^ *not ok' $out; then
		echo "ws-tap:     not ok 1 $name exited with rc=$rc"
	fi
	if [ "$rc" = 0 ]; then tap_ok "$name"; else tap_not_ok "$name # rc=$rc"; fi
}

# The smoke test of kprobe_events: p: and r: events on do_sys_openat2.
smoke() {
	local hits f0=$WS_TAP_FAIL
	WS_TAP_INDENT="    "; WS_TAP_N=0
	tap "TAP version 13"
	tap "1..8"
	tap_check "kprobe_events: tracefs has kprobe_events" test -w $T/kprobe_events
	echo > $T/trace
	tap_check "kprobe_events: add p:ws/open do_sys_openat2" \
		sh -c "echo 'p:ws/open do_sys_openat2' >> $T/kprobe_events"
	tap_check "kprobe_events: add r:ws/open_ret do_sys_openat2" \
		sh -c "echo 'r:ws/open_ret do_sys_openat2 ret=\$retval' >> $T/kprobe_events"
	tap_check "kprobe_events: enable the ws group" sh -c "echo 1 > $T/events/ws/enable"
	for _ in 1 2 3 4 5; do cat /proc/version /ws/tap.sh > /dev/null; done
	echo 0 > $T/events/ws/enable
	if grep -q ' open: (do_sys_openat2' $T/trace; then
		tap_ok "kprobe_events: trace has open hits"
	elif [ -n "$WS_NMI_DROPS" ]; then
		tap_skip "kprobe_events: trace has open hits" "$WS_NMI_DROPS"
	else
		tap_not_ok "kprobe_events: trace has open hits"
	fi
	tap_check "kprobe_events: trace has open_ret hits" grep -q ' open_ret: (.* <- do_sys_openat2) ret=' $T/trace
	[ $WS_TAP_FAIL = "$f0" ] || grep -v '^#' $T/trace | head -4 | while IFS= read -r l; do tap "# trace: $l"; done
	hits=$(awk '$1 == "open" { print $2 }' $T/kprobe_profile)
	tap_check "kprobe_events: kprobe_profile counts hits (${hits:-none})" test "${hits:-0}" -gt 0
	tap_check "kprobe_events: remove the events" sh -c \
		"echo '-:ws/open' >> $T/kprobe_events && echo '-:ws/open_ret' >> $T/kprobe_events && ! grep -q ws/ $T/kprobe_events"
	WS_TAP_INDENT=; WS_TAP_N=$top
	if [ $WS_TAP_FAIL = "$f0" ]; then tap_ok "kprobe_events_smoke"; else tap_not_ok "kprobe_events_smoke"; fi
}

# Debug kernels (CONFIG_DEBUG_KMEMLEAK): a kmemleak scan once everything ran;
# any unreferenced object fails, and its report is shown.  Objects younger
# than kmemleak's minimum age (5 s) are not reported: wait that long first.
kmemleak() {
	local k=/sys/kernel/debug/kmemleak out=/tmp/kmemleak.out n
	sleep 6
	if ! { echo scan > $k && echo scan > $k && cat $k > $out; }; then
		tap_not_ok "kmemleak: scan (kmemleak disabled?)"
		return
	fi
	n=$(grep -c 'unreferenced object' $out)
	if [ "$n" = 0 ]; then
		tap_ok "kmemleak: no leak"
	else
		head -60 $out | while IFS= read -r l; do tap "# $l"; done
		tap_not_ok "kmemleak: $n unreferenced objects"
	fi
}

scripts=$(ls /ws/selftests/*.sh 2>/dev/null || true)
# ws.only=NAME[,NAME...] on the command line (make check ONLY=...): only
# those selftests (file names without .sh), for iterating on one of them.
only=
for w in $(cat /proc/cmdline); do
	case "$w" in ws.only=*) only=${w#ws.only=} ;; esac
done
if [ -n "$only" ]; then
	keep=
	for s in $scripts; do
		n=${s##*/}
		case ",$only," in *",${n%.sh},"*) keep="$keep $s" ;; esac
	done
	scripts=$keep
fi
leakcheck=0
[ -e /sys/kernel/debug/kmemleak ] && leakcheck=1
tap "TAP version 13"
tap "1..$(($(echo $scripts | wc -w) + 1 + leakcheck))"
top=0
for s in $scripts; do
	WS_TAP_N=$top; selftest "$s"; top=$WS_TAP_N
done
smoke
[ $leakcheck = 0 ] || kmemleak
fails=$WS_TAP_FAIL
echo "ws: check done, $fails failed"
[ "$fails" = 0 ]
