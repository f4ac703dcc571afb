#!/usr/bin/env python3
"""Read the console logs of make bench's guests and print one table.

usage: bench.py LOG...     (per variant, upstream first: its bench log and,
                           optionally, its trap log)

Each log has the guest's "ws-bench: key=value ..." lines (ws/guest/bench.sh,
tools/testing/kprobes-bench).  A kind's cost is the difference between the
probed and the bare timed runs (the minimum of each) divided by the hits of a
run, in guest instructions: guest nanoseconds under -icount shift=0, scaled by
the calibration loop's nanoseconds per instruction (1.000 when all is well).
Registering and unregistering 1000 probes is reported in guest milliseconds.

A trap log is the console of a short second boot under QEMU -d int (guest
ws.bench=traps): the module brackets each kind's calls with "ws-bench-traps:
begin/end" console lines, and the synchronous exceptions QEMU logged in
between, over the calls, are the kind's traps per hit (a count, not a guess:
no arch exports one in the guest).

Prints the table (kind, each variant, ours/upstream, hits ok, traps per hit,
how the probe was armed), the config options in which the variants' kernels
differ, and
the console health of each boot (ws/results.py).  Exits 1 if a variant did
not finish, a kind failed or a handler count was wrong.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402  (console health, guest completion)

KINDS = [
    # key, label, unit
    ("kprobe", "breakpoint, opt off", "insn/hit"),
    ("kprobe_post", "breakpoint + post_handler", "insn/hit"),
    ("aggregate", "aggregate of two probes", "insn/hit"),
    ("optimized", "optimized (jump)", "insn/hit"),
    ("func_entry", "function entry (sym+0)", "insn/hit"),
    ("kretprobe", "kretprobe", "insn/hit"),
    ("kretprobe_kprobe", "kretprobe + entry kprobe", "insn/hit"),
    ("jprobe", "jprobe", "insn/hit"),
    ("register250", "register 250, opt off", "ms"),
    ("unregister250", "unregister 250, opt off", "ms"),
    ("register500", "register 500, opt off", "ms"),
    ("unregister500", "unregister 500, opt off", "ms"),
    ("register1000", "register 1000, opt off", "ms"),
    ("unregister1000", "unregister 1000, opt off", "ms"),
    ("register1000_opt", "register 1000, opt on", "ms"),
    ("unregister1000_opt", "unregister 1000, opt on", "ms"),
]
WS_BENCH = re.compile(r"ws-bench: (.*)$")
TRAPS_BEGIN = re.compile(r"ws-bench-traps: begin kind=(\w+) calls=(\d+)")
TRAPS_END = re.compile(r"ws-bench-traps: end kind=(\w+)")
# QEMU's -d int records, per arch: they land anywhere in the console text,
# even in the middle of a line.  TRAP tells the synchronous exceptions
# (traps) among them.
X86_DUMP = (r"(?:(?:RAX|RSI|R8 |R12|RIP|EAX|ESI|EIP|ES |CS |SS |DS |FS |GS |LDT|TR |"
            r"GDT|IDT|CR0|DR0|DR6|CCS|EFER|XMM|YMM|ZMM|FCW|FPR|Opmask|MXCSR|PDPTR)"
            r"[^\n]*\n)*")
RECORD = {
    "x86_64": re.compile(r"[ \t]*\d+: v=[0-9a-f]+ e=[0-9a-f]+ i=\d cpl=\d [^\n]*\n" + X86_DUMP +
                         r"|Servicing hardware INT=0x[0-9a-f]+\n|check_exception old: [^\n]*\n"
                         r"|SMM: [^\n]*\n"),
    "arm64": re.compile(r"Taking exception \d+ \[[^\]]*\][^\n]*\n(?:\.\.\.[^\n]*\n)*"),
    "riscv": re.compile(r"riscv_cpu_do_interrupt: [^\n]*\n"),
    "powerpc": re.compile(r"Raise exception at [^\n]*\n|hypercall r3=[^\n]*\n"),
}
TRAP = {
    # "  1234: v=03 e=0000 i=1 cpl=0 IP=..." (vectors below 0x20: exceptions)
    "x86_64": re.compile(r"^[ \t]*\d+: v=[01][0-9a-f] "),
    # "Taking exception 7 [Breakpoint] on CPU 0" (not IRQ, FIQ, VIRQ, VFIQ)
    "arm64": re.compile(r"^Taking exception \d+ \[(?!IRQ|FIQ|Virtual IRQ|Virtual FIQ)"),
    # "riscv_cpu_do_interrupt: hart:0, async:0, cause:..03, ..." (not ecalls)
    "riscv": re.compile(r"async:0, cause:0*(?![89]\b)[0-9a-f]+,"),
    # "Raise exception at ... => PROGRAM (6) ..."
    "powerpc": re.compile(r"=> (PROGRAM|TRACE|DEBUG)"),
}


def kv(s):
    return dict(w.split("=", 1) for w in s.split() if "=" in w)


def num(d, k):
    """int value of key k, None if absent or mangled (console interleaving)."""
    try:
        return int(d[k])
    except (KeyError, ValueError):
        return None


def split_segments(d):
    """Instructions per hit of each segment of a split line: up to the first
    handler's timestamp, between handlers', after the last one; each net of
    a timestamp's own cost, the last one also of the bare call's."""
    try:
        n, stamp, bare = int(d["n"]), int(d["stamp"]), int(d["bare"])
        seg = [int(x) for x in d["seg"].split(",")]
    except (KeyError, ValueError):
        return None
    out = [(x - stamp) / n for x in seg]
    out[-1] -= (bare - stamp) / n
    return out


def strip_records(path, arch):
    """The console text of a -d int log without QEMU's records, and for
    each trap record its offset in that text."""
    with open(path, errors="replace") as f:
        raw = f.read().replace("\r", "")
    rec, trap = RECORD.get(arch), TRAP.get(arch)
    if rec is None:
        return raw, []
    text, traps, pos = [], [], 0
    length = 0
    for m in rec.finditer(raw):
        text.append(raw[pos:m.start()])
        length += m.start() - pos
        if trap.search(m.group(0)):
            traps.append(length)
        pos = m.end()
    text.append(raw[pos:])
    return "".join(text), traps


def parse_traps(path, arch):
    """{kind: traps per call} of a trap log, and its console text."""
    text, traps = strip_records(path, arch)
    out = {}
    for m in TRAPS_BEGIN.finditer(text):
        e = TRAPS_END.search(text, m.end())
        if not e or e.group(1) != m.group(1):
            continue
        n = sum(1 for t in traps if m.end() <= t < e.start())
        out[m.group(1)] = n / int(m.group(2)) if arch in TRAP else None
    return out, text


def is_trap_log(path):
    with open(path, errors="replace") as f:
        return "ws.bench=traps" in f.readline()


def parse(path):
    """{'variant', 'arch', 'calib', 'kinds': {key: {...}}, 'health': results}"""
    h = results.parse(path)
    r = {"log": path, "variant": h["variant"], "arch": h["arch"], "calib": None,
         "kinds": {}, "health": h, "info": {}, "traps": None, "split": {}}
    with open(path, errors="replace") as f:
        for raw in f.read().replace("\r", "").split("\n"):
            m = WS_BENCH.search(raw)
            if not m:
                continue
            d = kv(m.group(1))
            kind = d.get("kind")
            if m.group(1).startswith("split "):
                r["split"][kind] = split_segments(d)
                continue
            if kind is None:
                r["info"].update(d)
            elif kind == "calib":
                if (num(d, "insns") or 0) > 0 and (num(d, "ns") or 0) > 0:
                    r["calib"] = num(d, "ns") / num(d, "insns")
            elif kind.startswith("register"):
                suffix = kind[len("register"):]
                for what in ("register", "unregister"):
                    e = dict(d)
                    if num(d, f"{what}_ns") is not None:
                        e["value"] = num(d, f"{what}_ns") / 1e6
                    r["kinds"][f"{what}{suffix}"] = e
            else:
                vals = [num(d, k) for k in ("probed_min", "bare_min", "n")]
                if None not in vals and vals[2] > 0:
                    per = (vals[0] - vals[1]) / vals[2]
                    d["value"] = per / (r["calib"] or 1.0)
                r["kinds"][kind] = d
    return r


def fmt(e, unit):
    if e is None:
        return "-"
    if "value" in e:
        return f"{e['value']:.1f}" if unit == "insn/hit" else f"{e['value']:.0f}"
    if "skipped" in e:
        return "skipped"
    if "error" in e:
        return "error " + e["error"]
    return "?"


def trap_fmt(r, key):
    t = (r["traps"] or {}).get(key)
    if t is None:
        return "-"
    return f"{t:.0f}" if t == int(t) else f"{t:.2f}"


def hits_ok(e):
    return e is not None and e.get("hits") == "ok" and e.get("missed", "0") == "0"


def config_diff(runs):
    """Options set differently in the variants' .config files."""
    cfgs = []
    for r in runs:
        path = os.path.join(os.path.dirname(os.path.dirname(r["log"])), ".config")
        opts = {}
        try:
            with open(path) as f:
                for line in f:
                    m = re.match(r"^(CONFIG_\w+)=(.*)$", line) or \
                        re.match(r"^# (CONFIG_\w+) is not set", line)
                    if m:
                        opts[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
        except OSError:
            return None
        cfgs.append(opts)
    if len(cfgs) != 2:
        return None
    a, b = cfgs
    return sorted(f"{o}: {a.get(o, 'unset')} -> {b.get(o, 'unset')}"
                  for o in set(a) | set(b) if a.get(o, "n") != b.get(o, "n"))


def main(argv):
    if not argv:
        sys.exit(__doc__)
    runs, trap_runs = [], []
    for p in argv:
        (trap_runs if is_trap_log(p) else runs).append(p)
    runs = [parse(p) for p in runs]
    for p in trap_runs:
        h = results.parse(p)
        traps, text = parse_traps(p, h["arch"])
        # Console health on the text without QEMU's records.
        with tempfile.NamedTemporaryFile("w", suffix=".log") as tmp:
            tmp.write(text)
            tmp.flush()
            th = results.parse(tmp.name)
        for r in runs:
            if r["variant"] == h["variant"]:
                r["traps"] = traps
                r["trap_health"] = th
                r["trap_log"] = p
    bad = []
    arch = runs[0]["arch"]
    names = [r["variant"] for r in runs]
    print(f"kprobes bench, {arch}, QEMU TCG -icount shift=0: guest instructions "
          f"per hit (min of {runs[0]['kinds'].get('kprobe', {}).get('reps', '?')} runs of "
          f"{runs[0]['kinds'].get('kprobe', {}).get('n', '?')} hits), guest ms for "
          "(un)registering")
    w = 27
    head = f"{'kind':<{w}}{'unit':<9}" + "".join(f"{n:>10}" for n in names)
    if len(runs) == 2:
        head += f"{'ours/up':>9}"
    have_traps = any(r["traps"] is not None for r in runs)
    head += f"  {'hits ok':<9}"
    if have_traps:
        head += f"{'traps/hit':<10}"
    head += f"probe ({' / '.join(names)})"
    print(head)
    print("-" * len(head))
    for key, label, unit in KINDS:
        es = [r["kinds"].get(key) for r in runs]
        if all(e is None for e in es):
            continue
        line = f"{label:<{w}}{unit:<9}"
        line += "".join(f"{fmt(e, unit):>10}" for e in es)
        if len(runs) == 2:
            if all(e and "value" in e for e in es) and es[0]["value"] > 0:
                line += f"{es[1]['value'] / es[0]['value']:>9.2f}"
            else:
                line += f"{'-':>9}"
        skipped = all(e is not None and "skipped" in e for e in es)
        if skipped:
            ok = "-"
            why = sorted({e["skipped"] for e in es})
            line += f"  {ok:<9}" + (" " * 10 if have_traps else "") + ", ".join(why)
        else:
            oks = [hits_ok(e) or (e is not None and "skipped" in e) for e in es]
            ok = "yes" if all(oks) else "NO"
            if not all(oks):
                for n, e, o in zip(names, es, oks):
                    if not o:
                        bad.append(f"{n}: {key}: " + (" ".join(f"{k}={v}" for k, v in e.items())
                                                      if e else "no result"))
            probes = " / ".join((e or {}).get("probe", "-") for e in es)
            line += f"  {ok:<9}"
            if have_traps:
                tr = "/".join(trap_fmt(r, key) for r in runs) if unit == "insn/hit" else ""
                line += f"{tr:<10}"
            line += probes if unit == "insn/hit" else ""
        print(line.rstrip())
    if any(r["split"] for r in runs):
        print()
        print("where the instructions of a hit go, with handlers that take a timestamp: "
              "up to the first handler + between handlers + after the last one")
        print(f"{'kind':<{w}}" + "".join(f"{n:<28}" for n in names))
        for key, label, unit in KINDS:
            if unit != "insn/hit" or not any(key in r["split"] for r in runs):
                continue
            cells = []
            for r in runs:
                sg = r["split"].get(key)
                cells.append(" + ".join(f"{x:.0f}" for x in sg) if sg else "-")
            print(f"{label:<{w}}" + "".join(f"{c:<28}" for c in cells).rstrip())
        print()
    for r in runs:
        c = r["calib"]
        if c is None or abs(c - 1.0) > 0.001:
            print(f"note: {r['variant']}: calibration {c}: guest ns per instruction "
                  "is not 1 (is QEMU running with -icount shift=0?)")
    diff = config_diff(runs)
    if diff:
        print(f"config differences ({' -> '.join(names)}): " + "; ".join(diff))
    elif diff is not None:
        print("config: the same options in both kernels")
    for r in runs:
        h = r["health"]
        if not h["done"]:
            bad.append(f"{r['variant']}: the guest did not finish ({r['log']})")
        elif h["guest_rc"]:
            bad.append(f"{r['variant']}: the guest's bench failed, rc={h['guest_rc']} ({r['log']})")
        for c in h["console"]:
            bad.append(f"{r['variant']}: console: {c}")
        th = r.get("trap_health")
        if th and not th["done"]:
            bad.append(f"{r['variant']}: the trap-count guest did not finish ({r['trap_log']})")
        for c in (th or {}).get("console", []):
            bad.append(f"{r['variant']}: console (trap count): {c}")
    for b in bad:
        print("FAIL: " + b)
    print("logs: " + " ".join(r["log"] for r in runs) +
          "".join(" " + r["trap_log"] for r in runs if r.get("trap_log")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
