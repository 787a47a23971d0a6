# shellcheck shell=bash
# Shared by scripts/main.sh and scripts/test.sh (sourced, not run): what both need around a run
# of wmbench. Runs under macOS's /bin/bash 3.2: no bash-4 features.

# use_venv_python ROOT: on a Mac, the charts' python is the venv's (set-up installs matplotlib
# there; python3 on a Mac, the Command Line Tools' 3.9, has none), unless WMBENCH_PYTHON names one.
use_venv_python() {
  local venv
  if [[ "$(uname -s)" == Darwin && -z "${WMBENCH_PYTHON:-}" ]]; then
    venv="${WMBENCH_VENV:-$1/.venv}"
    if [[ -x "$venv/bin/python" ]]; then export WMBENCH_PYTHON="$venv/bin/python"; fi
  fi
  return 0
}

# swap_for_run ROOT MIB PATH: on Linux as root with no swap active, makes a swapfile of MIB MiB at
# PATH (scripts/swapfile.sh) and removes it when the calling script exits (its EXIT trap is set
# here). Returns 1 when none could be made, 0 otherwise (also when swap was there already).
WMB_SWAP_MADE="" WMB_SWAP_ROOT=""
swap_off_made() {
  if [[ -n "$WMB_SWAP_MADE" ]]; then bash "$WMB_SWAP_ROOT/scripts/swapfile.sh" off "$WMB_SWAP_MADE" || true; fi
}
swap_for_run() {
  local mib="$2" path="$3"
  WMB_SWAP_ROOT="$1"
  [[ "$(uname -s)" == Linux && "$(id -u)" == 0 ]] || return 0
  [[ -z "$(swapon --noheadings --show=NAME 2>/dev/null)" ]] || return 0
  trap swap_off_made EXIT
  bash "$WMB_SWAP_ROOT/scripts/swapfile.sh" on "$mib" "$path" || return 1
  WMB_SWAP_MADE="$path"
}
