// How much of a Mac's RAM Metal recommends as a working set (MTLDevice.recommendedMaxWorkingSetSize),
// by RAM size. Derived from real PyTorch messages (tests/data/pytorch-error-messages.json) and the
// write-up 004, each "max allowed" divided by the default HIGH ratio 1.7:
//
//   RAM      max allowed  recommended max  fraction  source
//   7 GB VM  7.93 GB      4.66 GiB         0.666     torchchat#516, GitHub macos-14 runner
//   8 GB     9.07 GB      5.34 GiB         0.667     Fooocus#1139, surya#254
//   16 GB    18.13 GB     10.66 GiB        0.667     ComfyUI#7171 (Mac mini M4), AudioLDM2#20
//   24 GB    27.20 GB     16.00 GiB        0.667     rl-swarm#341, ComfyUI#7440
//   36 GB    45.90 GB     27.00 GiB        0.750     shieldgemma2 README ("M3 Pro"; M3 Pro ships 18/36 GB)
//   48 GB    63.65 GiB    37.44 GiB        0.780     write-up 004 (M5 Pro, macOS 26.5.2): 0.5 x 37.44 = 18.72
//   64 GB    81.60 GB     48.00 GiB        0.750     Ferret blog post, bobo-fun#8
//   128 GB   182.78 GiB   107.52 GiB       0.840     ComfyUI#11584 (M1 Ultra 128GB)
//
// Between the known sizes the fraction is interpolated linearly; below 8 GB it is 2/3, above 128 GB 0.84.
// This is an estimate of Apple's policy, not Apple's code: on a real Mac wmbench reads the value from MPS.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace wmb::mpsmodel {

struct KnownMac {
  uint64_t ram;
  uint64_t recommended_max;
};

const std::vector<KnownMac>& known_macs();

double recommended_fraction(uint64_t ram);
uint64_t recommended_max_for_ram(uint64_t ram);

// The usual Mac RAM size whose recommended max lies closest to `recommended` (relative distance),
// or nullopt when nothing is within 15 %.
std::optional<uint64_t> likely_ram_for_recommended(uint64_t recommended);

}  // namespace wmb::mpsmodel
