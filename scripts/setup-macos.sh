#!/usr/bin/env bash
# Sets up a Mac to build wmbench: the build tools and libraries from Homebrew, and a libtorch.
#
#   bash scripts/setup-macos.sh
#
# Installs with Homebrew only what is missing: cmake, ninja, cli11, nlohmann-json,
# google-benchmark, googletest, fmt. The libtorch is, in this order:
#   1. the one inside a PyTorch (2.0 or newer) that `python3` already imports
#      (`torch.utils.cmake_prefix_path`, i.e. .../site-packages/torch/share/cmake), or
#   2. Homebrew's `pytorch` formula (built with MPS; it links its C++ API into its prefix, so
#      `$(brew --prefix pytorch)/share/cmake/Torch/TorchConfig.cmake` is what CMake finds).
# It prints which one it used and, last, a line
#   WMBENCH_CMAKE_PREFIX_PATH=<torch prefix>;<homebrew prefix>
# whose value it also writes to build/.torch-prefix (one line, nothing else), for
#   cmake -DCMAKE_PREFIX_PATH="$(cat build/.torch-prefix)" ...
# For the "macos" CMake preset, export WMBENCH_TORCH_PREFIX and HOMEBREW_PREFIX as printed; under
# GitHub Actions (GITHUB_ENV set) this script adds both to the job's environment itself.
# Running it again changes nothing that is already in place.
#
# Written on Linux and never run by its author (no Mac was available): see docs/MACOS.md.
set -euo pipefail

say() { printf 'setup-macos: %s\n' "$*"; }
die() { printf 'setup-macos: error: %s\n' "$*" >&2; exit 1; }

[[ "$(uname -s)" == Darwin ]] || die "this script is for macOS (uname -s is $(uname -s)); on Linux use scripts/test.sh"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ "$(uname -m)" != arm64 ]]; then
  say "warning: this Mac is $(uname -m), not Apple silicon (arm64); the mps device may be unavailable"
fi

# A C++17 compiler comes with the Xcode Command Line Tools.
if ! xcode-select -p >/dev/null 2>&1; then
  die "the Xcode Command Line Tools are missing: run 'xcode-select --install', then run this script again"
fi

if ! command -v brew >/dev/null 2>&1; then
  for b in /opt/homebrew/bin/brew /usr/local/bin/brew; do
    if [[ -x "$b" ]]; then eval "$("$b" shellenv)"; break; fi
  done
fi
command -v brew >/dev/null 2>&1 || die "Homebrew is not installed: see https://brew.sh, then run this script again"
brew_prefix="$(brew --prefix)"
export HOMEBREW_NO_AUTO_UPDATE="${HOMEBREW_NO_AUTO_UPDATE:-1}"

formulae=(cmake ninja cli11 nlohmann-json google-benchmark googletest fmt)
missing=()
for f in "${formulae[@]}"; do
  if brew list --formula --versions "$f" >/dev/null 2>&1; then
    say "have $f ($(brew list --formula --versions "$f"))"
  else
    missing+=("$f")
  fi
done
if ((${#missing[@]})); then
  say "installing with Homebrew: ${missing[*]}"
  brew install "${missing[@]}"
fi

# The libtorch.
torch_prefix=""
torch_source=""
if command -v python3 >/dev/null 2>&1 &&
   py_out="$(python3 -c 'import torch, torch.utils; print(torch.__version__); print(torch.utils.cmake_prefix_path)' 2>/dev/null)"; then
  py_version="$(printf '%s\n' "$py_out" | sed -n 1p)"
  py_prefix="$(printf '%s\n' "$py_out" | sed -n 2p)"
  if [[ "${py_version%%.*}" =~ ^[0-9]+$ ]] && ((${py_version%%.*} >= 2)) && [[ -f "$py_prefix/Torch/TorchConfig.cmake" ]]; then
    torch_prefix="$py_prefix"
    torch_source="the PyTorch $py_version that $(command -v python3) imports"
  else
    say "python3 imports torch $py_version at $py_prefix, but wmbench needs 2.0 or newer with Torch/TorchConfig.cmake; using Homebrew's pytorch instead"
  fi
fi
if [[ -z "$torch_prefix" ]]; then
  if brew list --formula --versions pytorch >/dev/null 2>&1; then
    say "have pytorch ($(brew list --formula --versions pytorch))"
  else
    say "installing Homebrew's pytorch (large; takes a while)"
    brew install pytorch
  fi
  torch_prefix="$(brew --prefix pytorch)"
  [[ -f "$torch_prefix/share/cmake/Torch/TorchConfig.cmake" ]] ||
    die "Homebrew's pytorch has no $torch_prefix/share/cmake/Torch/TorchConfig.cmake; its layout changed: look for TorchConfig.cmake under $torch_prefix and set WMBENCH_TORCH_PREFIX"
  torch_source="Homebrew's pytorch ($(brew list --formula --versions pytorch))"
fi

cmake_prefix_path="$torch_prefix;$brew_prefix"
mkdir -p "$repo_root/build"
printf '%s\n' "$cmake_prefix_path" > "$repo_root/build/.torch-prefix"

if [[ -n "${GITHUB_ENV:-}" ]]; then
  {
    printf 'WMBENCH_TORCH_PREFIX=%s\n' "$torch_prefix"
    printf 'HOMEBREW_PREFIX=%s\n' "$brew_prefix"
  } >> "$GITHUB_ENV"
fi

say "libtorch: $torch_source"
say "libtorch CMake prefix: $torch_prefix"
say "wrote build/.torch-prefix"
printf 'WMBENCH_TORCH_PREFIX=%s\n' "$torch_prefix"
printf 'HOMEBREW_PREFIX=%s\n' "$brew_prefix"
printf 'WMBENCH_CMAKE_PREFIX_PATH=%s\n' "$cmake_prefix_path"
