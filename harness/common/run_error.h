// A run that is refused before it starts (bad input, an unsafe fill, a folder that cannot be
// made): the stages throw it, run_matrix prints "wmbench run: <what>" and returns exit_code.
#pragma once

#include <stdexcept>
#include <string>

namespace wmb {

struct RunRefused : std::runtime_error {
  RunRefused(const std::string& what, int code = 2) : std::runtime_error(what), exit_code(code) {}
  int exit_code;
};

}  // namespace wmb
