// The "mps-model" device without libtorch: each allocation first passed through the MPS allocator
// model (mpsmodel::MpsAllocatorModel, the same code `wmbench predict` runs), then backed by a fresh
// mapping of real memory, filled in one pass. What PyTorch would raise on a Mac is raised here as
// PyTorchRefusal with the same text, at the same moment:
//   - an invalid PYTORCH_MPS_*_WATERMARK_RATIO at the first allocation ("invalid low watermark ratio 1.4"),
//   - "Invalid buffer size: ..." for a tensor of maxBufferLength or more,
//   - "MPS backend out of memory (...)" when driver count (heaps + other) + aligned size > max allowed.
// Everything else (memory filling up, swap growing) is the real machine's. Only the tensors' bytes
// are real memory here: a 1 GiB heap's unused room counts toward the limit (as Metal's driver
// count does) but is not touched (whether Metal makes it resident on a Mac is not known).
//
// wmbench-fill runs this itself (fillbase/model_child.h), so a model run never loads libtorch
// (whose start alone costs 0.6 s of CPU with Debian's 1.13); fill/device_mps_model.cpp wraps the
// same class as a FillDevice for the code that does link it (wmbench-fill-torch, the benchmarks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "fillbase/fill_kinds.h"
#include "fillbase/protocol_out.h"
#include "mpsmodel/heap_allocator.h"

namespace wmb::fill {

struct MpsModelOptions {
  std::optional<uint64_t> recommended_max;  // the modelled recommendedMaxWorkingSetSize, bytes
  std::optional<uint64_t> model_ram;        // else: recommended_max_for_ram(model_ram); else this machine's RAM
  std::string revision = "current";         // mpsmodel/revision.h
  std::optional<uint64_t> other_bytes;      // "other allocations"; default 448 KiB
  std::optional<uint64_t> max_buffer;       // maxBufferLength; default 9/16 of the modelled RAM
  // The sandbox: the step on the Mac modelled (e.g. 512 MiB); heaps follow that step's tier
  // (MpsModelOptions::step_bytes / unscaled_step is the scale). Default: PyTorch's tiers as they are.
  std::optional<uint64_t> unscaled_step;
  uint64_t step_bytes = 0;
};

MpsModelOptions model_options(const FillOptions& o);

// PyTorch's text for what it refuses (in PyTorch a TORCH_CHECK, so a c10::Error).
struct PyTorchRefusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One buffer of real memory: a fresh mapping (fillbase/fast_fill.h), unmapped when destroyed.
class ModelBuffer {
 public:
  ModelBuffer() = default;
  ModelBuffer(void* p, size_t bytes) : p_(p), bytes_(bytes) {}
  ModelBuffer(ModelBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  ModelBuffer& operator=(ModelBuffer&& o) noexcept;
  ModelBuffer(const ModelBuffer&) = delete;
  ModelBuffer& operator=(const ModelBuffer&) = delete;
  ~ModelBuffer();
  void* data() const { return p_; }
  size_t size() const { return bytes_; }
  // Gives up the mapping: the caller unmaps it (fillbase/fast_fill.h unmap with size()).
  void* release() {
    void* p = p_;
    p_ = nullptr;
    return p;
  }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

class MpsModel {
 public:
  // Throws UsageError for an unknown revision or a bad tier scale.
  explicit MpsModel(const MpsModelOptions& o);

  // One tensor's memory of exactly `bytes` bytes filled with `data`; throws PyTorchRefusal.
  ModelBuffer allocate(uint64_t bytes, DataKind data);
  void synchronize() {}
  DeviceStats stats() const;
  uint64_t recommended_max() const { return recommended_max_; }
  // A tensor from allocate() of `bytes` bytes was released (the model's driver count follows).
  void on_release(uint64_t bytes) { model_.free_latest_of_size(bytes); }
  // torch.mps.set_per_process_memory_fraction(F) (mpsmodel/memory_fraction.h): throws PyTorchRefusal.
  void set_memory_fraction(double fraction);
  void empty_cache() { model_.empty_cache(); }
  Msg model_json() const;
  // The exact limit (the message rounds it to 2 decimals); none with HIGH 0.0 or a bad setting.
  std::optional<uint64_t> max_allowed() const;

 private:
  uint64_t recommended_max_;
  mpsmodel::MpsAllocatorModel model_;
  uint64_t seed_counter_ = 0;
  uint64_t peak_ = 0;  // the most in use at once, as the allocator's Stat counts it at each malloc
};

}  // namespace wmb::fill
