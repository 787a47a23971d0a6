#include "mpsmodel/macos_memory.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/units.h"

namespace wmb::mpsmodel {
namespace {
constexpr double kMiBd = 1024.0 * 1024.0;
uint64_t mib(double v) { return static_cast<uint64_t>(std::llround(v * kMiBd)); }
double share(const KnownMac& m) { return static_cast<double>(m.recommended_max) / static_cast<double>(m.ram); }
}  // namespace

const std::vector<PublicFigure>& public_figures() {
  // Sources and units: macos_memory.h. "max allowed" figures are divided by the default HIGH 1.7.
  constexpr double kH = 1.7;
  static const std::vector<PublicFigure> f = {
      {8 * GiB, mib(5461.34), "unstated", "h2oai/h2ogpt#1359 (M1 8 GB, llama.cpp's Metal log)", 0, true},
      {8 * GiB, static_cast<uint64_t>(9.07 / kH * GiB), "14 (Sonoma)", "lllyasviel/Fooocus#980 (M1 8 GB, max allowed 9.07 GB / 1.7)", 0, false},
      {16 * GiB, mib(10922.67), "unstated", "abetlen/llama-cpp-python#687 (M1 Pro 16 GB, llama.cpp's Metal log)", 0, true},
      {16 * GiB, static_cast<uint64_t>(18.13 / kH * GiB), "13.5 (Ventura); 14.7.5 (Sonoma)",
       "haoheliu/AudioLDM2#20, pinokiocomputer/pinokio#941 (M1 16 GB, max allowed 18.13 GB / 1.7)", 0, false},
      {16 * GiB, static_cast<uint64_t>(10.67 * GiB), "15.6", "exo-explore/exo#1672 (M4 16 GB, ~10.67 GB)", 0, false},
      {16 * GiB, static_cast<uint64_t>(11.84 * GiB), "unstated (2026)", "AlexsJones/llmfit#754 (M3 16 GB, \"11.84 GB\", unit not stated)", 0, false},
      {16 * GiB, mib(12000), "unstated (2026)", "AlexsJones/llmfit#754 (M3 16 GB, sysctl set to 12000: reported exactly that)", 12000, false},
      {16 * GiB, mib(14000), "unstated (2026)", "AlexsJones/llmfit#754 (M3 16 GB, sysctl set to 14000: reported exactly that)", 14000, false},
      {24 * GiB, static_cast<uint64_t>(27.20 / kH * GiB), "unstated", "rl-swarm#341, ComfyUI#7440 (max allowed 27.20 GB / 1.7)", 0, true},
      {32 * GiB, mib(21845.34), "unstated (2023)", "ggml-org/llama.cpp#2011, ollama/ollama#434 (M1/M2 Max 32 GB, llama.cpp's Metal log)", 0, true},
      {32 * GiB, mib(22906.50), "unstated (Dec 2023)", "ollama/ollama#1627 (M1 Pro; 32 GB inferred)", 0, false},
      {32 * GiB, mib(26000), "unstated", "Andyyyy64/whichllm#152 (M1 Max 32 GB, sysctl 26000: llama-server listed MTL0 26000 MiB)", 26000, false},
      {36 * GiB, static_cast<uint64_t>(45.90 / kH * GiB), "unstated", "examples-shieldgemma2 README (M3 Pro, max allowed 45.90 GB / 1.7)", 0, true},
      {36 * GiB, mib(28991.03), "unstated (Feb 2024)", "ollama/ollama#2370 (M3 Pro/Max 36 GB, llama.cpp's Metal log)", 0, false},
      {48 * GiB, static_cast<uint64_t>(37.44 * GiB), "26.5.2", "write-up 004 (M5 Pro 48 GB)", 0, true},
      {64 * GiB, mib(49152.00), "unstated (2023)", "ggml-org/llama.cpp#1870 (M1 Max 64 GB, llama.cpp's Metal log)", 0, true},
      {64 * GiB, static_cast<uint64_t>(48.0 * GiB), "15.2 (Sequoia)", "ollama/ollama#8331 (M4 Pro 64 GB, 48.0 GiB available to Metal)", 0, false},
      {64 * GiB, static_cast<uint64_t>(81.60 / kH * GiB), "unstated", "BoBo0037/bobo-fun#8 (M1 Max 64 GB, max allowed 81.60 GB / 1.7)", 0, false},
      {96 * GiB, mib(73728.00), "unstated (2023)", "ggml-org/llama.cpp#3213 (M2 Max 96 GB, llama.cpp's Metal log)", 0, true},
      {128 * GiB, static_cast<uint64_t>(107.52 * GiB), "26.x", "antirez/ds4#893 (M5 Max 128 GB, measured)", 0, true},
      {128 * GiB, static_cast<uint64_t>(112.00 * GiB), "26.x", "antirez/ds4#893 (M5 Max 128 GB, sysctl 114688: 112.00 GiB)", 114688, false},
      {128 * GiB, static_cast<uint64_t>(163.20 / kH * GiB), "unstated (Aug 2025)", "Comfy-Org/ComfyUI#9308 (M3 Max 128 GB, max allowed 163.20 GiB / 1.7)", 0, false},
      {192 * GiB, static_cast<uint64_t>(144.0 * GiB), "unstated", "raullenchai/Rapid-MLX#183 (M2 Ultra 192 GB, PR table)", 0, true},
      {256 * GiB, static_cast<uint64_t>(239.0 * GiB), "unstated", "raullenchai/Rapid-MLX#183 (M3 Ultra 256 GB, PR table)", 0, true},
  };
  return f;
}

const std::vector<KnownMac>& known_macs() {
  static const std::vector<KnownMac> k = [] {
    std::vector<KnownMac> v;
    for (const auto& f : public_figures())
      if (f.curve) v.push_back({f.ram, f.recommended_max, f.source});
    return v;
  }();
  return k;
}

RamRange known_range(uint64_t ram) {
  RamRange r;
  for (const auto& f : public_figures()) {
    if (f.ram != ram || f.wired_limit_mib != 0) continue;
    r.low = r.figures.empty() ? f.recommended_max : std::min(r.low, f.recommended_max);
    r.high = std::max(r.high, f.recommended_max);
    r.figures.push_back(f);
  }
  return r;
}

std::string known_range_text(uint64_t ram) {
  const RamRange r = known_range(ram);
  if (r.figures.empty()) return "";
  std::string s = fmt::format("public figures for {} RAM: {} to {} (share {:.2f} to {:.2f}), {} figure{}:", format_size(ram),
                              format_size(r.low), format_size(r.high), static_cast<double>(r.low) / static_cast<double>(ram),
                              static_cast<double>(r.high) / static_cast<double>(ram), r.figures.size(),
                              r.figures.size() == 1 ? "" : "s");
  for (const auto& f : r.figures)
    s += fmt::format("\n    {} macOS {}: {}{}", format_size(f.recommended_max), f.macos, f.source,
                     f.curve ? "  <- the estimate's" : "");
  return s;
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
