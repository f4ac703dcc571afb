#!/usr/bin/env python3
"""Read the console logs of guest boots and tell what passed.

usage: results.py [--json] [--expect-kunit] LOG...

For each log it counts
  - KUnit (KTAP on the console, printk timestamps): the test cases of each
    suite (a parameterised case counts once), cross-checked against the
    "# suite: pass:N fail:N skip:N total:N" lines;
  - the guest's selftests: kselftest TAP lines prefixed "ws-tap: " (leaves of
    nested TAP count, their parents do not);
  - console health: BUG, WARNING, Oops, panic, KASAN, UBSAN, KFENCE,
    lockdep, RCU, debug objects, list corruption, kmemleak, hung task, stall,
    stray "Call Trace:" lines;
  - whether the guest finished (WS-GUEST-DONE) in time.
With --expect-kunit, a log fails unless its KUnit suites include
kprobes_test and, for VARIANT=ours, kprobes_manager and the arch's suite.
Prints a table, one row a log, then the failures, then the line
"N passed, N failed, N skipped"; with --json, a JSON list instead.
Exits 1 if anything failed.
"""
import json
import os
import re
import sys

TS = re.compile(r"^\[\s*\d+\.\d+\] ?")
RESULT = re.compile(r"^(\s*)(ok|not ok) (\d+)(?: (.*?))?\s*$")
STATS = re.compile(r"^(\s*)# (\S+): pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)")
SUBTEST = re.compile(r"^(\s*)# Subtest: (\S+)")
GUEST_TAP = re.compile(r"ws-tap: (.*)$")
HEALTH = re.compile(
    r"BUG:|WARNING:|Oops|Kernel panic|KASAN:|UBSAN|KFENCE|possible circular locking"
    r"|possible recursive locking|inconsistent lock state|suspicious RCU usage"
    r"|DEBUG_LOCKS_WARN_ON|lock held when returning to user space|ODEBUG:"
    r"|list_(add|del) corruption|kernel BUG at|Unable to handle kernel"
    r"|unreferenced object|suspected memory leaks?|leak detector disabled|cut here"
    r"|RCU stall|rcu_\w+ (self-)?detected stall|detected stalls? on CPU"
    r"|page allocation failure"
    r"|hung_task|blocked for more than \d+ seconds|Call Trace:")
# Context in which a stack trace is expected: fault injection's report, and
# what a guest script brackets with WS-EXPECT-BEGIN / WS-EXPECT-END.
EXPECTED = re.compile(r"FAULT_INJECTION: forcing a failure")
TRACE_WINDOW = 40        # lines a "Call Trace:" belongs to the event before it


def directive(rest):
    """(name, 'pass'|'fail'|'skip') of a TAP result's description."""
    rest = rest or ""
    m = re.search(r"\s#\s*(SKIP|TODO)\b", rest, re.I) or re.match(r"#\s*(SKIP|TODO)\b", rest, re.I)
    name = rest[:m.start()].strip() if m else rest.strip()
    return name, m


def status(ok, rest):
    name, d = directive(rest)
    if d:
        return name, "skip"
    return name, "pass" if ok == "ok" else "fail"


# A printk timestamp inside a line: a kernel message written to the console
# while the guest's own output line was on its way (the UART takes the
# guest's text in FIFO-sized pieces and printk writes between them).
TS_INSIDE = re.compile(r"\[\s*\d+\.\d+\] ")
TAP_DIAG = re.compile(r"(ws-tap: )?\s*#")


def untangle(lines):
    """Rejoin guest output lines that kernel messages cut in two.

    "ws-tap:     ok 2[  17.88] msg" followed, a few kernel lines later, by
    " - name" (the first line without a timestamp) is the kernel line
    "[  17.88] msg" and the guest line "ws-tap:     ok 2 - name".  A TAP
    diagnostic ("# ...") may quote kernel messages: it is left alone.
    """
    out, torn = [], None        # torn: index in out of a line awaiting its rest
    for raw in lines:
        if TS.match(raw) or raw.startswith("WS-HOST: "):
            out.append(raw)
            continue
        if torn is None:
            torn = len(out)
            out.append("")
        out[torn] += raw
        m = TS_INSIDE.search(out[torn])
        if m and m.start() > 0 and not TAP_DIAG.match(out[torn]):
            out.append(out[torn][m.start():])
            out[torn] = out[torn][:m.start()]
        else:
            torn = None
    return out


def parse(path):
    r = {"log": path, "arch": "?", "variant": "?", "base": "?",
         "kunit": {"pass": 0, "fail": 0, "skip": 0, "suites": 0},
         "selftests": {"pass": 0, "fail": 0, "skip": 0},
         "console": [], "done": False, "guest_rc": None, "timeout": False,
         "failures": []}
    suite = None            # name, counts of the suite being read
    guest = []              # (indent, status, name) of the guest's TAP results
    expect_depth = 0
    last_event = -10**9     # line of the last health issue or expected context
    with open(path, errors="replace") as f:
        lines = untangle(f.read().replace("\r", "").split("\n"))
    for n, raw in enumerate(lines):
        if raw.startswith("WS-HOST: "):
            m = re.match(r"WS-HOST: (\w+)/(\w+) base (\S+)", raw)
            if m:
                r["variant"], r["arch"], r["base"] = m.groups()
                r["up"] = " maxcpus=1" in raw
            if raw.startswith("WS-HOST: timeout:"):
                r["timeout"] = True
            if " build failed: " in raw:
                r["build_failed"] = raw.split(" build failed: ", 1)[1]
            continue
        m = re.search(r"WS-GUEST-DONE rc=(\d+)", raw)
        if m:
            r["done"], r["guest_rc"] = True, int(m.group(1))
            continue
        m = GUEST_TAP.search(raw)
        if m:
            t = RESULT.match(m.group(1))
            if t:
                name, st = status(t.group(2), t.group(4))
                guest.append((len(t.group(1)), st, name))
            continue
        if "WS-EXPECT-BEGIN" in raw:
            expect_depth += 1
            continue
        if "WS-EXPECT-END" in raw:
            expect_depth = max(0, expect_depth - 1)
            last_event = n
            continue

        ts = TS.match(raw)
        line = raw[ts.end():] if ts else raw
        if ts:
            suite = kunit_line(r, line, suite)
        if EXPECTED.search(line):
            last_event = n
            continue
        h = HEALTH.search(line)
        if not h or RESULT.match(line):
            continue
        if expect_depth:
            last_event = n
            continue
        if h.group(0) == "Call Trace:" and n - last_event <= TRACE_WINDOW:
            continue        # the trace of what was reported (or expected) just before
        last_event = n
        r["console"].append(line.strip())

    # Guest TAP: a result is a parent when the result just before it is deeper.
    for i, (indent, st, name) in enumerate(guest):
        if i and guest[i - 1][0] > indent:
            continue
        r["selftests"][st] += 1
        if st == "fail":
            r["failures"].append(f"selftest: not ok {name}")
    # A kernel flavour (WS_FLAVOUR) builds in VARIANT-ARCH-FLAVOUR.
    bdir = os.path.basename(os.path.dirname(os.path.dirname(path)))
    prefix = f"{r['variant']}-{r['arch']}-"
    if bdir.startswith(prefix):
        r["arch"] += f" ({bdir[len(prefix):]})"
    if r.get("up"):
        r["arch"] += " (maxcpus=1)"
    verdict(r)
    return r


def kunit_line(r, line, suite):
    """Count a KTAP line of KUnit; returns the suite being read (or None)."""
    m = SUBTEST.match(line)
    if m and len(m.group(1)) == 4:
        return {"name": m.group(2), "pass": 0, "fail": 0, "skip": 0}
    if suite is None:
        return None
    m = RESULT.match(line)
    if m:
        indent = len(m.group(1))
        name, st = status(m.group(2), m.group(4))
        if indent == 4:                 # a test case of the suite
            suite[st] += 1
            r["kunit"][st] += 1
            if st == "fail":
                r["failures"].append(f"kunit: {suite['name']}.{name} failed")
        elif indent == 0:               # the suite's own result
            r["kunit"]["suites"] += 1
            r["kunit"].setdefault("names", []).append(suite["name"])
            if st == "fail" and suite["fail"] == 0:
                r["failures"].append(f"kunit: suite {name} failed")
            return None
        return suite
    m = STATS.match(line)
    if m and len(m.group(1)) == 0 and m.group(2) == suite["name"]:
        want = tuple(int(x) for x in m.group(3, 4, 5))
        got = (suite["pass"], suite["fail"], suite["skip"])
        if want != got:
            r["failures"].append(f"kunit: {suite['name']}: counted pass/fail/skip "
                                 f"{got}, the suite says {want}")
    return suite


def verdict(r):
    if r.get("build_failed"):
        r["failures"].append(f"build: the kernel did not build, see {r['build_failed']}")
        return
    if r["timeout"]:
        r["failures"].append("boot: timed out")
    if not r["done"]:
        r["failures"].append("boot: the guest never printed WS-GUEST-DONE")
    elif r["guest_rc"] != 0 and not (r["selftests"]["fail"] or r["kunit"]["fail"]):
        r["failures"].append(f"guest: exited with rc={r['guest_rc']}")
    for c in r["console"][:10]:
        r["failures"].append(f"console: {c}")
    if len(r["console"]) > 10:
        r["failures"].append(f"console: ... {len(r['console']) - 10} more")


# The KUnit suites a check boot must run: the base's kprobes_test always;
# with the series, its core suite and the one of the arch.
ARCH_SUITES = {"x86_64": "x86_kprobes", "arm64": "arm64_kprobes",
               "riscv": "kprobes_riscv", "powerpc": "powerpc_kprobes"}


def expected_suites(r):
    names = ["kprobes_test"]
    if r["variant"] == "ours":
        names.append("kprobes_manager")
        arch = r["arch"].split(" ")[0]
        if arch in ARCH_SUITES:
            names.append(ARCH_SUITES[arch])
    return names


def main(argv):
    as_json = "--json" in argv
    expect_kunit = "--expect-kunit" in argv
    logs = [a for a in argv if not a.startswith("--")]
    if not logs:
        sys.exit(__doc__)
    res = []
    for log in logs:
        if not os.path.exists(log):
            res.append({"log": log, "arch": "?", "variant": "?", "base": "?",
                        "kunit": {"pass": 0, "fail": 0, "skip": 0, "suites": 0},
                        "selftests": {"pass": 0, "fail": 0, "skip": 0},
                        "console": [], "failures": ["boot: no console log"]})
            continue
        r = parse(os.path.realpath(log))
        if expect_kunit:
            ran = set(r["kunit"].get("names", []))
            for name in expected_suites(r):
                if name not in ran:
                    r["failures"].append(f"kunit: suite {name} did not run")
        res.append(r)
    if as_json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        table(res)
    return 1 if any(r["failures"] for r in res) else 0


def table(res):
    rows = [("arch", "variant", "base", "kunit p/f/s", "selftests p/f/s", "console", "verdict", "log")]
    for r in res:
        k, s = r["kunit"], r["selftests"]
        rows.append((r["arch"], r["variant"], r["base"],
                     f"{k['pass']}/{k['fail']}/{k['skip']}",
                     f"{s['pass']}/{s['fail']}/{s['skip']}",
                     "ok" if not r["console"] else f"{len(r['console'])} issues",
                     "FAIL" if r["failures"] else "ok", r["log"]))
    w = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(row[:-1])) + "  " + row[-1])
    failed_logs = [r for r in res if r["failures"]]
    for r in failed_logs:
        print(f"\nFAILED {r['arch']} ({r['variant']}): console log {r['log']}")
        for f in r["failures"]:
            print(f"  {f}")
    passed = sum(r["kunit"]["pass"] + r["selftests"]["pass"] for r in res)
    skipped = sum(r["kunit"]["skip"] + r["selftests"]["skip"] for r in res)
    # Every failing test, and every other failure (boot, console, ...), counts once.
    failed = sum(len(r["failures"]) for r in res)
    print()
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
