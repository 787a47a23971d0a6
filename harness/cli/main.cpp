// wmbench: the measuring parent. Links no libtorch; the fill child is wmbench-fill.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "build_info.h"
#include "cli/command.h"
#include "io/terminal_text.h"
#include "lever/journal.h"

namespace wmb::cli {
std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}
namespace {
std::set<const CLI::Option*>& empty_allowed() {
  static std::set<const CLI::Option*> s;
  return s;
}
}  // namespace

DashArgs& args_after_dashes() {
  static DashArgs d;
  return d;
}

int split_after_dashes(int argc, char** argv) {
  int sub = 1;
  while (sub < argc && argv[sub][0] == '-') ++sub;  // --version, --help
  if (sub >= argc) return argc;
  const std::string name = argv[sub];
  if (name != "run" && name != "tune") return argc;  // `wmbench guard -- CMD` parses its own
  for (int i = sub + 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--") continue;
    args_after_dashes().present = true;
    for (int k = i + 1; k < argc; ++k) args_after_dashes().args.emplace_back(argv[k]);
    return i;
  }
  return argc;
}

CLI::Option* allow_empty(CLI::Option* opt) {
  empty_allowed().insert(opt);
  return opt;
}

void refuse_empty_values(CLI::App& app) {
  static const CLI::Validator non_empty(
      [](std::string& v) {
        return v.empty() ? std::string("an empty value is not allowed (an unset variable?); give a value or leave the option out")
                         : std::string();
      },
      "", "NON_EMPTY");
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size() == 0 || empty_allowed().count(opt)) continue;  // flags take no value
    opt->check(non_empty);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

const char* empty_equals_option(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return nullptr;  // what follows is a command's own arguments (guard -- CMD)
    if (arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.back() == '=' && arg.find('=') == arg.size() - 1)
      return argv[i];
  }
  return nullptr;
}

}  // namespace wmb::cli

int main(int argc, char** argv) {
  using namespace wmb::cli;
  // Text from others (a child's hello, a contributed folder) never reaches the terminal as a
  // control sequence: every line printed through cout/cerr is escaped (io/terminal_text.h).
  wmb::install_terminal_escaping();
  // A value of iogpu.wired_limit_mb that a wmbench killed or crashed left set is put back first,
  // whatever the command (lever/journal.h); nothing is looked at beyond one stat when none is.
  wmb::lever::restore_left_over(std::cerr);
  CLI::App app{"wmbench: how PyTorch's MPS memory limits really behave (watermark matrix, guard, reports)"};
  app.set_version_flag("--version", std::string(WMBENCH_VERSION) + " (" WMBENCH_GIT_REV ")");
  app.require_subcommand(0, 1);
  int exit_code = kExitOk;
  auto& cmds = registry();
  std::sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  for (auto& c : cmds) c.add(app, exit_code);
  refuse_empty_values(app);
  const int parsed_argc = split_after_dashes(argc, argv);
  if (const char* opt = empty_equals_option(parsed_argc, argv)) {
    // CLI11 reads `--out=` as `--out` and takes the NEXT argument as its value (`publish A --out= B`
    // wrote the site into B): refused here, once, for every option of every command.
    std::cerr << "wmbench: " << opt
              << ": an empty value is not allowed (an unset variable?); give a value or leave the option out\n";
    return kExitUsage;
  }
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  } catch (const std::exception& e) {
    // The last line of defence: no exception ends wmbench with an abort (see kExitInternal).
    std::fflush(stdout);
    std::fprintf(stderr, "wmbench: internal error: %s\n  (a wmbench bug; files written before are intact; exit %d)\n",
                 e.what(), kExitInternal);
    return kExitInternal;
  } catch (...) {
    std::fflush(stdout);
    std::fprintf(stderr, "wmbench: internal error (an unknown exception); exit %d\n", kExitInternal);
    return kExitInternal;
  }
  if (app.get_subcommands().empty()) {
    // No subcommand: `wmbench` alone is the main job, like `wmbench run`.
    std::fputs(app.help().c_str(), stdout);
    return kExitUsage;
  }
  return exit_code;
}
