#include "readback/folder_device.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/json_input.h"
#include "io/terminal_text.h"
#include "io/utf8.h"

namespace wmb::compare {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Source {
  std::string where;  // "machine.json", "summary.json \"device\"", "runs/01-default.json"
  std::string value;  // as shown: "\"cpu\""
  std::string raw;    // the device itself, for the answer
  bool summary_only;  // summary.json's own keys: `wmbench report` rewrites them
};

void add(std::vector<Source>& out, const json& obj, const char* key, std::string where, bool summary_only) {
  if (!obj.is_object()) return;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty())) return;
  std::string raw = it->is_string() ? it->get<std::string>() : json_preview(*it, 40);
  std::string shown = it->is_string() ? "\"" + escape_controls_line(utf8_sanitize(raw, 40)) + "\"" : raw;
  out.push_back({std::move(where), std::move(shown), std::move(raw), summary_only});
}

// A run of summary.json named by its record in runs/ when there is one (verify_runs.h has checked
// that they agree), else by its place in summary.json.
std::string run_name(const ResultFolder& f, const json& r, size_t i) {
  const std::string label = r.value("label", "");
  if (r.contains("index") && r["index"].is_number_integer()) {
    const std::string stem = fmt::format("{:02d}-{}", r["index"].get<int64_t>(), label);
    std::error_code ec;
    if (!f.path.empty() && fs::is_regular_file(fs::path(f.path) / "runs" / (stem + ".json"), ec))
      return "runs/" + stem + ".json";
  }
  return fmt::format("summary.json \"runs\"[{}] (\"{}\")", i, escape_controls_line(utf8_sanitize(label, 40)));
}

}  // namespace

std::string folder_device(const ResultFolder& f) {
  std::vector<Source> s;
  add(s, f.machine, "device", "machine.json", false);
  add(s, f.summary, "device", "summary.json \"device\"", true);
  if (f.summary.is_object())
    if (auto it = f.summary.find("machine"); it != f.summary.end())
      add(s, *it, "device", "summary.json \"machine\".\"device\"", true);
  add(s, f.scenario, "device", "scenario.json", false);
  if (f.summary.is_object())
    if (auto it = f.summary.find("runs"); it != f.summary.end() && it->is_array())
      for (size_t i = 0; i < it->size(); ++i) add(s, (*it)[i], "device", run_name(f, (*it)[i], i), false);
  if (s.empty()) return "?";
  const Source& first = s.front();
  std::vector<const Source*> other;
  bool others_agree = true;  // every file but summary.json's own keys agrees with the first
  for (const auto& x : s) {
    if (x.raw == first.raw) continue;
    other.push_back(&x);
    others_agree = others_agree && x.summary_only;
  }
  if (other.empty()) return first.raw;
  std::string said = fmt::format("{} says {}", first.where, first.value);
  const size_t shown = std::min<size_t>(other.size(), 3);
  for (size_t i = 0; i < shown; ++i) said += fmt::format(", {} says {}", other[i]->where, other[i]->value);
  if (other.size() > shown) said += fmt::format(" (and {} more)", other.size() - shown);
  const std::string fix =
      others_agree && !first.summary_only
          ? fmt::format("; summary.json is the odd one: `wmbench report {}` rebuilds it from machine.json and runs/", f.path)
          : "";
  throw CompareError(fmt::format(
      "{}: its files disagree on the device it measured: {}; a folder measures one device, and which one "
      "decides what it is compared with, so it is refused rather than guessed; `wmbench check {}` names every "
      "disagreement{}",
      f.path, said, f.path, fix));
}

}  // namespace wmb::compare
