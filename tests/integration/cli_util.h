// Helpers shared by the integration tests that drive the real `wmbench` binary: the command with
// this build's fill child, scenario files, scripts, a temp folder, and the skip for a missing
// Python torch. The paths
// come from tests/CMakeLists.txt (WMBENCH_BIN, WMBENCH_FILL_BIN, WMBENCH_TORCH_PYTHON,
// WMBENCH_PYFILL).
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "probe/probe.h"
#include "proc_util.h"

namespace wmbt {

// `wmbench ARGS...` with WMBENCH_FILL set to this build's wmbench-fill, whose mps-model child runs
// without libtorch (WMBENCH_FILL_MODEL_WITHOUT_TORCH=1) unless the test sets or unsets that variable
// itself: the same model code (harness/fillbase/), whose lines FillHalves.* proves equal to the
// libtorch half's, without libtorch's start (0.7 s of CPU a child, 2.2-2.5 s under ASan; issue 44).
// The libtorch half's model runs where a test asks for it: FillHalves.*, ModelMatrixExclusive (the
// main job, whose sandbox needs libtorch's resident memory) and the tests that pass "0".
inline Result wmbench(std::vector<std::string> args, RunOpts o = {}) {
  args.insert(args.begin(), WMBENCH_BIN);
  o.set_env["WMBENCH_FILL"] = WMBENCH_FILL_BIN;
  const std::string lean = "WMBENCH_FILL_MODEL_WITHOUT_TORCH";
  if (!o.set_env.count(lean) && std::find(o.unset_env.begin(), o.unset_env.end(), lean) == o.unset_env.end())
    o.set_env[lean] = "1";
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

// "" when this machine has `cap` bytes free now, else why a test whose fill has that cap cannot
// run here: wmbench refuses a cpu or mps-model fill whose cap is above the memory free
// (runner/prepare.cpp refuse_unsafe_fill, the probe's available()), which an 8 GB Mac or GitHub's
// 7 GB runner VM often has not for a GiB cap (issue 42). WMBT_SKIP_IF(free_memory_below(3ull << 30)).
inline std::string free_memory_below(uint64_t cap) {
  uint64_t free_now = 0;
  try {
    free_now = wmb::make_platform_probe()->system().available();
  } catch (const std::exception& e) {
    return std::string("cannot read free memory: ") + e.what();
  }
  if (free_now >= cap) return "";
  return "needs " + std::to_string(cap >> 20) + " MiB free for its cap, this machine has " +
         std::to_string(free_now >> 20) + " MiB free now (wmbench would refuse the fill, rightly)";
}

// "/usr/local/bin:/usr/bin:/bin" less every folder that holds a `uv`: the releases tests that are not
// about the installer mean pip's path on every machine (the H100 machine has uv in /usr/local/bin,
// where `--installer auto` found it and the tests ran uv without saying so).
inline std::string path_without_uv() {
  std::string path;
  for (const char* d : {"/usr/local/bin", "/usr/bin", "/bin"})
    if (::access((std::string(d) + "/uv").c_str(), X_OK) != 0) path += (path.empty() ? "" : ":") + std::string(d);
  return path;
}

// The first python with matplotlib ("" when none): $WMBENCH_PYTHON, then the usual ones. A test
// that also asserts charts asserts them where one exists (scripts/gpu-run.sh configures none).
// Found by importlib's finder, which runs none of matplotlib (0.05 s, where `import matplotlib` is
// 0.3 s of CPU in each test process that asks): one that is found but cannot import fails the
// chart assertions, never skips them.
inline std::string real_python_with_matplotlib() {
  static const std::string found = [] {
    std::vector<std::string> cands;
    if (const char* e = std::getenv("WMBENCH_PYTHON"); e && *e) cands.emplace_back(e);
    for (const char* c : {"/usr/bin/python3", "/opt/homebrew/bin/python3", "/usr/local/bin/python3"}) cands.emplace_back(c);
    for (const auto& c : cands)
      if (file_exists(c) &&
          run({c, "-c", "import importlib.util as u, sys\nsys.exit(u.find_spec('matplotlib') is None)"}).status == 0)
        return c;
    return std::string();
  }();
  return found;
}

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
