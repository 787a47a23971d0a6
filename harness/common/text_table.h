#pragma once
// Plain-text tables and Markdown cells, shared by the text and Markdown exporters of `compare`
// (compare/export_text.cpp) and `history` (history/export_markdown.cpp).
#include <string>
#include <vector>

namespace wmb {

using TextRows = std::vector<std::vector<std::string>>;

// Columns padded to the widest cell (two spaces between columns); the last column is not padded
// and no line ends in spaces. With `rule_after_first`, a line of dashes follows the first row.
std::string aligned_columns(const TextRows& rows, bool rule_after_first);

// Text safe inside one Markdown table cell: '|' escaped, line breaks made spaces, backticks made
// "'" (so a value cannot open or close a code span).
std::string md_escape(const std::string& s);

// md_escape(s) inside a code span.
std::string md_code(const std::string& s);

}  // namespace wmb
