// The shared text-table and Markdown-cell helpers (io/text_table.h) used by the compare and
// history exporters.
#include <gtest/gtest.h>

#include "io/text_table.h"

namespace wmb::test_text_table {  // one namespace per test file: the unity build compiles 8 files as one
namespace {

TEST(TextTable, PadsToTheWidestCellAndLeavesNoTrailingSpaces) {
  const std::string out = aligned_columns({{"a", "bb", "c"}, {"ccc", "d", ""}}, false);
  EXPECT_EQ(out, "a    bb  c\nccc  d\n");
}

TEST(TextTable, RuleAfterTheFirstRowSpansEachColumn) {
  const std::string out = aligned_columns({{"name", "x"}, {"ab", "long value"}}, true);
  EXPECT_EQ(out, "name  x\n----  ----------\nab    long value\n");
}

TEST(TextTable, RowsOfUnequalLengthAreAligned) {
  const std::string out = aligned_columns({{"a"}, {"bbb", "c"}}, false);
  EXPECT_EQ(out, "a\nbbb  c\n");
}

TEST(MarkdownCell, PipesLineBreaksAndBackticksCannotBreakTheTable) {
  EXPECT_EQ(md_escape("a|b\nc\rd`e"), "a\\|b c d'e");
  EXPECT_EQ(md_code("results/x`y|z"), "`results/x'y\\|z`");
}

}  // namespace
}  // namespace wmb::test_text_table
