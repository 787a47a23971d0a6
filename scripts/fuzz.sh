#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in build-fuzz/ with clang and runs each for a while.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 20)
#
# Each target runs on a copy of its seed corpus (tests/fuzz/corpus/<name>) in a temporary folder,
# so the committed corpus never grows. Crash, timeout and OOM inputs are kept in
# build-fuzz/fuzz-artifacts/; the exit status is non-zero when any target found one.
# Environment: WMBENCH_FUZZ_TARGETS="fuzz_sizes ..." to run only some; WMBENCH_FUZZ_JOBS (build
# parallelism, default 1); WMBENCH_FUZZ_PARALLEL (targets run at once, default the cores);
# WMBENCH_FUZZ_KEEP=1 keeps the grown corpora (their folder is printed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

secs="${1:-20}"
if ! [[ "$secs" =~ ^[0-9]+$ ]] || ((secs < 1)); then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (a whole number >= 1; default 20)" >&2
  exit 2
fi
targets=(${WMBENCH_FUZZ_TARGETS:-fuzz_error_parser fuzz_sizes fuzz_scenario fuzz_folder fuzz_protocol fuzz_readers})
build="$root/build-fuzz"
artifacts="$build/fuzz-artifacts"
hint="apt-get install clang libclang-rt-14-dev   (or: WMBENCH_SETUP_FUZZ=1 bash scripts/setup.sh)"

# clang with libFuzzer's runtime, cmake and ninja; install what is missing where we can.
have_toolchain() {
  command -v clang >/dev/null && command -v clang++ >/dev/null && command -v cmake >/dev/null &&
    command -v ninja >/dev/null || return 1
  local probe
  probe="$(mktemp -d)"
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe/p.cpp"
  local ok=0
  clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1 || ok=1
  rm -rf "$probe"
  return $ok
}
if ! have_toolchain; then
  echo "fuzz: clang with libFuzzer (or cmake/ninja) is missing; trying scripts/setup.sh with WMBENCH_SETUP_FUZZ=1" >&2
  if [[ "$(id -u)" == 0 ]] || command -v sudo >/dev/null; then
    WMBENCH_SETUP_FUZZ=1 bash "$root/scripts/setup.sh" || true
  fi
  if ! have_toolchain; then
    echo "fuzz: clang++ -fsanitize=fuzzer does not work here; install it: $hint" >&2
    exit 2
  fi
fi

# Configure (a build folder made with another compiler cannot be reused: start it afresh).
if [[ -f "$build/CMakeCache.txt" ]] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang' "$build/CMakeCache.txt"; then
  echo "fuzz: $build was configured with another compiler; reconfiguring from scratch" >&2
  rm -rf "$build"
fi
echo "fuzz: configuring $build"
launcher=""  # ccache where installed, as scripts/build.sh uses it
if [[ "${WMBENCH_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null 2>&1; then
  launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DWMBENCH_FUZZ=ON -DWMBENCH_BUILD_FILL=OFF \
  -DWMBENCH_BUILD_TESTS=OFF -DWMBENCH_BUILD_BENCH=OFF ${launcher:+"$launcher"} >"$build.configure.log" 2>&1 || {
  cat "$build.configure.log" >&2
  echo "fuzz: cmake failed (log above); clang/libFuzzer: $hint" >&2
  exit 2
}
rm -f "$build.configure.log"
echo "fuzz: building ${targets[*]} (-j${WMBENCH_FUZZ_JOBS:-1})"
cmake --build "$build" -j "${WMBENCH_FUZZ_JOBS:-1}" --target "${targets[@]}"

mkdir -p "$artifacts"
work="$(mktemp -d "${TMPDIR:-/tmp}/wmbench-fuzz.XXXXXX")"
cleanup() { if [[ "${WMBENCH_FUZZ_KEEP:-0}" != 1 ]]; then rm -rf "$work"; fi; }
trap cleanup EXIT

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# run_one TARGET: runs one target on a copy of its seeds; writes its summary line to $work/TARGET.line
# and exits non-zero when the target found something.
run_one() {
  local t="$1" name bin seeds corpus log rc execs last cov ft corp stats line found kind kept
  name="${t#fuzz_}"
  bin="$build/tests/fuzz/$t"
  seeds="$root/tests/fuzz/corpus/$name"
  corpus="$work/corpus-$name"
  log="$work/$t.log"
  mkdir -p "$corpus"
  [[ -d "$seeds" ]] && cp -R "$seeds/." "$corpus/"
  local dictarg=""
  [[ -f "$root/tests/fuzz/$name.dict" ]] && dictarg="-dict=$root/tests/fuzz/$name.dict"
  echo "fuzz: running $t for ${secs}s (log: $log)"
  rc=0
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t-" ${dictarg:+"$dictarg"} "$corpus" >"$log" 2>&1 || rc=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)"
  last="$(grep -E '^#[0-9]+' "$log" | tail -n 1)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  corp="$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")"
  stats="execs ${execs:-?}, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} (seeds $(ls "$seeds" 2>/dev/null | wc -l))"
  if ((rc == 0)); then
    line="$t: ok in ${secs}s: $stats"
  else
    found="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    kind="$(grep -m1 -oE 'INVARIANT BROKEN: .{0,160}|ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|libFuzzer): [^ ]*( [^ ]*)?|runtime error: .{0,160}|uncaught exception' "$log" || true)"
    kept="$artifacts/$t.log"
    cp "$log" "$kept"
    line="$t: FAILED (rc $rc): ${kind:-see the log}; input: ${found:-none written}; log: $kept; reproduce: $bin ${found:-<input>}; $stats"
  fi
  echo "$line" | tee "$work/$t.line"
  ((rc == 0))
}

# The targets run $par at a time (default: the cores; each is one process), in batches.
par="${WMBENCH_FUZZ_PARALLEL:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
[[ "$par" =~ ^[0-9]+$ ]] && ((par >= 1)) || par=1
failed=0
pids=""
n=0
for t in "${targets[@]}"; do
  run_one "$t" &
  pids="$pids $!"
  n=$((n + 1))
  if ((n % par == 0)); then
    for p in $pids; do wait "$p" || failed=1; done
    pids=""
  fi
done
for p in $pids; do wait "$p" || failed=1; done
summary=()
for t in "${targets[@]}"; do
  if [[ -f "$work/$t.line" ]]; then summary+=("$(cat "$work/$t.line")"); else summary+=("$t: no result"); failed=1; fi
done

echo
echo "fuzz: summary (${secs}s per target, $par at a time)"
printf '  %s\n' "${summary[@]}"
if [[ "${WMBENCH_FUZZ_KEEP:-0}" == 1 ]]; then echo "fuzz: grown corpora kept in $work"; fi
if ((failed)); then
  echo "fuzz: FAILED: a target found a crash, an invariant break, a timeout or an OOM (inputs in $artifacts)" >&2
  exit 1
fi
echo "fuzz: all targets ok"
