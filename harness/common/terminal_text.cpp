#include "common/terminal_text.h"

#include <cstdio>
#include <iostream>
#include <streambuf>

namespace wmb {
namespace {

void escape_byte(unsigned char c, std::string& out) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  out += buf;
}

bool is_c0_or_del(unsigned char c, bool keep_newline) {
  if (keep_newline && (c == '\n' || c == '\t')) return false;
  return c < 0x20 || c == 0x7f;
}

// Escapes `s`; `pending_c2` carries a 0xC2 lead byte across calls (a streambuf's chunks).
void escape_into(std::string_view s, std::string& out, bool keep_newline, bool& pending_c2) {
  for (unsigned char c : s) {
    if (pending_c2) {
      pending_c2 = false;
      if (c >= 0x80 && c <= 0x9f) {
        escape_byte(c, out);
        continue;
      }
      out += static_cast<char>(0xc2);
    }
    if (c == 0xc2) {
      pending_c2 = true;
    } else if (is_c0_or_del(c, keep_newline)) {
      escape_byte(c, out);
    } else {
      out += static_cast<char>(c);
    }
  }
}

std::string escape(std::string_view s, bool keep_newline) {
  std::string out;
  out.reserve(s.size());
  bool pending = false;
  escape_into(s, out, keep_newline, pending);
  if (pending) out += static_cast<char>(0xc2);
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
    escape_into(std::string_view(s, static_cast<size_t>(n)), out, true, pending_c2_);
    if (!out.empty() && to_->sputn(out.data(), static_cast<std::streamsize>(out.size())) !=
                            static_cast<std::streamsize>(out.size()))
      return 0;
    return n;
  }
  // A 0xC2 held back at a flush waits for the byte after it (it decides whether it is a C1).
  int sync() override { return to_->pubsync(); }

 private:
  std::streambuf* to_;
  bool pending_c2_ = false;
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
