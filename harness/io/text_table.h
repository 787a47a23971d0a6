#pragma once
// Plain-text tables and Markdown cells, shared by the text and Markdown exporters of `compare`
// (compare/export_text.cpp) and `history` (history/export_markdown.cpp).
#include <string>
#include <string_view>
#include <vector>

namespace wmb {

using TextRows = std::vector<std::vector<std::string>>;

// Columns padded to the widest cell (two spaces between columns); the last column is not padded
// and no line ends in spaces. With `rule_after_first`, a line of dashes follows the first row.
std::string aligned_columns(const TextRows& rows, bool rule_after_first);

// Text safe inside one Markdown table cell or line: '|' escaped, line breaks made spaces,
// backticks made "'" (so a value cannot open or close a code span), '<' as &lt; (no HTML from a
// scenario name or a folder), every other control character as \u00XX (terminal_text.h). The one
// helper for Markdown made from others' text: table.md, README.md, compare, history.
std::string md_escape(const std::string& s);

// The same inside a code span (where '<' is shown as it is).
std::string md_code(const std::string& s);

// Parts with a separator between them ("a, b, c"): the lists of names in messages (scenario,
// compare, the fill child's options). One copy: file-local copies of it clashed when the sources
// are compiled in batches (CMake's unity build, CMakeLists.txt's WMBENCH_UNITY).
inline std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace wmb
