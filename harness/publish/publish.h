// `wmbench publish FOLDER... --out SITE`: one static HTML site over many result folders (asv's
// `publish`): an index grouped by machine and torch release, a page per folder, a page per
// scenario. Stages: collect (site_model.h: only folders `check` accepts), copy the raw files,
// draw the charts (site_charts.h), make the pages (pages.h), write what changed (site_writer.h).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace wmb::publish {

struct PublishOptions {
  std::vector<std::string> dirs;
  std::string out;
  std::string base_url;  // "" = none
  bool charts = true;    // --no-charts: pages without charts (no python run)
};

// "https://example.org/wmbench/" -> "https://example.org/wmbench"; nullopt for anything but an
// http(s) URL of printable ASCII without quotes, '<', '>', '\', spaces, '?' or '#'.
std::optional<std::string> check_base_url(const std::string& url);

// Exit: 0 the site is written (folders `check` refused are named on `err` and on the index);
// 1 a write was refused (a link or something else in the way inside --out: named); 2 bad input
// (no folder to publish, a bad --base-url); 3 the site is written but some chart is missing
// (no python3 with matplotlib, a chart script failed: said on `err` and on the page).
int run_publish(const PublishOptions& opts, std::ostream& out, std::ostream& err);

}  // namespace wmb::publish
