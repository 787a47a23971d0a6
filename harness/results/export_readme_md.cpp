// README.md of a result folder: the setup, the table, and findings read off the numbers (never
// written by hand): who stopped what, whether ones-data compressed, what the offload stages show.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/guard_signals.h"

#include "io/text_table.h"

#include "host/machine_json.h"

#include "common/units.h"
#include "mpsmodel/revision.h"
#include "results/report.h"
#include "io/utf8.h"

namespace wmb {
namespace {


uint64_t grow(const RunRecord& r) { return r.swap_after_bytes > r.swap_before_bytes ? r.swap_after_bytes - r.swap_before_bytes : 0; }

// Footprint per held byte: ~1 when every held page is resident or swapped, far below 1 when the
// OS compressed the pages (macOS compresses pages of identical values).
std::optional<double> footprint_ratio(const RunRecord& r) {
  if (!r.peak_footprint_bytes || r.held_bytes < 64 * MiB) return std::nullopt;
  return static_cast<double>(*r.peak_footprint_bytes) / static_cast<double>(r.held_bytes);
}

// Which runs' peak footprint is the kernel's own and which the samples' (folders before the key: none said).
std::string peak_source_finding(const Report& r) {
  size_t kernel = 0, sampled = 0;
  for (const auto& run : r.runs) {
    if (run.peak_footprint_source == "kernel") ++kernel;
    if (run.peak_footprint_source == "sampled") ++sampled;
  }
  if (kernel + sampled == 0) return "";
  return fmt::format("- Peak footprint: the kernel's own peak for {} runs (macOS ri_lifetime_max_phys_footprint; Linux the "
                     "sandbox cgroup's peak of memory and swap, or the child's VmHWM), wmbench's samples for {}.\n",
                     kernel, sampled);
}

std::string compression_finding(const Report& r) {
  std::vector<const RunRecord*> ones, random;
  for (const auto& run : r.runs) {
    if (run.data == "ones" || run.data == "zeros") ones.push_back(&run);
    if (run.data == "random") random.push_back(&run);
  }
  if (ones.empty() || random.empty()) return "";
  std::string out = "- **Compression trap** (ones vs random data):\n";
  std::optional<double> ro, rr;
  for (auto* o : ones)
    if (auto x = footprint_ratio(*o)) ro = std::min(ro.value_or(*x), *x);
  for (auto* o : random)
    if (auto x = footprint_ratio(*o)) rr = std::max(rr.value_or(*x), *x);
  for (auto* o : ones)
    out += fmt::format("  `{}` ({}): held {}, peak footprint {}, swap +{}, stopped by {}.\n", o->label, o->data, format_gib(o->held_bytes),
                       o->peak_footprint_bytes ? format_gib(*o->peak_footprint_bytes) : "-", format_gib(grow(*o)), o->stopped_by);
  for (auto* o : random)
    out += fmt::format("  `{}` (random): held {}, peak footprint {}, swap +{}, stopped by {}.\n", o->label, format_gib(o->held_bytes),
                       o->peak_footprint_bytes ? format_gib(*o->peak_footprint_bytes) : "-", format_gib(grow(*o)), o->stopped_by);
  if (ro && rr && *ro < 0.5 * *rr)
    out += fmt::format(
        "  The {} data took {:.0f} % of its held size in footprint, random data {:.0f} %: the OS compressed the "
        "uniform pages. A memory test with such data measures the compressor, not the limit: use random data.\n",
        ones.front()->data, *ro * 100, *rr * 100);
  else if (ro && rr)
    out += fmt::format(
        "  Both took about their held size in footprint ({:.0f} % and {:.0f} %): no page compression was seen on this "
        "machine (Linux without zswap/zram behaves so), so here ones and random data behave alike. On a Mac the ones "
        "run is expected to reach the cap without swap.\n",
        *ro * 100, *rr * 100);
  else
    out += "  Too little was held to compare footprints.\n";
  return out;
}

std::string offload_finding(const Report& r) {
  std::string out;
  for (const auto& run : r.runs) {
    if (!run.stages.is_array() || run.stages.empty()) continue;
    std::map<std::string, nlohmann::json> st;
    for (const auto& s : run.stages) st[s.value("name", "")] = s;
    auto val = [&](const char* stage, const char* key) -> std::optional<uint64_t> {
      if (!st.count(stage) || !st[stage].contains(key) || !st[stage][key].is_number()) return std::nullopt;
      return st[stage][key].get<uint64_t>();
    };
    out += fmt::format("- **Offload stages** of `{}` on {}:", run.label, md_escape(run.device));
    auto dev_on = val("on_device", "driver_bytes") ? val("on_device", "driver_bytes") : val("on_device", "allocated_bytes");
    auto dev_moved = val("moved_to_cpu", "driver_bytes") ? val("moved_to_cpu", "driver_bytes") : val("moved_to_cpu", "allocated_bytes");
    auto fp_on = val("on_device", "footprint_sampled_bytes"), fp_moved = val("moved_to_cpu", "footprint_sampled_bytes"),
         fp_read = val("cpu_read", "footprint_sampled_bytes"), fp_rel = val("released", "footprint_sampled_bytes");
    if (dev_on && dev_moved)
      out += fmt::format(" the device counted {} on the device and {} after `.to(\"cpu\")` + empty cache.", format_gib(*dev_on), format_gib(*dev_moved));
    if (fp_on && fp_moved && fp_read)
      out += fmt::format(" The process footprint went {} (on device) -> {} (moved to cpu) -> {} (cpu copy read){}.", format_gib(*fp_on),
                         format_gib(*fp_moved), format_gib(*fp_read), fp_rel ? " -> " + format_gib(*fp_rel) + " (released to meta)" : "");
    if (run.device == "cuda")
      out += " On a discrete GPU the copy to the CPU really frees device memory: the process's host footprint grows by the copy.";
    else if (run.device == "mps")
      out += " On Apple silicon CPU and GPU share one pool: moving to the CPU frees nothing the GPU could use.";
    else
      out += " On the cpu device, device and host memory are the same RAM: the copy doubles what is held until the device tensors are dropped.";
    out += "\n";
  }
  return out;
}

class ReadmeMd : public Exporter {
 public:
  std::string file_name() const override { return "README.md"; }
  std::string render(const Report& r) const override {
    const auto& m = r.machine;
    // Every value from machine.json or scenario.json is others' text: through md_escape/md_code.
    std::string out = fmt::format("# {}: {}\n\n", md_escape(r.scenario.value("name", "wmbench")),
                                  md_escape(std::string(utf8_prefix(m.value("started_utc", ""), 10))));
    if (!r.scenario.value("description", std::string()).empty())
      out += md_escape(r.scenario.value("description", std::string())) + "\n\n";
    out += "## Setup\n\n";
    out += fmt::format("- Machine: {} {}, {}, {} RAM, swap {}\n", md_escape(m.value("os", "?")), md_escape(m.value("os_version", "")),
                       md_escape(m.value("chip", "?")),
                       m.contains("ram_bytes") && m["ram_bytes"].is_number() ? format_gib(m["ram_bytes"].get<uint64_t>()) : "?",
                       m.contains("swap_total_bytes") && m["swap_total_bytes"].is_number() ? format_gib(m["swap_total_bytes"].get<uint64_t>()) : "?");
    // Which child ran (CONTRACTS.md: machine.json "child"; folders without it ran the native one).
    std::string child = "native child (wmbench-fill)";
    if (m.contains("child") && m["child"].is_object()) {
      const auto& c = m["child"];
      const std::string kind = c.contains("kind") && c["kind"].is_string() ? c["kind"].get<std::string>() : "?";
      const std::string program = c.contains("program") && c["program"].is_string() ? c["program"].get<std::string>() : "";
      child = kind + " child" + (program.empty() ? "" : " (" + program + ")");
      if (c.contains("python") && c["python"].is_object() && c["python"].contains("version") && c["python"]["version"].is_string())
        child += ", Python " + c["python"]["version"].get<std::string>();
    }
    out += fmt::format("- torch {} ({}), device {}, {}\n", md_escape(m.value("torch_version", "?")),
                       md_escape(m.contains("torch_library") && m["torch_library"].is_string() ? m["torch_library"].get<std::string>() : "library unknown"),
                       md_code(m.value("device", "?")), md_escape(child));
    out += fmt::format("- wmbench {} ({}), {} -> {}\n", md_escape(m.value("wmbench_version", "?")), md_escape(m.value("git_rev", "?")),
                       md_escape(m.value("started_utc", "?")), md_escape(m.value("ended_utc", "?")));
    if (r.scenario.contains("resolved")) {
      const auto& z = r.scenario["resolved"];
      out += fmt::format("- Step {}, cap {}, guard swap budget {}\n", format_gib(z.value("step_bytes", uint64_t{0})),
                         z.contains("cap_bytes") && z["cap_bytes"].is_number() ? format_gib(z["cap_bytes"].get<uint64_t>()) : "none",
                         format_gib(z.value("swap_budget_bytes", uint64_t{0})));
    }
    if (m.contains("model") && m["model"].is_object()) {
      const auto rev = m["model"].find("revision");
      out += "- Device mps-model: a model of a Mac's MPS allocator, " +
             (rev != m["model"].end() && rev->is_string() ? mpsmodel::revision_in_words(rev->get<std::string>())
                                                          : std::string("PyTorch revision not recorded")) +
             "\n";
    }
    if (m.contains("notes") && m["notes"].is_array())
      for (const auto& n : m["notes"]) out += "- " + md_escape(n.get<std::string>()) + "\n";
    // A paravirtual Metal device (GitHub's macOS runners) is a VM, not a Mac's own GPU: say so.
    if (const std::string vm = machine_vm_note(m); !vm.empty()) out += "- " + md_escape(vm) + "\n";
    out += "\n## Table\n\n";
    std::string table = make_table_exporter()->render(r);
    auto pos = table.find("| setting");
    out += pos == std::string::npos ? table : table.substr(pos);
    out += "\n## Findings (read off the numbers above)\n\n";
    // Each setting once per way its runs ended (repeats of a setting are one setting).
    std::map<std::string, std::vector<std::string>> by;
    for (const auto& run : r.runs) {
      // A guard stop by its signal ("guard" alone in folders written before guard_signal).
      auto& labels = by[run.stopped_by == "guard" && !run.guard_signal.empty() ? "guard:" + run.guard_signal : run.stopped_by];
      const std::string l = "`" + run.label + "`";
      if (std::find(labels.begin(), labels.end(), l) == labels.end()) labels.push_back(l);
    }
    for (const auto& [who, labels] : by) {
      std::string l;
      for (const auto& x : labels) l += (l.empty() ? "" : ", ") + x;
      const bool one = labels.size() == 1;
      std::string what = who == "guard" || who == "guard:swap"
                             ? fmt::format("slid into swap until the guard stopped {} (no error from PyTorch)", one ? "it" : "them")
                         : who.rfind("guard:", 0) == 0
                             ? fmt::format("{} stopped by the guard on {} before swap grew past its budget (no error from PyTorch)",
                                           one ? "was" : "were", guard_signal_words(who.substr(6)))
                         : who == "kernel"  ? fmt::format("{} killed by the kernel's OOM killer, not by wmbench", one ? "was" : "were")
                         : who == "pytorch" ? "got a clean out-of-memory error from PyTorch"
                         : who == "config"  ? fmt::format("{} refused by PyTorch at the first allocation (bad settings)",
                                                          one ? "was" : "were")
                         : who == "cap"     ? "reached the cap"
                                            : "ended as: " + who;
      out += fmt::format("- {} {}.\n", l, what);
    }
    for (const auto& run : r.runs)
      if (run.stopped_by == "pytorch" && grow(run) >= 64 * MiB)
        out += fmt::format("- `{}` was stopped by PyTorch but swap still grew {}: its limit lay beyond the memory that was free.\n",
                           run.label, format_gib(grow(run)));
    out += peak_source_finding(r);
    out += compression_finding(r);
    out += offload_finding(r);
    if (!r.not_run.empty()) out += fmt::format("- {} planned runs were not run (see the table).\n", r.not_run.size());
    out += "\nFiles: `summary.json`, `table.md`, `results.csv`, `runs/` (one JSON and one trace per run), `plots/`.\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<Exporter> make_readme_exporter() { return std::make_unique<ReadmeMd>(); }

}  // namespace wmb
