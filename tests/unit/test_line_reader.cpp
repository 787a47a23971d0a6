// supervise()'s pipe reader: lines split across writes are joined, empty lines dropped, a wake-up
// reads one chunk, the final read reads to the end of file and closes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "guard/line_reader.h"

using namespace wmb;

TEST(LineReader, JoinsPartialLinesAndDropsEmptyOnes) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  LineReader r(p[0]);
  std::vector<std::string> got;
  auto keep = [&](const std::string& l) { got.push_back(l); };
  ASSERT_EQ(::write(p[1], "{\"a\":1}\n{\"b\"", 12), 12);
  r.read(false, keep);
  EXPECT_EQ(got, std::vector<std::string>({"{\"a\":1}"}));
  r.read(false, keep);  // nothing there: no block, no line
  EXPECT_EQ(got.size(), 1u);
  ASSERT_EQ(::write(p[1], ":2}\n\n\nlast", 11), 11);
  r.read(false, keep);
  EXPECT_EQ(got, std::vector<std::string>({"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_GE(r.fd(), 0);
  ::close(p[1]);
  r.read(true, keep);  // end of file: an unterminated last line is not a line
  EXPECT_EQ(got.size(), 2u);
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
  while (lines == 0) r.read(false, [&](const std::string&) { ++lines; });
  EXPECT_LT(lines, 3000) << "one 64 KiB chunk per wake-up";
  // The final read is non-blocking too: it reads what is there, up to the end of file.
  while (r.fd() >= 0) r.read(true, [&](const std::string&) { ++lines; });
  writer.join();
  EXPECT_EQ(lines, 3000);
}
