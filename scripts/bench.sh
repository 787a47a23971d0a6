#!/usr/bin/env bash
# Builds and runs wmbench-bench (Google Benchmark): 3 repetitions, aggregates only, JSON to a file.
#
#   scripts/bench.sh                                   # everything
#   scripts/bench.sh --benchmark_filter='MiB:512'      # extra arguments go to wmbench-bench
#   BUILD_DIR=build-bench BENCH_OUT=/tmp/b.json scripts/bench.sh
#
# BUILD_DIR (default: build) must be a configured build folder; wmbench-fill is built too, since
# ChildStart spawns the one next to wmbench-bench. BENCH_OUT (default: bench-results.json).
# See BENCHMARKS.md for what each benchmark measures.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
BENCH_OUT="${BENCH_OUT:-bench-results.json}"

cmake --build "$BUILD_DIR" --target wmbench-bench wmbench-fill

"$BUILD_DIR/wmbench-bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$BENCH_OUT" --benchmark_out_format=json "$@"

# A short table of the medians (optional: needs python3, any version, no packages).
if command -v python3 >/dev/null 2>&1; then
  python3 - "$BENCH_OUT" <<'EOF' || true
import json, sys
d = json.load(open(sys.argv[1]))
med = {b["run_name"]: b for b in d["benchmarks"] if b.get("aggregate_name") == "median"}
cv = {b["run_name"]: b for b in d["benchmarks"] if b.get("aggregate_name") == "cv"}
print("\nmedians of %d repetitions (cv = stddev/mean of real time)" %
      max([b.get("repetitions", 1) for b in d["benchmarks"]] + [1]))
for name, b in med.items():
    extra = " ".join("%s=%.4g" % (k, v) for k, v in b.items()
                     if k in ("GiB/s", "decision_ms", "stop_ms", "decision_max_ms", "stop_max_ms", "exit_ms"))
    c = cv.get(name, {}).get("real_time")
    print("  %-58s %12.4g %s  %s%s" % (name, b["real_time"], b["time_unit"], extra,
                                       "  cv=%.0f%%" % (100 * c) if c is not None else ""))
def rate(prefix):
    for n, b in med.items():
        if n.startswith(prefix + "/") and "GiB/s" in b:
            return b["GiB/s"]
for size in ("64", "512"):
    f, r, m = (rate("%s/MiB:%s" % (x, size)) for x in ("FillCpu/random", "RandnCpu", "MemsetFresh"))
    if f and r and m:
        print("  %s MiB: FillCpu/random %.3g GiB/s = %.2fx RandnCpu, %.2fx MemsetFresh" % (size, f, f / r, f / m))
EOF
fi
echo "JSON results: $(cd "$(dirname "$BENCH_OUT")" && pwd)/$(basename "$BENCH_OUT")"
