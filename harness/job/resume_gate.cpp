#include "job/resume_gate.h"

#include <fmt/format.h>

#include "io/json_input.h"
#include "io/terminal_text.h"
#include "io/utf8.h"
#include "job/run_input.h"

namespace wmb {
namespace {

// The argv as JSON strings on one line ("[\"/bin/sh\", \"-c\", ...]"), cut at 400 characters:
// quoted, so no word of it reads as wmbench's own text.
std::string command_for_display(const std::vector<std::string>& argv) {
  std::string j = nlohmann::json(argv).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (j.size() > 400) j = std::string(utf8_prefix(j, 400)) + "...";
  return escape_controls_line(j);
}

}  // namespace

void gate_resumed_values(const std::string& dir, const std::vector<GatedValue>& values) {
  std::string all;
  for (const auto& v : values) {
    if (v.folder == v.given) continue;
    all += fmt::format("\n  {}: the folder has {}, this command line {}{}", v.option, json_shown(v.folder, 200), json_shown(v.given, 200),
                       v.name_it.empty() ? "" : fmt::format(" (to use the folder's, name it: {})", escape_controls_line(v.name_it)));
  }
  if (all.empty()) return;
  throw RunInputError(fmt::format(
      "--resume {}: the folder sets what only the command line decides (what is installed and from where, which "
      "variables reach the child, what is allowed, how a verdict is reached); refusing until each is named again:{}",
      dir, all));
}

std::string folder_command_problem(const Scenario& s, const std::string& source, bool command_flag, const std::string& how) {
  if (command_flag || s.program != "command") return "";
  return fmt::format("{} runs a command of its own: {}; {}", source, command_for_display(s.command), how);
}

}  // namespace wmb
