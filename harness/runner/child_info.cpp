#include "runner/child_info.h"

#include "common/json_input.h"
#include "runner/child_report.h"
#include "runner/runner.h"
#include "runner/short_command.h"

namespace wmb {
namespace {

constexpr double kHelloTimeout = 60;  // loading libtorch takes a second or two; a hung child is stopped

}  // namespace

// The child's output is hostile input like any run's: at most 64 KiB of it is kept
// (run_short_command), split into bounded lines and read through ChildReport's checks, so a
// hello of the wrong shape is no hello and a child that never ends is stopped after the timeout.
std::optional<nlohmann::json> fetch_child_hello(const std::string& fill_path, const std::string& device,
                                                std::string* error) {
  const CommandOutput r =
      run_short_command({fill_path, "--device", device, "--step", "4MiB", "--hello-only"}, kHelloTimeout);
  if (!r.started) {
    if (error) *error = r.start_error;
    return std::nullopt;
  }
  ChildReport report;
  ChildLineSplitter split(kMaxChildLineBytes);
  const ChildLineSplitter::Sink sink = [&](std::string_view line, bool cut) { report.absorb_line(line, cut); };
  split.feed(r.out.data(), r.out.size(), sink);
  split.finish(sink);
  if (report.hello) return report.hello;
  if (error) {
    if (report.error_text) *error = *report.error_text;
    else if (!r.ok()) *error = "it said no hello (" + r.failure() + ")";
    else *error = report.warnings.empty() ? "it said no hello" : "it said no hello: " + report.warnings.front();
  }
  return std::nullopt;
}

std::optional<nlohmann::json> fetch_child_hello(const std::string& device) {
  return fetch_child_hello(find_fill(""), device, nullptr);
}

}  // namespace wmb
