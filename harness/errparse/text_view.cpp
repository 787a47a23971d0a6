#include "errparse/text_view.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/units.h"

namespace wmb::errparse {
namespace {

bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_word_char(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || c == '_'; }

struct Unit {
  std::string_view name;
  uint64_t mult;
};
// "bytes" from c10's format_size ("<= 1024" bytes); KB/MB/GB from older MPS builds (1024-based);
// KiB/MiB/GiB from newer ones. TB/TiB never appear in PyTorch's messages but cost nothing.
constexpr Unit kUnits[] = {{"bytes", 1},  {"kib", KiB}, {"mib", MiB}, {"gib", GiB}, {"tib", TiB},
                           {"kb", KiB},   {"mb", MiB},  {"gb", GiB},  {"tb", TiB}};

}  // namespace

View make_view(std::string_view text) {
  View v;
  v.text = text;
  v.s.reserve(text.size());
  v.orig.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_space(c)) continue;
    // U+00A0 (no-break space), common in text copied from web pages.
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA0) {
      ++i;
      continue;
    }
    v.s.push_back(ascii_lower(static_cast<char>(c)));
    v.orig.push_back(i);
  }
  return v;
}

bool starts_at(const std::string& s, size_t pos, std::string_view key) {
  return pos <= s.size() && s.size() - pos >= key.size() && s.compare(pos, key.size(), key.data(), key.size()) == 0;
}

std::optional<SizeHit> size_at(const std::string& s, size_t pos) {
  if (pos >= s.size() || !is_digit(s[pos])) return std::nullopt;
  size_t i = pos;
  while (i < s.size() && is_digit(s[i])) ++i;
  const size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    frac_begin = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    frac_end = i;
  }
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits) {
    if (starts_at(s, i, u.name)) {
      unit = &u;
      break;
    }
  }
  if (!unit) return std::nullopt;
  SizeHit hit;
  hit.begin = pos;
  hit.end = i + unit->name.size();

  size_t int_begin = pos;
  while (int_begin + 1 < int_end && s[int_begin] == '0') ++int_begin;  // leading zeros
  if (int_end - int_begin > 20) return hit;  // far beyond 2^64 whatever the unit: absent
  std::string digits(s, int_begin, int_end - int_begin);
  if (frac_end > frac_begin) {
    digits += '.';
    digits.append(s, frac_begin, std::min<size_t>(frac_end - frac_begin, 30));
  }
  // strtod, not std::from_chars: Apple's libc++ lacks the floating-point overloads. `digits`
  // holds only [0-9.], so locale and hex forms cannot come into it.
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(value) || value < 0) return hit;
  const double bytes = std::round(value * static_cast<double>(unit->mult));
  if (!(bytes < kTwoTo64)) return hit;
  hit.bytes = static_cast<uint64_t>(bytes);
  return hit;
}

// The first size written right after `key` (at or after `from`), e.g. key "maxallowed:".
std::optional<SizeHit> size_after(const View& v, std::string_view key, size_t from) {
  for (size_t pos = v.s.find(key.data(), from, key.size()); pos != npos;
       pos = v.s.find(key.data(), pos + 1, key.size())) {
    if (auto hit = size_at(v.s, pos + key.size())) return hit;
  }
  return std::nullopt;
}

// The first size (at or after `from`) that is followed directly by `key`, e.g. "alreadyallocated".
std::optional<SizeHit> size_before(const View& v, std::string_view key, size_t from) {
  const std::string& s = v.s;
  size_t i = from;
  while (i < s.size()) {
    // A number starts here unless this digit continues one: "5" in "15" or in "1.5". A '.' after
    // a word is a full stop ("is free.13.98giballowed" once whitespace is gone).
    const bool continues = i > 0 && (is_digit(s[i - 1]) || (s[i - 1] == '.' && i > 1 && is_digit(s[i - 2])));
    if (is_digit(s[i]) && !continues) {
      if (auto hit = size_at(s, i)) {
        if (starts_at(s, hit->end, key)) return hit;
      }
      while (i < s.size() && (is_digit(s[i]) || s[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> bytes_of(const std::optional<SizeHit>& h) {
  return h ? h->bytes : std::nullopt;
}

std::optional<SizeHit> first_of(std::optional<SizeHit> a, std::optional<SizeHit> b) {
  if (a && b) return a->begin <= b->begin ? a : b;
  return a ? a : b;
}

// The CUDA device index: "(GPU 0;" (old form) or "GPU 3 has a total capacity" (new form).
std::optional<int> gpu_index(const View& v, size_t from) {
  for (size_t pos = v.s.find("gpu", from); pos != npos; pos = v.s.find("gpu", pos + 1)) {
    size_t i = pos + 3, n = 0;
    int value = 0;
    while (i < v.s.size() && is_digit(v.s[i]) && n < 6) {
      value = value * 10 + (v.s[i] - '0');
      ++i;
      ++n;
    }
    if (n == 0 || n >= 6) continue;
    if (i < v.s.size() && (v.s[i] == ';' || v.s[i] == ')' || starts_at(v.s, i, "has"))) return value;
  }
  return std::nullopt;
}

// The ratio after "invalid ... watermark ratio", read from the original text (a number is not
// joined across whitespace here: "ratio 1.4\n2024-01-01" is 1.4).
std::optional<double> ratio_after(const View& v, size_t key_end) {
  if (key_end == 0 || key_end > v.orig.size()) return std::nullopt;
  size_t i = v.orig[key_end - 1] + 1;
  const std::string_view t = v.text;
  while (i < t.size() && (is_space(static_cast<unsigned char>(t[i])) || t[i] == ':')) ++i;
  if (i >= t.size()) return std::nullopt;
  if (t[i] == '+') ++i;
  const size_t len = std::min<size_t>(t.size() - i, 64);
  // A plain decimal number ([0-9.eE+-]); strtod on a copy (Apple's libc++ has no floating-point
  // std::from_chars).
  size_t n = 0;
  while (n < len && (std::isdigit(static_cast<unsigned char>(t[i + n])) || t[i + n] == '.' || t[i + n] == 'e' ||
                     t[i + n] == 'E' || t[i + n] == '-' || t[i + n] == '+'))
    ++n;
  const std::string num(t.substr(i, n));
  char* end = nullptr;
  const double value = std::strtod(num.c_str(), &end);
  if (end == num.c_str() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Whole-word search in the lowercased original text (whitespace kept): "stod" must not match
// inside "allocations to disable" the way it would in the whitespace-free view.
bool has_word(const std::string& lowered, std::string_view word) {
  for (size_t pos = lowered.find(word.data(), 0, word.size()); pos != npos;
       pos = lowered.find(word.data(), pos + 1, word.size())) {
    const bool left_ok = pos == 0 || !is_word_char(lowered[pos - 1]);
    const size_t after = pos + word.size();
    const bool right_ok = after >= lowered.size() || !is_word_char(lowered[after]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

bool contains(const std::string& s, std::string_view key) { return s.find(key.data(), 0, key.size()) != npos; }

// Conservative: a bare std::stod failure ("stod", "stod: no conversion"), or an allocator-config
// key mentioned together with words of a parse/validation error.
bool is_alloc_conf_error(const View& v) {
  std::string lowered(v.text.substr(0, std::min<size_t>(v.text.size(), 1 << 20)));
  for (char& c : lowered) c = ascii_lower(c);
  if (has_word(lowered, "stod")) return true;
  const bool mentions_conf = contains(v.s, "per_process_memory_fraction") || contains(v.s, "_alloc_conf") ||
                             contains(v.s, "allocatorconfig") || contains(v.s, "cachingallocatoroption");
  if (!mentions_conf) return false;
  static constexpr std::string_view kErrorWords[] = {"invalid", "expected", "expecting", "unrecognized",
                                                     "malformed", "parse", "notanumber", "mustbe",
                                                     "outofrange"};
  for (auto w : kErrorWords)
    if (contains(v.s, w)) return true;
  return false;
}

std::string size_or(const std::optional<uint64_t>& b, std::string_view fallback) {
  return b ? format_size(*b) : std::string(fallback);
}

}  // namespace wmb::errparse
