#include "publish/html.h"

#include <cstdint>

#include <fmt/format.h>

#include "io/terminal_text.h"
#include "io/utf8.h"

namespace wmb::publish {

std::string html_escape(std::string_view raw) {
  // Ill-formed bytes -> U+FFFD (NUL -> "\0"), then C0/C1 controls but \n and \t -> "\u00XX".
  const std::string s = escape_controls(utf8_sanitize(raw));
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool plain_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

}  // namespace

std::string content_hash(std::string_view s) { return fmt::format("{:016x}", fnv1a(s)); }

std::string slug(std::string_view s, bool keep_plain) {
  bool plain = keep_plain && !s.empty() && s.size() <= 64 && s.front() != '.' && s.front() != '-';
  for (char c : s) plain = plain && plain_char(c);
  if (plain) return std::string(s);
  std::string out;
  for (char c : s) {
    if (out.size() >= 48) break;
    if (plain_char(c)) {
      if (out.empty() && (c == '.' || c == '-')) continue;
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  if (out.empty()) out = "x";
  return fmt::format("{}-{:08x}", out, static_cast<uint32_t>(fnv1a(s) & 0xffffffffu));
}

}  // namespace wmb::publish
