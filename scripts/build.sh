#!/usr/bin/env bash
# Configures and builds wmbench into build/ (or $WMBENCH_BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WMBENCH_BUILD_DIR:-$root/build}"
args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [[ "$(uname -s)" == Darwin && -f "$root/build/.torch-prefix" ]]; then
  args+=("-DCMAKE_PREFIX_PATH=$(cat "$root/build/.torch-prefix")")
fi
cmake "${args[@]}" "$@" >/dev/null
jobs="${WMBENCH_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
cmake --build "$build" -j "$jobs"
echo "build: $build/wmbench and $build/wmbench-fill"
