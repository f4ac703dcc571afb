#!/bin/bash
# make series-check: is the series of `make series` bisectable and clean?
#
# Writes the series (ws/series.py, compared with a freshly assembled "ours"
# tree), then applies its patches one by one to a copy of the pristine base
# and, after each one, runs checkpatch.pl --strict on it and builds x86_64
# incrementally with the workshop's config (the fragments of ws/kernel.sh,
# on allnoconfig, configured again at each step: options appear as the
# series brings them).  After the last patch the tree must be identical to
# the assembled one (diff -r), and every option the fragments ask for must
# be set.  Runs ws/doccheck.sh too when it exists (on the same snapshot).
#
# Prints a table per patch and a summary line; exits non-zero on any failure.
# SERIES_BUILD=0 skips the builds (apply, checkpatch and diff only).
. "$(dirname "$0")/lib.sh"
ws_arch x86_64

base=$("$WS_REPO/ws/base.sh")
sdir="$WS_CACHE/series"
ref="$sdir/ref"                   # the assembled ours tree
tree="$sdir/tree"                 # the base with the series applied step by step
build="$WS_CACHE/build/series-x86_64"
out="$WS_REPO/out/series"
logs="$build/series-logs"
do_build=${SERIES_BUILD:-1}
mkdir -p "$sdir" "$build" "$logs" "$CCACHE_DIR"

# ws_kmake, in our tree and build dir.
ws_tree_dir() { echo "$tree"; }
ws_build_dir() { echo "$build"; }

# One snapshot of the repo for the series and the reference tree: others may
# be editing files while this runs.
snap="$sdir/repo"
rsync -a --delete --exclude /out "$WS_REPO/" "$snap/"
ws_log "assembling the reference tree $ref"
VARIANT=ours "$snap/ws/assemble.py" "$base" "$ref" ours
"$snap/ws/series.py" --base "$base" --ref "$ref" --out "$out" > "$sdir/list" ||
	ws_die "make series failed"
# This run's copy: `make series` may write out/series again meanwhile.
rm -rf "$sdir/patches"; cp -r "$out" "$sdir/patches"
mapfile -t patches < <(ls "$sdir"/patches/*.patch | grep -v '/0000-cover-letter.patch$')

ws_log "fresh copy of the base in $tree"
if [ -e "$tree" ]; then chmod -R u+w "$tree"; rm -rf "$tree"; fi
cp -al "$base" "$tree"
find "$tree" -type d -exec chmod u+w {} +
# The files the series touches are real copies with a new mtime: kbuild
# rebuilds what a previous run left in the build dir for other contents.
touched=$(sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "${patches[@]}" | sort -u)
while IFS= read -r p; do
	if [ -f "$tree/$p" ]; then
		cp "$tree/$p" "$tree/$p.ws-tmp" && mv -f "$tree/$p.ws-tmp" "$tree/$p"
	fi
done <<< "$touched"

frags=("$WS_REPO/configs/common.config" "$WS_REPO/configs/x86_64.config")
for f in ours ours-x86_64; do
	if [ -f "$WS_REPO/configs/$f.config" ]; then frags+=("$WS_REPO/configs/$f.config"); fi
done
cat "${frags[@]}" > "$build/ws-fragment.config"
# Requested options, the last line of each winning (as in ws/kernel.sh).
wanted=$(grep -E '^CONFIG_.*=[ym0-9"]' "$build/ws-fragment.config" |
	awk -F= '{ last[$1] = $0; ord[$1] = NR } END { for (o in last) print ord[o] "\t" last[o] }' |
	sort -n | cut -f2-)
missing_opts() {
	local n=0 line
	while IFS= read -r line; do
		grep -qxF "$line" "$build/.config" || n=$((n + 1))
	done <<< "$wanted"
	echo $n
}

checkpatch="$base/scripts/checkpatch.pl"
rows=()
fail=0 tot_e=0 tot_w=0 tot_c=0 tot_fpc=0 n_applied=0 n_built=0
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	name=$(basename "$p" .patch)
	subj=$(sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$p")
	# Never write through a hard link into the base.
	for f in $(sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$p"); do
		if [ -f "$tree/$f" ]; then
			cp "$tree/$f" "$tree/$f.ws-tmp" && mv -f "$tree/$f.ws-tmp" "$tree/$f"
		fi
	done
	if (cd "$tree" && git apply --whitespace=nowarn "$p") > "$logs/$name.apply" 2>&1; then
		applies=yes; n_applied=$((n_applied + 1))
	else
		applies=NO; fail=1
		cat "$logs/$name.apply" >&2
	fi

	"$checkpatch" --strict --root="$base" "$p" > "$logs/$name.checkpatch" 2>&1 || true
	read -r e w c < <(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' \
		"$logs/$name.checkpatch") || true
	# checkpatch asks "does MAINTAINERS need updating?" of every patch that
	# adds or deletes files (FILE_PATH_CHANGES): ws/series.py --maintained
	# answers it on the tree after the patch, and an answered question is
	# not counted as a warning.
	fpc=$(grep -c "does MAINTAINERS need updating" "$logs/$name.checkpatch" || true)
	maint=-
	if [ "$fpc" -gt 0 ] && [ "$applies" = yes ]; then
		if "$sdir/repo/ws/series.py" --maintained "$tree" "$p" > "$logs/$name.maint" 2>&1; then
			maint=ok
		else
			maint=NO; fail=1; cat "$logs/$name.maint" >&2
		fi
	fi
	if [ -z "${e:-}" ]; then e=? w=? c=?; fail=1
	else
		[ "$maint" = ok ] && w=$((w - fpc)) && tot_fpc=$((tot_fpc + fpc))
		tot_e=$((tot_e + e)); tot_w=$((tot_w + w)); tot_c=$((tot_c + c))
		[ "$e" = 0 ] && [ "$w" = 0 ] || fail=1
	fi

	builds=skipped secs=- miss=- warn=-
	if [ "$do_build" = 1 ] && [ "$applies" = yes ]; then
		ws_log "step $i/${#patches[@]}: building $subj"
		t0=$SECONDS
		# The build lock, taken at the first build and held until the
		# end: the steps are one job (taken per step, every other build
		# of the machine would get in between each two).  ws_kmake sees
		# that we hold it.
		ws_build_lock
		if (ws_kmake x86_64 KCONFIG_ALLCONFIG="$build/ws-fragment.config" allnoconfig &&
		    ws_kmake x86_64 all) > "$logs/$name.build" 2>&1; then
			builds=yes; n_built=$((n_built + 1))
		else
			builds=NO; fail=1
			grep -E "error|Error" "$logs/$name.build" | head -20 >&2 || true
		fi
		secs=$((SECONDS - t0))
		miss=$(missing_opts)
		warn=$(grep -c "warning:" "$logs/$name.build" || true)
	fi
	rows+=("$(printf '%-3s %-56.56s %-7s %-7s %5s %4s %8s %-9s %s' "$i" "$subj" "$applies" \
		"$builds" "$secs" "$warn" "$miss" "$e/$w/$c" "$maint")")
	ws_log "step $i: applies $applies, builds $builds (${secs}s), checkpatch $e/$w/$c"
done

# After the last patch: the assembled tree, and every requested option.
if diff -r -q -x .ws-base -x .ws-owned "$tree" "$ref" > "$sdir/final.diff" 2>&1; then
	same=identical
else
	same=DIFFERENT; fail=1
	head -20 "$sdir/final.diff" >&2 || true
fi
opts=-
if [ "$do_build" = 1 ]; then
	opts=$(missing_opts)
	[ "$opts" = 0 ] || fail=1
fi

doc=absent
if [ -x "$snap/ws/doccheck.sh" ]; then
	if "$snap/ws/doccheck.sh" > "$logs/doccheck.log" 2>&1; then doc=ok
	else doc=FAILED; fail=1; tail -20 "$logs/doccheck.log" >&2; fi
fi

echo
echo "series-check, x86_64 builds (base $(ws_base_version)), patches in $out"
printf '%-3s %-56s %-7s %-7s %5s %4s %8s %-9s %s\n' "#" "patch" "applies" "builds" "secs" "warn" "opts-off" \
	"e/w/c" "maint"
for r in "${rows[@]}"; do echo "$r"; done
echo
echo "warn: compiler warnings of the step's build (in its log);"
echo "e/w/c: checkpatch.pl --strict errors/warnings/checks; maint: the files the patch adds or"
echo "deletes are covered by MAINTAINERS (checkpatch's FILE_PATH_CHANGES question, answered: not"
echo "counted in w; $tot_fpc such); opts-off: options of the workshop config not (yet) set after the"
echo "step (KPROBES and its dependents until x86 selects HAVE_KPROBES), 0 needed at the end"
echo "final tree vs assembled ours: $same; requested options missing at the end: $opts; doccheck: $doc"
echo "logs: $logs"
verdict=PASS
[ $fail = 0 ] || verdict=FAIL
echo "series-check: ${#patches[@]} patches, $n_applied applied, $n_built built," \
	"checkpatch $tot_e errors, $tot_w warnings (+$tot_fpc answered FILE_PATH_CHANGES), $tot_c checks," \
	"final tree $same: $verdict"
exit $fail
