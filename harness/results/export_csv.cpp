// results.csv: one row per run, sizes in bytes.
#include <fmt/format.h>

#include "results/report.h"

namespace wmb {
namespace {

std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out += c;
  }
  return out + "\"";
}

template <class T>
std::string opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}

class Csv : public Exporter {
 public:
  std::string file_name() const override { return "results.csv"; }
  std::string render(const Report& r) const override {
    std::string out =
        "index,label,repeat,setting,device,stopped_by,detail,held_bytes,steps,step_bytes,max_allowed_bytes,"
        "swap_before_bytes,swap_after_bytes,swap_peak_bytes,peak_footprint_bytes,duration_s,exit_code,signal,"
        "allocated_bytes,driver_bytes,allocator_peak_bytes,"  // the allocator's own counts (empty: none)
        "guard_signal,peak_footprint_source\n";  // issue 41 (empty: not known, folders before it)
    for (const auto& x : r.runs)
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{},{}\n", x.index, csv(x.label),
                         x.repeat, csv(describe_env(x.env)), csv(x.device), csv(x.stopped_by), csv(x.detail),
                         x.held_bytes, x.steps, x.step_bytes, opt(x.max_allowed_bytes), x.swap_before_bytes,
                         x.swap_after_bytes, x.swap_peak_bytes, opt(x.peak_footprint_bytes), x.duration_s,
                         opt(x.exit_code), opt(x.signal), opt(x.allocated_bytes), opt(x.driver_bytes),
                         opt(x.allocator_peak_bytes), csv(x.guard_signal), csv(x.peak_footprint_source));
    return out;
  }
};

}  // namespace

std::unique_ptr<Exporter> make_csv_exporter() { return std::make_unique<Csv>(); }

}  // namespace wmb
