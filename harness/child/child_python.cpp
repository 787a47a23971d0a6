#include "child/child_python.h"

#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "child/child_spec.h"
#include "tools/locate.h"
#include "tools/python_isolated.h"
#include "common/run_error.h"
#include "tools/short_command.h"

namespace wmb {
namespace {

constexpr double kProbeTimeout = 60;  // a cold `import torch` takes seconds; a hung one is stopped

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

bool looks_like_version(const std::string& s) {
  return !s.empty() && s.size() < 40 && std::isdigit(static_cast<unsigned char>(s[0])) &&
         s.find_first_not_of("0123456789.+abcrcdevpost") == std::string::npos;
}

class PythonFillChild final : public FillChild {
 public:
  PythonFillChild(PythonFacts py, std::string script) : py_(std::move(py)), script_(std::move(script)) {}
  std::vector<std::string> argv(const std::vector<std::string>& flags) const override {
    // -I: neither the script's folder nor the current one is on sys.path (python_isolated.h);
    // -u: unbuffered, since -I ignores PYTHONUNBUFFERED.
    std::vector<std::string> rest = {"-u", script_};
    rest.insert(rest.end(), flags.begin(), flags.end());
    return isolated_python_argv(py_.path, rest);
  }
  std::map<std::string, std::string> environment(const std::map<std::string, std::string>& parent,
                                                 const std::map<std::string, std::string>& cell) const override {
    auto env = isolated_python_env(FillChild::environment(parent, cell));
    // every protocol line reaches the pipe when written (assign(1, ...): GCC 12 gives a false
    // -Wrestrict warning, GCC bug 105329, for "= \"1\"" here)
    env["PYTHONUNBUFFERED"].assign(1, '1');
    return env;
  }
  nlohmann::json describe() const override {
    return {{"kind", kPythonChild}, {"program", script_}, {"python", {{"path", py_.path}, {"version", py_.version}}}};
  }
  std::string program() const override { return script_; }
  std::string cannot_start(const std::string& why) const override {
    return fmt::format("{} {} could not be started: {} (give another interpreter with --python)", py_.path, script_, why);
  }

 private:
  PythonFacts py_;
  std::string script_;
};

// The probe: Python's version, torch's, what the mps device needs, torch's file. One line each.
// releases/torch_probe.cpp asks the same two mps attributes the same way (its "mps_api"), so that a
// release's Python child is checked without a second import: a change here is a change there.
constexpr const char* kProbe =
    "import sys; print(sys.version.split()[0]); import torch; print(torch.__version__); "
    "b = getattr(getattr(torch, 'backends', None), 'mps', None); m = getattr(torch, 'mps', None); "
    "print('mps', int(b is not None), int(m is not None and hasattr(m, 'current_allocated_memory'))); "
    "print(getattr(torch, '__file__', None) or '')";

// The leading integer of "2.5.0", "1.13.0a0", "2.6.0.dev20250101+cpu"; nullopt when none.
std::optional<int> major_of(const std::string& v) {
  int n = 0;
  size_t i = 0;
  for (; i < v.size() && i < 6 && std::isdigit(static_cast<unsigned char>(v[i])); ++i) n = n * 10 + (v[i] - '0');
  if (i == 0) return std::nullopt;
  return n;
}

void read_capabilities(PythonFacts& f, const std::vector<std::string>& lines) {
  if (lines.size() >= 3 && lines[2].size() == 7 && lines[2].compare(0, 4, "mps ") == 0) {
    f.has_backends_mps = lines[2][4] == '1';
    f.has_torch_mps = lines[2][6] == '1';
  }
  if (lines.size() >= 4 && lines[3].size() < 4096) f.torch_file = lines[3];
}

}  // namespace

std::string torch_too_old_for(const PythonFacts& f, const std::string& device) {
  if (device != "mps") return "";
  const auto major = major_of(f.torch_version);
  if ((major && *major < 2) || !f.has_backends_mps || !f.has_torch_mps)
    return fmt::format("device mps needs torch 2.0 or newer with torch.backends.mps and torch.mps "
                       "(current_allocated_memory); found torch {}{}: torch.backends.mps {}, torch.mps {}",
                       f.torch_version, f.torch_file.empty() ? "" : " (" + f.torch_file + ")",
                       f.has_backends_mps ? "present" : "missing",
                       f.has_torch_mps ? "present" : "missing or without current_allocated_memory");
  return "";
}

namespace {
void refuse_too_old(const PythonFacts& f, const std::string& given, const std::string& device) {
  const std::string why = torch_too_old_for(f, device);
  if (!why.empty()) throw RunRefused(fmt::format("--python {}: {}; give an interpreter with a newer torch", given, why));
}
}  // namespace

PythonFacts probe_python(const std::string& python, const std::string& device, double timeout_s) {
  PythonFacts f = probe_python(python, timeout_s);
  refuse_too_old(f, python, device);
  return f;
}

PythonFacts probe_python(const std::string& python, double timeout_s) {
  PythonFacts f;
  f.path = find_on_path(python);
  if (f.path.empty()) throw RunRefused(fmt::format("--python {}: no such program on PATH", python));
  const CommandOutput r = run_short_command(isolated_python_argv(f.path, {"-c", kProbe}), timeout_s, "/dev/null",
                                            isolated_python_env(current_environment()), kPythonCwd);
  const auto lines = lines_of(r.out);
  if (!r.started) throw RunRefused(fmt::format("--python {}: cannot run it: {}", python, r.start_error));
  if (r.timed_out)
    throw RunRefused(fmt::format("--python {}: `import torch` did not finish within {:g} s; it was stopped", python, timeout_s));
  if (r.interrupted) throw RunRefused(fmt::format("--python {}: {}", python, r.failure()), 128 + r.interrupted);
  if (lines.empty() || !looks_like_version(lines[0]))
    throw RunRefused(fmt::format("--python {}: it does not run as a Python interpreter ({})", python, r.failure()));
  f.version = lines[0];
  if (!r.ok() || lines.size() < 2 || lines[1].empty())
    throw RunRefused(fmt::format("--python {}: Python {} there cannot import torch ({}); give an interpreter that has "
                                 "PyTorch installed",
                                 python, f.version, r.failure()));
  f.torch_version = lines[1];
  read_capabilities(f, lines);
  return f;
}

namespace {
std::unique_ptr<FillChild> child_for(PythonFacts py) {
  const std::string script = absolute_for_child(find_pyfill());
  if (script.empty())
    throw RunRefused("--python: wmbench_fill.py was not found next to wmbench (build/wmbench_fill.py) nor in the "
                     "source tree (harness/pyfill/wmbench_fill.py); set WMBENCH_PYFILL to its path");
  return std::make_unique<PythonFillChild>(std::move(py), script);
}
}  // namespace

std::unique_ptr<FillChild> python_fill_child(const std::string& python, const std::string& device) {
  return child_for(probe_python(python, device, kProbeTimeout));
}

std::unique_ptr<FillChild> python_fill_child(PythonFacts known, const std::string& device) {
  refuse_too_old(known, known.path, device);
  return child_for(std::move(known));
}

}  // namespace wmb
