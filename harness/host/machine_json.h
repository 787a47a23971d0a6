// The platform part of machine.json (and of `wmbench info --json`), from machine_facts().
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "host/platform.h"

namespace wmb {

// {"os", "os_version", "chip", "cpus", "hostname", "ram_bytes", "page_size_bytes", "mac"}:
// "page_size_bytes" on every OS (the probe's swap-in/out counts are pages of this size); "mac" is
// null off macOS, else {"product_version", "build_version", "hw_model", "metal_device",
// "metal_device_virtual", "iogpu_wired_limit_mb"} (an int, 0 = the system default; null when this
// macOS cannot tell) plus "notes" (what could not be read, "" when all was read).
nlohmann::json machine_facts_json(const MachineFacts& f);

// One sentence for a result's README when machine.json says the run was in a macOS VM (a
// paravirtual Metal device); "" otherwise, or for a machine.json without the "mac" key.
std::string machine_vm_note(const nlohmann::json& machine);

}  // namespace wmb
