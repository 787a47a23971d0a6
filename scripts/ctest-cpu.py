#!/usr/bin/env python3
"""CPU seconds of each ctest test, one test at a time: where the suite's CPU goes.

ctest in parallel is bound by the cores (BENCHMARKS.md, "Developer loop"), so what a test costs is
its CPU, not its wall time beside others. This runs every test of a build (as `ctest
--show-only=json-v1` lists it: its command, environment and folder) alone, and reads the CPU of
the test and of every process it waited for (getrusage RUSAGE_CHILDREN) around it.

Usage: python3 scripts/ctest-cpu.py [BUILD_DIR] [-R REGEX] [--top N]
  BUILD_DIR  default build
  -R REGEX   only the tests whose name matches (as ctest -R)
  --top N    print the N most costly (default 30), then the totals

Tests in *Exclusive suites need the machine (and, as root, swap: `scripts/swapfile.sh on 2048`);
they are measured too. Standard library only.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time


def tests_of(build):
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    for t in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        env = dict(v.split("=", 1) for v in props.get("ENVIRONMENT", []) if "=" in v)
        yield t["name"], t.get("command", []), env, props.get("WORKING_DIRECTORY", build)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("-R", dest="regex", default="")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not os.path.isfile(os.path.join(build, "CTestTestfile.cmake")):
        sys.exit("ctest-cpu: %s is not a build folder with tests (run scripts/test.sh or scripts/build.sh first)" % build)
    rows = []
    for name, cmd, env, cwd in tests_of(build):
        if a.regex and not re.search(a.regex, name):
            continue
        if not cmd:
            continue
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        try:
            rc = subprocess.run(cmd, cwd=cwd, env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=900).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows.append((cpu, wall, name, rc))
    rows.sort(reverse=True)
    print("%8s %8s  %s" % ("cpu s", "wall s", "test"))
    for cpu, wall, name, rc in rows[:a.top]:
        print("%8.2f %8.2f  %s%s" % (cpu, wall, name, "" if rc == 0 else "  (exit %s)" % rc))
    print("%d tests: %.1f s of CPU, %.1f s of wall one at a time" %
          (len(rows), sum(r[0] for r in rows), sum(r[1] for r in rows)))
    return 1 if any(r[3] != 0 for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
