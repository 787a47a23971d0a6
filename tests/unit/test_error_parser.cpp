// The PyTorch error-message parser: every real message of tests/data/pytorch-error-messages.json
// with its exact byte values, each message form, damaged input (wrapped, cut short, prefixed) and
// garbage.
#include "errparse/error_parser.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/units.h"

namespace test_error_parser {  // one namespace per test file: the unity build compiles 8 files as one

namespace {

using wmb::ErrorKind;
using wmb::ParsedError;
using wmb::parse_error;
using U64 = std::optional<uint64_t>;

constexpr uint64_t K = wmb::KiB, M = wmb::MiB, G = wmb::GiB;
// The value as the message prints it, converted by hand: "18.13 GB" -> sz(18.13, G).
U64 sz(double value, uint64_t unit) { return static_cast<uint64_t>(std::llround(value * static_cast<double>(unit))); }
U64 b(uint64_t bytes) { return bytes; }
const U64 none = std::nullopt;
const std::optional<std::string> no_pool = std::nullopt;

struct Expected {
  const char* needle;  // a piece of the text, so that a reordered data file fails loudly
  ErrorKind kind;
  U64 allocated, other, max_allowed, requested;
  std::optional<std::string> pool;
  U64 total, free;
  std::optional<int> gpu;
};

// One row per entry of the data file, in its order, values read off each text by hand.
const std::vector<Expected>& expected_data() {
  static const std::vector<Expected> rows = {
      {"MPS allocated: 7.43 GB", ErrorKind::MpsOom, sz(7.43, G), sz(24.46, G), sz(32.00, G), sz(129.21, M), "private", none, none, std::nullopt},
      {"MPS allocated: 2.44 GB", ErrorKind::MpsOom, sz(2.44, G), sz(4.34, G), sz(6.77, G), sz(10.58, M), "private", none, none, std::nullopt},
      {"MPS allocated: 5.05 GB", ErrorKind::MpsOom, sz(5.05, G), sz(2.29, G), sz(6.77, G), b(1024 * M), "private", none, none, std::nullopt},
      {"MPS allocated: 18.02 GB", ErrorKind::MpsOom, sz(18.02, G), sz(107.10, M), sz(18.13, G), sz(4.50, M), "private", none, none, std::nullopt},
      {"MPS allocated: 8.89 GB", ErrorKind::MpsOom, sz(8.89, G), sz(172.98, M), sz(9.07, G), sz(6.25, M), "private", none, none, std::nullopt},
      {"Caught Unknown Error", ErrorKind::MpsOom, sz(26.50, G), sz(55.14, G), sz(81.60, G), b(10 * K), "private", none, none, std::nullopt},
      {"WeightsUnpickler error", ErrorKind::MpsOom, b(0), b(0), sz(7.93, G), sz(35.16, M), "private", none, none, std::nullopt},
      {"MPS allocated: 42.33 GB", ErrorKind::MpsOom, sz(42.33, G), b(3 * G), sz(45.90, G), b(3 * G), "private", none, none, std::nullopt},
      {"MPS allocated: 7.23 GB", ErrorKind::MpsOom, sz(7.23, G), sz(1.54, G), sz(9.07, G), b(896 * M), "private", none, none, std::nullopt},
      {"MPS allocated: 72.40 GB", ErrorKind::MpsOom, sz(72.40, G), sz(15.71, G), sz(81.60, G), b(256), "shared", none, none, std::nullopt},
      {"MPS allocated: 16.91 GB", ErrorKind::MpsOom, sz(16.91, G), sz(2.77, M), sz(18.13, G), sz(1.28, G), "private", none, none, std::nullopt},
      {"MPS allocated: 16.00 GB", ErrorKind::MpsOom, b(16 * G), sz(3.31, G), sz(18.13, G), b(256), "shared", none, none, std::nullopt},
      {"MPS allocated: 13.36 GB", ErrorKind::MpsOom, sz(13.36, G), sz(13.77, G), sz(27.20, G), sz(583.07, M), "private", none, none, std::nullopt},
      {"MPS allocated: 9.57 GiB", ErrorKind::MpsOom, sz(9.57, G), sz(17.35, G), sz(27.20, G), sz(292.50, M), "private", none, none, std::nullopt},
      {"!!! Exception during processing !!!", ErrorKind::MpsOom, sz(39.50, G), sz(141.24, G), sz(182.78, G), sz(6.15, G), "private", none, none, std::nullopt},
      {"invalid low watermark ratio 1.4", ErrorKind::InvalidWatermark, none, none, none, none, no_pool, none, none, std::nullopt},
      {"Invalid buffer size: 9.75 GB", ErrorKind::InvalidBufferSize, none, none, none, sz(9.75, G), no_pool, none, none, std::nullopt},
      {"Invalid buffer size: 19.38 GiB", ErrorKind::InvalidBufferSize, none, none, none, sz(19.38, G), no_pool, none, none, std::nullopt},
      {"Invalid buffer size: 50.62 GB", ErrorKind::InvalidBufferSize, none, none, none, sz(50.62, G), no_pool, none, none, std::nullopt},
      {"Output size of the matrix multiplication", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"MPSNDArray.mm:788", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"MPSNDArray.mm:724", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"product of dimension sizes > 2**31", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"Must be 63700992 bytes", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"Apple M2 Max", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"Apple M2 Pro", ErrorKind::Unknown, none, none, none, none, no_pool, none, none, std::nullopt},
      {"195.06 MiB cached", ErrorKind::CudaOom, sz(8.49, G), none, none, b(40 * M), no_pool, b(11 * G), sz(36.32, M), 0},
      {"693.78 MiB already allocated", ErrorKind::CudaOom, sz(693.78, M), none, none, b(50 * M), no_pool, b(6 * G), sz(3.91, G), 0},
      {"15.90 GiB total capacity", ErrorKind::CudaOom, sz(14.25, G), none, none, b(1024 * M), no_pool, sz(15.90, G), sz(991.56, M), 0},
      {"14.34 GiB reserved in total", ErrorKind::CudaOom, sz(14.25, G), none, none, b(236 * M), no_pool, sz(15.78, G), sz(183.50, M), 0},
      {"3.41 GiB reserved in total", ErrorKind::CudaOom, sz(3.35, G), none, none, b(64 * M), no_pool, b(4 * G), b(0), 0},
      {"7.19 GiB free", ErrorKind::CudaOom, sz(7.36, G), none, none, b(86 * M), no_pool, b(16 * G), sz(7.19, G), 0},
      {"GPU 3 has a total capacty", ErrorKind::CudaOom, b(40 * G), none, none, b(128 * G), no_pool, sz(79.22, G), sz(24.22, G), 3},
      {"total capacty of 6.00 GiB", ErrorKind::CudaOom, sz(2.93, G), none, none, sz(1.70, G), no_pool, b(6 * G), b(0), 0},
      {"21.99 GiB of which 759.38 MiB", ErrorKind::CudaOom, sz(20.52, G), none, none, b(896 * M), no_pool, sz(21.99, G), sz(759.38, M), 0},
      {"ERROR 04-01 23:46:56", ErrorKind::CudaOom, sz(13.73, G), none, none, b(546 * M), no_pool, sz(15.77, G), sz(514.19, M), 0},
      {"CUDA error: out of memory", ErrorKind::CudaOom, none, none, none, none, no_pool, none, none, std::nullopt},
  };
  return rows;
}

nlohmann::json load_data() {
  const std::string path = std::string(WMBENCH_TEST_DATA) + "/pytorch-error-messages.json";
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  return nlohmann::json::parse(in);
}

void expect_fields(const ParsedError& p, const Expected& x, const std::string& what) {
  EXPECT_EQ(wmb::kind_name(p.kind), wmb::kind_name(x.kind)) << what;
  EXPECT_EQ(p.allocated_bytes, x.allocated) << what;
  EXPECT_EQ(p.other_bytes, x.other) << what;
  EXPECT_EQ(p.max_allowed_bytes, x.max_allowed) << what;
  EXPECT_EQ(p.requested_bytes, x.requested) << what;
  EXPECT_EQ(p.pool, x.pool) << what;
  EXPECT_EQ(p.total_bytes, x.total) << what;
  EXPECT_EQ(p.free_bytes, x.free) << what;
  EXPECT_EQ(p.gpu, x.gpu) << what;
  EXPECT_FALSE(p.summary.empty()) << what;
}

TEST(ErrorParserData, EveryRealMessageParsesWithExactValues) {
  const nlohmann::json data = load_data();
  const auto& rows = expected_data();
  ASSERT_EQ(data.size(), 37u);
  ASSERT_EQ(data.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string text = data[i].at("text").get<std::string>();
    ASSERT_NE(text.find(rows[i].needle), std::string::npos) << "entry " << i << " is not the expected message";
    const ParsedError p = parse_error(text);
    expect_fields(p, rows[i], "entry " + std::to_string(i) + ": " + text.substr(0, 80));
    if (p.kind == ErrorKind::InvalidWatermark) {
      EXPECT_EQ(p.watermark, std::optional<std::string>("low"));
      EXPECT_EQ(p.ratio, std::optional<double>(1.4));
    } else {
      EXPECT_FALSE(p.watermark) << i;
      EXPECT_FALSE(p.ratio) << i;
    }
    if (p.kind == ErrorKind::Unknown)
      EXPECT_NE(p.summary.find("Not a memory-limit message"), std::string::npos) << i;
  }
}

TEST(ErrorParserData, KnownSpotValues) {
  // A few values written out in bytes, independent of the sz() helper.
  const nlohmann::json data = load_data();
  EXPECT_EQ(parse_error(data[3]["text"].get<std::string>()).max_allowed_bytes, U64(19466939269ull));  // 18.13 GB
  EXPECT_EQ(parse_error(data[9]["text"].get<std::string>()).requested_bytes, U64(256));
  EXPECT_EQ(parse_error(data[2]["text"].get<std::string>()).requested_bytes, U64(1073741824));        // 1024.00 MB
  EXPECT_EQ(parse_error(data[5]["text"].get<std::string>()).requested_bytes, U64(10240));             // 10.00 KB
}

// Every prefix of every real message (a message cut short anywhere) parses without harm, and
// any value it yields is the value of the whole message, never a wrong one.
TEST(ErrorParserData, CutShortAnywhereNeverGivesWrongValues) {
  const nlohmann::json data = load_data();
  for (const auto& entry : data) {
    const std::string text = entry["text"].get<std::string>();
    const ParsedError full = parse_error(text);
    for (size_t n = 0; n <= text.size(); ++n) {
      const ParsedError p = parse_error(std::string_view(text).substr(0, n));
      if (p.kind != full.kind) continue;
      auto same_or_absent = [&](const U64& part, const U64& whole, const char* name) {
        if (part) EXPECT_EQ(part, whole) << name << " for prefix " << n << " of " << text.substr(0, 60);
      };
      same_or_absent(p.allocated_bytes, full.allocated_bytes, "allocated");
      same_or_absent(p.other_bytes, full.other_bytes, "other");
      same_or_absent(p.max_allowed_bytes, full.max_allowed_bytes, "max_allowed");
      same_or_absent(p.requested_bytes, full.requested_bytes, "requested");
      same_or_absent(p.total_bytes, full.total_bytes, "total");
      same_or_absent(p.free_bytes, full.free_bytes, "free");
      if (p.pool) EXPECT_EQ(p.pool, full.pool);
      if (p.gpu) EXPECT_EQ(p.gpu, full.gpu);
    }
  }
}

// ---- MPS forms -------------------------------------------------------------------------------

const char* kSeedMessage =
    "RuntimeError: MPS backend out of memory (MPS allocated: 18.50 GiB, other allocations: 448.00 KiB,\n"
    "max allowed: 18.72 GiB). Tried to allocate 512.00 MiB on shared pool. Use\n"
    "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause\n"
    "system failure).";

TEST(ErrorParserMps, SeedMessageAsWrappedInTheWriteUp) {
  const ParsedError p = parse_error(kSeedMessage);
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, U64(19864223744ull));  // 18.50 * 2^30
  EXPECT_EQ(p.other_bytes, U64(448 * K));
  EXPECT_EQ(p.max_allowed_bytes, sz(18.72, G));
  EXPECT_EQ(p.max_allowed_bytes, U64(20100446945ull));
  EXPECT_EQ(p.requested_bytes, U64(512 * M));
  EXPECT_EQ(p.pool, std::optional<std::string>("shared"));
  EXPECT_NE(p.summary.find("18.72 GiB"), std::string::npos) << p.summary;
  EXPECT_FALSE(p.total_bytes);
  EXPECT_FALSE(p.gpu);
}

TEST(ErrorParserMps, WrappedAnywhere) {
  // Line breaks and indentation inside "max allowed", between number and unit, inside a word,
  // inside a number, CRLF, tabs and no-break spaces (U+00A0) from web pages.
  const std::string text =
      "RuntimeError: MPS backend out of\r\n    memory (MPS allo\ncated: 18.50\n      GiB, other\tallocations:\r\n"
      "448.00 KiB, max\n      allowed: 18.\n72 GiB). Tried\xC2\xA0to allocate 512.00\xC2\xA0MiB on\n shared\n pool.";
  const ParsedError p = parse_error(text);
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, sz(18.50, G));
  EXPECT_EQ(p.other_bytes, U64(448 * K));
  EXPECT_EQ(p.max_allowed_bytes, sz(18.72, G));
  EXPECT_EQ(p.requested_bytes, U64(512 * M));
  EXPECT_EQ(p.pool, std::optional<std::string>("shared"));
}

TEST(ErrorParserMps, HighZeroHasNoMaxAllowed) {
  const ParsedError p = parse_error(
      "RuntimeError: MPS backend out of memory (MPS allocated: 36.00 GiB, other allocations: 1.25 GiB). Tried to "
      "allocate 512.00 MiB on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory "
      "allocations (may cause system failure).");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, U64(36 * G));
  EXPECT_EQ(p.other_bytes, sz(1.25, G));
  EXPECT_FALSE(p.max_allowed_bytes);
  EXPECT_EQ(p.requested_bytes, U64(512 * M));
  EXPECT_EQ(p.pool, std::optional<std::string>("shared"));
  EXPECT_NE(p.summary.find("no upper limit"), std::string::npos) << p.summary;
}

TEST(ErrorParserMps, Late2022Form) {
  const ParsedError p = parse_error(
      "RuntimeError: MPS backend out of memory (currently allocated: 17.91 GB, max allowed: 18.13 GB). Tried to "
      "allocate 256.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory "
      "allocations (may cause system failure).");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, sz(17.91, G));
  EXPECT_FALSE(p.other_bytes);
  EXPECT_EQ(p.max_allowed_bytes, sz(18.13, G));
  EXPECT_EQ(p.requested_bytes, U64(256 * M));
  EXPECT_EQ(p.pool, std::optional<std::string>("private"));
}

TEST(ErrorParserMps, CutShort) {
  // Ends right after "max allowed: 9.07 GB".
  ParsedError p = parse_error(
      "RuntimeError: MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: 172.98 MB, max allowed: 9.07 GB");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, sz(8.89, G));
  EXPECT_EQ(p.other_bytes, sz(172.98, M));
  EXPECT_EQ(p.max_allowed_bytes, sz(9.07, G));
  EXPECT_FALSE(p.requested_bytes);
  EXPECT_FALSE(p.pool);
  // Cut inside the unit or the number: the value is not guessed.
  p = parse_error("MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: 172.98 MB, max allowed: 9.07 G");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.other_bytes, sz(172.98, M));
  EXPECT_FALSE(p.max_allowed_bytes);
  p = parse_error("MPS backend out of memory (MPS allocated: 8.89 GiB, other allocations: 172.98 MiB, max allowed: 9.0");
  EXPECT_FALSE(p.max_allowed_bytes);
  p = parse_error("MPS backend out of memory (MPS allocated: 8.89 GiB, other allocations: 172.98 MiB, max allowed: 9.07 Gi");
  EXPECT_FALSE(p.max_allowed_bytes);
  // Cut in the pool name.
  p = parse_error("MPS backend out of memory (MPS allocated: 1.00 GiB, other allocations: 0 bytes, max allowed: 2.00 GiB). "
                  "Tried to allocate 1.50 GiB on sh");
  EXPECT_EQ(p.requested_bytes, sz(1.5, G));
  EXPECT_FALSE(p.pool);
  // Only the head.
  p = parse_error("RuntimeError: MPS backend out of memory");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_FALSE(p.allocated_bytes);
  EXPECT_FALSE(p.max_allowed_bytes);
}

TEST(ErrorParserMps, PrefixesAndTimestamps) {
  const std::string body =
      "MPS backend out of memory (MPS allocated: 29.50 GiB, other allocations: 12.00 MiB, max allowed: 29.95 GiB). "
      "Tried to allocate 512.00 MiB on shared pool.";
  for (const std::string prefix :
       {"", "RuntimeError: ", "!!! Exception during processing !!! ", "2026-10-13 10:00:01,123 ERROR [worker 3] ",
        "[2026-10-13T10:00:01Z] 1234 ERROR: ", "Caught Unknown Error ", "> # RuntimeError: ",
        "_pickle.UnpicklingError: Weights only load failed. WeightsUnpickler error: "}) {
    const ParsedError p = parse_error(prefix + body);
    EXPECT_EQ(p.kind, ErrorKind::MpsOom) << prefix;
    EXPECT_EQ(p.allocated_bytes, sz(29.50, G)) << prefix;
    EXPECT_EQ(p.other_bytes, U64(12 * M)) << prefix;
    EXPECT_EQ(p.max_allowed_bytes, sz(29.95, G)) << prefix;
    EXPECT_EQ(p.requested_bytes, U64(512 * M)) << prefix;
  }
}

TEST(ErrorParserMps, WithoutItsFirstWords) {
  const ParsedError p = parse_error("(MPS allocated: 2.00 GiB, other allocations: 3.00 MiB, max allowed: 4.00 GiB). "
                                    "Tried to allocate 8.00 MiB on private pool.");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.allocated_bytes, U64(2 * G));
  EXPECT_EQ(p.max_allowed_bytes, U64(4 * G));
  EXPECT_EQ(p.pool, std::optional<std::string>("private"));
}

TEST(ErrorParserMps, AllUnitSpellings) {
  // bytes; KB/MB/GB (older builds) and KiB/MiB/GiB are all 1024-based; case does not matter.
  const ParsedError a = parse_error("MPS backend out of memory (MPS allocated: 1024 bytes, other allocations: 1.00 KB, "
                                    "max allowed: 1024.00 MB). Tried to allocate 2048.00 GB on private pool.");
  EXPECT_EQ(a.allocated_bytes, U64(1024));
  EXPECT_EQ(a.other_bytes, U64(1024));
  EXPECT_EQ(a.max_allowed_bytes, U64(G));
  EXPECT_EQ(a.requested_bytes, U64(2048 * G));  // no TB level in PyTorch: 2 TiB prints as 2048.00 GB
  const ParsedError c = parse_error("mps backend out of memory (mps allocated: 1.50 kib, other allocations: 0 BYTES, "
                                    "max allowed: 3.25 MIB). tried to allocate 0.50 gib on SHARED pool.");
  EXPECT_EQ(c.allocated_bytes, U64(1536));
  EXPECT_EQ(c.other_bytes, U64(0));
  EXPECT_EQ(c.max_allowed_bytes, U64(3407872));
  EXPECT_EQ(c.requested_bytes, U64(G / 2));
  EXPECT_EQ(c.pool, std::optional<std::string>("shared"));
  // Rounding to nearest: 0.01 KB = 10.24 bytes -> 10; 0.05 KB = 51.2 -> 51; 1.99 KB = 2037.76 -> 2038.
  EXPECT_EQ(parse_error("MPS backend out of memory (MPS allocated: 0.01 KB, other allocations: 0.05 KB, max allowed: 1.99 KB)")
                .max_allowed_bytes,
            U64(2038));
  EXPECT_EQ(parse_error("MPS backend out of memory (MPS allocated: 0.01 KB, other allocations: 0.05 KB)").allocated_bytes,
            U64(10));
}

TEST(ErrorParserMps, MaxAllowedBelowAllocatedIsKept) {
  const ParsedError p = parse_error("MPS backend out of memory (MPS allocated: 20.00 GiB, other allocations: 1.00 GiB, "
                                    "max allowed: 18.13 GiB). Tried to allocate 2.00 MiB on shared pool.");
  EXPECT_EQ(p.allocated_bytes, U64(20 * G));
  EXPECT_EQ(p.max_allowed_bytes, sz(18.13, G));
}

// ---- CUDA forms ------------------------------------------------------------------------------

TEST(ErrorParserCuda, H200MessageWithAllowed) {
  // Verbatim from pytorch-allocator-facts.md (torch 2.11, per_process_memory_fraction:0.1).
  const ParsedError p = parse_error(
      "CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 139.80 GiB of\n"
      "which 125.78 GiB is free. Including non-PyTorch memory, this process has 14.01 GiB memory in\n"
      "use. 13.98 GiB allowed; Of the allocated memory 13.50 GiB is allocated by PyTorch, and 0 bytes\n"
      "is reserved by PyTorch but unallocated. If reserved but unallocated ...");
  EXPECT_EQ(p.kind, ErrorKind::CudaOom);
  EXPECT_EQ(p.requested_bytes, U64(512 * M));
  EXPECT_EQ(p.total_bytes, sz(139.80, G));
  EXPECT_EQ(p.free_bytes, sz(125.78, G));
  EXPECT_EQ(p.max_allowed_bytes, sz(13.98, G));
  EXPECT_EQ(p.allocated_bytes, U64(27 * G / 2));  // 13.50 GiB
  EXPECT_EQ(p.gpu, std::optional<int>(0));
  EXPECT_FALSE(p.other_bytes);
  EXPECT_FALSE(p.pool);
  EXPECT_NE(p.summary.find("per_process_memory_fraction"), std::string::npos) << p.summary;
}

TEST(ErrorParserCuda, OldFormsReservedAndCachedAndMisspelling) {
  ParsedError p = parse_error("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 15.78 GiB total "
                              "capacity; 14.25 GiB already allocated; 183.50 MiB free; 14.34 GiB reserved in total by PyTorch)");
  EXPECT_EQ(p.kind, ErrorKind::CudaOom);
  EXPECT_EQ(p.gpu, std::optional<int>(1));
  EXPECT_EQ(p.requested_bytes, U64(2 * G));
  EXPECT_EQ(p.total_bytes, sz(15.78, G));
  EXPECT_EQ(p.allocated_bytes, sz(14.25, G));
  EXPECT_EQ(p.free_bytes, sz(183.50, M));
  EXPECT_FALSE(p.max_allowed_bytes);
  // torch 2.1: "total capacty".
  p = parse_error("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 12 has a total "
                  "capacty of 23.65 GiB of which 3.06 MiB is free. Of the allocated memory 22.80 GiB is allocated by "
                  "PyTorch, and 401.59 MiB is reserved by PyTorch but unallocated.");
  EXPECT_EQ(p.gpu, std::optional<int>(12));
  EXPECT_EQ(p.total_bytes, sz(23.65, G));
  EXPECT_EQ(p.free_bytes, sz(3.06, M));
  EXPECT_EQ(p.allocated_bytes, sz(22.80, G));
  EXPECT_EQ(p.requested_bytes, U64(20 * M));
}

TEST(ErrorParserCuda, BareDriverErrors) {
  for (const char* text : {"RuntimeError: CUDA error: out of memory", "CUDA error: out of memory\nCUDA kernel errors "
                           "might be asynchronously reported at some other API call",
                           "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCGeneral.cpp:50"}) {
    const ParsedError p = parse_error(text);
    EXPECT_EQ(p.kind, ErrorKind::CudaOom) << text;
    EXPECT_FALSE(p.allocated_bytes) << text;
    EXPECT_FALSE(p.requested_bytes) << text;
    EXPECT_FALSE(p.total_bytes) << text;
    EXPECT_NE(p.summary.find("no sizes"), std::string::npos) << p.summary;
  }
}

// ---- CPU, watermark, buffer size, alloc conf -----------------------------------------------

TEST(ErrorParserCpu, EnforceFailAndWindowsForm) {
  ParsedError p = parse_error("[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: "
                              "you tried to allocate 268435456 bytes. Error code 12 (Cannot allocate memory)");
  EXPECT_EQ(p.kind, ErrorKind::CpuOom);
  EXPECT_EQ(p.requested_bytes, U64(268435456));
  EXPECT_FALSE(p.allocated_bytes);
  p = parse_error("RuntimeError: [enforce fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data. DefaultCPUAllocator: not "
                  "enough memory: you tried to allocate 1073741824 bytes.");
  EXPECT_EQ(p.kind, ErrorKind::CpuOom);
  EXPECT_EQ(p.requested_bytes, U64(G));
  // The name alone is not an allocation failure.
  EXPECT_EQ(parse_error("using DefaultCPUAllocator for tensors").kind, ErrorKind::Unknown);
}

TEST(ErrorParserWatermark, LowAndHigh) {
  ParsedError p = parse_error("RuntimeError: invalid high watermark ratio 2.5");
  EXPECT_EQ(p.kind, ErrorKind::InvalidWatermark);
  EXPECT_EQ(p.watermark, std::optional<std::string>("high"));
  EXPECT_EQ(p.ratio, std::optional<double>(2.5));
  p = parse_error("invalid low\n   watermark ratio\n 0.9");
  EXPECT_EQ(p.watermark, std::optional<std::string>("low"));
  EXPECT_EQ(p.ratio, std::optional<double>(0.9));
  p = parse_error("RuntimeError: invalid high watermark ratio -0.5");
  EXPECT_EQ(p.ratio, std::optional<double>(-0.5));
  // The number is not joined with what follows on the next line.
  p = parse_error("RuntimeError: invalid low watermark ratio 1.4\n2026-10-13 10:00:00 next line");
  EXPECT_EQ(p.ratio, std::optional<double>(1.4));
  p = parse_error("RuntimeError: invalid low watermark ratio 1.4. Exiting.");
  EXPECT_EQ(p.ratio, std::optional<double>(1.4));
  // Cut short, or a value JSON cannot hold: the kind stays, the ratio is absent.
  p = parse_error("RuntimeError: invalid low watermark ratio");
  EXPECT_EQ(p.kind, ErrorKind::InvalidWatermark);
  EXPECT_FALSE(p.ratio);
  p = parse_error("invalid high watermark ratio inf");
  EXPECT_EQ(p.kind, ErrorKind::InvalidWatermark);
  EXPECT_FALSE(p.ratio);
  EXPECT_FALSE(parse_error("invalid high watermark ratio nan").ratio);
}

TEST(ErrorParserBuffer, SizesAndOverflow) {
  ParsedError p = parse_error("RuntimeError: Invalid buffer size: 9.75 GB");
  EXPECT_EQ(p.kind, ErrorKind::InvalidBufferSize);
  EXPECT_EQ(p.requested_bytes, sz(9.75, G));
  EXPECT_FALSE(p.max_allowed_bytes);
  p = parse_error("Invalid buffer size: 99999999999999999999 GB");
  EXPECT_EQ(p.kind, ErrorKind::InvalidBufferSize);
  EXPECT_FALSE(p.requested_bytes);
}

TEST(ErrorParserAllocConf, MalformedConfig) {
  for (const char* text : {"stod", "RuntimeError: stod", "stod: no conversion", "std::invalid_argument: stod",
                           "RuntimeError: Expected a number for per_process_memory_fraction",
                           "ValueError: per_process_memory_fraction is invalid, set it in [0.0, 1.0]",
                           "RuntimeError: Unrecognized key 'per_process_memory_fractio' in PYTORCH_CUDA_ALLOC_CONF",
                           "Invalid PYTORCH_ALLOC_CONF value"}) {
    const ParsedError p = parse_error(text);
    EXPECT_EQ(p.kind, ErrorKind::InvalidAllocConf) << text;
    EXPECT_FALSE(p.requested_bytes) << text;
  }
  // Conservative: the OOM hint alone, or "stod" inside other words, is not a config error.
  for (const char* text : {"If reserved but unallocated memory is large try setting "
                           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
                           "too many allocations to disable caching", "Allocator not initialized for device",
                           "stodgy", "torch.cuda.set_per_process_memory_fraction(0.5) called twice"}) {
    EXPECT_EQ(parse_error(text).kind, ErrorKind::Unknown) << text;
  }
  // An OOM message that mentions PYTORCH_CUDA_ALLOC_CONF stays an OOM.
  EXPECT_EQ(parse_error("CUDA out of memory. Tried to allocate 2.00 MiB. See documentation for Memory Management and "
                        "PYTORCH_CUDA_ALLOC_CONF (invalid settings)").kind,
            ErrorKind::CudaOom);
}

// ---- kinds, JSON ---------------------------------------------------------------------------

TEST(ErrorParserJson, KeysAndNulls) {
  const nlohmann::json j = wmb::to_json(parse_error(kSeedMessage));
  EXPECT_EQ(j.at("kind"), "mps_oom");
  EXPECT_EQ(j.at("allocated_bytes").get<uint64_t>(), 19864223744ull);
  EXPECT_EQ(j.at("other_bytes").get<uint64_t>(), 448 * K);
  EXPECT_EQ(j.at("max_allowed_bytes").get<uint64_t>(), 20100446945ull);
  EXPECT_EQ(j.at("requested_bytes").get<uint64_t>(), 512 * M);
  EXPECT_EQ(j.at("pool"), "shared");
  for (const char* key : {"watermark", "ratio", "total_bytes", "free_bytes", "gpu"}) EXPECT_TRUE(j.at(key).is_null()) << key;
  EXPECT_TRUE(j.at("summary").is_string());

  const nlohmann::json w = parse_error("invalid low watermark ratio 1.4");  // the implicit conversion
  EXPECT_EQ(w.at("kind"), "invalid_watermark");
  EXPECT_EQ(w.at("watermark"), "low");
  EXPECT_DOUBLE_EQ(w.at("ratio").get<double>(), 1.4);
  for (const char* key : {"allocated_bytes", "other_bytes", "max_allowed_bytes", "requested_bytes", "pool"})
    EXPECT_TRUE(w.at(key).is_null()) << key;

  const nlohmann::json c = wmb::to_json(parse_error("CUDA out of memory. Tried to allocate 1.00 GiB. GPU 2 has a total "
                                                    "capacity of 79.00 GiB of which 0 bytes is free."));
  EXPECT_EQ(c.at("gpu").get<int>(), 2);
  EXPECT_EQ(c.at("free_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(c.at("total_bytes").get<uint64_t>(), 79 * G);
}

TEST(ErrorParserJson, KindNamesRoundTrip) {
  const std::vector<std::pair<ErrorKind, std::string>> names = {
      {ErrorKind::MpsOom, "mps_oom"},
      {ErrorKind::CudaOom, "cuda_oom"},
      {ErrorKind::CpuOom, "cpu_oom"},
      {ErrorKind::InvalidWatermark, "invalid_watermark"},
      {ErrorKind::InvalidBufferSize, "invalid_buffer_size"},
      {ErrorKind::InvalidAllocConf, "invalid_alloc_conf"},
      {ErrorKind::Unknown, "unknown"}};
  for (const auto& [kind, name] : names) {
    EXPECT_EQ(wmb::kind_name(kind), name);
    EXPECT_EQ(wmb::kind_from_name(name), std::optional<ErrorKind>(kind));
  }
  EXPECT_FALSE(wmb::kind_from_name("MPS_OOM"));
  EXPECT_FALSE(wmb::kind_from_name(""));
}

// ---- garbage -------------------------------------------------------------------------------

TEST(ErrorParserGarbage, EmptyWhitespaceAndBinary) {
  EXPECT_EQ(parse_error("").kind, ErrorKind::Unknown);
  EXPECT_EQ(parse_error(std::string_view()).kind, ErrorKind::Unknown);
  EXPECT_EQ(parse_error(" \n\t\r ").kind, ErrorKind::Unknown);
  EXPECT_FALSE(parse_error("").summary.empty());
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes.push_back(static_cast<char>(i));
  EXPECT_EQ(parse_error(all_bytes + all_bytes).kind, ErrorKind::Unknown);
  const char raw[] = "MPS backend out of memory (MPS allocated: 1.00 GiB\0, max allowed: 2.00 GiB)";
  const std::string with_nul(raw, sizeof(raw) - 1);
  ASSERT_EQ(with_nul.find('\0'), 50u);
  const ParsedError p = parse_error(with_nul);
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_EQ(p.max_allowed_bytes, U64(2 * G));
}

TEST(ErrorParserGarbage, HugeNumbersAreAbsentNotWrapped) {
  const ParsedError p = parse_error(
      "MPS backend out of memory (MPS allocated: 99999999999999999999 GB, other allocations: 18446744073709551616 bytes, "
      "max allowed: 16777216.00 GB). Tried to allocate 17179869184.00 GB on shared pool.");
  EXPECT_EQ(p.kind, ErrorKind::MpsOom);
  EXPECT_FALSE(p.allocated_bytes);
  EXPECT_FALSE(p.other_bytes);                       // 2^64 bytes does not fit
  EXPECT_EQ(p.max_allowed_bytes, U64(1ull << 54));   // 2^24 GiB fits
  EXPECT_FALSE(p.requested_bytes);                   // 2^34 GiB = 2^64 bytes does not
  EXPECT_EQ(p.pool, std::optional<std::string>("shared"));
  // Long runs of digits and leading zeros.
  const ParsedError q = parse_error("Invalid buffer size: " + std::string(5000, '9') + ".5 GB");
  EXPECT_EQ(q.kind, ErrorKind::InvalidBufferSize);
  EXPECT_FALSE(q.requested_bytes);
  EXPECT_EQ(parse_error("Invalid buffer size: 0000000000000000000000000001.00 GiB").requested_bytes, U64(G));
  EXPECT_EQ(parse_error("Invalid buffer size: 1." + std::string(100, '0') + " GiB").requested_bytes, U64(G));
}

TEST(ErrorParserGarbage, RandomMixturesNeverCrash) {
  // Fragments of real messages shuffled with random bytes: no crash, no throw, a valid kind, and
  // sizes only where a unit was written. Deterministic seed.
  const std::vector<std::string> pieces = {
      "MPS backend out of memory (", "MPS allocated: ", "other allocations: ", "max allowed: ", ")",
      ". Tried to allocate ", " on shared pool", " on private pool", "CUDA out of memory", "GPU ", "0", "; ",
      " total capacity", " has a total capacty of ", " of which ", " is free", " allowed;", " already allocated",
      " is allocated by PyTorch", "DefaultCPUAllocator: can't allocate memory: you tried to allocate ",
      "invalid low watermark ratio ", "invalid high watermark ratio ", "Invalid buffer size: ", "stod",
      "per_process_memory_fraction", "18.72", "GiB", "GB", "bytes", "KB", "1e308", "-1", ".", "\n", "\xC2\xA0",
      "99999999999999999999999", "\xC2", "\x00", "nan", "inf", "9.07 GB", "256 bytes"};
  std::mt19937 rng(20261013);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) {
      if (rng() % 5 == 0) {
        text.push_back(static_cast<char>(rng() % 256));
      } else {
        text += pieces[rng() % pieces.size()];
      }
    }
    const ParsedError p = parse_error(text);
    EXPECT_TRUE(wmb::kind_from_name(wmb::kind_name(p.kind)).has_value());
    EXPECT_FALSE(p.summary.empty());
    if (p.ratio) EXPECT_TRUE(std::isfinite(*p.ratio));
    (void)wmb::to_json(p).dump();
  }
}

}  // namespace

}  // namespace test_error_parser
