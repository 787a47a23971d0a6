// Fill steps and their baselines, side by side in one run, at the same sizes.
//
// Each iteration of a Fill* / RandnCpu / Memset* / BareRandCuda benchmark is one step of a fill:
// one fresh allocation of the step size, filled, then freed (the free is timed too, the same way
// for all of them), so every iteration touches memory the process has never touched, as the real
// fill child does. Sizes are arguments in MiB ("FillCpu/random/MiB:512").
//
//   FillCpu/<data>      the real cpu device (make_device("cpu")): map_fresh + fast_fill + from_blob
//   FillMpsModel/random the mps-model device: the MPS allocator model's bookkeeping + the same fill
//   FillCuda/random     the real cuda device (only when at::hasCUDA()): at::empty + uniform_ + sync
//   RandnCpu            at::randn of the same number of floats (what a naive CPU fill would do)
//   MemsetFresh         map_fresh (plain mmap, 4 KiB pages under THP "madvise") + memset + munmap:
//                       the floor of "write every byte of fresh memory" on this machine
//   MemsetFreshHuge     the same with madvise(MADV_HUGEPAGE)
//   MemsetWarm          memset of memory already touched: the memory bandwidth, no page faults
//   FillRandomWarm      fast_fill's fill_random into already-touched memory: the PRNG's own speed
//   BareRandCuda        at::rand({n}, cuda) + synchronize, what a minimal user script does
#include <cstring>
#include <memory>
#include <string>

#include <ATen/ATen.h>
#include <torch/cuda.h>

#include "bench/bench_common.h"
#include "fill/devices.h"
#include "fillbase/fast_fill.h"

namespace wmb::bench {
namespace {

using fill::DataKind;

constexpr int64_t kCpuSizesMiB[] = {64, 512};
constexpr int64_t kCudaSizesMiB[] = {64, 512, 4096};
constexpr double kMinTime = 1.0;  // seconds per repetition: a 512 MiB step takes 0.1-2 s here

uint64_t step_bytes(const benchmark::State& state) { return static_cast<uint64_t>(state.range(0)) * kMiB; }

// One step of a real fill device per iteration: allocate (fill) + synchronize, then release.
void fill_device_step(benchmark::State& state, const std::string& device_name, DataKind data, bool warm_up) {
  const uint64_t bytes = step_bytes(state);
  fill::FillOptions o;
  o.device = device_name;
  o.step_bytes = bytes;
  o.data = fill::data_kind_name(data);
  std::unique_ptr<fill::FillDevice> dev;
  try {
    dev = fill::make_device(device_name, o);
    if (warm_up) {  // CUDA: context creation and the first cudaMalloc are not a step's cost
      {
        at::Tensor t = dev->allocate(bytes, data);
        dev->synchronize();
      }
      dev->on_release(bytes);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) {
    try {
      {
        at::Tensor t = dev->allocate(bytes, data);
        dev->synchronize();
        benchmark::DoNotOptimize(t.data_ptr());
      }  // freed here (cpu: munmap through the from_blob deleter)
      dev->on_release(bytes);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
  set_throughput(state, bytes);
}

void randn_cpu(benchmark::State& state) {
  const uint64_t bytes = step_bytes(state);
  const auto n = static_cast<int64_t>(bytes / sizeof(float));
  for (auto _ : state) {
    at::Tensor t = at::randn({n});
    benchmark::DoNotOptimize(t.data_ptr());
  }
  set_throughput(state, bytes);
}

void memset_fresh(benchmark::State& state, fill::HugePages huge) {
  const uint64_t bytes = step_bytes(state);
  for (auto _ : state) {
    void* p = fill::map_fresh(bytes, huge);
    if (p == nullptr) {
      state.SkipWithError("mmap failed");
      break;
    }
    std::memset(p, 0x5a, bytes);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
    fill::unmap(p, bytes);
  }
  set_throughput(state, bytes);
}

// Memory mapped and touched once before the loop; each iteration rewrites it.
template <typename Write>
void warm_write(benchmark::State& state, Write write) {
  const uint64_t bytes = step_bytes(state);
  void* p = fill::map_fresh(bytes);
  if (p == nullptr) {
    state.SkipWithError("mmap failed");
    return;
  }
  std::memset(p, 1, bytes);
  uint64_t k = 0;
  for (auto _ : state) {
    write(p, bytes, ++k);
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
  }
  fill::unmap(p, bytes);
  set_throughput(state, bytes);
}

void bare_rand_cuda(benchmark::State& state) {
  const uint64_t bytes = step_bytes(state);
  const auto n = static_cast<int64_t>(bytes / sizeof(float));
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA);
  try {
    {  // warm-up, as for FillCuda
      at::Tensor t = at::rand({n}, opts);
      torch::cuda::synchronize();
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) {
    at::Tensor t = at::rand({n}, opts);
    torch::cuda::synchronize();
    benchmark::DoNotOptimize(t.data_ptr());
  }
  set_throughput(state, bytes);
}

template <typename Fn>
benchmark::internal::Benchmark* reg(const std::string& name, Fn fn, const int64_t* sizes, size_t count) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
  b->ArgName("MiB")->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(kMinTime);
  for (size_t i = 0; i < count; ++i) b->Arg(sizes[i]);
  return b;
}

}  // namespace

void register_fill_benchmarks() {
  constexpr size_t ncpu = sizeof kCpuSizesMiB / sizeof kCpuSizesMiB[0];
  for (DataKind d : {DataKind::Random, DataKind::Ones, DataKind::Zeros}) {
    reg(std::string("FillCpu/") + fill::data_kind_name(d),
        [d](benchmark::State& s) { fill_device_step(s, "cpu", d, false); }, kCpuSizesMiB, ncpu);
  }
  reg("FillMpsModel/random", [](benchmark::State& s) { fill_device_step(s, "mps-model", DataKind::Random, false); },
      kCpuSizesMiB, ncpu);
  reg("RandnCpu", randn_cpu, kCpuSizesMiB, ncpu);
  reg("MemsetFresh", [](benchmark::State& s) { memset_fresh(s, fill::HugePages::SystemDefault); }, kCpuSizesMiB, ncpu);
  reg("MemsetFreshHuge", [](benchmark::State& s) { memset_fresh(s, fill::HugePages::Advise); }, kCpuSizesMiB, ncpu);
  reg("MemsetWarm",
      [](benchmark::State& s) {
        warm_write(s, [](void* p, size_t n, uint64_t k) { std::memset(p, static_cast<int>(k & 0xff), n); });
      },
      kCpuSizesMiB, ncpu);
  reg("FillRandomWarm",
      [](benchmark::State& s) {
        warm_write(s, [](void* p, size_t n, uint64_t k) { fill::fill_random(p, n, 0x9e3779b97f4a7c15ull * k); });
      },
      kCpuSizesMiB, ncpu);

  if (at::hasCUDA()) {
    constexpr size_t ncuda = sizeof kCudaSizesMiB / sizeof kCudaSizesMiB[0];
    reg("FillCuda/random", [](benchmark::State& s) { fill_device_step(s, "cuda", DataKind::Random, true); },
        kCudaSizesMiB, ncuda);
    reg("BareRandCuda", bare_rand_cuda, kCudaSizesMiB, ncuda);
  }
}

}  // namespace wmb::bench
