#!/usr/bin/env bash
# Configures and builds wmbench into build/ (or $WMBENCH_BUILD_DIR).
#   bash scripts/build.sh [--target NAME]... [CMAKE_ARG]...
# Each `--target NAME` goes to `cmake --build` (none: every target); every other argument goes to
# the configure step (e.g. -DWMBENCH_SANITIZE=ON). WMBENCH_JOBS: parallel jobs (default: the cores).
# Runs under macOS's /bin/bash 3.2: no bash-4 features, no empty "${a[@]}" under set -u.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WMBENCH_BUILD_DIR:-$root/build}"
args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
targets=()
while (($#)); do
  case "$1" in
    --target)
      [[ $# -ge 2 && -n "$2" ]] || { echo "build: --target needs a target name" >&2; exit 2; }
      targets+=(--target "$2"); shift 2 ;;
    --target=*)
      [[ -n "${1#--target=}" ]] || { echo "build: --target= needs a target name" >&2; exit 2; }
      targets+=(--target "${1#--target=}"); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
# ccache, where installed (scripts/setup.sh installs it on Debian): a rebuild of unchanged files, in
# this checkout or another one (CI's fresh clone, the simulated Mac's copy), is a cache hit.
# WMBENCH_CCACHE=0 turns it off. The base dir makes the checkout's paths relative; the sloppiness
# lets ccache cache the precompiled libtorch headers and the files that use them.
if [[ "${WMBENCH_CCACHE:-1}" != 0 && -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
if [[ "${CMAKE_CXX_COMPILER_LAUNCHER:-}" == *ccache* ]]; then
  args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER")
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
fi
if [[ "$(uname -s)" == Darwin && -f "$root/build/.torch-prefix" ]]; then
  args+=("-DCMAKE_PREFIX_PATH=$(cat "$root/build/.torch-prefix")")
fi
cmake "${args[@]}" >/dev/null
jobs="${WMBENCH_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
# ${targets[@]+...}: nothing when there are none (bash 3.2 calls an empty "${targets[@]}" unbound).
cmake --build "$build" -j "$jobs" ${targets[@]+"${targets[@]}"}
if ((${#targets[@]})); then
  echo "build: built ${targets[*]} in $build"
else
  echo "build: $build/wmbench and $build/wmbench-fill (and every other target)"
fi
