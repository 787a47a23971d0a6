#include "runner/child_spec.h"

#include <fmt/format.h>

#include "runner/run_error.h"
#include "runner/runner.h"
#include "spawn/process.h"

namespace wmb {

std::map<std::string, std::string> FillChild::environment(const std::map<std::string, std::string>& parent,
                                                          const std::map<std::string, std::string>& cell) const {
  return child_environment(parent, cell);
}

std::vector<std::string> fill_flags(const Scenario& sc, const ResolvedSizes& sizes, const std::string& data,
                                    const std::optional<mpsmodel::ModelledMac>& model) {
  std::vector<std::string> f = {"--device", sc.device, "--step", std::to_string(sizes.step), "--data", data};
  if (sizes.cap) f.insert(f.end(), {"--cap", std::to_string(*sizes.cap)});
  if (sc.program != "fill") f.insert(f.end(), {"--program", sc.program});
  if (sc.step_delay > 0) f.insert(f.end(), {"--step-delay", fmt::format("{}", sc.step_delay)});
  if (sizes.offload_size) f.insert(f.end(), {"--offload-size", std::to_string(*sizes.offload_size)});
  if (model) {
    f.insert(f.end(), {"--recommended-max", std::to_string(model->recommended_max), "--model-ram",
                       std::to_string(model->model_ram)});
  }
  return f;
}

std::unique_ptr<FillChild> choose_fill_child(const RunnerOptions& opts) {
  if (opts.python.empty()) return native_fill_child(opts.fill_path);
  if (!opts.fill_path.empty()) throw RunRefused("give --fill (the native child) or --python (the Python child), not both");
  return python_fill_child(opts.python);
}

}  // namespace wmb
