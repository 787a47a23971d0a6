// plots/releases.py on a releases folder, drawn as the run's charts are (tools/chart_batch.h: the
// first python with matplotlib, isolated, through the no-shell spawner), claimed only when its
// files are there.
#include <ostream>

#include "releases/releases.h"
#include "tools/chart_batch.h"

namespace wmb::releases {

void draw_releases_chart(const std::string& dir, std::ostream& out, std::ostream& err) {
  draw_folder_chart(dir, "releases", "Releases chart", "wmbench releases", "the results are complete; ", out, err);
}

}  // namespace wmb::releases
