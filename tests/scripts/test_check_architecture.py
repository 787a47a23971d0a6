#!/usr/bin/env python3
"""scripts/check-architecture.py: passes on the real tree and fails on each planted fault.

   python3 tests/scripts/test_check_architecture.py [-v] [TestClass]

Each fault is planted in a copy of harness/ and docs/ARCHITECTURE.md in a temporary folder; the
checkout itself is only read.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "check-architecture.py")


def run(root, *args):
    return subprocess.run([sys.executable, SCRIPT, "--root", root, *args], capture_output=True, text=True, timeout=120)


class TreeTest(unittest.TestCase):
    def test_the_checkout_passes(self):
        r = run(ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)


class PlantedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="wmbench-arch-")
        shutil.copytree(os.path.join(ROOT, "harness"), os.path.join(self.tmp, "harness"))
        os.makedirs(os.path.join(self.tmp, "docs"))
        shutil.copy(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), os.path.join(self.tmp, "docs"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def path(self, rel):
        return os.path.join(self.tmp, rel)

    def append(self, rel, text):
        with open(self.path(rel), "a", encoding="utf-8") as f:
            f.write(text)

    def test_the_copy_passes_before_any_fault(self):
        r = run(self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_an_include_that_climbs_fails_and_is_named(self):
        # The two climbs issue 31 found: the guard including the runner's protocol, the model the scenario.
        self.append("harness/guard/policy.h", '\n#include "runner/runner.h"\n')
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn('harness/guard/policy.h:', r.stderr)
        self.assertIn('includes "runner/runner.h": runner comes after guard', r.stderr)

    def test_the_model_including_the_scenario_fails(self):
        self.append("harness/mpsmodel/predict.h", '\n#include "scenario/scenario.h"\n')
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("scenario comes after mpsmodel", r.stderr)

    def test_an_include_in_a_cpp_file_counts_too(self):
        self.append("harness/common/units.cpp", '\n  #  include "cli/command.h"\n')
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("harness/common/units.cpp:", r.stderr)

    def test_including_a_folder_below_and_its_own_folder_pass(self):
        self.append("harness/cli/main.cpp", '\n#include "common/units.h"\n#include "cli/command.h"\n')
        self.assertEqual(run(self.tmp).returncode, 0)

    def test_a_stale_include_fails(self):
        self.append("harness/runner/runner.cpp", '\n#include "runner/no_such_file.h"\n')
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a file under harness/", r.stderr)

    def test_an_include_without_its_folder_fails(self):
        self.append("harness/runner/runner.cpp", '\n#include "stages.h"\n')
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("without its folder", r.stderr)

    def test_a_folder_missing_from_the_order_fails(self):
        os.makedirs(self.path("harness/newthing"))
        with open(self.path("harness/newthing/a.h"), "w") as f:
            f.write("#pragma once\n")
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("harness/newthing/: not in the include order", r.stderr)

    def test_an_order_naming_a_missing_folder_fails(self):
        shutil.rmtree(self.path("harness/trace"))
        for d, _, fs in os.walk(self.path("harness")):  # no include of trace/ left to go stale
            for n in fs:
                p = os.path.join(d, n)
                with open(p, encoding="utf-8", errors="replace") as f:
                    s = f.read()
                if '"trace/' in s:
                    with open(p, "w", encoding="utf-8") as f:
                        f.write("\n".join(l for l in s.split("\n") if '"trace/' not in l))
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("names trace, which is not a folder", r.stderr)

    def test_a_folder_over_the_file_limit_fails(self):
        for i in range(17):
            with open(self.path(f"harness/trace/extra_{i}.h"), "w") as f:
                f.write("#pragma once\n")
        r = run(self.tmp)
        self.assertEqual(r.returncode, 1)
        self.assertIn("harness/trace/: 19 files, more than 16", r.stderr)
        self.assertEqual(run(self.tmp, "--max-files", "19").returncode, 0)

    def test_no_order_line_is_exit_2(self):
        p = self.path("docs/ARCHITECTURE.md")
        with open(p, encoding="utf-8") as f:
            s = f.read()
        with open(p, "w", encoding="utf-8") as f:
            f.write(s.replace("Include order:", "Include  order"))
        r = run(self.tmp)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no line 'Include order:", r.stderr)


if __name__ == "__main__":
    unittest.main()
