// What the releases tests' stand-in torch wheels (tests/integration/standin_torch_wheel.py) need
// from the machine, asked once per test process and without importing torch: a light stand-in
// never loads it, and `import torch` costs 1.5-2.7 s of CPU each time it was asked (Debian's 1.13),
// which every releases test paid in its skip check (issue 44).
#pragma once

#include <string>

#include "proc_util.h"

namespace wmbt {

// The real torch package's __init__.py of WMBENCH_TORCH_PYTHON, found by importlib's finder, which
// reads no torch code ("" when there is no such python or it has no torch): what a stand-in that
// fills (`--real`) loads. A torch that is found but cannot import fails those tests, never skips them.
inline std::string real_torch_init() {
  static const std::string path = [] {
    if (std::string(WMBENCH_TORCH_PYTHON).empty()) return std::string();
    auto r = run({WMBENCH_TORCH_PYTHON, "-I", "-c",
                  "import importlib.util as u, sys\ns = u.find_spec('torch')\n"
                  "sys.exit(1) if s is None or not s.origin else print(s.origin)"});
    std::string s = r.out;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return r.status == 0 ? s : std::string();
  }();
  return path;
}

// Why the stand-in tests cannot run here ("" when they can): a python with torch, venv and pip.
inline std::string standin_skip_reason() {
  static const std::string why = []() -> std::string {
    if (std::string(WMBENCH_TORCH_PYTHON).empty()) return "no python3 with torch was found at configure time";
    if (real_torch_init().empty()) return std::string(WMBENCH_TORCH_PYTHON) + " has no torch (the stand-ins load it)";
    // importlib's finder: 0.03 s, where importing pip took 0.1 s in every releases test's process
    if (run({WMBENCH_TORCH_PYTHON, "-I", "-c",
             "import importlib.util as u, sys; sys.exit(0 if u.find_spec('venv') and u.find_spec('pip') else 1)"})
            .status != 0)
      return std::string(WMBENCH_TORCH_PYTHON) + " has no venv or no pip (scripts/setup.sh: apt-get install python3-venv python3-pip)";
    return "";
  }();
  return why;
}

}  // namespace wmbt

#define SKIP_WITHOUT_STANDINS()                                                       \
  do {                                                                                \
    if (const std::string why_ = ::wmbt::standin_skip_reason(); !why_.empty()) GTEST_SKIP() << why_; \
  } while (0)
