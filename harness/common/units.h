// Sizes and durations at the edges of the program.
//
// Inside wmbench every size is a uint64_t count of bytes and every duration a double count of
// seconds. Text is parsed and printed only here. Units are binary: KiB/MiB/GiB/TiB are 2^10..2^40,
// and so are the bare letters K/M/G/T and the "KB/MB/GB/TB" spellings (PyTorch's older messages
// and the write-ups use "GB" for 2^30). A plain number is bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace wmb {

constexpr uint64_t KiB = 1ull << 10;
constexpr uint64_t MiB = 1ull << 20;
constexpr uint64_t GiB = 1ull << 30;
// 2^64 as a double: a parsed double d fits in uint64_t when 0 <= d < kTwoTo64.
constexpr double kTwoTo64 = 18446744073709551616.0;
constexpr uint64_t TiB = 1ull << 40;

// Thrown by the parsers below; what() names the value and what is allowed.
struct UnitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "512MiB", "2 GiB", "1.5G", "4096", "0.5TiB". Rejects empty, negative, zero (unless allow_zero),
// unknown units, and values that overflow 64 bits.
uint64_t parse_size(std::string_view text, bool allow_zero = false);

// A size that may be relative to the RAM of the run: "512MiB", "95%RAM", "ram*0.9" is not
// accepted; the forms are an absolute size, "<pct>%RAM", or "min(<size>, <size>, ...)" of those.
// Relative sizes are resolved against `ram` at run time.
struct SizeExpr {
  std::string text;  // as written, kept for scenario.json
  // Resolve against the RAM the run sees (physical RAM, or the sandbox's modelled RAM).
  uint64_t resolve(uint64_t ram) const;
  bool relative() const;
};
SizeExpr parse_size_expr(std::string_view text, bool allow_zero = false);

// "30s", "10m", "1h", "1.5s", "250ms", or a plain number of seconds. Must be > 0.
double parse_duration(std::string_view text);

// 2 decimals with binary units: "512.00 MiB", "37.44 GiB", "100 bytes".
std::string format_size(uint64_t bytes);
// Always in GiB, 2 decimals: "0.50 GiB", "37.44 GiB" (the write-up's tables and the run's live line).
std::string format_gib(uint64_t bytes);
// Compact for tables: "38.5 GiB", "512 MiB".
std::string format_size_short(uint64_t bytes);
// For table cells: format_size, or "-" when there is no value.
std::string format_size_or_dash(const std::optional<uint64_t>& bytes);
// A change, compact and signed: "+4.10 GiB", "-512 MiB", "0"; "-" when there is no value.
std::string format_signed_size(const std::optional<int64_t>& bytes);
std::string format_duration(double seconds);

// Strict number parsing (the whole text must be a finite number).
std::optional<double> parse_number(std::string_view text);

}  // namespace wmb
