#!/bin/bash
# Install what the workshop needs on a Debian 12 machine, and the guest
# userspace (a static busybox) of each ARCH given (default: all).
# Idempotent: does only what is not done yet.
#
# usage: ws/setup.sh [ARCH...]
. "$(dirname "$0")/lib.sh"

PKGS=(build-essential flex bison libelf-dev libssl-dev bc kmod rsync xz-utils
      dwarves cpio file python3 ccache dpkg-dev busybox-static opensbi
      qemu-system-x86 qemu-system-arm qemu-system-misc qemu-system-ppc
      gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu gcc-powerpc64le-linux-gnu
      libc6-dev-arm64-cross libc6-dev-riscv64-cross libc6-dev-ppc64el-cross)

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
updated=
apt_update() {
	[ -n "$updated" ] && return
	local i
	for i in 1 2 3; do
		ws_log "apt-get update"
		$SUDO apt-get update -q >&2 && break
		# A mirror in sync fails one index: retry, then go on with what we have.
		if [ $i = 3 ]; then ws_log "warning: apt-get update failed, going on"; else sleep 10; fi
	done
	updated=1
}
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q "ok installed"; }
apt_install() {
	apt_update
	ws_log "installing $*"
	$SUDO apt-get install -y -q --no-install-recommends "$@" >&2
}

missing=()
for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
[ ${#missing[@]} = 0 ] || apt_install "${missing[@]}"

# The pinned kernel base, extracted once into the cache.
"$WS_REPO/ws/base.sh" >/dev/null

# Is $1 a static busybox for the arch of 'file' pattern $2?
good_busybox() { [ -x "$1" ] && file -L "$1" | grep -q "$2.*statically linked"; }

# busybox-static of a foreign Debian architecture, unpacked from its .deb.
busybox_deb() {
	local deb_arch=$1 out=$2 tmp
	if ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
		$SUDO dpkg --add-architecture "$deb_arch"
		updated=
	fi
	apt_update
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "busybox-static:$deb_arch" >&2)
	dpkg -x "$tmp"/busybox-static_*.deb "$tmp/x"
	install -m 755 "$tmp/x/bin/busybox" "$out"
	rm -rf "$tmp"
}

# riscv64 is not a Debian 12 architecture: cross-build busybox from source.
busybox_src() {
	local out=$1 src="$WS_CACHE/userspace/src" dir
	local srcs=/etc/apt/sources.list.d/ws-deb-src.sources
	if [ ! -f $srcs ]; then
		# deb-src entries with the same URIs and suites as the deb ones.
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $SUDO tee $srcs >/dev/null
		else
			grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
				$SUDO tee "${srcs%.sources}.list" >/dev/null
			$SUDO touch $srcs
		fi
		updated=
	fi
	dir=$(find "$src" -maxdepth 1 -type d -name 'busybox-*' 2>/dev/null | head -1 || true)
	if [ -z "$dir" ]; then
		apt_update
		rm -rf "$src"; mkdir -p "$src"
		(cd "$src" && apt-get source -q -o APT::Sandbox::User=root busybox >&2)
		dir=$(find "$src" -maxdepth 1 -type d -name 'busybox-*' | head -1)
	fi
	ws_log "building a static busybox for riscv64 in $dir"
	local mk=(make -C "$dir" -s ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- -j"$(nproc)")
	"${mk[@]}" defconfig >/dev/null
	# Static; without what does not build against the cross headers or is of no use here.
	sed -i -e 's/^# CONFIG_STATIC is not set/CONFIG_STATIC=y/' \
	       -e 's/^CONFIG_\(TC\|SHA1_HWACCEL\|SHA256_HWACCEL\|FEATURE_HAVE_RPC\)=y/# CONFIG_\1 is not set/' \
	       "$dir/.config"
	{ yes "" || true; } | "${mk[@]}" oldconfig >/dev/null
	"${mk[@]}" busybox >"$src/build.log" 2>&1 || { tail -30 "$src/build.log" >&2; ws_die "busybox build failed"; }
	install -m 755 "$dir/busybox" "$out"
}

[ $# -gt 0 ] || set -- "${WS_ARCHES[@]}"
for a in "$@"; do
	ws_arch "$a"
	out="$WS_CACHE/userspace/$WS_ARCH/busybox"
	case $WS_ARCH in
	x86_64) magic="x86-64" ;; arm64) magic="ARM aarch64" ;;
	riscv) magic="RISC-V" ;; powerpc) magic="64-bit LSB.*PowerPC" ;;
	esac
	good_busybox "$out" "$magic" && continue
	mkdir -p "${out%/*}"
	ws_log "guest userspace for $WS_ARCH"
	case $WS_ARCH in
	x86_64) install -m 755 /bin/busybox "$out" ;;
	riscv) busybox_src "$out" ;;
	*) busybox_deb "$DEB_ARCH" "$out" ;;
	esac
	good_busybox "$out" "$magic" || ws_die "$out is not a static $WS_ARCH busybox: $(file -L "$out")"
done
ws_log "setup done"
