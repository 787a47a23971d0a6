#include "mpsmodel/macos_memory.h"

#include <cmath>

#include "common/units.h"

namespace wmb::mpsmodel {

const std::vector<KnownMac>& known_macs() {
  // Recommended max = "max allowed" / 1.7 from the messages listed in the header.
  static const std::vector<KnownMac> k = {
      {8 * GiB, static_cast<uint64_t>(9.07 / 1.7 * GiB)},
      {16 * GiB, static_cast<uint64_t>(18.13 / 1.7 * GiB)},
      {24 * GiB, static_cast<uint64_t>(27.20 / 1.7 * GiB)},
      {36 * GiB, static_cast<uint64_t>(45.90 / 1.7 * GiB)},
      {48 * GiB, static_cast<uint64_t>(37.44 * GiB)},
      {64 * GiB, static_cast<uint64_t>(81.60 / 1.7 * GiB)},
      {128 * GiB, static_cast<uint64_t>(182.78 / 1.7 * GiB)},
  };
  return k;
}

double recommended_fraction(uint64_t ram) {
  const auto& k = known_macs();
  auto frac = [](const KnownMac& m) { return static_cast<double>(m.recommended_max) / static_cast<double>(m.ram); };
  if (ram <= k.front().ram) return frac(k.front());
  if (ram >= k.back().ram) return frac(k.back());
  for (size_t i = 1; i < k.size(); ++i) {
    if (ram <= k[i].ram) {
      const double x0 = static_cast<double>(k[i - 1].ram), x1 = static_cast<double>(k[i].ram);
      const double w = (static_cast<double>(ram) - x0) / (x1 - x0);
      return frac(k[i - 1]) * (1 - w) + frac(k[i]) * w;
    }
  }
  return frac(k.back());
}

uint64_t recommended_max_for_ram(uint64_t ram) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(ram) * recommended_fraction(ram)));
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
