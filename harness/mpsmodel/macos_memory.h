// How much of a Mac's RAM Metal recommends as a working set (MTLDevice.recommendedMaxWorkingSetSize),
// by RAM size, from public figures. Each entry names its source; "max allowed" figures from PyTorch
// messages are divided by the default HIGH ratio 1.7; llama.cpp's ggml_metal_init prints the value
// itself in MiB ("recommendedMaxWorkingSetSize = 21845.34 MB").
//
//   RAM     recommended max   share  source (macOS where known)
//   8 GB    5461.34 MiB       0.667  h2oai/h2ogpt#1359 (M1; ggml buffer lines "/ 5461.34"); Fooocus#1139 9.07 GB / 1.7
//   16 GB   10922.67 MiB      0.667  abetlen/llama-cpp-python#687 (M1 Pro); ComfyUI#7171 18.13 GB / 1.7
//   24 GB   16.00 GiB         0.667  gensyn-ai/rl-swarm#341, ComfyUI#7440: 27.20 GB / 1.7
//   32 GB   21845.34 MiB      0.667  ggml-org/llama.cpp#2011 (M1 Max), ollama/ollama#434 (M2 Max)
//   36 GB   27.00 GiB         0.750  kght6123/examples-shieldgemma2 README: 45.90 GB / 1.7 (M3 Pro)
//   48 GB   37.44 GiB         0.780  write-up 004 (M5 Pro, macOS 26.5.2): 0.5 x 37.44 = 18.72
//   64 GB   49152.00 MiB      0.750  ggml-org/llama.cpp#1870 (M1 Max); Ferret blog, bobo-fun#8: 81.60 GB / 1.7
//   96 GB   73728.00 MiB      0.750  ggml-org/llama.cpp#3213 (M2 Max)
//   128 GB  107.52 GiB        0.840  antirez/ds4#893 (M5 Max, macOS 26.x, measured); ComfyUI#11584 182.78 GiB / 1.7
//   192 GB  144 GB            0.750  raullenchai/Rapid-MLX#183 (M2 Ultra; a table in a PR, macOS unstated)
//   256 GB  239 GB            0.934  raullenchai/Rapid-MLX#183 (M3 Ultra; same table, macOS unstated)
//
// Every public figure found (the table above, and those that differ from it at the same RAM: other
// chips, other macOS versions, and the figures read with iogpu.wired_limit_mb set) is kept in
// public_figures() with its macOS version and source (macos_memory.cpp); the table above is the
// curve the estimate interpolates, and predict shows the range the stock figures of a RAM give.
//
// The share is 2/3 up to 32 GB and 3/4 from 36/64 GB on older macOS, higher on macOS 26 in the few
// figures found (48 GB 0.78, 128 GB 0.84). Between the known sizes the share is interpolated
// linearly; below 8 GB it is the 8 GB share, above 256 GB the 256 GB share. This is an estimate
// of Apple's policy, not Apple's code: on a real Mac wmbench reads the value from MPS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wmb::mpsmodel {

struct KnownMac {
  uint64_t ram;
  uint64_t recommended_max;
  const char* source;
};

// The curve recommended_max_for_ram interpolates (one figure per RAM, the table above).
const std::vector<KnownMac>& known_macs();

// One public figure of recommendedMaxWorkingSetSize.
struct PublicFigure {
  uint64_t ram;
  uint64_t recommended_max;
  const char* macos;         // "26.5.2", "14 (Sonoma)", "unstated"
  const char* source;        // the issue or file, chip and date
  uint64_t wired_limit_mib;  // 0: stock; else read with iogpu.wired_limit_mb set to this
  bool curve;                // one of known_macs()
};
const std::vector<PublicFigure>& public_figures();

// The stock figures known for exactly this RAM (none: an empty range).
struct RamRange {
  std::vector<PublicFigure> figures;
  uint64_t low = 0, high = 0;  // the least and the most of them
};
RamRange known_range(uint64_t ram);
// In words, for predict: "public figures for 16.00 GiB: 10.67 to 11.84 GiB (4 figures: ...)"; "" when none.
std::string known_range_text(uint64_t ram);

double recommended_fraction(uint64_t ram);
uint64_t recommended_max_for_ram(uint64_t ram);

// What recommended_max_for_ram(ram) rests on, in words: "public figure for 48.00 GiB: <source>",
// "interpolated between 36.00 GiB (share 0.750, <source>) and 48.00 GiB (...)", or the edge rule.
std::string recommended_basis(uint64_t ram);

// The usual Mac RAM size whose recommended max lies closest to `recommended` (relative distance),
// or nullopt when nothing is within 15 %.
std::optional<uint64_t> likely_ram_for_recommended(uint64_t recommended);

}  // namespace wmb::mpsmodel
