// Asks a fill child for its hello only (torch version, library, recommended max) without filling
// anything: `<child> --device D --step 4MiB --hello-only`, through the same FillChild seam as a
// run (child/child_spec.h: program, argv, scrubbed environment), bounded in time. Used by
// `wmbench info` and `wmbench predict`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child/child_spec.h"

namespace wmb {

struct ChildHello {
  std::optional<nlohmann::json> hello;  // the child's hello line
  std::string error;                    // why there is none (the child's error text, or how it ended)
  nlohmann::json child;                 // the child's machine.json "child" description
  std::string program;                  // wmbench-fill's or wmbench_fill.py's path
  std::vector<std::string> notes;       // e.g. that WMBENCH_PYTHON_CHILD chose the child
};

// The hello of `child` for `device`; the error when it gave none within timeout_s.
std::optional<nlohmann::json> fetch_child_hello(const FillChild& child, const std::string& device,
                                                double timeout_s, std::string* error);

// Chooses the child as `wmbench run` does (choose_fill_child, WMBENCH_PYTHON_CHILD as the default
// for --python) and asks it. Throws RunRefused when that child cannot be used at all (a bad
// --python, mps-model under the Python child, a --fill that is not executable).
ChildHello ask_child_hello(ChildChoice choice, double timeout_s = 120);

// The native child found as `run` finds it (no options): for callers that only want the
// recommended max on a Mac.
std::optional<nlohmann::json> fetch_child_hello(const std::string& device);

}  // namespace wmb
