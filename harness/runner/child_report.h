// What the fill child said about one run, gathered from its JSON lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wmb {

struct ChildReport {
  std::optional<nlohmann::json> hello;
  int steps = 0;
  uint64_t held_bytes = 0;
  std::optional<uint64_t> allocated_bytes;
  std::optional<uint64_t> driver_bytes;
  std::optional<std::string> error_text;
  std::optional<std::string> error_exception;
  std::optional<std::string> done_reason;
  std::vector<nlohmann::json> stages;  // program "offload"
  std::optional<uint64_t> exact_max_allowed;  // the device's own limit, to the byte (mps-model)
  std::vector<std::string> warnings;

  // Folds one protocol line in; returns false for a line of unknown type.
  bool absorb(const nlohmann::json& msg);
};

}  // namespace wmb
