#!/usr/bin/env python3
"""The include direction of harness/, checked against the order docs/ARCHITECTURE.md writes.

   python3 scripts/check-architecture.py [--root DIR] [--max-files N]

docs/ARCHITECTURE.md has one line `Include order: \`a < b < c\``: a folder may include its own
files and those of folders before it, never one after it (an include that "climbs"). It fails
(exit 1, every problem named with file and line) when:
  - a file under harness/ includes "F/x.h" of a folder F later in the order;
  - an include names a folder/file that does not exist under harness/ (a stale path);
  - a folder under harness/ is not in the order, or the order names a folder that is not there;
  - a folder holds more than --max-files files (default 16: one concern per folder).
Only `#include "..."` lines are read (what the compiler reads too); <...> includes are other
projects'. An include without a folder ("build_info.h") is the build's generated header.
Exit 2: the order line is missing or malformed.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ORDER = re.compile(r'^Include order:\s*`([^`]+)`\s*$')
GENERATED = {"build_info.h"}


def read_order(doc):
    try:
        with open(doc, encoding="utf-8") as f:
            for line in f:
                m = ORDER.match(line.strip())
                if m:
                    names = [n.strip() for n in m.group(1).split("<")]
                    if not all(re.fullmatch(r"[a-z0-9_]+", n) for n in names) or len(set(names)) != len(names):
                        raise SystemExit(f"check-architecture: {doc}: the include order names a folder twice or a bad name: {m.group(1)}")
                    return names
    except OSError as e:
        print(f"check-architecture: {doc}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    print(f"check-architecture: {doc}: no line 'Include order: `a < b < ...`'", file=sys.stderr)
    sys.exit(2)


def check(root, max_files):
    harness = os.path.join(root, "harness")
    order = read_order(os.path.join(root, "docs", "ARCHITECTURE.md"))
    rank = {name: i for i, name in enumerate(order)}
    folders = sorted(d for d in os.listdir(harness) if os.path.isdir(os.path.join(harness, d)))
    problems = []
    for d in folders:
        if d not in rank:
            problems.append(f"harness/{d}/: not in the include order of docs/ARCHITECTURE.md (place it there)")
    for name in order:
        if name not in folders:
            problems.append(f"docs/ARCHITECTURE.md: the include order names {name}, which is not a folder of harness/")
    files = 0
    for d in folders:
        entries = sorted(os.listdir(os.path.join(harness, d)))
        here = [e for e in entries if os.path.isfile(os.path.join(harness, d, e))]
        files += len(here)
        if len(here) > max_files:
            problems.append(f"harness/{d}/: {len(here)} files, more than {max_files} (split it by concern)")
        for e in here:
            path = os.path.join(harness, d, e)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.readlines()
            except OSError as err:
                problems.append(f"harness/{d}/{e}: {err.strerror}")
                continue
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                if "/" not in inc:
                    if inc not in GENERATED:
                        problems.append(f"harness/{d}/{e}:{n}: includes \"{inc}\" without its folder (write \"folder/{inc}\")")
                    continue
                target = inc.split("/", 1)[0]
                if not os.path.isfile(os.path.join(harness, inc)):
                    problems.append(f"harness/{d}/{e}:{n}: includes \"{inc}\", which is not a file under harness/")
                    continue
                if target == d or d not in rank or target not in rank:
                    continue
                if rank[target] > rank[d]:
                    problems.append(f"harness/{d}/{e}:{n}: includes \"{inc}\": {target} comes after {d} in the include order (an include that climbs)")
    return folders, files, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--max-files", type=int, default=16)
    a = ap.parse_args()
    if a.max_files < 1:
        print("check-architecture: --max-files must be 1 or more", file=sys.stderr)
        return 2
    folders, files, problems = check(a.root, a.max_files)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-architecture: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-architecture: {len(folders)} folders, {files} files, ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
