#!/bin/bash
# Build the kernel of VARIANT for ARCH: assemble the tree, configure from the
# fragments on allnoconfig, check every requested option, build.
# Ends by printing "image: ..." and "build: ...".
. "$(dirname "$0")/lib.sh"
ws_arch "$ARCH"

base=$("$WS_REPO/ws/base.sh")
tree=$(ws_tree_dir)
build=$(ws_build_dir "$WS_ARCH")
mkdir -p "$build" "$CCACHE_DIR"
ws_build_lock
t0=$SECONDS
"$WS_REPO/ws/assemble.py" "$base" "$tree" "$VARIANT"

frags=("$WS_REPO/configs/common.config" "$WS_REPO/configs/$WS_ARCH.config")
# What only the series has (e.g. arm64 OPTPROBES): configs/ours[-ARCH].config.
if [ "$VARIANT" = ours ]; then
	for f in ours ours-$WS_ARCH; do
		if [ -f "$WS_REPO/configs/$f.config" ]; then frags+=("$WS_REPO/configs/$f.config"); fi
	done
fi
# A flavour's fragment, then what it needs on this arch (FLAVOUR-ARCH.config).
for f in ${WS_FLAVOUR:-}; do
	frags+=("$WS_REPO/configs/$f.config")
	if [ -f "$WS_REPO/configs/$f-$WS_ARCH.config" ]; then frags+=("$WS_REPO/configs/$f-$WS_ARCH.config"); fi
done
cat "${frags[@]}" > "$build/ws-fragment.config.new"
if ! cmp -s "$build/ws-fragment.config.new" "$build/ws-fragment.config" || [ ! -f "$build/.config" ]; then
	mv "$build/ws-fragment.config.new" "$build/ws-fragment.config"
	ws_log "configuring $VARIANT/$WS_ARCH (allnoconfig + ${frags[*]##*/})"
	ws_kmake "$WS_ARCH" KCONFIG_ALLCONFIG="$build/ws-fragment.config" allnoconfig >/dev/null ||
		{ rm -f "$build/ws-fragment.config"; ws_die "configuring $VARIANT/$WS_ARCH failed"; }
else
	rm -f "$build/ws-fragment.config.new"
	ws_kmake "$WS_ARCH" olddefconfig >/dev/null
fi

# A silently dropped option is an error: every "CONFIG_X=v" of the fragments
# must be in .config as is; "=n" and "# CONFIG_X is not set" mean it is off.
# A later fragment overrides an earlier one: the last line of an option counts.
final=$(grep -E '^CONFIG_|^# CONFIG_.* is not set' "$build/ws-fragment.config" |
	awk '{ o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o); last[o] = $0; ord[o] = NR }
	     END { for (o in last) print ord[o] "\t" last[o] }' | sort -n | cut -f2-)
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n|"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%%[= ]*}
		if grep -q "^$opt=" "$build/.config"; then
			echo "config: $opt should be off, got: $(grep "^$opt=" "$build/.config")" >&2; bad=1
		fi ;;
	CONFIG_*=*)
		opt=${line%%=*}
		if ! grep -qxF "$line" "$build/.config"; then
			echo "config: $line requested, got: $(grep "^$opt=\|# $opt is" "$build/.config" || echo unset)" >&2; bad=1
		fi ;;
	esac
done <<< "$final"
# Forget the fragment on failure, so that the next run configures from scratch
# instead of carrying the bad .config forward with olddefconfig.
[ $bad = 0 ] || { rm -f "$build/ws-fragment.config"
		  ws_die "configuration of $VARIANT/$WS_ARCH dropped requested options"; }

ws_log "building $VARIANT/$WS_ARCH (base $(ws_base_version))"
log="$build/ws-build.log"
if ! ws_kmake "$WS_ARCH" all > "$log" 2>&1; then
	grep -E "error|Error" "$log" | head -40 >&2
	ws_die "build of $VARIANT/$WS_ARCH failed (full log: $log)"
fi
grep -E "warning:" "$log" | head -20 >&2 || true
ws_log "configured and built $VARIANT/$WS_ARCH in $((SECONDS - t0))s"
echo "image: $build/$K_IMAGE"
echo "build: $build"
