#include "scenario/wired_limit.h"

#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "io/utf8.h"

namespace wmb {
namespace {

constexpr const char* kAllowed =
    "allowed: an integer number of MiB from 0 (the system default) up to below the RAM, as `sysctl "
    "iogpu.wired_limit_mb=N` takes it, or a share of RAM such as \"80%RAM\" (above 0, below 100)";

WiredLimit percent_of_ram(std::string_view t, std::string_view whole) {
  const auto pct = parse_number(t.substr(0, t.size() - 4));
  if (!pct || !(*pct > 0) || !(*pct < 100))
    throw UnitError(fmt::format("value \"{}\" is not allowed; {}", utf8_sanitize(std::string(whole), 64), kAllowed));
  WiredLimit w;
  w.percent_ram = *pct;
  w.text = std::string(whole);
  return w;
}

bool ends_with_ram(std::string_view t) {
  return t.size() > 4 && t.substr(t.size() - 4) == "%RAM";
}

}  // namespace

WiredLimit wired_limit_from_json(const nlohmann::json& v) {
  if (v.is_number_integer()) {  // unsigned included
    if (!v.is_number_unsigned() && v.get<int64_t>() < 0)
      throw UnitError(fmt::format("value {} is negative; {}", v.dump(), kAllowed));
    const uint64_t n = v.is_number_unsigned() ? v.get<uint64_t>() : static_cast<uint64_t>(v.get<int64_t>());
    if (n > kMaxWiredLimitMiB) throw UnitError(fmt::format("value {} MiB is more than any Mac's RAM; {}", n, kAllowed));
    return WiredLimit{n, std::nullopt, std::to_string(n)};
  }
  if (v.is_string() && ends_with_ram(v.get_ref<const std::string&>()))
    return percent_of_ram(v.get_ref<const std::string&>(), v.get_ref<const std::string&>());
  const std::string shown = v.is_string() ? "\"" + utf8_sanitize(v.get<std::string>(), 64) + "\"" : v.dump().substr(0, 64);
  throw UnitError(fmt::format("value {} is a {}; {}", shown, v.type_name(), kAllowed));
}

WiredLimit parse_wired_limit(std::string_view text) {
  if (ends_with_ram(text)) return percent_of_ram(text, text);
  const bool digits = !text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (digits) return wired_limit_from_json(nlohmann::json(std::stoull(std::string(text))));
  uint64_t bytes = 0;
  try {
    bytes = parse_size(text);
  } catch (const UnitError&) {
    throw UnitError(fmt::format("value \"{}\" is not allowed; {}, or a size such as \"12000MiB\"",
                                utf8_sanitize(std::string(text), 64), kAllowed));
  }
  if (bytes < MiB || bytes / MiB > kMaxWiredLimitMiB)
    throw UnitError(fmt::format("value \"{}\" is not allowed; {}", utf8_sanitize(std::string(text), 64), kAllowed));
  return WiredLimit{bytes / MiB, std::nullopt, std::string(text)};
}

nlohmann::json to_json(const WiredLimit& w) {
  if (w.percent_ram) return w.text;
  return w.mib;
}

uint64_t resolve_wired_limit_mib(const WiredLimit& w, uint64_t ram) {
  if (w.system_default()) return 0;
  const uint64_t ram_mib = ram / MiB;
  const uint64_t mib = w.percent_ram
                           ? static_cast<uint64_t>(std::floor(*w.percent_ram / 100.0 * static_cast<double>(ram_mib)))
                           : w.mib;
  if (mib < 1 || mib >= ram_mib)
    throw UnitError(fmt::format("value {} ({} MiB) is not below the RAM of {} ({} MiB); {}", w.text, mib,
                                format_size(ram), ram_mib, kAllowed));
  return mib;
}

std::string wired_limit_set_line(uint64_t mib) { return fmt::format("sudo sysctl {}={}", kWiredLimitKey, mib); }

std::string wired_limit_restore_line(uint64_t found_mib) {
  return wired_limit_set_line(found_mib) + (found_mib == 0 ? "   (0: the system default; a reboot also resets it)" : "");
}

}  // namespace wmb
