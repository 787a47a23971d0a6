#!/usr/bin/env bash
# How the committed CUDA result folders and GPU benchmark figures were made: on a Linux box with an
# NVIDIA GPU and a pip-installed torch (its libtorch is used through torch.utils.cmake_prefix_path).
# Usage: scripts/gpu-run.sh OUT_DIR   (build in /tmp/wmbench-gpu; results and bench JSON into OUT_DIR)
# Where the C++ packages (CLI11, nlohmann-json, fmt, google-benchmark) are not installed, put their
# headers (and libbenchmark.so) in .deps/ and they are used from there (WMBENCH_DEPS_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/gpu-run.sh OUT_DIR}"
mkdir -p "$out"
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
b=/tmp/wmbench-gpu
cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" \
      -DWMBENCH_DEPS_DIR="$root/.deps" -DWMBENCH_BUILD_TESTS=OFF >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$b" -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
export LD_LIBRARY_PATH="$root/.deps/lib:${LD_LIBRARY_PATH:-}"
"$b/wmbench" info --device cuda | tee "$out/info.txt"
"$b/wmbench" run "$root/scenarios/cuda-fraction.json" --out "$out/results"
"$b/wmbench" run "$root/scenarios/offload-footprint.json" --device cuda --out "$out/results"
"$b/wmbench" run "$root/scenarios/offload-footprint.json" --device cpu --out "$out/results"
# One half of a torch-release pair (the other half: the same command with libtorch 1.13 on Debian).
"$b/wmbench" run "$root/scenarios/mps-watermark.json" --device mps-model --recommended-max 2GiB --cap 3GiB --step 32MiB \
  --out "$out/results-pair" --no-plots
if [[ -x "$b/wmbench-bench" ]]; then
  "$b/wmbench-bench" --benchmark_filter="${WMBENCH_GPU_BENCH_FILTER:-Cuda|ChildStart|PythonImport|FillCpu/random|RandnCpu|MemsetFresh}" \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/bench-gpu.json" --benchmark_out_format=json | tee "$out/bench-gpu.txt"
fi
