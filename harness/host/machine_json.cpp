#include "host/machine_json.h"

namespace wmb {

nlohmann::json machine_facts_json(const MachineFacts& f) {
  nlohmann::json mac = nullptr;
  if (f.mac) {
    const MacFacts& m = *f.mac;
    mac = {{"product_version", m.product_version},
           {"build_version", m.build_version},
           {"hw_model", m.hw_model},
           {"metal_device", m.metal_device},
           {"metal_device_virtual", m.metal_device_virtual},
           {"iogpu_wired_limit_mb", m.iogpu_wired_limit_mb ? nlohmann::json(*m.iogpu_wired_limit_mb) : nlohmann::json(nullptr)},
           {"notes", m.notes}};
  }
  return {{"os", f.os},
          {"os_version", f.os_version},
          {"chip", f.chip},
          {"cpus", f.cpus},
          {"hostname", f.hostname},
          {"ram_bytes", f.ram_bytes},
          {"page_size_bytes", f.page_size_bytes},
          {"mac", mac}};
}

std::string machine_vm_note(const nlohmann::json& machine) {
  if (!machine.is_object() || !machine.contains("mac") || !machine["mac"].is_object()) return "";
  const auto& mac = machine["mac"];
  const auto virt = mac.find("metal_device_virtual");
  if (virt == mac.end() || !virt->is_boolean() || !virt->get<bool>()) return "";
  const auto dev = mac.find("metal_device");
  const std::string name = dev != mac.end() && dev->is_string() ? dev->get<std::string>() : "a paravirtual device";
  return "This run was made in a macOS virtual machine (Metal device: " + name +
         "): MPS there is a paravirtual GPU, not a Mac's own, and its limits and failures are the VM's.";
}

}  // namespace wmb
