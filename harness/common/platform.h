// Small facts about this machine and this program, one implementation per platform
// (platform_linux.cpp; platform_macos.cpp is compiled and run only on macOS).
#pragma once

#include <cstdint>
#include <string>

namespace wmb {

struct MachineFacts {
  std::string os;          // "Linux" / "macOS"
  std::string os_version;  // "Debian GNU/Linux 12 (bookworm), kernel 6.1" / "26.5.2"
  std::string chip;        // CPU model / "Apple M5 Pro"
  uint64_t ram_bytes = 0;
  int cpus = 0;
  std::string hostname;
};

MachineFacts machine_facts();
std::string self_exe_path();  // absolute path of the running executable ("" if unknown)

}  // namespace wmb
