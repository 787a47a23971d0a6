// libFuzzer target: wmb::parse_error, to_json and the `wmbench explain` output built on them.
// The input is the error text, as a user would paste it.
//
// Checked: nothing crashes, reads out of bounds, hits UB or throws; to_json(e) has the documented
// 12 keys and dumps and re-parses to itself; the fields fit the kind (pool only for MPS, watermark
// and ratio only for InvalidWatermark, ...); kind_name/kind_from_name round-trip; a
// "RuntimeError: " prefix (which the parser is documented to accept) changes nothing.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "errparse/error_parser.h"
#include "explain/explain.h"
#include "fuzz_common.h"

namespace {

static constexpr const char* kFuzzTarget = "fuzz_error_parser";

const char* const kKeys[] = {"kind",        "allocated_bytes", "other_bytes", "max_allowed_bytes",
                             "requested_bytes", "pool",        "watermark",   "ratio",
                             "total_bytes", "free_bytes",      "gpu",         "summary"};

void check_parsed(const wmb::ParsedError& e, std::string_view in) {
  using wmb::ErrorKind;
  FUZZ_CHECK(!e.summary.empty(), in, "summary is empty");
  const auto back = wmb::kind_from_name(wmb::kind_name(e.kind));
  FUZZ_CHECK(back && *back == e.kind, in, "kind_from_name(kind_name(kind)) != kind");

  if (e.pool) {
    FUZZ_CHECK(e.kind == ErrorKind::MpsOom, in, "pool set for a kind other than mps_oom");
    FUZZ_CHECK(*e.pool == "private" || *e.pool == "shared", in, "pool is neither private nor shared: " + *e.pool);
  }
  FUZZ_CHECK(e.watermark.has_value() == (e.kind == ErrorKind::InvalidWatermark), in,
             "watermark is set iff kind is invalid_watermark");
  if (e.watermark) FUZZ_CHECK(*e.watermark == "high" || *e.watermark == "low", in, "watermark: " + *e.watermark);
  if (e.ratio) {
    FUZZ_CHECK(e.kind == ErrorKind::InvalidWatermark, in, "ratio set for a kind other than invalid_watermark");
    FUZZ_CHECK(std::isfinite(*e.ratio), in, "ratio is not finite");
  }
  if (e.gpu) {
    FUZZ_CHECK(e.kind == ErrorKind::CudaOom, in, "gpu set for a kind other than cuda_oom");
    FUZZ_CHECK(*e.gpu >= 0, in, "gpu index is negative");
  }
  if (e.total_bytes || e.free_bytes) FUZZ_CHECK(e.kind == ErrorKind::CudaOom, in, "total/free bytes outside cuda_oom");
  if (e.other_bytes) FUZZ_CHECK(e.kind == ErrorKind::MpsOom, in, "other_bytes outside mps_oom");
  if (e.kind == ErrorKind::Unknown || e.kind == ErrorKind::InvalidAllocConf || e.kind == ErrorKind::InvalidWatermark) {
    FUZZ_CHECK(!e.allocated_bytes && !e.other_bytes && !e.max_allowed_bytes && !e.requested_bytes && !e.total_bytes &&
                   !e.free_bytes && !e.gpu && !e.pool,
               in, "sizes set for kind " + wmb::kind_name(e.kind));
  }
}

void check_json(const wmb::ParsedError& e, const nlohmann::json& j, std::string_view in) {
  FUZZ_CHECK(j.is_object() && j.size() == std::size(kKeys), in, "to_json: not an object of 12 keys: " + j.dump());
  for (const char* k : kKeys) FUZZ_CHECK(j.contains(k), in, std::string("to_json: key missing: ") + k);
  FUZZ_CHECK(j["kind"] == wmb::kind_name(e.kind), in, "to_json: kind");
  FUZZ_CHECK(j["summary"] == e.summary, in, "to_json: summary");
  auto same = [&](const char* k, const auto& opt) {
    FUZZ_CHECK(opt ? (j[k] == *opt) : j[k].is_null(), in, std::string("to_json: field ") + k + " = " + j[k].dump());
  };
  same("allocated_bytes", e.allocated_bytes);
  same("other_bytes", e.other_bytes);
  same("max_allowed_bytes", e.max_allowed_bytes);
  same("requested_bytes", e.requested_bytes);
  same("pool", e.pool);
  same("watermark", e.watermark);
  same("ratio", e.ratio);
  same("total_bytes", e.total_bytes);
  same("free_bytes", e.free_bytes);
  same("gpu", e.gpu);

  const std::string text = j.dump();  // throws on invalid UTF-8 in a string
  const nlohmann::json again = nlohmann::json::parse(text);
  FUZZ_CHECK(again == j, in, "to_json(e).dump() does not parse back to the same JSON: " + text);
  nlohmann::json implicit = e;  // the ADL to_json overload
  FUZZ_CHECK(implicit == j, in, "to_json(json&, e) differs from to_json(e)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  wmb::ParsedError e;
  try {
    e = wmb::parse_error(in);
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "parse_error (documented never to throw)", in);
  }
  check_parsed(e, in);

  try {
    check_json(e, wmb::to_json(e), in);

    // `wmbench explain`: the text and JSON for the assumed default HIGH, the suggested pair (a
    // HIGH <= 0.8), and a tiny --high (which makes the implied recommended max huge).
    for (double high : {wmb::kDefaultHighWatermark, wmb::kSuggestedWatermark, 1e-300}) {
      wmb::ExplainOptions opt;
      opt.high = high;
      opt.high_given = high != wmb::kDefaultHighWatermark;
      const std::string text = wmb::explain_text(e, opt);
      FUZZ_CHECK(!text.empty(), in, "explain_text is empty");
      const nlohmann::json j = wmb::explain_json(e, opt);
      (void)j.dump();  // throws on invalid UTF-8
      if (const auto rec = wmb::implied_recommended_max(e, high)) {
        FUZZ_CHECK(e.kind == wmb::ErrorKind::MpsOom && e.max_allowed_bytes, in, "implied_recommended_max without max allowed");
        FUZZ_CHECK(j.contains("implied_recommended_max_bytes") && j["implied_recommended_max_bytes"] == *rec, in,
                   "explain_json: implied_recommended_max_bytes");
      }
    }
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "to_json / explain", in);
  }

  // Prefixes people paste with the message are documented to be accepted: same result.
  if (size < (1u << 16)) {
    try {
      const std::string prefixed = "RuntimeError: " + std::string(in);
      const wmb::ParsedError p = wmb::parse_error(prefixed);
      FUZZ_CHECK(wmb::to_json(p) == wmb::to_json(e), in,
                 "a \"RuntimeError: \" prefix changes the result: " + wmb::to_json(e).dump() + " vs " +
                     wmb::to_json(p).dump());
    } catch (...) {
      wmb_fuzz::unexpected_exception(kFuzzTarget, "parse_error with a prefix", in);
    }
  }
  return 0;
}
