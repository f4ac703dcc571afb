#!/usr/bin/env python3
"""Turn the repo into an LKML-style patch series against the base.

usage: series.py [--out DIR] [--ref TREE] [--base BASE] [--checkpatch]
       series.py --maintained TREE PATCH


series/SERIES says which patch brings in what: MANIFEST's removals, the repo's
files, MANIFEST's patches and series-only fragments (series/frag/*.patch,
intermediate versions that exist only inside the series).  Every MANIFEST
entry must land in exactly one patch: an entry in no patch or in two stops
the series with a message that says where to assign it.

The series is built as commits of a scratch git repository that holds only
the files the series touches (base versions first), then written with
git format-patch, with a cover letter (series/cover.txt, filled from
README.md).  With --ref TREE (an assembled "ours" tree), the files after the
last patch are compared with it and any difference is an error.
"""
import argparse
import filecmp
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assemble  # noqa: E402  (read_manifest, repo_files, glob_in, patched_paths)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERIES_DIR = os.path.join(REPO, "series")
SERIES_FILE = os.path.join(SERIES_DIR, "SERIES")
OPS = ("body", "remove", "add", "patch", "fragment", "covers")


class SeriesError(Exception):
    pass


def die(msg):
    sys.exit("series: error: " + msg)


def git(*args, cwd=None, env=None, capture=True):
    r = subprocess.run(["git", *args], cwd=cwd, env=env, text=True,
                       capture_output=capture)
    if r.returncode:
        die(f"git {' '.join(args)} failed:\n{r.stdout or ''}{r.stderr or ''}")
    return r.stdout if capture else ""


def parse_series():
    """[{subject, body, ops: [(op, args, lineno)]}] from series/SERIES."""
    patches = []
    with open(SERIES_FILE) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].rstrip() if not raw.startswith("==") else raw.rstrip()
            if not line.strip():
                continue
            if line.startswith("== "):
                patches.append({"subject": line[3:].strip(), "body": None, "ops": [],
                                "line": n})
                continue
            parts = line.split()
            if parts[0] not in OPS:
                die(f"series/SERIES:{n}: unknown '{parts[0]}' (one of {', '.join(OPS)})")
            if not patches:
                die(f"series/SERIES:{n}: '{parts[0]}' before the first '== subject' line")
            if parts[0] == "body":
                patches[-1]["body"] = parts[1]
            else:
                patches[-1]["ops"].append((parts[0], parts[1:], n))
    for p in patches:
        if not p["body"]:
            die(f"series/SERIES:{p['line']}: '{p['subject']}' has no body file")
    return patches


def manifest_sets(base):
    man = assemble.read_manifest(REPO)
    removed = set()
    for pat in man["remove"]:
        hits = assemble.glob_in(base, pat)
        if not hits:
            die(f"MANIFEST 'remove {pat}' matches nothing in the base")
        removed.update(hits)
    files, tracked = assemble.repo_files(REPO)
    added = set()
    for pat in man["add"]:
        added.update(p for p in files if fnmatch.fnmatchcase(p, pat))
    for p in files:
        if p not in added and p not in tracked:
            print(f"series: warning: untracked {p} is not in MANIFEST, left out",
                  file=sys.stderr)
    return removed, added, list(man["patch"])


def strip_lines(text, regex):
    """The file without the lines matching regex; a paragraph left with
    comments only (they described what was dropped) goes too."""
    rx = re.compile(regex)
    paras = text.split("\n\n")
    out = []
    for para in paras:
        lines = para.split("\n")
        kept = [ln for ln in lines if ln.lstrip().startswith("#") or not rx.search(ln)]
        if len(kept) != len(lines) and all(not ln.strip() or ln.lstrip().startswith("#")
                                           for ln in kept):
            continue
        out.append("\n".join(kept))
    res = "\n\n".join(out)
    return res.rstrip("\n") + "\n"


def expand(patches, base, removed, added, mpatches):
    """Check that every MANIFEST entry is in exactly one patch; resolve globs."""
    errors = []
    where = {}          # key -> [patch subjects]

    def claim(key, subj):
        where.setdefault(key, []).append(subj)

    for p in patches:
        resolved = []
        for op, args, n in p["ops"]:
            loc = f"series/SERIES:{n}"
            if op == "remove":
                hits = assemble.glob_in(base, args[0])
                if not hits:
                    errors.append(f"{loc}: 'remove {args[0]}' matches nothing in the base")
                for h in hits:
                    if h not in removed:
                        errors.append(f"{loc}: {h} is not removed by MANIFEST")
                    claim(("remove", h), p["subject"])
                    resolved.append(("remove", h, None))
            elif op == "add":
                partial = None
                if len(args) >= 3 and args[1] == "without":
                    partial = " ".join(args[2:])
                hits = sorted(h for h in added if fnmatch.fnmatchcase(h, args[0]))
                if not hits:
                    errors.append(f"{loc}: 'add {args[0]}' matches no file that MANIFEST adds")
                for h in hits:
                    if partial is None:
                        claim(("add", h), p["subject"])
                    resolved.append(("add", h, partial))
            elif op in ("patch", "covers"):
                if args[0] not in mpatches:
                    errors.append(f"{loc}: {args[0]} is not a patch of MANIFEST")
                claim(("patch", args[0]), p["subject"])
                if op == "patch":
                    resolved.append(("patch", os.path.join(REPO, args[0]), None))
            elif op == "fragment":
                f = os.path.join(SERIES_DIR, args[0])
                if not os.path.isfile(f):
                    errors.append(f"{loc}: fragment {args[0]} does not exist")
                resolved.append(("fragment", f, None))
        p["resolved"] = resolved

    def hint(path):
        """The patch whose files share the longest directory with path."""
        best, score = None, -1
        for p in patches:
            for op, arg, _ in p["resolved"]:
                if op in ("add", "remove"):
                    common = os.path.commonpath([path, arg]) if path[0] == arg[0] else ""
                    s = len(common.split("/")) if common else 0
                    if s > score:
                        best, score = p["subject"], s
        return f" (near its neighbours: under '== {best}')" if best else ""

    for h in sorted(added):
        n = len(where.get(("add", h), []))
        if n == 0:
            errors.append(f"MANIFEST adds {h}, but no patch of series/SERIES does: "
                          f"add a line 'add {h}' to the patch it belongs to{hint(h)}")
    for h in sorted(removed - added):
        n = len(where.get(("remove", h), []))
        if n == 0:
            errors.append(f"MANIFEST removes {h}, but no patch of series/SERIES does: "
                          f"add a line 'remove {h}' to the patch it belongs to{hint(h)}")
    for mp in mpatches:
        if not where.get(("patch", mp)):
            errors.append(f"MANIFEST patch {mp} is in no patch of series/SERIES: add a "
                          f"line 'patch {mp}' to the patch of its concern")
    for key, subjs in sorted(where.items()):
        if len(subjs) > 1:
            errors.append(f"{key[0]} {key[1]} is in {len(subjs)} patches of series/SERIES "
                          f"({'; '.join(subjs)}): keep it in exactly one")
    if errors:
        die("the series does not cover MANIFEST exactly:\n  " + "\n  ".join(errors))


def patch_paths(pf):
    paths = set()
    with open(pf) as f:
        for line in f:
            if line.startswith(("--- ", "+++ ")):
                p = line[4:].split("\t")[0].strip()
                if p != "/dev/null":
                    paths.add(p.split("/", 1)[1])
    return paths


def readme_section(text, heading):
    m = re.search(r"^#+ " + re.escape(heading) + r".*?\n(.*?)(?=^#+ |\Z)", text, re.S | re.M)
    if not m:
        die(f"README.md has no section '{heading}'")
    return m.group(1).strip("\n")


def cover_letter(n):
    readme = open(os.path.join(REPO, "README.md")).read()
    intro = readme.split("\n## ", 1)[0].split("\n", 1)[1].strip()
    # README speaks of the repo; a cover letter speaks of the series.
    overview = intro.split("\n\n")[0].replace("This repo holds", "This series is")
    overview = " ".join(x for x in re.split(r"(?<=\.) ", overview.replace("\n", " "))
                        if "MANIFEST" not in x)
    overview = textwrap.fill(overview, 72, break_on_hyphens=False)
    status = readme_section(readme, "Status of the series")
    bench_all = readme_section(readme, "Results")
    m = re.search(r"x86_64.*?\n```\n(.*?)```", bench_all, re.S)
    bench = m.group(1).rstrip("\n") if m else bench_all
    targets = bench_all.split("```")[-1].strip()
    tpl = open(os.path.join(SERIES_DIR, "cover.txt")).read()
    status, bench, targets = (x.replace("`", "") for x in (status, bench, targets))
    overview = overview.replace("`", "")
    return (tpl.replace("@OVERVIEW@", overview).replace("@MATRIX@", status)
            .replace("@BENCH@", bench).replace("@BENCH_NOTES@", targets)
            .replace("@N@", str(n)))


def maintained(tree, patch):
    """checkpatch asks, for each patch that adds or deletes files, whether
    MAINTAINERS needs updating.  Answer it: every added file must be covered
    by an F: pattern of an entry other than THE REST, and no F: line may name
    a deleted file, in the tree after the patch.  Returns the problems."""
    entries, name = [], None
    with open(os.path.join(tree, "MAINTAINERS")) as f:
        for line in f:
            if line.strip() and not line[1:2] == ":":
                name = line.strip()
            elif line.startswith("F:\t") and name != "THE REST":
                pat = line[3:].strip()
                rx = "^" + re.escape(pat).replace(r"\*", ".*").replace(r"\?", ".")
                entries.append((name, pat, re.compile(rx)))
    added, deleted, cur = [], [], None
    with open(patch) as f:
        for line in f:
            m = re.match(r"^diff --git a/(\S+) b/", line)
            if m:
                cur = m.group(1)
            elif line.startswith("new file mode"):
                added.append(cur)
            elif line.startswith("deleted file mode"):
                deleted.append(cur)
    bad = []
    for a in added:
        if not any(rx.match(a) for _, _, rx in entries):
            bad.append(f"{a}: added, and no MAINTAINERS entry covers it")
    for d in deleted:
        for n, pat, _ in entries:
            if pat == d:
                bad.append(f"{d}: deleted, but MAINTAINERS ({n}) still names it")
    return added + deleted, bad


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--maintained":
        paths, bad = maintained(sys.argv[2], sys.argv[3])
        for b in bad:
            print(b)
        print(f"{len(paths)} files added or deleted, {len(bad)} not maintained")
        sys.exit(1 if bad else 0)
    ap = argparse.ArgumentParser()
    cache = os.environ.get("KPROBES_WS_CACHE", os.path.expanduser("~/.cache/kprobes-ws"))
    ap.add_argument("--out", default=os.path.join(REPO, "out", "series"))
    ap.add_argument("--ref", help="assembled ours tree to compare the result with")
    ap.add_argument("--base", default=None)
    ap.add_argument("--checkpatch", action="store_true",
                    help="run checkpatch.pl --strict on the patches; exit 1 on errors or warnings")
    a = ap.parse_args()
    base = a.base or os.path.join(cache, "base", open(os.path.join(cache, "base", "VERSION"))
                                  .read().strip())
    version = os.path.basename(base)

    patches = parse_series()
    removed, added, mpatches = manifest_sets(base)
    expand(patches, base, removed, added, mpatches)

    # The paths the series touches, in a scratch repository.
    touched = set()
    for p in patches:
        for op, arg, _ in p["resolved"]:
            if op in ("remove", "add"):
                touched.add(arg)
            else:
                touched |= patch_paths(arg)
    scratch = os.path.join(cache, "series", "git")
    if os.path.exists(scratch):
        shutil.rmtree(scratch)
    os.makedirs(scratch)
    for t in sorted(touched):
        src = os.path.join(base, t)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(scratch, t)), exist_ok=True)
            shutil.copyfile(src, os.path.join(scratch, t))
    name = git("config", "user.name", cwd=REPO).strip()
    email = git("config", "user.email", cwd=REPO).strip()
    date = git("log", "-1", "--format=%ad", "--date=rfc", cwd=REPO).strip()
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email,
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    git("init", "-q", "-b", "series", cwd=scratch)
    git("add", "-A", cwd=scratch)
    git("commit", "-q", "--no-verify", "-m", f"base {version}", cwd=scratch, env=env)

    for i, p in enumerate(patches, 1):
        for op, arg, extra in p["resolved"]:
            dst = os.path.join(scratch, arg) if op in ("remove", "add") else None
            if op == "remove":
                os.unlink(dst)
            elif op == "add":
                text = open(os.path.join(REPO, arg)).read()
                if extra is not None:
                    text = strip_lines(text, extra)
                if os.path.lexists(dst):
                    os.unlink(dst)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "w") as f:
                    f.write(text)
                shutil.copymode(os.path.join(REPO, arg), dst)
            else:
                r = subprocess.run(["patch", "-p1", "-s", "-F0", "--no-backup-if-mismatch",
                                    "-d", scratch, "-i", arg], capture_output=True, text=True)
                if r.returncode:
                    die(f"patch {i} '{p['subject']}': {os.path.relpath(arg, REPO)} does "
                        f"not apply:\n{r.stdout}{r.stderr}")
        body = open(os.path.join(SERIES_DIR, "body", p["body"])).read().strip("\n")
        msg = f"{p['subject']}\n\n{body}\n\nSigned-off-by: {name} <{email}>\n"
        git("add", "-A", cwd=scratch)
        if not git("status", "--porcelain", cwd=scratch).strip():
            die(f"patch {i} '{p['subject']}' changes nothing")
        subprocess.run(["git", "commit", "-q", "--no-verify", "-F", "-"], cwd=scratch,
                       env=env, input=msg, text=True, check=True)

    # The series must end where MANIFEST does: every file it touches as
    # assemble.py would make it (base, minus removals, plus the repo's files,
    # plus MANIFEST's patches in MANIFEST order).
    expect = os.path.join(cache, "series", "expect")
    if os.path.exists(expect):
        shutil.rmtree(expect)
    os.makedirs(expect)
    for t in touched:
        if os.path.isfile(os.path.join(base, t)):
            os.makedirs(os.path.dirname(os.path.join(expect, t)), exist_ok=True)
            shutil.copyfile(os.path.join(base, t), os.path.join(expect, t))
    for t in removed:
        if os.path.exists(os.path.join(expect, t)):
            os.unlink(os.path.join(expect, t))
    for t in added:
        os.makedirs(os.path.dirname(os.path.join(expect, t)), exist_ok=True)
        shutil.copyfile(os.path.join(REPO, t), os.path.join(expect, t))
    for mp in mpatches:
        r = subprocess.run(["patch", "-p1", "-s", "-F0", "--no-backup-if-mismatch", "-d", expect,
                            "-i", os.path.join(REPO, mp)], capture_output=True, text=True)
        if r.returncode:
            die(f"MANIFEST's {mp} does not apply:\n{r.stdout}{r.stderr}")
    bad = []
    for t in sorted(touched):
        x, y = os.path.join(scratch, t), os.path.join(expect, t)
        if os.path.exists(x) != os.path.exists(y) or \
                (os.path.exists(x) and not filecmp.cmp(x, y, shallow=False)):
            d = subprocess.run(["diff", "-u", "--label", "series", "--label", "MANIFEST",
                                x if os.path.exists(x) else "/dev/null",
                                y if os.path.exists(y) else "/dev/null"],
                               capture_output=True, text=True).stdout
            bad.append(f"{t}:\n" + "\n".join(d.splitlines()[:30]))
    if bad:
        die("after the last patch, these files are not what MANIFEST makes them (a "
            "fragment of series/frag/ or an 'add ... without' line is stale?):\n"
            + "\n".join(bad))

    if a.ref:
        bad = []
        for t in sorted(touched):
            x, y = os.path.join(scratch, t), os.path.join(a.ref, t)
            if os.path.exists(x) != os.path.exists(y) or \
                    (os.path.exists(x) and not filecmp.cmp(x, y, shallow=False)):
                bad.append(t)
        owned = open(os.path.join(a.ref, ".ws-owned")).read().split()
        bad += [f"{o} (owned by MANIFEST, untouched by the series)" for o in owned
                if o not in touched]
        if bad:
            die("after the last patch, these files differ from the assembled tree "
                f"{a.ref}:\n  " + "\n  ".join(bad))

    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    git("format-patch", "-q", "--cover-letter", "-B", "--no-renames", "--no-signature",
        "--subject-prefix=PATCH", "-o", a.out, "HEAD~%d" % len(patches), cwd=scratch, env=env)
    files = sorted(os.listdir(a.out))
    cover = os.path.join(a.out, files[0])
    text = open(cover).read()
    letter = cover_letter(len(patches))
    subj, blurb = letter.split("\n", 1)
    text = text.replace("*** SUBJECT HERE ***", subj.strip())
    text = text.replace("*** BLURB HERE ***", blurb.strip("\n"))
    with open(cover, "w") as f:
        f.write(text)
    print(f"series: {len(patches)} patches and a cover letter against {version}, in {a.out}:",
          file=sys.stderr)
    for f in files:
        print(os.path.join(a.out, f))
    if a.checkpatch:
        commits = git("rev-list", "--reverse", "HEAD~%d..HEAD" % len(patches),
                      cwd=scratch).split()
        sys.exit(run_checkpatch(base, scratch, [os.path.join(a.out, f) for f in files[1:]],
                                commits))


def run_checkpatch(base, scratch, pfiles, commits):
    """checkpatch.pl --strict on each patch: findings and a summary.  The
    FILE_PATH_CHANGES question is answered on the scratch tree at that
    patch (see maintained()); answered, it is not counted."""
    tot = [0, 0, 0]
    answered = 0
    print("\ncheckpatch.pl --strict, per patch (errors/warnings/checks):", file=sys.stderr)
    for pf, commit in zip(pfiles, commits):
        r = subprocess.run([os.path.join(base, "scripts", "checkpatch.pl"), "--strict",
                            "--show-types", "--root=" + base, pf],
                           capture_output=True, text=True)
        m = re.search(r"^total: (\d+) errors, (\d+) warnings, (\d+) checks", r.stdout, re.M)
        if not m:
            die(f"checkpatch.pl gave no total for {pf}:\n{r.stdout}{r.stderr}")
        e, w, c = (int(x) for x in m.groups())
        note = ""
        fpc = r.stdout.count("WARNING:FILE_PATH_CHANGES:")
        if fpc:
            git("checkout", "-q", commit, cwd=scratch)
            _, bad = maintained(scratch, pf)
            if bad:
                note = "  MAINTAINERS: " + "; ".join(bad)
            else:
                w -= fpc
                answered += fpc
                note = "  (FILE_PATH_CHANGES answered: MAINTAINERS covers the files)"
        tot = [tot[0] + e, tot[1] + w, tot[2] + c]
        print(f"  {os.path.basename(pf)[:60]:60} {e}/{w}/{c}{note}", file=sys.stderr)
        lines = r.stdout.split("\n")
        for i, line in enumerate(lines):
            mm = re.match(r"^(ERROR|WARNING|CHECK):(\w+): (.*)", line)
            if not mm or mm.group(2) == "FILE_PATH_CHANGES" and not note.startswith("  MAINT"):
                continue
            where = next((x.split(": FILE: ")[1].rstrip(":") for x in lines[i + 1:i + 4]
                          if ": FILE: " in x), "")
            print(f"      {mm.group(1)} {mm.group(2)} {where}: {mm.group(3)}", file=sys.stderr)
    git("checkout", "-q", "series", cwd=scratch)
    print(f"series: checkpatch --strict: {tot[0]} errors, {tot[1]} warnings, {tot[2]} checks "
          f"({answered} FILE_PATH_CHANGES answered by MAINTAINERS)", file=sys.stderr)
    return 1 if tot[0] or tot[1] else 0


if __name__ == "__main__":
    main()
