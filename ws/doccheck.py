#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/trace/kprobes.rst: valid reST, and every identifier
it names exists.

    usage: [--rst] [--xref] [--exports] [-v] [DOC]

--rst   parse DOC with docutils, warnings are errors.  The kernel's Sphinx
        extensions are stubbed: the kernel-doc directive runs the base's
        scripts/kernel-doc -rst on the named file of ours and parses its
        output too; the C domain directives and roles parse their content.
--xref  extract every ``inline literal`` of DOC and look it up: functions,
        structs and their members, CONFIG_ and other macros, debugfs and
        sysctl files, errnos, debugfs tokens, paths, make targets; and the
        functions and structs that its C literal blocks use.  Ours is
        looked up in the repo (the MANIFEST add files and the added lines
        of patches/), the rest of the kernel in the base tree minus the
        files MANIFEST removes (never upstream's kprobes).
--exports  every EXPORT_SYMBOL*() function of ours has a kernel-doc
        comment, and so has every struct of include/linux/kprobes.h.

--rst and --xref by default.  Exit status 1 on any problem.
"""
import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("KPROBES_WS_CACHE",
                       os.path.expanduser("~/.cache/kprobes-ws"))
DOC = os.path.join(REPO, "Documentation/trace/kprobes.rst")

# Base directories searched for the rest of the kernel's identifiers.
BASE_DIRS = ["include", "kernel", "lib", "mm", "init", "samples",
             "arch/x86", "arch/arm64", "arch/riscv", "arch/powerpc",
             "arch/Kconfig", "Kconfig", "scripts/Makefile.lib"]

# Literals of the doc that are not identifiers, with the reason.
VALUES = {
    '"func"': "symbol_name example",
    '"module:func"': "symbol_name example",
    "func.cold": "compiler-split symbol name example",
    "func.part.0": "compiler-split symbol name example",
    "func+0": "probe location notation",
    "0x<start>-0x<end>": "blacklist line format",
}

# Identifiers the doc names ahead of the code that is still on a branch:
# reported as pending, not as errors.  Remove an entry once it is merged.
PENDING = {
}

# Variable names of the doc, for member checks (kp.addr, ri->data).
VAR_STRUCT = {"kp": "kprobe", "rp": "kretprobe", "ri": "kretprobe_instance",
              "jp": "jprobe", "regs": "pt_regs"}

# Structs of the base the doc names members of, and the header defining
# each (x86's, for the registers: the doc names x86's where it names any).
BASE_STRUCTS = {"pt_regs": "arch/x86/include/asm/ptrace.h"}


def base_dir():
    for d in sorted(glob.glob(os.path.join(CACHE, "base", "*"))):
        if os.path.isfile(os.path.join(d, "scripts/kernel-doc")):
            return d
    sys.exit("doccheck: no base tree under %s/base (make setup)" % CACHE)


def manifest():
    adds, removes = [], []
    with open(os.path.join(REPO, "MANIFEST")) as f:
        for line in f:
            w = line.split()
            if len(w) == 2 and w[0] == "add":
                adds.append(w[1])
            elif len(w) == 2 and w[0] == "remove":
                removes.append(w[1])
    return adds, removes


def our_files():
    adds, _ = manifest()
    files = set()
    for g in adds:
        for path in glob.glob(os.path.join(REPO, g)):
            if os.path.isfile(path):
                files.add(os.path.relpath(path, REPO))
    return sorted(files)


# ---------------------------------------------------------------------------
# reST
# ---------------------------------------------------------------------------

def check_rst(doc, base, verbose):
    import docutils.core
    import docutils.utils
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
    from docutils.statemachine import StringList

    problems = []

    class KernelDoc(Directive):
        required_arguments = 1
        optional_arguments = 0
        has_content = False
        option_spec = {"export": directives.unchanged,
                       "internal": directives.unchanged,
                       "functions": directives.unchanged,
                       "identifiers": directives.unchanged,
                       "no-identifiers": directives.unchanged,
                       "doc": directives.unchanged}

        def run(self):
            rel = self.arguments[0]
            path = os.path.join(REPO, rel)
            if not os.path.isfile(path):
                raise self.error("kernel-doc: %s: no such file of ours" % rel)
            cmd = ["perl", os.path.join(base, "scripts/kernel-doc"), "-rst",
                   "-enable-lineno", "-Wall", "-sphinx-version", "3.4.3"]
            if "export" in self.options:
                cmd.append("-export")
            if "internal" in self.options:
                cmd.append("-internal")
            for f in (self.options.get("functions") or "").split():
                cmd += ["-function", f]
            cmd.append(rel)
            r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
            if r.returncode or r.stderr.strip():
                raise self.error("kernel-doc %s: %s" %
                                 (rel, r.stderr.strip() or r.returncode))
            # As Sphinx's kerneldoc.py: ".. LINENO n" lines give the
            # source line of what follows and are not part of the text.
            result = StringList()
            lineno = 0
            for ln in r.stdout.splitlines():
                m = re.match(r"\s*\.\. LINENO (\d+)$", ln)
                if m:
                    lineno = int(m.group(1))
                    continue
                result.append(ln, rel, lineno)
            if not any(ln.strip() for ln in result):
                raise self.error("kernel-doc %s: no output" % rel)
            # Parse it alone first, to report problems at their source line.
            msgs = []
            docutils.core.publish_doctree(
                "\n".join(result), source_path=rel,
                settings_overrides={"halt_level": 5, "report_level": 2,
                                    "warning_stream": _Collect(msgs)})
            for msg in msgs:
                m = re.match(r"[^:]*:(\d+): (.*)", msg.strip(), re.S)
                if m and 0 < int(m.group(1)) <= len(result):
                    src = result.info(int(m.group(1)) - 1)[1]
                    problems.append("%s:%s: %s (kernel-doc comment)" %
                                    (rel, src, m.group(2).splitlines()[0]))
                else:
                    problems.append("%s: %s" % (rel, msg.strip()))
            node = nodes.section()
            node.document = self.state.document
            self.state.nested_parse(result, 0, node, match_titles=1)
            return node.children

    class CDomain(Directive):
        """.. c:function:: and friends, as kernel-doc -rst emits them."""
        required_arguments = 0
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = {"noindex": directives.flag,
                       "noindexentry": directives.flag}

        def run(self):
            node = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    def literal_role(name, rawtext, text, lineno, inliner, options=None,
                     content=None):
        return [nodes.literal(rawtext, text)], []

    directives.register_directive("kernel-doc", KernelDoc)
    for d in ("function", "struct", "union", "enum", "macro", "type",
              "member", "var", "enumerator", "namespace", "namespace-push",
              "namespace-pop"):
        directives.register_directive("c:" + d, CDomain)
    for r in ("c:func", "c:type", "c:macro", "c:member", "c:struct",
              "c:union", "c:enum", "c:data", "c:expr", "ref", "doc"):
        roles.register_local_role(r, literal_role)

    with open(doc) as f:
        text = f.read()
    try:
        docutils.core.publish_doctree(
            text, source_path=doc,
            settings_overrides={"halt_level": 5, "report_level": 2,
                                "warning_stream": _Collect(problems)})
    except Exception as e:  # noqa: BLE001 - docutils raises many kinds
        problems.append("docutils: %s" % e)
    for p in problems:
        print("rst: %s" % p.rstrip())
    print("rst: %s: %s" % (os.path.relpath(doc, REPO),
                           "%d problem(s)" % len(problems) if problems
                           else "valid (docutils, warnings are errors)"))
    return not problems


class _Collect:
    def __init__(self, out):
        self.out = out

    def write(self, s):
        if s.strip():
            self.out.append(s)

    def flush(self):
        pass


# ---------------------------------------------------------------------------
# Cross-check
# ---------------------------------------------------------------------------

def doc_literals(doc):
    """Inline literals of the doc, and the names of its C literal blocks."""
    import docutils.core
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    class Skip(Directive):
        required_arguments = 1
        optional_arguments = 0
        has_content = False
        option_spec = {k: directives.unchanged for k in
                       ("export", "internal", "functions", "identifiers",
                        "no-identifiers", "doc")}

        def run(self):
            return []

    directives.register_directive("kernel-doc", Skip)
    with open(doc) as f:
        tree = docutils.core.publish_doctree(
            f.read(), settings_overrides={"report_level": 5})
    seen = []
    for n in tree.traverse(nodes.literal):
        t = n.astext()
        if t not in seen:
            seen.append(t)
    code = []
    for n in tree.traverse(nodes.literal_block):
        for t in code_names(n.astext()):
            if t not in code:
                code.append(t)
    return seen, code


C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "typeof"}


def code_names(text):
    """Functions called or declared, and structs, in a C literal block; not
    what the block defines itself (static functions and variables)."""
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    local = set(re.findall(r"^\s*static\b[^;=(]*?\b(\w+)\s*\(", text, re.M))
    local |= set(re.findall(r"^\s*static\s+struct\s+\w+\s+(\w+)\s*=",
                            text, re.M))
    names = []
    for m in re.finditer(r"\bstruct\s+(\w+)|\b([A-Za-z_]\w*)\s*\(", text):
        if m.group(1):
            names.append("struct " + m.group(1))
        elif m.group(2) not in C_KEYWORDS and m.group(2) not in local:
            names.append(m.group(2) + "()")
    return names


class Corpus:
    """Our files from the repo; the kernel's from the base, minus removals."""

    def __init__(self, base):
        self.base = base
        _, self.removes = manifest()
        self.ours = {}
        for rel in our_files():
            # Code only: never the doc itself, nor any other text.
            name = os.path.basename(rel)
            if not (rel.endswith((".c", ".h", ".S")) or
                    name.startswith(("Kconfig", "Makefile", "Kbuild"))):
                continue
            with open(os.path.join(REPO, rel), errors="replace") as f:
                self.ours[rel] = f.read()
        for patch in sorted(glob.glob(os.path.join(REPO, "patches/*.patch"))):
            added = []
            with open(patch, errors="replace") as f:
                for line in f:
                    if line.startswith("+") and not line.startswith("+++"):
                        added.append(line[1:])
            self.ours[os.path.relpath(patch, REPO)] = "".join(added)
        self.ours_text = "\n".join(self.ours.values())
        self.grep_cache = {}

    def removed(self, rel):
        return any(fnmatch.fnmatch(rel, g) for g in self.removes)

    def base_grep(self, regex):
        """Files of the base (not removed) matching an extended regex."""
        if regex in self.grep_cache:
            return self.grep_cache[regex]
        paths = [p for p in BASE_DIRS
                 if os.path.exists(os.path.join(self.base, p))]
        r = subprocess.run(["grep", "-rlE", "--include=*.[chS]",
                            "--include=Kconfig*", "--include=*.lds*",
                            "-e", regex] + paths,
                           cwd=self.base, capture_output=True, text=True)
        hits = [p for p in r.stdout.splitlines() if not self.removed(p)]
        self.grep_cache[regex] = hits
        return hits

    def find(self, regex, ours_only=False):
        """'ours:FILE', 'kernel:FILE' or None."""
        rx = re.compile(regex, re.M)
        for rel, text in self.ours.items():
            if rx.search(text):
                return "ours:" + rel
        if ours_only:
            return None
        hits = self.base_grep(regex)
        return "kernel:" + hits[0] if hits else None

    def base_member(self, sname, member):
        """'kernel:FILE struct NAME' if the base's struct has @member."""
        rel = BASE_STRUCTS[sname]
        with open(os.path.join(self.base, rel), errors="replace") as f:
            body = struct_body_in(f.read(), sname)
        if body and re.search(r"\b%s\b" % re.escape(member), body):
            return "kernel:%s struct %s" % (rel, sname)
        return None

    def struct_body(self, name):
        return struct_body_in(self.ours.get("include/linux/kprobes.h", ""),
                              name)


def struct_body_in(text, name):
    """The members of `struct NAME {...};` defined in @text, or None."""
    m = re.search(r"^struct %s \{\n(.*?)^\};" % re.escape(name), text,
                  re.M | re.S)
    return m.group(1) if m else None


def check_one(c, lit):
    """Return (kind, where) or (kind, None) if not found."""
    if lit in VALUES:
        return "value", "skipped: " + VALUES[lit]

    m = re.fullmatch(r"make (\w[\w-]*)", lit)
    if m:
        with open(os.path.join(REPO, "Makefile")) as f:
            ok = re.search(r"^%s:" % re.escape(m.group(1)), f.read(), re.M)
        return "make target", "ours:Makefile" if ok else None

    m = re.fullmatch(r"-(E[A-Z0-9]+)", lit)
    if m:
        e = m.group(1)
        if not c.base_grep(r"#define\s+%s\s" % e):
            return "errno", None
        return "errno", c.find(r"-%s\b" % e, ours_only=True)

    m = re.fullmatch(r"/sys/kernel/debug/kprobes/([\w-]+)", lit)
    if m:
        dbg = c.ours.get("kernel/kprobes/debugfs.c", "")
        ok = ('debugfs_create_dir("kprobes"' in dbg and
              'debugfs_create_file("%s"' % m.group(1) in dbg)
        return "debugfs file", "ours:kernel/kprobes/debugfs.c" if ok else None

    m = re.fullmatch(r"(?:/proc/sys/debug/|debug\.)([\w-]+)", lit)
    if m:
        return "sysctl", c.find(r'\.procname\s*=\s*"%s"' % re.escape(m.group(1)),
                                ours_only=True) if \
            c.find(r'register_sysctl\("debug"', ours_only=True) else None

    m = re.fullmatch(r"\[([A-Z]+)\]", lit)
    if m:
        return "debugfs flag", c.find(r'"  \[%s\]"' % m.group(1), ours_only=True)

    if lit in ("k", "r", "j"):
        return "debugfs type", c.find(r"type = '%s'" % lit, ours_only=True)

    if "/" in lit and re.fullmatch(r"[\w./-]+", lit):
        rel = lit.rstrip("/")
        if os.path.exists(os.path.join(REPO, rel)):
            return "path", "ours:" + rel
        if os.path.exists(os.path.join(c.base, rel)) and not c.removed(rel):
            return "path", "kernel:" + rel
        return "path", None

    m = re.fullmatch(r"(\w+)\((.*)\)", lit)
    if m:
        name = re.escape(m.group(1))
        return "function", c.find(r"\b%s\s*\(" % name)

    m = re.fullmatch(r"struct (\w+)", lit)
    if m:
        return "struct", c.find(r"struct %s \{" % m.group(1))

    m = re.fullmatch(r"(\w+)(?:\.|->)(\w+)", lit)
    if m:
        sname = VAR_STRUCT.get(m.group(1), m.group(1))
        if sname in BASE_STRUCTS:
            return "member", c.base_member(sname, m.group(2))
        body = c.struct_body(sname)
        ok = body is not None and re.search(r"\b%s\b" % m.group(2), body)
        return "member", ("ours:include/linux/kprobes.h struct " + sname) \
            if ok else None

    m = re.fullmatch(r"CONFIG_(\w+)", lit)
    if m:
        return "Kconfig", c.find(r"^\s*(menu)?config %s\s*$" % m.group(1))

    m = re.fullmatch(r"([A-Z][A-Z0-9_]*)(\*|\(\))?", lit)
    if m:
        name = m.group(1)
        if m.group(2) == "*":
            return "macro prefix", c.find(r"#\s*define\s+%s\w+" % name)
        return "macro", c.find(r"(#\s*define\s+%s\b|^\s*(menu)?config %s\s*$"
                               r"|^\s*%s\s*(=|,))" % (name, name, name))

    m = re.fullmatch(r"\.?([\w.]+)", lit)
    if m and re.fullmatch(r"[A-Za-z_]\w*", lit):
        for sname in ("kprobe", "kretprobe", "kretprobe_instance", "jprobe"):
            body = c.struct_body(sname)
            if body and re.search(r"\b%s(;|\[)" % lit, body):
                return "member", "ours:include/linux/kprobes.h struct " + sname
        return "identifier", c.find(r"\b%s\b" % lit)

    if re.fullmatch(r"\.[\w.]+", lit):
        return "section", c.find(re.escape(lit))

    return "unclassified", None


def check_xref(doc, base, verbose):
    c = Corpus(base)
    bad = 0
    counts = {}
    pending = 0
    literals, code = doc_literals(doc)
    for lit in literals + code:
        kind, where = check_one(c, lit)
        if lit in code and lit not in literals:
            if not where and lit.endswith("()"):
                # A handler prototype: its name is a struct member.
                kind, where = check_one(c, lit[:-2])
            kind = "code " + kind
        counts[kind] = counts.get(kind, 0) + 1
        if not where and lit in PENDING:
            pending += 1
            print("xref: pending   %-14s ``%s``  (%s)" %
                  (kind, lit, PENDING[lit]))
        elif not where:
            bad += 1
            print("xref: NOT FOUND %-14s ``%s``" % (kind, lit))
        elif lit in PENDING:
            print("xref: ``%s`` is merged: remove it from PENDING" % lit)
        elif verbose:
            print("xref: ok %-14s ``%s``  (%s)" % (kind, lit, where))
    total = sum(counts.values())
    summary = ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))
    status = "%d not found" % bad if bad else "all found"
    if pending:
        status += ", %d pending" % pending
    print("xref: %d names (%s): %s" % (total, summary, status))
    return not bad


def check_exports(verbose):
    files = our_files()
    texts = {}
    for rel in files:
        if rel.endswith((".c", ".h")):
            with open(os.path.join(REPO, rel), errors="replace") as f:
                texts[rel] = f.read()
    alltext = "\n".join(texts.values())
    bad = []
    exports = set()
    for rel, text in texts.items():
        for m in re.finditer(r"^EXPORT_SYMBOL(?:_GPL)?\((\w+)\)", text, re.M):
            exports.add(m.group(1))
    for name in sorted(exports):
        if not re.search(r"^ \* %s\(\) - " % name, alltext, re.M):
            bad.append("exported %s() has no kernel-doc comment" % name)
    hdr = texts.get("include/linux/kprobes.h", "")
    structs = sorted(set(re.findall(r"^struct (\w+) \{", hdr, re.M)))
    for name in structs:
        if not re.search(r"^ \* struct %s - " % name, hdr, re.M):
            bad.append("struct %s of include/linux/kprobes.h has no "
                       "kernel-doc comment" % name)
    for b in bad:
        print("exports: %s" % b)
    print("exports: %d exported functions, %d structs in kprobes.h: %s" %
          (len(exports), len(structs),
           "%d undocumented" % len(bad) if bad else "all documented"))
    return not bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rst", action="store_true")
    ap.add_argument("--xref", action="store_true")
    ap.add_argument("--exports", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("doc", nargs="?", default=DOC)
    a = ap.parse_args()
    if not a.rst and not a.xref and not a.exports:
        a.rst = a.xref = True
    base = base_dir()
    ok = True
    if a.rst:
        ok &= check_rst(a.doc, base, a.verbose)
    if a.xref:
        ok &= check_xref(a.doc, base, a.verbose)
    if a.exports:
        ok &= check_exports(a.verbose)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
