// wmbench-bench: Google Benchmark micro-benchmarks of the fill child, the guard and the parent's
// small pieces. Every benchmark is registered at run time from main() (bench_main.cpp) with
// benchmark::RegisterBenchmark, so that the ones that need CUDA or a python3 with torch are
// registered only where they can run.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

namespace wmb::bench {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr double kGiB = double(uint64_t{1} << 30);

// Bytes processed plus a "GiB/s" rate counter (a rate over the benchmark's time: real time for
// the ones that UseRealTime()).
inline void set_throughput(benchmark::State& state, uint64_t bytes_per_iteration) {
  const auto total = static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes_per_iteration);
  state.SetBytesProcessed(total);
  state.counters["GiB/s"] = benchmark::Counter(static_cast<double>(total) / kGiB, benchmark::Counter::kIsRate);
}

// bench_fill.cpp: FillCpu/*, FillMpsModel/random, FillRandomWarm, RandnCpu, MemsetFresh[Huge],
// and (when at::hasCUDA()) FillCuda/random and BareRandCuda.
void register_fill_benchmarks();
// bench_harness.cpp: ProbeSystem, ProbeProcess, TraceLine, ExplainParse/*, GuardDecision.
void register_harness_benchmarks();
// bench_guard.cpp: GuardReaction[/announced], GuardOvershoot, GuardQuietCpu (new policy beside the old).
void register_guard_benchmarks();
// bench_child.cpp: ChildStart, and PythonChildStart + PythonImportTorch where a python with torch is found.
void register_child_benchmarks();

}  // namespace wmb::bench
