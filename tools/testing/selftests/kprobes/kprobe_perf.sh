#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf's kprobe PMU: runs kprobe_perf (kprobe_perf.c),
# a static program that ws/initramfs.sh builds for the guest's arch.
# Output: kselftest TAP.

cd "$(dirname "$0")" || exit 1
if [ ! -x ./kprobe_perf ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - kprobe_perf is missing (not built?)"
	exit 1
fi
exec ./kprobe_perf
