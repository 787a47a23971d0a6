#!/usr/bin/env python3
"""The parts ctest is given each GoogleTest binary in (tests/CMakeLists.txt, wmbench_discover): every
test the binary has is a ctest test exactly once, none lost between the gtest filters of its parts
and none run twice; the `slow` label is on the tests of the slow suites, the Exclusive ones, the
charts and the browser test, and on no other; the Exclusive ones run alone (RUN_SERIAL).
`bash scripts/test.sh -LE slow` (the developer's quick loop) trusts this.

    python3 tests/scripts/test_tiers.py --build BUILD --ctest CTEST --slow-suites 'A*.*:B.*' --binary PREFIX=PATH ...
"""
import argparse
import collections
import fnmatch
import json
import subprocess
import sys
import unittest

ARGS = None


def gtest_names(binary):
    """Suite.Test of each test the binary lists (as --gtest_filter names them: a parameterised test
    keeps its index, Suite/Name.Test/0)."""
    out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True, timeout=120, check=True).stdout
    names, suite = [], None
    for line in out.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
            continue
        names.append(suite + line.split("#")[0].strip())
    return names


def ctest_tests(ctest, build):
    """(name, program, its --gtest_filter or None, properties) of each ctest test."""
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, capture_output=True, text=True, timeout=120,
                         check=True).stdout
    tests = []
    for t in json.loads(out)["tests"]:
        cmd = t.get("command", [])
        gfilter = next((a[len("--gtest_filter="):] for a in cmd if a.startswith("--gtest_filter=")), None)
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append((t["name"], cmd[0] if cmd else "", gfilter, props))
    return tests


def matches(name, patterns):
    """GoogleTest's filter: '*' and '?' wildcards, ':' between patterns."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns.split(":") if p)


class Tiers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tests = ctest_tests(ARGS.ctest, ARGS.build)

    def test_every_gtest_test_is_one_ctest_test(self):
        for spec in ARGS.binary:
            prefix, _, binary = spec.partition("=")
            listed = gtest_names(binary)
            self.assertGreater(len(listed), 0, binary)
            runs = collections.Counter(f for _, program, f, _ in self.tests if program == binary and f is not None)
            filters = set(runs)
            lost = sorted(set(listed) - filters)
            twice = sorted(f for f, n in runs.items() if n > 1)
            self.assertEqual(lost, [], f"{prefix}: tests of {binary} that ctest never runs")
            self.assertEqual(twice, [], f"{prefix}: tests ctest runs more than once")
            self.assertEqual(sorted(filters - set(listed)), [], f"{prefix}: ctest names tests {binary} has not")

    def test_the_slow_label_is_on_the_slow_tests_only(self):
        seen_slow = seen_quick = 0
        for name, _, gfilter, props in self.tests:
            labels = props.get("LABELS", [])
            if gfilter is not None:
                exclusive = fnmatch.fnmatchcase(gfilter, "*Exclusive.*")
                slow = exclusive or matches(gfilter, ARGS.slow_suites)
                self.assertEqual(bool(props.get("RUN_SERIAL")), exclusive, f"{name}: RUN_SERIAL")
            else:
                slow = name.startswith("plots.") or name == "browser.site"
            self.assertEqual("slow" in labels, slow, f"{name}: labels {labels}")
            seen_slow += slow
            seen_quick += not slow
        # Both tiers hold tests: a pattern that matched everything or nothing would show here.
        self.assertGreater(seen_slow, 0)
        self.assertGreater(seen_quick, seen_slow)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--ctest", required=True, help="the ctest of the build (CMake's CMAKE_CTEST_COMMAND), not PATH's")
    ap.add_argument("--slow-suites", required=True)
    ap.add_argument("--binary", action="append", default=[], help="PREFIX=PATH of a GoogleTest binary")
    ARGS, rest = ap.parse_known_args()
    for spec in ARGS.binary:
        if not spec.partition("=")[2]:
            ap.error(f"--binary {spec!r}: allowed is PREFIX=PATH, the path not empty")
    unittest.main(argv=[sys.argv[0]] + rest)
