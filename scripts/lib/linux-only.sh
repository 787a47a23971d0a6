# shellcheck shell=bash
# Sourced by the scripts that run only on Linux (CI's tools: scripts/cross-macos.sh,
# scripts/lint-workflows.sh, scripts/gpu-run.sh). On a Mac they would stop at the first bash-4
# builtin (`mapfile: command not found` under macOS's bash 3.2) or a Linux-only tool; instead they
# say what they are for and what a Mac user runs, and exit 2. Bash 3.2 syntax only, up to that check.
# linux_only NAME WHAT: exits 2 with that message unless `uname -s` is Linux.
linux_only() {
  local os
  os="$(uname -s 2>/dev/null || echo unknown)"
  [ "$os" = Linux ] && return 0
  printf '%s: this script runs on Linux only (%s); this system is %s. On a Mac: bash scripts/main.sh and bash scripts/test.sh (README.md, docs/MACOS.md).\n' "$1" "$2" "$os" >&2
  exit 2
}
