#!/usr/bin/env python3
"""scripts/cmake/git-rev.cmake (issue 45, item 7): a wmbench source tree inside another git repository
records "unknown", not that repository's commit; its own checkout records its own `git describe`.

    python3 tests/scripts/test_git_rev.py --cmake cmake
"""
import argparse
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "cmake", "git-rev.cmake")
CMAKE = "cmake"


def rev(source_dir):
    r = subprocess.run([CMAKE, "-DSOURCE_DIR=" + source_dir, "-P", SCRIPT], capture_output=True, text=True, timeout=60)
    return (r.stdout + r.stderr).strip()


def git(cwd, *args):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=cwd)
    return subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=True).stdout.strip()


class GitRev(unittest.TestCase):
    def test_a_tree_inside_another_repository_is_unknown(self):
        with tempfile.TemporaryDirectory() as t:
            git(t, "init", "-q")
            git(t, "commit", "-q", "--allow-empty", "-m", "another project")
            other = git(t, "rev-parse", "--short=12", "HEAD")
            sub = os.path.join(t, "vendor", "wmbench")
            os.makedirs(sub)
            self.assertEqual(rev(sub), "unknown")
            self.assertNotIn(other, rev(sub))
            # its own checkout: its own commit
            self.assertIn(other, rev(t))

    def test_no_git_at_all_is_unknown(self):
        with tempfile.TemporaryDirectory() as t:
            self.assertEqual(rev(t), "unknown")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--cmake", default="cmake")
    a, rest = p.parse_known_args()
    CMAKE = a.cmake
    unittest.main(argv=[sys.argv[0]] + rest)
