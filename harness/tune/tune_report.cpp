// What a tune folder says: tune.json, the answer in words, README.md's first section.
#include <algorithm>

#include <fmt/format.h>

#include "common/guard_signals.h"

#include "io/files.h"
#include "io/json_input.h"
#include "common/units.h"
#include "io/utf8.h"
#include "scenario/wired_limit.h"
#include "tune/tune.h"

namespace wmb {

std::string tune_export_line(const TuneSummary& s) {
  if (!s.end || !s.end->answer) return "";
  const double high = *s.end->answer;
  // Never an export line that switches the limit off (tune_setting_problem): no line at all.
  if (!tune_setting_problem(high, tune_low(s.policy, high)).empty()) return "";
  return fmt::format("export PYTORCH_MPS_HIGH_WATERMARK_RATIO={} PYTORCH_MPS_LOW_WATERMARK_RATIO={}", ratio_text(high),
                     ratio_text(tune_low(s.policy, high)));
}

namespace {

// What the bottom of the bracket's unclean run did, in words, and whether it was memory (the guard,
// or swap past the tolerance) or the job's own failure (issue 30: a command that exited 1 was
// said to have "swapped or was stopped by the guard").
struct Unclean {
  std::string what;
  bool memory = true;
};

Unclean bottom_unclean(const TuneSummary& s) {
  const double bottom = tune_round(s.policy.bottom);
  for (const auto& pr : s.probes) {
    if (!pr.is_object() || pr.value("clean", true) || !pr.value("counted", false)) continue;
    if (tune_round(pr.value("high", -1.0)) != bottom) continue;
    const std::string by = pr.value("stopped_by", std::string("?"));
    std::string detail = utf8_sanitize(pr.value("detail", std::string()), 160);
    detail = detail.substr(0, detail.find('\n'));
    const std::string run = fmt::format("run {}", pr.value("run", 0));
    const int64_t growth = pr.value("swap_growth_bytes", int64_t{0});
    if (by == "guard") {
      // By its signal (tune.json before issue 41 has none): pressure, compressor or wired growth
      // mean the Mac ran short before swap grew, so a lower HIGH is the answer, not a bigger
      // swap budget.
      const nlohmann::json sig = pr.value("guard_signal", nlohmann::json());
      if (sig.is_string() && sig != "swap" && sig != "free-floor")
        return {fmt::format("{} was stopped by the guard on {} before swap grew past its budget: {}", run,
                            guard_signal_words(sig.get<std::string>()), detail),
                true};
      return {fmt::format("{} was stopped by the guard: {}", run, detail), true};
    }
    if (by == "kernel") return {fmt::format("{} was killed by the kernel ({})", run, detail), true};
    if (by == "pytorch" || by == "finished" || by == "cap")
      return {fmt::format("{} ended by {} but swap grew {}, over the tolerance of {}", run, by,
                          format_size(static_cast<uint64_t>(growth > 0 ? growth : 0)), format_size(s.policy.tolerance)),
              true};
    if (by == "timeout") return {fmt::format("{} ran past the timeout ({})", run, detail), true};
    return {fmt::format("{} ended as `{}`{}{}", run, by, detail.empty() ? "" : ": ", detail), false};
  }
  return {"it swapped or was stopped by the guard", true};
}

// The memory the search's answer holds for: a sandbox's size when the runs saw one (issue 30: the
// machine's free memory was quoted, which the runs never had), else the free memory at the start.
std::string free_text(const TuneSummary& s) {
  if (s.sandbox_bytes)
    return fmt::format("the {} sandbox the runs saw (standing for a Mac's free memory; this machine had {} free)",
                       format_size(*s.sandbox_bytes), format_size(s.free_bytes_at_start));
  return format_size(s.free_bytes_at_start) + " free";
}

}  // namespace

std::string tune_answer_core(const TuneSummary& s);

std::string tune_answer_text(const TuneSummary& s) {
  std::string said = tune_answer_core(s);
  if (!s.wired_lever.empty()) said += "\n" + s.wired_lever;
  return said;
}

std::string tune_answer_core(const TuneSummary& s) {
  const TunePolicy& p = s.policy;
  const std::string free = format_size(s.free_bytes_at_start);
  if (!s.end)
    return "No answer yet: the search stopped before it was over (interrupted, or a run could not be recorded).";
  switch (s.end->outcome) {
    case TuneOutcome::NothingToSet:
      return fmt::format("Nothing to set: even HIGH {} (the top of the bracket; PyTorch's default HIGH is 1.7) ends cleanly "
                         "here, with {} at the start.",
                         ratio_text(p.top), free_text(s));
    case TuneOutcome::NoSafeSetting: {
      const Unclean u = bottom_unclean(s);
      if (!u.memory)
        return fmt::format("No safe setting found: even HIGH {} (the bottom of the bracket) did not end cleanly, and not "
                           "for memory: {}. A lower bracket or closing apps will not change that; see that run's "
                           "stderr.log in runs/, fix the job, and run `wmbench tune` again.",
                           ratio_text(p.bottom), u.what);
      return fmt::format("No safe setting with the apps open now: even HIGH {} (the bottom of the bracket) did not end "
                         "cleanly ({}). With {} at the start: close apps and run `wmbench tune` again, or try a lower "
                         "bracket (--bracket).",
                         ratio_text(p.bottom), u.what, free_text(s));
    }
    case TuneOutcome::Found:
    case TuneOutcome::OutOfProbes: {
      const std::string above = s.end->lowest_unclean ? fmt::format("; HIGH {} did not", ratio_text(*s.end->lowest_unclean)) : "";
      return fmt::format("Set HIGH {} (LOW {}): the highest setting measured to end cleanly{}{}. With {} at the start:\n  {}",
                         ratio_text(*s.end->answer), ratio_text(tune_low(p, *s.end->answer)), above,
                         s.end->outcome == TuneOutcome::OutOfProbes ? " (the bound on probes was reached before the resolution)" : "",
                         free_text(s), tune_export_line(s));
    }
  }
  return "";
}

std::string wired_lever_lines(uint64_t free_bytes, uint64_t ram, std::optional<int64_t> found_mib) {
  constexpr double kMargin = 0.9, kDefaultHigh = 1.7;
  const uint64_t ram_mib = ram / MiB;
  uint64_t n = static_cast<uint64_t>(kMargin * static_cast<double>(free_bytes) / kDefaultHigh / static_cast<double>(MiB));
  if (ram_mib > 1) n = std::min(std::max<uint64_t>(n, 1), ram_mib - 1);
  const uint64_t found = found_mib && *found_mib > 0 ? static_cast<uint64_t>(*found_mib) : 0;
  return fmt::format(
      "The second lever, {}: Metal's recommended max follows it, so PyTorch's limit is HIGH x it, and MLX and "
      "llama.cpp are capped by it too: one line caps every framework at once. To keep PyTorch's default HIGH 1.7 "
      "under 90 % of {} free (1.7 x {} MiB = {}):\n  {}\nPut it back with:\n  {}{}\nIt needs root, holds for "
      "processes started after it, and resets at reboot. Not measured here: a scenario with \"sysctl\": "
      "{{\"{}\": {}}} cells (scenarios/wired-limit.json) measures it.",
      kWiredLimitKey, format_size(free_bytes), n, format_size(static_cast<uint64_t>(kDefaultHigh * static_cast<double>(n * MiB))),
      wired_limit_set_line(n), wired_limit_set_line(found),
      found_mib ? fmt::format("   (the value found now{})", found == 0 ? ": 0, the system default" : "")
                : "   (0: the system default; this machine has no such sysctl, so its value now is not known)",
      kWiredLimitKey, n);
}

nlohmann::json tune_json(const TuneSummary& s) {
  const std::string line = tune_export_line(s);
  nlohmann::json answer = nullptr;
  if (s.end && s.end->answer) answer = {{"high", *s.end->answer}, {"low", tune_low(s.policy, *s.end->answer)}};
  return {{"schema_version", 1},
          {"outcome", s.end ? nlohmann::json(tune_outcome_name(s.end->outcome)) : nlohmann::json(nullptr)},
          {"answer", answer},
          {"lowest_unclean", s.end && s.end->lowest_unclean ? nlohmann::json(*s.end->lowest_unclean) : nlohmann::json(nullptr)},
          {"export", line.empty() ? nlohmann::json(nullptr) : nlohmann::json(line)},
          {"said", s.said},
          {"wired_lever", s.wired_lever.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.wired_lever)},
          {"resolution", s.policy.resolution},
          {"tolerance_bytes", s.policy.tolerance},
          {"bracket", {s.policy.bottom, s.policy.top}},
          {"repeat", s.policy.repeat},
          {"low_factor", s.policy.low_factor},
          {"max_settings", max_tune_settings(s.policy)},
          {"free_bytes_at_start", s.free_bytes_at_start},
          {"sandbox_bytes", s.sandbox_bytes ? nlohmann::json(*s.sandbox_bytes) : nlohmann::json(nullptr)},
          {"probes", s.probes}};
}

TunePolicy tune_policy_from_json(const nlohmann::json& j, const std::string& source) {
  auto fail = [&](const std::string& key, const std::string& what) {
    throw FileError(fmt::format("{}: key \"{}\": {}", source, key, what));
  };
  if (!j.is_object()) fail("", "tune.json must be an object");
  TunePolicy p;
  auto num = [&](const char* key) -> double {
    if (!j.contains(key) || !j[key].is_number()) fail(key, "missing or not a number");
    return j[key].get<double>();
  };
  p.resolution = num("resolution");
  p.low_factor = num("low_factor");
  const double rep = num("repeat");
  if (rep < 1 || rep > 20 || rep != static_cast<int>(rep)) fail("repeat", "expected a whole number from 1 to 20");
  p.repeat = static_cast<int>(rep);
  if (!j.contains("tolerance_bytes") || !j["tolerance_bytes"].is_number_unsigned()) fail("tolerance_bytes", "missing or not a byte count");
  p.tolerance = j["tolerance_bytes"].get<uint64_t>();
  const auto& b = j.contains("bracket") ? j["bracket"] : nlohmann::json();
  if (!b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number()) fail("bracket", "expected [bottom, top]");
  p.bottom = b[0].get<double>();
  p.top = b[1].get<double>();
  if (const std::string why = tune_policy_problem(p); !why.empty()) fail("bracket/resolution/repeat/low_factor", why);
  return p;
}

std::string tune_readme_head(const TuneSummary& s) {
  std::string out = "# wmbench tune\n\n";
  const std::string said = tune_answer_text(s);
  out += "**" + said.substr(0, said.find('\n')) + "**\n\n";  // the export line goes in its own block
  const std::string line = tune_export_line(s);
  if (!line.empty()) out += "```sh\n" + line + "\n```\n\n";
  if (!s.wired_lever.empty()) out += "```\n" + s.wired_lever + "\n```\n\n";
  out += fmt::format(
      "Caveat: this holds for the memory that was free when it was measured ({} at the start{}). Free memory changes with "
      "the apps open: with more open, a lower setting is needed; run `wmbench tune` again with the apps you will have "
      "open.\n\n",
      format_size(s.free_bytes_at_start),
      s.sandbox_bytes ? fmt::format("; the runs saw a {} sandbox standing for it, so this is the model's answer, not a Mac's", format_size(*s.sandbox_bytes)) : "");
  out += fmt::format("Clean = ended by PyTorch's own error or by finishing, with swap growth at most {}. Probes, in order:\n\n",
                     format_size(s.policy.tolerance));
  out += "| run | HIGH | LOW | who stopped | swap growth | clean |\n|---|---|---|---|---|---|\n";
  for (const auto& p : s.probes) {
    const int64_t g = p.value("swap_growth_bytes", int64_t{0});
    out += fmt::format("| {} | {} | {} | {} | {:+.1f} MiB | {} |\n", p.value("run", 0), ratio_text(p.value("high", 0.0)),
                       ratio_text(p.value("low", 0.0)), p.value("stopped_by", std::string("?")),
                       static_cast<double>(g) / static_cast<double>(MiB), p.value("clean", false) ? "yes" : "no");
  }
  out += "\nChart: plots/tune.png. The ordinary report of every probe follows.\n\n---\n";
  return out;
}

}  // namespace wmb
