// summary.json read in bounded memory (issue 30: a 32 MiB summary cost about 450 MB to read as one
// DOM, six in `history` about 2 GB). The text is parsed once, as a stream: each element of "runs"
// is built on its own and handed to the caller, who checks it and keeps what it needs; the other
// keys wmbench writes (schema_version, scenario, device, machine, not_run) are kept; a key no
// reader knows is named, and its value is parsed but never built. Each element is bounded (at
// most kMaxSummaryElementValues values, kMaxJsonDepth deep) and "runs" holds at most
// kMaxPlannedRuns elements (the bound of one folder, common/limits.h). Malformed JSON, a
// duplicate key in what is kept, and a number that overflows or underflows a double are errors
// as in parse_json_text (io/json_input.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wmb {

// A run record with its stages and warnings at the child's bounds is far below this.
constexpr size_t kMaxSummaryElementValues = size_t{1} << 18;

struct SummaryHead {
  nlohmann::json head = nlohmann::json::object();  // every known key but "runs"
  bool has_runs = false;                            // "runs" was there, as a list
  std::vector<std::string> unknown;                 // top-level keys no reader knows, in order
  size_t runs = 0;
};

// Throws InputError (naming `source`) for what parse_json_text refuses, a top that is not an
// object, or an element past the bounds. `on_run(element, index)` may throw to stop the read.
SummaryHead stream_summary_json(std::string_view text, const std::string& source,
                                const std::function<void(nlohmann::json&& run, size_t index)>& on_run);

}  // namespace wmb
