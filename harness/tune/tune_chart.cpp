#include "tune/tune_chart.h"

#include <ostream>

#include "tools/chart_batch.h"

namespace wmb {

void draw_tune_chart(const std::string& dir, bool draw, std::ostream& out, std::ostream& err) {
  if (!draw) return;
  // Drawn as the run's charts are (tools/chart_batch.h: isolated python, no shell), and claimed
  // only when its files are there.
  draw_folder_chart(dir, "tune", "Tune chart", "wmbench tune", "", out, err);
}

}  // namespace wmb
