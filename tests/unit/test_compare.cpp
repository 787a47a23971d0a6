// wmbench compare: matching by label, verdicts, output formats and exit codes (through run_compare,
// the function the CLI calls).
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/units.h"
#include "compare/compare.h"

namespace test_compare {  // one namespace per test file: the unity build compiles 8 files as one

namespace fs = std::filesystem;
using nlohmann::json;
using namespace wmb;
using namespace wmb::compare;

namespace {

json make_run(const std::string& label, int repeat, const std::string& stopped_by, std::optional<uint64_t> held,
              std::optional<uint64_t> max_allowed = std::nullopt, uint64_t swap_before = 1 * GiB,
              uint64_t swap_after = 3 * GiB) {
  return {{"index", repeat},
          {"label", label},
          {"repeat", repeat},
          {"env", json::object()},
          {"device", "mps"},
          {"stopped_by", stopped_by},
          {"detail", ""},
          {"error_text", nullptr},
          {"error", nullptr},
          {"held_bytes", held ? json(*held) : json(nullptr)},
          {"steps", 10},
          {"step_bytes", 512 * MiB},
          {"max_allowed_bytes", max_allowed ? json(*max_allowed) : json(nullptr)},
          {"swap_before_bytes", swap_before},
          {"swap_after_bytes", swap_after},
          {"started_utc", "2026-10-13T10:00:00Z"}};
}

json make_machine(const std::string& torch, const std::string& os_version = "14.4",
                  const std::string& started = "2026-10-13T09:59:00Z") {
  return {{"os", "macOS"},          {"os_version", os_version},  {"chip", "Apple M2 Max"},
          {"ram_bytes", 64 * GiB},  {"torch_version", torch},    {"device", "mps"},
          {"started_utc", started}, {"wmbench_version", "0.1.0"}};
}

json make_summary(const std::vector<json>& runs, const std::string& scenario = "mps-watermark",
                  const json& machine = make_machine("2.1.0")) {
  return {{"schema_version", 1}, {"scenario", scenario}, {"device", "mps"},
          {"machine", machine},  {"runs", runs},         {"not_run", json::array()}};
}

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("wmbench-compare-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a result folder; returns its path.
  std::string folder(const std::string& name, const json& summary, const std::optional<json>& machine = {}) {
    const fs::path p = dir_ / name;
    fs::create_directories(p);
    std::ofstream(p / "summary.json") << summary.dump(2);
    if (machine) std::ofstream(p / "machine.json") << machine->dump(2);
    return p.string();
  }

  struct Result {
    int code;
    std::string out, err;
  };
  Result run(const std::string& base, const std::string& now, const std::string& tolerance = "5",
             OutputFormat format = OutputFormat::text) {
    CompareOptions o;
    o.base_dir = base;
    o.new_dir = now;
    o.tolerance = tolerance;
    o.format = format;
    std::ostringstream out, err;
    const int code = run_compare(o, out, err);
    return {code, out.str(), err.str()};
  }

  fs::path dir_;
};

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_F(CompareTest, IdenticalFoldersHaveNoRegression) {
  const json s = make_summary({make_run("default", 1, "guard", 40 * GiB),
                               make_run("high-0.8", 1, "pytorch", 30 * GiB, 32 * GiB)});
  const auto b = folder("2026-10-13-mps-watermark", s, make_machine("2.1.0"));
  const auto n = folder("2026-10-14-mps-watermark", s, make_machine("2.1.0"));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(contains(r.out, "OK: no regression")) << r.out;
  const Comparison c = compare_folders(load_result_folder(b), load_result_folder(n));
  EXPECT_EQ(c.regressions, 0);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].verdict, "ok");
  EXPECT_EQ(c.rows[1].held.direction(), "same");
}

TEST_F(CompareTest, ChangedStopReasonIsARegressionNamingBothReasons) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "pytorch", 40 * GiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "guard -> pytorch")) << r.out;
  EXPECT_TRUE(contains(r.out, "stop reason changed")) << r.out;
  EXPECT_TRUE(contains(r.out, "REGRESSION")) << r.out;
}

// Issue 41: the guard on another signal is another stop reason; a folder from before
// guard_signal (none known) compares with a new one by class alone, as before.
TEST_F(CompareTest, AChangedGuardSignalIsAChangedStopReason) {
  json swap_run = make_run("default", 1, "guard", 40 * GiB);
  swap_run["guard_signal"] = "swap";
  json pressure_run = make_run("default", 1, "guard", 40 * GiB);
  pressure_run["guard_signal"] = "pressure";
  const auto b = folder("b", make_summary({swap_run}));
  const auto n = folder("n", make_summary({pressure_run}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "guard (swap) -> guard (pressure)")) << r.out;
  EXPECT_TRUE(contains(r.out, "stop reason changed (guard on swap -> pressure)")) << r.out;
  const auto same = run(b, folder("n2", make_summary({swap_run})));
  EXPECT_EQ(same.code, 0) << same.out;
  const auto old = folder("old", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const auto r2 = run(old, n);
  EXPECT_EQ(r2.code, 0) << "a folder without guard_signal is not a changed signal\n" << r2.out;
}

TEST_F(CompareTest, StopReasonsOfRepeatsAreShownAsAMultiset) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB), make_run("default", 2, "guard", 40 * GiB),
                                           make_run("default", 3, "guard", 40 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 40 * GiB), make_run("default", 2, "timeout", 40 * GiB),
                                           make_run("default", 3, "guard", 40 * GiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "guard x3 -> guard x2, timeout x1")) << r.out;
}

TEST_F(CompareTest, HeldBeyondToleranceIsARegressionWithTheNumbers) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 36 * GiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, format_size(40 * GiB))) << r.out;
  EXPECT_TRUE(contains(r.out, format_size(36 * GiB))) << r.out;
  EXPECT_TRUE(contains(r.out, "-10.0 %")) << r.out;
  EXPECT_TRUE(contains(r.out, "less")) << r.out;
  EXPECT_TRUE(contains(r.out, "held changed: 1")) << r.out;

  // More held memory is flagged too, and says "more".
  const auto n2 = folder("n2", make_summary({make_run("default", 1, "guard", 44 * GiB)}));
  const auto r2 = run(b, n2);
  EXPECT_EQ(r2.code, 1);
  EXPECT_TRUE(contains(r2.out, "+10.0 %, more")) << r2.out;
}

TEST_F(CompareTest, HeldWithinToleranceIsOk) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 41 * GiB)}));  // +2.5 %
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "+2.5 %, more")) << r.out;
  // The same change with a tighter tolerance.
  EXPECT_EQ(run(b, n, "2").code, 1);
  EXPECT_EQ(run(b, n, "2.5%").code, 0);  // exactly at the tolerance is not beyond it
}

TEST_F(CompareTest, ThreeRepeatsWithinSpreadAreOkEvenOverTolerance) {
  // Medians 40 -> 42.5 GiB (+6.25 %), but the base median lies within new's [39, 43].
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 38 * GiB), make_run("default", 2, "guard", 40 * GiB),
                                           make_run("default", 3, "guard", 42 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 39 * GiB),
                                           make_run("default", 2, "guard", 42 * GiB + 512 * MiB),
                                           make_run("default", 3, "guard", 43 * GiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "within spread")) << r.out;
  const Comparison c = compare_folders(load_result_folder(b), load_result_folder(n));
  EXPECT_EQ(c.rows[0].held_spread, Spread::within);
  EXPECT_TRUE(c.rows[0].held.over_tolerance);
  EXPECT_FALSE(c.rows[0].held.changed);
}

TEST_F(CompareTest, ThreeRepeatsBeyondSpreadRegress) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB), make_run("default", 2, "guard", 40 * GiB + 100 * MiB),
                                           make_run("default", 3, "guard", 40 * GiB + 200 * MiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 44 * GiB), make_run("default", 2, "guard", 44 * GiB + 100 * MiB),
                                           make_run("default", 3, "guard", 44 * GiB + 200 * MiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "beyond spread")) << r.out;
}

TEST_F(CompareTest, MaxAllowedChangesAreFlagged) {
  const uint64_t gb793 = static_cast<uint64_t>(7.93 * GiB);
  const auto b = folder("b", make_summary({make_run("default", 1, "pytorch", 7 * GiB, gb793)}));
  const auto same = folder("same", make_summary({make_run("default", 1, "pytorch", 7 * GiB, gb793)}));
  const auto more = folder("more", make_summary({make_run("default", 1, "pytorch", 7 * GiB, 12 * GiB)}));
  const auto gone = folder("gone", make_summary({make_run("default", 1, "pytorch", 7 * GiB, std::nullopt)}));
  EXPECT_EQ(run(b, same).code, 0);
  const auto r = run(b, more);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.out, "max allowed more")) << r.out;
  EXPECT_EQ(run(b, gone).code, 1);
}

TEST_F(CompareTest, LabelsOnOneSide) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB), make_run("old", 1, "guard", 40 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 40 * GiB), make_run("fresh", 1, "cap", 10 * GiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 1) << r.out;  // "old" is missing from NEW
  EXPECT_TRUE(contains(r.out, "only in base")) << r.out;
  EXPECT_TRUE(contains(r.out, "only in new")) << r.out;
  const Comparison c = compare_folders(load_result_folder(b), load_result_folder(n));
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[1].label, "old");
  EXPECT_TRUE(c.rows[1].regression);
  EXPECT_EQ(c.rows[2].label, "fresh");
  EXPECT_FALSE(c.rows[2].regression);
  EXPECT_EQ(c.regressions, 1);
  // A label that only appears in NEW is not a regression.
  EXPECT_EQ(run(n, folder("n-plus", make_summary({make_run("default", 1, "guard", 40 * GiB),
                                                   make_run("fresh", 1, "cap", 10 * GiB),
                                                   make_run("extra", 1, "cap", 10 * GiB)})))
                .code,
            0);
}

TEST_F(CompareTest, DifferentScenariosAreAnError) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}, "mps-watermark"));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 40 * GiB)}, "cpu-fill"));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(contains(r.err, "different scenarios")) << r.err;
  EXPECT_TRUE(contains(r.err, "\"mps-watermark\"")) << r.err;
  EXPECT_TRUE(contains(r.err, "\"cpu-fill\"")) << r.err;
  EXPECT_THROW(compare_folders(load_result_folder(b), load_result_folder(n)), CompareError);
}

TEST_F(CompareTest, MissingFolderIsAnError) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const std::string missing = (dir_ / "no-such-folder").string();
  auto r = run(b, missing);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "NEW")) << r.err;
  EXPECT_TRUE(contains(r.err, missing)) << r.err;
  EXPECT_TRUE(contains(r.err, "does not exist")) << r.err;
  r = run(missing, b);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "BASE")) << r.err;

  // A folder without summary.json.
  fs::create_directories(dir_ / "empty");
  r = run(b, (dir_ / "empty").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "summary.json")) << r.err;
  EXPECT_TRUE(contains(r.err, "not found")) << r.err;
}

TEST_F(CompareTest, MalformedJsonIsAnErrorNamingTheFile) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  fs::create_directories(dir_ / "bad");
  std::ofstream(dir_ / "bad" / "summary.json") << "{\"scenario\": \"mps-watermark\", \"runs\": [";
  const auto r = run(b, (dir_ / "bad").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, (dir_ / "bad" / "summary.json").string())) << r.err;
  EXPECT_TRUE(contains(r.err, "malformed JSON")) << r.err;

  // Valid JSON, wrong shape.
  const auto odd = folder("odd", json{{"scenario", "mps-watermark"}, {"runs", {{{"label", "default"}, {"held_bytes", "lots"}}}}});
  const auto r2 = run(b, odd);
  EXPECT_EQ(r2.code, 2);
  EXPECT_TRUE(contains(r2.err, "held_bytes")) << r2.err;
  EXPECT_TRUE(contains(r2.err, "summary.json")) << r2.err;
  const auto no_runs = folder("no-runs", json{{"scenario", "mps-watermark"}});
  EXPECT_EQ(run(b, no_runs).code, 2);

  // A malformed machine.json is named too.
  const auto m = folder("m", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  std::ofstream(fs::path(m) / "machine.json") << "not json";
  const auto r3 = run(b, m);
  EXPECT_EQ(r3.code, 2);
  EXPECT_TRUE(contains(r3.err, "machine.json")) << r3.err;
}

TEST_F(CompareTest, BadToleranceIsAnError) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  for (const char* t : {"-1", "abc", "", "nan", "inf", "5 %%"}) {
    const auto r = run(b, b, t);
    EXPECT_EQ(r.code, 2) << t;
    EXPECT_TRUE(contains(r.err, "--tolerance")) << r.err;
  }
  EXPECT_EQ(run(b, b, "0").code, 0);
  EXPECT_EQ(parse_tolerance("2.5"), 2.5);
  EXPECT_EQ(parse_tolerance("10%"), 10.0);
}

TEST_F(CompareTest, HeaderShowsBothSides) {
  const auto b = folder("2026-10-13-mps-watermark", make_summary({make_run("default", 1, "guard", 40 * GiB)}),
                        make_machine("2.1.0", "14.4", "2026-10-13T09:00:00Z"));
  const auto n = folder("2026-11-02-mps-watermark", make_summary({make_run("default", 1, "guard", 40 * GiB)}),
                        make_machine("2.3.0", "15.1", "2026-11-02T09:00:00Z"));
  const auto r = run(b, n);
  for (const char* s : {"2.1.0", "2.3.0", "macOS 14.4", "macOS 15.1", "Apple M2 Max", "2026-10-13", "2026-11-02", "mps"}) {
    EXPECT_TRUE(contains(r.out, s)) << s << "\n" << r.out;
  }
  // Without machine.json the summary's embedded machine is used.
  const auto n2 = folder("n2", make_summary({make_run("default", 1, "guard", 40 * GiB)}, "mps-watermark",
                                            make_machine("2.4.1")));
  EXPECT_TRUE(contains(run(b, n2).out, "2.4.1"));
}

TEST_F(CompareTest, JsonOutput) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB), make_run("x", 1, "cap", 8 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "pytorch", 30 * GiB, 32 * GiB), make_run("x", 1, "cap", 8 * GiB)},
                                          "mps-watermark", make_machine("2.3.0")));
  const auto r = run(b, n, "5", OutputFormat::json);
  EXPECT_EQ(r.code, 1);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["regressions"], 1);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["tolerance_pct"], 5.0);
  EXPECT_EQ(j["base"]["torch_version"], "2.1.0");
  EXPECT_EQ(j["new"]["torch_version"], "2.3.0");
  ASSERT_EQ(j["rows"].size(), 2u);
  const json& row = j["rows"][0];
  EXPECT_EQ(row["label"], "default");
  EXPECT_EQ(row["stop_reason_changed"], true);
  EXPECT_EQ(row["held"]["base_bytes"], 40 * GiB);
  EXPECT_EQ(row["held"]["new_bytes"], 30 * GiB);
  EXPECT_EQ(row["held"]["direction"], "less");
  EXPECT_NEAR(row["held"]["change_pct"].get<double>(), -25.0, 1e-9);
  EXPECT_EQ(row["max_allowed"]["direction"], "appeared");
  EXPECT_EQ(row["base"]["swap_growth_bytes"], 2 * GiB);
  EXPECT_EQ(j["rows"][1]["regression"], false);
}

TEST_F(CompareTest, MarkdownOutput) {
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 36 * GiB)}, "mps-watermark",
                                          make_machine("2.3.0")));
  const auto r = run(b, n, "5", OutputFormat::markdown);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.rfind("### wmbench compare: mps-watermark (torch 2.1.0 -> 2.3.0)", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "| setting | stopped by (base -> new) | held (base -> new, change) | max allowed | swap growth | verdict |"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "| `default` | guard -> guard | 40.00 GiB -> 36.00 GiB (-10.0 %, less) |")) << r.out;
  EXPECT_TRUE(contains(r.out, "**REGRESSION: 1 of 1 setting regressed")) << r.out;
}

TEST_F(CompareTest, CraftedFoldersInTestData) {
  const std::string d = std::string(WMBENCH_TEST_DATA) + "/compare/";
  const auto r = run(d + "2026-10-13-mps-watermark", d + "2026-11-02-mps-watermark");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const Comparison c = compare_folders(load_result_folder(d + "2026-10-13-mps-watermark"),
                               load_result_folder(d + "2026-11-02-mps-watermark"));
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[0].verdict.rfind("ok", 0), 0u) << c.rows[0].verdict;       // default: within spread
  EXPECT_TRUE(c.rows[1].stop_reason_changed);                                 // high-0.8-low-0.8
  EXPECT_TRUE(c.rows[2].held.changed);                                        // high-0.0
  EXPECT_EQ(c.rows[3].kind, RowKind::only_in_new);                            // high-1.3
  EXPECT_EQ(c.regressions, 2);
  EXPECT_EQ(run(d + "2026-10-13-mps-watermark", d + "2026-10-13-mps-watermark").code, 0);
}

TEST_F(CompareTest, OneTorchBuildSeenByBothChildrenIsANoteNotARegression) {
  // Debian's torch: wmbench-fill says its headers' 1.13.0, the Python child torch.__version__ 1.13.0a0,
  // both loaded the same libtorch_cpu.
  const json s = make_summary({make_run("default", 1, "cap", 1 * GiB)});
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0";
  json native = make_machine("1.13.0");
  native["torch_library"] = lib;
  native["child"] = {{"kind", "native"}, {"program", "/b/wmbench-fill"}, {"python", nullptr}};
  json python = make_machine("1.13.0a0");
  python["torch_library"] = lib;
  python["child"] = {{"kind", "python"}, {"program", "/b/wmbench_fill.py"},
                     {"python", {{"path", "/usr/bin/python3"}, {"version", "3.11.2"}}}};
  const auto b = folder("a", s, native);
  const auto n = folder("b", s, python);
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "the torch builds report different version strings (1.13.0 vs 1.13.0a0) but both "
                              "loaded " + lib))
      << r.out;
  EXPECT_TRUE(contains(r.out, "base native child, new python child")) << r.out;
  const auto j = json::parse(run(b, n, "5", OutputFormat::json).out);
  EXPECT_EQ(j["new"]["child"], "python");
  EXPECT_EQ(j["base"]["child"], "native");
  EXPECT_EQ(j["new"]["torch_library"], lib);

  // A folder without "child" ran the native child: no note about children then.
  json old = make_machine("1.13.0");
  old["torch_library"] = lib;
  const auto o = folder("c", s, old);
  const auto same = run(o, b);
  EXPECT_FALSE(contains(same.out, "children differ")) << same.out;
  EXPECT_FALSE(contains(same.out, "version strings")) << same.out;

  // Another library with the same release number, and another release, are said as such.
  json other = make_machine("1.13.1+cpu");
  other["torch_library"] = "/venv/torch/lib/libtorch_cpu.so";
  const auto r2 = run(b, folder("d", s, other));
  EXPECT_TRUE(contains(r2.out, "torch differs: 1.13.0 vs 1.13.1+cpu")) << r2.out;
  json sibling = make_machine("1.13.0+cpu");
  sibling["torch_library"] = "/venv/torch/lib/libtorch_cpu.so";
  const auto r3 = run(b, folder("e", s, sibling));
  EXPECT_TRUE(contains(r3.out, "the same release number, different builds")) << r3.out;
}

// ---- Issue 22, class H: what `wmbench compare` may claim -----------------------------------------

TEST_F(CompareTest, OneLabelWithOtherSettingsIsExit3NotNoRegression) {
  // The same numbers under one label, HIGH 0.8 in BASE and 0.7 in NEW: before, "no regression".
  json rb = make_run("high-0.8", 1, "pytorch", 30 * GiB, 32 * GiB), rn = rb;
  rb["env"] = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}};
  rn["env"] = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.7"}};
  const json d = make_run("default", 1, "guard", 40 * GiB);
  const auto b = folder("b", make_summary({d, rb}));
  const auto n = folder("n", make_summary({d, rn}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "not comparable: the settings differ under one label (PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> 0.7)"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "OK: no regression")) << r.out;
  EXPECT_FALSE(contains(r.out, "REGRESSION")) << r.out;
  const json j = json::parse(run(b, n, "5", OutputFormat::json).out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["settings_differ"], 1);
  EXPECT_EQ(j["compared"], 1);
  EXPECT_EQ(j["rows"][1]["settings_differ"][0], "PYTORCH_MPS_HIGH_WATERMARK_RATIO 0.8 -> 0.7");
  EXPECT_EQ(j["rows"][1]["regression"], false);
  const auto md = run(b, n, "5", OutputFormat::markdown);
  EXPECT_EQ(md.code, 3);
  EXPECT_TRUE(contains(md.out, "): not comparable\n")) << md.out;

  // memory_fraction and the program, each on its own.
  json fb = d, fn = d;
  fb["memory_fraction"] = 0.8;
  fn["memory_fraction"] = 0.7;
  const auto r2 = run(folder("fb", make_summary({fb})), folder("fn", make_summary({fn})));
  EXPECT_EQ(r2.code, 3);
  EXPECT_TRUE(contains(r2.out, "(memory_fraction 0.8 -> 0.7)")) << r2.out;
  json pb = d, pn = d;
  pb["program"] = "fill";
  pn["program"] = "offload";
  EXPECT_TRUE(contains(run(folder("pb", make_summary({pb})), folder("pn", make_summary({pn}))).out, "(program fill -> offload)"));
}

TEST_F(CompareTest, CpuAgainstMpsModelIsNotComparableNeverARegression) {
  auto on = [&](const std::string& name, const std::string& device, const std::string& stop, uint64_t held) {
    json m = make_machine("2.1.0");
    m["device"] = device;
    json run = make_run("default", 1, stop, held);
    run["device"] = device;
    json s = make_summary({run}, "mps-watermark", m);
    s["device"] = device;
    return folder(name, s, m);
  };
  const auto r = run(on("cpu", "cpu", "cap", 8 * GiB), on("model", "mps-model", "pytorch", 6 * GiB));
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "note: not comparable: the devices differ (device cpu -> mps-model)")) << r.out;
  EXPECT_TRUE(contains(r.out, "not comparable: the devices differ (stop reason changed, held less (-25.0 %))")) << r.out;
  EXPECT_FALSE(contains(r.out, "REGRESSION")) << r.out;
  EXPECT_FALSE(contains(r.out, "devices differ: cpu vs mps-model")) << "one note, not two:\n" << r.out;
}

TEST_F(CompareTest, AComparisonThatComparedNothingClaimsNothing) {
  // BASE ran nothing (an interrupted run: every cell not run), NEW ran a label: exit 3, not 0.
  const auto b = folder("b", make_summary({}));
  const auto n = folder("n", make_summary({make_run("default", 1, "guard", 40 * GiB)}));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "NOT COMPARABLE: no regression counted (no setting ran on both sides; only in new: 1).")) << r.out;
  EXPECT_EQ(run(b, b).code, 3);
}

TEST_F(CompareTest, ASummaryWhoseDeviceIsNotMachineJsonsIsRefused) {
  json s = make_summary({make_run("default", 1, "guard", 40 * GiB)});
  s["device"] = "cpu";  // machine.json, the summary's machine and the run say mps
  const auto b = folder("b", make_summary({make_run("default", 1, "guard", 40 * GiB)}), make_machine("2.1.0"));
  const auto n = folder("n", s, make_machine("2.1.0"));
  const auto r = run(b, n);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(r.err, "NEW: " + n + ": its files disagree on the device it measured: machine.json says \"mps\", "
                              "summary.json \"device\" says \"cpu\""))
      << r.err;
}

TEST_F(CompareTest, CommittedFoldersGiveSensibleAnswers) {
  const std::string res = std::string(WMBENCH_SOURCE_DIR) + "/results/";
  struct Pair {
    std::string base, now;
    int code;
    std::string says;
  };
  const std::vector<Pair> pairs = {
      // The torch pair (1.13 on Debian, 2.11 on the H200): the README's "no regression".
      {"2026-11-29-pair-torch-1.13-debian", "2026-11-29-pair-torch-2.11-h200", 0, "OK: no regression (6 settings compared"},
      // The Python child against the native child on the H200: the same.
      {"2026-12-01-cuda-fraction-h200-native", "2026-12-01-cuda-fraction-h200-python", 0, "OK: no regression"},
      // The model before and after the heap model: not comparable, never a REGRESSION.
      {"2026-11-29-mps-watermark", "2026-12-01-mps-watermark", 3, "not comparable: the model changed"},
      // cpu against cuda: not comparable.
      {"2026-11-29-offload-footprint-h200-cpu", "2026-11-29-offload-footprint-h200-cuda", 3,
       "not comparable: the devices differ (device cpu -> cuda)"},
  };
  for (const auto& p : pairs) {
    const auto r = run(res + p.base, res + p.now);
    EXPECT_EQ(r.code, p.code) << p.base << " -> " << p.now << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out, p.says)) << p.base << " -> " << p.now << "\n" << r.out;
    if (p.code != 1) EXPECT_FALSE(contains(r.out, "REGRESSION")) << r.out;
  }
}

}  // namespace test_compare
