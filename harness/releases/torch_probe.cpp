// What an interpreter imports as torch, and the interpreter that makes the envs: each a short
// isolated python (-I, cwd "/", no PYTHON* variables) through the no-shell spawner.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "releases/env_cache.h"
#include "releases/torch_version.h"
#include "tools/python_isolated.h"
#include "tools/short_command.h"
#include "spawn/process.h"
#include "io/utf8.h"

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
    "    out['cuda'] = str(getattr(getattr(torch, 'version', None), 'cuda', '') or '')\n"
    "    out['platform'] = sys.platform\n"
    // As child_python.cpp's probe asks them (its kProbe), so that the Python child's check needs no
    // second import of torch.
    "    b = getattr(getattr(torch, 'backends', None), 'mps', None); m = getattr(torch, 'mps', None)\n"
    "    out['mps_api'] = '%d%d' % (b is not None, m is not None and hasattr(m, 'current_allocated_memory'))\n"
    "    for name, ask in (('cuda_available', lambda: torch.cuda.is_available()),\n"
    "                      ('mps_available', lambda: torch.backends.mps.is_available())):\n"
    "        try:\n"
    "            out[name] = '1' if ask() else '0'\n"
    "        except Exception as e:\n"
    "            out[name] = '0: %s: %s' % (type(e).__name__, e)\n"
    "    try:\n"
    "        import importlib.metadata as md\n"
    "        d = md.distribution('torch')\n"
    "        out['dist'] = str(d.version)\n"
    "        out['dist_location'] = str(d.locate_file(''))\n"
    "    except Exception:\n"
    "        pass\n"
    "print(json.dumps(out))\n";

std::string probe_text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  const std::string s = it->get<std::string>();
  return std::string(utf8_prefix(s, 4096));
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
  f.python_version = probe_text(j, "python");
  if (const std::string e = probe_text(j, "error"); !e.empty())
    throw EnvError(fmt::format("{} (Python {}) cannot import torch: {}", python, f.python_version, e));
  f.torch_version = probe_text(j, "torch");
  f.git_version = probe_text(j, "git");
  f.torch_file = probe_text(j, "file");
  f.dist_version = probe_text(j, "dist");
  f.dist_location = probe_text(j, "dist_location");
  f.cuda = probe_text(j, "cuda");
  f.platform = probe_text(j, "platform");
  f.cuda_available = probe_text(j, "cuda_available");
  f.mps_available = probe_text(j, "mps_available");
  if (const std::string api = probe_text(j, "mps_api"); api.size() == 2) {
    f.has_backends_mps = api[0] == '1';
    f.has_torch_mps = api[1] == '1';
  }
  if (f.torch_version.empty()) throw EnvError(fmt::format("{}: torch imported but has no __version__", python));
  return f;
}

std::string TorchFacts::unavailable(const std::string& device) const {
  const std::string& said = device == "cuda" ? cuda_available : device == "mps" ? mps_available : "1";
  if (said == "1") return "";
  const char* call = device == "cuda" ? "torch.cuda.is_available()" : "torch.backends.mps.is_available()";
  if (said.empty()) return fmt::format("{} could not be asked", call);
  return fmt::format("{} is False{}", call, said.size() > 3 ? " (" + said.substr(3) + ")" : "");
}

std::string TorchFacts::variant() const {
  if (const size_t plus = torch_version.find('+'); plus != std::string::npos && plus + 1 < torch_version.size())
    return torch_version.substr(plus + 1);
  if (!cuda.empty()) {
    std::string digits;
    for (char c : cuda)
      if (c >= '0' && c <= '9') digits += c;
    return "cu" + digits;
  }
  return "default";
}

std::string BasePython::words() const {
  std::string cp = "cp";
  for (char c : version_xy)
    if (c != '.') cp += c;
  return fmt::format("Python {} ({}{}) on {}", tag(), cp, free_threaded ? "t" : "", machine);
}

BasePython probe_base_python(const std::string& python) {
  const CommandOutput r = run_short_command(
      isolated_python_argv(python, {"-c", "import sys, platform, sysconfig; print('%d.%d' % sys.version_info[:2]); "
                                          "print(platform.machine()); print(1 if sysconfig.get_config_var('Py_GIL_DISABLED') else 0)"}),
      60, "/dev/null", isolated_python_env(current_environment()), kPythonCwd);
  if (r.interrupted) throw EnvError(fmt::format("--base-python {}: {}", python, r.failure()), 128 + r.interrupted);
  if (!r.started) throw EnvError(fmt::format("--base-python {}: cannot run it: {}", python, r.start_error));
  BasePython b;
  b.path = python;
  const size_t nl = r.out.find('\n');
  if (r.ok() && nl != std::string::npos) {
    b.version_xy = r.out.substr(0, nl);
    const size_t nl2 = r.out.find('\n', nl + 1);
    b.machine = r.out.substr(nl + 1, nl2 == std::string::npos ? std::string::npos : nl2 - nl - 1);
    while (!b.machine.empty() && (b.machine.back() == '\n' || b.machine.back() == '\r')) b.machine.pop_back();
    b.free_threaded = nl2 != std::string::npos && r.out.compare(nl2 + 1, 1, "1") == 0;
  }
  const bool ok_xy = !b.version_xy.empty() && b.version_xy.size() < 8 && b.version_xy[0] == '3' &&
                     b.version_xy.find_first_not_of("0123456789.") == std::string::npos;
  if (!ok_xy || b.machine.empty() || b.machine.size() > 32 || file_safe(b.machine) != b.machine)
    throw EnvError(fmt::format("--base-python {}: it does not run as a Python 3 interpreter ({})", python, r.failure()));
  return b;
}

}  // namespace wmb::releases
