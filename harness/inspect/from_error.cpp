#include "inspect/from_error.h"

#include <iostream>

#include <fmt/format.h>

#include "errparse/error_parser.h"
#include "explain/explain.h"
#include "errparse/pasted_input.h"
#include "common/limits.h"
#include "common/units.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/watermark.h"

namespace wmb::inspect {

std::optional<FromError> read_from_error(const PredictArgs& a) {
  std::string text;
  if (!read_pasted_input("wmbench predict --from-error", a.from_error, text)) return std::nullopt;
  const ParsedError e = parse_error(text);
  ExplainOptions opt{a.high, a.high_given, std::nullopt, std::nullopt};
  if (a.fraction_given) opt.fraction = a.fraction;
  const auto rec = implied_recommended_max(e, opt.ratio());
  if (e.kind != ErrorKind::MpsOom || !rec || *rec == 0) {
    std::cerr << "wmbench predict --from-error: the text is not an MPS out-of-memory message with \"max allowed\" "
              << "(it reads as " << kind_name(e.kind) << ": " << e.summary
              << "); only that message implies the Mac's recommended max\n";
    return std::nullopt;
  }
  FromError f;
  f.recommended_max = *rec;
  try {
    f.other = check_other_bytes(e.other_bytes.value_or(mpsmodel::kDefaultOtherBytes),
                                     "the pasted error's \"other allocations\"");
  } catch (const UnitError& err) {
    std::cerr << "wmbench predict --from-error: " << err.what() << '\n';
    return std::nullopt;
  }
  f.step = e.requested_bytes;
  f.high = opt.ratio();
  f.high_given = a.high_given;
  f.from_fraction = a.fraction_given;
  const nlohmann::json j = explain_json(e, opt);
  if (j.contains("likely_ram_bytes") && j["likely_ram_bytes"].is_number_unsigned())
    f.likely_ram = j["likely_ram_bytes"].get<uint64_t>();
  return f;
}


nlohmann::json from_error_json(const FromError& f) {
  return {{"recommended_max_bytes", f.recommended_max}, {"other_bytes", f.other},
          {"step_bytes", f.step ? nlohmann::json(*f.step) : nlohmann::json(nullptr)},
          {"high", f.high}, {"high_given", f.high_given},
          {"limit_ratio_from", f.from_fraction ? "fraction" : f.high_given ? "high" : "default"},
          {"likely_ram_bytes", f.likely_ram ? nlohmann::json(*f.likely_ram) : nlohmann::json(nullptr)}};
}

std::string from_error_line(const FromError& f) {
  return fmt::format("From the pasted error: recommended max {} (max allowed / {} {}), other allocations {}, "
                     "step {}\n",
                     format_size(f.recommended_max), f.from_fraction ? "memory fraction" : "HIGH",
                     mpsmodel::format_ratio(f.high), format_size(f.other), f.step ? format_size(*f.step) : "?");
}

// The message is the same for the HIGH variable and set_per_process_memory_fraction(F), which
// replaces HIGH: say which ratio was used and that it may be either (issue 30).
std::string from_error_source(const FromError& f) {
  return f.from_fraction
             ? fmt::format("--from-error: max allowed / memory fraction {} (--fraction: set_per_process_memory_fraction "
                           "replaces HIGH)",
                           mpsmodel::format_ratio(f.high))
             : fmt::format("--from-error: max allowed / HIGH {}{}", mpsmodel::format_ratio(f.high),
                           f.high_given ? " (--high; give --fraction F if the code called set_per_process_memory_fraction(F))"
                                        : " (the default; the limit may come from PYTORCH_MPS_HIGH_WATERMARK_RATIO or "
                                          "from set_per_process_memory_fraction(F): give --high or --fraction if "
                                          "either was set)");
}
}  // namespace wmb::inspect
