// Helpers shared by the integration tests that drive the real `wmbench` binary: the command with
// this build's fill child, scenario files, scripts, a temp folder, and the skip for a missing
// Python torch. The paths
// come from tests/CMakeLists.txt (WMBENCH_BIN, WMBENCH_FILL_BIN, WMBENCH_TORCH_PYTHON,
// WMBENCH_PYFILL).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "proc_util.h"

namespace wmbt {

// `wmbench ARGS...` with WMBENCH_FILL set to this build's wmbench-fill.
inline Result wmbench(std::vector<std::string> args, RunOpts o = {}) {
  args.insert(args.begin(), WMBENCH_BIN);
  o.set_env["WMBENCH_FILL"] = WMBENCH_FILL_BIN;
  return run(args, o);
}

// Writes DIR/NAME.json with BODY and returns its path.
inline std::string scenario(const std::string& dir, const std::string& name, const std::string& body) {
  std::string path = dir + "/" + name + ".json";
  write(path, body);
  return path;
}

inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A temp folder removed with everything in it at the end of the test; 0755, so that a wmbench
// that is not root can read it.
struct Tmp {
  std::string path = tmpdir();
  Tmp() { ::chmod(path.c_str(), 0755); }
  ~Tmp() { std::filesystem::remove_all(path); }
  Tmp(const Tmp&) = delete;
  Tmp& operator=(const Tmp&) = delete;
};

// Writes DIR/NAME with BODY, executable (a job or a stand-in program); returns its path.
inline std::string script(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string p = dir + "/" + name;
  write(p, body);
  ::chmod(p.c_str(), 0755);
  return p;
}

}  // namespace wmbt

// Skips the test when CMake found no python3 with torch; fails it when the copied child is missing.
#define SKIP_WITHOUT_PYTHON_TORCH()                                                                        \
  do {                                                                                                     \
    if (std::string(WMBENCH_TORCH_PYTHON).empty())                                                         \
      GTEST_SKIP() << "no python3 with torch was found at configure time (apt install python3-torch, or "  \
                      "cmake -DWMBENCH_TORCH_PYTHON=/path/to/python), so the Python child cannot run";      \
    if (!wmbt::file_exists(WMBENCH_PYFILL)) FAIL() << WMBENCH_PYFILL << " is missing (CMake copies it)";  \
  } while (0)
