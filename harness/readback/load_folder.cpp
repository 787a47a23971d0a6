// Reading a result folder back: summary.json (checked for the fields every reader needs, and
// against runs/), machine.json and scenario.json, each through the one bounded JSON loader.
#include "readback/result_folder.h"


#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "io/json_input.h"
#include "readback/folder_device.h"
#include "readback/fields.h"
#include "readback/verify_runs.h"
#include "common/units.h"
#include "results/run_record.h"
#include "results/summary_stream.h"

namespace wmb::compare {

namespace fs = std::filesystem;
using nlohmann::json;


namespace {

// Through the one bounded loader (io/json_input.h): no link followed, size, nesting and
// duplicate keys bounded, UTF-8 checked.
json read_json_file(const fs::path& file) {
  try {
    return wmb::read_json_file(file.string(), wmb::kMaxFolderJsonBytes);
  } catch (const wmb::FileError& e) {
    throw CompareError(e.what());
  }
}


}  // namespace

void check_summary(const json& s, const std::string& where) {
  if (!s.is_object()) throw CompareError(fmt::format("{}: not a JSON object", where));
  if (auto it = s.find("schema_version"); it != s.end() && !(it->is_number_integer() && it->get<int64_t>() == 1)) {
    throw CompareError(fmt::format("{}: schema_version {} is not one this wmbench reads (1)", where, json_preview(*it)));
  }
  auto sc = s.find("scenario");
  if (sc == s.end() || !sc->is_string()) {
    throw CompareError(fmt::format("{}: has no \"scenario\" name (not a wmbench summary?)", where));
  }
  auto runs = s.find("runs");
  if (runs == s.end() || !runs->is_array()) {
    throw CompareError(fmt::format("{}: has no \"runs\" array (not a wmbench summary?)", where));
  }
  if (auto it = s.find("not_run"); it != s.end() && !it->is_null() && !it->is_array()) {
    throw CompareError(fmt::format("{}: \"not_run\" must be an array", where));
  }
  if (auto it = s.find("machine"); it != s.end() && !it->is_null() && !it->is_object()) {
    throw CompareError(fmt::format("{}: \"machine\" must be an object", where));
  }
  size_t i = 0;
  for (const auto& r : *runs) {
    if (!r.is_object()) throw CompareError(fmt::format("{}: runs[{}] is not an object", where, i));
    auto lab = r.find("label");
    if (lab == r.end() || !lab->is_string() || lab->get<std::string>().empty()) {
      throw CompareError(fmt::format("{}: runs[{}] has no \"label\"", where, i));
    }
    const std::string label = lab->get<std::string>();
    if (auto it = r.find("stopped_by"); it != r.end() && !it->is_null() && !it->is_string()) {
      throw CompareError(fmt::format("{}: runs[{}] (label \"{}\"): \"stopped_by\" must be a string, got {}",
                                     where, i, label, json_preview(*it)));
    }
    for (const char* key : {"held_bytes", "max_allowed_bytes", "swap_before_bytes", "swap_after_bytes"}) {
      auto it = r.find(key);
      if (it != r.end() && !is_size_or_null(*it)) {
        throw CompareError(fmt::format("{}: runs[{}] (label \"{}\"): \"{}\" must be a number of bytes or null, got {}",
                                       where, i, label, key, json_preview(*it)));
      }
    }
    ++i;
  }
}

ResultFolder load_result_folder(const std::string& dir) {
  std::error_code ec;
  const fs::path p(dir);
  if (dir.empty() || !fs::exists(p, ec)) throw CompareError(fmt::format("folder \"{}\" does not exist", dir));
  if (!fs::is_directory(p, ec)) throw CompareError(fmt::format("\"{}\" is not a folder (expected a result folder)", dir));
  const fs::path summary = p / "summary.json";
  if (!fs::exists(summary, ec)) {
    throw CompareError(fmt::format(
        "{}: not found (\"{}\" is not a wmbench result folder, or its run did not finish)", summary.string(), dir));
  }
  if (!fs::is_regular_file(summary, ec)) throw CompareError(fmt::format("{}: not a regular file", summary.string()));
  ResultFolder f;
  f.path = dir;
  // In bounded memory (results/summary_stream.h): each run kept with only the keys a record has
  // (what verify_summary_against_runs compares), keys no reader knows not built at all.
  try {
    const std::string text = wmb::read_file(summary.string(), wmb::kMaxFolderJsonBytes, /*follow_link=*/false);
    json runs = json::array();
    wmb::SummaryHead head = wmb::stream_summary_json(text, summary.string(), [&](json&& run, size_t) {
      if (run.is_object())
        for (auto it = run.begin(); it != run.end();)
          it = std::find(wmb::kRunKeys.begin(), wmb::kRunKeys.end(), it.key()) == wmb::kRunKeys.end() ? run.erase(it) : std::next(it);
      runs.push_back(std::move(run));
    });
    f.summary = std::move(head.head);
    if (head.has_runs) f.summary["runs"] = std::move(runs);
  } catch (const wmb::FileError& e) {
    throw CompareError(e.what());
  }
  check_summary(f.summary, summary.string());
  verify_summary_against_runs(dir, f.summary);  // the records, not the digest (verify_runs.h)
  const fs::path machine = p / "machine.json";
  if (fs::exists(machine, ec)) {
    f.machine = read_json_file(machine);
    if (!f.machine.is_object()) throw CompareError(fmt::format("{}: not a JSON object", machine.string()));
  }
  const fs::path scenario = p / "scenario.json";
  if (fs::exists(scenario, ec)) {
    f.scenario = read_json_file(scenario);
    if (!f.scenario.is_object()) throw CompareError(fmt::format("{}: not a JSON object", scenario.string()));
  }
  (void)folder_device(f);  // its files agree on the device (folder_device.h), or it is refused here
  return f;
}

}  // namespace wmb::compare
