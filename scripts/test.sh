#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test (unit, integration with real
# children, charts) in parallel. As root on Linux it also makes a swapfile for the real-swap tests
# and removes it after (tests that need the machine to themselves are in *Exclusive suites, which
# ctest runs alone).
#   bash scripts/test.sh [CTEST_ARG]...     # e.g. -R '^unit\.'
#   bash scripts/test.sh -LE slow           # the quick loop: all but the tests labelled slow
#                                           # (tests/CMakeLists.txt says which); CI runs every test
# WMBENCH_TEST_JOBS: tests run at once (default: the cores + 2; most tests wait on children).
# WMBENCH_SANITIZE=1: an ASan+UBSan build in build-asan/.
# On a Mac the Python child's tests and the charts use the set-up's venv python (.venv, or
# WMBENCH_VENV); tests/CMakeLists.txt prefers it too.
# Runs under macOS's /bin/bash 3.2: no bash-4 features, no empty "${a[@]}" under set -u.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WMBENCH_SETUP_BROWSER=1 bash "$root/scripts/setup.sh"  # also chromium, for the browser test of `wmbench publish`
build="${WMBENCH_BUILD_DIR:-$root/build}"
extra=()
if [[ "${WMBENCH_SANITIZE:-0}" == 1 ]]; then
  build="${WMBENCH_BUILD_DIR:-$root/build-asan}"
  # -O1 -g1 (line tables, enough for the sanitizers' stack traces), the level ASan's documentation
  # suggests: under the sanitizers it compiles in half the CPU time of -O2 -g
  # (GCC 12: harness/check/check.cpp 28.8 s -> 13.6 s; BENCHMARKS.md, "Developer loop").
  extra+=(-DWMBENCH_SANITIZE=ON -DWMBENCH_BUILD_BENCH=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
fi
# ${extra[@]+...}: nothing when empty (bash 3.2 calls an empty "${extra[@]}" unbound under set -u).
WMBENCH_BUILD_DIR="$build" bash "$root/scripts/build.sh" ${extra[@]+"${extra[@]}"}

jobs="${WMBENCH_TEST_JOBS:-}"
if [[ -z "$jobs" ]]; then
  cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
  [[ "$cores" =~ ^[0-9]+$ ]] || cores=2
  jobs=$((cores + 2))
fi
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "test: WMBENCH_TEST_JOBS=$jobs: allowed is a whole number, 1 or more" >&2; exit 2; }

# shellcheck source=scripts/lib/run-env.sh
source "$root/scripts/lib/run-env.sh"
use_venv_python "$root"  # the charts that `wmbench run` draws in the integration tests
swap_for_run "$root" 2048 /var/tmp/wmbench-test.swap ||
  echo "test: no swap could be made; the real-swap tests will say they are skipped" >&2
# ctest starts the longest tests first when it knows their times (Testing/Temporary/CTestCostData.txt,
# which it writes after each run). A build that has none gets the times of a whole run on the
# development VM (tests/ctest-costs.txt, in ctest's own format; only the order depends on them, and a
# test they do not name simply runs in turn). Refresh them from one whole run's own times (each
# "Test #N: NAME ... SEC sec" line of ctest's output as "NAME 1 SEC"), not from CTestCostData.txt,
# whose running average kept times long gone (the charts' 90 s a test, 3-25 s since they draw in one
# python): last done on 2026-12-06 from the quiet run of BENCHMARKS.md's "Developer loop".
costs="$build/Testing/Temporary/CTestCostData.txt"
if [[ ! -f "$costs" && -f "$root/tests/ctest-costs.txt" ]]; then
  mkdir -p "$build/Testing/Temporary"
  cp "$root/tests/ctest-costs.txt" "$costs"
fi
cd "$build"
echo "test: ctest with $jobs at once (WMBENCH_TEST_JOBS)"
ctest --output-on-failure --timeout 1200 --parallel "$jobs" "$@"
