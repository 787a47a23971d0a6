#include "results/report.h"

#include <fmt/format.h>

#include "io/json_input.h"

namespace wmb {
namespace {

// Rendered piece by piece (one run a line), never as one document of copies: a summary of every
// record held once more as JSON, then as a string, was several copies of every record (a 25 MB
// run file made `report` hold 1.7 GB). The text is bounded as it grows: a summary over
// kMaxFolderJsonBytes, the bound of every reader (check, compare, history, --resume), is never
// written; render() throws FileError naming the file, its size so far and the bound.
class SummaryJson : public Exporter {
 public:
  std::string file_name() const override { return "summary.json"; }
  std::string render(const Report& r) const override {
    auto dump = [](const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
    std::string out = "{\n";
    auto add = [&](const std::string& piece) {
      out += piece;
      if (out.size() > kMaxFolderJsonBytes)
        throw FileError(fmt::format("{}/summary.json would be more than {} bytes, the most that every reader of it accepts: "
                                    "its {} records are too large together; summary.json is not written (the run "
                                    "files in runs/ are kept)",
                                    r.dir, kMaxFolderJsonBytes, r.runs.size()));
    };
    add("  \"schema_version\": 1,\n");
    add("  \"scenario\": " + dump(r.scenario.value("name", "")) + ",\n");
    add("  \"device\": " + dump(r.machine.value("device", r.scenario.value("device", ""))) + ",\n");
    add("  \"machine\": " + dump(r.machine.is_null() ? nlohmann::json::object() : r.machine) + ",\n");
    add("  \"runs\": [");
    for (size_t i = 0; i < r.runs.size(); ++i) add(std::string(i ? "," : "") + "\n    " + dump(to_json(r.runs[i])));
    add(r.runs.empty() ? "],\n" : "\n  ],\n");
    add("  \"not_run\": [");
    for (size_t i = 0; i < r.not_run.size(); ++i) {
      const auto& n = r.not_run[i];
      add(std::string(i ? "," : "") + "\n    " + dump({{"label", n.label}, {"repeat", n.repeat}, {"why", n.why}}));
    }
    add(r.not_run.empty() ? "]\n}\n" : "\n  ]\n}\n");
    return out;
  }
};

}  // namespace

std::unique_ptr<Exporter> make_summary_exporter() { return std::make_unique<SummaryJson>(); }

}  // namespace wmb
