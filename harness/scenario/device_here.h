// A run that cannot happen on this machine is refused before any folder, with the fix named:
// device mps off a Mac (PyTorch's MPS backend exists only on macOS) would otherwise start every
// cell and record each as `config`, a PyTorch class for something PyTorch never saw.
#pragma once

#include "scenario/scenario.h"

namespace wmb {

// Throws RunRefused (exit 2) when sc.device cannot run here. `source`: the scenario's file or
// the --resume folder, for the message.
void refuse_device_not_here(const Scenario& sc, const std::string& source);

}  // namespace wmb
