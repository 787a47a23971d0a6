// Issue 22, class C, second round: one bound per input, the same for the writer and every reader
// of a run record and of summary.json; report's memory bounded whatever the run files hold; the
// parser linear in the number of objects; a record that cannot be written anywhere kept.
// The end-to-end cases are tests/integration/test_bounds_round2.cpp.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/env_allowlist.h"
#include "io/files.h"
#include "io/json_input.h"
#include "common/units.h"
#include "results/folder_schema.h"
#include "results/report.h"
#include "results/run_record.h"
#include "results/rescue_record.h"
#include "scenario/scenario.h"
#include "unit_util.h"

namespace test_bounds_round2 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

using wmbt_unit::error_of;
using wmbt_unit::has;
using wmbt_unit::sample_run;

// A temporary folder, removed with everything in it at the end of the test.
struct Tmp {
  std::string path = wmbt_unit::tmpdir("bounds2");
  ~Tmp() { std::filesystem::remove_all(path); }
};

size_t file_bytes(const RunRecord& r) { return to_json(r).dump(2).size() + 1; }

// The writer's record read back by the reader: what `wmbench run` writes, report reads.
RunRecord round_trip(const RunRecord& r) {
  const std::string text = to_json(r).dump(2) + "\n";
  return run_from_json(parse_json_text(text, "runs/01-a.json", kMaxRunRecordBytes), "runs/01-a.json");
}

std::string make_folder(const Tmp& t) {
  const std::string d = t.path + "/f";
  make_dirs(d + "/runs");
  std::vector<std::string> w;
  Scenario sc = parse_scenario(R"({"name": "t", "device": "cpu", "matrix": [{"label": "a"}]})", "s.json", w);
  write_json_atomic(d + "/scenario.json", to_json(sc));
  write_json_atomic(d + "/machine.json", {{"device", "cpu"}, {"os", "Linux"}, {"ram_bytes", 8 * GiB},
                                          {"started_utc", "2026-12-01T10:00:00Z"}, {"ended_utc", "2026-12-01T10:01:00Z"}});
  return d;
}

}  // namespace

TEST(BoundsRound2, ARealRecordIsLeftAsItIs) {
  RunRecord r = sample_run(1, "a");
  r.warnings = {"child: a warning"};
  r.stages = nlohmann::json::array({{{"type", "stage"}, {"name", "alloc"}, {"held_bytes", 1}, {"t", 0.5}}});
  const nlohmann::json before = to_json(r);
  EXPECT_FALSE(fit_run_record(r));
  EXPECT_EQ(to_json(r), before);
  EXPECT_EQ(to_json(round_trip(r)), before);
}

TEST(BoundsRound2, TheWriterCutsARecordToWhatEveryReaderAccepts) {
  RunRecord r = sample_run(1, "a");
  nlohmann::json stages = nlohmann::json::array();
  for (int i = 0; i < 1500; ++i) stages.push_back({{"type", "stage"}, {"name", "s"}, {"held_bytes", i}});
  r.stages = stages;
  for (int i = 0; i < 300; ++i) r.warnings.push_back(std::string(5000, 'w'));
  r.detail = std::string(200 << 10, 'd');
  r.error_text = std::string(200 << 10, 'e');
  ASSERT_TRUE(fit_run_record(r));
  EXPECT_EQ(r.stages.size(), kMaxRecordStages);
  EXPECT_LE(r.warnings.size(), kMaxRecordWarnings);
  EXPECT_TRUE(has(r.warnings.back(), "was cut")) << r.warnings.back();
  EXPECT_LE(r.detail.size(), kMaxRecordTextBytes);
  EXPECT_LE(file_bytes(r), kMaxRunRecordBytes);
  EXPECT_EQ(r.held_bytes, 128 * MiB) << "the measurement is never cut";
  EXPECT_EQ(r.stopped_by, "cap");
  const std::string e = error_of([&] { round_trip(r); });
  EXPECT_EQ(e, "") << "the reader accepts what the writer wrote";
}

TEST(BoundsRound2, StagesAtTheirBoundsWithEscapesStillFitTheFile) {
  // Every stage at the schema's bounds, each string of control characters (six bytes each in
  // JSON): far more than the file's bound until the writer cuts.
  RunRecord r = sample_run(1, "a");
  nlohmann::json stages = nlohmann::json::array();
  const std::string controls(kMaxStageStringBytes, '\x01');
  for (size_t i = 0; i < kMaxRecordStages; ++i) {
    nlohmann::json st = {{"name", controls}};
    for (size_t k = 1; k < kMaxStageKeys; ++k) st[std::string(60, 'k') + std::to_string(k)] = controls;
    stages.push_back(st);
  }
  r.stages = stages;
  ASSERT_GT(file_bytes(r), kMaxRunRecordBytes) << "the case is over the bound before the cut";
  ASSERT_TRUE(fit_run_record(r));
  EXPECT_LE(file_bytes(r), kMaxRunRecordBytes);
  EXPECT_EQ(error_of([&] { round_trip(r); }), "");
}

TEST(BoundsRound2, TheReaderRefusesWhatNoWriterWrites) {
  auto refused = [](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = to_json(sample_run(1, "a"));
    edit(j);
    return error_of([&] { run_from_json(j, "runs/01-a.json"); });
  };
  EXPECT_TRUE(has(refused([](nlohmann::json& j) {
    j["stages"] = nlohmann::json::array();
    for (size_t i = 0; i <= kMaxRecordStages; ++i) j["stages"].push_back({{"name", "a"}});
  }), "at most 1000")) << "stages";
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["warnings"] = std::vector<std::string>(kMaxRecordWarnings + 1, ""); }),
                  "at most 200"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["warnings"] = {std::string(kMaxRecordWarningBytes + 1, 'w')}; }),
                  "warnings[0]"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["stages"] = {{{"name", "a"}, {"more", {1, 2}}}}; }), "stages[0].more"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) {
    nlohmann::json st = {{"name", "a"}};
    for (size_t k = 0; k < kMaxStageKeys; ++k) st["k" + std::to_string(k)] = 1;
    j["stages"] = {st};
  }), "at most 16"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["stages"] = {{{"name", "a"}, {"x", std::string(300, 'x')}}}; }), "stages[0].x"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["detail"] = std::string(kMaxRecordTextBytes + 1, 'd'); }), "detail"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["error_text"] = std::string(kMaxRecordTextBytes + 1, 'e'); }), "error_text"));
  EXPECT_TRUE(has(refused([](nlohmann::json& j) { j["env"] = {{"PYTORCH_X", std::string(kMaxCellEnvValueBytes + 1, 'v')}}; }),
                  "PYTORCH_X"));
  EXPECT_EQ(refused([](nlohmann::json& j) { j["env"] = {{"PYTORCH_X", std::string(kMaxCellEnvValueBytes, 'v')}}; }), "")
      << "the scenario's largest value is a record's too";
}

TEST(BoundsRound2, ASummaryOverItsReadersBoundIsNeverWrittenAndTheOtherFilesAre) {
  Tmp t;
  Report rep;
  rep.dir = make_folder(t);
  rep.scenario = {{"name", "t"}};
  // 600 records of one 60 KiB env value each: 36 MB together, every record well within its own bound.
  for (int i = 1; i <= 600; ++i) {
    RunRecord r = sample_run(i, "a");
    r.repeat = 1;
    r.env = {{"PYTORCH_X", std::string(60 << 10, 'v')}};
    rep.runs.push_back(r);
  }
  const std::string e = error_of([&] { make_summary_exporter()->render(rep); });
  EXPECT_TRUE(has(e, "summary.json")) << e;
  EXPECT_TRUE(has(e, std::to_string(kMaxFolderJsonBytes))) << e;
  const std::string w = error_of([&] { write_report(rep); });
  EXPECT_TRUE(has(w, "summary.json")) << w;
  struct stat st {};
  EXPECT_NE(::stat((rep.dir + "/summary.json").c_str(), &st), 0) << "no summary that its readers refuse";
  EXPECT_EQ(::stat((rep.dir + "/table.md").c_str(), &st), 0) << "the other files are still written";
}

TEST(BoundsRound2, ReportStopsReadingRunFilesPastWhatASummaryCanHold) {
  Tmp t;
  const std::string d = make_folder(t);
  // Six run files of about 6 MiB each (a hundred 60 KiB env values): each under the record's
  // bound, 36 MiB together.
  std::map<std::string, std::string> env;
  for (int k = 0; k < 100; ++k) env["PYTORCH_X" + std::to_string(k)] = std::string(60 << 10, 'v');
  for (int i = 1; i <= 6; ++i) {
    RunRecord r = sample_run(i, "a");
    r.repeat = i;
    r.env = env;
    write_json_atomic(d + "/runs/" + r.file_stem() + "-" + std::to_string(i) + ".json", to_json(r));
  }
  Report rep = load_report(d);
  std::string problems;
  for (const auto& p : rep.problems) problems += p + "\n";
  EXPECT_TRUE(has(problems, "more than " + std::to_string(kMaxFolderJsonBytes))) << problems;
  EXPECT_EQ(rep.runs.size(), 5u);
  write_report(rep);
  const nlohmann::json s = parse_json_text(Folder(d).read("summary.json", kMaxFolderJsonBytes), "summary.json", kMaxFolderJsonBytes);
  EXPECT_EQ(check_summary_json(s, "summary.json").runs.size(), 5u) << "the summary written is one its readers accept";
}

TEST(BoundsRound2, TheParserIsLinearInTheObjectsOfAnArray) {
  // nlohmann's parser callback scanned the whole array after each object: two million objects
  // never finished. ctest's timeout is what fails a quadratic parse here.
  std::string text = "[";
  for (int i = 0; i < 2000000; ++i) text += i ? ",{\"a\":1}" : "{\"a\":1}";
  text += "]";
  const nlohmann::json j = parse_json_text(text, "big.json", text.size());
  EXPECT_EQ(j.size(), 2000000u);
  const std::string e = error_of([] { parse_json_text("{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2}}", "d.json", 1000); });
  EXPECT_TRUE(has(e, "d.json:2:")) << e;
  EXPECT_TRUE(has(e, "duplicate key \"c\"")) << e;
  EXPECT_EQ(error_of([] { parse_json_text("[{\"c\": 1}, {\"c\": 2}]", "d.json", 1000); }), "") << "one key in each object";
}

TEST(BoundsRound2, ARecordNoFolderPlaceTakesGoesToTheTempFolder) {
  Tmp t;
  const std::string d = t.path + "/f";
  make_dirs(d + "/runs");
  Folder f(d);
  // Every place in and beside the folder is a folder already: each write there fails.
  make_dirs(d + "/runs/01-a.json.rescued");
  make_dirs(d + "/01-a.json.rescued");
  make_dirs(t.path + "/f.01-a.json.rescued");
  const std::string tmp = t.path + "/tmp";
  make_dirs(tmp);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  std::string why;
  const std::string put = rescue_record(f, "01-a", to_json(sample_run(1, "a")), why);
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  ASSERT_FALSE(put.empty()) << why;
  EXPECT_EQ(put.rfind(tmp + "/wmbench-rescued-f-01-a-", 0), 0u) << put;
  const nlohmann::json back = read_json_file(put);
  EXPECT_EQ(back["label"], "a");
  EXPECT_EQ(back["held_bytes"], 128 * MiB);
  EXPECT_TRUE(has(rescue_record_text(to_json(sample_run(1, "a"))), "\"held_bytes\":134217728"));
}

}  // namespace test_bounds_round2
