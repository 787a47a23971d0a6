// What an interpreter imports as torch, and the interpreter that makes the envs: each a short
// isolated python (-I, cwd "/", no PYTHON* variables) through the no-shell spawner.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "releases/env_cache.h"
#include "releases/torch_version.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"
#include "spawn/process.h"

namespace wmb::releases {
namespace {

// torch_probe: one JSON line; what is absent stays out.
constexpr const char* kTorchProbe =
    "import sys, json\n"
    "out = {'python': sys.version.split()[0], 'executable': sys.executable}\n"
    "try:\n"
    "    import torch\n"
    "except BaseException as e:\n"
    "    out['error'] = '%s: %s' % (type(e).__name__, e)\n"
    "else:\n"
    "    out['torch'] = str(getattr(torch, '__version__', ''))\n"
    "    out['git'] = str(getattr(getattr(torch, 'version', None), 'git_version', '') or '')\n"
    "    out['file'] = str(getattr(torch, '__file__', '') or '')\n"
    "    try:\n"
    "        import importlib.metadata as md\n"
    "        d = md.distribution('torch')\n"
    "        out['dist'] = str(d.version)\n"
    "        out['dist_location'] = str(d.locate_file(''))\n"
    "    except Exception:\n"
    "        pass\n"
    "print(json.dumps(out))\n";

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  const std::string s = it->get<std::string>();
  return s.size() > 4096 ? s.substr(0, 4096) : s;
}

std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

TorchFacts probe_torch(const std::string& python, double timeout_s) {
  const CommandOutput r = run_short_command(isolated_python_argv(python, {"-c", kTorchProbe}), timeout_s, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  if (r.interrupted) throw EnvError(fmt::format("{}: stopped while it imported torch ({})", python, r.failure()), 128 + r.interrupted);
  if (!r.started) throw EnvError(fmt::format("{}: cannot run it: {}", python, r.start_error));
  if (r.timed_out) throw EnvError(fmt::format("{}: `import torch` did not finish within {:g} s; it was stopped", python, timeout_s));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(last_line(r.out));
  } catch (const nlohmann::json::exception&) {
    throw EnvError(fmt::format("{}: it does not run as a Python 3 interpreter ({})", python, r.failure()));
  }
  if (!j.is_object()) throw EnvError(fmt::format("{}: its answer was not an object", python));
  TorchFacts f;
  f.python = python;
  f.python_version = text_of(j, "python");
  if (const std::string e = text_of(j, "error"); !e.empty())
    throw EnvError(fmt::format("{} (Python {}) cannot import torch: {}", python, f.python_version, e));
  f.torch_version = text_of(j, "torch");
  f.git_version = text_of(j, "git");
  f.torch_file = text_of(j, "file");
  f.dist_version = text_of(j, "dist");
  f.dist_location = text_of(j, "dist_location");
  if (f.torch_version.empty()) throw EnvError(fmt::format("{}: torch imported but has no __version__", python));
  return f;
}

BasePython probe_base_python(const std::string& python) {
  const CommandOutput r = run_short_command(
      isolated_python_argv(python, {"-c", "import sys, platform; print('%d.%d' % sys.version_info[:2]); print(platform.machine())"}),
      60, "/dev/null", isolated_python_env(current_environment()), kPythonCwd);
  if (r.interrupted) throw EnvError(fmt::format("--base-python {}: {}", python, r.failure()), 128 + r.interrupted);
  if (!r.started) throw EnvError(fmt::format("--base-python {}: cannot run it: {}", python, r.start_error));
  BasePython b;
  b.path = python;
  const size_t nl = r.out.find('\n');
  if (r.ok() && nl != std::string::npos) {
    b.version_xy = r.out.substr(0, nl);
    b.machine = r.out.substr(nl + 1);
    while (!b.machine.empty() && (b.machine.back() == '\n' || b.machine.back() == '\r')) b.machine.pop_back();
  }
  const bool ok_xy = !b.version_xy.empty() && b.version_xy.size() < 8 && b.version_xy[0] == '3' &&
                     b.version_xy.find_first_not_of("0123456789.") == std::string::npos;
  if (!ok_xy || b.machine.empty() || b.machine.size() > 32 || file_safe(b.machine) != b.machine)
    throw EnvError(fmt::format("--base-python {}: it does not run as a Python 3 interpreter ({})", python, r.failure()));
  return b;
}

}  // namespace wmb::releases
