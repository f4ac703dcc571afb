#!/bin/bash
# Build the guest's initramfs: busybox, /init, the guest scripts, the kernel's
# modules, the selftests of the series (scripts, modules, static programs) and
# the user's EXTRA files.
# Prints the path of the (uncompressed newc) cpio.
#
# usage: ws/initramfs.sh ARCH MODE [extra files...]
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || ws_die "usage: $0 ARCH MODE [files...]"
ws_arch "$1"; mode=$2; shift 2
[ -f "$WS_REPO/ws/guest/$mode.sh" ] || ws_die "no guest mode '$mode' (ws/guest/$mode.sh)"

build=$(ws_build_dir "$WS_ARCH")
busybox="$WS_CACHE/userspace/$WS_ARCH/busybox"
gen="$build/usr/gen_init_cpio"
[ -x "$gen" ] || ws_die "$gen missing: build the kernel first (ws/kernel.sh)"
[ -x "$busybox" ] || ws_die "$busybox missing: run ws/setup.sh $WS_ARCH"

list="$build/initramfs-$mode.list"
out="$build/initramfs-$mode.cpio"
dirs=" "
mkdir_p() {	# the directory and its parents, each once
	local d=$1
	[ "$d" = / ] && return 0
	case "$dirs" in *" $d "*) return 0 ;; esac
	mkdir_p "$(dirname "$d")"
	echo "dir $d 0755 0 0"
	dirs="$dirs$d "
}
put() {		# put SRC DST [MODE]
	case "$1$2" in *[[:space:]]*) ws_die "no spaces in file names, please: '$1'" ;; esac
	mkdir_p "$(dirname "$2")"
	echo "file $2 $1 ${3:-0644} 0 0"
}

# Out-of-tree modules of the selftests: the hook for tools/testing/selftests/kprobes.
# A Kbuild file there is built against this kernel; its *.ko go to /ws/selftests.
# Built in a directory of this run's own (other runs may build for the same
# kernel at the same time), removed at the end.
selftests="$WS_REPO/tools/testing/selftests/kprobes"
st_build=$(mktemp -d "$build/ws-selftests.XXXXXX")
trap 'rm -rf "$st_build"' EXIT
if [ "$mode" = check ] && [ -f "$selftests/Kbuild" ]; then
	cp -r "$selftests/." "$st_build/"
	ws_log "building the selftests' modules"
	ws_kmake "$WS_ARCH" M="$st_build" modules >&2
fi
# Its C programs (a .c with a main()) are built static for the guest, with
# the arch's cross compiler; they land next to the scripts too.
st_progs=()
if [ "$mode" = check ] && [ -d "$selftests" ]; then
	for c in "$selftests"/*.c; do
		[ -f "$c" ] && grep -q '^int main(' "$c" || continue
		prog="$st_build/$(basename "$c" .c)"
		ws_log "building ${c#"$WS_REPO"/} for $WS_ARCH"
		"$GNU_TRIPLE-gcc" -static -O2 -Wall -Werror -o "$prog" "$c" >&2 ||
			ws_die "cannot build $c"
		st_progs+=("$prog")
	done
fi

{
	mkdir_p /dev; echo "nod /dev/console 0600 0 0 c 5 1"
	for d in /proc /sys /tmp /root /sbin /usr/bin /usr/sbin /extra /lib/ws-modules; do mkdir_p $d; done
	put "$busybox" /bin/busybox 0755
	echo "slink /bin/sh busybox 0777 0 0"
	put "$WS_REPO/ws/guest/init" /init 0755
	for f in "$WS_REPO"/ws/guest/*.sh; do put "$f" "/ws/${f##*/}" 0755; done
	# The kernel's modules (samples/kprobes/*.ko, ...), flat.
	find "$build" -path "$build/ws-selftests*" -prune -o -name '*.ko' -print | sort |
		while read -r ko; do put "$ko" "/lib/ws-modules/${ko##*/}"; done
	if [ "$mode" = check ] && [ -d "$selftests" ]; then
		mkdir_p /ws/selftests
		for f in "$selftests"/*.sh "$st_build"/*.ko "${st_progs[@]}"; do
			if [ -f "$f" ]; then put "$f" "/ws/selftests/${f##*/}" 0755; fi
		done
	fi
	for f in "$@"; do
		[ -f "$f" ] || ws_die "EXTRA file '$f' does not exist"
		put "$(realpath "$f")" "/extra/${f##*/}" 0755
	done
} > "$list"
"$gen" "$list" > "$out"
echo "$out"
