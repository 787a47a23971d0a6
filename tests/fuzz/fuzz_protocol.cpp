// libFuzzer target: the fill child's protocol lines through the parent (ChildLineSplitter ->
// ChildReport::absorb_line), as a hostile or broken child would write them.
//
// Checked: nothing throws; lines are bounded; every warning is valid UTF-8 and their number is
// bounded; every stage kept passes the stage schema; a run record built from the report (as the
// runner builds it) dumps strictly (valid UTF-8) and loads again through the run schema.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/json_input.h"
#include "io/utf8.h"
#include "fuzz_common.h"
#include "results/run_record.h"
#include "protocol/child_report.h"

namespace {
static constexpr const char* kFuzzTarget = "fuzz_protocol";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  wmb::ChildReport rep;
  size_t longest = 0;
  try {
    wmb::ChildLineSplitter split(4096);
    auto sink = [&](std::string_view line, bool cut) {
      longest = std::max(longest, line.size());
      rep.absorb_line(line, cut);
    };
    split.feed(in.data(), in.size(), sink);
    split.finish(sink);
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "ChildLineSplitter/absorb_line (nothing may escape)", in);
  }
  FUZZ_CHECK(longest <= 4096, in, "a line longer than the splitter's bound was handed on");
  FUZZ_CHECK(rep.warnings.size() <= wmb::kMaxChildWarnings, in, "more warnings than the bound");
  for (const auto& w : rep.warnings) FUZZ_CHECK(wmb::utf8_valid(w), in, "a warning that is not UTF-8: " + w);
  try {
    for (const auto& st : rep.stages) wmb::check_stage_json(st, "stage", "stage");
  } catch (const std::exception& e) {
    wmb_fuzz::fail(kFuzzTarget, std::string("a kept stage fails the stage schema: ") + e.what(), in);
  }
  // The record as the runner builds it from the report.
  wmb::RunRecord r;
  r.index = 1;
  r.label = "fuzz";
  r.stopped_by = "crash";
  r.error_text = rep.error_text;
  r.held_bytes = rep.held_bytes;
  r.steps = rep.steps;
  r.allocated_bytes = rep.allocated_bytes;
  r.driver_bytes = rep.driver_bytes;
  if (!rep.stages.empty()) r.stages = rep.stages;
  if (rep.hello) {
    r.torch_version = rep.hello->value("torch_version", "");
    r.child_env = rep.hello->value("env", nlohmann::json::object());
    if (rep.hello->contains("recommended_max_bytes") && (*rep.hello)["recommended_max_bytes"].is_number_unsigned())
      r.recommended_max_bytes = (*rep.hello)["recommended_max_bytes"].get<uint64_t>();
  }
  r.warnings = rep.warnings;
  std::string dumped;
  try {
    dumped = wmb::to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::strict);
  } catch (const std::exception& e) {
    wmb_fuzz::fail(kFuzzTarget, std::string("the run record does not dump strictly: ") + e.what(), in);
  }
  try {
    (void)wmb::run_from_json(wmb::parse_json_text(dumped, "r.json", wmb::kMaxFolderJsonBytes), "r.json");
  } catch (const std::exception& e) {
    wmb_fuzz::fail(kFuzzTarget, std::string("the run record does not load again: ") + e.what() + "\n" + dumped.substr(0, 2000), in);
  }
  return 0;
}
