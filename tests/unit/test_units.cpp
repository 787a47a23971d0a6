#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/units.h"

namespace test_units {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

TEST(Units, ParsesBinarySizes) {
  EXPECT_EQ(parse_size("512MiB"), 512 * MiB);
  EXPECT_EQ(parse_size("2 GiB"), 2 * GiB);
  EXPECT_EQ(parse_size("1.5G"), 3 * GiB / 2);
  EXPECT_EQ(parse_size("18.72GB"), static_cast<uint64_t>(std::llround(18.72 * GiB)));  // GB is 2^30 here
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("1TiB"), TiB);
  EXPECT_EQ(parse_size("64k"), 64 * KiB);
}

TEST(Units, RejectsBadSizes) {
  for (const char* bad : {"", "abc", "-1GiB", "0", "0MiB", "12 parsecs", "1e30GiB", "GiB", "1..2MiB"}) {
    EXPECT_THROW(parse_size(bad), UnitError) << bad;
  }
  EXPECT_EQ(parse_size("0", true), 0u);
  try {
    parse_size("5 XB");
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown unit \"XB\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << "names what is allowed";
  }
}

TEST(Units, RelativeSizes) {
  auto e = parse_size_expr("95%RAM");
  EXPECT_TRUE(e.relative());
  EXPECT_EQ(e.resolve(100 * GiB), 95 * GiB);
  auto m = parse_size_expr("min(2GiB, 5%RAM)");
  EXPECT_EQ(m.resolve(48 * GiB), 2 * GiB);
  EXPECT_EQ(m.resolve(16 * GiB), static_cast<uint64_t>(16.0L * GiB * 5 / 100));
  EXPECT_FALSE(parse_size_expr("512MiB").relative());
  EXPECT_EQ(parse_size_expr("512MiB").resolve(1), 512 * MiB);
  EXPECT_THROW(parse_size_expr("0%RAM"), UnitError);
  EXPECT_THROW(parse_size_expr("min(2GiB, 5%RAM"), UnitError);
  EXPECT_THROW(parse_size_expr("min(2GiB, x)"), UnitError);
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration("30s"), 30);
  EXPECT_DOUBLE_EQ(parse_duration("10m"), 600);
  EXPECT_DOUBLE_EQ(parse_duration("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration("1h"), 3600);
  EXPECT_DOUBLE_EQ(parse_duration("2.5"), 2.5);
  EXPECT_THROW(parse_duration("0s"), UnitError);
  EXPECT_THROW(parse_duration("-3s"), UnitError);
  EXPECT_THROW(parse_duration("10 fortnights"), UnitError);
}

TEST(Units, FormatsLikePyTorchBoundaries) {
  EXPECT_EQ(format_size(1024), "1024 bytes");
  EXPECT_EQ(format_size(1025), "1.00 KiB");
  EXPECT_EQ(format_size(512 * MiB), "512.00 MiB");
  EXPECT_EQ(format_size(static_cast<uint64_t>(37.44 * GiB)), "37.44 GiB");
}

// Found by tests/fuzz/fuzz_sizes: sizes from 2^63 up came back as 2^63 (llround overflow), and
// durations could be infinite or subnormal.
TEST(Units, FuzzFindingsStayFixed) {
  EXPECT_EQ(parse_size("10000000000000000000"), 10000000000000000000ull);
  EXPECT_EQ(parse_size("15728640TiB"), 15728640ull * TiB);
  EXPECT_THROW(parse_size("16777216TiB"), UnitError) << "2^64 does not fit";
  EXPECT_THROW(parse_duration("1e308h"), UnitError);
  // an overflow to infinity is too long, never "too short" (isnormal(inf) is false)
  try {
    parse_duration("1e306h");
    ADD_FAILURE() << "1e306h was taken";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("too long"), std::string::npos) << e.what();
  }
  // a subnormal number of seconds, which did not read back once printed ("2.5e-311")
  EXPECT_THROW(parse_duration("250e-310ms"), UnitError);
  EXPECT_DOUBLE_EQ(parse_duration("1e-300ms"), 1e-303);
  EXPECT_EQ(parse_size_expr("1000%RAM").resolve(UINT64_MAX), UINT64_MAX);
}

// The table cells of compare and history: a missing value is "-", a change is signed, and the most
// negative change has a magnitude (it is not negated past INT64_MAX).
TEST(Units, SizeCellsForTables) {
  EXPECT_EQ(format_size_or_dash(std::nullopt), "-");
  EXPECT_EQ(format_size_or_dash(uint64_t{512} << 20), "512.00 MiB");
  EXPECT_EQ(format_signed_size(std::nullopt), "-");
  EXPECT_EQ(format_signed_size(int64_t{0}), "0");
  EXPECT_EQ(format_signed_size(int64_t{512} << 20), "+512 MiB");
  EXPECT_EQ(format_signed_size(-(int64_t{41} << 28)), "-10.25 GiB");
  EXPECT_EQ(format_signed_size(std::numeric_limits<int64_t>::min()), "-8589934592.0 GiB");
}

}  // namespace test_units
