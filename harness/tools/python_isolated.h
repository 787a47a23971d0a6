// Every Python that wmbench starts (the --python probe, the Python fill child, the matplotlib
// probe, the chart scripts) runs isolated, so that nothing the user did not name is imported as
// root: `-I` (no script folder or current folder on sys.path, no user site, PYTHON* variables
// ignored), every PYTHON* variable removed from its environment as well, and a fixed working
// directory ("/") instead of the caller's, which may hold a planted torch.py or matplotlib.py.
// A Python that needs PYTHONPATH is named on purpose through a wrapper script given as the
// interpreter (the user names that file).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace wmb {

inline constexpr const char* kPythonCwd = "/";

// {python, "-I", rest...}
std::vector<std::string> isolated_python_argv(const std::string& python, const std::vector<std::string>& rest);
// `env` without any PYTHON* variable.
std::map<std::string, std::string> isolated_python_env(const std::map<std::string, std::string>& env);
// A path made absolute against this process's working directory (the child runs in "/").
std::string absolute_for_child(const std::string& path);

}  // namespace wmb
