#include "runner/child_info.h"

#include <fmt/format.h>

#include "runner/run_error.h"
#include "runner/short_command.h"
#include "spawn/process.h"

namespace wmb {

std::optional<nlohmann::json> fetch_child_hello(const FillChild& child, const std::string& device,
                                                double timeout_s, std::string* error) {
  const CommandOutput r = run_short_command(child.argv({"--device", device, "--step", "4MiB", "--hello-only"}),
                                            timeout_s, "/dev/null", child.environment(current_environment(), {}));
  if (!r.started) {
    if (error) *error = child.cannot_start(r.start_error);
    return std::nullopt;
  }
  size_t start = 0;
  std::optional<std::string> last_error;
  while (start < r.out.size()) {
    size_t nl = r.out.find('\n', start);
    std::string line = r.out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? r.out.size() : nl + 1;
    try {
      auto j = nlohmann::json::parse(line);
      if (!j.is_object()) continue;
      const auto type = j.find("type");
      if (type == j.end() || !type->is_string()) continue;
      if (*type == "hello") return j;
      const auto text = j.find("text");
      if (*type == "error" && text != j.end() && text->is_string()) last_error = text->get<std::string>();
    } catch (const nlohmann::json::exception&) {
    }
  }
  if (error) *error = last_error ? *last_error : fmt::format("no hello line ({})", r.ok() ? "exit 0" : r.failure());
  return std::nullopt;
}

ChildHello ask_child_hello(ChildChoice choice, double timeout_s) {
  ChildHello h;
  if (const std::string note = apply_python_child_default(choice); !note.empty()) h.notes.push_back(note);
  const auto child = choose_fill_child(choice);
  h.child = child->describe();
  h.program = child->program();
  h.hello = fetch_child_hello(*child, choice.device, timeout_s, &h.error);
  return h;
}

std::optional<nlohmann::json> fetch_child_hello(const std::string& device) {
  try {
    const auto child = choose_fill_child(ChildChoice{"", "", device});
    return fetch_child_hello(*child, device, 120, nullptr);
  } catch (const RunRefused&) {
    return std::nullopt;
  }
}

}  // namespace wmb
