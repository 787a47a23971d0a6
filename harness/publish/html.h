// HTML from others' text. Every string a result folder holds (a scenario name, a label, a chip
// name, an env value, an error text, a file name) is hostile: it reaches a page only through
// html_escape(), which is safe in element text and in a quoted attribute value alike (& < > " '
// become entities), turns ill-formed UTF-8 into U+FFFD and every control character but newline
// and tab into its visible "\u00XX" spelling (io/terminal_text.h), so no byte of a folder can
// open a tag, close an attribute or hide text. Hrefs the site makes are built only from slugs
// (slug(): [A-Za-z0-9._-]) and go through html_escape() as well.
#pragma once

#include <string>
#include <string_view>

namespace wmb::publish {

std::string html_escape(std::string_view s);

// A file-name-safe, collision-free name for a string: its safe characters ([A-Za-z0-9._-], at
// most 48, never starting with '.'), then "-" and 8 hex digits of a hash of the whole string, so
// "../x" and "__x" are different slugs and neither is a path. `keep_plain`: a string that is
// already safe (1-64 of [A-Za-z0-9._+-], not starting with '.' or '-') is returned as it is ('+'
// becomes '_' with a hash then).
std::string slug(std::string_view s, bool keep_plain = true);

// FNV-1a 64 of `s`, as 16 hex digits (what the site's manifest keeps for "did this change").
std::string content_hash(std::string_view s);

}  // namespace wmb::publish
