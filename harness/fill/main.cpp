// wmbench-fill: the child that fills one device with tensors and reports every step as one JSON
// line on stdout (docs/ARCHITECTURE.md, "Child protocol").
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
#include <torch/version.h>

#include "fill/devices.h"
#include "fill/offload.h"
#include "fill/options.h"
#include "fill/protocol_out.h"

namespace {

using namespace wmb::fill;
using json = Msg;

#define WMB_STR2(x) #x
#define WMB_STR(x) WMB_STR2(x)

std::string torch_version() {
#if defined(TORCH_VERSION)
  return TORCH_VERSION;
#elif defined(TORCH_VERSION_MAJOR)
  return WMB_STR(TORCH_VERSION_MAJOR) "." WMB_STR(TORCH_VERSION_MINOR) "." WMB_STR(TORCH_VERSION_PATCH);
#else
  return "unknown";
#endif
}

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

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

// The dynamic type of the exception being handled ("c10::Error", "c10::OutOfMemoryError", ...).
std::string current_exception_type() {
  const std::type_info* ti = abi::__cxa_current_exception_type();
  return ti ? demangle(ti->name()) : "unknown";
}

int usage_fail(ProtocolOut& out, const std::string& msg) {
  std::cerr << "wmbench-fill: " << msg << "\n(try wmbench-fill --help)" << std::endl;
  out.write(error_message(msg, "usage"));
  return 2;
}

// Reports the exception being handled; returns the exit code.
int report_current_exception(ProtocolOut& out) {
  try {
    throw;
  } catch (const UsageError& e) {
    return usage_fail(out, e.what());
  } catch (const c10::Error& e) {
    // what() carries a C++ backtrace; the text the parent parses is PyTorch's message alone.
    std::cerr << "wmbench-fill: " << e.what() << std::endl;
    out.write(error_message(e.what_without_backtrace(), current_exception_type()));
    return 3;
  } catch (const std::bad_alloc& e) {
    std::cerr << "wmbench-fill: " << e.what() << std::endl;
    out.write(error_message(e.what(), current_exception_type()));
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "wmbench-fill: unexpected " << current_exception_type() << ": " << e.what() << std::endl;
    out.write(error_message(e.what(), current_exception_type()));
    return 1;
  } catch (...) {
    std::cerr << "wmbench-fill: unexpected exception of type " << current_exception_type() << std::endl;
    out.write(error_message("unknown exception", current_exception_type()));
    return 1;
  }
}

void sleep_seconds(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// `held` outlives any exception: the error line is written while every tensor is still held, as it
// is in PyTorch when the allocation fails.
void run_fill(FillDevice& device, const FillOptions& o, ProtocolOut& out, std::vector<at::Tensor>& held) {
  const DataKind data = parse_data_kind(o.data);
  const uint64_t step = o.step_bytes;
  uint64_t held_bytes = 0;
  uint64_t index = 0;
  const auto fits = [&] { return !o.cap_bytes || held_bytes + step <= *o.cap_bytes; };
  while (fits()) {
    const auto t0 = std::chrono::steady_clock::now();
    at::Tensor t = device.allocate(step, data);
    device.synchronize();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    held.push_back(std::move(t));
    held_bytes += step;
    ++index;
    const DeviceStats st = device.stats();
    out.write({{"type", "step"},
               {"index", index},
               {"held_bytes", held_bytes},
               {"allocated_bytes", opt_json(st.allocated)},
               {"driver_bytes", opt_json(st.driver)},
               {"allocator_peak_bytes", opt_json(st.peak)},
               {"step_seconds", secs}});
    if (fits()) sleep_seconds(o.step_delay);
  }
  out.write({{"type", "done"}, {"reason", "cap"}, {"held_bytes", held_bytes}});
}

}  // namespace

int main(int argc, char** argv) {
  FillOptions opts;
  {
    ProtocolOut early(STDOUT_FILENO);
    try {
      ParseOutcome parsed = parse_fill_options(argc, argv);
      if (!parsed.options) {
        std::cout << parsed.help << std::flush;
        return 0;
      }
      opts = *parsed.options;
    } catch (...) {
      return report_current_exception(early);
    }
  }

  ProtocolOut out = ProtocolOut::take_stdout();
  int code = 0;
  // Never destroyed: the process ends with _Exit, so neither the device nor the tensors are torn
  // down one by one (freeing tens of GiB, or libtorch's static destructors, would only delay the
  // parent), and an error is reported while everything is still held.
  auto* held = new std::vector<at::Tensor>();
  std::unique_ptr<FillDevice> device;
  try {
    device = make_device(opts.device, opts);
    json hello = {{"type", "hello"},
                  {"pid", static_cast<int64_t>(getpid())},
                  {"torch_version", torch_version()},
                  {"torch_library", torch_library()},
                  {"device", device->name()},
                  {"recommended_max_bytes", opt_json(device->recommended_max())},
                  {"env", pytorch_env()},
                  {"step_bytes", opts.step_bytes},
                  {"data", opts.data},
                  {"cap_bytes", opt_json(opts.cap_bytes)},
                  {"program", opts.program}};
    if (opts.program == "offload") hello["offload_bytes"] = opt_json(opts.offload_bytes);
    hello["memory_fraction"] = opts.memory_fraction ? json(*opts.memory_fraction) : json(nullptr);
    if (auto model = device->model_json(); !model.is_null()) hello["model"] = model;
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
