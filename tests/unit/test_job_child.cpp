// The command child's pure parts: who stopped a job (verdict/classify_job.h), its bounded logs
// (child/job_output.h), and the refusal of a program that cannot run (child/child_command.h).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "child/child_command.h"
#include "verdict/classify_job.h"
#include "child/job_output.h"
#include "child/job_watch.h"
#include "common/run_error.h"
#include "unit_util.h"

namespace test_job_child {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

SuperviseResult exited(int code) {
  SuperviseResult r;
  r.status.code = code;
  return r;
}

const char* kMps =
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    x = torch.ones(n, device=\"mps\")\n"
    "RuntimeError: MPS backend out of memory (MPS allocated: 18.02 GB, other allocations: 107.10 MB, max allowed: 18.13 GB). "
    "Tried to allocate 4.50 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for "
    "memory allocations (may cause system failure).\n";

}  // namespace

TEST(ClassifyJob, ExitZeroIsFinishedWhateverStderrSays) {
  const Classification c = classify_job(exited(0), kMps);
  EXPECT_EQ(c.stopped_by, "finished");
}

TEST(ClassifyJob, AnMpsMessageInATracebackIsPyTorchWithItsSizes) {
  const Classification c = classify_job(exited(1), kMps);
  EXPECT_EQ(c.stopped_by, "pytorch");
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->kind, ErrorKind::MpsOom);
  ASSERT_TRUE(c.error->max_allowed_bytes);
  EXPECT_EQ(*c.error->max_allowed_bytes, static_cast<uint64_t>(std::llround(18.13 * (1ull << 30))));
  EXPECT_NE(c.detail.find("exit code 1"), std::string::npos) << c.detail;
}

TEST(ClassifyJob, AWatermarkRefusalIsConfig) {
  const Classification c = classify_job(exited(1), "Traceback ...\nRuntimeError: invalid low watermark ratio 1.4\n");
  EXPECT_EQ(c.stopped_by, "config");
}

TEST(ClassifyJob, AnyOtherFailureIsExitedWithItsCodeAndLastLineNeverAGuess) {
  for (const char* text : {"MemoryError\n", "error: out of memory in my own allocator\n", "Killed\n",
                           "RuntimeError: something else entirely\n\n"}) {
    const Classification c = classify_job(exited(7), text);
    EXPECT_EQ(c.stopped_by, "exited") << text;
    EXPECT_NE(c.detail.find("code 7"), std::string::npos) << c.detail;
    EXPECT_NE(c.detail.find(last_line(text)), std::string::npos) << c.detail;
  }
  EXPECT_NE(classify_job(exited(2), "").detail.find("empty stderr"), std::string::npos);
}

TEST(ClassifyJob, ASignalIsACrashAndAStopIsTheSupervisors) {
  SuperviseResult r;
  r.status.signal = SIGSEGV;
  EXPECT_EQ(classify_job(r, kMps).stopped_by, "crash");
  r.status.signal = SIGKILL;
  EXPECT_EQ(classify_job(r, "").stopped_by, "crash");
  SuperviseResult t;
  t.stopper = Stopper::Timeout;
  t.reason = "ran past the timeout of 1s";
  t.killed = true;
  t.status.signal = SIGKILL;
  const Classification c = classify_job(t, "");
  EXPECT_EQ(c.stopped_by, "timeout");
  EXPECT_NE(c.detail.find("ignored SIGTERM"), std::string::npos) << c.detail;
  t.stopper = Stopper::Guard;
  EXPECT_EQ(classify_job(t, kMps).stopped_by, "guard");
}

TEST(JobOutput, ALogKeepsItsHeadAndTailAndSaysWhatItLeftOut) {
  char tmpl[] = "/tmp/wmbench-joblog-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  {
    BoundedLog log(fd, 1000, 500);
    for (int i = 0; i < 10000; ++i) log.write("0123456789");  // 100000 bytes
    log.write("THE-END\n");
    log.finish();
    EXPECT_EQ(log.total_bytes(), 100008u);
    EXPECT_EQ(log.dropped_bytes(), 100008u - 1000 - 500);
    EXPECT_EQ(log.tail(8), "THE-END\n");
  }
  ::close(fd);
  std::ifstream in(tmpl);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(tmpl);
  EXPECT_LT(text.size(), 1000u + 500u + 200u);
  EXPECT_EQ(text.substr(0, 10), "0123456789");
  EXPECT_NE(text.find("bytes left out here"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 8), "THE-END\n");
}

TEST(JobOutput, ASmallLogIsKeptWhole) {
  BoundedLog log(-1);
  log.write("line one\n");
  log.write("line two\n");
  log.finish();
  EXPECT_EQ(log.dropped_bytes(), 0u);
  EXPECT_EQ(log.tail(), "line one\nline two\n");
}

TEST(JobProgram, AMissingOrNonExecutableProgramIsRefusedAndNamed) {
  auto refused = [](const std::vector<std::string>& argv) -> std::string {
    try {
      resolve_job_program(argv);
    } catch (const RunRefused& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refused({}).find("no command given"), std::string::npos);
  EXPECT_NE(refused({"/nonexistent/prog"}).find("/nonexistent/prog"), std::string::npos);
  EXPECT_NE(refused({"wmbench-no-such-program-xyz"}).find("not found"), std::string::npos);
  const std::string dir = wmbt_scratch::new_dir("jobprog");
  ASSERT_FALSE(dir.empty());
  const std::string plain = dir + "/script.sh";
  std::ofstream(plain) << "#!/bin/sh\nexit 0\n";
  ::chmod(plain.c_str(), 0644);
  EXPECT_NE(refused({plain}).find("not executable"), std::string::npos) << refused({plain});
  EXPECT_NE(refused({dir}).find("not a regular file"), std::string::npos);
  ::chmod(plain.c_str(), 0755);
  EXPECT_EQ(resolve_job_program({plain}), plain);
  EXPECT_EQ(resolve_job_program({"sh"}).find('/'), 0u) << "found on PATH, absolute";
  std::filesystem::remove_all(dir);
}

// A stderr log that cannot be opened (here a folder in its place) is an error naming it, and the
// stdout log opened just before is closed, not leaked: wmbench runs many cells in one process.
TEST(JobRunFiles, AStderrLogThatCannotBeOpenedLeavesNoOpenFile) {
  const std::string dir = wmbt_unit::tmpdir("jobrun");
  ASSERT_FALSE(dir.empty());
  ASSERT_EQ(::mkdir((dir + "/runs").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir + "/runs/01-job.stderr.log").c_str(), 0755), 0);
  const Folder folder(dir);
  const auto open_fds = [] {
    size_t n = 0;
#if defined(__APPLE__)
    const char* fds = "/dev/fd";
#else
    const char* fds = "/proc/self/fd";
#endif
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(fds)) ++n;
    return n;
  };
  const size_t before = open_fds();
  for (int i = 0; i < 3; ++i) {
    SpawnOptions so;
    const std::string err = wmbt_unit::error_of([&] { JobRun run(folder, "01-job", so); });
    EXPECT_TRUE(wmbt_unit::has(err, "01-job.stderr.log")) << err;
  }
  EXPECT_EQ(open_fds(), before);
  EXPECT_TRUE(std::filesystem::exists(dir + "/runs/01-job.stdout.log"));
  std::filesystem::remove_all(dir);
}

}  // namespace test_job_child
