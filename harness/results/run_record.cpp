#include "results/run_record.h"

#include <fmt/format.h>

namespace wmb {
namespace {

template <class T>
nlohmann::json o(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> get_opt(const nlohmann::json& j, const char* k) {
  auto it = j.find(k);
  if (it == j.end() || it->is_null()) return std::nullopt;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

template <class T>
T get_or(const nlohmann::json& j, const char* k, T dflt) {
  return get_opt<T>(j, k).value_or(dflt);
}

}  // namespace

std::string RunRecord::file_stem() const { return fmt::format("{:02d}-{}", index, label); }

nlohmann::json to_json(const RunRecord& r) {
  return {
      {"index", r.index},
      {"label", r.label},
      {"repeat", r.repeat},
      {"env", r.env},
      {"device", r.device},
      {"data", r.data},
      {"program", r.program},
      {"stopped_by", r.stopped_by},
      {"detail", r.detail},
      {"error_text", o(r.error_text)},
      {"error", r.error},
      {"held_bytes", r.held_bytes},
      {"steps", r.steps},
      {"step_bytes", r.step_bytes},
      {"cap_bytes", o(r.cap_bytes)},
      {"max_allowed_bytes", o(r.max_allowed_bytes)},
      {"allocated_bytes", o(r.allocated_bytes)},
      {"driver_bytes", o(r.driver_bytes)},
      {"recommended_max_bytes", o(r.recommended_max_bytes)},
      {"swap_before_bytes", r.swap_before_bytes},
      {"swap_after_bytes", r.swap_after_bytes},
      {"swap_peak_bytes", r.swap_peak_bytes},
      {"swap_end_bytes", o(r.swap_end_bytes)},
      {"peak_footprint_bytes", o(r.peak_footprint_bytes)},
      {"peak_sandbox_bytes", o(r.peak_sandbox_bytes)},
      {"started_utc", r.started_utc},
      {"ended_utc", r.ended_utc},
      {"duration_s", r.duration_s},
      {"wait_s", r.wait_s},
      {"stop_latency_s", o(r.stop_latency_s)},
      {"exit_code", o(r.exit_code)},
      {"signal", o(r.signal)},
      {"trace", r.trace},
      {"torch_version", r.torch_version},
      {"child_env", r.child_env},
      {"stages", r.stages},
      {"warnings", r.warnings},
  };
}

RunRecord run_from_json(const nlohmann::json& j) {
  RunRecord r;
  r.index = get_or<int>(j, "index", 0);
  r.label = get_or<std::string>(j, "label", "");
  r.repeat = get_or<int>(j, "repeat", 1);
  r.env = get_or<std::map<std::string, std::string>>(j, "env", {});
  r.device = get_or<std::string>(j, "device", "");
  r.data = get_or<std::string>(j, "data", "random");
  r.program = get_or<std::string>(j, "program", "fill");
  r.stopped_by = get_or<std::string>(j, "stopped_by", "");
  r.detail = get_or<std::string>(j, "detail", "");
  r.error_text = get_opt<std::string>(j, "error_text");
  r.error = j.value("error", nlohmann::json(nullptr));
  r.held_bytes = get_or<uint64_t>(j, "held_bytes", 0);
  r.steps = get_or<int>(j, "steps", 0);
  r.step_bytes = get_or<uint64_t>(j, "step_bytes", 0);
  r.cap_bytes = get_opt<uint64_t>(j, "cap_bytes");
  r.max_allowed_bytes = get_opt<uint64_t>(j, "max_allowed_bytes");
  r.allocated_bytes = get_opt<uint64_t>(j, "allocated_bytes");
  r.driver_bytes = get_opt<uint64_t>(j, "driver_bytes");
  r.recommended_max_bytes = get_opt<uint64_t>(j, "recommended_max_bytes");
  r.swap_before_bytes = get_or<uint64_t>(j, "swap_before_bytes", 0);
  r.swap_after_bytes = get_or<uint64_t>(j, "swap_after_bytes", 0);
  r.swap_peak_bytes = get_or<uint64_t>(j, "swap_peak_bytes", 0);
  r.swap_end_bytes = get_opt<uint64_t>(j, "swap_end_bytes");
  r.peak_footprint_bytes = get_opt<uint64_t>(j, "peak_footprint_bytes");
  r.peak_sandbox_bytes = get_opt<uint64_t>(j, "peak_sandbox_bytes");
  r.started_utc = get_or<std::string>(j, "started_utc", "");
  r.ended_utc = get_or<std::string>(j, "ended_utc", "");
  r.duration_s = get_or<double>(j, "duration_s", 0);
  r.wait_s = get_or<double>(j, "wait_s", 0);
  r.stop_latency_s = get_opt<double>(j, "stop_latency_s");
  r.exit_code = get_opt<int>(j, "exit_code");
  r.signal = get_opt<int>(j, "signal");
  r.trace = get_or<std::string>(j, "trace", "");
  r.torch_version = get_or<std::string>(j, "torch_version", "");
  r.stages = j.value("stages", nlohmann::json(nullptr));
  r.child_env = j.value("child_env", nlohmann::json(nullptr));
  r.warnings = get_or<std::vector<std::string>>(j, "warnings", {});
  return r;
}

}  // namespace wmb
