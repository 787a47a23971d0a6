#include <gtest/gtest.h>
#include "../scratch_dir.h"

#include <cmath>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "io/files.h"
#include "io/json_input.h"
#include "common/units.h"
#include "results/report.h"
#include "verdict/classify.h"
#include "spawn/process.h"

namespace test_classify_report {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {
SuperviseResult ended(std::optional<int> code, std::optional<int> sig = std::nullopt) {
  SuperviseResult r;
  r.status.code = code;
  r.status.signal = sig;
  return r;
}
ChildReport with_error(const std::string& text) {
  ChildReport c;
  c.error_text = text;
  c.error_exception = "c10::Error";
  return c;
}
std::string tmpdir() { return wmbt_scratch::new_dir("test"); }
}  // namespace

TEST(Classify, EveryStopClass) {
  ChildReport none;
  SuperviseResult g = ended(std::nullopt, SIGTERM);
  g.stopper = Stopper::Guard;
  g.reason = "swap grew";
  EXPECT_EQ(classify(g, none).stopped_by, "guard");
  g.stopper = Stopper::Timeout;
  EXPECT_EQ(classify(g, none).stopped_by, "timeout");
  g.stopper = Stopper::Interrupted;
  EXPECT_EQ(classify(g, none).stopped_by, "interrupted");

  auto c = classify(ended(3), with_error("invalid low watermark ratio 1.4"));
  EXPECT_EQ(c.stopped_by, "config");
  EXPECT_NE(c.detail.find("invalid low watermark ratio 1.4"), std::string::npos);

  auto p = classify(ended(3), with_error("MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB, "
                                         "max allowed: 18.72 GiB). Tried to allocate 512.00 MiB on shared pool."));
  EXPECT_EQ(p.stopped_by, "pytorch");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->max_allowed_bytes, static_cast<uint64_t>(std::llround(18.72 * GiB)));

  auto cpu = classify(ended(3), with_error("[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate "
                                           "memory: you tried to allocate 268435456 bytes. Error code 12 (Cannot allocate memory)"));
  EXPECT_EQ(cpu.stopped_by, "pytorch");

  ChildReport cap;
  cap.done_reason = "cap";
  cap.steps = 8;
  EXPECT_EQ(classify(ended(0), cap).stopped_by, "cap");

  auto k = classify(ended(std::nullopt, SIGKILL), none);
  EXPECT_EQ(k.stopped_by, "crash");
  EXPECT_NE(k.detail.find("SIGKILL"), std::string::npos);
  EXPECT_EQ(classify(ended(1), none).stopped_by, "crash");
  EXPECT_EQ(classify(ended(3), with_error("something else entirely")).stopped_by, "crash");
  ChildReport usage = with_error("--step: size \"abc\" is not a number");
  usage.error_exception = "usage";
  EXPECT_EQ(classify(ended(2), usage).stopped_by, "config");
}

TEST(ChildEnvironment, DropsEveryWatermarkVariableOfTheParent) {
  std::map<std::string, std::string> parent = {{"PATH", "/bin"},
                                               {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.3"},
                                               {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.3"},
                                               {"PYTORCH_MPS_FAST_MATH", "1"},
                                               {"PYTORCH_CUDA_ALLOC_CONF", "per_process_memory_fraction:0.1"},
                                               {"PYTORCH_ENABLE_MPS_FALLBACK", "1"}};
  auto env = child_environment(parent, {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}});
  EXPECT_EQ(env.at("PYTORCH_MPS_HIGH_WATERMARK_RATIO"), "0.8");
  EXPECT_EQ(env.count("PYTORCH_MPS_LOW_WATERMARK_RATIO"), 0u);
  EXPECT_EQ(env.count("PYTORCH_MPS_FAST_MATH"), 0u);
  EXPECT_EQ(env.count("PYTORCH_CUDA_ALLOC_CONF"), 0u);
  EXPECT_EQ(env.at("PYTORCH_ENABLE_MPS_FALLBACK"), "1");
  EXPECT_EQ(env.at("PATH"), "/bin");
}

TEST(ResultDir, NeverTouchesAnExistingFolder) {
  const std::string out = tmpdir();
  const std::string a = create_result_dir(out, "2026-10-13", "mps-watermark");
  EXPECT_EQ(a, out + "/2026-10-13-mps-watermark");
  write_file_atomic(a + "/marker", "first");
  const std::string b = create_result_dir(out, "2026-10-13", "mps-watermark");
  EXPECT_EQ(b, out + "/2026-10-13-mps-watermark-2");
  EXPECT_EQ(create_result_dir(out, "2026-10-13", "mps-watermark"), out + "/2026-10-13-mps-watermark-3");
  EXPECT_EQ(read_file(a + "/marker"), "first");
}

TEST(AtomicWrite, FailureLeavesTheOldFileIntact) {
  const std::string d = tmpdir();
  write_file_atomic(d + "/r.json", "old");
  ::chmod(d.c_str(), 0555);
  if (::geteuid() == 0) {
    // root ignores permissions: use a path whose folder does not exist instead.
    EXPECT_THROW(write_file_atomic(d + "/missing/r.json", "new"), FileError);
  } else {
    EXPECT_THROW(write_file_atomic(d + "/r.json", "new"), FileError);
  }
  ::chmod(d.c_str(), 0755);
  EXPECT_EQ(read_file(d + "/r.json"), "old");
}

TEST(AtomicWrite, AWriteErrorIsNamedAndTheOldFileSurvives) {
  // A full disk and a file-size limit fail the same write(2); RLIMIT_FSIZE makes it happen here
  // without filling a disk (EFBIG, "File too large"; SIGXFSZ ignored so that write returns).
  const std::string d = tmpdir();
  write_file_atomic(d + "/r.json", "old");
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  auto prev = ::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string err;
  try {
    write_file_atomic(d + "/r.json", std::string(1 << 16, 'x'));
  } catch (const FileError& e) {
    err = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, prev);
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  EXPECT_EQ(read_file(d + "/r.json"), "old");
}

TEST(AtomicWrite, APlantedLinkAtTheOldTemporaryNameIsNotFollowed) {
  // Before: the temporary file was PATH.tmp.<pid>, opened with O_CREAT|O_TRUNC; a link planted
  // there (as root: to any file) was written through. Now the name is fresh and O_EXCL|O_NOFOLLOW.
  if (!path_exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string d = tmpdir();
  write_file_atomic(d + "/r.json", "old");
  const std::string tmp = d + "/r.json.tmp." + std::to_string(::getpid());
  ASSERT_EQ(::symlink("/dev/full", tmp.c_str()), 0);
  EXPECT_NO_THROW(write_file_atomic(d + "/r.json", std::string(1 << 16, 'x')));
  EXPECT_EQ(read_file(d + "/r.json").size(), size_t{1} << 16);
}

TEST(Report, RebuildsSummaryTableAndCsvFromRunFiles) {
  const std::string d = create_result_dir(tmpdir(), "2026-10-13", "t");
  nlohmann::json scenario = {{"name", "t"}, {"device", "cpu"}, {"repeats", 3},
                             {"matrix", {{{"label", "a"}, {"env", nlohmann::json::object()}},
                                         {{"label", "b"}, {"env", {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}}}}}}};
  write_json_atomic(d + "/scenario.json", scenario);
  write_json_atomic(d + "/machine.json", {{"device", "cpu"}, {"ram_bytes", 48 * GiB}, {"torch_version", "1.13.1"}});
  uint64_t held[] = {30 * GiB, 32 * GiB, 31 * GiB};
  for (int rep = 1; rep <= 3; ++rep) {
    RunRecord r;
    r.index = (rep - 1) * 2 + 1;
    r.label = "a";
    r.repeat = rep;
    r.stopped_by = "guard";
    r.held_bytes = held[rep - 1];
    r.swap_before_bytes = 1 * GiB;
    r.swap_after_bytes = 3 * GiB;
    r.swap_peak_bytes = 3 * GiB;
    write_json_atomic(d + "/runs/" + r.file_stem() + ".json", to_json(r));
  }
  RunRecord b;
  b.index = 2;
  b.label = "b";
  b.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}};
  b.stopped_by = "config";
  b.error_text = "invalid low watermark ratio 1.4";
  write_json_atomic(d + "/runs/" + b.file_stem() + ".json", to_json(b));
  Report rep = load_report(d);
  ASSERT_EQ(rep.runs.size(), 4u);
  ASSERT_EQ(rep.not_run.size(), 2u) << "b repeats 2 and 3 have no file";
  write_report(rep);
  const std::string table = read_file(d + "/table.md");
  EXPECT_NE(table.find("guard x3"), std::string::npos) << table;
  EXPECT_NE(table.find("31.00 GiB (30.00 GiB - 32.00 GiB), 3 runs"), std::string::npos) << table;
  EXPECT_NE(table.find("config: invalid low watermark ratio 1.4"), std::string::npos) << table;
  EXPECT_NE(table.find("HIGH 0.8, LOW unset (1.4)"), std::string::npos) << table;
  EXPECT_NE(table.find("not run"), std::string::npos) << table;
  // The findings name each setting once (three runs of `a` are one setting), in words for one.
  const std::string readme = read_file(d + "/README.md");
  EXPECT_NE(readme.find("- `a` slid into swap until the guard stopped it (no error from PyTorch).\n"), std::string::npos)
      << readme;
  EXPECT_NE(readme.find("- `b` was refused by PyTorch at the first allocation (bad settings).\n"), std::string::npos)
      << readme;
  auto summary = read_json_file(d + "/summary.json");
  EXPECT_EQ(summary["schema_version"], 1);
  EXPECT_EQ(summary["runs"].size(), 4u);
  EXPECT_EQ(summary["not_run"].size(), 2u);
  const std::string csv = read_file(d + "/results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_NE(csv.find("\"HIGH 0.8, LOW unset (1.4)\""), std::string::npos) << csv;
}

// summary.json and table.md give machine.json's device; when scenario.json or run files name
// another, report's note says which it believed and who disagrees (check names each file too).
TEST(Report, SaysWhichDeviceItBelievedWhenTheFilesDisagree) {
  const std::string d = create_result_dir(tmpdir(), "2026-10-13", "t");
  nlohmann::json scenario = {{"name", "t"}, {"device", "cpu"}, {"repeats", 1},
                             {"matrix", {{{"label", "a"}, {"env", nlohmann::json::object()}},
                                         {{"label", "b"}, {"env", nlohmann::json::object()}}}}};
  write_json_atomic(d + "/scenario.json", scenario);
  write_json_atomic(d + "/machine.json", {{"device", "cpu"}, {"ram_bytes", 48 * GiB}, {"torch_version", "1.13.1"}});
  for (int i = 1; i <= 2; ++i) {
    RunRecord r;
    r.index = i;
    r.label = i == 1 ? "a" : "b";
    r.device = "cpu";
    r.stopped_by = "finished";
    write_json_atomic(d + "/runs/" + r.file_stem() + ".json", to_json(r));
  }
  auto device_notes = [&] { return device_disagreement(load_report(d)).value_or(""); };
  EXPECT_EQ(device_notes(), "") << "files that agree need no note";
  // A run file and scenario.json edited to another device.
  auto run = read_json_file(d + "/runs/02-b.json");
  run["device"] = "mps";
  write_json_atomic(d + "/runs/02-b.json", run);
  scenario["device"] = "cuda";
  write_json_atomic(d + "/scenario.json", scenario);
  EXPECT_EQ(device_notes(), d + ": its files disagree on the device: summary.json and table.md give machine.json's "
                                "\"cpu\", but scenario.json says \"cuda\" and 1 run file says \"mps\" (runs/02-b.json); "
                                "compare and history refuse the folder until its files agree (`wmbench check` names "
                                "each file)");
  write_report(load_report(d));
  EXPECT_EQ(read_json_file(d + "/summary.json")["device"], "cpu");
}

TEST(Report, NotAResultFolderIsAClearError) {
  try {
    load_report("/nonexistent/folder");
    FAIL();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("not a folder"), std::string::npos);
  }
  const std::string d = tmpdir();
  EXPECT_THROW(load_report(d), FileError);
}

TEST(Report, TheTableNamesAMemoryFractionCellsSetting) {
  // A cell that sets the limit the way code does ("memory_fraction") is named by it, alone or
  // beside the variables, never as "default".
  RunRecord alone;
  alone.index = 1;
  alone.label = "fraction-0.1";
  alone.memory_fraction = 0.1;
  alone.stopped_by = "pytorch";
  RunRecord both = alone;
  both.index = 2;
  both.label = "env-and-fraction";
  both.env = {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}};
  both.memory_fraction = 0.8;
  Report rep;
  rep.runs = {alone, both};
  const std::string table = make_table_exporter()->render(rep);
  EXPECT_NE(table.find("`fraction-0.1` (memory_fraction 0.1)"), std::string::npos) << table;
  EXPECT_NE(table.find("(HIGH 0.8, LOW unset (1.4), memory_fraction 0.8)"), std::string::npos) << table;
  EXPECT_EQ(table.find("(default)"), std::string::npos) << table;
}

// Issue 41: the kernel's OOM killer is `kernel`; a SIGKILL without an OOM kill stays a crash.
TEST(Classify, AnOomKillOfTheSandboxIsKernel) {
  ChildReport none;
  SuperviseResult k = ended(std::nullopt, SIGKILL);
  k.oom_kills = 1;
  const Classification c = classify(k, none);
  EXPECT_EQ(c.stopped_by, "kernel");
  EXPECT_NE(c.detail.find("the kernel's OOM killer"), std::string::npos) << c.detail;
  k.oom_kills = 0;
  EXPECT_EQ(classify(k, none).stopped_by, "crash");
  k.oom_kills.reset();
  EXPECT_EQ(classify(k, none).stopped_by, "crash") << "no sandbox: not known, not claimed";
}

// Issue 41: guard_signal and the kernel peak in the table, README and CSV; a record written
// before the keys still reads as it did.
TEST(Report, SaysTheGuardSignalTheKernelClassAndThePeaksSource) {
  const std::string d = create_result_dir(tmpdir(), "2026-12-05", "t");
  nlohmann::json scenario = {{"name", "t"}, {"device", "cpu"}, {"repeats", 1},
                             {"matrix", {{{"label", "a"}, {"env", nlohmann::json::object()}},
                                         {{"label", "b"}, {"env", nlohmann::json::object()}},
                                         {{"label", "c"}, {"env", nlohmann::json::object()}}}}};
  write_json_atomic(d + "/scenario.json", scenario);
  write_json_atomic(d + "/machine.json", {{"device", "cpu"}, {"ram_bytes", 8 * GiB}, {"torch_version", "1.13.1"}});
  RunRecord a;
  a.index = 1;
  a.label = "a";
  a.stopped_by = "guard";
  a.guard_signal = "pressure";
  a.peak_footprint_bytes = 3 * GiB;
  a.peak_footprint_source = "kernel";
  a.sampled_peak_footprint_bytes = 2 * GiB;
  write_json_atomic(d + "/runs/" + a.file_stem() + ".json", to_json(a));
  RunRecord b;
  b.index = 2;
  b.label = "b";
  b.stopped_by = "kernel";
  b.detail = "killed by the kernel's OOM killer";
  write_json_atomic(d + "/runs/" + b.file_stem() + ".json", to_json(b));
  RunRecord c;
  c.index = 3;
  c.label = "c";
  c.stopped_by = "guard";
  nlohmann::json old = to_json(c);
  for (const char* k : {"guard_signal", "peak_footprint_source", "sampled_peak_footprint_bytes"}) old.erase(k);
  write_json_atomic(d + "/runs/" + c.file_stem() + ".json", old);
  Report rep = load_report(d);
  ASSERT_EQ(rep.runs.size(), 3u);
  EXPECT_EQ(rep.runs[0].guard_signal, "pressure");
  EXPECT_EQ(rep.runs[0].peak_footprint_source, "kernel");
  EXPECT_EQ(rep.runs[2].guard_signal, "") << "a record from before the key";
  write_report(rep);
  const std::string table = read_file(d + "/table.md");
  EXPECT_NE(table.find("guard (memory pressure)"), std::string::npos) << table;
  EXPECT_NE(table.find("kernel (OOM killer)"), std::string::npos) << table;
  EXPECT_NE(table.find("| 3.00 GiB |"), std::string::npos) << "the kernel's peak, not the samples'\n" << table;
  const std::string readme = read_file(d + "/README.md");
  EXPECT_NE(readme.find("- `a` was stopped by the guard on memory pressure before swap grew past its budget"),
            std::string::npos)
      << readme;
  EXPECT_NE(readme.find("- `b` was killed by the kernel's OOM killer, not by wmbench.\n"), std::string::npos) << readme;
  EXPECT_NE(readme.find("- `c` slid into swap until the guard stopped it"), std::string::npos) << readme;
  EXPECT_NE(readme.find("the kernel's own peak for 1 runs"), std::string::npos) << readme;
  const std::string csv = read_file(d + "/results.csv");
  EXPECT_NE(csv.find(",guard_signal,peak_footprint_source\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",pressure,kernel\n"), std::string::npos) << csv;
  nlohmann::json bad = to_json(a);
  bad["guard_signal"] = "vibes";
  EXPECT_THROW(run_from_json(bad, "runs/01-a.json"), InputError);
}

}  // namespace test_classify_report
