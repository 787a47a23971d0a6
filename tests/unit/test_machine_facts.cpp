// machine_facts() and machine_facts_json(): the platform part of machine.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include "host/machine_json.h"
#include "host/metal_device.h"
#include "host/platform.h"

namespace test_machine_facts {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb;

TEST(MachineFacts, PageSizeIsThisMachinesPageSize) {
  const MachineFacts f = machine_facts();
  EXPECT_EQ(f.page_size_bytes, static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_GE(f.page_size_bytes, 4096u);
  EXPECT_EQ(f.ram_bytes % f.page_size_bytes, 0u);
#ifdef __APPLE__
  ASSERT_TRUE(f.mac.has_value());
  EXPECT_FALSE(f.mac->product_version.empty());
  EXPECT_FALSE(f.mac->build_version.empty());
  EXPECT_FALSE(f.mac->hw_model.empty());
#else
  EXPECT_FALSE(f.mac.has_value());
#endif
}

TEST(MachineFacts, JsonHasEveryPlatformKeyAndMacIsNullOffMac) {
  MachineFacts f;
  f.os = "Linux";
  f.os_version = "Debian GNU/Linux 12 (bookworm), kernel 6.1.0";
  f.chip = "Some CPU";
  f.cpus = 2;
  f.hostname = "box";
  f.ram_bytes = 24ull << 30;
  f.page_size_bytes = 4096;
  const nlohmann::json j = machine_facts_json(f);
  for (const char* k : {"os", "os_version", "chip", "cpus", "hostname", "ram_bytes", "page_size_bytes", "mac"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j.size(), 8u);
  EXPECT_EQ(j["page_size_bytes"], 4096);
  EXPECT_EQ(j["ram_bytes"], 24ull << 30);
  EXPECT_TRUE(j["mac"].is_null());
  EXPECT_EQ(machine_vm_note(j), "");
}

TEST(MachineFacts, MacFactsAsInTheContract) {
  MachineFacts f;
  f.os = "macOS";
  f.page_size_bytes = 16384;
  MacFacts m;
  m.product_version = "15.5";
  m.build_version = "24F74";
  m.hw_model = "VirtualMac2,1";
  m.metal_device = "Apple Paravirtual device";
  m.metal_device_virtual = metal_device_is_virtual(m.metal_device);
  m.iogpu_wired_limit_mb = 0;
  f.mac = m;
  nlohmann::json j = machine_facts_json(f);
  const auto& mac = j["mac"];
  EXPECT_EQ(mac["product_version"], "15.5");
  EXPECT_EQ(mac["build_version"], "24F74");
  EXPECT_EQ(mac["hw_model"], "VirtualMac2,1");
  EXPECT_EQ(mac["metal_device"], "Apple Paravirtual device");
  EXPECT_EQ(mac["metal_device_virtual"], true);
  ASSERT_TRUE(mac["iogpu_wired_limit_mb"].is_number_integer());
  EXPECT_EQ(mac["iogpu_wired_limit_mb"], 0);
  EXPECT_EQ(j["page_size_bytes"], 16384);
  const std::string note = machine_vm_note(j);
  EXPECT_NE(note.find("virtual machine"), std::string::npos) << note;
  EXPECT_NE(note.find("Apple Paravirtual device"), std::string::npos) << note;

  f.mac->iogpu_wired_limit_mb.reset();  // a macOS without the sysctl
  f.mac->metal_device = "Apple M3 Max";
  f.mac->metal_device_virtual = metal_device_is_virtual(f.mac->metal_device);
  j = machine_facts_json(f);
  EXPECT_TRUE(j["mac"]["iogpu_wired_limit_mb"].is_null());
  EXPECT_EQ(j["mac"]["metal_device_virtual"], false);
  EXPECT_EQ(machine_vm_note(j), "");
}

TEST(MachineFacts, VmNoteIgnoresMalformedMachineJson) {
  EXPECT_EQ(machine_vm_note(nlohmann::json::array()), "");
  EXPECT_EQ(machine_vm_note({{"mac", "yes"}}), "");
  EXPECT_EQ(machine_vm_note({{"mac", {{"metal_device_virtual", "true"}}}}), "");
  EXPECT_NE(machine_vm_note({{"mac", {{"metal_device_virtual", true}, {"metal_device", 3}}}}), "");
}

TEST(MetalDevice, OnlyTheParavirtualDeviceIsVirtual) {
  EXPECT_TRUE(metal_device_is_virtual("Apple Paravirtual device"));
  EXPECT_FALSE(metal_device_is_virtual("Apple M1"));
  EXPECT_FALSE(metal_device_is_virtual("Apple M4 Max"));
  EXPECT_FALSE(metal_device_is_virtual(""));
}

}  // namespace test_machine_facts
