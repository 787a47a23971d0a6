// Issue 43: the sysctl iogpu.wired_limit_mb as a cell key, a flag and a lever that is always put
// back (scenario/wired_limit.h, harness/lever/), and the model, predict, explain and tune that know it.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include "../scratch_dir.h"
#include <nlohmann/json.hpp>

#include "common/run_error.h"
#include "common/units.h"
#include "errparse/error_parser.h"
#include "explain/explain.h"
#include "inspect/predict_inputs.h"
#include "io/files.h"
#include "lever/journal.h"
#include "lever/wired_lever.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/predict.h"
#include "scenario/scenario.h"
#include "scenario/wired_limit.h"
#include "tune/tune.h"

namespace test_wired_limit {  // one namespace per test file: the unity build compiles 8 files as one

namespace {

using namespace wmb;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A sysctl kept in memory; `on_write` sees each write before it lands.
class FakeSysctl final : public lever::Sysctl {
 public:
  uint64_t value = 0;
  std::function<void(uint64_t)> on_write;
  bool fail_writes = false;
  std::string where() const override { return "the test's fake"; }
  uint64_t read(const std::string&) override { return value; }
  void write(const std::string&, uint64_t v) override {
    if (on_write) on_write(v);
    if (fail_writes) throw lever::LeverError("refused by the fake");
    value = v;
  }
};

// A private lever state folder for the test (WMBENCH_LEVER_STATE), and a result folder.
struct LeverDirs {
  std::string root;
  LeverDirs() {
    root = wmbt_scratch::new_dir("lever");
    ::setenv(lever::kStateEnv, (root + "/state").c_str(), 1);
    std::filesystem::create_directories(root + "/folder");
  }
  ~LeverDirs() {
    ::unsetenv(lever::kStateEnv);
    std::filesystem::remove_all(root);
  }
  std::string pending() const { return root + "/state/wired-limit.json"; }
};

Scenario parse(const std::string& cells, const std::string& device = "mps") {
  std::vector<std::string> w;
  return parse_scenario(R"({"name": "t", "device": ")" + device + R"(", "matrix": [)" + cells + "]}", "t.json", w);
}

std::string refusal(const std::string& cells) {
  try {
    parse(cells);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(WiredLimitKey, CellValuesParseAndRoundTrip) {
  const Scenario s = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 12000}},
                              {"label": "b", "sysctl": {"iogpu.wired_limit_mb": "80%RAM"}},
                              {"label": "c", "sysctl": {"iogpu.wired_limit_mb": 0}},
                              {"label": "d"})");
  ASSERT_TRUE(s.matrix[0].wired_limit);
  EXPECT_EQ(s.matrix[0].wired_limit->mib, 12000u);
  EXPECT_DOUBLE_EQ(*s.matrix[1].wired_limit->percent_ram, 80.0);
  EXPECT_TRUE(s.matrix[2].wired_limit->system_default());
  EXPECT_FALSE(s.matrix[3].wired_limit);
  // scenario.json keeps the key (a --resume runs the cell with it).
  EXPECT_EQ(to_json(s.matrix[0])["sysctl"]["iogpu.wired_limit_mb"], 12000);
  EXPECT_EQ(to_json(s.matrix[1])["sysctl"]["iogpu.wired_limit_mb"], "80%RAM");
  EXPECT_FALSE(to_json(s.matrix[3]).contains("sysctl"));
  EXPECT_EQ(resolve_wired_limit_mib(*s.matrix[1].wired_limit, 16 * GiB), 13107u);
  EXPECT_EQ(resolve_wired_limit_mib(*s.matrix[2].wired_limit, 16 * GiB), 0u);
}

TEST(WiredLimitKey, HostileValuesAreRefusedNamingTheKeyAndWhatIsAllowed) {
  for (const char* v : {"-1", "\"12000\"", "12000.5", "true", "null", "\"100%RAM\"", "\"0%RAM\"", "\"-5%RAM\"",
                        "[12000]", "99999999999999"}) {
    const std::string e = refusal(std::string(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": )") + v + "}}");
    EXPECT_TRUE(has(e, "matrix[0].sysctl.iogpu.wired_limit_mb")) << v << ": " << e;
    EXPECT_TRUE(has(e, "allowed: an integer number of MiB")) << v << ": " << e;
  }
  const std::string second =
      refusal(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 100, "iogpu.wired_lwm_mb": 90}})");
  EXPECT_TRUE(has(second, "matrix[0].sysctl") && has(second, "this key alone")) << second;
  const std::string other = refusal(R"({"label": "a", "sysctl": {"kern.maxfiles": 100}})");
  EXPECT_TRUE(has(other, "matrix[0].sysctl.kern.maxfiles") && has(other, "not a sysctl wmbench sets")) << other;
  const std::string flat = refusal(R"({"label": "a", "sysctl": 12000})");
  EXPECT_TRUE(has(flat, "matrix[0].sysctl") && has(flat, "iogpu.wired_limit_mb")) << flat;
}

TEST(WiredLimitKey, AValueAtOrAboveTheRamIsRefused) {
  const WiredLimit w = wired_limit_from_json(16384);
  EXPECT_THROW(resolve_wired_limit_mib(w, 16 * GiB), UnitError);
  EXPECT_EQ(resolve_wired_limit_mib(w, 32 * GiB), 16384u);
  try {
    resolve_wired_limit_mib(w, 16 * GiB);
  } catch (const UnitError& e) {
    EXPECT_TRUE(has(e.what(), "not below the RAM")) << e.what();
  }
  EXPECT_EQ(parse_wired_limit("12000").mib, 12000u);
  EXPECT_EQ(parse_wired_limit("12GiB").mib, 12288u);
  EXPECT_TRUE(parse_wired_limit("90%RAM").percent_ram);
  EXPECT_THROW(parse_wired_limit("lots"), UnitError);
  EXPECT_THROW(parse_wired_limit("-3"), UnitError);
}

TEST(WiredLever, RefusedOnCpuAndCudaBeforeAnyFolderNamingTheKey) {
  const Scenario s = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 1000}})");
  for (const char* dev : {"cpu", "cuda"}) {
    try {
      lever::check_wired_lever({&s.matrix[0]}, dev, 16 * GiB, true);
      ADD_FAILURE() << dev << " was not refused";
    } catch (const RunRefused& e) {
      EXPECT_TRUE(has(e.what(), "cell \"a\": key \"sysctl\".\"iogpu.wired_limit_mb\"")) << e.what();
      EXPECT_TRUE(has(e.what(), "allowed only on device mps")) << e.what();
    }
  }
  // Above the RAM: refused there too (the RAM is only known at the run).
  EXPECT_THROW(lever::check_wired_lever({&s.matrix[0]}, "mps-model", 512 * MiB, true), RunRefused);
}

TEST(WiredLever, MpsModelOnlyModelsItAndMpsNeedsRoot) {
  ::unsetenv(lever::kStandinEnv);
  const Scenario s = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 1000}}, {"label": "b"})");
  EXPECT_EQ(lever::check_wired_lever({&s.matrix[0]}, "mps-model", 16 * GiB, true), nullptr);
  try {
    lever::check_wired_lever({&s.matrix[0]}, "mps", 16 * GiB, false);
    ADD_FAILURE() << "a non-root mps run was not refused";
  } catch (const RunRefused& e) {
    EXPECT_TRUE(has(e.what(), "needs root")) << e.what();
  }
  // No cell with the key: nothing to check, whoever runs it.
  EXPECT_EQ(lever::check_wired_lever({&s.matrix[1]}, "mps", 16 * GiB, false), nullptr);
}

TEST(WiredLever, TheModelledRecommendedMaxIsTheCellsWiredLimit) {
  const Scenario s = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 3000}},
                              {"label": "b", "sysctl": {"iogpu.wired_limit_mb": 0}}, {"label": "c"})");
  const auto mac = mpsmodel::modelled_mac_for_sandbox(8 * GiB);
  EXPECT_EQ(lever::model_for_cell(mac, s.matrix[0])->recommended_max, 3000 * MiB);
  EXPECT_EQ(lever::model_for_cell(mac, s.matrix[1])->recommended_max, mac.recommended_max);
  EXPECT_EQ(lever::model_for_cell(mac, s.matrix[2])->recommended_max, mac.recommended_max);
}

TEST(WiredLever, TheFoundValueIsKeptBeforeTheChangeAndPutBackAfter) {
  LeverDirs d;
  const Scenario s = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 12000}})");
  auto fake = std::make_unique<FakeSysctl>();
  FakeSysctl& f = *fake;
  f.value = 9000;  // a value the user had set
  bool pending_before_set = false;
  f.on_write = [&](uint64_t v) {
    if (v == 12000) {
      std::ifstream in(d.pending());
      std::stringstream ss;
      ss << in.rdbuf();
      const auto j = nlohmann::json::parse(ss.str(), nullptr, false);
      pending_before_set = j.is_object() && j.value("found_mib", 0) == 9000 && j.value("set_mib", 0) == 12000;
    }
  };
  lever::WiredLever lv;
  lv.sysctl = std::move(fake);
  lv.ram = 32 * GiB;
  Folder folder(d.root + "/folder");
  {
    lever::RunHold hold(&lv, s.matrix[0], folder, "01-a");
    EXPECT_EQ(hold.refused(), "");
    EXPECT_EQ(f.value, 12000u);
    EXPECT_TRUE(pending_before_set);
    EXPECT_EQ(hold.restore(), "");
  }
  EXPECT_EQ(f.value, 9000u);
  EXPECT_FALSE(std::filesystem::exists(d.pending()));
  const nlohmann::json j = folder.read_json("lever.json");
  EXPECT_EQ(j["runs"]["01-a"]["found_mib"], 9000);
  EXPECT_EQ(j["runs"]["01-a"]["read_back_mib"], 12000);
  EXPECT_EQ(j["runs"]["01-a"]["restore_read_back_mib"], 9000);
}

TEST(WiredLever, TheDestructorPutsItBackAndAFailedSetChangesNothing) {
  LeverDirs d;
  const Scenario s = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": "50%RAM"}})");
  lever::WiredLever lv;
  auto fake = std::make_unique<FakeSysctl>();
  FakeSysctl& f = *fake;
  lv.sysctl = std::move(fake);
  lv.ram = 16 * GiB;
  Folder folder(d.root + "/folder");
  { lever::RunHold hold(&lv, s.matrix[0], folder, "01-a"); EXPECT_EQ(f.value, 8192u); }  // an early return
  EXPECT_EQ(f.value, 0u);
  f.fail_writes = true;
  lever::RunHold refused(&lv, s.matrix[0], folder, "02-a");
  EXPECT_TRUE(has(refused.refused(), "refused by the fake")) << refused.refused();
  EXPECT_EQ(f.value, 0u);
}

TEST(WiredLeverJournal, TheNextStartPutsBackWhatAKilledWmbenchLeftAndSaysSo) {
  LeverDirs d;
  lever::write_pending({kWiredLimitKey, 0, 12000, "/r/2026-12-05-wired", "runs/01-a", lever::boot_id(), 4242, "t"});
  FakeSysctl f;
  f.value = 12000;
  std::ostringstream err;
  lever::restore_left_over(f, err);
  EXPECT_EQ(f.value, 0u);
  EXPECT_TRUE(has(err.str(), "put iogpu.wired_limit_mb back to 0")) << err.str();
  EXPECT_TRUE(has(err.str(), "pid 4242")) << err.str();
  EXPECT_FALSE(std::filesystem::exists(d.pending()));
  // Nothing pending: nothing said, nothing written.
  std::ostringstream quiet;
  f.value = 777;
  lever::restore_left_over(f, quiet);
  EXPECT_EQ(quiet.str(), "");
  EXPECT_EQ(f.value, 777u);
}

TEST(WiredLeverJournal, AValueFromBeforeARebootOrUnderARunningWmbenchIsLeft) {
  LeverDirs d;
  lever::write_pending({kWiredLimitKey, 0, 12000, "/r/x", "runs/01-a", "another boot", 4242, "t"});
  FakeSysctl f;
  f.value = 5;
  std::ostringstream err;
  lever::restore_left_over(f, err);
  EXPECT_EQ(f.value, 5u);
  EXPECT_TRUE(has(err.str(), "restarted since")) << err.str();
  // A wmbench that holds the lock (running now) puts it back itself.
  lever::write_pending({kWiredLimitKey, 0, 12000, "/r/x", "runs/01-a", lever::boot_id(), 4242, "t"});
  lever::StateLock held;
  std::ostringstream err2;
  lever::restore_left_over(f, err2);
  EXPECT_EQ(f.value, 5u);
  EXPECT_EQ(err2.str(), "");
  EXPECT_THROW(lever::StateLock second, lever::LeverError);
}

TEST(WiredLeverJournal, AHostilePendingFileIsNotObeyed) {
  LeverDirs d;
  std::filesystem::create_directories(d.root + "/state");
  ::chmod((d.root + "/state").c_str(), 0700);
  std::ofstream(d.pending()) << R"({"sysctl": "kern.securelevel", "found_mib": 0, "set_mib": 1, "folder": "x", "boot": "", "pid": 1})";
  FakeSysctl f;
  f.value = 3;
  std::ostringstream err;
  lever::restore_left_over(f, err);
  EXPECT_EQ(f.value, 3u);
  EXPECT_TRUE(has(err.str(), "wmbench puts back only iogpu.wired_limit_mb")) << err.str();
  // A state folder others may write is refused.
  ::chmod((d.root + "/state").c_str(), 0777);
  std::ostringstream err2;
  lever::restore_left_over(f, err2);
  EXPECT_TRUE(has(err2.str(), "writable by others")) << err2.str();
  EXPECT_EQ(f.value, 3u);
}

TEST(WiredLimitModel, PredictSaysLimitIsHighTimesTheWiredLimit) {
  inspect::PredictArgs a;
  a.ram = "16GiB";
  a.free = "10GiB";
  a.wired_limit = "12000";
  std::vector<std::string> w;
  const auto m = inspect::gather(a, w);
  EXPECT_EQ(m.recommended_max, 12000 * MiB);
  ASSERT_TRUE(m.wired_limit_mib);
  mpsmodel::FillPlan plan;
  plan.step = 512 * MiB;
  const auto r = mpsmodel::make_report(m, "built-in", mpsmodel::default_cells(), plan, {});
  for (const auto& p : r.settings)
    if (p.label == "default") {
      EXPECT_EQ(*p.max_allowed, static_cast<uint64_t>(1.7 * 12000 * MiB));
    }
  const std::string text = mpsmodel::render_text(r, false);
  EXPECT_TRUE(has(text, "iogpu.wired_limit_mb=12000")) << text;
  EXPECT_EQ(mpsmodel::render_json(r)["wired_limit_mib"], 12000);
  a.wired_limit = "16384";  // = the RAM
  EXPECT_THROW(inspect::gather(a, w), UnitError);
}

TEST(WiredLimitModel, PredictTakesEachCellsWiredLimit) {
  const Scenario s = parse(R"({"label": "a", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5",
                                "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.5"}, "sysctl": {"iogpu.wired_limit_mb": "50%RAM"}},
                              {"label": "b", "env": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5",
                                "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.5"}})");
  auto cells = inspect::settings_of(s);
  inspect::apply_cell_wired_limits(s, 16 * GiB, cells);
  mpsmodel::PredictInputs m;
  m.ram = 16 * GiB;
  m.recommended_max = 10 * GiB;
  m.free = 12 * GiB;
  mpsmodel::FillPlan plan;
  EXPECT_EQ(*mpsmodel::predict_cell(cells[0], m, plan).max_allowed, 4 * GiB);  // 0.5 x 8192 MiB
  EXPECT_EQ(*mpsmodel::predict_cell(cells[1], m, plan).max_allowed, 5 * GiB);  // 0.5 x the Mac's own
  const Scenario big = parse(R"({"label": "a", "sysctl": {"iogpu.wired_limit_mb": 20000}})");
  auto big_cells = inspect::settings_of(big);
  EXPECT_THROW(inspect::apply_cell_wired_limits(big, 16 * GiB, big_cells), UnitError);
}

TEST(WiredLimitModel, PredictShowsTheRangeOfTheKnownMacsAndWhichFigureItUsed) {
  const auto r = mpsmodel::known_range(16 * GiB);
  ASSERT_GE(r.figures.size(), 4u);
  EXPECT_LT(r.low, r.high);
  const std::string t = mpsmodel::known_range_text(16 * GiB);
  EXPECT_TRUE(has(t, "exo-explore/exo#1672") && has(t, "macOS 15.6") && has(t, "the estimate's")) << t;
  EXPECT_EQ(mpsmodel::known_range_text(20 * GiB), "");
  int wired = 0;
  for (const auto& f : mpsmodel::public_figures()) {
    EXPECT_NE(std::string(f.macos), "");
    EXPECT_NE(std::string(f.source), "");
    if (f.wired_limit_mib) ++wired;
  }
  EXPECT_EQ(wired, 4);  // llmfit#754 12000 and 14000, whichllm#152 26000, ds4#893 114688
  inspect::PredictArgs a;
  a.ram = "16GiB";
  a.free = "10GiB";
  std::vector<std::string> w;
  const auto m = inspect::gather(a, w);
  mpsmodel::FillPlan plan;
  const std::string text = mpsmodel::render_text(mpsmodel::make_report(m, "x", mpsmodel::default_cells(), plan, {}), false);
  EXPECT_TRUE(has(text, "Known Macs: public figures for 16.00 GiB RAM")) << text;
  EXPECT_TRUE(has(text, "used: estimate for 16.00 GiB RAM")) << text;
}

TEST(WiredLimitModel, ExplainSaysTheLimitWithTheSysctl) {
  const char* msg =
      "MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB, max allowed: 18.72 GiB). "
      "Tried to allocate 512.00 MiB on shared pool.";
  ExplainOptions o;
  o.high = 0.5;
  o.high_given = true;
  o.wired_limit_mib = 40000;
  const std::string t = explain_text(parse_error(msg), o);
  EXPECT_TRUE(has(t, "With iogpu.wired_limit_mb=40000")) << t;
  EXPECT_TRUE(has(t, "0.5 x 39.06 GiB = 19.53 GiB")) << t;
  EXPECT_EQ(explain_json(parse_error(msg), o)["wired_limit"]["max_allowed_bytes"], 20000 * MiB);
}

TEST(WiredLimitTune, TheLeverLinesSetRestoreAndSayRebootAndEveryFramework) {
  const std::string t = wired_lever_lines(17 * GiB, 32 * GiB, 0);
  EXPECT_TRUE(has(t, "sudo sysctl iogpu.wired_limit_mb=9216")) << t;  // 0.9 x 17 GiB / 1.7
  EXPECT_TRUE(has(t, "sudo sysctl iogpu.wired_limit_mb=0")) << t;
  EXPECT_TRUE(has(t, "resets at reboot") && has(t, "caps every framework") && has(t, "needs root")) << t;
  EXPECT_TRUE(has(wired_lever_lines(17 * GiB, 32 * GiB, 20000), "sudo sysctl iogpu.wired_limit_mb=20000   (the value found now)"));
  TuneSummary s;
  s.wired_lever = t;
  EXPECT_TRUE(has(tune_answer_text(s), "sudo sysctl iogpu.wired_limit_mb=9216"));
}

}  // namespace

}  // namespace test_wired_limit
