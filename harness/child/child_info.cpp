#include "child/child_info.h"

#include <fmt/format.h>

#include "io/json_input.h"
#include "protocol/child_report.h"
#include "common/run_error.h"
#include "tools/locate.h"
#include "tools/short_command.h"
#include "spawn/process.h"

namespace wmb {

// The child's output is hostile input like any run's: at most 64 KiB of it is kept
// (run_short_command), split into bounded lines and read through ChildReport's checks, so a
// hello of the wrong shape is no hello and a child that never ends is stopped after the timeout.
std::optional<nlohmann::json> fetch_child_hello(const FillChild& child, const std::string& device,
                                                double timeout_s, std::string* error) {
  if (auto known = child.known_hello(device)) return known;
  const CommandOutput r = run_short_command(child.argv({"--device", device, "--step", "4MiB", "--hello-only"}),
                                            timeout_s, "/dev/null", child.environment(current_environment(), {}));
  if (!r.started) {
    if (error) *error = child.cannot_start(r.start_error);
    return std::nullopt;
  }
  ChildReport report;
  ChildLineSplitter split(kMaxChildLineBytes);
  const ChildLineSplitter::Sink sink = [&](std::string_view line, bool cut) { report.absorb_line(line, cut); };
  split.feed(r.out.data(), r.out.size(), sink);
  split.finish(sink);
  if (report.hello) {
    child.remember_hello(device, *report.hello);
    return report.hello;
  }
  if (error) {
    if (report.error_text) *error = *report.error_text;
    else if (!r.ok()) *error = "it said no hello (" + r.failure() + ")";
    else *error = report.warnings.empty() ? "it said no hello" : "it said no hello: " + report.warnings.front();
  }
  return std::nullopt;
}

ChildHello ask_child_hello(ChildChoice choice, double timeout_s) {
  ChildHello h;
  if (const std::string note = apply_python_child_default(choice); !note.empty()) h.notes.push_back(note);
  std::unique_ptr<FillChild> child;
  try {
    child = choose_fill_child(choice);
  } catch (const RunRefused& e) {
    // A child the user named (--fill, --python) must work; the default wmbench-fill may be
    // missing (info and predict then say so and go on without torch's facts).
    if (!choice.fill_path.empty() || !choice.python.empty()) throw;
    h.error = e.what();
    h.program = find_fill("");
    h.child = {{"kind", kNativeChild}, {"program", h.program}, {"python", nullptr}};
    return h;
  }
  h.child = child->describe();
  h.program = child->program();
  h.hello = fetch_child_hello(*child, choice.device, timeout_s, &h.error);
  return h;
}

std::optional<nlohmann::json> fetch_child_hello(const std::string& device) {
  try {
    const auto child = choose_fill_child(ChildChoice{"", "", device, {}, nullptr});
    return fetch_child_hello(*child, device, 120, nullptr);
  } catch (const RunRefused&) {
    return std::nullopt;
  }
}

}  // namespace wmb
