// Text from others (a child's hello, a contributed folder's machine.json, an env value) is data:
// it never reaches the terminal as a control sequence. escape_controls() writes every C0 control
// but newline and tab (ESC, CR, BEL, ...), DEL and every C1 control (U+0080..U+009F, UTF-8
// C2 80..C2 9F: CSI, OSC) as "\u00XX", and every bidirectional control (U+061C, U+200E, U+200F,
// U+202A..U+202E, U+2066..U+2069: they reorder how a line displays) as "\uXXXX". That spelling is also a valid JSON escape, so JSON output
// that passes through it (a C1 byte pair inside a string) decodes to the same text.
//
// install_terminal_escaping() puts a filter of that kind under std::cout and std::cerr, so every
// line wmbench prints goes through the one helper (cli/main.cpp calls it first).
#pragma once

#include <string>
#include <string_view>

namespace wmb {

std::string escape_controls(std::string_view s);
// Also newline and tab: for one value on one line ("torch 2.5\n" -> "torch 2.5\u000a").
std::string escape_controls_line(std::string_view s);

void install_terminal_escaping();

}  // namespace wmb
