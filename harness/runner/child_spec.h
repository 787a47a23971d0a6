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

#include "mpsmodel/watermark.h"
#include "scenario/scenario.h"

namespace wmb {

struct RunnerOptions;
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
};

// The fill protocol's flags for one run, the same for every kind of child.
std::vector<std::string> fill_flags(const Scenario& sc, const ResolvedSizes& sizes, const std::string& data,
                                    const std::optional<mpsmodel::ModelledMac>& model);

// --fill PATH (or found) for the native child, --python PYTHON for the Python one. Throws
// RunRefused (exit 2) when the child cannot be used; nothing is written before.
std::unique_ptr<FillChild> choose_fill_child(const RunnerOptions& opts);

// The kinds (child_native.cpp, child_python.cpp).
std::unique_ptr<FillChild> native_fill_child(const std::string& explicit_path);
std::unique_ptr<FillChild> python_fill_child(const std::string& python);

}  // namespace wmb
