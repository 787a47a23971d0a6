// The trace reaches the disk as it is written (issue 41: a panic loses the kernel's page cache):
// the writer's own thread syncs what was written every interval, and close() syncs the rest.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "trace/trace_writer.h"
#include "unit_util.h"

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
