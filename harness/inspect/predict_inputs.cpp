#include "inspect/predict_inputs.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "child/child_info.h"
#include "common/run_error.h"
#include "common/limits.h"
#include "common/units.h"
#include "host/platform.h"
#include "mpsmodel/macos_memory.h"
#include "probe/probe.h"
#include "scenario/sizes.h"
#include "scenario/wired_limit.h"

namespace wmb::inspect {

namespace {

// This machine's free fraction (0..1) and RAM as the probe sees them.
struct FreeNow {
  double fraction;
  uint64_t ram;
  std::string source;
};
std::optional<FreeNow> free_now(std::vector<std::string>& warnings) {
  try {
    auto probe = make_platform_probe();
    const auto sys = probe->system();
    if (sys.ram_total > 0 && sys.level >= 0 && sys.level <= 100)
      return FreeNow{sys.level / 100.0, sys.ram_total, "probe " + probe->name()};
  } catch (const std::exception& e) {
    warnings.push_back(std::string("memory probe failed: ") + e.what());
  }
  return std::nullopt;
}

// --wired-limit: Metal's recommended max follows iogpu.wired_limit_mb (scenario/wired_limit.h), so
// it is the recommended max; 0 (the system default) leaves the estimate or MPS's own value.
void apply_wired_limit(const PredictArgs& a, MachineView& v) {
  if (a.wired_limit.empty()) return;
  if (!a.recommended_max.empty())
    throw UnitError("--wired-limit and --recommended-max both say the recommended max; give one");
  uint64_t mib = 0;
  try {
    mib = resolve_wired_limit_mib(parse_wired_limit(a.wired_limit), v.ram);
  } catch (const UnitError& e) {
    throw UnitError(std::string("--wired-limit: ") + e.what());
  }
  if (mib == 0) return;
  v.wired_limit_mib = mib;
  v.recommended_max = check_model_bytes(mib * MiB, "--wired-limit");
  v.recommended_source = fmt::format(
      "--wired-limit: iogpu.wired_limit_mb={}, which Metal's recommended max follows (AlexsJones/llmfit#754, "
      "antirez/ds4#893, Andyyyy64/whichllm#152)",
      mib);
}

}  // namespace

MachineView gather(const PredictArgs& a, std::vector<std::string>& warnings) {
  MachineView v;
  const auto now = free_now(warnings);
  if (!a.ram.empty()) {
    v.ram = check_model_bytes(parse_size(a.ram), "--ram");
    v.ram_source = "--ram";
  } else if (now && now->ram > 0) {
    v.ram = now->ram;
    v.ram_source = "this machine";
  } else {
    v.ram = machine_facts().ram_bytes;
    v.ram_source = "this machine";
  }

  if (!a.recommended_max.empty()) {
    v.recommended_max = check_model_bytes(parse_size(a.recommended_max), "--recommended-max");
    v.recommended_source = "--recommended-max";
  }
  apply_wired_limit(a, v);
#ifdef __APPLE__
  constexpr bool on_a_mac = true;
#else
  constexpr bool on_a_mac = false;
#endif
  if (v.recommended_source.empty() && a.ram.empty() && (on_a_mac || !a.python.empty())) {
    // MPS says it: recommendedMaxWorkingSetSize, from the fill child's hello (the same child
    // `wmbench run` would start: --python, $WMBENCH_PYTHON_CHILD, or wmbench-fill).
    std::string why;
    try {
      const ChildHello ch = ask_child_hello(ChildChoice{"", a.python, "mps", {}, nullptr});
      const nlohmann::json rec = ch.hello ? ch.hello->value("recommended_max_bytes", nlohmann::json()) : nlohmann::json();
      if (rec.is_number_unsigned() && rec.get<uint64_t>() > 0) {
        v.recommended_max = rec.get<uint64_t>();
        v.recommended_source = fmt::format("MPS ({} child, {})", ch.child.value("kind", "?"), ch.program);
      } else {
        why = ch.hello ? "its hello has no recommended max (torch.mps.recommended_max_memory needs torch 2.5)" : ch.error;
      }
    } catch (const RunRefused& e) {
      if (!a.python.empty()) throw;  // an interpreter given explicitly that cannot be used: exit 2
      why = e.what();
    }
    if (v.recommended_source.empty())
      warnings.push_back("could not ask MPS for the recommended max (the fill child with --device mps --hello-only: " +
                         why + "); using the estimate for this RAM");
  } else if (!a.python.empty()) {
    warnings.push_back("--python is not asked: --ram or --recommended-max says the recommended max");
  }
  if (v.recommended_source.empty()) {
    v.recommended_max = mpsmodel::recommended_max_for_ram(v.ram);
    v.recommended_source = fmt::format("estimate for {} RAM (mpsmodel/macos_memory.h)", format_size(v.ram));
    v.recommended_basis = mpsmodel::recommended_basis(v.ram);
  }

  if (!a.free.empty()) {
    v.free = parse_size(a.free);
    v.free_source = "--free";
  } else if (now) {
    if (a.ram.empty()) {
      v.free = static_cast<uint64_t>(now->fraction * static_cast<double>(v.ram));
      v.free_source = fmt::format("free now, {:.1f} % ({})", 100.0 * now->fraction, now->source);
    } else {
      // Another Mac: assume it has the same share free as this machine now.
      v.free = static_cast<uint64_t>(now->fraction * static_cast<double>(v.ram));
      v.free_source = fmt::format("{:.1f} % of --ram, the share free on this machine now ({}); use --free to set",
                                  100.0 * now->fraction, now->source);
    }
  } else {
    v.free_source = "unknown";
    warnings.push_back("free memory unknown (the memory probe failed); use --free SIZE");
  }
  if (v.free && *v.free > v.ram) warnings.push_back("--free is larger than the RAM");
  v.known_range = mpsmodel::known_range_text(v.ram);
  return v;
}

mpsmodel::FillPlan fill_plan(const std::optional<Scenario>& sc, const MachineView& m,
                                  const std::string& revision) {
  mpsmodel::FillPlan plan;
  plan.params.revision = revision;
  plan.params.max_buffer = mpsmodel::estimated_max_buffer(m.ram);
  plan.max_buffer_source = "estimate: 9/16 of RAM (mpsmodel/heap_allocator.h)";
  if (sc) {
    const ResolvedSizes z = resolve_sizes(*sc, m.ram);
    plan.step = z.step;
    plan.cap = z.cap;
  } else {
    plan.step = 512 * MiB;
    plan.cap = static_cast<uint64_t>(0.95 * static_cast<double>(m.ram));
  }
  return plan;
}

std::vector<mpsmodel::Setting> settings_of(const Scenario& sc) {
  std::vector<mpsmodel::Setting> v;
  for (const auto& c : sc.matrix) v.push_back({c.label, c.env, c.memory_fraction, std::nullopt});
  return v;
}

}  // namespace wmb::inspect

namespace wmb::inspect {

void apply_cell_wired_limits(const Scenario& sc, uint64_t ram, std::vector<mpsmodel::Setting>& cells) {
  for (size_t i = 0; i < sc.matrix.size() && i < cells.size(); ++i) {
    const Cell& c = sc.matrix[i];
    if (!c.wired_limit) continue;
    try {
      const uint64_t mib = resolve_wired_limit_mib(*c.wired_limit, ram);
      if (mib) cells[i].wired_limit_mib = mib;
    } catch (const UnitError& e) {
      throw UnitError(fmt::format("cell \"{}\": key \"sysctl\".\"{}\": {}", c.label, kWiredLimitKey, e.what()));
    }
  }
}

}  // namespace wmb::inspect
