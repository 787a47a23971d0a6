// wmbench publish FOLDER... --out SITE [--base-url URL] [--no-charts]: options only; the work is
// publish/publish.h.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "publish/publish.h"

namespace {

wmb::cli::Registrar reg_publish{wmb::cli::Command{68, [](CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<wmb::publish::PublishOptions>();
  auto no_charts = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand(
      "publish",
      "One static HTML site over many result folders (an index by machine and torch release, a page per folder and "
      "per scenario, the charts as SVG, the raw files); opens from disk. Exit 0 written, 1 a write refused, 2 bad "
      "input, 3 written but a chart is missing");
  sub->add_option("FOLDER", opts->dirs, "Result folders, or folders of them (results/)")->required();
  sub->add_option("--out", opts->out, "The site's folder (made if missing; only files wmbench publish wrote are replaced)")
      ->required()
      ->type_name("DIR");
  sub->add_option("--base-url", opts->base_url, "Where a hosted copy lives (https://...): canonical links")
      ->type_name("URL");
  sub->add_flag("--no-charts", *no_charts, "Make the pages without charts (no python is run)");
  sub->callback([opts, no_charts, &exit_code] {
    opts->charts = !*no_charts;
    exit_code = wmb::publish::run_publish(*opts, std::cout, std::cerr);
  });
}}};

}  // namespace
