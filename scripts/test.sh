#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, integration with real children,
# charts). As root on Linux it also makes a swapfile for the real-swap tests and removes it after.
# Set WMBENCH_SANITIZE=1 for an ASan+UBSan build in build-asan/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
build="${WMBENCH_BUILD_DIR:-$root/build}"
extra=()
if [[ "${WMBENCH_SANITIZE:-0}" == 1 ]]; then
  build="${WMBENCH_BUILD_DIR:-$root/build-asan}"
  extra+=(-DWMBENCH_SANITIZE=ON -DWMBENCH_BUILD_BENCH=OFF)
fi
WMBENCH_BUILD_DIR="$build" bash "$root/scripts/build.sh" "${extra[@]}"

swap_made=""
cleanup() { if [[ -n "$swap_made" ]]; then bash "$root/scripts/swapfile.sh" off "$swap_made" || true; fi; }
trap cleanup EXIT
if [[ "$(uname -s)" == Linux && "$(id -u)" == 0 && -z "$(swapon --noheadings --show=NAME 2>/dev/null)" ]]; then
  if bash "$root/scripts/swapfile.sh" on 2048 /var/tmp/wmbench-test.swap; then
    swap_made=/var/tmp/wmbench-test.swap
  else
    echo "test: no swap could be made; the real-swap tests will say they are skipped" >&2
  fi
fi
cd "$build"
ctest --output-on-failure --timeout 1200
