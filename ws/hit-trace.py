# Run by gdb (ws/hit-trace.sh): single-step one probe hit of the bench
# module's target, from the target's entry to its return, and print every
# instruction, then how many each function took.
#
# Environment: HT_PORT (QEMU's gdb stub), HT_SYM (a kernel function the hit
# of the kind calls with a struct pt_regs * in register HT_ARG, whose
# instruction pointer is at offset HT_IP_OFF), HT_PRE (empty, or a function
# to reach once before HT_SYM), HT_MODS (the module space: "low high"),
# HT_BACK (the target's entry is the saved ip - HT_BACK), HT_RET (a gdb
# expression, at the entry, of the target's return address), HT_OUT (the
# trace file).
import os
import re
import time

import gdb

MASK = (1 << 64) - 1
MAX_STEPS = int(os.environ.get("HT_MAX", "5000"))


def reg(expr):
    return int(gdb.parse_and_eval(expr)) & MASK


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def connect(port):
    for _ in range(100):
        try:
            run("target remote :%s" % port)
            return
        except gdb.error:
            time.sleep(0.2)
    raise gdb.GdbError("no gdb stub on port %s" % port)


def step_trace(ret):
    """Single-step from the current pc to @ret: every instruction."""
    for _ in range(MAX_STEPS):
        if reg("$pc") == ret:
            return
        yield run("x/i $pc").strip().lstrip("=> ").strip()
        run("stepi")


# Instructions after which a translation block ends: control transfers, and
# on powerpc what changes the MSR.
TB_END = {
    "riscv": r"^(j|jal|jr|jalr|ret|tail|call|beq|bne|blt|bge|bltu|bgeu|beqz|"
             r"bnez|blez|bgez|bltz|bgtz|bgt|ble|bgtu|bleu|ebreak|c\.ebreak|"
             r"ecall|sret|mret|wfi)$",
    "powerpc": r"^(b[a-z+-]*|rfid|hrfid|rfi|rfscv|sc|scv|trap|tw[a-z]*|"
               r"td[a-z]*|mtmsrd?)$",
}


def exec_log_trace(log, ret, tb_end):
    """
    For a gdb stub that cannot single-step the path (riscv: a stepi runs a
    whole trap): let QEMU log the start of every translation block executed
    (-d exec, with nochain so that none is skipped) until @ret, and rebuild
    the instructions from the text, each block running from its start to its
    first control transfer or to the next block's start.
    """
    end = re.compile(tb_end)
    start = os.path.getsize(log) if os.path.exists(log) else 0
    run("monitor log exec,nochain")
    run("hbreak *%#x" % ret)
    run("continue")
    run("monitor log nochain")
    run("delete")
    pcs = []
    with open(log) as f:
        f.seek(start)
        for line in f:
            m = re.match(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/", line)
            if m:
                pcs.append(int(m.group(1), 16))
    # The last block logged is the one at @ret.
    if pcs and pcs[-1] == ret:
        pcs.pop()
    for i, pc in enumerate(pcs):
        nxt = pcs[i + 1] if i + 1 < len(pcs) else None
        for _ in range(512):
            two = run("x/2i %#x" % pc).strip().splitlines()
            line = two[0].strip().lstrip("=> ").strip()
            yield line
            m = re.match(r"(0x[0-9a-f]+)[^:]*:\s+(\S+)", line)
            if not m or end.match(m.group(2)) or len(two) < 2:
                break
            pc = int(re.search(r"0x[0-9a-f]+", two[1]).group(0), 16)
            if pc == nxt:
                break


def main():
    out = open(os.environ["HT_OUT"], "w")
    run("set pagination off")
    run("set confirm off")
    connect(os.environ["HT_PORT"])
    env = os.environ
    mod_lo, mod_hi = (int(x, 16) for x in env["HT_MODS"].split())
    # QEMU breakpoints: no guest text is written.
    if env.get("HT_PRE"):
        run("hbreak %s" % env["HT_PRE"])
        run("continue")
        run("delete")
    run("hbreak %s" % env["HT_SYM"])
    # The first call for an address in module space, the bench module's.
    while True:
        run("continue")
        ip = reg("*(unsigned long *)($%s + %s)" %
                 (env["HT_ARG"], env["HT_IP_OFF"]))
        if mod_lo <= ip < mod_hi:
            break
    entry = ip - int(os.environ["HT_BACK"])
    run("delete")
    # The next call of the target: a whole hit, from its first instruction.
    run("hbreak *%#x" % entry)
    run("continue")
    run("delete")
    ret = reg(env["HT_RET"])
    out.write("# target %#x, returns to %#x\n" % (entry, ret))
    funcs = []
    n = 0
    if env.get("HT_EXECLOG"):
        lines = exec_log_trace(env["HT_EXECLOG"], ret, TB_END[env["HT_ARCH"]])
    else:
        lines = step_trace(ret)
    for line in lines:
        out.write(line + "\n")
        out.flush()
        m = re.search(r"<([^+>]+)", line)
        name = m.group(1) if m else "(no symbol: module, ftrace or detour)"
        if funcs and funcs[-1][0] == name:
            funcs[-1][1] += 1
        else:
            funcs.append([name, 1])
        n += 1
    out.write("# per function, in order of execution\n")
    for name, count in funcs:
        out.write("# %5d  %s\n" % (count, name))
    out.write("# total %d instructions%s\n" %
              (n, "" if n < MAX_STEPS else " (stopped: too many)"))
    out.close()
    run("kill")


main()
