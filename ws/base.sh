#!/bin/bash
# Make sure the pinned Linux 6.12 base is installed and extracted into the cache.
# Prints the path of the pristine base tree.
. "$(dirname "$0")/lib.sh"

pkgver() { dpkg-query -W -f='${Version}' "$WS_BASE_PKG" 2>/dev/null || true; }

have=$(pkgver)
if [ "$have" != "$WS_BASE_WANT" ]; then
	# Install the pinned version when the registry has it, else the newest 6.12.
	if apt-cache madison "$WS_BASE_PKG" 2>/dev/null | grep -q "$WS_BASE_WANT"; then
		want="$WS_BASE_PKG=$WS_BASE_WANT"
	else
		want="$WS_BASE_PKG"
	fi
	if [ -z "$have" ] || [ "$want" != "$WS_BASE_PKG" ]; then
		ws_log "installing $want"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			--allow-downgrades "$want" >&2 || ws_die "cannot install $want"
	fi
	have=$(pkgver)
fi
[ -n "$have" ] || ws_die "$WS_BASE_PKG is not installed"

dir="$WS_CACHE/base/$have"
if [ ! -f "$dir/.ws-extracted" ]; then
	ws_log "extracting $WS_BASE_PKG $have into $dir"
	rm -rf "$dir"; mkdir -p "$dir"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$dir" --strip-components=1
	# The pristine base is shared by hard links: make it read-only.
	chmod -R a-w "$dir"
	touch "$dir/.ws-extracted" 2>/dev/null || { chmod u+w "$dir"; touch "$dir/.ws-extracted"; chmod u-w "$dir"; }
fi
echo "$have" > "$WS_CACHE/base/VERSION"
echo "$dir"
