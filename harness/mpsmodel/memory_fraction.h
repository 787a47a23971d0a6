// torch.mps.set_per_process_memory_fraction(F) as PyTorch implements it, for the model (and the
// texts the children raise). Read with the search tool from pytorch/pytorch:
//
//   torch/mps/__init__.py set_per_process_memory_fraction(fraction):
//     if not isinstance(fraction, float): raise TypeError("Invalid type for fraction argument, must be `float`")
//     if fraction < 0 or fraction > 2: raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~2")
//     torch._C._mps_setMemoryFraction(fraction)
//   aten/src/ATen/mps/MPSHooks.mm: MPSHooks::setMemoryFraction(double ratio) ->
//     at::mps::getIMPSAllocator()->setHighWatermarkRatio(ratio)   (the C++ child's path, torch 2.0+)
//   aten/src/ATen/mps/MPSAllocator.mm: getIMPSAllocator() starts the allocator singleton, whose
//     init_allocator() reads both variables and checks HIGH, then LOW; setHighWatermarkRatio(ratio)
//     then does `TORCH_CHECK(ratio >= 0.0 && ratio <= 2.0, "invalid high watermark ratio ", ratio)`
//     and sets m_max_total_allowed_size = ratio * recommendedMaxWorkingSetSize (SIZE_MAX for 0.0),
//     and nothing else: LOW is not checked against the new HIGH. So with no variables set,
//     F = 0.8 runs (LOW stays 1.4, above HIGH), while HIGH = 0.8 alone by environment fails.
//
// Order, as a Python caller sees it: the fraction's range (ValueError, before any C++), then the
// variables (at the allocator's start, c10::Error), then the C++ range check (only NaN gets that
// far: `nan < 0 or nan > 2` is False in Python). The model follows it (watermark.h validate).
// The C++ child on a Mac calls the hook directly: F outside 0..2 there is "invalid high watermark
// ratio F" (C++ ostream), not the ValueError.
#pragma once

#include <optional>
#include <string>

namespace wmb::mpsmodel {

constexpr double kFractionUpperBound = 2.0;  // torch/mps/__init__.py "Allowed range: 0~2"

// Python's repr/str of a float (f"{fraction}"): shortest round-trip digits, scientific below 1e-4
// and from 1e16 ("1e+20", "1e-05"), ".0" on whole numbers ("3.0"), "nan", "inf", "-inf".
std::string python_float_repr(double v);

// torch.mps.set_per_process_memory_fraction's ValueError text for F outside 0..2, or nullopt.
std::optional<std::string> python_fraction_error(double fraction);

// torch.cuda.set_per_process_memory_fraction's (torch/cuda/memory.py: "Allowed range: 0~1", a
// fraction of the device's total memory), or nullopt.
std::optional<std::string> python_cuda_fraction_error(double fraction);

}  // namespace wmb::mpsmodel
