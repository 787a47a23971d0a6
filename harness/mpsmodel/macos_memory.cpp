#include "mpsmodel/macos_memory.h"

#include <cmath>

#include <fmt/format.h>

#include "common/units.h"

namespace wmb::mpsmodel {
namespace {
constexpr double kMiBd = 1024.0 * 1024.0;
uint64_t mib(double v) { return static_cast<uint64_t>(std::llround(v * kMiBd)); }
double share(const KnownMac& m) { return static_cast<double>(m.recommended_max) / static_cast<double>(m.ram); }
}  // namespace

const std::vector<KnownMac>& known_macs() {
  // Sources and units: macos_memory.h.
  static const std::vector<KnownMac> k = {
      {8 * GiB, mib(5461.34), "h2oai/h2ogpt#1359 (M1 8 GB, llama.cpp's Metal log)"},
      {16 * GiB, mib(10922.67), "abetlen/llama-cpp-python#687 (M1 Pro 16 GB, llama.cpp's Metal log)"},
      {24 * GiB, static_cast<uint64_t>(27.20 / 1.7 * GiB), "rl-swarm#341, ComfyUI#7440 (max allowed 27.20 GB / 1.7)"},
      {32 * GiB, mib(21845.34), "ggml-org/llama.cpp#2011, ollama/ollama#434 (M1/M2 Max 32 GB, llama.cpp's Metal log)"},
      {36 * GiB, static_cast<uint64_t>(45.90 / 1.7 * GiB), "examples-shieldgemma2 README (M3 Pro, max allowed 45.90 GB / 1.7)"},
      {48 * GiB, static_cast<uint64_t>(37.44 * GiB), "write-up 004 (M5 Pro 48 GB, macOS 26.5.2)"},
      {64 * GiB, mib(49152.00), "ggml-org/llama.cpp#1870 (M1 Max 64 GB, llama.cpp's Metal log)"},
      {96 * GiB, mib(73728.00), "ggml-org/llama.cpp#3213 (M2 Max 96 GB, llama.cpp's Metal log)"},
      {128 * GiB, static_cast<uint64_t>(107.52 * GiB), "antirez/ds4#893 (M5 Max 128 GB, macOS 26.x, measured)"},
      {192 * GiB, static_cast<uint64_t>(144.0 * GiB), "raullenchai/Rapid-MLX#183 (M2 Ultra 192 GB, PR table, macOS unstated)"},
      {256 * GiB, static_cast<uint64_t>(239.0 * GiB), "raullenchai/Rapid-MLX#183 (M3 Ultra 256 GB, PR table, macOS unstated)"},
  };
  return k;
}

double recommended_fraction(uint64_t ram) {
  const auto& k = known_macs();
  if (ram <= k.front().ram) return share(k.front());
  if (ram >= k.back().ram) return share(k.back());
  for (size_t i = 1; i < k.size(); ++i) {
    if (ram <= k[i].ram) {
      const double x0 = static_cast<double>(k[i - 1].ram), x1 = static_cast<double>(k[i].ram);
      const double w = (static_cast<double>(ram) - x0) / (x1 - x0);
      return share(k[i - 1]) * (1 - w) + share(k[i]) * w;
    }
  }
  return share(k.back());
}

uint64_t recommended_max_for_ram(uint64_t ram) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(ram) * recommended_fraction(ram)));
}

std::string recommended_basis(uint64_t ram) {
  const auto& k = known_macs();
  const auto point = [](const KnownMac& m) {
    return fmt::format("{} (share {:.3f}, {})", format_size(m.ram), share(m), m.source);
  };
  for (const auto& m : k)
    if (m.ram == ram) return "public figure for " + point(m);
  if (ram < k.front().ram) return "below the smallest known Mac: the share of " + point(k.front());
  if (ram > k.back().ram) return "above the largest known Mac: the share of " + point(k.back());
  for (size_t i = 1; i < k.size(); ++i)
    if (ram < k[i].ram) return "interpolated between " + point(k[i - 1]) + " and " + point(k[i]);
  return point(k.back());
}

std::optional<uint64_t> likely_ram_for_recommended(uint64_t recommended) {
  static const uint64_t sizes_gib[] = {8, 16, 18, 24, 32, 36, 48, 64, 96, 128, 192, 256, 512};
  std::optional<uint64_t> best;
  double best_err = 0.15;
  for (uint64_t g : sizes_gib) {
    const uint64_t ram = g * GiB;
    const double r = static_cast<double>(recommended_max_for_ram(ram));
    const double err = std::fabs(r - static_cast<double>(recommended)) / r;
    if (err < best_err) {
      best_err = err;
      best = ram;
    }
  }
  return best;
}

}  // namespace wmb::mpsmodel
