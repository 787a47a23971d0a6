// machine.json: the machine, the software, the child, the sandbox and the model of a session.
#include <fmt/format.h>

#include "build_info.h"
#include "io/files.h"
#include "host/machine_json.h"
#include "common/units.h"
#include "mpsmodel/revision.h"
#include "runner/stages.h"
#include "sandbox/sandbox.h"

namespace wmb {
namespace {

std::string model_note(const RunnerOptions& opts, const mpsmodel::ModelledMac& m) {
  if (opts.recommended_max)
    return fmt::format("the MPS allocator's limit policy on real CPU memory, with the recommended max "
                       "given on the command line ({}){}. Not a measurement of a Mac.",
                       format_size(m.recommended_max),
                       opts.ram_limit ? ", in a " + format_size(*opts.ram_limit) + " sandbox" : ", no sandbox");
  return fmt::format("the MPS allocator's limit policy on real CPU memory. It stands for a {} Mac "
                     "scaled down so that its free memory ({}) is the sandbox; modelled RAM {}, "
                     "recommended max {}. Not a measurement of a Mac.",
                     format_size(m.mac_ram), format_size(m.sandbox), format_size(m.model_ram),
                     format_size(m.recommended_max));
}

// The runner's side of the model; the child's side (other_bytes, max_buffer_bytes, tier_scale,
// and the revision as the child understood it) comes with its hello (note_child_hello).
nlohmann::json model_json(const RunnerOptions& opts, const mpsmodel::ModelledMac& m, const ResolvedSizes& sizes) {
  const bool unscaled = sizes.step_shrunk && sizes.unscaled_step > sizes.step;  // fill_flags passes it then
  // "version": the model's own (mpsmodel/revision.h kModelVersion), so compare/history can tell
  // folders of another model apart; the child's hello says it too and wins (note_model_hello).
  return {{"version", mpsmodel::kModelVersion},
          {"mac_ram_bytes", m.mac_ram},
          {"model_ram_bytes", m.model_ram},
          {"recommended_max_bytes", m.recommended_max},
          {"free_fraction", m.free_fraction},
          {"free_bytes", m.sandbox},
          {"revision", opts.model_revision},
          {"unscaled_step_bytes", unscaled ? nlohmann::json(sizes.unscaled_step) : nlohmann::json(nullptr)},
          {"note", model_note(opts, m)}};
}

// The hello's "model" object (fill/device_mps_model.cpp model_json), key by key, each only with
// the type it must have: the child's bytes are not trusted blindly.
void note_model_hello(nlohmann::json& model, const nlohmann::json& hello_model) {
  if (!hello_model.is_object()) return;
  const auto copy = [&](const char* key, bool (nlohmann::json::*is)() const noexcept, bool nullable) {
    const auto it = hello_model.find(key);
    if (it != hello_model.end() && (((*it).*is)() || (nullable && it->is_null()))) model[key] = *it;
  };
  copy("revision", &nlohmann::json::is_string, false);
  copy("version", &nlohmann::json::is_number_unsigned, false);
  copy("other_bytes", &nlohmann::json::is_number_unsigned, false);
  copy("max_buffer_bytes", &nlohmann::json::is_number_unsigned, true);
  copy("tier_scale", &nlohmann::json::is_number, false);
}

}  // namespace

nlohmann::json machine_json(const RunnerOptions& opts, const MachineFacts& facts, MemoryProbe& probe,
                            const FillChild& child, const std::optional<mpsmodel::ModelledMac>& model,
                            const ResolvedSizes& sizes, nlohmann::json machine) {
  uint64_t swap_total = 0;
  try {
    swap_total = probe.system().swap_total;
  } catch (const ProbeError&) {
  }
  machine.update(machine_facts_json(facts));
  machine.update({{"swap_total_bytes", swap_total},
                  {"device", opts.scenario.device},
                  {"probe", probe.name()},
                  {"wmbench_version", WMBENCH_VERSION},
                  {"git_rev", WMBENCH_GIT_REV},
                  {"fill", child.program()},
                  {"child", child.describe()},
                  {"notes", opts.notes}});
  if (!machine.contains("started_utc") || opts.resume_dir.empty()) machine["started_utc"] = utc_now_iso();
  machine["sandbox"] = opts.ram_limit
                           ? nlohmann::json{{"ram_limit_bytes", *opts.ram_limit}, {"kind", sandbox_support(false).kind}}
                           : nlohmann::json(nullptr);
  machine["model"] = model ? model_json(opts, *model, sizes) : nlohmann::json(nullptr);
  if (model) machine["recommended_max_bytes"] = model->recommended_max;
  return machine;
}

void note_child_hello(nlohmann::json& machine, const nlohmann::json& hello, bool modelled,
                      std::optional<uint64_t> recommended_max) {
  machine["torch_version"] = hello.value("torch_version", "");
  machine["torch_library"] = hello.value("torch_library", nlohmann::json(nullptr));
  if (hello.contains("torch_git_version") && hello["torch_git_version"].is_string())
    machine["torch_git_version"] = hello["torch_git_version"];
  if (!modelled && recommended_max) machine["recommended_max_bytes"] = *recommended_max;
  const auto m = hello.find("model");
  if (modelled && m != hello.end() && machine.contains("model") && machine["model"].is_object())
    note_model_hello(machine["model"], *m);
}

}  // namespace wmb
