#include "mpsmodel/predict.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/limits.h"
#include "mpsmodel/macos_memory.h"
#include "mpsmodel/memory_fraction.h"

namespace wmb::mpsmodel {

FillSimulation simulate_fill(const WatermarkConfig& cfg, uint64_t recommended_max, const FillPlan& plan,
                             uint64_t ram) {
  FillSimulation s;
  MpsAllocatorModel model(cfg, recommended_max, plan.params);
  const uint64_t limit = plan.cap.value_or(ram);
  s.heap_tier = tier_name(model.tier_of(model.allocation_size(plan.step), false));
  // As the child's fill loop: allocate while held + step <= cap.
  while (plan.step > 0 && s.held_bytes + plan.step <= limit) {
    if (s.steps >= kMaxSimulatedSteps) {  // predict's work has a bound of its own
      s.stopped_by = "bound";
      s.message = fmt::format("simulated {} steps and stopped there (the bound of predict's work)", s.steps);
      break;
    }
    try {
      model.allocate(plan.step);
    } catch (const ModelError& e) {
      s.stopped_by = model.config_error() ? "config" : "pytorch";
      s.message = e.what();
      break;
    }
    ++s.steps;
    s.held_bytes += plan.step;
  }
  if (s.stopped_by.empty()) s.stopped_by = "cap";
  s.heaps_bytes = model.heaps_bytes();
  s.driver_bytes = model.driver();
  return s;
}

Prediction predict_cell(const Setting& c, const PredictInputs& m, const FillPlan& plan) {
  Prediction p;
  p.label = c.label;
  p.env = c.env;
  p.cfg = read_watermark_config_from_map(c.env);
  p.cfg.memory_fraction = c.memory_fraction;  // set_per_process_memory_fraction before the first allocation
  p.config_error = validate(p.cfg);
  const uint64_t rec = c.wired_limit_mib ? *c.wired_limit_mib * MiB : m.recommended_max;
  p.sim = simulate_fill(p.cfg, rec, plan, m.ram);
  if (p.config_error) {
    p.expect = "config_error";
    p.why = "PyTorch raises \"" + *p.config_error + "\" " +
            (c.memory_fraction ? "at set_per_process_memory_fraction, before the first allocation"
                               : "at the first MPS allocation");
    return p;
  }
  const auto lim = compute_limits(p.cfg, rec);
  if (lim.limited()) p.max_allowed = lim.max_allowed;
  // The other allocations count against the limit (allocated + other + request > max allowed,
  // MPSAllocator.mm) and are the process's memory too: at PyTorch's stop the process holds about
  // the limit, and never less than the other allocations themselves (issue 30: --other-allocations
  // changed only the --simulate rows, not this column nor the suggestion).
  const uint64_t other = plan.params.other_bytes;
  const std::optional<uint64_t> at_stop =
      p.max_allowed ? std::optional<uint64_t>(std::max(*p.max_allowed, other)) : std::nullopt;
  const bool no_room = p.max_allowed && other + plan.step > *p.max_allowed;
  p.above_ram = !at_stop || *at_stop > m.ram;
  if (m.free) p.above_free = !at_stop || *at_stop > *m.free;
  if (m.free && !*p.above_free && no_room) {
    p.expect = "clean_error";
    p.no_room = true;
    p.why = fmt::format("other allocations {} leave no room for one {} step under the limit {}: PyTorch refuses the "
                        "first allocation, nothing is held",
                        format_size(other), format_size(plan.step), format_size(*p.max_allowed));
  } else if (!m.free) {
    p.expect = "unknown";
    p.why = p.above_ram ? "limit above RAM: expect swap" : "free memory unknown";
  } else if (*p.above_free) {
    p.expect = "swap";
    p.why = !p.max_allowed ? "no limit: memory runs out first; expect swap, no clean error"
            : p.above_ram  ? "limit above RAM: expect swap, no clean error"
                           : "limit above the memory free now: expect swap, no clean error";
  } else {
    p.expect = "clean_error";
    p.why = "PyTorch stops the fill below the memory free now";
  }
  return p;
}

std::vector<Setting> default_cells() {
  return {
      {"default", {}, std::nullopt, std::nullopt},
      {"high-0.0", {{kHighEnv, "0.0"}}, std::nullopt, std::nullopt},
      {"high-1.0-low-1.0", {{kHighEnv, "1.0"}, {kLowEnv, "1.0"}}, std::nullopt, std::nullopt},
      {"high-0.8-low-0.8", {{kHighEnv, "0.8"}, {kLowEnv, "0.8"}}, std::nullopt, std::nullopt},
      {"high-0.5-low-0.5", {{kHighEnv, "0.5"}, {kLowEnv, "0.5"}}, std::nullopt, std::nullopt},
      {"high-0.8-alone", {{kHighEnv, "0.8"}}, std::nullopt, std::nullopt},
  };
}

PredictReport make_report(const PredictInputs& m, const std::string& scenario_name, const std::vector<Setting>& cells,
                          const FillPlan& plan, std::vector<std::string> warnings) {
  PredictReport r{m, scenario_name, plan, {}, std::nullopt, std::move(warnings), false};
  for (const auto& c : cells) r.settings.push_back(predict_cell(c, m, plan));
  if (m.free) r.clean = clean_error_ratio(*m.free, m.recommended_max, kCleanMargin);
  // A suggestion must leave room for the fill: a limit the other allocations already fill stops
  // the first step (lower ratios only lower the limit, so there is then none).
  if (r.clean) {
    const uint64_t lim = static_cast<uint64_t>(*r.clean * static_cast<double>(m.recommended_max));
    if (plan.params.other_bytes + plan.step > lim) {
      r.clean.reset();
      r.no_room = true;
    }
  }
  return r;
}

namespace {

// The ratio as written ("0.8", "1.0"); "(default)" when unset; the value PyTorch reads plus the
// text when strtod reads something else than was written ("0 (\"abc\")").
std::string ratio_cell(const WatermarkConfig& cfg, bool high) {
  const bool set = high ? cfg.high_set : cfg.low_set;
  const std::string& raw = high ? cfg.high_raw : cfg.low_raw;
  const double v = high ? cfg.high : cfg.low;
  const std::string shown = format_ratio(v);
  if (!set) return shown + " (default)";
  const auto strict = parse_number(raw);
  if (strict && *strict == v) return raw;
  return fmt::format("{} (\"{}\")", shown, raw);
}

std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::string out;
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (size_t i = 0; i < r.size(); ++i) {
      s += r[i];
      if (i + 1 < r.size()) s += std::string(w[i] - r[i].size() + 2, ' ');
    }
    out += s + '\n';
  };
  line(head);
  std::vector<std::string> dashes;
  for (size_t x : w) dashes.push_back(std::string(x, '-'));
  line(dashes);
  for (const auto& r : rows) line(r);
  return out;
}

std::string limits_table(const PredictReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : r.settings) {
    std::string max = p.config_error ? "error" : p.max_allowed ? format_size_pytorch(*p.max_allowed) : "no limit";
    std::string ar = p.config_error ? "-" : (p.above_ram ? "yes" : "no");
    std::string af = p.config_error || !p.above_free ? "-" : (*p.above_free ? "yes" : "no");
    std::string ex = p.expect == "config_error" ? "config error: " + *p.config_error
                     : p.expect == "swap"        ? "swap, no clean error"
                     : p.expect == "clean_error" && p.no_room ? "clean PyTorch error at the first step (no room)"
                     : p.expect == "clean_error" ? "clean PyTorch error"
                                                 : "unknown";
    // A memory fraction replaces HIGH after the variables were checked (mpsmodel/memory_fraction.h).
    const std::string high = p.cfg.memory_fraction
                                 ? python_float_repr(*p.cfg.memory_fraction) + " (memory_fraction; env " +
                                       ratio_cell(p.cfg, true) + ")"
                                 : ratio_cell(p.cfg, true);
    rows.push_back({p.label, high, ratio_cell(p.cfg, false), max, ar, af, ex});
  }
  return table({"setting", "HIGH", "LOW", "max allowed", "above RAM", "above free", "expect"}, rows);
}

std::string suggestion_text(const PredictReport& r) {
  const auto& m = r.inputs;
  if (!m.free) return "No suggestion: free memory unknown (use --free SIZE).\n";
  if (!r.clean && r.no_room)
    return fmt::format("No HIGH/LOW pair: every limit under {:.0f} % of {} free is filled by the other allocations ({}) "
                       "before one {} step; close what holds Metal memory, or make the job's own allocations smaller.\n",
                       kCleanMargin * 100, format_size(*m.free), format_size(r.plan.params.other_bytes),
                       format_size(r.plan.step));
  if (!r.clean)
    return fmt::format("No HIGH/LOW pair in steps of 0.05 keeps the limit under {:.0f} % of {} free.\n",
                       kCleanMargin * 100, format_size(*m.free));
  const uint64_t lim = static_cast<uint64_t>(*r.clean * static_cast<double>(m.recommended_max));
  return fmt::format(
      "For a clean error below the memory free now, set both:\n  {}={:.2f} {}={:.2f}\n"
      "  (max allowed {} <= {:.0f} % of {} free; LOW must not exceed HIGH)\n",
      kHighEnv, *r.clean, kLowEnv, *r.clean, format_size_pytorch(lim), kCleanMargin * 100, format_size(*m.free));
}

std::string simulation_text(const PredictReport& r) {
  const auto& pl = r.plan;
  const Revision& rev = find_revision(pl.params.revision);
  std::string s = "\n";
  if (r.inputs.recommended_basis) s += "Recommended max estimated from: " + *r.inputs.recommended_basis + "\n";
  s += fmt::format("Allocator model: revision {} ({}; \"{}\" pool), other allocations {}, maxBufferLength {} ({})\n",
                   rev.name, rev.releases, rev.pool, format_size_for(rev, pl.params.other_bytes),
                   pl.params.max_buffer ? format_size_for(rev, *pl.params.max_buffer) : "not checked",
                   pl.max_buffer_source);
  s += fmt::format("Each setting's fill, simulated step by step: steps of {}, up to {}\n\n", format_size(pl.step),
                   pl.cap ? "the cap " + format_size(*pl.cap) : "the RAM " + format_size(r.inputs.ram));
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : r.settings)
    rows.push_back({p.label, p.sim.heap_tier, std::to_string(p.sim.steps), format_size(p.sim.held_bytes),
                    format_size_for(rev, p.sim.heaps_bytes), p.sim.stopped_by});
  s += table({"setting", "heap tier", "steps", "held", "MPS allocated", "stopped by"}, rows);
  for (const auto& p : r.settings)
    if (p.sim.message) s += "\n" + p.label + ": " + *p.sim.message + "\n";
  return s;
}

}  // namespace

std::string render_text(const PredictReport& r, bool simulation) {
  const auto& m = r.inputs;
  std::string s = fmt::format("Machine: RAM {} ({})\n", format_size(m.ram), m.ram_source);
  s += fmt::format("Recommended max working set: {} ({})\n", format_size_pytorch(m.recommended_max),
                   m.recommended_source);
  if (m.wired_limit_mib)
    s += fmt::format("Wired limit: iogpu.wired_limit_mb={} -> recommended max {} MiB, so every limit is HIGH x {} MiB\n",
                     *m.wired_limit_mib, *m.wired_limit_mib, *m.wired_limit_mib);
  if (!m.known_range.empty())
    s += fmt::format("Known Macs: {}\n  used: {}\n", m.known_range, m.recommended_source);
  s += fmt::format("Memory free: {} ({})\n", m.free ? format_size(*m.free) : "unknown", m.free_source);
  s += fmt::format("Settings: {}\n\n", r.scenario_name);
  s += limits_table(r) + "\n" + suggestion_text(r);
  if (simulation) s += simulation_text(r);
  return s;
}

nlohmann::json render_json(const PredictReport& r) {
  using nlohmann::json;
  const auto& m = r.inputs;
  json j;
  j["ram_bytes"] = m.ram;
  j["ram_source"] = m.ram_source;
  j["recommended_max_bytes"] = m.recommended_max;
  j["recommended_max_source"] = m.recommended_source;
  j["recommended_max_basis"] = m.recommended_basis ? json(*m.recommended_basis) : json(nullptr);
  j["wired_limit_mib"] = m.wired_limit_mib ? json(*m.wired_limit_mib) : json(nullptr);
  {
    const RamRange kr = known_range(m.ram);
    json figs = json::array();
    for (const auto& f : kr.figures)
      figs.push_back({{"recommended_max_bytes", f.recommended_max}, {"macos", f.macos}, {"source", f.source},
                      {"estimate_curve", f.curve}});
    j["known_range"] = kr.figures.empty() ? json(nullptr)
                                          : json{{"low_bytes", kr.low}, {"high_bytes", kr.high}, {"figures", figs}};
  }
  j["free_bytes"] = m.free ? json(*m.free) : json(nullptr);
  j["free_source"] = m.free_source;
  j["scenario"] = r.scenario_name;
  j["model"] = {{"revision", r.plan.params.revision},
                {"other_bytes", r.plan.params.other_bytes},
                {"max_buffer_bytes", r.plan.params.max_buffer ? json(*r.plan.params.max_buffer) : json(nullptr)},
                {"max_buffer_source", r.plan.max_buffer_source},
                {"tier_scale", r.plan.params.tier_scale},
                {"step_bytes", r.plan.step},
                {"cap_bytes", r.plan.cap ? json(*r.plan.cap) : json(nullptr)}};
  json arr = json::array();
  for (const auto& p : r.settings) {
    json s;
    s["label"] = p.label;
    s["env"] = p.env;
    s["high"] = std::isfinite(p.cfg.high) ? json(p.cfg.high) : json(nullptr);
    s["low"] = std::isfinite(p.cfg.low) ? json(p.cfg.low) : json(nullptr);
    s["high_raw"] = p.cfg.high_set ? json(p.cfg.high_raw) : json(nullptr);
    s["low_raw"] = p.cfg.low_set ? json(p.cfg.low_raw) : json(nullptr);
    s["memory_fraction"] = p.cfg.memory_fraction ? json(*p.cfg.memory_fraction) : json(nullptr);
    s["config_error"] = p.config_error ? json(*p.config_error) : json(nullptr);
    s["max_allowed_bytes"] = p.max_allowed ? json(*p.max_allowed) : json(nullptr);
    s["no_limit"] = !p.config_error && !p.max_allowed;
    s["above_ram"] = p.config_error ? json(nullptr) : json(p.above_ram);
    s["above_free"] = p.config_error || !p.above_free ? json(nullptr) : json(*p.above_free);
    s["expect"] = p.expect;
    s["why"] = p.why;
    s["no_room"] = p.no_room;
    s["steps"] = p.sim.steps;
    s["held_bytes"] = p.sim.held_bytes;
    s["stopped_by"] = p.sim.stopped_by;
    s["message"] = p.sim.message ? json(*p.sim.message) : json(nullptr);
    s["heaps_bytes"] = p.sim.heaps_bytes;
    s["driver_bytes"] = p.sim.driver_bytes;
    s["heap_tier"] = p.sim.heap_tier;
    arr.push_back(std::move(s));
  }
  j["settings"] = std::move(arr);
  if (r.clean && m.free) {
    const std::string rs = fmt::format("{:.2f}", *r.clean);
    j["suggestion"] = {{"ratio", *r.clean},
                       {"env", {{kHighEnv, rs}, {kLowEnv, rs}}},
                       {"max_allowed_bytes", static_cast<uint64_t>(*r.clean * static_cast<double>(m.recommended_max))},
                       {"margin", kCleanMargin}};
  } else {
    j["suggestion"] = nullptr;
  }
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace wmb::mpsmodel
