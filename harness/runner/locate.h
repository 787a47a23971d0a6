// Where things are: the native child, the Python child's script, the repository's files
// (scenarios/, plots/) next to the executable's build folder or in the source tree.
#pragma once

#include <string>

namespace wmb {

std::string dirname_of(const std::string& path);  // "." when there is no '/'
bool is_executable(const std::string& path);
// The first executable `name` on $PATH ("" when none); a name with a '/' is returned as it is.
std::string find_on_path(const std::string& name);
// wmbench_fill.py: $WMBENCH_PYFILL, next to this executable (build/wmbench_fill.py), then the
// source tree's harness/pyfill/wmbench_fill.py. "" when none.
std::string find_pyfill();

}  // namespace wmb
