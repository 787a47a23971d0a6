#include "readback/fields.h"

#include <cmath>

namespace wmb::compare {

bool is_size_or_null(const nlohmann::json& v) {
  if (v.is_null() || v.is_number_unsigned()) return true;
  if (v.is_number_integer()) return v.get<int64_t>() >= 0;
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && d >= 0 && d < 1.8e19;
  }
  return false;
}

std::optional<uint64_t> size_field(const nlohmann::json& run, const char* key) {
  auto it = run.find(key);
  if (it == run.end() || it->is_null()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_number_integer()) return static_cast<uint64_t>(it->get<int64_t>());
  return static_cast<uint64_t>(std::llround(it->get<double>()));
}

std::string string_field(const nlohmann::json& obj, const char* key, const std::string& fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string() || it->get<std::string>().empty()) return fallback;
  return it->get<std::string>();
}

}  // namespace wmb::compare
