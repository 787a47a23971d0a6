// Two fields of a folder's JSON as every reader takes them: a size (bytes; null or absent is
// nullopt, a float rounded) and a string (a fallback when absent, empty or not a string). The
// values were checked when the folder was read back (load_result_folder, check_summary).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wmb::compare {

// A size as a reader accepts it: null, or a number >= 0 below 2^64.
bool is_size_or_null(const nlohmann::json& v);
std::optional<uint64_t> size_field(const nlohmann::json& run, const char* key);
std::string string_field(const nlohmann::json& obj, const char* key, const std::string& fallback = "");

}  // namespace wmb::compare
