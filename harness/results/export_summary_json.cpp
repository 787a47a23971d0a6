#include "results/report.h"

namespace wmb {
namespace {

class SummaryJson : public Exporter {
 public:
  std::string file_name() const override { return "summary.json"; }
  std::string render(const Report& r) const override {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& run : r.runs) runs.push_back(to_json(run));
    nlohmann::json not_run = nlohmann::json::array();
    for (const auto& n : r.not_run) not_run.push_back({{"label", n.label}, {"repeat", n.repeat}, {"why", n.why}});
    nlohmann::json j = {
        {"schema_version", 1},
        {"scenario", r.scenario.value("name", "")},
        {"device", r.machine.value("device", r.scenario.value("device", ""))},
        {"machine", r.machine.is_null() ? nlohmann::json::object() : r.machine},
        {"runs", runs},
        {"not_run", not_run},
    };
    return j.dump(2) + "\n";
  }
};

}  // namespace

std::unique_ptr<Exporter> make_summary_exporter() { return std::make_unique<SummaryJson>(); }

}  // namespace wmb
