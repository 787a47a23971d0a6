// supervise()'s pipe reader: lines split across writes are joined, empty lines dropped, a wake-up
// reads one chunk, the final read reads to the end of file (an unterminated last line included)
// and closes; a line over the bound is handed on cut and its rest skipped.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "guard/line_reader.h"

namespace test_line_reader {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

TEST(LineReader, JoinsPartialLinesAndDropsEmptyOnes) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  LineReader r(p[0]);
  std::vector<std::string> got;
  auto keep = [&](std::string_view l, bool cut) {
    EXPECT_FALSE(cut);
    got.push_back(std::string(l));
  };
  ASSERT_EQ(::write(p[1], "{\"a\":1}\n{\"b\"", 12), 12);
  r.read(false, keep);
  EXPECT_EQ(got, std::vector<std::string>({"{\"a\":1}"}));
  r.read(false, keep);  // nothing there: no block, no line
  EXPECT_EQ(got.size(), 1u);
  ASSERT_EQ(::write(p[1], ":2}\n\n\nlast", 10), 10);
  r.read(false, keep);
  EXPECT_EQ(got, std::vector<std::string>({"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_GE(r.fd(), 0);
  ::close(p[1]);
  r.read(true, keep);  // end of file: the unterminated last line (a child killed mid-line) is handed on
  EXPECT_EQ(got, std::vector<std::string>({"{\"a\":1}", "{\"b\":2}", "last"}));
  EXPECT_EQ(r.fd(), -1) << "closed at end of file";
}

TEST(LineReader, AWakeUpReadsOneChunkTheFinalReadEverything) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  LineReader r(p[0]);
  std::string big;
  for (int i = 0; i < 3000; ++i) big += "{\"type\":\"step\",\"index\":" + std::to_string(i) + "}\n";  // > 64 KiB
  ASSERT_GT(big.size(), 65536u);
  // More than a pipe holds: written from another thread while the reader reads.
  std::thread writer([&] {
    size_t off = 0;
    while (off < big.size()) {
      ssize_t n = ::write(p[1], big.data() + off, big.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::close(p[1]);
  });
  int lines = 0;
  while (lines == 0) r.read(false, [&](std::string_view, bool) { ++lines; });
  EXPECT_LT(lines, 3000) << "one 64 KiB chunk per wake-up";
  // The final read is non-blocking too: it reads what is there, up to the end of file.
  while (r.fd() >= 0) r.read(true, [&](std::string_view, bool) { ++lines; });
  writer.join();
  EXPECT_EQ(lines, 3000);
}

TEST(LineReader, ALineOverTheBoundIsHandedOnCutAndItsRestSkipped) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  LineReader r(p[0], 16);
  std::vector<std::pair<std::string, bool>> got;
  const std::string text = std::string(40, 'x') + "\n{\"ok\":1}\n";
  ASSERT_EQ(::write(p[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(p[1]);
  while (r.fd() >= 0) r.read(true, [&](std::string_view l, bool cut) { got.emplace_back(std::string(l), cut); });
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], std::make_pair(std::string(16, 'x'), true));
  EXPECT_EQ(got[1], std::make_pair(std::string("{\"ok\":1}"), false));
}

}  // namespace test_line_reader
