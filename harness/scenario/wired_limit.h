// The Mac's second lever: the sysctl `iogpu.wired_limit_mb` (macOS 14+), the most memory in MiB
// that the GPU driver may wire. Metal's recommendedMaxWorkingSetSize follows it both ways
// (AlexsJones/llmfit#754: an M3 16 GB set to 12000 and 14000 MiB reported exactly those;
// antirez/ds4#893: an M5 Max 128 GB went from 107.52 to 112.00 GiB at 114688;
// Andyyyy64/whichllm#152: an M1 Max 32 GB at 26000 listed 26000 MiB), and PyTorch's limit is
// HIGH x that value, read when the MPS allocator starts (pytorch aten/src/ATen/mps/MPSAllocator.h:
// max_device_size() returns [m_device recommendedMaxWorkingSetSize]). 0 is the system default,
// not "unlimited". Writing it needs root; it resets at reboot.
//
// Here: its value as a cell (`"sysctl": {"iogpu.wired_limit_mb": N}`) or a flag (`--wired-limit`)
// gives it, resolved against a RAM (bounded below it), and the command lines that set and restore it.
// What sets it on a Mac (and puts it back) is harness/lever/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wmb {

inline constexpr const char* kWiredLimitKey = "iogpu.wired_limit_mb";
// The most a value may say in MiB before it is resolved against a RAM (1 PiB, kMaxModelBytes).
inline constexpr uint64_t kMaxWiredLimitMiB = 1ull << 30;

struct WiredLimit {
  uint64_t mib = 0;                   // an absolute value in MiB; 0 with no percent = the system default
  std::optional<double> percent_ram;  // "80%RAM": this share of the RAM, floored to whole MiB
  std::string text;                   // as written ("12000", "80%RAM"), kept for scenario.json
  bool system_default() const { return mib == 0 && !percent_ram; }
};

// The cell's value (an integer MiB >= 0, or a string "<pct>%RAM" with pct in (0, 100)). Throws
// UnitError naming what is allowed (the caller adds the file and key).
WiredLimit wired_limit_from_json(const nlohmann::json& v);
// A flag's text: "12000" (MiB, as sysctl takes it), "0" (the system default), "80%RAM", or a size
// with a unit ("12000MiB", "44GiB", floored to whole MiB). Throws UnitError.
WiredLimit parse_wired_limit(std::string_view text);
// The cell's JSON form (an integer, or the "<pct>%RAM" string).
nlohmann::json to_json(const WiredLimit& w);

// The value in MiB on a machine of `ram` bytes: 0 for the system default, else at least 1 MiB and
// strictly below the RAM. Throws UnitError naming the value, the RAM and what is allowed.
uint64_t resolve_wired_limit_mib(const WiredLimit& w, uint64_t ram);

// `sudo sysctl iogpu.wired_limit_mb=N`.
std::string wired_limit_set_line(uint64_t mib);
// The line that puts back `found` (the value read before it was changed; 0 = the system default).
std::string wired_limit_restore_line(uint64_t found_mib);

}  // namespace wmb
