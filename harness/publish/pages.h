// The site's pages, as strings (the writer puts them): one layout (inline CSS, light and dark by
// prefers-color-scheme, no script at all, relative links ending in a file name so the site opens
// from disk), the index, a page per folder and a page per scenario. Every string from a folder
// goes through html_escape (publish/html.h); hrefs are built from slugs.
#pragma once

#include <string>
#include <vector>

#include "history/history.h"
#include "publish/site_model.h"

namespace wmb::publish {

struct PageContext {
  std::string base_url;  // --base-url without its trailing '/', "" when none
};

// One chart on a page: its file (relative to the page) and what it shows.
struct Chart {
  std::string file;
  std::string title;
};

// The comparisons of one scenario on one device between neighbours (history's series, built by
// history::build_history over a subset of its folders).
struct NeighbourSet {
  std::string title;       // "Apple M4 Max, 64 GiB RAM, macOS 15.1: by torch release"
  history::Series series;  // folders in order, steps[i]: folders[i] -> folders[i+1]
};

struct DeviceView {
  std::string device;
  std::vector<size_t> folders;   // into Site::folders
  std::vector<Chart> charts;     // the history chart(s), relative to scenarios/
  std::vector<NeighbourSet> by_release;  // one machine, torch releases in order
  std::vector<NeighbourSet> by_machine;  // one torch release, machines in order
};

struct ScenarioView {
  std::string name;  // hostile text
  std::string slug;  // scenarios/<slug>.html
  std::vector<DeviceView> devices;
};

// The scenarios of the site (each folder's summary.json "scenario"), with the neighbour
// comparisons made by history::build_history (so a verdict here is compare's verdict). Charts are
// filled in by the caller.
std::vector<ScenarioView> scenario_views(const Site& site);

std::string index_page(const Site& site, const std::vector<MachineGroup>& groups,
                       const std::vector<ScenarioView>& scenarios, const PageContext& ctx);
// charts: relative to the folder's page (folders/<slug>/).
std::string folder_page(const PublishedFolder& f, const std::string& scenario_slug, const std::vector<Chart>& charts,
                        const std::string& charts_missing, const PageContext& ctx);
std::string scenario_page(const Site& site, const ScenarioView& s, const std::string& charts_missing,
                          const PageContext& ctx);

// The layout around a page's body. `rel`: the page's path in the site ("index.html",
// "folders/x/index.html"), for the links back to the index and the canonical URL.
std::string page_layout(const std::string& title, const std::string& body, const std::string& rel,
                        const PageContext& ctx);

// A "who stopped" badge: the outcome's colour (plots/common.py's palette) and its word.
std::string stop_badge(const std::string& stopped_by, int count = 1);

}  // namespace wmb::publish
