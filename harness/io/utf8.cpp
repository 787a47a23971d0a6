#include "io/utf8.h"

namespace wmb {
namespace {

// Length of the well-formed sequence starting at s[i], or 0 when it is ill-formed
// (Unicode 15, table 3-7: well-formed UTF-8 byte sequences).
size_t seq_len(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const size_t left = s.size() - i;
  if (c < 0x80) return 1;
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return k < s.size() && b(k) >= lo && b(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return left >= 3 && cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return left >= 4 && cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

size_t utf8_first_invalid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = seq_len(s, i);
    if (n == 0) return i;
    i += n;
  }
  return s.size();
}

bool utf8_valid(std::string_view s) { return utf8_first_invalid(s) == s.size(); }

std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = seq_len(s, i);
    const size_t step = n == 0 ? 1 : n;
    if (i + step > max_bytes) break;
    i += step;
  }
  return s.substr(0, i);
}

std::string utf8_sanitize(std::string_view s, size_t max_bytes) {
  std::string out;
  out.reserve(s.size() < 4096 ? s.size() : 4096);
  const size_t limit = max_bytes == 0 ? static_cast<size_t>(-1) : max_bytes;
  for (size_t i = 0; i < s.size();) {
    const size_t n = seq_len(s, i);
    std::string_view piece;
    if (n == 0) piece = "\xEF\xBF\xBD";  // U+FFFD
    else if (s[i] == '\0') piece = "\\0";
    else piece = s.substr(i, n);
    if (out.size() + piece.size() > limit) {
      out += "...";
      return out;
    }
    out.append(piece.data(), piece.size());
    i += n == 0 ? 1 : n;
  }
  return out;
}

}  // namespace wmb
