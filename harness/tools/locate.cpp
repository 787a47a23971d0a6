#include "tools/locate.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "io/files.h"
#include "host/platform.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"

#ifndef WMBENCH_SOURCE_DIR_DEFAULT
#define WMBENCH_SOURCE_DIR_DEFAULT ""
#endif

namespace wmb {

std::string dirname_of(const std::string& p) {
  auto pos = p.find_last_of('/');
  return pos == std::string::npos ? "." : p.substr(0, pos);
}

bool is_executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

// A name with a '/' is the user's path, made absolute against this process's folder (the children
// run in "/"); a bare name is looked up only in PATH's absolute folders: an empty entry (which a
// shell reads as ".") or a relative one would find a program in whatever folder wmbench was started
// from, which nobody named.
std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return absolute_for_child(name);
  if (name.empty() || name == "." || name == "..") return "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t c = dirs.find(':', start);
    std::string dir = dirs.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!dir.empty() && dir[0] == '/' && is_executable(dir + "/" + name)) return dir + "/" + name;
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return "";
}

std::string find_fill(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* e = std::getenv("WMBENCH_FILL"); e && *e) return e;
  const std::string self = self_exe_path();
  if (!self.empty()) {
    std::string cand = dirname_of(self) + "/wmbench-fill";
    if (is_executable(cand)) return cand;
  }
  return "wmbench-fill";  // PATH
}

std::string find_pyfill() {
  if (const char* e = std::getenv("WMBENCH_PYFILL"); e && *e) return e;
  const std::string self = self_exe_path();
  if (!self.empty() && path_exists(dirname_of(self) + "/wmbench_fill.py")) return dirname_of(self) + "/wmbench_fill.py";
  return find_repo_file("harness/pyfill/wmbench_fill.py");
}

// Only beside the binary (build/, or an install's share/wmbench) and in the checkout this binary
// was built from (WMBENCH_SOURCE_DIR_DEFAULT): never the current folder, never a folder above the
// binary that anyone may write into. Every path returned is absolute.
std::string find_repo_file(const std::string& relative) {
  std::vector<std::string> roots;
  const std::string self = self_exe_path();
  if (!self.empty() && self[0] == '/') {
    std::string d = dirname_of(self);
    roots.push_back(d);
    roots.push_back(dirname_of(d) + "/share/wmbench");
  }
  if (*WMBENCH_SOURCE_DIR_DEFAULT == '/') roots.push_back(WMBENCH_SOURCE_DIR_DEFAULT);
  for (const auto& r : roots) {
    std::string p = r + "/" + relative;
    if (path_exists(p)) return p;
  }
  return "";
}

// Asked once per process for the same WMBENCH_PYTHON and PATH (`releases` draws the charts of every
// release and its own). A python that failed is not remembered, so one that gains matplotlib
// meanwhile is found by the next ask. Asked of importlib's finder, which imports neither package
// (0.03 s of CPU; `import matplotlib` took 0.3-0.5 s, and the chart's own python imports it again):
// a python whose matplotlib is there but broken is taken, and its chart fails naming python's error
// (chart_batch.cpp), not passed over for the next candidate.
std::string python_with_matplotlib() {
  constexpr double kProbeTimeout = 30;
  constexpr const char* kFind =  // one line: a log of argv reads as one start
      "import importlib.util as u, sys; sys.exit(0 if u.find_spec('matplotlib') and u.find_spec('numpy') else 1)";
  static std::mutex m;
  static std::map<std::string, std::string> found;  // WMBENCH_PYTHON '\0' PATH -> the python
  const char* e = std::getenv("WMBENCH_PYTHON");
  const char* path = std::getenv("PATH");
  const std::string key = std::string(e ? e : "") + '\0' + (path ? path : "");
  {
    std::lock_guard<std::mutex> lock(m);
    if (auto it = found.find(key); it != found.end()) return it->second;
  }
  std::vector<std::string> cands;
  if (e && *e) cands.emplace_back(e);
  for (const char* c : {"python3", "/usr/bin/python3", "/opt/homebrew/bin/python3"}) cands.emplace_back(c);
  for (const auto& c : cands)
    if (run_short_command(isolated_python_argv(c, {"-c", kFind}), kProbeTimeout, "/dev/null",
                          isolated_python_env(current_environment()), kPythonCwd)
            .ok()) {
      std::lock_guard<std::mutex> lock(m);
      found[key] = c;
      return c;
    }
  return "";
}

}  // namespace wmb
