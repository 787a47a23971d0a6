// One gate for every folder a command resumes (`run --resume`, `tune --resume`, `releases
// --resume` and each release folder inside it). A folder is text someone else may have written,
// and wmbench runs as root: what runs (a command), what is installed and from where (an index, a
// wheelhouse), which variables reach the child (--allow-env), what is allowed (--force) and every
// option of a verdict (compare's --tolerance, tune's search policy) come from the command line.
// Where the folder holds another value, the value is shown and refused until the user names it
// again on the command line; the same value as the command line's (its default included) is fine.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.h"

namespace wmb {

struct GatedValue {
  std::string option;     // the command-line option that decides it: "--tolerance"
  nlohmann::json folder;  // the folder's value (null: none)
  nlohmann::json given;   // this command line's value, its default when the option is not given
  std::string name_it;    // how to name the folder's value again: "--tolerance 50"; "" when it cannot be
};

// Throws RunInputError when any folder value differs from the command line's: one line per
// value, "--tolerance: DIR has 50, this command line 5 (to use the folder's, name it: --tolerance 50)".
void gate_resumed_values(const std::string& dir, const std::vector<GatedValue>& values);

// A command named by a scenario file or a folder (program "command"): "" when `s` runs none or
// `command_flag` names it on purpose; else the refusal, quoting the command (JSON strings, cut at
// 400 characters) and saying `how` it may run ("it runs only with --command (read it first)").
std::string folder_command_problem(const Scenario& s, const std::string& source, bool command_flag, const std::string& how);

}  // namespace wmb
