// The name of the Metal device this Mac gives to MPS (macOS only: metal_device_macos.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wmb {

// The name of the Metal device MPS would use: MTLCopyAllDevices, selected as PyTorch's
// aten/src/ATen/mps/MPSDevice.mm selects (not low-power, MTLGPUFamilyMac2), e.g. "Apple M3 Max", or
// "Apple Paravirtual device" in a macOS VM (GitHub's macOS runners). Where MPS would use none of
// the devices, the first device's name, and *why says so. "" when there is no Metal device or
// Metal cannot be loaded; *why (when given) then says which step failed.
std::string metal_default_device_name(std::string* why);

// recommendedMaxWorkingSetSize (bytes) of the same device MPS would use: what PyTorch's
// MPSAllocator multiplies by HIGH (aten/src/ATen/mps/MPSAllocator.h max_device_size()). nullopt,
// with *why, when Metal cannot be read or MPS would use no device. `wmbench doctor` compares it
// with the fill child's torch.
std::optional<uint64_t> metal_recommended_max_working_set(std::string* why);

// True for the name Apple's paravirtualised GPU reports in a macOS VM ("Apple Paravirtual device",
// as GitHub's macOS runners show): the result then measures a VM, not a Mac's own GPU.
inline bool metal_device_is_virtual(const std::string& name) { return name.find("Paravirtual") != std::string::npos; }

}  // namespace wmb
