#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run the watermark matrix.
#   On a Mac with MPS: the real matrix (scenarios/mps-watermark.json).
#   On Linux as root: swap is made if there is none (and removed afterwards), and the matrix runs on
#   mps-model, a model of the MPS allocator's limits, inside a 2 GiB memory sandbox.
#   Elsewhere: a cap-limited cpu run, said plainly.
# Extra arguments go to `wmbench run`. It builds only what the run needs (wmbench, wmbench-fill;
# the Python child is copied at configure time); scripts/test.sh builds the rest.
# Runs under macOS's /bin/bash 3.2: no bash-4 features, no empty "${a[@]}" under set -u.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" --target wmbench --target wmbench-fill
if [[ "$(uname -s)" == Darwin && -z "${WMBENCH_PYTHON:-}" ]]; then
  # The charts: set-up installs matplotlib into the venv; python3 on a Mac (the Command Line
  # Tools' 3.9) has none.
  venv="${WMBENCH_VENV:-$root/.venv}"
  if [[ -x "$venv/bin/python" ]]; then export WMBENCH_PYTHON="$venv/bin/python"; fi
fi
made_swap=""
cleanup() { if [[ -n "$made_swap" ]]; then bash "$root/scripts/swapfile.sh" off "$made_swap" || true; fi; }
trap cleanup EXIT
if [[ "$(uname -s)" == Linux && "$(id -u)" == 0 && -z "$(swapon --noheadings --show=NAME 2>/dev/null)" ]]; then
  if bash "$root/scripts/swapfile.sh" on 4096 /var/tmp/wmbench-main.swap; then
    made_swap=/var/tmp/wmbench-main.swap
  fi
fi
cd "$root"
"$root/build/wmbench" run "$@"
