// The Python child: `<python> <path>/wmbench_fill.py <the same flags as wmbench-fill>`
// (harness/pyfill/wmbench_fill.py, copied next to the binaries as build/wmbench_fill.py), for
// the torch of a Python installation rather than the libtorch wmbench-fill was built against.
#pragma once

#include <string>

namespace wmb {

struct PythonFacts {
  std::string path;           // the interpreter, absolute when it was found on PATH
  std::string version;        // "3.11.2"
  std::string torch_version;  // "1.13.1"
  std::string torch_file;     // torch/__init__.py as imported ("" when not said)
  // What the mps device of wmbench_fill.py needs (its MpsDevice): torch.backends.mps, and
  // torch.mps.current_allocated_memory (torch 2.0+). Unknown (false) when the probe did not say.
  bool has_backends_mps = false;
  bool has_torch_mps = false;
};

// Runs `<python> -c 'import sys; print(version); import torch; print(torch.__version__); ...'`
// through the no-shell spawner, stopped after timeout_s. Throws RunRefused (exit 2) naming the
// interpreter and what failed: it cannot be started, it is not a Python, it has no torch, it hung,
// or (with `device`) its torch is too old for the device.
PythonFacts probe_python(const std::string& python, double timeout_s);
PythonFacts probe_python(const std::string& python, const std::string& device, double timeout_s);

// Why this torch cannot run `device` in the Python child ("" when it can): mps needs torch 2.0
// or newer with torch.backends.mps and torch.mps.current_allocated_memory (wmbench_fill.py's
// MpsDevice; torch.mps appeared in 2.0). cpu and cuda take any torch that imports (whether CUDA
// is there is the child's own usage error, as with the native child).
std::string torch_too_old_for(const PythonFacts& f, const std::string& device);

}  // namespace wmb
