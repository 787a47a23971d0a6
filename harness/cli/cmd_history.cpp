// wmbench history DIR... [--markdown | --json] [--by torch|machine|date] [--tolerance PCT]
//                        [--scenario NAME] [--plot [--plot-out DIR]]
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "history/history.h"

namespace {

struct HistoryArgs {
  wmb::history::HistoryOptions opts;
  bool json = false;
  bool markdown = false;
};

wmb::cli::Registrar reg_history{wmb::cli::Command{65, [](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<HistoryArgs>();
  auto* sub = app.add_subcommand(
      "history",
      "Many result folders (Macs, torch releases) in one view, one series per scenario and device; exit 1 when "
      "the newest folder regressed against the one before it, 2 on bad input, 3 when --plot drew no chart");
  sub->add_option("DIR", args->opts.dirs, "Result folders (results/*/)")->required();
  sub->add_option("--by", args->opts.by, "Order of each series: date, torch (version) or machine (RAM, chip)")
      ->default_str("date")
      ->type_name("ORDER");
  sub->add_option("--tolerance", args->opts.tolerance,
                  "Relative change of held memory / max allowed that counts as a change, in percent (as compare)")
      ->default_str("5")
      ->type_name("PCT");
  sub->add_option("--scenario", args->opts.scenario, "Show only this scenario; the other folders are named and skipped")
      ->type_name("NAME");
  auto* json = sub->add_flag("--json", args->json, "Print one JSON object instead of the tables");
  auto* md = sub->add_flag("--markdown", args->markdown, "Print Markdown ready for a post or a pull request");
  json->excludes(md);
  sub->add_flag("--plot", args->opts.plot, "Also draw the chart (plots/history.py, needs python3 with matplotlib)");
  sub->add_option("--plot-out", args->opts.plot_out, "Folder for the chart's svg and png (with --plot)")
      ->default_str(".")
      ->type_name("DIR");
  sub->callback([args, &exit_code] {
    using wmb::history::OutputFormat;
    args->opts.format = args->json ? OutputFormat::json : args->markdown ? OutputFormat::markdown : OutputFormat::text;
    exit_code = wmb::history::run_history(args->opts, std::cout, std::cerr);
  });
}}};

}  // namespace
