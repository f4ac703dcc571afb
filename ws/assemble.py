#!/usr/bin/env python3
"""Assemble a kernel tree: the pristine base, minus the files the series removes,
plus this repo's files, plus the series' small patches (see MANIFEST).

usage: assemble.py BASE TREE VARIANT

The tree shares unchanged files with the base by hard links and is updated
incrementally: a file is rewritten only when its content changes, so kbuild
rebuilds only what the change touched.
"""
import filecmp
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile

KERNEL_DIRS = ("arch", "include", "kernel", "lib", "mm", "samples",
               "Documentation", "tools", "scripts", "init")


def die(msg):
    sys.exit("assemble: error: " + msg)


def read_manifest(repo):
    ent = {"remove": [], "add": [], "patch": []}
    with open(os.path.join(repo, "MANIFEST")) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or parts[0] not in ent:
                die(f"MANIFEST:{n}: cannot parse '{line}'")
            ent[parts[0]].append(parts[1])
    return ent


def git_files(repo, *which):
    out = subprocess.run(["git", "-C", repo, "ls-files", *which, "--exclude-standard",
                          "--"] + list(KERNEL_DIRS),
                         check=True, capture_output=True, text=True).stdout.split()
    return {p for p in out if os.path.isfile(os.path.join(repo, p))}


def repo_files(repo):
    """The repo's files below kernel directories, and which of them git tracks."""
    tracked = git_files(repo, "--cached")
    return sorted(tracked | git_files(repo, "--others")), tracked


def glob_in(root, pattern):
    d, base = os.path.split(pattern)
    full = os.path.join(root, d)
    if not os.path.isdir(full):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(full)
                  if fnmatch.fnmatchcase(f, base) and os.path.isfile(os.path.join(full, f)))


def patched_paths(patch):
    paths = []
    with open(patch) as f:
        for line in f:
            if line.startswith("+++ "):
                p = line[4:].split("\t")[0].strip()
                if p != "/dev/null":
                    paths.append(p.split("/", 1)[1])
    return paths


def same(a, b):
    if not os.path.exists(a) or not os.path.exists(b):
        return False
    return filecmp.cmp(a, b, shallow=False)


def place(src, dst):
    """Make dst a fresh file with src's content (never write through a hard link)."""
    if os.path.lexists(dst):
        os.unlink(dst)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)


def main():
    base, tree, variant = sys.argv[1:4]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamp = os.path.join(tree, ".ws-base")

    if not os.path.exists(stamp) or open(stamp).read() != base:
        print(f"assemble: new tree {tree} from {base}", file=sys.stderr)
        if os.path.exists(tree):
            subprocess.run(["chmod", "-R", "u+w", tree], check=True)
            shutil.rmtree(tree)
        subprocess.run(["cp", "-al", base, tree], check=True)
        subprocess.run(["find", tree, "-type", "d", "-exec", "chmod", "u+w", "{}", "+"],
                       check=True)
        open(stamp, "w").write(base)

    desired = {}            # path -> source file, or None for "absent"
    if variant == "ours":
        man = read_manifest(repo)
        for pat in man["remove"]:
            hits = glob_in(base, pat)
            if not hits:
                die(f"'remove {pat}' matches nothing in the base")
            for p in hits:
                desired[p] = None
        files, tracked = repo_files(repo)
        covered = set()
        for pat in man["add"]:
            hits = [p for p in files if fnmatch.fnmatchcase(p, pat)]
            if not hits:
                die(f"'add {pat}' matches no file of the repo")
            covered.update(hits)
        for p in files:
            if p not in covered:
                if p in tracked:
                    die(f"{p} is not listed in MANIFEST (add it with 'add')")
                # Work in progress of someone else: not part of the series yet.
                print(f"assemble: warning: untracked {p} is not in MANIFEST, left out",
                      file=sys.stderr)
                continue
            if os.path.exists(os.path.join(base, p)) and p not in desired:
                die(f"{p} would overwrite a base file that MANIFEST does not remove; "
                    "change it with a patch instead")
            desired[p] = os.path.join(repo, p)
        if man["patch"]:
            stage = tempfile.mkdtemp(prefix="ws-patch-")
            try:
                for pp in man["patch"]:
                    pf = os.path.join(repo, pp)
                    if not os.path.isfile(pf):
                        die(f"patch {pp} does not exist")
                    for p in patched_paths(pf):
                        if p in desired:
                            die(f"{pp} patches {p}, which the series owns outright")
                        dst = os.path.join(stage, p)
                        if not os.path.exists(dst) and os.path.exists(os.path.join(base, p)):
                            os.makedirs(os.path.dirname(dst), exist_ok=True)
                            shutil.copyfile(os.path.join(base, p), dst)
                    r = subprocess.run(["patch", "-p1", "-s", "-F0", "--no-backup-if-mismatch",
                                        "-d", stage, "-i", pf], capture_output=True, text=True)
                    if r.returncode:
                        die(f"{pp} does not apply:\n{r.stdout}{r.stderr}")
                for root, _, fs in os.walk(stage):
                    for f in fs:
                        full = os.path.join(root, f)
                        desired[os.path.relpath(full, stage)] = full
                sync(base, tree, desired)
            finally:
                shutil.rmtree(stage)
            return
    sync(base, tree, desired)


def restore_strays(base, tree, owned):
    """Files the series does not own must be the base's (hard links): put back
    any that was edited in the tree by hand, so the tree is always exactly
    base + series."""
    restored = 0
    for root, dirs, files in os.walk(base):
        rel = os.path.relpath(root, base)
        for f in files:
            p = os.path.normpath(os.path.join(rel, f))
            if p in owned or p.startswith(".ws-"):
                continue
            dst = os.path.join(tree, p)
            try:
                if os.stat(dst).st_ino == os.stat(os.path.join(root, f)).st_ino:
                    continue
            except FileNotFoundError:
                pass
            print(f"assemble: {p} was changed in the tree by hand: restored",
                  file=sys.stderr)
            if os.path.lexists(dst):
                os.unlink(dst)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.link(os.path.join(root, f), dst)
            # Newer than the object built from the edited file, or make
            # would keep that object (the base's time is older).
            os.utime(dst)
            restored += 1
    return restored


def sync(base, tree, desired):
    owned_file = os.path.join(tree, ".ws-owned")
    before = set(open(owned_file).read().split()) if os.path.exists(owned_file) else set()
    changed = 0
    for p in sorted(before | set(desired)):
        dst = os.path.join(tree, p)
        if p not in desired:
            # No longer ours: a base file is relinked by restore_strays(); a
            # file only the series had goes away.
            if not os.path.exists(os.path.join(base, p)) and os.path.lexists(dst):
                os.unlink(dst)
                changed += 1
            continue
        src = desired[p]
        if src is None:
            if os.path.lexists(dst):
                os.unlink(dst)
                changed += 1
        elif not same(src, dst):
            place(src, dst)
            changed += 1
    changed += restore_strays(base, tree, set(desired))
    with open(owned_file, "w") as f:
        f.write("\n".join(sorted(desired)) + "\n")
    print(f"assemble: {len(desired)} files owned by the series, {changed} updated",
          file=sys.stderr)


if __name__ == "__main__":
    main()
