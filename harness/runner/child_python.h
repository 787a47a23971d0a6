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
};

// Runs `<python> -c 'import sys; print(version); import torch; print(torch.__version__)'`
// through the no-shell spawner, stopped after timeout_s. Throws RunRefused (exit 2) naming the
// interpreter and what failed: it cannot be started, it is not a Python, it has no torch, it hung.
PythonFacts probe_python(const std::string& python, double timeout_s);

}  // namespace wmb
