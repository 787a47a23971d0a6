// The suite's shared fixtures (tests/CMakeLists.txt, FIXTURES_SETUP), made once per ctest run
// instead of once per test: the tests that only read or damage a finished folder copy it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_util.h"

namespace wmbt {

// A finished folder of tests/data/fixtures/two-cells.json (two CPU cells "a" and "b", 8 MiB each,
// charts off) at T/out/<its name>, to read or damage: a copy of the one ctest's fixture
// fixture.finished_folder made for the suite ($WMBENCH_TEST_FIXTURES/finished-folder/ready), or,
// when there is none or it is older than wmbench (the test binary run by hand), one run here.
inline std::string finished_folder(const std::string& t) {
  namespace fs = std::filesystem;
  const char* fixtures = std::getenv("WMBENCH_TEST_FIXTURES");
  const std::string made =
      fixtures && *fixtures ? only_result_dir(std::string(fixtures) + "/finished-folder/ready") : std::string();
  std::error_code ec, ec2;
  if (!made.empty() && fs::last_write_time(made, ec) >= fs::last_write_time(WMBENCH_BIN, ec2) && !ec && !ec2) {
    const std::string dir = t + "/out/" + fs::path(made).filename().string();
    fs::create_directories(t + "/out");
    fs::copy(made, dir, fs::copy_options::recursive);
    return dir;
  }
  const Result r = wmbench({"run", std::string(WMBENCH_TEST_DATA) + "/fixtures/two-cells.json", "--out", t + "/out",
                            "--no-plots"});
  EXPECT_EQ(r.status, 0) << r.err;
  return only_result_dir(t + "/out");
}

}  // namespace wmbt
