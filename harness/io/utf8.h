// UTF-8 text from outside (a child, a file, a paste): check it, cut it only between characters,
// and make it safe to store (invalid bytes become U+FFFD), so that a JSON dump of it never throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace wmb {

// True when `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool utf8_valid(std::string_view s);

// The byte offset of the first ill-formed sequence, or s.size() when there is none.
size_t utf8_first_invalid(std::string_view s);

// The longest prefix of `s` of at most `max_bytes` bytes that does not end inside a character
// (of a well-formed `s`; ill-formed bytes count as one character each).
std::string_view utf8_prefix(std::string_view s, size_t max_bytes);

// `s` with each ill-formed byte replaced by U+FFFD and NUL bytes shown as "\0"; when longer than
// `max_bytes`, cut on a character boundary and ended with "..." (max_bytes 0 = no cut).
std::string utf8_sanitize(std::string_view s, size_t max_bytes = 0);

}  // namespace wmb
