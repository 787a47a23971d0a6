#include "fillbase/child_lines.h"

#include "fillbase/model_buffers.h"

#include <cxxabi.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <new>
#include <typeinfo>

#include <torch/version.h>

namespace wmb::fill {
namespace {

#define WMB_STR2(x) #x
#define WMB_STR(x) WMB_STR2(x)

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

}  // namespace

std::string built_torch_version() {
#if defined(TORCH_VERSION)
  return TORCH_VERSION;
#elif defined(TORCH_VERSION_MAJOR)
  return WMB_STR(TORCH_VERSION_MAJOR) "." WMB_STR(TORCH_VERSION_MINOR) "." WMB_STR(TORCH_VERSION_PATCH);
#else
  return "unknown";
#endif
}

Msg hello_message(const FillOptions& o, const std::string& device, const std::optional<uint64_t>& recommended_max,
                  const std::string& torch_version, const Msg& torch_library, const Msg& model) {
  Msg hello = {{"type", "hello"},
               {"pid", static_cast<int64_t>(getpid())},
               {"torch_version", torch_version},
               {"torch_library", torch_library},
               {"device", device},
               {"recommended_max_bytes", opt_json(recommended_max)},
               {"env", pytorch_env()},
               {"step_bytes", o.step_bytes},
               {"data", o.data},
               {"cap_bytes", opt_json(o.cap_bytes)},
               {"program", o.program}};
  if (o.program == "offload") hello["offload_bytes"] = opt_json(o.offload_bytes);
  hello["memory_fraction"] = o.memory_fraction ? Msg(*o.memory_fraction) : Msg(nullptr);
  if (!model.is_null()) hello["model"] = model;
  return hello;
}

std::optional<FillOptions> parse_command_line(int argc, char** argv, int& exit_code) {
  ProtocolOut early(STDOUT_FILENO);
  try {
    ParseOutcome parsed = parse_fill_options(argc, argv);
    if (!parsed.options) {
      std::cout << parsed.help << std::flush;
      exit_code = 0;
      return std::nullopt;
    }
    return parsed.options;
  } catch (...) {
    exit_code = report_exception(early, /*std_exceptions_are_torchs=*/false);  // no libtorch call yet
    return std::nullopt;
  }
}

int usage_fail(ProtocolOut& out, const std::string& msg) {
  std::cerr << "wmbench-fill: " << msg << "\n(try wmbench-fill --help)" << std::endl;
  out.write(error_message(msg, "usage"));
  return 2;
}

std::string current_exception_type() {
  const std::type_info* ti = abi::__cxa_current_exception_type();
  return ti ? demangle(ti->name()) : "unknown";
}

int report_exception(ProtocolOut& out, bool std_exceptions_are_torchs) {
  try {
    throw;
  } catch (const UsageError& e) {
    return usage_fail(out, e.what());
  } catch (const PyTorchRefusal& e) {
    // The model's refusal: the text and type PyTorch's TORCH_CHECK gives (a c10::Error).
    std::cerr << "wmbench-fill: " << e.what() << std::endl;
    out.write(error_message(e.what(), "c10::Error"));
    return 3;
  } catch (const std::bad_alloc& e) {
    std::cerr << "wmbench-fill: " << e.what() << std::endl;
    out.write(error_message(e.what(), current_exception_type()));
    return 3;
  } catch (const std::exception& e) {
    const std::string type = current_exception_type();
    if (std_exceptions_are_torchs) {
      std::cerr << "wmbench-fill: " << type << " from libtorch: " << e.what() << std::endl;
      out.write(error_message(e.what(), type));
      return 3;
    }
    std::cerr << "wmbench-fill: unexpected " << type << ": " << e.what() << std::endl;
    out.write(error_message(e.what(), type));
    return 1;
  } catch (...) {
    std::cerr << "wmbench-fill: unexpected exception of type " << current_exception_type() << std::endl;
    out.write(error_message("unknown exception", current_exception_type()));
    return 1;
  }
}

}  // namespace wmb::fill
