#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BPF kprobe programs, bpf_override_return() and fail_function: runs
# kprobe_bpf (kprobe_bpf.c), a static program that ws/initramfs.sh builds for the guest's arch.
# Output: kselftest TAP.

cd "$(dirname "$0")" || exit 1
if [ ! -x ./kprobe_bpf ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - kprobe_bpf is missing (not built?)"
	exit 1
fi
exec ./kprobe_bpf
