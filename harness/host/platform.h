// Small facts about this machine and this program, one implementation per platform
// (platform_linux.cpp; platform_macos.cpp is compiled and run only on macOS).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wmb {

// macOS only: what a Mac run records besides the common facts (machine.json "mac", wmbench info).
struct MacFacts {
  std::string product_version;  // sysctl kern.osproductversion, "15.5"
  std::string build_version;    // sysctl kern.osversion, "24F74"
  std::string hw_model;         // sysctl hw.model, "Mac15,8"; "VirtualMac2,1" in a VM
  std::string metal_device;     // MTLCopyAllDevices' device MPS uses, "Apple M3 Max"; "" when none
  bool metal_device_virtual = false;  // "Apple Paravirtual device": a VM (GitHub's macOS runners)
  // sysctl iogpu.wired_limit_mb: 0 = the system default; users raise it to fit large models and it
  // changes what Metal recommends. nullopt when this macOS has no such sysctl or it cannot be read.
  std::optional<int64_t> iogpu_wired_limit_mb;
  std::string notes;  // what could not be read and why ("" when everything was read)
};

struct MachineFacts {
  std::string os;          // "Linux" / "macOS"
  std::string os_version;  // "Debian GNU/Linux 12 (bookworm), kernel 6.1" / "26.5.2"
  std::string chip;        // CPU model / "Apple M5 Pro"
  uint64_t ram_bytes = 0;
  int cpus = 0;
  std::string hostname;
  // Bytes per VM page (sysconf(_SC_PAGESIZE)): 16 KiB on Apple silicon, 4 KiB on x86-64 Linux.
  // The probe's swap-in/out counts are pages of this size.
  uint64_t page_size_bytes = 0;
  std::optional<MacFacts> mac;  // set on macOS only
};

MachineFacts machine_facts();
std::string self_exe_path();  // absolute path of the running executable ("" if unknown)

}  // namespace wmb
