// The parent's small pieces: one probe sample, one trace line, one parse of an error message, one
// guard decision, and the guard's whole reaction on a real child.
//
//   ProbeSystem            make_platform_probe()->system(): one reading of system memory
//   ProbeCheck             ->check_reading(): what one guard check reads (no /proc/vmstat on Linux)
//   ProbeProcess           ->process(getpid(), ""): one reading of a process
//   TraceLine              TraceWriter::line() of one typical sample (serialise + one write())
//   ExplainParse/<msg>     wmb::parse_error on the write-up's MPS message, the H200 CUDA message, a CPU one
//   GuardDecision          a fake probe reading over budget -> GuardPolicy::observe() -> the stop verdict
// The guard's reaction on a real child, its overshoot and its own CPU: bench_guard.cpp.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "common/clock.h"
#include "errparse/error_parser.h"
#include "guard/policy.h"
#include "probe/probe.h"
#include "trace/trace_writer.h"

namespace wmb::bench {
namespace {

// ---- probes ----------------------------------------------------------------------------------

void probe_system(benchmark::State& state) {
  auto probe = make_platform_probe();
  for (auto _ : state) {
    try {
      SystemMemory m = probe->system();
      benchmark::DoNotOptimize(m);
    } catch (const ProbeError& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
}

// What one guard check reads (MemoryProbe::check_reading: /proc/meminfo alone on Linux).
void probe_check(benchmark::State& state) {
  auto probe = make_platform_probe();
  for (auto _ : state) {
    try {
      SystemMemory m = probe->check_reading();
      benchmark::DoNotOptimize(m);
    } catch (const ProbeError& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
}

void probe_process(benchmark::State& state) {
  auto probe = make_platform_probe();
  const pid_t self = ::getpid();
  for (auto _ : state) {
    try {
      ProcessMemory m = probe->process(self, "");
      benchmark::DoNotOptimize(m);
    } catch (const ProbeError& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
}

// ---- trace -----------------------------------------------------------------------------------

void trace_line(benchmark::State& state) {
  const std::string path = "/tmp/wmbench-bench-trace-" + std::to_string(::getpid()) + ".jsonl";
  const nlohmann::json sample = {{"type", "sample"},     {"t", 12.503},          {"footprint", 21474836480ull},
                                 {"swap_used", 2147483648ull}, {"level", 71.2},  {"rss", 21474836480ull},
                                 {"process_swap", 0},    {"swapins", 123456},    {"swapouts", 654321},
                                 {"cgroup_usage", nullptr}, {"cgroup_swap", nullptr},
                                 {"held", 21474836480ull}, {"allocated", nullptr}, {"driver", nullptr}};
  {
    TraceWriter w(path);
    for (auto _ : state) w.line(sample);
    if (!w.error().empty()) state.SkipWithError(w.error().c_str());
    w.close();
  }
  std::remove(path.c_str());
  state.counters["line_bytes"] = static_cast<double>(sample.dump().size() + 1);
}

// ---- error parser ----------------------------------------------------------------------------

// The MPS message as the write-up quotes it (wrapped across lines, with the Python prefix).
const char* const kMpsMessage =
    "RuntimeError: MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB,\n"
    "max allowed: 18.72 GiB). Tried to allocate 512.00 MiB on shared pool. Use\n"
    "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause\n"
    "system failure).";
// Seen on the H200 (torch 2.11, per_process_memory_fraction 0.1); the tail after "If reserved but
// unallocated" is PyTorch's standard suffix of this message.
const char* const kCudaH200Message =
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of "
    "139.80 GiB of which 125.78 GiB is free. Including non-PyTorch memory, this process has 14.01 GiB memory in "
    "use. 13.98 GiB allowed; Of the allocated memory 13.50 GiB is allocated by PyTorch, and 0 bytes is reserved "
    "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
// Debian's libtorch 1.13 under setrlimit(RLIMIT_AS, 3 GiB).
const char* const kCpuMessage =
    "[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
    "allocate 268435456 bytes. Error code 12 (Cannot allocate memory)";

void explain_parse(benchmark::State& state, const char* text, ErrorKind expected) {
  const std::string_view sv(text);
  {
    const ParsedError p = parse_error(sv);
    if (p.kind != expected) {
      state.SkipWithError(("parsed as " + kind_name(p.kind)).c_str());
      return;
    }
  }
  for (auto _ : state) {
    ParsedError p = parse_error(sv);
    benchmark::DoNotOptimize(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(sv.size()));
}

// ---- guard -----------------------------------------------------------------------------------

constexpr uint64_t kSwapBudget = uint64_t{2} << 30;
constexpr uint64_t kSwapStart = uint64_t{1} << 30;

// Reports swap at kSwapStart until `cross_at` (a SteadyClock time), then budget + 1 GiB above it.
class CrossingProbe final : public MemoryProbe {
 public:
  CrossingProbe(Clock& clock, double cross_at) : clock_(clock), cross_at_(cross_at) {}
  SystemMemory system() override {
    SystemMemory m;
    m.ram_total = uint64_t{24} << 30;
    m.swap_total = uint64_t{8} << 30;
    m.swap_used = clock_.now() >= cross_at_ ? kSwapStart + kSwapBudget + (uint64_t{1} << 30) : kSwapStart;
    m.level = 50;
    return m;
  }
  ProcessMemory process(pid_t, const std::string&) override { return ProcessMemory{}; }
  std::string name() const override { return "bench-crossing"; }

 private:
  Clock& clock_;
  double cross_at_;
};

void guard_decision(benchmark::State& state) {
  GuardConfig cfg;
  cfg.swap_budget = kSwapBudget;
  GuardPolicy policy(cfg, kSwapStart);
  SteadyClock clock;
  CrossingProbe probe(clock, 0.0);  // already crossed
  MemoryProbe& p = probe;           // called through the interface, as the supervisor does
  for (auto _ : state) {
    GuardVerdict v = policy.observe(p.system());
    if (!v.stop) {
      state.SkipWithError("the policy did not stop");
      break;
    }
    benchmark::DoNotOptimize(v);
  }
}

}  // namespace

void register_harness_benchmarks() {
  benchmark::RegisterBenchmark("ProbeSystem", probe_system)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::RegisterBenchmark("ProbeCheck", probe_check)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::RegisterBenchmark("ProbeProcess", probe_process)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::RegisterBenchmark("TraceLine", trace_line)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::RegisterBenchmark("ExplainParse/mps",
                               [](benchmark::State& s) { explain_parse(s, kMpsMessage, ErrorKind::MpsOom); })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("ExplainParse/cuda_h200",
                               [](benchmark::State& s) { explain_parse(s, kCudaH200Message, ErrorKind::CudaOom); })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("ExplainParse/cpu",
                               [](benchmark::State& s) { explain_parse(s, kCpuMessage, ErrorKind::CpuOom); })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("GuardDecision", guard_decision)->Unit(benchmark::kMicrosecond);
}

}  // namespace wmb::bench
