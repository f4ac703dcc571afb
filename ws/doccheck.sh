#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The documentation checks of the series, for `make series-check` and by
# hand:
#
#   kernel-doc  the base's scripts/kernel-doc -none, and -none -Wall, on every
#               .c and .h file of ours (the add lines of MANIFEST) report
#               nothing; every exported function and every struct of
#               include/linux/kprobes.h has a kernel-doc comment
#   index       the base's Documentation/trace/index.rst lists kprobes
#   rst         Documentation/trace/kprobes.rst is valid reST (docutils,
#               warnings are errors, kernel-doc directives expanded)
#   xref        every identifier the doc names exists (ws/doccheck.py)
#
# Prints one line per check and a summary; exits 1 if any check fails.
set -u
cd "$(dirname "$0")/.." || exit 1
. ws/lib.sh

BASE=$(ls -d "$WS_CACHE"/base/*/ 2>/dev/null | head -n 1)
BASE=${BASE%/}
if [ -z "$BASE" ] || [ ! -x "$BASE/scripts/kernel-doc" ]; then
	echo "doccheck: no base tree in $WS_CACHE/base (make setup)" >&2
	exit 1
fi

failed=()
result() {	# name status detail
	printf '%-11s %-4s %s\n' "$1" "$2" "$3"
	[ "$2" = ok ] || failed+=("$1")
}

# Our C files: the add lines of MANIFEST.
mapfile -t files < <(awk '$1 == "add" { print $2 }' MANIFEST |
	while read -r g; do
		for f in $g; do
			[ -f "$f" ] && echo "$f"
		done
	done | grep -E '\.[ch]$' | sort -u)

out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$BASE/scripts/kernel-doc" -none "${files[@]}" >"$out" 2>&1 || true
"$BASE/scripts/kernel-doc" -none -Wall "${files[@]}" >>"$out" 2>&1 || true
if [ -s "$out" ]; then
	sed 's/^/  /' "$out"
	result kernel-doc FAIL "$(wc -l <"$out") report(s) on ${#files[@]} files"
else
	result kernel-doc ok "-none and -Wall: nothing to report on ${#files[@]} files"
fi

if python3 ws/doccheck.py --exports >"$out" 2>&1; then
	result exports ok "$(sed -n 's/^exports: //p' "$out" | tail -n 1)"
else
	sed 's/^/  /' "$out"
	result exports FAIL "undocumented exports or structs"
fi

if grep -Eq '^[[:space:]]+kprobes$' "$BASE/Documentation/trace/index.rst"; then
	result index ok "Documentation/trace/index.rst lists kprobes"
else
	result index FAIL "Documentation/trace/index.rst does not list kprobes"
fi

if python3 ws/doccheck.py --rst >"$out" 2>&1; then
	result rst ok "$(sed -n 's/^rst: [^:]*: //p' "$out" | tail -n 1)"
else
	sed 's/^/  /' "$out"
	result rst FAIL "Documentation/trace/kprobes.rst"
fi

if python3 ws/doccheck.py --xref >"$out" 2>&1; then
	{ grep '^xref: pending\|^xref: .* is merged' "$out" || true; } | sed 's/^/  /'
	result xref ok "$(sed -n 's/^xref: //p' "$out" | tail -n 1)"
else
	grep -v '^xref: [0-9]' "$out" | sed 's/^/  /'
	result xref FAIL "$(sed -n 's/^xref: \([0-9]\)/\1/p' "$out" | tail -n 1)"
fi

if [ ${#failed[@]} -gt 0 ]; then
	echo "doccheck: FAILED: ${failed[*]}"
	exit 1
fi
echo "doccheck: all checks passed"
