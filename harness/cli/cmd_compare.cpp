// wmbench compare BASE NEW [--tolerance PCT] [--json | --markdown]
// Exit: 0 no regression, 1 a regression, 2 bad input, 3 not comparable (compare.h Comparison::exit_code).
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "compare/compare.h"

namespace {

struct CompareArgs {
  wmb::compare::CompareOptions opts;
  bool json = false;
  bool markdown = false;
};

wmb::cli::Registrar reg_compare{wmb::cli::Command{60, [](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand(
      "compare",
      "Compare two result folders (e.g. two torch releases) setting by setting; exit 1 on any change, 2 on bad "
      "input, 3 when not all could be compared (a label of other settings, other devices, model or set-up)");
  sub->add_option("BASE", args->opts.base_dir, "The baseline result folder (results/YYYY-MM-DD-<scenario>)")
      ->required();
  sub->add_option("NEW", args->opts.new_dir, "The result folder to check against BASE")->required();
  sub->add_option("--tolerance", args->opts.tolerance,
                  "Relative change of held memory / max allowed that counts as a change, in percent")
      ->default_str("5")
      ->type_name("PCT");
  auto* json = sub->add_flag("--json", args->json, "Print one JSON object instead of the table");
  auto* md = sub->add_flag("--markdown", args->markdown, "Print Markdown ready to paste into a pull request");
  json->excludes(md);
  sub->callback([args, &exit_code] {
    using wmb::compare::OutputFormat;
    args->opts.format = args->json ? OutputFormat::json : args->markdown ? OutputFormat::markdown : OutputFormat::text;
    exit_code = wmb::compare::run_compare(args->opts, std::cout, std::cerr);
  });
}}};

}  // namespace
