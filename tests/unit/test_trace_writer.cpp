// The trace reaches the disk as it is written (issue 41: a panic loses the kernel's page cache):
// the writer's own thread syncs what was written every interval, and close() syncs the rest.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "trace/trace_writer.h"
#include "unit_util.h"

namespace test_trace_writer {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

namespace {

std::string temp_trace(const char* tag) { return wmbt_unit::tmpdir(tag) + "/trace.jsonl"; }

size_t lines_of(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}

}  // namespace

TEST(TraceWriterSync, WrittenLinesAreSyncedWithinTheIntervalWhileTheFileStaysOpen) {
  const std::string p = temp_trace("trace-sync");
  TraceWriter w(p, 0.05);
  w.line({{"type", "start"}});
  EXPECT_EQ(lines_of(p), 1u) << "each line is written at once";
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (w.syncs() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(w.syncs(), 1u) << "no sync within 5 s of a 0.05 s interval";
  // Nothing new written: the thread does not sync again for nothing.
  const uint64_t after_first = w.syncs();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(w.syncs(), after_first);
  w.line({{"type", "sample"}, {"t", 0.5}});
  w.close();
  EXPECT_EQ(w.syncs(), after_first + 1) << "close() syncs the last lines";
  EXPECT_EQ(lines_of(p), 2u);
  std::remove(p.c_str());
}

TEST(TraceWriterSync, WithoutAThreadCloseStillSyncs) {
  const std::string p = temp_trace("trace-nosync");
  TraceWriter w(p, 0);
  w.line({{"type", "start"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(w.syncs(), 0u);
  w.close();
  EXPECT_EQ(w.syncs(), 1u);
  w.close();  // twice is harmless
  EXPECT_EQ(w.syncs(), 1u);
  std::remove(p.c_str());
}

namespace {
std::atomic<bool> g_usr1_handled{false};
void on_usr1(int) { g_usr1_handled = true; }
}  // namespace

// The syncing thread never takes a signal meant for wmbench (Ctrl-C, Ctrl-Z, SIGTERM go to the
// thread that handles them): with SIGUSR1 blocked in this thread, a SIGUSR1 to the process stays
// pending instead of running its handler on the writer's thread.
TEST(TraceWriterSync, TheSyncingThreadTakesNoSignal) {
  struct sigaction sa {}, old_sa {};
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old_sa), 0);
  sigset_t usr1, old_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, &old_mask), 0);
  {
    TraceWriter w(temp_trace("trace-signal"), 0.05);
    w.line({{"type", "start"}});
    g_usr1_handled = false;
    ::kill(::getpid(), SIGUSR1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(g_usr1_handled.load()) << "the writer's thread ran the handler";
    sigset_t pending;
    sigpending(&pending);
    EXPECT_TRUE(sigismember(&pending, SIGUSR1)) << "the signal waits for the thread that handles it";
    int sig = 0;
    if (sigismember(&pending, SIGUSR1)) sigwait(&usr1, &sig);  // taken, so unblocking runs no handler
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGUSR1, &old_sa, nullptr);
}

}  // namespace test_trace_writer
