// Where `wmbench run` gets its scenario: a file, a name in scenarios/, the main job (no
// SCENARIO: scenarios/mps-watermark.json, and off a Mac main_job.h decides the device), or
// --resume DIR (the scenario as run there, with its sandbox and model kept).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "runner/runner.h"

namespace wmb {

// Bad input to `wmbench run` (exit 2): the message says what and where.
struct RunInputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The scenario file for a SCENARIO argument: a path, else scenarios/<name>[.json] next to
// wmbench; "" = the main job's scenarios/mps-watermark.json. Throws RunInputError.
std::string find_scenario_file(const std::string& arg);

// --resume DIR: o.scenario from DIR/scenario.json, o.resume_dir, and the first session's sandbox
// (unless o.ram_limit is given) and model (its Mac, recommended max and revision, machine.json
// "model.revision"; "current" for folders made before revisions). Throws RunInputError,
// ScenarioError, FileError.
void load_resume(const std::string& dir, RunnerOptions& o, std::vector<std::string>& warnings);

// --model-revision NAME after the scenario is known: NAME must be one of mpsmodel/revision.h's,
// the device mps-model, and on --resume the folder's own revision (a folder is one revision).
// Sets o.model_revision. Throws RunInputError naming the allowed names.
void apply_model_revision(const std::string& name, RunnerOptions& o);

}  // namespace wmb
