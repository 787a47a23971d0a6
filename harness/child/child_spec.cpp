#include "child/child_spec.h"

#include <cstdlib>

#include <fmt/format.h>

#include "child/child_command.h"
#include "child/child_python.h"
#include "common/run_error.h"
#include "scenario/sizes.h"
#include "spawn/process.h"

namespace wmb {

std::map<std::string, std::string> FillChild::environment(const std::map<std::string, std::string>& parent,
                                                          const std::map<std::string, std::string>& cell) const {
  return child_environment(parent, cell);
}

std::vector<std::string> fill_flags(const Scenario& sc, const ResolvedSizes& sizes, const std::string& data,
                                    const std::optional<mpsmodel::ModelledMac>& model,
                                    const std::string& model_revision, std::optional<double> memory_fraction,
                                    std::optional<uint64_t> model_other) {
  std::vector<std::string> f = {"--device", sc.device, "--step", std::to_string(sizes.step), "--data", data};
  if (sizes.cap) f.insert(f.end(), {"--cap", std::to_string(*sizes.cap)});
  if (sc.program != "fill") f.insert(f.end(), {"--program", sc.program});
  if (sc.step_delay > 0) f.insert(f.end(), {"--step-delay", fmt::format("{}", sc.step_delay)});
  if (sizes.offload_size) f.insert(f.end(), {"--offload-size", std::to_string(*sizes.offload_size)});
  if (model) {
    f.insert(f.end(), {"--recommended-max", std::to_string(model->recommended_max), "--model-ram",
                       std::to_string(model->model_ram), "--model-revision", model_revision});
    if (sizes.step_shrunk && sizes.unscaled_step > sizes.step)
      f.insert(f.end(), {"--model-unscaled-step", std::to_string(sizes.unscaled_step)});
    if (model_other) f.insert(f.end(), {"--model-other", std::to_string(*model_other)});
  }
  // The shortest text that reads back as the same double ("0.8", not "0.80000000000000004").
  if (memory_fraction) f.insert(f.end(), {"--memory-fraction", fmt::format("{}", *memory_fraction)});
  return f;
}

std::string chosen_child_kind(const ChildChoice& c) {
  if (!c.command.empty()) {
    if (!c.python.empty() || !c.fill_path.empty())
      throw RunRefused("--command runs your own command as the child; --fill and --python choose a fill child: give one");
    return "command";
  }
  if (!c.python.empty() && !c.fill_path.empty())
    throw RunRefused("give --fill (the native child) or --python (the Python child), not both");
  if (c.python.empty()) return "native";
  if (c.device == "mps-model")
    throw RunRefused("--python: device mps-model is the C++ child's model of the MPS allocator (wmbench-fill); "
                     "the Python child runs mps, cuda and cpu. Run mps-model without --python, or give another --device.");
  return "python";
}

std::unique_ptr<FillChild> choose_fill_child(const ChildChoice& c) {
  const std::string kind = chosen_child_kind(c);
  if (kind == "command") return command_fill_child(c.command);
  if (kind == "native") return native_fill_child(c.fill_path, c.device);
  if (c.python_facts && c.python_facts->path == c.python) return python_fill_child(*c.python_facts, c.device);
  return python_fill_child(c.python, c.device);
}

std::string apply_python_child_default(ChildChoice& c) {
  const char* env = std::getenv(kPythonChildEnv);
  if (!env || !*env || !c.python.empty() || !c.fill_path.empty()) return "";
  if (c.device == "mps-model")
    return fmt::format("{} is set, but device mps-model is the native child's model: wmbench-fill runs", kPythonChildEnv);
  c.python = env;
  return fmt::format("the Python child under {} (from {})", c.python, kPythonChildEnv);
}

std::optional<nlohmann::json> FillChild::known_hello(const std::string& device) const {
  const auto it = hellos_.find(device);
  if (it == hellos_.end()) return std::nullopt;
  return it->second;
}

void FillChild::remember_hello(const std::string& device, const nlohmann::json& hello) const {
  hellos_[device] = hello;
}

}  // namespace wmb
