// Where things are: the native child, the Python child's script, a python for the charts, the repository's files
// (scenarios/, plots/) next to the executable's build folder or in the source tree.
#pragma once

#include <string>

namespace wmb {
// Finds wmbench-fill: `explicit_path`, $WMBENCH_FILL, next to this executable, then PATH.
std::string find_fill(const std::string& explicit_path);
// Where the repository's scenarios/ and plots/ are (next to the executable's build folder or the source dir).
std::string find_repo_file(const std::string& relative);

std::string dirname_of(const std::string& path);  // "." when there is no '/'
bool is_executable(const std::string& path);
// The first executable `name` in $PATH's absolute folders ("" when none; an empty or relative
// entry is skipped, never the current folder); a name with a '/' is returned made absolute
// against the current folder.
std::string find_on_path(const std::string& name);
// wmbench_fill.py: $WMBENCH_PYFILL, next to this executable (build/wmbench_fill.py), then the
// source tree's harness/pyfill/wmbench_fill.py. "" when none.
std::string find_pyfill();
// The first Python 3 that has matplotlib and numpy (importlib's finder: nothing imported), for the
// charts of `run`, `publish`, `releases`, `tune` and `history --plot`:
// $WMBENCH_PYTHON, python3 on PATH, /usr/bin/python3 (a pyenv or venv python3 often lacks it
// while the system's has it), /opt/homebrew/bin/python3. Each is tried as an argv through the
// no-shell spawner, bounded in time. "" when none.
std::string python_with_matplotlib();

}  // namespace wmb
