// The MPS allocator's limit policy as pure code (no libtorch), exactly as PyTorch implements it in
// aten/src/ATen/mps/MPSAllocator.mm (MPSHeapAllocatorImpl::init_allocator and malloc):
//
//   - PYTORCH_MPS_HIGH_WATERMARK_RATIO / PYTORCH_MPS_LOW_WATERMARK_RATIO are read once, when the
//     allocator is first used, with getenv + strtod and no end-pointer check ("abc" and "" -> 0.0).
//   - Defaults on unified memory: HIGH 1.7, LOW 1.4.
//   - HIGH is checked first: 0.0 <= HIGH <= 2.0, else "invalid high watermark ratio <HIGH>".
//   - LOW: 0.0 <= LOW <= (HIGH, or 2.0 when HIGH is 0.0), else "invalid low watermark ratio <LOW>".
//     Ratios are printed as a C++ ostream prints a double (1.4 -> "1.4", NaN -> "nan").
//   - max allowed = static_cast<size_t>(HIGH * (double)recommendedMaxWorkingSetSize), none for 0.0.
//   - What is refused, and the heaps behind the count: mpsmodel/heap_allocator.h.
//
// Used by the fill child's "mps-model" device (real CPU memory behind this policy) and by
// `wmbench predict`. See /work/shared/docs/pytorch-allocator-facts.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/units.h"

namespace wmb::mpsmodel {

constexpr const char* kHighEnv = "PYTORCH_MPS_HIGH_WATERMARK_RATIO";
constexpr const char* kLowEnv = "PYTORCH_MPS_LOW_WATERMARK_RATIO";

constexpr double kDefaultHigh = 1.7;        // default_high_watermark_ratio
constexpr double kHighUpperBound = 2.0;     // high_watermark_upper_bound
constexpr double kDefaultLowUnified = 1.4;  // default_low_watermark_ratio_unified (Apple silicon)

constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

// The small constant "other allocations" of the write-up's error message (448.00 KiB on an
// M5 Pro with PyTorch 2.14): MPS-internal buffers counted by the driver but not by the heaps.
constexpr uint64_t kDefaultOtherBytes = 448 * KiB;

// strtod(s, nullptr): no end-pointer check. Garbage or "" -> 0.0, "0.8abc" -> 0.8, "nan" -> NaN.
// nullptr -> 0.0.
double read_ratio_strtod(const char* s);

struct WatermarkConfig {
  double high = kDefaultHigh;
  double low = kDefaultLowUnified;
  std::string high_raw;  // the variable's text as set ("" when unset)
  std::string low_raw;
  bool high_set = false;  // the variable was present in the environment (even when empty)
  bool low_set = false;
  // torch.mps.set_per_process_memory_fraction(F), called before the first allocation
  // (mpsmodel/memory_fraction.h): HIGH becomes F after the variables were checked; LOW is not
  // checked against it.
  std::optional<double> memory_fraction;
  // The HIGH ratio in force: the fraction when set, else the variable's.
  double effective_high() const { return memory_fraction ? *memory_fraction : high; }
};

// Looks a variable up: nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// Reads both variables through `lookup` as PyTorch does (strtod, defaults 1.7 / 1.4).
WatermarkConfig read_watermark_config(const EnvLookup& lookup);
// Reads them from this process's environment (getenv).
WatermarkConfig read_watermark_config_from_process();
// Reads them from a cell's variable map (a scenario's "env").
WatermarkConfig read_watermark_config_from_map(const std::map<std::string, std::string>& env);

// PyTorch's error text for an invalid configuration ("invalid high watermark ratio 2.5",
// "invalid low watermark ratio 1.4"), or nullopt when PyTorch accepts it. HIGH is checked first.
// With a memory fraction, in the order a Python caller meets them: the fraction's ValueError
// ("Invalid fraction value: 2.5. Allowed range: 0~2"), then HIGH and LOW of the variables (the
// allocator starts inside the call), then setHighWatermarkRatio's own check (only NaN reaches it).
std::optional<std::string> validate(const WatermarkConfig& cfg);

// A ratio as PyTorch prints it in the messages above (std::ostream defaults: "1.4", "nan").
std::string format_ratio(double ratio);

struct Limits {
  uint64_t max_allowed = kNoLimit;  // kNoLimit when HIGH == 0.0 (m_max_total_allowed_size = SIZE_MAX)
  uint64_t low_limit = kNoLimit;    // LOW * recommended; kNoLimit when LOW == 0.0 (drives GC only)
  bool limited() const { return max_allowed != kNoLimit; }
};

// The limits of a valid configuration; throws ModelError (with the validate() text) otherwise.
Limits compute_limits(const WatermarkConfig& cfg, uint64_t recommended_max);

// c10's format_size (CachingAllocator, newer builds): std::fixed, 2 decimals, "<=" boundaries,
// 1024-based, no TB level: "1024 bytes", "1.00 KiB", "1024.00 KiB", "18.72 GiB", "2048.00 GiB".
std::string format_size_pytorch(uint64_t bytes);

// What PyTorch would raise (as c10::Error): an invalid configuration or a refused allocation.
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The write-up's 48 GB Mac (M5 Pro, macOS 26.5.2, recommended max 37.44 GiB): with the everyday
// apps open, swap began to grow once the fill passed 33.5 to 36.2 GB (GB = 2^30 there), so the
// memory that was really free was about the midpoint, (33.5 + 36.2) / 2 = 34.85 GB of 48 GB:
// 34.85 / 48 = 0.726.
constexpr double kWriteupFreeFraction = 34.85 / 48.0;

// A Mac modelled by a sandbox: the sandbox (cgroup memory limit) stands for the memory that is
// really free, so the modelled Mac's RAM is sandbox / free_fraction and its recommended max is
// the fraction of the Mac being modelled (recommended_fraction(mac_ram), macos_memory.h) times
// that RAM - not the fraction for a Mac as small as the model.
struct ModelledMac {
  uint64_t mac_ram;          // the Mac being modelled (48 GiB: the write-up's)
  uint64_t model_ram;        // sandbox / free_fraction
  uint64_t recommended_max;  // recommended_fraction(mac_ram) * model_ram
  double free_fraction;
  uint64_t sandbox;
};

ModelledMac modelled_mac_for_sandbox(uint64_t sandbox_bytes, uint64_t mac_ram = 48 * GiB,
                                     double free_fraction = kWriteupFreeFraction);

// The largest multiple of `step` (<= 2.0) whose limit static_cast<uint64_t>(ratio * recommended)
// is <= margin * free_bytes: a HIGH = LOW setting that gives a clean PyTorch error before the
// memory that is free runs out. nullopt when even `step` is too much.
std::optional<double> clean_error_ratio(uint64_t free_bytes, uint64_t recommended_max,
                                        double margin = 0.9, double step = 0.05);

}  // namespace wmb::mpsmodel
