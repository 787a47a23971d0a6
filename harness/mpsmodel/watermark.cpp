#include "mpsmodel/watermark.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "mpsmodel/macos_memory.h"
#include "mpsmodel/memory_fraction.h"

namespace wmb::mpsmodel {

double read_ratio_strtod(const char* s) {
  if (s == nullptr) return 0.0;
  return std::strtod(s, nullptr);  // as PyTorch: no end-pointer check
}

WatermarkConfig read_watermark_config(const EnvLookup& lookup) {
  WatermarkConfig cfg;
  if (auto h = lookup(kHighEnv)) {
    cfg.high_set = true;
    cfg.high_raw = *h;
    cfg.high = read_ratio_strtod(h->c_str());
  }
  if (auto l = lookup(kLowEnv)) {
    cfg.low_set = true;
    cfg.low_raw = *l;
    cfg.low = read_ratio_strtod(l->c_str());
  }
  return cfg;
}

WatermarkConfig read_watermark_config_from_process() {
  return read_watermark_config([](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

WatermarkConfig read_watermark_config_from_map(const std::map<std::string, std::string>& env) {
  return read_watermark_config([&env](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

std::string format_ratio(double ratio) {
  std::ostringstream os;  // c10::str streams the double with the defaults
  os << ratio;
  return os.str();
}

std::optional<std::string> validate(const WatermarkConfig& cfg) {
  if (cfg.memory_fraction)
    if (auto e = python_fraction_error(*cfg.memory_fraction)) return e;  // torch/mps/__init__.py, before any C++
  // Written as PyTorch's TORCH_CHECKs: NaN fails both comparisons.
  if (!(cfg.high >= 0.0 && cfg.high <= kHighUpperBound)) return "invalid high watermark ratio " + format_ratio(cfg.high);
  const double bound = cfg.high == 0.0 ? kHighUpperBound : cfg.high;
  if (!(cfg.low >= 0.0 && cfg.low <= bound)) return "invalid low watermark ratio " + format_ratio(cfg.low);
  if (cfg.memory_fraction) {  // setHighWatermarkRatio(F): the same check as for the variable, nothing for LOW
    const double f = *cfg.memory_fraction;
    if (!(f >= 0.0 && f <= kHighUpperBound)) return "invalid high watermark ratio " + format_ratio(f);
  }
  return std::nullopt;
}

namespace {

// ratio x bytes without overflow: a product at or beyond 2^64 (1.7 x a huge recommended max, a
// HIGH of 1e300) is saturated just below kNoLimit, never wrapped (a cast of such a double to
// uint64_t is undefined) and never read as "no limit".
uint64_t scaled_bytes(double ratio, uint64_t bytes) {
  const double p = ratio * static_cast<double>(bytes);
  if (!(p >= 0)) return 0;
  if (p >= 18446744073709549568.0) return kNoLimit - 1;  // the largest double below 2^64
  return static_cast<uint64_t>(p);
}

}  // namespace

Limits compute_limits(const WatermarkConfig& cfg, uint64_t recommended_max) {
  if (auto err = validate(cfg)) throw ModelError(*err);
  Limits l;
  const double high = cfg.effective_high();
  l.max_allowed = high == 0.0 ? kNoLimit : scaled_bytes(high, recommended_max);
  l.low_limit = cfg.low == 0.0 ? kNoLimit : scaled_bytes(cfg.low, recommended_max);
  return l;
}

std::string format_size_pytorch(uint64_t size) {
  // c10/core/CachingAllocator format_size (current): no TB level.
  std::ostringstream os;
  os.precision(2);
  os << std::fixed;
  if (size <= 1024) {
    os << size << " bytes";
  } else if (size <= 1048576) {
    os << (static_cast<double>(size) / 1024.0) << " KiB";
  } else if (size <= 1073741824ULL) {
    os << (static_cast<double>(size) / 1048576.0) << " MiB";
  } else {
    os << (static_cast<double>(size) / 1073741824.0) << " GiB";
  }
  return os.str();
}

ModelledMac modelled_mac_for_sandbox(uint64_t sandbox_bytes, uint64_t mac_ram, double free_fraction) {
  ModelledMac m{};
  m.mac_ram = mac_ram;
  m.sandbox = sandbox_bytes;
  m.free_fraction = free_fraction;
  const double model_ram = free_fraction > 0 ? static_cast<double>(sandbox_bytes) / free_fraction
                                             : static_cast<double>(sandbox_bytes);
  m.model_ram = static_cast<uint64_t>(std::llround(model_ram));
  m.recommended_max =
      static_cast<uint64_t>(std::llround(recommended_fraction(mac_ram) * static_cast<double>(m.model_ram)));
  return m;
}

std::optional<double> clean_error_ratio(uint64_t free_bytes, uint64_t recommended_max, double margin, double step) {
  if (recommended_max == 0 || !(step > 0)) return std::nullopt;
  const double budget = margin * static_cast<double>(free_bytes);
  const int max_k = static_cast<int>(std::floor(kHighUpperBound / step + 1e-9));
  for (int k = max_k; k >= 1; --k) {
    const double ratio = std::round(k * step * 1e6) / 1e6;  // 0.8, not 0.8000000000000002
    const uint64_t limit = static_cast<uint64_t>(ratio * static_cast<double>(recommended_max));
    if (static_cast<double>(limit) <= budget) return ratio;
  }
  return std::nullopt;
}

}  // namespace wmb::mpsmodel
