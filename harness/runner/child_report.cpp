#include "runner/child_report.h"

namespace wmb {
namespace {
std::optional<uint64_t> opt_u64(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) {
    if (it != j.end() && it->is_number_integer() && it->get<int64_t>() >= 0) return it->get<uint64_t>();
    return std::nullopt;
  }
  return it->get<uint64_t>();
}
}  // namespace

bool ChildReport::absorb(const nlohmann::json& msg) {
  if (!msg.is_object()) return false;
  const std::string type = msg.value("type", "");
  if (type == "hello") {
    hello = msg;
  } else if (type == "step") {
    steps = std::max(steps, msg.value("index", steps + 1));
    if (auto h = opt_u64(msg, "held_bytes")) held_bytes = *h;
    allocated_bytes = opt_u64(msg, "allocated_bytes");
    driver_bytes = opt_u64(msg, "driver_bytes");
  } else if (type == "error") {
    if (!error_text) {
      error_text = msg.value("text", "");
      error_exception = msg.value("exception", "");
    }
  } else if (type == "done") {
    done_reason = msg.value("reason", "");
    if (auto h = opt_u64(msg, "held_bytes")) held_bytes = *h;
  } else if (type == "stage") {
    stages.push_back(msg);
    if (auto h = opt_u64(msg, "held_bytes")) held_bytes = *h;
    allocated_bytes = opt_u64(msg, "allocated_bytes");
    driver_bytes = opt_u64(msg, "driver_bytes");
  } else if (type == "limit") {
    exact_max_allowed = opt_u64(msg, "max_allowed_bytes");
  } else if (type == "warning") {
    warnings.push_back(msg.value("text", ""));
  } else {
    return false;
  }
  return true;
}

}  // namespace wmb
