// Shared by the libFuzzer targets: a broken invariant prints what and why, then aborts, so that
// libFuzzer records the input as a crash (crash-<sha1>) and scripts/fuzz.sh fails.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace wmb_fuzz {

// The input, printable: non-printable bytes as \xNN, cut at 300 characters.
inline std::string show(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 300)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > 300) out += "...";
  return out;
}

[[noreturn]] inline void fail(const char* target, const std::string& why, std::string_view input) {
  std::fprintf(stderr, "\n==wmbench-fuzz== %s: INVARIANT BROKEN: %s\n==wmbench-fuzz== input: \"%s\"\n", target,
               why.c_str(), show(input).c_str());
  std::fflush(stderr);
  std::abort();
}

[[noreturn]] inline void unexpected_exception(const char* target, const char* where, std::string_view input) {
  std::string what;
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "(not a std::exception)";
  }
  fail(target, std::string(where) + " threw an unexpected exception: " + what, input);
}

}  // namespace wmb_fuzz

// kFuzzTarget: a `static constexpr const char*` naming the target, defined by each target.
#define FUZZ_CHECK(cond, input, why)                            \
  do {                                                          \
    if (!(cond)) wmb_fuzz::fail(kFuzzTarget, (why), (input));   \
  } while (0)
