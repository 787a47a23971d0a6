// The text of a pasted or caught PyTorch message as the parsers match it (errparse/parse_*.cpp):
// lowercased, whitespace removed, each character traced back to the original; the sizes, ratios,
// GPU indices and words read off it. Internal to errparse/ (and the fuzz targets).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wmb::errparse {

constexpr size_t npos = std::string::npos;

// The text as matched: ASCII-lowercased with all whitespace removed (so "max\n   allowed",
// "18.72\nGiB" and words broken by a hard wrap all match), and where each character came from.
struct View {
  std::string_view text;      // the original
  std::string s;              // lowercased, whitespace-free
  std::vector<size_t> orig;   // s[i] comes from text[orig[i]]
};

View make_view(std::string_view text);
bool starts_at(const std::string& s, size_t pos, std::string_view key);

struct SizeHit {
  std::optional<uint64_t> bytes;  // nullopt when the value does not fit 64 bits
  size_t begin = 0, end = 0;      // in View::s; end is one past the unit
};

// A size starting exactly at `pos` of s: digits, optionally "." and digits, then a unit.
// nullopt when there is no number there or no unit after it (e.g. a message cut short).
std::optional<SizeHit> size_at(const std::string& s, size_t pos);
// The first size written right after `key` (at or after `from`), e.g. key "maxallowed:".
std::optional<SizeHit> size_after(const View& v, std::string_view key, size_t from);
// The first size (at or after `from`) that is followed directly by `key`, e.g. "alreadyallocated".
std::optional<SizeHit> size_before(const View& v, std::string_view key, size_t from);
std::optional<uint64_t> bytes_of(const std::optional<SizeHit>& h);
std::optional<SizeHit> first_of(std::optional<SizeHit> a, std::optional<SizeHit> b);
// The CUDA device index: "(GPU 0;" (old form) or "GPU 3 has a total capacity" (new form).
std::optional<int> gpu_index(const View& v, size_t from);
// The ratio after "invalid ... watermark ratio", read from the original text (a number is not
// joined across whitespace here: "ratio 1.4\n2024-01-01" is 1.4).
std::optional<double> ratio_after(const View& v, size_t key_end);
// Whole-word search in the lowercased original text (whitespace kept): "stod" must not match
// inside "allocations to disable" the way it would in the whitespace-free view.
bool has_word(const std::string& lowered, std::string_view word);
bool contains(const std::string& s, std::string_view key);
// Conservative: a bare std::stod failure ("stod", "stod: no conversion"), or an allocator-config
// key mentioned together with words of a parse/validation error.
bool is_alloc_conf_error(const View& v);
std::string size_or(const std::optional<uint64_t>& b, std::string_view fallback = "?");

}  // namespace wmb::errparse
