// wmbench-fill: the child that fills one device with tensors and reports every step as one JSON
// line on stdout (docs/ARCHITECTURE.md, "Child protocol"). This executable links no libtorch:
//   - device mps-model runs here (fillbase/model_child.h): the model needs no libtorch, and a model
//     run then starts in milliseconds, not the 0.6 s of CPU that loading Debian's libtorch 1.13
//     takes (BENCHMARKS.md, "Child start");
//   - every other device (cpu, cuda, mps) replaces this process with wmbench-fill-torch, the half
//     that links libtorch (fill/main.cpp), found beside this executable's own file and started
//     with the same arguments and environment (execv: the same pid and process group).
// Both halves parse the command line with the same code (fillbase/options.h) and speak the same
// protocol with the same exit codes: 0 done, 3 an allocation / torch error, 2 usage, 1 anything else.
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "fillbase/child_lines.h"
#include "fillbase/model_child.h"
#include "fillbase/options.h"
#include "fillbase/protocol_out.h"
#include "host/platform.h"

namespace {

using namespace wmb::fill;

// The libtorch wmbench-fill-torch links (its ATen library, as that half's hello names it from the
// loaded library), from the build (CMakeLists.txt: WMBENCH_TORCH_LIBRARY_FILE); null when unknown
// or gone.
Msg built_torch_library() {
#ifdef WMBENCH_TORCH_LIBRARY_FILE
  char resolved[PATH_MAX];
  if (realpath(WMBENCH_TORCH_LIBRARY_FILE, resolved)) return std::string(resolved);
#endif
  return nullptr;
}

// This executable's own file, links resolved ("" when it cannot be told).
std::string own_folder() {
  const std::string self = wmb::self_exe_path();
  if (self.empty()) return "";
  char resolved[PATH_MAX];
  const std::string real = realpath(self.c_str(), resolved) ? std::string(resolved) : self;
  const size_t slash = real.rfind('/');
  return slash == std::string::npos ? "" : real.substr(0, slash);
}

// Replaces this process with wmbench-fill-torch; returns only when it could not be started.
int exec_torch_half(const FillOptions& opts, char** argv) {
  const std::string folder = own_folder();
  const std::string torch_half = folder.empty() ? "" : folder + "/wmbench-fill-torch";
  int err = ENOENT;
  if (!torch_half.empty()) {
    ::execv(torch_half.c_str(), argv);
    err = errno;
  }
  const std::string msg = "cannot start " + (torch_half.empty() ? std::string("wmbench-fill-torch (wmbench-fill's own path is unknown)") : torch_half) +
                          " for device " + opts.device + ": " + std::strerror(err) +
                          "; it is built beside wmbench-fill (scripts/build.sh); without it wmbench-fill runs only mps-model, "
                          "and only with WMBENCH_FILL_MODEL_WITHOUT_TORCH=1";
  std::cerr << "wmbench-fill: " << msg << std::endl;
  ProtocolOut out(STDOUT_FILENO);
  out.write(error_message(msg, "launcher"));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int parse_exit = 0;
  const std::optional<FillOptions> parsed = parse_command_line(argc, argv, parse_exit);
  if (!parsed) return parse_exit;
  const FillOptions& opts = *parsed;
  // The model without libtorch only when asked (WMBENCH_FILL_MODEL_WITHOUT_TORCH=1): its process then
  // lacks libtorch's resident memory (~150 MB with Debian's 1.13), which a real PyTorch process on a
  // Mac holds, and the main job's 2 GiB sandbox reproduces the write-up's HIGH 1.0 row (swap, the
  // guard) only with it: without it that row's swap ended 6 MiB under the budget and PyTorch stopped
  // it (ModelMatrixExclusive, 1 run in 4). Until the model accounts for that memory itself, the
  // default is the libtorch half for every device.
  const char* lean = std::getenv("WMBENCH_FILL_MODEL_WITHOUT_TORCH");
  if (opts.device == "mps-model" && lean && std::string(lean) == "1") run_model_child(opts, built_torch_library());
  return exec_torch_half(opts, argv);
}
