// Helpers shared by the unit tests: a fresh temp folder, a file written whole, and the text of
// what a call threw. Header-only (inline), included by the test files that need them.
#pragma once

#include <stdlib.h>

#include <exception>
#include <fstream>
#include <functional>
#include <string>

namespace wmbt_unit {

// A new empty folder under /tmp (mkdtemp): each test its own, so tests run in parallel.
inline std::string tmpdir(const char* tag = "unit") {
  std::string t = std::string("/tmp/wmbench-") + tag + "-XXXXXX";
  const char* d = ::mkdtemp(t.data());
  return d ? std::string(d) : std::string();
}
inline void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
inline bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }
// What f threw (its what()), or "" when it did not throw.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace wmbt_unit
