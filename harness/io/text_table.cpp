#include "io/text_table.h"

#include <algorithm>

#include "io/terminal_text.h"

namespace wmb {

std::string aligned_columns(const TextRows& rows, bool rule_after_first) {
  std::vector<size_t> w;
  for (const auto& r : rows) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  std::string out;
  for (size_t k = 0; k < rows.size(); ++k) {
    std::string line;
    for (size_t i = 0; i < rows[k].size(); ++i) {
      line += rows[k][i];
      if (i + 1 < rows[k].size()) line += std::string(w[i] - rows[k][i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (k == 0 && rule_after_first) {
      std::string rule;
      for (size_t i = 0; i < w.size(); ++i) rule += std::string(w[i], '-') + (i + 1 < w.size() ? "  " : "");
      out += rule + "\n";
    }
  }
  return out;
}

namespace {

// One cell's text: '|' escaped, line breaks made spaces, backticks made "'", every other control
// character written as \u00XX (io/terminal_text.h). `html`: '<' as &lt; (outside a code span,
// where Markdown renders HTML).
std::string md_cell_text(const std::string& s, bool html) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else if (ch == '`') out += '\'';
    else if (ch == '<' && html) out += "&lt;";
    else out += ch;
  }
  return escape_controls_line(out);
}

}  // namespace

std::string md_escape(const std::string& s) { return md_cell_text(s, true); }

std::string md_code(const std::string& s) { return "`" + md_cell_text(s, false) + "`"; }

}  // namespace wmb
