// machine.json: the machine, the software, the child, the sandbox and the model of a session.
#include <fmt/format.h>

#include "build_info.h"
#include "common/files.h"
#include "common/machine_json.h"
#include "common/units.h"
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

nlohmann::json model_json(const RunnerOptions& opts, const mpsmodel::ModelledMac& m) {
  return {{"mac_ram_bytes", m.mac_ram},
          {"model_ram_bytes", m.model_ram},
          {"recommended_max_bytes", m.recommended_max},
          {"free_fraction", m.free_fraction},
          {"free_bytes", m.sandbox},
          {"note", model_note(opts, m)}};
}

}  // namespace

nlohmann::json machine_json(const RunnerOptions& opts, const MachineFacts& facts, MemoryProbe& probe,
                            const FillChild& child, const std::optional<mpsmodel::ModelledMac>& model,
                            nlohmann::json machine) {
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
  machine["model"] = model ? model_json(opts, *model) : nlohmann::json(nullptr);
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
}

}  // namespace wmb
