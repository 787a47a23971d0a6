// Whether two result folders can be compared at all: folders of different devices (cpu, cuda,
// mps, mps-model measure different things), a change of the model (mps-model: its version, the
// PyTorch revision it speaks for, its "other allocations") or of the set-up that moves where
// settings stop (the step, the sandbox) make a different stop a consequence of that change, not a
// regression of torch. compare_folders (and so `wmbench history`, which calls it) turns such rows'
// regressions into notes and says "not comparable: the devices differ (device cpu -> mps-model)"
// (or "... the model changed", "... the set-up changed"). Nothing is then claimed either way:
// `wmbench compare` exits 3 unless a row regressed for a reason no such change explains (a label
// only in BASE), which stays 1 (compare.h Comparison::exit_code).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare.h"

namespace wmb::compare {

// The model of a folder's machine.json "model" object, in words: "2 (heap model)",
// "older (before the heap model: no version, no tier_scale)", or "" when the folder has no model.
// Folders written before `model.version` existed are placed by their keys: `tier_scale` came with
// the heap model (2026-12-01), so a model object without it is older.
std::string model_version_text(const nlohmann::json& model);

struct Comparability {
  std::vector<std::string> device; // "device cpu -> mps-model"
  std::vector<std::string> model;  // "model version: older (...) -> 2 (heap model)"
  std::vector<std::string> setup;  // "step 32 MiB -> 64 MiB", "sandbox 2.00 GiB -> none"
  bool comparable() const { return device.empty() && model.empty() && setup.empty(); }
  // "the devices differ", "the model changed" or "the set-up changed": the first that applies.
  std::string what() const;
  // "not comparable: the model changed (model version: ...; step ...)"
  std::string title() const;
};

// Reads both folders' device (folder_device.h), machine (summary.json "machine" overlaid by
// machine.json) and runs' step_bytes. Throws CompareError only where folder_device does (a
// folder whose files disagree on its device); otherwise a value of the wrong type counts as unknown.
Comparability comparability(const ResultFolder& base, const ResultFolder& now);

// When not comparable: every row that regressed because of what it measured keeps its reasons as
// notes, is no regression, and its verdict says why; a label only in BASE stays a regression (the
// model does not remove settings). Adds the title to c.notes and sets c.not_comparable.
void apply_comparability(Comparison& c, const Comparability& why);

}  // namespace wmb::compare
