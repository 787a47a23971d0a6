// `wmbench predict [--ram SIZE] [--recommended-max SIZE] [--free SIZE] [--json] [--scenario FILE]`:
// what each watermark setting would do on this machine (or a Mac of --ram), before running
// anything: its max allowed (or "no limit", or the configuration error PyTorch would raise),
// whether that lies above RAM or above the memory free right now (=> expect swap, no clean
// error), and the HIGH = LOW pair that gives a clean error below the free memory.
// The policy itself lives in mpsmodel/watermark.* (unit-tested); this file gathers the inputs
// and prints.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "common/platform.h"
#include "common/units.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/watermark.h"
#include "probe/probe.h"
#include "runner/child_info.h"
#include "scenario/scenario.h"

namespace {

using wmb::mpsmodel::kHighEnv;
using wmb::mpsmodel::kLowEnv;

struct PredictArgs {
  std::string ram;
  std::string recommended_max;
  std::string free;
  std::string scenario;
  bool json = false;
};

// Fraction of the modelled RAM's free memory that a clean-error limit may use.
constexpr double kCleanMargin = 0.9;

struct MachineView {
  uint64_t ram = 0;
  std::string ram_source;
  uint64_t recommended_max = 0;
  std::string recommended_source;
  std::optional<uint64_t> free;
  std::string free_source;
};

// This machine's free fraction (0..1) and RAM as the probe sees them.
struct FreeNow {
  double fraction;
  uint64_t ram;
  std::string source;
};
std::optional<FreeNow> free_now(std::vector<std::string>& warnings) {
  try {
    auto probe = wmb::make_platform_probe();
    const auto sys = probe->system();
    if (sys.ram_total > 0 && sys.level >= 0 && sys.level <= 100)
      return FreeNow{sys.level / 100.0, sys.ram_total, "probe " + probe->name()};
  } catch (const std::exception& e) {
    warnings.push_back(std::string("memory probe failed: ") + e.what());
  }
  return std::nullopt;
}

// Throws wmb::UnitError for a bad size.
MachineView gather(const PredictArgs& a, std::vector<std::string>& warnings) {
  MachineView v;
  const auto now = free_now(warnings);
  if (!a.ram.empty()) {
    v.ram = wmb::parse_size(a.ram);
    v.ram_source = "--ram";
  } else if (now && now->ram > 0) {
    v.ram = now->ram;
    v.ram_source = "this machine";
  } else {
    v.ram = wmb::machine_facts().ram_bytes;
    v.ram_source = "this machine";
  }

  if (!a.recommended_max.empty()) {
    v.recommended_max = wmb::parse_size(a.recommended_max);
    v.recommended_source = "--recommended-max";
  }
#ifdef __APPLE__
  if (v.recommended_source.empty() && a.ram.empty()) {
    // On a Mac, MPS says it: recommendedMaxWorkingSetSize, from the fill child's hello.
    if (auto hello = wmb::fetch_child_hello("mps")) {
      const auto it = hello->find("recommended_max_bytes");
      if (it != hello->end() && it->is_number_unsigned() && it->get<uint64_t>() > 0) {
        v.recommended_max = it->get<uint64_t>();
        v.recommended_source = "MPS (wmbench-fill)";
      }
    }
    if (v.recommended_source.empty())
      warnings.push_back("could not ask MPS for the recommended max (wmbench-fill --device mps --hello-only); "
                         "using the estimate for this RAM");
  }
#endif
  if (v.recommended_source.empty()) {
    v.recommended_max = wmb::mpsmodel::recommended_max_for_ram(v.ram);
    v.recommended_source = fmt::format("estimate for {} RAM (mpsmodel/macos_memory.h)", wmb::format_size(v.ram));
  }

  if (!a.free.empty()) {
    v.free = wmb::parse_size(a.free);
    v.free_source = "--free";
  } else if (now) {
    if (a.ram.empty()) {
      v.free = static_cast<uint64_t>(now->fraction * static_cast<double>(v.ram));
      v.free_source = fmt::format("free now, {:.1f} % ({})", 100.0 * now->fraction, now->source);
    } else {
      // Another Mac: assume it has the same share free as this machine now.
      v.free = static_cast<uint64_t>(now->fraction * static_cast<double>(v.ram));
      v.free_source = fmt::format("{:.1f} % of --ram, the share free on this machine now ({}); use --free to set",
                                  100.0 * now->fraction, now->source);
    }
  } else {
    v.free_source = "unknown";
    warnings.push_back("free memory unknown (the memory probe failed); use --free SIZE");
  }
  if (v.free && *v.free > v.ram) warnings.push_back("--free is larger than the RAM");
  return v;
}

std::vector<wmb::Cell> default_cells() {
  // The settings of scenarios/mps-watermark.json (write-up 004), when no --scenario is given.
  return {
      {"default", {}, ""},
      {"high-0.0", {{kHighEnv, "0.0"}}, ""},
      {"high-1.0-low-1.0", {{kHighEnv, "1.0"}, {kLowEnv, "1.0"}}, ""},
      {"high-0.8-low-0.8", {{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}, ""},
      {"high-0.5-low-0.5", {{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}, ""},
      {"high-0.8-alone", {{kHighEnv, "0.8"}}, ""},
  };
}

struct Prediction {
  std::string label;
  std::map<std::string, std::string> env;
  wmb::mpsmodel::WatermarkConfig cfg;
  std::optional<std::string> config_error;
  std::optional<uint64_t> max_allowed;  // nullopt: no limit (or config error)
  bool above_ram = false;
  std::optional<bool> above_free;
  std::string expect;  // config_error | swap | clean_error | unknown
  std::string why;
};

Prediction predict_cell(const wmb::Cell& c, const MachineView& m) {
  Prediction p;
  p.label = c.label;
  p.env = c.env;
  p.cfg = wmb::mpsmodel::read_watermark_config_from_map(c.env);
  p.config_error = wmb::mpsmodel::validate(p.cfg);
  if (p.config_error) {
    p.expect = "config_error";
    p.why = "PyTorch raises \"" + *p.config_error + "\" at the first MPS allocation";
    return p;
  }
  const auto lim = wmb::mpsmodel::compute_limits(p.cfg, m.recommended_max);
  if (lim.limited()) p.max_allowed = lim.max_allowed;
  p.above_ram = !p.max_allowed || *p.max_allowed > m.ram;
  if (m.free) p.above_free = !p.max_allowed || *p.max_allowed > *m.free;
  if (!m.free) {
    p.expect = "unknown";
    p.why = p.above_ram ? "limit above RAM: expect swap" : "free memory unknown";
  } else if (*p.above_free) {
    p.expect = "swap";
    p.why = !p.max_allowed ? "no limit: memory runs out first; expect swap, no clean error"
            : p.above_ram ? "limit above RAM: expect swap, no clean error"
                          : "limit above the memory free now: expect swap, no clean error";
  } else {
    p.expect = "clean_error";
    p.why = "PyTorch stops the fill below the memory free now";
  }
  return p;
}

// The ratio as written ("0.8", "1.0"); "(default)" when unset; the value PyTorch reads plus the
// text when strtod reads something else than was written ("0 (\"abc\")").
std::string ratio_cell(const wmb::mpsmodel::WatermarkConfig& cfg, bool high) {
  const bool set = high ? cfg.high_set : cfg.low_set;
  const std::string& raw = high ? cfg.high_raw : cfg.low_raw;
  const double v = high ? cfg.high : cfg.low;
  const std::string shown = wmb::mpsmodel::format_ratio(v);
  if (!set) return shown + " (default)";
  const auto strict = wmb::parse_number(raw);
  if (strict && *strict == v) return raw;
  return fmt::format("{} (\"{}\")", shown, raw);
}

void print_table(const MachineView& m, const std::string& scenario_name, const std::vector<Prediction>& ps,
                 const std::optional<double>& clean, const std::vector<std::string>& warnings) {
  std::cout << fmt::format("Machine: RAM {} ({})\n", wmb::format_size(m.ram), m.ram_source);
  std::cout << fmt::format("Recommended max working set: {} ({})\n",
                           wmb::mpsmodel::format_size_pytorch(m.recommended_max), m.recommended_source);
  std::cout << fmt::format("Memory free: {} ({})\n", m.free ? wmb::format_size(*m.free) : "unknown", m.free_source);
  std::cout << fmt::format("Settings: {}\n\n", scenario_name);

  const std::vector<std::string> head = {"setting", "HIGH", "LOW", "max allowed", "above RAM", "above free", "expect"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : ps) {
    std::string max = p.config_error ? "error" : p.max_allowed ? wmb::mpsmodel::format_size_pytorch(*p.max_allowed)
                                                               : "no limit";
    std::string ar = p.config_error ? "-" : (p.above_ram ? "yes" : "no");
    std::string af = p.config_error || !p.above_free ? "-" : (*p.above_free ? "yes" : "no");
    std::string ex = p.expect == "config_error" ? "config error: " + *p.config_error
                     : p.expect == "swap"       ? "swap, no clean error"
                     : p.expect == "clean_error" ? "clean PyTorch error"
                                                 : "unknown";
    rows.push_back({p.label, ratio_cell(p.cfg, true), ratio_cell(p.cfg, false), max, ar, af, ex});
  }
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (size_t i = 0; i < r.size(); ++i) {
      s += r[i];
      if (i + 1 < r.size()) s += std::string(w[i] - r[i].size() + 2, ' ');
    }
    std::cout << s << '\n';
  };
  line(head);
  std::vector<std::string> dashes;
  for (size_t x : w) dashes.push_back(std::string(x, '-'));
  line(dashes);
  for (const auto& r : rows) line(r);
  std::cout << '\n';

  if (!m.free) {
    std::cout << "No suggestion: free memory unknown (use --free SIZE).\n";
  } else if (clean) {
    const uint64_t lim = static_cast<uint64_t>(*clean * static_cast<double>(m.recommended_max));
    std::cout << fmt::format(
        "For a clean error below the memory free now, set both:\n  {}={:.2f} {}={:.2f}\n"
        "  (max allowed {} <= {:.0f} % of {} free; LOW must not exceed HIGH)\n",
        kHighEnv, *clean, kLowEnv, *clean, wmb::mpsmodel::format_size_pytorch(lim), kCleanMargin * 100,
        wmb::format_size(*m.free));
  } else {
    std::cout << fmt::format("No HIGH/LOW pair in steps of 0.05 keeps the limit under {:.0f} % of {} free.\n",
                             kCleanMargin * 100, wmb::format_size(*m.free));
  }
  for (const auto& wmsg : warnings) std::cerr << "warning: " << wmsg << '\n';
}

nlohmann::json to_json(const MachineView& m, const std::string& scenario_name, const std::vector<Prediction>& ps,
                       const std::optional<double>& clean, const std::vector<std::string>& warnings) {
  using nlohmann::json;
  json j;
  j["ram_bytes"] = m.ram;
  j["ram_source"] = m.ram_source;
  j["recommended_max_bytes"] = m.recommended_max;
  j["recommended_max_source"] = m.recommended_source;
  j["free_bytes"] = m.free ? json(*m.free) : json(nullptr);
  j["free_source"] = m.free_source;
  j["scenario"] = scenario_name;
  json arr = json::array();
  for (const auto& p : ps) {
    json s;
    s["label"] = p.label;
    s["env"] = p.env;
    s["high"] = std::isfinite(p.cfg.high) ? json(p.cfg.high) : json(nullptr);
    s["low"] = std::isfinite(p.cfg.low) ? json(p.cfg.low) : json(nullptr);
    s["high_raw"] = p.cfg.high_set ? json(p.cfg.high_raw) : json(nullptr);
    s["low_raw"] = p.cfg.low_set ? json(p.cfg.low_raw) : json(nullptr);
    s["config_error"] = p.config_error ? json(*p.config_error) : json(nullptr);
    s["max_allowed_bytes"] = p.max_allowed ? json(*p.max_allowed) : json(nullptr);
    s["no_limit"] = !p.config_error && !p.max_allowed;
    s["above_ram"] = p.config_error ? json(nullptr) : json(p.above_ram);
    s["above_free"] = p.config_error || !p.above_free ? json(nullptr) : json(*p.above_free);
    s["expect"] = p.expect;
    s["why"] = p.why;
    arr.push_back(std::move(s));
  }
  j["settings"] = std::move(arr);
  if (clean && m.free) {
    const std::string r = fmt::format("{:.2f}", *clean);
    j["suggestion"] = {{"ratio", *clean},
                       {"env", {{kHighEnv, r}, {kLowEnv, r}}},
                       {"max_allowed_bytes", static_cast<uint64_t>(*clean * static_cast<double>(m.recommended_max))},
                       {"margin", kCleanMargin}};
  } else {
    j["suggestion"] = nullptr;
  }
  j["warnings"] = warnings;
  return j;
}

int run_predict(const PredictArgs& a) {
  std::vector<std::string> warnings;
  std::vector<wmb::Cell> cells = default_cells();
  std::string scenario_name = "built-in (default, 0.0, 1.0/1.0, 0.8/0.8, 0.5/0.5, 0.8 alone)";
  if (!a.scenario.empty()) {
    try {
      const wmb::Scenario s = wmb::load_scenario(a.scenario, warnings);
      cells = s.matrix;
      scenario_name = s.name + " (" + a.scenario + ")";
      if (s.device != "mps" && s.device != "mps-model")
        warnings.push_back("scenario device is \"" + s.device + "\": predict shows the MPS watermark policy only");
    } catch (const std::exception& e) {
      std::cerr << "wmbench predict: " << e.what() << '\n';
      return wmb::cli::kExitUsage;
    }
  }
  MachineView m;
  try {
    m = gather(a, warnings);
  } catch (const wmb::UnitError& e) {
    std::cerr << "wmbench predict: " << e.what() << '\n';
    return wmb::cli::kExitUsage;
  }
  if (m.ram == 0) {
    std::cerr << "wmbench predict: cannot tell this machine's RAM; use --ram SIZE\n";
    return wmb::cli::kExitUsage;
  }
  std::vector<Prediction> ps;
  for (const auto& c : cells) ps.push_back(predict_cell(c, m));
  const std::optional<double> clean =
      m.free ? wmb::mpsmodel::clean_error_ratio(*m.free, m.recommended_max, kCleanMargin) : std::nullopt;
  if (a.json) {
    std::cout << to_json(m, scenario_name, ps, clean, warnings).dump() << '\n';
  } else {
    print_table(m, scenario_name, ps, clean, warnings);
  }
  std::cout.flush();
  return wmb::cli::kExitOk;
}

const wmb::cli::Registrar reg{wmb::cli::Command{50, [](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict what each watermark setting does on this machine (or a Mac of --ram): max allowed, whether it lies "
      "above RAM or the memory free now (=> swap, no clean error), and the HIGH/LOW pair for a clean error");
  sub->add_option("--ram", args->ram, "RAM of the Mac to predict for (default: this machine's), e.g. 48GiB");
  sub->add_option("--recommended-max", args->recommended_max,
                  "Metal's recommended max working set (default: from MPS on a Mac, else estimated from the RAM)");
  sub->add_option("--free", args->free,
                  "Memory free with the everyday apps open (default: measured now; with --ram, this machine's "
                  "free share of it)");
  sub->add_option("--scenario", args->scenario, "Scenario file whose matrix cells to predict (default: built-in set)");
  sub->add_flag("--json", args->json, "Print one JSON object");
  sub->callback([args, &exit_code]() { exit_code = run_predict(*args); });
}}};

}  // namespace
