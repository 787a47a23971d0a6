// The site's charts: drawn by the repository's matplotlib scripts (plots/table.py, traces.py,
// tune.py for a folder; plots/history.py for a scenario), never by hand, under the first python3
// with matplotlib, isolated (tools/python_isolated.h) and started without a shell, all of a site's
// charts in one python (tools/chart_batch.h: want() each, draw_wanted() once, then draw() each
// takes its own). Each script writes into a scratch folder inside --out; its SVG is then
// put into the site by the writer (compared before writing). A chart whose inputs (the folder's
// files and the script) did not change since the last publish is not drawn again.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "publish/pages.h"
#include "publish/site_writer.h"
#include "tools/chart_batch.h"

namespace wmb::publish {

class ChartMaker {
 public:
  ChartMaker(SiteWriter& w, std::ostream& err);
  // "" when charts can be drawn, else why not (no python3 with matplotlib, plots/ not found).
  const std::string& unavailable() const { return unavailable_; }
  // Draws SCRIPT (a name in plots/) with ARGS (paths already absolute), where SCRIPT writes
  // "<stem>.svg" into the folder given by --out (stem "" = the only .svg it writes), and puts it at
  // SITE_REL. `inputs_hash`: what the chart was drawn from. Returns false (said on err) when the
  // chart is not there.
  // A chart wanted by draw_wanted()'s one batch, with draw()'s arguments (one unchanged since the
  // last publish is not drawn). draw() of a chart not wanted first draws it alone.
  void want(const std::string& script, std::vector<std::string> args, const std::string& stem,
            const std::string& site_rel, const std::string& inputs_hash);
  void draw_wanted();
  bool draw(const std::string& script, std::vector<std::string> args, const std::string& stem,
            const std::string& site_rel, const std::string& inputs_hash);
  int failed() const { return failed_; }
  int drawn() const { return drawn_; }

 private:
  struct Wanted {
    std::string script, stem, key, rel_dir;  // rel_dir: its scratch folder ("" = unchanged, kept)
    std::vector<std::string> args;
    bool done = false;                       // drawn by draw_wanted()
    ChartOutcome outcome;
  };
  bool finish(const std::string& site_rel, const Wanted& c);

  SiteWriter& w_;
  std::ostream& err_;
  ChartTools tools_;
  std::string unavailable_, scratch_;
  std::map<std::string, Wanted> wanted_;  // by site_rel
  int next_ = 0, failed_ = 0, drawn_ = 0;
};

}  // namespace wmb::publish
