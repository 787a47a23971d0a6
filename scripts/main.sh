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
# shellcheck source=scripts/lib/run-env.sh
source "$root/scripts/lib/run-env.sh"
use_venv_python "$root"
swap_for_run "$root" 4096 /var/tmp/wmbench-main.swap || true  # without swap the run says what it runs instead
cd "$root"
"$root/build/wmbench" run "$@"
