#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# uprobes through uprobe_events: runs uprobe_events (uprobe_events.c),
# a static program that ws/initramfs.sh builds for the guest's arch.
# Output: kselftest TAP.

cd "$(dirname "$0")" || exit 1
if [ ! -x ./uprobe_events ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - uprobe_events is missing (not built?)"
	exit 1
fi
exec ./uprobe_events
