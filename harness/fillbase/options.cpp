#include <cmath>
#include "fillbase/options.h"

#include <algorithm>

#include <CLI/CLI.hpp>

#include "io/text_table.h"
#include "common/units.h"
#include "mpsmodel/revision.h"
#include "common/limits.h"

namespace wmb::fill {
namespace {

void check_member(const std::string& what, const std::string& value, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw UsageError("unknown " + what + " \"" + value + "\"; allowed: " + join(allowed));
}

uint64_t size_option(const std::string& flag, const std::string& text, bool allow_zero = false) {
  try {
    return wmb::parse_size(text, allow_zero);
  } catch (const wmb::UnitError& e) {
    throw UsageError("invalid " + flag + " \"" + text + "\": " + e.what());
  }
}

// Rounds down to whole float32 elements; refuses less than one element.
uint64_t float_multiple(const std::string& flag, const std::string& text, uint64_t bytes) {
  if (bytes < 4)
    throw UsageError(flag + " \"" + text + "\" is " + std::to_string(bytes) +
                     " bytes, smaller than one float32 element (4 bytes)");
  return bytes / 4 * 4;
}

// The child's flags as given on the command line, checked after the parse.
struct FillFlags {
  std::string device, step, data = "random", cap, program = "fill", offload, rec_max, model_ram, delay;
  std::string revision, other, max_buffer, unscaled_step, fraction;
  bool hello_only = false;
};

// Declares every flag on the app, in the order --help lists them.
void add_fill_options(CLI::App& app, FillFlags& f) {
  app.add_option("--device", f.device, "mps | cuda | cpu | mps-model")->required();
  app.add_option("--step", f.step, "size of each tensor, e.g. 512MiB (rounded down to a multiple of 4 bytes)")
      ->required();
  app.add_option("--data", f.data, "random | ones | zeros (default random)");
  app.add_option("--cap", f.cap, "stop (done, reason cap) before holding more than this; default: no cap");
  app.add_option("--program", f.program, "fill | offload (default fill)");
  app.add_option("--offload-size", f.offload, "program offload: bytes moved to the device and back");
  app.add_option("--recommended-max", f.rec_max, "mps-model: the modelled recommendedMaxWorkingSetSize");
  app.add_option("--model-ram", f.model_ram, "mps-model: the modelled RAM");
  app.add_option("--model-revision", f.revision,
                 "mps-model: the PyTorch release modelled: " + wmb::mpsmodel::revision_names() + " (default current)");
  app.add_option("--model-other", f.other, "mps-model: MPS's own buffers, \"other allocations\" (default 448KiB)");
  app.add_option("--model-max-buffer", f.max_buffer,
                 "mps-model: Metal's maxBufferLength (default 9/16 of the modelled RAM)");
  app.add_option("--model-unscaled-step", f.unscaled_step,
                 "mps-model in a sandbox: the step on the Mac modelled (e.g. 512MiB); heaps follow its tier");
  app.add_option("--step-delay", f.delay, "seconds to sleep between steps (e.g. 0.5, 250ms)");
  app.add_option("--memory-fraction", f.fraction,
                 "mps, cuda, mps-model: set the per-process memory fraction before the first allocation "
                 "(torch.mps/torch.cuda.set_per_process_memory_fraction)");
  app.add_flag("--hello-only", f.hello_only, "print the hello line (torch version, recommended max) and exit");
}

// --step, --cap and --offload-size: the sizes of the fill, checked against each other and --program.
void check_fill_sizes(const FillFlags& f, FillOptions& o) {
  o.step_bytes = float_multiple("--step", f.step, size_option("--step", f.step));
  if (!f.cap.empty()) {
    o.cap_bytes = size_option("--cap", f.cap);
    if (*o.cap_bytes < o.step_bytes)
      throw UsageError("--cap \"" + f.cap + "\" (" + std::to_string(*o.cap_bytes) + " bytes) is smaller than --step \"" +
                       f.step + "\" (" + std::to_string(o.step_bytes) + " bytes)");
  }
  if (!f.offload.empty()) {
    if (f.program != "offload") throw UsageError("--offload-size applies only to --program offload");
    o.offload_bytes = float_multiple("--offload-size", f.offload, size_option("--offload-size", f.offload));
  } else if (f.program == "offload") {
    throw UsageError("--program offload needs --offload-size (e.g. 4GiB)");
  }
}

// The mps-model flags (--recommended-max through --model-unscaled-step): refused on another device.
void check_model_flags(const FillFlags& f, FillOptions& o) {
  if (!f.rec_max.empty()) {
    if (f.device != "mps-model") throw UsageError("--recommended-max applies only to --device mps-model");
    o.recommended_max = size_option("--recommended-max", f.rec_max);
  }
  if (!f.model_ram.empty()) {
    if (f.device != "mps-model") throw UsageError("--model-ram applies only to --device mps-model");
    o.model_ram = size_option("--model-ram", f.model_ram);
  }
  const auto model_only = [&](const std::string& flag, const std::string& text) {
    if (!text.empty() && f.device != "mps-model") throw UsageError(flag + " applies only to --device mps-model");
    return !text.empty();
  };
  if (model_only("--model-revision", f.revision)) {
    try {
      o.model_revision = wmb::mpsmodel::find_revision(f.revision).name;
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--model-revision: ") + e.what());
    }
  }
  if (model_only("--model-other", f.other)) o.model_other = size_option("--model-other", f.other, true);  // 0: none
  if (model_only("--model-max-buffer", f.max_buffer)) {
    o.model_max_buffer = size_option("--model-max-buffer", f.max_buffer);
    if (*o.model_max_buffer == 0) throw UsageError("--model-max-buffer must be more than 0 bytes");
  }
  if (model_only("--model-unscaled-step", f.unscaled_step)) {
    o.model_unscaled_step = size_option("--model-unscaled-step", f.unscaled_step);
    if (*o.model_unscaled_step < o.step_bytes)
      throw UsageError("--model-unscaled-step \"" + f.unscaled_step + "\" is smaller than --step: the sandbox scales down, not up");
  }
}

// --memory-fraction: only on mps, cuda or mps-model, and a finite number within the parent's bound.
void check_fraction_flag(const FillFlags& f, FillOptions& o) {
  if (!f.fraction.empty()) {
    if (f.device != "mps" && f.device != "cuda" && f.device != "mps-model")
      throw UsageError("--memory-fraction applies only to --device mps, cuda or mps-model");
    // A finite number; its range is PyTorch's to check, so that its own error is what the run records.
    const auto fr = wmb::parse_number(f.fraction);
    if (!fr || !std::isfinite(*fr))
      throw UsageError("invalid --memory-fraction \"" + f.fraction + "\": expected a finite number such as 0.8");
    try {
      o.memory_fraction = wmb::check_memory_fraction(*fr, "--memory-fraction");  // common/limits.h: the parent's bound
    } catch (const wmb::UnitError& e) {
      throw UsageError(e.what());
    }
  }
}

// --step-delay: plain seconds (>= 0) or a duration such as 250ms.
void check_step_delay(const FillFlags& f, FillOptions& o) {
  if (!f.delay.empty()) {
    auto plain = wmb::parse_number(f.delay);
    if (plain) {
      if (*plain < 0) throw UsageError("invalid --step-delay \"" + f.delay + "\": must be >= 0 seconds");
      o.step_delay = *plain;
    } else {
      try {
        o.step_delay = wmb::parse_duration(f.delay);
      } catch (const std::exception& e) {
        throw UsageError("invalid --step-delay \"" + f.delay + "\": " + e.what());
      }
    }
  }
}

// The parsed flags checked in order and turned into the child's options. Throws UsageError.
FillOptions checked_options(const FillFlags& f) {
  FillOptions o;
  check_member("device", f.device, allowed_devices());
  o.device = f.device;
  check_member("data", f.data, {"random", "ones", "zeros"});
  o.data = f.data;
  check_member("program", f.program, {"fill", "offload"});
  o.program = f.program;

  check_fill_sizes(f, o);
  check_model_flags(f, o);
  check_fraction_flag(f, o);
  check_step_delay(f, o);
  o.hello_only = f.hello_only;
  return o;
}

}  // namespace

ParseOutcome parse_fill_options(int argc, const char* const* argv) {
  CLI::App app{"wmbench-fill: the child that fills one device with tensors and reports each step "
               "as JSON lines on stdout"};
  app.name("wmbench-fill");
  FillFlags f;
  add_fill_options(app, f);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return ParseOutcome{std::nullopt, app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return ParseOutcome{std::nullopt, app.help()};
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }

  return ParseOutcome{checked_options(f), {}};
}

}  // namespace wmb::fill
