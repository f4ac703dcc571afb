# Helpers of the guest scripts (sourced): kselftest-style TAP, every line
# prefixed with "ws-tap: " so that the host can tell it from kernel messages.
WS_TAP_N=0
WS_TAP_FAIL=0
WS_TAP_INDENT=
tap() { echo "ws-tap: $WS_TAP_INDENT$*"; }
tap_ok() { WS_TAP_N=$((WS_TAP_N + 1)); tap "ok $WS_TAP_N $*"; }
tap_not_ok() { WS_TAP_N=$((WS_TAP_N + 1)); WS_TAP_FAIL=$((WS_TAP_FAIL + 1)); tap "not ok $WS_TAP_N $*"; }
tap_skip() { WS_TAP_N=$((WS_TAP_N + 1)); tap "ok $WS_TAP_N $1 # SKIP ${2:-}"; }
# tap_check NAME COMMAND...: one result from a command's exit status
tap_check() {
	local name=$1; shift
	if "$@"; then tap_ok "$name"; else tap_not_ok "$name"; fi
}

# riscv (6.12) takes kprobe breakpoints in NMI context, and its ring buffer
# drops events in NMI context (no ARCH_HAVE_NMI_SAFE_CMPXCHG): the hits of a
# p: event are counted, but none reaches the trace.  r: events do.
WS_NMI_DROPS=
# Upstream only: the series selects ARCH_HAVE_NMI_SAFE_CMPXCHG on riscv.
[ "$(uname -m)" = riscv64 ] && grep -q "ws.variant=upstream" /proc/cmdline &&
	WS_NMI_DROPS="riscv drops trace events of the breakpoint handler (NMI context)"
