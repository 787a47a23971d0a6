#!/usr/bin/env bash
# How the committed CUDA result folders and GPU figures were made: on a Linux box with an NVIDIA GPU
# and a pip-installed torch (its libtorch is used through torch.utils.cmake_prefix_path).
#
# Usage: scripts/gpu-run.sh OUT_DIR [STAGES]
#   STAGES (comma-separated, default all): build,test,cuda,bench
#     build  configure + build everything (the fill child in the C++ standard CMakeLists.txt picks:
#            C++20 for code that includes libtorch), tests included
#     test   the unit tests and the integration tests (ctest), log in OUT_DIR/ctest.log
#     cuda   scenarios/cuda-fraction.json with the C++ child and with the Python child
#            (--python python3), then `wmbench compare` of the two folders; folders in OUT_DIR/results
#     extra  the other committed H200 folders of 2026-11-29: offload-footprint on cuda and cpu, and the
#            torch 2.11 half of the release pair (mps-model)
#     bench  ChildStart / PythonChildStart / Cuda benchmarks, JSON in OUT_DIR/bench-gpu.json
# Build folder: /tmp/wmbench-gpu. Where the C++ packages (CLI11, nlohmann-json, fmt, google-benchmark,
# googletest) are not installed, their headers and libraries in .deps/ are used (WMBENCH_DEPS_DIR):
# copy them from a Debian machine (include/{nlohmann,CLI,fmt,benchmark}, lib/libbenchmark.so*), and
# googletest in a prefix of its own, gtest/include/{gtest,gmock} and
# gtest/lib/x86_64-linux-gnu/{libgtest*,libgmock*,cmake/GTest}: its include folder then brings no
# second copy of nlohmann's headers ahead of the one the library was compiled with.
set -euo pipefail
# shellcheck source=scripts/lib/linux-only.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/linux-only.sh"
linux_only gpu-run "a Linux box with an NVIDIA GPU and CUDA torch"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/gpu-run.sh OUT_DIR [build,test,cuda,bench]}"
stages=",${2:-build,test,cuda,bench},"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
has() { [[ "$stages" == *",$1,"* ]]; }
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
b=/tmp/wmbench-gpu
export LD_LIBRARY_PATH="$root/.deps/lib:${LD_LIBRARY_PATH:-}"
if has build; then
  gtest_dir=()
  [[ -d "$root/.deps/gtest/lib/x86_64-linux-gnu/cmake/GTest" ]] && gtest_dir=(-DGTest_DIR="$root/.deps/gtest/lib/x86_64-linux-gnu/cmake/GTest")
  cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" \
        -DWMBENCH_DEPS_DIR="$root/.deps" "${gtest_dir[@]}" -DWMBENCH_PYTHON=/nonexistent >"$out/configure.log" 2>&1 \
    || { tail -30 "$out/configure.log"; exit 1; }
  grep -iE "CXX_STANDARD|C\+\+|standard" "$out/configure.log" | head -5 || true
  cmake --build "$b" -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -60; exit 1; }
  # The standard the fill child was really compiled with, read off its compile command.
  grep -o -- '-std=[a-z+0-9]*' "$b/compile_commands.json" | sort | uniq -c || true
  echo "build: ok"
fi
"$b/wmbench" info --device cuda | tee "$out/info.txt"
if has test; then
  # The chart tests and the browser test need matplotlib and chromium, configured away above
  # (-DWMBENCH_PYTHON=/nonexistent): they run on the Linux CI instead, and are said to be left out.
  (cd "$b" && ctest -j 8 --timeout 600 -E '^(plots|browser)\.' >"$out/ctest.log" 2>&1) && echo "ctest: ok" || echo "ctest: FAILED"
  echo "ctest: left out here: plots.* and browser.site (no matplotlib or chromium configured; run on the Linux CI)"
  tail -40 "$out/ctest.log"
fi
if has cuda; then
  mkdir -p "$out/results"
  "$b/wmbench" run "$root/scenarios/cuda-fraction.json" --out "$out/results" --no-plots
  WMBENCH_PYFILL="$b/wmbench_fill.py" "$b/wmbench" run "$root/scenarios/cuda-fraction.json" --python python3 \
    --out "$out/results/python" --no-plots
  native="$(ls -d "$out"/results/*-cuda-fraction* | head -1)"
  python="$(ls -d "$out"/results/python/*-cuda-fraction* | head -1)"
  "$b/wmbench" compare "$native" "$python" --markdown | tee "$out/compare.md" || echo "compare exit $?"
fi
if has extra; then
  "$b/wmbench" run "$root/scenarios/offload-footprint.json" --device cuda --out "$out/results"
  "$b/wmbench" run "$root/scenarios/offload-footprint.json" --device cpu --out "$out/results"
  "$b/wmbench" run "$root/scenarios/mps-watermark.json" --device mps-model --recommended-max 2GiB --cap 3GiB --step 32MiB \
    --out "$out/results-pair" --no-plots
fi
if has bench && [[ -x "$b/wmbench-bench" ]]; then
  "$b/wmbench-bench" --benchmark_filter="${WMBENCH_GPU_BENCH_FILTER:-ChildStart|Cuda}" \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench-gpu.json" --benchmark_out_format=json | tee "$out/bench-gpu.txt"
fi
