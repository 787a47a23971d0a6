#include "runner/child_python.h"

#include <cctype>

#include <fmt/format.h>

#include "runner/child_spec.h"
#include "runner/locate.h"
#include "runner/run_error.h"
#include "runner/short_command.h"

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
    std::vector<std::string> a = {py_.path, script_};
    a.insert(a.end(), flags.begin(), flags.end());
    return a;
  }
  std::map<std::string, std::string> environment(const std::map<std::string, std::string>& parent,
                                                 const std::map<std::string, std::string>& cell) const override {
    auto env = FillChild::environment(parent, cell);
    env["PYTHONUNBUFFERED"] = "1";  // every protocol line reaches the pipe when written
    return env;
  }
  nlohmann::json describe() const override {
    return {{"kind", "python"}, {"program", script_}, {"python", {{"path", py_.path}, {"version", py_.version}}}};
  }
  std::string program() const override { return script_; }
  std::string cannot_start(const std::string& why) const override {
    return fmt::format("{} {} could not be started: {} (give another interpreter with --python)", py_.path, script_, why);
  }

 private:
  PythonFacts py_;
  std::string script_;
};

}  // namespace

PythonFacts probe_python(const std::string& python, double timeout_s) {
  PythonFacts f;
  f.path = find_on_path(python);
  if (f.path.empty()) throw RunRefused(fmt::format("--python {}: no such program on PATH", python));
  const CommandOutput r = run_short_command(
      {f.path, "-c", "import sys; print(sys.version.split()[0]); import torch; print(torch.__version__)"}, timeout_s);
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
  return f;
}

std::unique_ptr<FillChild> python_fill_child(const std::string& python) {
  PythonFacts py = probe_python(python, kProbeTimeout);
  const std::string script = find_pyfill();
  if (script.empty())
    throw RunRefused("--python: wmbench_fill.py was not found next to wmbench (build/wmbench_fill.py) nor in the "
                     "source tree (harness/pyfill/wmbench_fill.py); set WMBENCH_PYFILL to its path");
  return std::make_unique<PythonFillChild>(std::move(py), script);
}

}  // namespace wmb
