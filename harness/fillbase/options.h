// Command line of wmbench-fill. No libtorch here.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wmb::fill {

// A usage error: the child reports it on stderr and as {"type":"error","exception":"usage"},
// and exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline const std::vector<std::string>& allowed_devices() {
  static const std::vector<std::string> v{"mps", "cuda", "cpu", "mps-model"};
  return v;
}

struct FillOptions {
  std::string device;                       // mps | cuda | cpu | mps-model
  uint64_t step_bytes = 0;                  // > 0, a multiple of 4 (float32 elements)
  std::string data = "random";              // random | ones | zeros
  std::optional<uint64_t> cap_bytes;        // none: fill until an error or a signal
  std::string program = "fill";             // fill | offload
  std::optional<uint64_t> offload_bytes;    // program offload: total size, a multiple of 4
  std::optional<uint64_t> recommended_max;  // mps-model only
  std::optional<uint64_t> model_ram;        // mps-model only
  std::string model_revision = "current";   // mps-model only: the PyTorch release modelled (mpsmodel/revision.h)
  std::optional<uint64_t> model_other;      // mps-model only: "other allocations" (default 448 KiB)
  std::optional<uint64_t> model_max_buffer; // mps-model only: maxBufferLength (default 9/16 of the modelled RAM)
  std::optional<uint64_t> model_unscaled_step;  // mps-model only: the step on the Mac a sandbox stands for
  // mps, cuda, mps-model: torch.mps/torch.cuda set_per_process_memory_fraction(F) before the first
  // allocation (the release's allocator API; fill/device.h set_memory_fraction)
  std::optional<double> memory_fraction;
  double step_delay = 0.0;                  // seconds slept between steps
  bool hello_only = false;                  // say hello (torch version, recommended max) and exit
};

// What parse_fill_options found.
struct ParseOutcome {
  std::optional<FillOptions> options;  // set unless help was asked for
  std::string help;                    // the help text when --help was given
};

// Parses and validates argv. Throws UsageError with a message that names the bad value.
ParseOutcome parse_fill_options(int argc, const char* const* argv);

}  // namespace wmb::fill
