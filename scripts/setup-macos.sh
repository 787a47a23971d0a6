#!/usr/bin/env bash
# Sets up a Mac to build wmbench: the build tools and libraries from Homebrew, and a libtorch.
# Needs macOS 14 or newer (checked with sw_vers).
#
#   bash scripts/setup-macos.sh
#
# Installs with Homebrew only what is missing: cmake, ninja, cli11, nlohmann-json,
# google-benchmark, googletest, fmt. The libtorch (2.0 or newer), chosen by WMBENCH_TORCH:
#   auto (default): the torch that `python3` already imports, if it is 2.0+ with its CMake files
#       (`torch.utils.cmake_prefix_path`, i.e. .../site-packages/torch/share/cmake); otherwise as pip:
#   pip: torch and matplotlib (for the charts) from pip in a virtual environment inside the
#       checkout, .venv (WMBENCH_VENV to move it), as scripts/requirements-macos.txt says. Its
#       Python: WMBENCH_VENV_PYTHON when set; else python3 if it is 3.10+; else the first of Homebrew's
#       versioned formulae WMBENCH_PYTHON_FORMULAE (default "python@3.13 python@3.12 python@3.11";
#       installed ones first) for which pip has a torch (`pip install --dry-run`). Not Homebrew's
#       `python3`: that alias moves to each new Python before torch has wheels for it;
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
# Written on Linux and never run by its author on a Mac (no Mac was available): see docs/MACOS.md.
# Its Darwin path runs end to end in CI on a simulated Mac (scripts/ci-simulated-mac.sh: stand-in
# macOS tools, under GNU bash 3.2 and bash 5). It runs under macOS's /bin/bash 3.2: no bash-4
# features, no empty "${a[@]}" under set -u.
set -euo pipefail

say() { printf 'setup-macos: %s\n' "$*"; }
die() { printf 'setup-macos: error: %s\n' "$*" >&2; exit 1; }

[[ "$(uname -s)" == Darwin ]] || die "this script is for macOS (uname -s is $(uname -s)); on Linux use scripts/test.sh"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# macOS 14 or newer: torch 2.12+ wheels are tagged macosx_14_0_arm64, and PyTorch's MPS backend
# (aten/src/ATen/mps/MPSDevice.mm, MPSDevice::MPSDevice) has no device unless MPSGraph answers a
# method that macOS 14 introduced (HermiteanToRealFFTWithTensor:axes:descriptor:name:).
macos_version="$(sw_vers -productVersion 2>/dev/null || true)"
macos_major="${macos_version%%.*}"
[[ "$macos_major" =~ ^[0-9]+$ ]] || die "sw_vers -productVersion said '$macos_version', not a macOS version like 14.4"
if ((macos_major < 14)); then
  die "this is macOS $macos_version; wmbench needs macOS 14 or newer (PyTorch's MPS backend and current torch wheels need it): update macOS, then run this script again"
fi
say "macOS $macos_version"

# Rosetta: an x86_64 shell on Apple silicon builds an x86_64 wmbench against x86_64 libraries,
# which then has no MPS. sysctl.proc_translated is 1 only in a translated process (absent on Intel).
machine="$(uname -m)"
if [[ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" == 1 ]]; then
  die "this shell runs under Rosetta (uname -m says $machine on an Apple-silicon Mac): what it builds is x86_64 and has no MPS. Open a native Terminal (Finder > Applications > Utilities > Terminal > Get Info: untick 'Open using Rosetta'; check with 'uname -m', which must say arm64), or run 'arch -arm64 /bin/bash scripts/setup-macos.sh', then run this script again"
fi
if [[ "$machine" != arm64 ]]; then
  say "this is an Intel Mac ($machine): it has no MPS for this harness (the watermark behaviour it measures is Apple silicon's unified memory, and PyTorch publishes no macOS x86_64 wheels since 2.2). What wmbench can still do here: build, run on cpu (wmbench run --device cpu), and predict, explain, compare, history and check result folders made on Apple-silicon Macs"
fi

# A C++20 compiler (Apple clang) comes with the Xcode Command Line Tools.
if ! xcode-select -p >/dev/null 2>&1; then
  die "the Xcode Command Line Tools are missing: run 'xcode-select --install', then run this script again"
fi
# An installed but unaccepted Xcode licence makes every compiler call fail (xcrun exits 69).
if ! clang_out="$(xcrun clang --version 2>&1)"; then
  case "$clang_out" in
    *[Ll]icense*) die "the Xcode licence has not been accepted, so the compiler cannot run ('xcrun clang --version' says: $(printf '%s' "$clang_out" | head -n 2 | tr '\n' ' ')). Run 'sudo xcodebuild -license accept' (or open Xcode once), then run this script again" ;;
    *) die "'xcrun clang --version' fails, so there is no compiler: $(printf '%s' "$clang_out" | head -n 3 | tr '\n' ' ')(reinstall the Command Line Tools: 'sudo rm -rf /Library/Developer/CommandLineTools; xcode-select --install')" ;;
  esac
fi

if ! command -v brew >/dev/null 2>&1; then
  for b in /opt/homebrew/bin/brew /usr/local/bin/brew; do
    if [[ -x "$b" ]]; then eval "$("$b" shellenv)"; break; fi
  done
fi
command -v brew >/dev/null 2>&1 || die "Homebrew is not installed: see https://brew.sh, then run this script again"
brew_prefix="$(brew --prefix)"
# Apple silicon's Homebrew lives in /opt/homebrew; the one in /usr/local is the Intel (Rosetta)
# one, whose x86_64 bottles cannot link with an arm64 libtorch.
if [[ "$machine" == arm64 && "$brew_prefix" == /usr/local ]]; then
  if [[ -x /opt/homebrew/bin/brew ]]; then
    say "the brew on PATH is the Intel Homebrew in /usr/local; using Apple silicon's /opt/homebrew instead"
    eval "$(/opt/homebrew/bin/brew shellenv)"
    brew_prefix="$(brew --prefix)"
  else
    die "the Homebrew here is the Intel one in /usr/local (its x86_64 bottles cannot link with an arm64 libtorch); install Homebrew for Apple silicon, which lives in /opt/homebrew (https://brew.sh, from a native Terminal), then run this script again"
  fi
fi
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
# python_fits PYTHON PREFIX: why the torch that PYTHON imports (CMake files at PREFIX) is not the
# one to build against, or nothing: it must import matplotlib (the charts), and its libtorch must be
# built for this machine (`lipo -archs` of lib/libtorch_cpu.dylib names `uname -m`), or it cannot link.
python_fits() {
  local lib archs
  "$1" -c 'import matplotlib' >/dev/null 2>&1 || { printf 'it does not import matplotlib (the charts need it)'; return 0; }
  lib="$(cd "$2/../.." 2>/dev/null && pwd)/lib/libtorch_cpu.dylib"
  [[ -f "$lib" ]] || { printf 'its torch has no %s to check the architecture of' "$lib"; return 0; }
  archs="$(lipo -archs "$lib" 2>&1)" || { printf 'lipo -archs %s failed: %s' "$lib" "$archs"; return 0; }
  case " $archs " in
    *" $machine "*) ;;
    *) printf 'its libtorch is built for %s, this Mac is %s (it cannot link)' "$archs" "$machine" ;;
  esac
}
# venv_has_charts: the venv's Python imports matplotlib (the charts of `wmbench run`, the plots.* tests).
venv_has_charts() { "$venv/bin/python" -c 'import matplotlib' >/dev/null 2>&1; }
# python_ok PYTHON: Python 3.10 or newer (what current torch wheels need).
python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1; }
# pip_has_torch VENV: pip's answer, without installing anything, whether it has a torch as
# scripts/requirements-macos.txt asks for this venv's Python (a wheel for its version and this macOS).
pip_has_torch() {
  "$1/bin/python" -m pip install --disable-pip-version-check --quiet --dry-run \
    -r "$repo_root/scripts/requirements-macos.txt" >/dev/null 2>&1
}
# make_venv PYTHON: a fresh venv at $venv made with PYTHON, its pip current, and pip's answer for
# torch. Fails (and removes the venv) when pip has no torch for that Python.
make_venv() {
  rm -rf "$venv"
  say "making a virtual environment $venv with $1 ($("$1" --version 2>&1))"
  "$1" -m venv "$venv" || { rm -rf "$venv"; say "$1 -m venv failed"; return 1; }
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip ||
    { rm -rf "$venv"; say "pip could not upgrade itself in the venv of $1"; return 1; }
  if ! pip_has_torch "$venv"; then
    say "pip has no torch as scripts/requirements-macos.txt asks for $("$1" --version 2>&1) ($1): trying the next Python"
    rm -rf "$venv"
    return 1
  fi
}
# The Pythons to try, in order: WMBENCH_VENV_PYTHON alone when set; else python3 on PATH when it is
# 3.10+ (the Command Line Tools' /usr/bin/python3 is 3.9), then Homebrew's versioned formulae of
# WMBENCH_PYTHON_FORMULAE. Versioned, not Homebrew's `python3`: that alias moves to each new
# Python (3.15 has claimed it) before torch has wheels for it. Each is checked against pip's answer.
python_formulae="${WMBENCH_PYTHON_FORMULAE:-python@3.13 python@3.12 python@3.11}"
# formula_python FORMULA: the path of its versioned interpreter (python@3.13 -> .../bin/python3.13).
formula_python() { printf '%s/opt/%s/bin/python%s\n' "$brew_prefix" "$1" "${1#python@}"; }
choose_venv_python() {
  local f py tried=""
  # One name, one meaning (issue 42): WMBENCH_PYTHON is the charts' Python everywhere else (a
  # python with matplotlib, tools/locate.h); the venv's base is WMBENCH_VENV_PYTHON.
  if [[ -n "${WMBENCH_PYTHON:-}" && -z "${WMBENCH_VENV_PYTHON:-}" ]]; then
    say "WMBENCH_PYTHON=$WMBENCH_PYTHON names the charts' Python, not the venv's base: set WMBENCH_VENV_PYTHON to choose that"
  fi
  if [[ -n "${WMBENCH_VENV_PYTHON:-}" ]]; then
    python_ok "$WMBENCH_VENV_PYTHON" || die "WMBENCH_VENV_PYTHON=$WMBENCH_VENV_PYTHON is not a Python 3.10+"
    make_venv "$WMBENCH_VENV_PYTHON" || die "pip has no torch for WMBENCH_VENV_PYTHON=$WMBENCH_VENV_PYTHON; unset it or name another Python"
    return 0
  fi
  if command -v python3 >/dev/null 2>&1 && python_ok python3; then
    make_venv "$(command -v python3)" && return 0
    tried="$(command -v python3)"
  fi
  # Installed formulae first, then those Homebrew must install, each in the list's order.
  for f in $python_formulae; do
    [[ "$f" =~ ^python@3\.[0-9]+$ ]] || die "WMBENCH_PYTHON_FORMULAE: '$f' is not a formula like python@3.13"
    py="$(formula_python "$f")"
    if [[ -x "$py" ]] && python_ok "$py"; then
      make_venv "$py" && return 0
      tried="$tried $f"
    fi
  done
  for f in $python_formulae; do
    py="$(formula_python "$f")"
    [[ -x "$py" ]] && continue
    say "installing Homebrew's $f (for the venv: python3 here is older than 3.10 or has no torch wheel)"
    if ! brew install "$f"; then say "brew install $f failed"; tried="$tried $f"; continue; fi
    if [[ -x "$py" ]] && python_ok "$py"; then
      make_venv "$py" && return 0
    else
      say "Homebrew's $f has no $py"
    fi
    tried="$tried $f"
  done
  die "no Python with a torch wheel from pip (tried:${tried:- nothing}); set WMBENCH_PYTHON to a Python 3.10+ that pip has torch for, or WMBENCH_PYTHON_FORMULAE"
}

torch_mode="${WMBENCH_TORCH:-auto}"
case "$torch_mode" in auto|pip|brew) ;; *) die "WMBENCH_TORCH=$torch_mode: allowed are auto (default), pip, brew" ;; esac
venv="${WMBENCH_VENV:-$repo_root/.venv}"
torch_prefix=""
torch_source=""

if [[ "$torch_mode" == auto ]] && command -v python3 >/dev/null 2>&1; then
  if found="$(torch_of python3)"; then
    why_not="$(python_fits python3 "$(printf '%s\n' "$found" | sed -n 2p)")"
    if [[ -z "$why_not" ]]; then
      torch_prefix="$(printf '%s\n' "$found" | sed -n 2p)"
      torch_source="the PyTorch $(printf '%s\n' "$found" | sed -n 1p) that $(command -v python3) imports"
    else
      say "$(command -v python3) imports torch $(printf '%s\n' "$found" | sed -n 1p), but $why_not; using pip torch in $venv"
    fi
  else
    say "$(command -v python3) imports no torch 2.0+ (with its CMake files); using pip torch in $venv"
  fi
fi

if [[ -z "$torch_prefix" && "$torch_mode" != brew ]]; then
  if [[ -x "$venv/bin/python" ]] && found="$(torch_of "$venv/bin/python")" && venv_has_charts; then
    say "have torch $(printf '%s\n' "$found" | sed -n 1p) and matplotlib in $venv"
  else
    if [[ ! -x "$venv/bin/python" ]] || ! python_ok "$venv/bin/python" || ! pip_has_torch "$venv"; then
      choose_venv_python
    fi
    say "installing torch and matplotlib with pip into $venv (about 1 GB the first time)"
    "$venv/bin/python" -m pip install --disable-pip-version-check --upgrade -r "$repo_root/scripts/requirements-macos.txt"
    found="$(torch_of "$venv/bin/python")" ||
      die "pip installed torch into $venv, but it has no torch 2.0+ with Torch/TorchConfig.cmake: see '$venv/bin/python -m pip show torch'"
    venv_has_charts || die "pip installed matplotlib into $venv, but '$venv/bin/python -c \"import matplotlib\"' fails"
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
