// The native child: wmbench-fill, the C++ program linking libtorch (harness/fill/).
#include <unistd.h>

#include <fmt/format.h>

#include "common/interrupt.h"
#include "spawn/process.h"
#include "child/child_info.h"
#include "child/child_spec.h"
#include "common/run_error.h"
#include "tools/locate.h"

namespace wmb {
namespace {

class NativeFillChild final : public FillChild {
 public:
  explicit NativeFillChild(std::string path) : path_(std::move(path)) {}
  std::vector<std::string> argv(const std::vector<std::string>& flags) const override {
    std::vector<std::string> a = {path_};
    a.insert(a.end(), flags.begin(), flags.end());
    return a;
  }
  nlohmann::json describe() const override {
    return {{"kind", kNativeChild}, {"program", path_}, {"python", nullptr}};
  }
  std::string program() const override { return path_; }
  std::string cannot_start(const std::string& why) const override {
    return fmt::format("wmbench-fill could not be started: {} (give its path with --fill)", why);
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<FillChild> native_fill_child(const std::string& explicit_path, const std::string& device) {
  const std::string fill = find_fill(explicit_path);
  if (fill.find('/') != std::string::npos && ::access(fill.c_str(), X_OK) != 0)
    throw RunRefused(fmt::format("--fill: {} is not an executable file", fill));
  // It must speak the protocol before a folder exists: a program that cannot run, or that ends
  // without a hello, would otherwise leave a folder of runs that never started. cpu is in every
  // build of wmbench-fill; the run's own device is checked by the runs themselves. A run on the
  // model asks the model (in every build too, harness/fillbase/), which its runs need anyway: its
  // hello needs no libtorch where the model runs without it (WMBENCH_FILL_MODEL_WITHOUT_TORCH=1),
  // where cpu's always starts libtorch (0.5-0.8 s of CPU, 2.2-2.5 s under ASan; issue 44).
  const std::string probe_device = device == "mps-model" ? device : "cpu";
  auto child = std::make_unique<NativeFillChild>(fill);
  std::string why;
  const bool said_hello = fetch_child_hello(*child, probe_device, 60, &why).has_value();
  // The user's Ctrl-C during the probe is not the child's fault: 128+N, nothing run.
  if (const int sig = interrupt_signal(); sig && !said_hello)
    throw RunRefused(fmt::format("stopped by {} while asking {} for its hello; nothing was run", signal_name(sig), fill),
                     128 + sig);
  if (!said_hello)
    throw RunRefused(fmt::format("--fill: {} cannot be used as wmbench-fill: `{} --device {} --hello-only`: {}", fill,
                                 fill, probe_device, why.empty() ? "it said no hello" : why));
  return child;
}

}  // namespace wmb
