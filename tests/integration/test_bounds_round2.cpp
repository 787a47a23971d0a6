// Issue 22, class C ("unbounded"), second round, end to end with the real binaries: a hostile run
// file cannot make `report` hold gigabytes nor write a summary its readers refuse; a job's stderr
// flood is cut with a note while its own files are not limited; on a full disk the finished run's
// record is kept elsewhere and the terminal says where. The pure pieces: tests/unit/test_bounds_round2.cpp.
#include <gtest/gtest.h>

#if defined(__linux__)
#include <sys/mount.h>  // mount(2) with data, umount2: Linux only
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli_util.h"

namespace test_bounds_round2 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

// A copy of a committed result folder (tests/data/example-results): no fill child needed.
std::string example_folder(const std::string& t) {
  const std::string dir = t + "/2026-10-13-mps-watermark";
  std::filesystem::copy(std::string(WMBENCH_TEST_DATA) + "/example-results/2026-10-13-mps-watermark", dir,
                        std::filesystem::copy_options::recursive);
  return dir;
}

// runs/01-default.json with `key` set to `n` copies of `item` (written as text: fast, and exactly the
// file a hostile contributor would make). The record is the committed folder's own: reading back an
// earlier plant's 25 MB file took this (-O0) test 8 s of CPU (issue 44).
void plant(const std::string& dir, const std::string& key, const std::string& item, size_t n) {
  nlohmann::json rec =
      read_json(std::string(WMBENCH_TEST_DATA) + "/example-results/2026-10-13-mps-watermark/runs/01-default.json");
  rec.erase("warnings");  // as before: the record without either list, then the one planted
  rec.erase("stages");
  std::string text = rec.dump();
  text.pop_back();  // the closing brace
  text += ",\"" + key + "\":[";
  text.reserve(text.size() + n * (item.size() + 1) + 4);
  for (size_t i = 0; i < n; ++i) {
    if (i) text += ',';
    text += item;
  }
  text += "]}";
  write(dir + "/runs/01-default.json", text);
}

RunOpts limited() {
  RunOpts o;
  // main held 1.6 GB for the 25 MB file and aborted under 1.5 GB.
  if (address_space_limit_unusable().empty()) o.rlimit_as = 1536ull << 20;
  o.timeout = 300;
  return o;
}

std::string job_scenario(const std::string& dir) {
  return scenario(dir, "job", R"({"name": "job", "device": "cpu", "timeout": "60s", "matrix": [{"label": "a"}]})");
}

}  // namespace

TEST(BoundsRound2C, AHostileRunFileCannotMakeReportUnboundedNorWriteASummaryItsReadersRefuse) {
  Tmp t;
  const std::string dir = example_folder(t.path);
  auto before = wmbench({"check", dir});
  ASSERT_FALSE(has(before.out + before.err, "summary.json")) << before.out << before.err;
  // The issue's case: 25 MB of empty warnings (8.3 million), under the old 32 MiB bound.
  plant(dir, "warnings", "\"\"", 8300000);
  auto r = wmbench({"report", "-q", dir}, limited());
  EXPECT_EQ(r.status, 1) << r.err.substr(0, 2000);
  EXPECT_TRUE(has(r.err, "runs/01-default.json")) << r.err.substr(0, 2000);
  EXPECT_TRUE(has(r.err, "8388608")) << "the bound is named: " << r.err.substr(0, 2000);
  auto c = wmbench({"check", dir}, limited());
  EXPECT_NE(c.status, 0) << "check flags the file";
  EXPECT_LT(c.status, 128) << c.err;
  EXPECT_TRUE(has(c.out + c.err, "runs/01-default.json")) << c.out << c.err;
  EXPECT_FALSE(has(c.out + c.err, "summary.json")) << "the summary written is one check accepts: " << c.out << c.err;

  // Under the file's bound, over the record's: 600,000 one-key stages (7.8 MB).
  plant(dir, "stages", "{\"name\":\"a\"}", 600000);
  r = wmbench({"report", "-q", dir}, limited());
  EXPECT_EQ(r.status, 1) << r.err.substr(0, 2000);
  EXPECT_TRUE(has(r.err, "600000 stages")) << r.err.substr(0, 2000);
  EXPECT_TRUE(has(r.err, "at most 1000")) << r.err.substr(0, 2000);
  c = wmbench({"check", dir}, limited());
  EXPECT_FALSE(has(c.out + c.err, "summary.json")) << c.out << c.err;
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/summary.json").c_str(), &st), 0);
  EXPECT_LT(static_cast<uint64_t>(st.st_size), 1u << 20) << "the left-out record is not in the summary";
}

TEST(BoundsRound2C, AJobsStderrFloodIsCutWithANoteAndTheJobsOwnFilesAreNotLimited) {
  Tmp t;
  // 20 MiB of stderr (over the fill child's 16 MiB log bound too), and a 20 MiB file of the job's
  // own: RLIMIT_FSIZE, the fill child's bound, made that write fail with EFBIG for a job.
  const std::string own = t.path + "/checkpoint.bin";
  const auto job = script(t.path, "flood.sh",
                          "#!/bin/sh\nhead -c 20971520 /dev/zero | tr '\\0' 'x' >&2\necho >&2\necho 'the end' >&2\n"
                          "head -c 20971520 /dev/zero > " + own + " || exit 9\nexit 0\n");
  auto r = wmbench({"run", job_scenario(t.path), "--command", "--no-plots", "--out", t.path + "/out", "--", job});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  ASSERT_TRUE(file_exists(dir + "/runs/01-a.json")) << r.err;
  const auto rec = read_json(dir + "/runs/01-a.json");
  EXPECT_EQ(rec["stopped_by"], "finished") << rec.dump(2);
  EXPECT_EQ(rec["exit_code"], 0) << rec.dump(2);
  struct stat st {};
  ASSERT_EQ(::stat(own.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 20971520) << "the job's own file is whole";
  const std::string log = slurp(dir + "/runs/01-a.stderr.log");
  EXPECT_LT(log.size(), (1u << 20) + (256u << 10) + 4096) << "the log is cut";
  EXPECT_TRUE(has(log, "[wmbench: ")) << "with a note where";
  EXPECT_TRUE(has(log, "bytes left out here")) << log.substr(log.size() > 300000 ? log.size() - 300000 : 0, 200);
  EXPECT_TRUE(has(log, "the end")) << "the tail is kept";
  EXPECT_EQ(wmbench({"check", dir}).status, 0) << "the folder is one wmbench reads";
}

TEST(BoundsRound2C, AFillChildsStderrFloodIsCutAtItsBoundWithANoteAndTheRunKeepsItsClass) {
  Tmp t;
  // This build's fill child behind a wrapper that first writes 20 MiB to its stderr (the log
  // file, under the 16 MiB RLIMIT_FSIZE); the probe (--hello-only) is let through as it is.
  const std::string real = WMBENCH_FILL_BIN;
  const std::string fill = script(t.path, "flooding-fill",
                                  "#!/bin/sh\ncase \"$*\" in *--hello-only*) exec " + real + " \"$@\";; esac\n"
                                  "head -c 20971520 /dev/zero | tr '\\0' 'x' >&2\nexec " + real + " \"$@\"\n");
  const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "mps-model", "step": "4MiB", "cap": "8MiB",
    "timeout": "120s", "matrix": [{"label": "a"}]})");
  RunOpts o;
  o.set_env["WMBENCH_FILL"] = fill;
  o.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";  // the model in wmbench-fill itself (cli_util.h)
  o.timeout = 300;
  auto r = run({WMBENCH_BIN, "run", sc, "--out", t.path + "/out", "--no-plots"}, o);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  ASSERT_TRUE(file_exists(dir + "/runs/01-a.json")) << r.err;
  const auto rec = read_json(dir + "/runs/01-a.json");
  EXPECT_EQ(rec["stopped_by"], "cap") << rec.dump(2);
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/runs/01-a.stderr.log").c_str(), &st), 0);
  EXPECT_GE(static_cast<uint64_t>(st.st_size), 16u << 20) << "kept up to the bound";
  EXPECT_LT(static_cast<uint64_t>(st.st_size), (16u << 20) + 4096) << "and no further";
  const std::string log = slurp(dir + "/runs/01-a.stderr.log");
  EXPECT_TRUE(has(log.substr(log.size() - 200), "[wmbench: this log was cut here")) << log.substr(log.size() - 200);
  bool warned = false;
  for (const auto& w : rec["warnings"]) warned = warned || has(w.get<std::string>(), "stderr log was cut");
  EXPECT_TRUE(warned) << rec.dump(2);
  EXPECT_EQ(wmbench({"check", dir}).status, 0);
}

TEST(BoundsRound2C, OnAFullDiskTheFinishedRunsRecordIsKeptElsewhereAndTheTerminalSaysWhere) {
#if !defined(__linux__)
  GTEST_SKIP() << "a small tmpfs (a real full filesystem) is mounted with Linux's mount(2)";
#else
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs (a real full filesystem) needs root";
  Tmp t;
  const std::string mnt = t.path + "/small";
  ASSERT_EQ(::mkdir(mnt.c_str(), 0755), 0);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=4m") != 0)
    GTEST_SKIP() << "mount -t tmpfs -o size=4m failed: " << std::strerror(errno) << " (no CAP_SYS_ADMIN here)";
  struct Unmount {
    std::string p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{mnt};
  const std::string tmp = t.path + "/tmp";
  ASSERT_EQ(::mkdir(tmp.c_str(), 0755), 0);
  // The job fills the filesystem its result folder is on, then finishes well.
  const auto job = script(t.path, "fill-disk.sh", "#!/bin/sh\nhead -c 16777216 /dev/zero > " + mnt + "/filler 2>/dev/null\nexit 0\n");
  RunOpts o;
  o.set_env["TMPDIR"] = tmp;
  o.timeout = 300;
  auto r = wmbench({"run", job_scenario(t.path), "--command", "--no-plots", "--out", mnt + "/out", "--", job}, o);
  EXPECT_NE(r.status, 0) << "the run could not write its record where it belongs";
  EXPECT_LT(r.status, 128) << r.err;
  std::string rescued;
  for (const auto& e : std::filesystem::directory_iterator(tmp)) rescued = e.path().string();
  ASSERT_FALSE(rescued.empty()) << r.err;
  EXPECT_TRUE(has(r.err, rescued)) << "the terminal says where: " << r.err;
  const auto rec = read_json(rescued);
  EXPECT_EQ(rec["label"], "a");
  EXPECT_EQ(rec["stopped_by"], "finished") << rec.dump(2);
  EXPECT_EQ(rec["exit_code"], 0);
#endif
}

}  // namespace test_bounds_round2
