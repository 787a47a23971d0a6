// `wmbench compare BASE NEW` after its flags: both folders read back, compared, printed in the
// format asked for; the exit code says regression, no regression, or not comparable.
#include "compare/compare.h"

#include "compare/comparable.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "io/json_input.h"
#include "compare/cell_settings.h"
#include "readback/folder_device.h"
#include "readback/verify_runs.h"
#include "common/units.h"
#include "results/run_record.h"
#include "results/summary_stream.h"

namespace wmb::compare {

namespace fs = std::filesystem;
using nlohmann::json;


std::optional<double> parse_tolerance(const std::string& text) {
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  if (!t.empty() && t.back() == '%') t.pop_back();
  auto v = parse_number(t);
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return *v;
}

int run_compare(const CompareOptions& opts, std::ostream& out, std::ostream& err) {
  const auto tol = parse_tolerance(opts.tolerance);
  if (!tol) {
    err << fmt::format("wmbench compare: --tolerance \"{}\": expected a percentage >= 0, e.g. 5 or 2.5\n",
                       opts.tolerance);
    return 2;
  }
  ResultFolder base, now;
  try {
    base = load_result_folder(opts.base_dir);
  } catch (const CompareError& e) {
    err << "wmbench compare: BASE: " << e.what() << "\n";
    return 2;
  }
  try {
    now = load_result_folder(opts.new_dir);
  } catch (const CompareError& e) {
    err << "wmbench compare: NEW: " << e.what() << "\n";
    return 2;
  }
  Comparison c;
  try {
    c = compare_folders(base, now, *tol);
  } catch (const std::exception& e) {
    err << "wmbench compare: " << e.what() << "\n";
    return 2;
  }
  switch (opts.format) {
    case OutputFormat::text: out << format_text(c); break;
    case OutputFormat::markdown: out << format_markdown(c); break;
    case OutputFormat::json: out << to_json(c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // a non-UTF-8 path: U+FFFD, not an internal error break;
  }
  out.flush();
  return c.exit_code();
}

}  // namespace wmb::compare
