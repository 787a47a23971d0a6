#include "io/terminal_text.h"

#include <cstdio>
#include <iostream>
#include <streambuf>

namespace wmb {
namespace {

void escape_code(unsigned cp, std::string& out) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", cp);
  out += buf;
}

bool is_c0_or_del(unsigned char c, bool keep_newline) {
  if (keep_newline && (c == '\n' || c == '\t')) return false;
  return c < 0x20 || c == 0x7f;
}

// The bidirectional controls (Unicode's Bidi_Control, UAX #9): they reorder how the rest of a
// line displays, so a quoted command can show as another (issue 30, "Trojan Source"). U+061C
// (UTF-8 D8 9C), U+200E/U+200F (E2 80 8E/8F), U+202A..U+202E (E2 80 AA..AE), U+2066..U+2069
// (E2 81 A6..A9).
bool is_bidi_control(unsigned cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

// Escapes `s`; `pending` carries the first bytes of a sequence that may be a C1 control or a
// bidirectional control across calls (a streambuf's chunks).
void escape_into(std::string_view s, std::string& out, bool keep_newline, std::string& pending) {
  std::string work;
  std::string_view t = s;
  if (!pending.empty()) {
    work = pending;
    work.append(s.data(), s.size());
    pending.clear();
    t = work;
  }
  const size_t n = t.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    const size_t need = c == 0xc2 || c == 0xd8 ? 2 : c == 0xe2 ? 3 : 1;
    if (need > 1 && i + need > n) {
      // The rest may still complete a control: held back for the next chunk.
      bool could = true;
      if (c == 0xe2 && i + 1 < n) {
        const unsigned char b1 = static_cast<unsigned char>(t[i + 1]);
        could = b1 == 0x80 || b1 == 0x81;
      }
      if (could) {
        pending.assign(t.data() + i, n - i);
        return;
      }
    }
    if (c == 0xc2 && i + 1 < n) {
      const unsigned char b1 = static_cast<unsigned char>(t[i + 1]);
      if (b1 >= 0x80 && b1 <= 0x9f) {  // a C1 control: U+0080..U+009F
        escape_code(b1, out);
        i += 2;
        continue;
      }
    } else if (c == 0xd8 && i + 1 < n && static_cast<unsigned char>(t[i + 1]) == 0x9c) {
      escape_code(0x061c, out);
      i += 2;
      continue;
    } else if (c == 0xe2 && i + 2 < n) {
      const unsigned char b1 = static_cast<unsigned char>(t[i + 1]), b2 = static_cast<unsigned char>(t[i + 2]);
      const unsigned cp = ((c & 0x0fu) << 12) | ((b1 & 0x3fu) << 6) | (b2 & 0x3fu);
      if ((b1 & 0xc0) == 0x80 && (b2 & 0xc0) == 0x80 && is_bidi_control(cp)) {
        escape_code(cp, out);
        i += 3;
        continue;
      }
    }
    if (is_c0_or_del(c, keep_newline)) escape_code(c, out);
    else out += static_cast<char>(c);
    ++i;
  }
}

std::string escape(std::string_view s, bool keep_newline) {
  std::string out;
  out.reserve(s.size());
  std::string pending;
  escape_into(s, out, keep_newline, pending);
  out += pending;  // an incomplete sequence at the end: no control, kept as it was
  return out;
}

// A filter under cout/cerr: what is written is escaped, then handed to the real buffer.
class EscapingBuf final : public std::streambuf {
 public:
  explicit EscapingBuf(std::streambuf* to) : to_(to) {}

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::string out;
    escape_into(std::string_view(s, static_cast<size_t>(n)), out, true, pending_);
    if (!out.empty() && to_->sputn(out.data(), static_cast<std::streamsize>(out.size())) !=
                            static_cast<std::streamsize>(out.size()))
      return 0;
    return n;
  }
  // A lead byte held back at a flush waits for the bytes after it (they decide whether it is a control).
  int sync() override { return to_->pubsync(); }

 private:
  std::streambuf* to_;
  std::string pending_;
};

}  // namespace

std::string escape_controls(std::string_view s) { return escape(s, true); }
std::string escape_controls_line(std::string_view s) { return escape(s, false); }

void install_terminal_escaping() {
  // Never freed: cout and cerr are flushed at exit, after every static of this file is gone.
  std::cout.rdbuf(new EscapingBuf(std::cout.rdbuf()));
  std::cerr.rdbuf(new EscapingBuf(std::cerr.rdbuf()));
}

}  // namespace wmb
