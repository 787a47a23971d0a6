#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run the watermark matrix.
#   On a Mac with MPS: the real matrix (scenarios/mps-watermark.json).
#   On Linux as root: swap is made if there is none (and removed afterwards), and the matrix runs on
#   mps-model, a model of the MPS allocator's limits, inside a 2 GiB memory sandbox.
#   Elsewhere: a cap-limited cpu run, said plainly.
# On a Mac, `wmbench doctor` runs first and a failed check stops the job (what to report is said).
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
# On a Mac, `wmbench doctor` first: each macOS assumption of wmbench checked live (under a minute),
# its doctor.json kept in build/doctor-DATE/. A failed check stops here: the run would measure wrong.
if [[ "$(uname -s)" == Darwin ]]; then
  doctor_dir="$root/build/doctor-$(date -u +%Y%m%dT%H%M%SZ)"
  if ! "$root/build/wmbench" doctor --out "$doctor_dir"; then
    printf '%s\n' "main: wmbench doctor found a check that fails on this Mac, so the run does not start." \
      "main: please report it (an issue of this repository) with $doctor_dir/doctor.json attached," \
      "main: the table above and the output of: build/wmbench info" >&2
    exit 1
  fi
fi
"$root/build/wmbench" run "$@"
