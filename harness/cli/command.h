// Subcommands register themselves: each cmd_<name>.cpp defines one Command and a static
// Registrar named reg_<name>, so adding a command touches no central list. (Unique names: the
// commands are compiled together, CMakeLists.txt's WMBENCH_UNITY; their --help order is `order`.)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/exit_codes.h"

namespace wmb {
struct Scenario;
}

namespace wmb::cli {

struct Command {
  int order;  // position in --help
  // Adds the subcommand to `app`; the callback stores the exit code in `exit_code`.
  std::function<void(CLI::App& app, int& exit_code)> add;
};

std::vector<Command>& registry();

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

// Empty option values are errors, for every option of every command: `--out ""` (an unset
// variable) must not mean "the default" nor "/". main() applies refuse_empty_values() to the whole
// tree of commands after they registered; an option whose values may be empty (the arguments of
// the command `wmbench guard` runs) is marked with allow_empty().
CLI::Option* allow_empty(CLI::Option* opt);

// `wmbench run|tune [options] --command -- CMD ARGS...`: main() takes everything after the first
// "--" of these two commands out of the parse (so the job's own arguments are never read as
// wmbench's, nor as its SCENARIO) and keeps it here. `present`: a "--" was given.
struct DashArgs {
  bool present = false;
  std::vector<std::string> args;
};
DashArgs& args_after_dashes();
// main(): splits argv as said above; returns the argc to parse.
int split_after_dashes(int argc, char** argv);
void refuse_empty_values(CLI::App& app);
// `--name=` with nothing after the '=' among argv[1..argc) before a "--": the argument, else
// nullptr. CLI11 would take the next argument as its value; main() refuses it (exit 2).
const char* empty_equals_option(int argc, char** argv);

// Exit codes shared by the subcommands: common/exit_codes.h (kExitOk, kExitFail, kExitUsage,
// kExitInternal), in namespace wmb; named here too for the commands that spell wmb::cli::kExit*.
using wmb::kExitFail;
using wmb::kExitInternal;
using wmb::kExitOk;
using wmb::kExitUsage;

}  // namespace wmb::cli
