// The seam between the runner and the fill child: everything the runner needs to know to start
// one (program, arguments, environment) and to describe it in machine.json ("child").
// Kinds: native (wmbench-fill, child_native.cpp) and python (wmbench_fill.py under an
// interpreter with torch, child_python.cpp). A new child kind is a new FillChild subclass in
// a new child_<kind>.cpp and one branch in choose_fill_child() (child_spec.cpp); nothing else in
// the runner changes: every kind speaks the same protocol and takes the same flags.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/child_kinds.h"
#include "mpsmodel/watermark.h"
#include "scenario/scenario.h"

namespace wmb {

struct ResolvedSizes;

class FillChild {
 public:
  virtual ~FillChild() = default;
  // argv of one run: the program (and its interpreter), then `flags` (see fill_flags()).
  virtual std::vector<std::string> argv(const std::vector<std::string>& flags) const = 0;
  // The child's whole environment. The default: the parent's with every PYTORCH_MPS_* and
  // PYTORCH_CUDA_ALLOC_CONF removed, then the cell's own (spawn/process.h child_environment).
  virtual std::map<std::string, std::string> environment(const std::map<std::string, std::string>& parent,
                                                         const std::map<std::string, std::string>& cell) const;
  // machine.json "child": {"kind": "native"|"python", "program": ..., "python": null|{"path","version"}}.
  virtual nlohmann::json describe() const = 0;
  // The program that fills (machine.json "fill"): wmbench-fill's path or wmbench_fill.py's.
  virtual std::string program() const = 0;
  // A run's detail when the child could not be started (`why` from the spawner).
  virtual std::string cannot_start(const std::string& why) const = 0;

  // The hello this child already said for `device` (child_info.h fetch_child_hello keeps each
  // one), so that the probe in native_fill_child and `info`/`predict` asking for the same device
  // start the program once, not twice. Runs never use it: every run is a fresh process.
  std::optional<nlohmann::json> known_hello(const std::string& device) const;
  void remember_hello(const std::string& device, const nlohmann::json& hello) const;

 private:
  mutable std::map<std::string, nlohmann::json> hellos_;
};

// The fill protocol's flags for one run, the same for every kind of child. With a model
// (mps-model): --recommended-max, --model-ram, --model-revision `model_revision`, and, when the
// step was shrunk to fit min_steps (the sandbox, or this machine standing for a scaled-down Mac),
// --model-unscaled-step = the step as written (mps-watermark: 512 MiB), so that each small step
// keeps the heap tier the unscaled step has on the Mac modelled (mpsmodel/heap_allocator.h,
// ModelParams::tier_scale).
std::vector<std::string> fill_flags(const Scenario& sc, const ResolvedSizes& sizes, const std::string& data,
                                    const std::optional<mpsmodel::ModelledMac>& model,
                                    const std::string& model_revision = "current",
                                    std::optional<double> memory_fraction = std::nullopt,
                                    std::optional<uint64_t> model_other = std::nullopt);

// Which child, for `run`, `info` and `predict` alike:
//   --fill PATH          the native child at PATH
//   --python PYTHON      the Python child under PYTHON (refused for mps-model: the model is the
//                        C++ child's)
//   neither              the native child, found (tools/locate.h find_fill)
// Throws RunRefused (exit 2) when the child cannot be used (a bad interpreter, no torch, a torch
// too old for `device`, no wmbench_fill.py, no executable wmbench-fill); nothing is written before.
struct PythonFacts;
struct ChildChoice {
  std::string fill_path;  // --fill
  std::string python;     // --python
  std::string device;     // the scenario's device after overrides
  std::vector<std::string> command;  // program "command": the job's argv (child_command.h)
  // What `python` was found to be in this process already (the release's probe in `releases`,
  // which asks what the child's probe asks): the child is made from it, without a second `import
  // torch`. Taken only for the same interpreter path; else the interpreter is probed.
  std::shared_ptr<const PythonFacts> python_facts;
};
std::unique_ptr<FillChild> choose_fill_child(const ChildChoice& choice);
// The kind of child choose_fill_child would start (FillChild::describe()'s "kind": "native",
// "python" or "command") after the checks of the options it makes, which start nothing (RunRefused
// as there): `run` refuses what needs no child before it starts one for its hello (a libtorch or
// a torch import).
std::string chosen_child_kind(const ChildChoice& choice);

// The default for --python: WMBENCH_PYTHON_CHILD=PYTHON (not empty), when neither --fill nor
// --python is given and the device is not mps-model (which stays with the native child). Sets
// `c.python` and returns a note to say at the start ("" when the variable is not set).
inline constexpr const char* kPythonChildEnv = "WMBENCH_PYTHON_CHILD";
std::string apply_python_child_default(ChildChoice& c);
// The same on the runner's options: runner/runner.h.

// The kinds (child_native.cpp, child_python.cpp). python_fill_child probes the interpreter for
// `device` (child_python.h probe_python); native_fill_child asks wmbench-fill's hello for cpu, or for
// mps-model when that is `device`.
std::unique_ptr<FillChild> native_fill_child(const std::string& explicit_path, const std::string& device = "cpu");
std::unique_ptr<FillChild> python_fill_child(const std::string& python, const std::string& device = "cpu");
// The same for an interpreter whose facts were asked already (releases/torch_probe.cpp asks them
// with the rest of what it imports): the same refusals, without a second `import torch`.
std::unique_ptr<FillChild> python_fill_child(PythonFacts known, const std::string& device);

}  // namespace wmb
