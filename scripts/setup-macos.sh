#!/usr/bin/env bash
# Sets up a Mac to build wmbench: the build tools and libraries from Homebrew, and a libtorch.
#
#   bash scripts/setup-macos.sh
#
# Installs with Homebrew only what is missing: cmake, ninja, cli11, nlohmann-json,
# google-benchmark, googletest, fmt. The libtorch (2.0 or newer), chosen by WMBENCH_TORCH:
#   auto (default): the torch that `python3` already imports, if it is 2.0+ with its CMake files
#       (`torch.utils.cmake_prefix_path`, i.e. .../site-packages/torch/share/cmake); otherwise as pip:
#   pip: torch from pip in a virtual environment inside the checkout, .venv (WMBENCH_VENV to move
#       it), made with python3 if it is 3.10+ (current torch wheels need it), else with
#       WMBENCH_PYTHON or Homebrew's python3; torch as scripts/requirements-macos.txt says;
#   brew: Homebrew's `pytorch` formula (built with MPS; where Homebrew has no bottle for this macOS
#       it builds from source, which takes hours), `$(brew --prefix pytorch)` as the CMake prefix.
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

# A C++20 compiler (Apple clang) comes with the Xcode Command Line Tools.
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
# torch_of PYTHON: prints "<version>\n<torch.utils.cmake_prefix_path>" when PYTHON imports a torch
# 2.0+ whose Torch/TorchConfig.cmake is there; fails (quietly) otherwise.
torch_of() {
  local out version prefix
  out="$("$1" -c 'import torch, torch.utils; print(torch.__version__); print(torch.utils.cmake_prefix_path)' 2>/dev/null)" || return 1
  version="$(printf '%s\n' "$out" | sed -n 1p)"
  prefix="$(printf '%s\n' "$out" | sed -n 2p)"
  [[ "${version%%.*}" =~ ^[0-9]+$ ]] && ((${version%%.*} >= 2)) && [[ -f "$prefix/Torch/TorchConfig.cmake" ]] || return 1
  printf '%s\n%s\n' "$version" "$prefix"
}
# python_ok PYTHON: Python 3.10 or newer (what current torch wheels need).
python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1; }

torch_mode="${WMBENCH_TORCH:-auto}"
case "$torch_mode" in auto|pip|brew) ;; *) die "WMBENCH_TORCH=$torch_mode: allowed are auto (default), pip, brew" ;; esac
venv="${WMBENCH_VENV:-$repo_root/.venv}"
torch_prefix=""
torch_source=""

if [[ "$torch_mode" == auto ]] && command -v python3 >/dev/null 2>&1; then
  if found="$(torch_of python3)"; then
    torch_prefix="$(printf '%s\n' "$found" | sed -n 2p)"
    torch_source="the PyTorch $(printf '%s\n' "$found" | sed -n 1p) that $(command -v python3) imports"
  else
    say "$(command -v python3) imports no torch 2.0+ (with its CMake files); using pip torch in $venv"
  fi
fi

if [[ -z "$torch_prefix" && "$torch_mode" != brew ]]; then
  if [[ -x "$venv/bin/python" ]] && found="$(torch_of "$venv/bin/python")"; then
    say "have torch $(printf '%s\n' "$found" | sed -n 1p) in $venv"
  else
    base="${WMBENCH_PYTHON:-}"
    if [[ -z "$base" ]]; then
      if command -v python3 >/dev/null 2>&1 && python_ok python3; then
        base="$(command -v python3)"
      else
        # The Command Line Tools' /usr/bin/python3 is 3.9: too old for current torch wheels.
        if [[ ! -x "$brew_prefix/bin/python3" ]] || ! python_ok "$brew_prefix/bin/python3"; then
          say "installing Homebrew's python3 (python3 here is older than 3.10)"
          brew install python3
        fi
        base="$brew_prefix/bin/python3"
      fi
    fi
    python_ok "$base" || die "$base is older than Python 3.10; set WMBENCH_PYTHON to a Python 3.10+"
    if [[ ! -x "$venv/bin/python" ]]; then
      say "making a virtual environment $venv with $base ($("$base" --version 2>&1))"
      "$base" -m venv "$venv"
    fi
    say "installing torch with pip into $venv (about 1 GB the first time)"
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip
    "$venv/bin/python" -m pip install --disable-pip-version-check --upgrade -r "$repo_root/scripts/requirements-macos.txt"
    found="$(torch_of "$venv/bin/python")" ||
      die "pip installed torch into $venv, but it has no torch 2.0+ with Torch/TorchConfig.cmake: see '$venv/bin/python -m pip show torch'"
  fi
  torch_prefix="$(printf '%s\n' "$found" | sed -n 2p)"
  torch_source="pip's torch $(printf '%s\n' "$found" | sed -n 1p) in $venv"
fi

if [[ -z "$torch_prefix" ]]; then  # WMBENCH_TORCH=brew
  if brew list --formula --versions pytorch >/dev/null 2>&1; then
    say "have pytorch ($(brew list --formula --versions pytorch))"
  else
    say "installing Homebrew's pytorch (where Homebrew has no bottle for this macOS it builds PyTorch from source: hours)"
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
