// wmbench-fill-torch: the half of wmbench-fill that links libtorch. wmbench-fill (fillbase/main.cpp)
// replaces itself with it for every device but mps-model, with the same arguments; it fills one device
// with tensors and reports every step as one JSON line on stdout (docs/ARCHITECTURE.md, "Child protocol").
// Started directly it runs mps-model too (fill/device_mps_model.h), as the benchmarks do.
//
// Exit codes: 0 done (cap reached, or the program ended), 3 an allocation / torch error was
// reported, 2 usage error (stderr + an error line with "exception":"usage"), 1 anything else.
// SIGTERM / SIGINT keep their default action: the parent stops the whole process group. Every
// protocol line is written with one write() call, so a line is never cut in half by a signal.
#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/util/Exception.h>

#include "fill/devices.h"
#include "fillbase/child_lines.h"
#include "fillbase/fill_loop.h"
#include "fill/offload.h"
#include "fillbase/options.h"
#include "fillbase/protocol_out.h"

namespace {

using namespace wmb::fill;
using json = Msg;

// The shared library that holds ATen (libtorch_cpu on current builds), found from one of its
// functions; null when it cannot be told (a static build).
json torch_library() {
  Dl_info info{};
  const void* sym = reinterpret_cast<const void*>(&at::detail::getCUDAHooks);
  if (dladdr(const_cast<void*>(sym), &info) == 0 || info.dli_fname == nullptr || info.dli_fname[0] == '\0')
    return nullptr;
  char resolved[PATH_MAX];
  if (realpath(info.dli_fname, resolved)) return std::string(resolved);
  return std::string(info.dli_fname);
}

// Reports the exception being handled; returns the exit code (fillbase/child_lines.h report_exception:
// after the command line, every other std::exception came out of a libtorch call).
int report_current_exception(ProtocolOut& out) {
  try {
    throw;
  } catch (const c10::Error& e) {
    // what() carries a C++ backtrace; the text the parent parses is PyTorch's message alone.
    std::cerr << "wmbench-fill: " << e.what() << std::endl;
    out.write(error_message(e.what_without_backtrace(), current_exception_type()));
    return 3;
  } catch (...) {
    return report_exception(out, /*std_exceptions_are_torchs=*/true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int parse_exit = 0;
  const std::optional<FillOptions> parsed = parse_command_line(argc, argv, parse_exit);
  if (!parsed) return parse_exit;
  const FillOptions& opts = *parsed;

  ProtocolOut out = ProtocolOut::take_stdout();
  int code = 0;
  // Never destroyed: the process ends with _Exit, so neither the device nor the tensors are torn
  // down one by one (freeing tens of GiB, or libtorch's static destructors, would only delay the
  // parent), and an error is reported while everything is still held.
  auto* held = new std::vector<at::Tensor>();
  std::unique_ptr<FillDevice> device;
  try {
    device = make_device(opts.device, opts);
    const json hello = hello_message(opts, device->name(), device->recommended_max(), built_torch_version(),
                                     torch_library(), device->model_json());
    out.write(hello);
    // As user code calls it: after the device is chosen, before the first allocation.
    if (!opts.hello_only && opts.memory_fraction) device->set_memory_fraction(*opts.memory_fraction);

    if (opts.hello_only) {
      // nothing else: `wmbench info` and `predict` only want the hello
    } else if (opts.program == "offload")
      run_offload(*device, opts, out);
    else
      run_fill(*device, opts, out, *held);
  } catch (...) {
    code = report_current_exception(out);
    // The exact limit, to the byte, where the device knows it (the message rounds to 2 decimals).
    if (device && code == 3)
      if (auto m = device->max_allowed()) out.write({{"type", "limit"}, {"max_allowed_bytes", *m}});
  }
  (void)device.release();
  std::cerr << std::flush;
  std::_Exit(code);
}
