// `wmbench info [--device D] [--json]` after its flags: this machine, its torch (the fill child's
// hello), and the limit each setting of the default scenario gives, before any long run.
#include "inspect/info.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "child/child_info.h"
#include "common/exit_codes.h"
#include "common/interrupt.h"
#include "common/run_error.h"
#include "common/units.h"
#include "host/machine_json.h"
#include "host/platform.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/watermark.h"
#include "probe/probe.h"
#include "sandbox/sandbox.h"
#include "spawn/process.h"
#include "scenario/scenario.h"
#include "scenario/wired_limit.h"
#include "tools/locate.h"

namespace wmb::inspect {
namespace {

void print_mac_facts(const MacFacts& m) {
  std::cout << fmt::format("macOS        {} ({}), {}\n", m.product_version, m.build_version, m.hw_model);
  std::cout << fmt::format("Metal        {}{}\n", m.metal_device.empty() ? "no device" : m.metal_device,
                           m.metal_device_virtual ? "  (a virtual machine's paravirtual GPU: results describe the VM, not a Mac)" : "");
  if (!m.iogpu_wired_limit_mb)
    std::cout << "GPU wired    iogpu.wired_limit_mb unreadable on this macOS\n";
  else if (*m.iogpu_wired_limit_mb == 0)
    std::cout << "GPU wired    iogpu.wired_limit_mb = 0 (the system default)\n";
  else
    std::cout << fmt::format("GPU wired    iogpu.wired_limit_mb = {} MB (raised by hand with sysctl; Metal's recommended max follows it)\n",
                             *m.iogpu_wired_limit_mb);
  if (!m.notes.empty()) std::cout << fmt::format("mac notes    {}\n", m.notes);
}

// This machine, its memory as the probe sees it, and the sandbox: the report's first part.
nlohmann::json machine_part(const MachineFacts& f, const std::string& device) {
  nlohmann::json j = machine_facts_json(f);
  j["device"] = device;
  auto probe = make_platform_probe();
  try {
    auto m = probe->system();
    j["swap_total_bytes"] = m.swap_total;
    j["swap_used_bytes"] = m.swap_used;
    j["free_level_pct"] = m.level;
    if (m.pressure) j["pressure_level"] = *m.pressure;
  } catch (const ProbeError& e) {
    j["probe_error"] = e.what();
  }
  const SandboxSupport sup = sandbox_support(true);
  j["sandbox"] = sup.ok ? nlohmann::json(sup.kind) : nlohmann::json("unavailable: " + sup.why_not);
  return j;
}

// The limit each setting of the default scenario gives with this recommended max ("settings").
void add_default_settings(nlohmann::json& j, const std::string& device, uint64_t rec, uint64_t ram) {
  nlohmann::json settings = nlohmann::json::array();
  std::vector<std::string> warnings;
  const std::string path = device == "cuda" ? "" : find_repo_file("scenarios/mps-watermark.json");
  if (device == "cuda")
    j["settings_note"] = "MPS watermark limits are not shown for cuda; see scenarios/cuda-fraction.json";
  if (!path.empty()) {
    try {
      Scenario s = load_scenario(path, warnings);
      for (const auto& c : s.matrix) {
        auto cfg = mpsmodel::read_watermark_config_from_map(c.env);
        nlohmann::json row = {{"label", c.label}, {"env", c.env}};
        if (auto e = mpsmodel::validate(cfg)) {
          row["refused"] = *e;
        } else {
          auto lim = mpsmodel::compute_limits(cfg, rec);
          row["max_allowed_bytes"] = lim.limited() ? nlohmann::json(lim.max_allowed) : nlohmann::json(nullptr);
          row["above_ram"] = !lim.limited() || lim.max_allowed > ram;
        }
        settings.push_back(row);
      }
    } catch (const ScenarioError& e) {
      j["scenario_error"] = e.what();
    }
  }
  j["settings"] = settings;
}

// The second lever, iogpu.wired_limit_mb: its value now, and the lines that set and restore it.
nlohmann::json wired_limit_part(const MachineFacts& f) {
  const std::optional<int64_t> now = f.mac ? f.mac->iogpu_wired_limit_mb : std::nullopt;
  const uint64_t found = now && *now > 0 ? static_cast<uint64_t>(*now) : 0;
  const uint64_t example = f.ram_bytes / MiB * 8 / 10;  // 80 % of RAM (exo's configure_mlx.sh rule, in part)
  return {{"sysctl", kWiredLimitKey},
          {"now_mib", now ? nlohmann::json(*now) : nlohmann::json(nullptr)},
          {"set_command", wired_limit_set_line(example)},
          {"set_example", "80 % of RAM"},
          {"restore_command", wired_limit_set_line(found)},
          {"note", "Metal's recommended max follows it, so every PyTorch limit is HIGH x it (and MLX's and llama.cpp's "
                   "follow too); root only; it resets at reboot; 0 is the system default, not unlimited"}};
}

void print_wired_limit(const nlohmann::json& w) {
  std::cout << fmt::format("wired limit  {} {}: {}\n", kWiredLimitKey,
                           w["now_mib"].is_null() ? "(no such sysctl here: not a Mac)"
                                                  : fmt::format("= {} now", w["now_mib"].get<int64_t>()),
                           w["note"].get<std::string>());
  std::cout << fmt::format("  set:     {}   (e.g. {})\n", w["set_command"].get<std::string>(),
                           w["set_example"].get<std::string>());
  std::cout << fmt::format("  restore: {}   (the value found now)\n", w["restore_command"].get<std::string>());
}

void print_text(const MachineFacts& f, const nlohmann::json& j, bool hello, uint64_t rec) {
  const nlohmann::json& settings = j["settings"];
  std::cout << fmt::format("machine      {} {} ({}), {} CPUs\n", f.os, f.os_version, f.chip, f.cpus);
  std::cout << fmt::format("RAM          {}; pages of {} (swap-ins/outs are counted in pages)\n", format_size(f.ram_bytes),
                           format_size(f.page_size_bytes));
  if (f.mac) print_mac_facts(*f.mac);
  if (j.contains("swap_total_bytes"))
    std::cout << fmt::format("swap         {} used of {}; free level {:.1f} %\n", format_size(j["swap_used_bytes"]),
                             format_size(j["swap_total_bytes"]), j["free_level_pct"].get<double>());
  std::cout << fmt::format("sandbox      {}\n", j["sandbox"].get<std::string>());
  if (hello)
    std::cout << fmt::format("torch        {} ({})\n", j["torch_version"].get<std::string>(),
                             j["torch_library"].is_string() ? j["torch_library"].get<std::string>() : "library path unknown");
  else
    std::cout << fmt::format("torch        not reachable: {}\n", j["torch_error"].get<std::string>());
  std::cout << fmt::format("recommended  {} ({})\n", format_size(rec), j["recommended_max_source"].get<std::string>());
  print_wired_limit(j["wired_limit"]);
  if (!settings.empty()) {
    std::cout << "\nLimits of scenarios/mps-watermark.json on this machine:\n";
    for (const auto& r : settings) {
      std::string what;
      if (r.contains("refused")) what = "refused by PyTorch: " + r["refused"].get<std::string>();
      else if (r["max_allowed_bytes"].is_null()) what = "no limit (PyTorch never stops it; swap will)";
      else
        what = fmt::format("max allowed {}{}", format_size(r["max_allowed_bytes"].get<uint64_t>()),
                           r["above_ram"].get<bool>() ? "  (above RAM: expect swap before any error)" : "");
      std::cout << fmt::format("  {:<20} {}\n", r["label"].get<std::string>(), what);
    }
  }
}

}  // namespace

int run_info(std::string device, bool json_out, const std::string& python) {
#ifdef __APPLE__
  if (device.empty()) device = "mps";
#else
  if (device.empty()) device = "cpu";
#endif
  // The same devices as a scenario and `run --device` (scenario/scenario.h kDevices): a bogus one
  // is a usage error, not a report that says nothing.
  if (std::find(kDevices.begin(), kDevices.end(), device) == kDevices.end()) {
    std::cerr << fmt::format("wmbench info: --device \"{}\" is not known; allowed: mps, cuda, cpu, mps-model\n", device);
    return kExitUsage;
  }
  const MachineFacts f = machine_facts();
  nlohmann::json j = machine_part(f, device);
  ChildHello ch;
  // SIGINT/SIGTERM/SIGHUP while the child is asked: the child's group is stopped (short_command
  // polls the interrupt), then info exits 128+N, leaving nothing running.
  install_interrupt_handlers();
  try {
    ch = ask_child_hello(ChildChoice{"", python, device, {}, nullptr});  // --python, or $WMBENCH_PYTHON_CHILD, or wmbench-fill
  } catch (const RunRefused& e) {
    std::cerr << "wmbench info: " << e.what() << "\n";
    return e.exit_code;
  }
  if (const int sig = interrupt_signal()) {
    std::cerr << "wmbench info: stopped by " << signal_name(sig) << "\n";
    return 128 + sig;
  }
  j["child"] = ch.child;
  const auto& hello = ch.hello;
  std::optional<uint64_t> rec;
  if (hello) {
    j["torch_version"] = hello->value("torch_version", "");
    j["torch_library"] = hello->value("torch_library", nlohmann::json(nullptr));
    if ((*hello).contains("recommended_max_bytes") && (*hello)["recommended_max_bytes"].is_number())
      rec = (*hello)["recommended_max_bytes"].get<uint64_t>();
  } else {
    j["torch_error"] = fmt::format("{} --device {}: {}", ch.program, device, ch.error);
  }
  bool modelled = false;
  if (!rec) {
    rec = mpsmodel::recommended_max_for_ram(f.ram_bytes);
    modelled = true;
  }
  j["recommended_max_bytes"] = *rec;
  j["recommended_max_source"] = modelled ? "estimated from RAM (macos_memory.h), not read from MPS" : "read from the device";
  add_default_settings(j, device, *rec, f.ram_bytes);
  j["wired_limit"] = wired_limit_part(f);
  // Without the child's hello info did not do its whole job (torch unreachable): exit 1, after
  // saying everything else it knows.
  const int code = hello ? kExitOk : kExitFail;
  if (json_out) {
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // non-UTF-8 paths: U+FFFD
    return code;
  }
  print_text(f, j, hello.has_value(), *rec);
  return code;
}

}  // namespace wmb::inspect
