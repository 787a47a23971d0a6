// Asks the fill child for its hello only (torch version, library, recommended max) without
// filling anything: `wmbench-fill --device D --hello-only`.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wmb {

std::optional<nlohmann::json> fetch_child_hello(const std::string& device);
std::optional<nlohmann::json> fetch_child_hello(const std::string& fill_path, const std::string& device,
                                                std::string* error);

}  // namespace wmb
