// wmbench-bench's main: what BENCHMARK_MAIN() does, plus the run-time registration of every
// benchmark (CUDA ones only when at::hasCUDA(), PythonImportTorch only when python3 has torch)
// and a few context fields in the JSON output (libtorch version, CUDA, transparent huge pages).
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include "bench/bench_common.h"

namespace {

std::string first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  benchmark::AddCustomContext("libtorch_version", TORCH_VERSION);
  benchmark::AddCustomContext("cuda_available", at::hasCUDA() ? "true" : "false");
  benchmark::AddCustomContext("transparent_hugepage",
                              first_line_of("/sys/kernel/mm/transparent_hugepage/enabled"));
  benchmark::AddCustomContext("intraop_threads", std::to_string(at::get_num_threads()));

  wmb::bench::register_fill_benchmarks();
  wmb::bench::register_harness_benchmarks();
  wmb::bench::register_guard_benchmarks();
  wmb::bench::register_child_benchmarks();

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
