#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run the watermark matrix.
#   On a Mac with MPS: the real matrix (scenarios/mps-watermark.json).
#   On Linux as root: swap is made if there is none (and removed afterwards), and the matrix runs on
#   mps-model, a model of the MPS allocator's limits, inside a 2 GiB memory sandbox.
#   Elsewhere: a cap-limited cpu run, said plainly.
# Extra arguments go to `wmbench run`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
made_swap=0
if [[ "$(uname -s)" == Linux && "$(id -u)" == 0 && -z "$(swapon --noheadings --show=NAME 2>/dev/null)" ]]; then
  if bash "$root/scripts/swapfile.sh" on 4096 /var/tmp/wmbench-main.swap; then
    made_swap=1
    trap 'bash "$root/scripts/swapfile.sh" off /var/tmp/wmbench-main.swap' EXIT
  fi
fi
cd "$root"
"$root/build/wmbench" run "$@"
