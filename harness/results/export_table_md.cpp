// table.md in the write-up's shape: setting | who stopped | tensors held | swap during the run |
// max allowed (plus the peak footprint the parent sampled). Repeats of one setting share a row:
// median (min-max) held memory and the stop reasons counted ("guard x3").
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/guard_signals.h"

#include "io/text_table.h"

#include "common/units.h"
#include "mpsmodel/revision.h"
#include "results/report.h"
#include "io/utf8.h"

namespace wmb {
namespace {


std::string swap_cell(const RunRecord& r) {
  const int64_t delta = static_cast<int64_t>(r.swap_after_bytes) - static_cast<int64_t>(r.swap_before_bytes);
  const uint64_t grow_peak = r.swap_peak_bytes > r.swap_before_bytes ? r.swap_peak_bytes - r.swap_before_bytes : 0;
  if (grow_peak < MiB && std::llabs(delta) < static_cast<int64_t>(MiB))
    return fmt::format("no change ({})", format_gib(r.swap_before_bytes));
  return fmt::format("{} -> {} ({}{:.2f} GiB)", format_gib(r.swap_before_bytes), format_gib(r.swap_after_bytes), delta >= 0 ? "+" : "-",
                     static_cast<double>(std::llabs(delta)) / GiB);
}

std::string who_cell(const RunRecord& r) {
  if (r.stopped_by == "pytorch" && r.max_allowed_bytes)
    return fmt::format("PyTorch, max allowed {}", format_gib(*r.max_allowed_bytes));
  if (r.stopped_by == "pytorch") return "PyTorch";
  if (r.stopped_by == "config") {
    std::string t = r.error_text.value_or(r.detail);
    t = t.substr(0, t.find('\n'));
    if (t.size() > 80) t = std::string(utf8_prefix(t, 77)) + "...";
    return fmt::format("config: {}", t);
  }
  if (r.stopped_by == "exited" && r.exit_code) return fmt::format("exited ({})", *r.exit_code);
  // Which signal (folders before issue 41 have none: "guard" alone, as they were).
  if (r.stopped_by == "guard" && !r.guard_signal.empty()) return fmt::format("guard ({})", guard_signal_words(r.guard_signal));
  if (r.stopped_by == "kernel") return "kernel (OOM killer)";
  return r.stopped_by;
}

// The child that ran (CONTRACTS.md: machine.json "child".kind; folders without it: native).
std::string child_kind(const nlohmann::json& m) {
  if (m.contains("child") && m["child"].is_object() && m["child"].contains("kind") && m["child"]["kind"].is_string())
    return m["child"]["kind"].get<std::string>();
  return "native";
}

// machine.json "model.revision" in words; folders made before revisions were modelled have none.
std::string model_revision_text(const nlohmann::json& model) {
  const auto it = model.find("revision");
  if (it == model.end() || !it->is_string()) return "PyTorch revision not recorded";
  const std::string name = it->get<std::string>();
  const std::string words = mpsmodel::revision_in_words(name);
  // A name wmbench does not know is a contributed folder's text: through the Markdown helper.
  return words.find("not one wmbench knows") == std::string::npos
             ? words
             : "PyTorch revision " + md_code(name) + " (not one wmbench knows)";
}

std::string opt_gib(const std::optional<uint64_t>& v) { return v ? format_gib(*v) : "-"; }

uint64_t median(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The lines on the machine under the title: device, chip, RAM, torch and child; sandbox; model.
std::string machine_lines(const nlohmann::json& m, const std::string& device, bool cuda) {
  std::string out;
  auto num = [&](const char* k) -> std::optional<uint64_t> {
    if (m.contains(k) && m[k].is_number()) return m[k].get<uint64_t>();
    return std::nullopt;
  };
  // Every value from machine.json is a contributed folder's text: one Markdown helper for each.
  out += fmt::format("Device {} on {} ({} RAM{}), torch {} ({} child), {}.\n", md_code(device), md_escape(m.value("chip", "?")),
                     num("ram_bytes") ? format_gib(*num("ram_bytes")) : "?",
                     num("recommended_max_bytes")
                         ? (cuda ? ", device memory " : ", recommended max ") + format_gib(*num("recommended_max_bytes"))
                         : "",
                     md_escape(m.value("torch_version", "?")), md_escape(child_kind(m)), md_escape(m.value("started_utc", "?")));
  if (m.contains("sandbox") && m["sandbox"].is_object())
    out += fmt::format("Runs in a Linux memory sandbox of {} ({}).\n",
                       format_gib(m["sandbox"].value("ram_limit_bytes", uint64_t{0})), md_escape(m["sandbox"].value("kind", "")));
  if (m.contains("model") && m["model"].is_object())
    out += fmt::format("**This is a model of a Mac** (device mps-model, {}): {}\n", model_revision_text(m["model"]),
                       md_escape(m["model"].value("note", "")));
  return out;
}

// The table's header row and separator (cuda adds the device allocated and reserved columns).
std::string table_head(bool cuda) {
  std::string out;
  if (cuda) {
    out += "\n| setting | who stopped | tensors held | swap during the run | max allowed | device allocated | "
           "device reserved | peak host footprint |\n";
    out += "|---|---|---|---|---|---|---|---|\n";
  } else {
    out += "\n| setting | who stopped | tensors held | swap during the run | max allowed | peak footprint |\n";
    out += "|---|---|---|---|---|---|\n";
  }
  return out;
}

// cuda's cells of PyTorch's allocated and reserved bytes at the stop (allocated_bytes; driver_bytes = reserved_bytes, fill/device_cuda.cpp).
std::string device_cells(const RunRecord& run, bool cuda) {
  return cuda ? fmt::format(" {} | {} |", opt_gib(run.allocated_bytes), opt_gib(run.driver_bytes)) : std::string();
}

// A row's setting cell: the label, and its env, memory fraction and data in words where they differ from it.
std::string setting_cell(const std::string& label, const RunRecord& first) {
  std::string env = describe_env(first.env);
  // The limit set the way code sets it (set_per_process_memory_fraction), beside the variables.
  if (first.memory_fraction) {
    const std::string f = fmt::format("memory_fraction {}", *first.memory_fraction);
    env = first.env.empty() ? f : env + ", " + f;
  }
  if (first.data != "random") env += ", data " + first.data;
  return env == label ? md_code(label) : fmt::format("{} ({})", md_code(label), md_escape(env));
}

// The row of a setting with one run: that run's values.
std::string one_run_row(const std::string& setting, const RunRecord& first, bool cuda) {
  // A job's (program "command") held bytes are unknown: its peak footprint is the figure.
  return fmt::format("| {} | {} | {} | {} | {} |{} {} |\n", setting, md_escape(who_cell(first)),
                     first.program == "command" ? std::string("-") : format_gib(first.held_bytes),
                     swap_cell(first), first.max_allowed_bytes ? format_gib(*first.max_allowed_bytes) : "-",
                     device_cells(first, cuda), first.peak_footprint_bytes ? format_gib(*first.peak_footprint_bytes) : "-");
}

// The row of a setting with repeats `g`: stop reasons counted, median (min-max) held, median swap growth.
std::string repeats_row(const std::string& setting, const std::vector<const RunRecord*>& g, bool cuda) {
  const RunRecord& first = *g.front();
  std::map<std::string, int> who;
  std::vector<uint64_t> held, grow, foot;
  std::optional<uint64_t> maxa;
  for (const auto* run : g) {
    who[who_cell(*run)]++;
    held.push_back(run->held_bytes);
    grow.push_back(run->swap_after_bytes > run->swap_before_bytes ? run->swap_after_bytes - run->swap_before_bytes : 0);
    if (run->peak_footprint_bytes) foot.push_back(*run->peak_footprint_bytes);
    if (run->max_allowed_bytes) maxa = run->max_allowed_bytes;
  }
  std::string who_s;
  for (const auto& [w, n] : who) who_s += fmt::format("{}{} x{}", who_s.empty() ? "" : ", ", w, n);
  const auto [mn, mx] = std::minmax_element(held.begin(), held.end());
  return fmt::format("| {} | {} | {} ({} - {}), {} runs | median +{} | {} |{} {} |\n", setting, md_escape(who_s),
                     format_gib(median(held)), format_gib(*mn), format_gib(*mx), g.size(), format_gib(median(grow)), maxa ? format_gib(*maxa) : "-",
                     device_cells(first, cuda), foot.empty() ? "-" : format_gib(median(foot)));
}

// The offload program's stages (write-up 000): footprint, device driver count, held; a table per run that has them.
std::string stage_tables(const Report& r, bool cuda) {
  std::string out;
  for (const auto& run : r.runs) {
    if (!run.stages.is_array() || run.stages.empty()) continue;
    out += fmt::format("\n## Stages of `{}` (repeat {})\n\n", run.label, run.repeat);
    out += fmt::format("| step | footprint (parent) | footprint (child) | device allocated | device {} | held |\n"
                       "|---|---|---|---|---|---|\n",
                       cuda ? "reserved" : "driver");
    auto cell = [](const nlohmann::json& st, const char* k) {
      return st.contains(k) && st[k].is_number() ? format_gib(st[k].get<uint64_t>()) : std::string("-");
    };
    for (const auto& st : run.stages)
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md_escape(st.value("name", "?")), cell(st, "footprint_sampled_bytes"),
                         cell(st, "footprint_bytes"), cell(st, "allocated_bytes"), cell(st, "driver_bytes"),
                         cell(st, "held_bytes"));
  }
  return out;
}

// The closing paragraph: what held, swap and peak footprint mean (and device memory on cuda).
std::string footnote(bool cuda) {
  std::string out;
  out += "\nHeld = bytes of tensors the fill child held when it stopped. Swap = the system's swap used at the start -> at the end of the run "
         "(the last reading while the child still held its memory). Peak footprint = the child's resident + swapped memory, "
         "sampled by the parent.";
  if (cuda)
    out += " On cuda the tensors live in device memory: device allocated and reserved are PyTorch's caching-allocator "
           "counts when the fill stopped, and the peak host footprint is the process's memory on the host.";
  out += "\n";
  return out;
}

class TableMd : public Exporter {
 public:
  std::string file_name() const override { return "table.md"; }
  std::string render(const Report& r) const override {
    std::string out;
    const std::string name = r.scenario.value("name", "wmbench");
    out += fmt::format("# {}\n\n", md_escape(name));
    const auto& m = r.machine;
    const std::string device = m.value("device", r.scenario.value("device", "?"));
    // On cuda machine.json's recommended_max_bytes holds the device's total memory: say so.
    const bool cuda = device == "cuda";
    out += machine_lines(m, device, cuda);
    out += table_head(cuda);
    // Group by label, in order of first appearance.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const RunRecord*>> groups;
    for (const auto& run : r.runs) {
      if (!groups.count(run.label)) order.push_back(run.label);
      groups[run.label].push_back(&run);
    }
    for (const auto& label : order) {
      const auto& g = groups[label];
      const RunRecord& first = *g.front();
      const std::string setting = setting_cell(label, first);
      if (g.size() == 1) {
        out += one_run_row(setting, first, cuda);
        continue;
      }
      out += repeats_row(setting, g, cuda);
    }
    for (const auto& n : r.not_run)
      out += fmt::format("| {} (repeat {}) | not run: {} | - | - | - |{} - |\n", md_code(n.label), n.repeat, md_escape(n.why),
                         cuda ? " - | - |" : "");
    out += stage_tables(r, cuda);
    out += footnote(cuda);
    return out;
  }
};

}  // namespace

std::unique_ptr<Exporter> make_table_exporter() { return std::make_unique<TableMd>(); }

}  // namespace wmb
