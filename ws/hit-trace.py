# Run by gdb (ws/hit-trace.sh): single-step one probe hit of the bench
# module's target, from the target's entry to its return, and print every
# instruction, then how many each function took.
#
# Environment: HT_PORT (QEMU's gdb stub), HT_SYM (a kernel function the hit
# of the kind calls with a struct pt_regs * in register HT_ARG), HT_BACK
# (the target's entry is regs->ip - HT_BACK), HT_OUT (the trace file).
# x86_64 only: regs->ip is at offset 128 of struct pt_regs.
import os
import re
import time

import gdb

PT_REGS_IP = 128
MASK = (1 << 64) - 1
MAX_STEPS = 5000
MODULES_VADDR = 0xffffffffa0000000    # with nokaslr


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


def main():
    out = open(os.environ["HT_OUT"], "w")
    run("set pagination off")
    run("set confirm off")
    connect(os.environ["HT_PORT"])
    # QEMU breakpoints: no guest text is written.
    run("hbreak %s" % os.environ["HT_SYM"])
    # The first call for an address in module space, the bench module's.
    while True:
        run("continue")
        ip = reg("*(unsigned long *)($%s + %d)" %
                 (os.environ["HT_ARG"], PT_REGS_IP))
        if ip >= MODULES_VADDR:
            break
    entry = ip - int(os.environ["HT_BACK"])
    run("delete")
    # The next call of the target: a whole hit, from its first instruction.
    run("hbreak *%#x" % entry)
    run("continue")
    run("delete")
    ret = reg("*(unsigned long *)$rsp")
    out.write("# target %#x, returns to %#x\n" % (entry, ret))
    funcs = []
    n = 0
    while n < MAX_STEPS:
        pc = reg("$pc")
        if pc == ret:
            break
        line = run("x/i $pc").strip().lstrip("=> ").strip()
        out.write(line + "\n")
        m = re.search(r"<([^+>]+)", line)
        name = m.group(1) if m else "(no symbol: module, ftrace or detour)"
        if funcs and funcs[-1][0] == name:
            funcs[-1][1] += 1
        else:
            funcs.append([name, 1])
        run("stepi")
        n += 1
    out.write("# per function, in order of execution\n")
    for name, count in funcs:
        out.write("# %5d  %s\n" % (count, name))
    out.write("# total %d instructions%s\n" %
              (n, "" if n < MAX_STEPS else " (stopped: too many)"))
    out.close()
    run("kill")


main()
