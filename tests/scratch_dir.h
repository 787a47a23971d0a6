// A test's scratch folders: each one new under /tmp (mkdtemp), so tests run in parallel, and removed
// when the test process ends (ctest runs one test per process), unless a test of that process failed
// (then it is kept and named on stderr, to be looked at) or WMBENCH_KEEP_TEST_DIRS=1. Before this,
// every test that made one left it: ~600 folders a run of the suite, 4700 in /tmp after a day.
// Shared by the unit and the integration tests (unit_util.h, proc_util.h); a test that needs a
// folder gets it here, never from its own mkdtemp.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace wmbt_scratch {

struct Made {
  std::mutex m;
  pid_t owner = ::getpid();  // a forked child that calls exit() removes nothing of its parent's
  std::vector<std::string> dirs;
};

inline Made& made() {
  static Made* m = new Made();  // never destroyed: the exit handler below may run after statics go
  return *m;
}

inline void remove_made() {
  Made& m = made();
  std::lock_guard<std::mutex> lock(m.m);
  if (::getpid() != m.owner) return;
  const char* keep = std::getenv("WMBENCH_KEEP_TEST_DIRS");
  const ::testing::UnitTest* u = ::testing::UnitTest::GetInstance();
  const bool failed = u && u->Failed();
  for (const std::string& d : m.dirs) {
    if (failed || (keep && std::string(keep) == "1")) {
      std::fprintf(stderr, "test scratch folder kept: %s\n", d.c_str());
      continue;
    }
    std::error_code ec;
    std::filesystem::remove_all(d, ec);  // never follows a link it meets: the link itself goes
  }
  m.dirs.clear();
}

// A new empty folder /tmp/wmbench-TAG-XXXXXX ("" when none could be made).
inline std::string new_dir(const std::string& tag) {
  std::string t = "/tmp/wmbench-" + tag + "-XXXXXX";
  if (!::mkdtemp(t.data())) return "";
  static const bool registered = std::atexit(remove_made) == 0;
  (void)registered;
  Made& m = made();
  std::lock_guard<std::mutex> lock(m.m);
  m.dirs.push_back(t);
  return t;
}

}  // namespace wmbt_scratch
