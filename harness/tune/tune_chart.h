// plots/tune.py on a tune folder, drawn like the other charts (charts.cpp: python with
// matplotlib through the no-shell spawner).
#pragma once

#include <iosfwd>
#include <string>

namespace wmb {

void draw_tune_chart(const std::string& dir, bool draw, std::ostream& out, std::ostream& err);

}  // namespace wmb
