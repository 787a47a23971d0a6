#include "doctor/checks.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "common/units.h"

namespace wmb::doctor {
namespace {

Check make(std::string name, std::string expected, std::string seen, Verdict v, std::string why = "") {
  return Check{std::move(name), std::move(expected), std::move(seen), v, std::move(why)};
}

std::string sizes_text(const std::vector<size_t>& sizes) {
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? " or " : "") + std::to_string(sizes[i]);
  return s + " bytes";
}

uint64_t diff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

std::string pids_text(const std::vector<pid_t>& pids) {
  std::string s;
  for (size_t i = 0; i < pids.size(); ++i) s += (i ? " " : "") + std::to_string(pids[i]);
  return s.empty() ? "none" : s;
}

}  // namespace

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::skip: return "skip";
  }
  return "fail";
}

Check judge_sysctl(const std::string& name, const SysctlSize& r, const std::vector<size_t>& sizes,
                   const std::string& type, bool absent_ok) {
  const std::string expected = "exists, " + sizes_text(sizes) + ": " + type;
  const std::string check = "sysctl " + name;
  if (!r.size) {
    const std::string seen = fmt::format("sysctlbyname failed: errno {}", r.error);
    if (absent_ok) return make(check, expected, seen, Verdict::skip, "absent on this macOS; wmbench records null for it");
    return make(check, expected, seen, Verdict::fail, "wmbench's probe reads it on every sample");
  }
  const std::string seen = fmt::format("{} bytes", *r.size);
  if (std::find(sizes.begin(), sizes.end(), *r.size) == sizes.end())
    return make(check, expected, seen, Verdict::fail, "another size than wmbench reads: its type changed");
  return make(check, expected, seen, Verdict::pass);
}

std::optional<SwapFigures> parse_swapusage_text(std::string_view text) {
  auto field = [&](std::string_view key) -> std::optional<uint64_t> {
    const size_t k = text.find(key);
    if (k == std::string_view::npos) return std::nullopt;
    size_t i = k + key.size();
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size() || text[i] != '=') return std::nullopt;
    ++i;
    while (i < text.size() && text[i] == ' ') ++i;
    size_t j = i;
    while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.')) ++j;
    if (j == i || j >= text.size()) return std::nullopt;
    const std::string num(text.substr(i, j - i));
    char* end = nullptr;
    const double v = std::strtod(num.c_str(), &end);
    if (!end || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e12) return std::nullopt;
    double unit = 0;
    switch (text[j]) {
      case 'K': unit = 1024.0; break;
      case 'M': unit = 1024.0 * 1024; break;
      case 'G': unit = 1024.0 * 1024 * 1024; break;
      default: return std::nullopt;
    }
    return static_cast<uint64_t>(std::llround(v * unit));
  };
  auto total = field("total");
  auto used = field("used");
  if (!total || !used) return std::nullopt;
  return SwapFigures{*total, *used};
}

Check judge_swap(const std::string& probe_name, const std::optional<SwapFigures>& probe, const std::string& probe_error,
                 const std::string& reference_name, const std::optional<SwapFigures>& reference,
                 const std::string& reference_error) {
  const std::string check = "swap reading";
  const std::string expected = probe_name + " agrees with " + reference_name +
                               " (total within 1 MiB or 0.5 %, used within 64 MiB + 2 % of the total)";
  if (!probe) return make(check, expected, "the probe failed: " + probe_error, Verdict::fail, "the guard reads swap on every check");
  const std::string seen_probe = fmt::format("probe total {} used {}", format_size(probe->total), format_size(probe->used));
  if (!reference)
    return make(check, expected, seen_probe + "; " + reference_name + ": " + reference_error, Verdict::fail,
                "the second source could not be read, so the probe is unproven");
  const std::string seen = seen_probe + fmt::format("; {} total {} used {}", reference_name, format_size(reference->total),
                                                    format_size(reference->used));
  const uint64_t total_tol = std::max<uint64_t>(uint64_t{1} << 20, reference->total / 200);
  const uint64_t used_tol = (uint64_t{64} << 20) + reference->total / 50;
  if (diff(probe->total, reference->total) > total_tol)
    return make(check, expected, seen, Verdict::fail, "the totals differ: the probe reads swap wrong on this system");
  if (diff(probe->used, reference->used) > used_tol)
    return make(check, expected, seen, Verdict::fail, "the used figures differ: the probe reads swap wrong on this system");
  return make(check, expected, seen, Verdict::pass);
}

Check judge_footprint(const std::string& call, const std::string& who, std::optional<uint64_t> footprint,
                      const std::string& error) {
  const std::string check = call + " on " + who;
  const std::string expected = "a footprint above 0 bytes (the guard's and the sampler's per-process reading)";
  if (!footprint) return make(check, expected, "failed: " + error, Verdict::fail, "the sampler reads it for every run");
  if (*footprint == 0) return make(check, expected, "0 bytes", Verdict::fail, "a live process cannot have no footprint");
  return make(check, expected, format_size(*footprint), Verdict::pass);
}

Check judge_group_listing(const std::string& call, const std::vector<pid_t>& made, const std::vector<pid_t>& listed) {
  const std::string check = call + " on a group of " + std::to_string(made.size());
  const std::string expected = "the " + std::to_string(made.size()) + " members wmbench made: " + pids_text(made);
  const std::string seen = pids_text(listed);
  const std::set<pid_t> want(made.begin(), made.end()), got(listed.begin(), listed.end());
  if (want != got || listed.size() != made.size())
    return make(check, expected, seen, Verdict::fail,
                "run/tune --command footprints count the group's members: they would be wrong here");
  return make(check, expected, seen, Verdict::pass);
}

Check judge_group_stop(size_t made, const std::vector<pid_t>& still_running, const std::string& leader_status) {
  const std::string check = "a process group stopped whole";
  const std::string expected = "SIGTERM to the group ends all " + std::to_string(made) +
                               " members; the leader reaped (spawn/process.h stop_process_group)";
  const std::string seen = "leader " + leader_status + "; still running: " + pids_text(still_running);
  if (!still_running.empty())
    return make(check, expected, seen, Verdict::fail, "a stopped run would leave processes behind");
  return make(check, expected, seen, Verdict::pass);
}

Check judge_exit_watch(const std::string& expected_kind, const ExitWatchReading& r, const std::string& poll_why) {
  const std::string check = "exit watch then reap";
  const std::string expected = expected_kind + " wakes at the child's end; waitpid then reaps it within 1 s";
  const std::string seen = fmt::format("{}; woke: {}; reaped: {} ({:.1f} ms after the wake)", r.kind,
                                       r.woke ? "yes" : "no", r.reaped ? "yes" : "no", r.reap_wait_ms);
  if (r.kind == "poll" && !poll_why.empty())
    return make(check, expected, seen, Verdict::skip, poll_why + ": wmbench falls back to a 1 ms poll");
  if (r.kind != expected_kind)
    return make(check, expected, seen, Verdict::fail, "the event source is missing: stops wait by polling");
  if (!r.woke) return make(check, expected, seen, Verdict::fail, "the watch never woke: a stop would wait its whole grace");
  if (!r.reaped) return make(check, expected, seen, Verdict::fail, "ended but not reapable within 1 s");
  return make(check, expected, seen, Verdict::pass);
}

Check judge_recommended_max(std::optional<uint64_t> metal, const std::string& metal_error,
                            std::optional<uint64_t> torch, const std::string& torch_error, bool virtual_device) {
  const std::string check = "recommendedMaxWorkingSetSize";
  const std::string expected =
      "Metal's MTLDevice.recommendedMaxWorkingSetSize equals the child's torch getRecommendedMaxMemory() "
      "(aten/src/ATen/mps/MPSDevice.mm, MPSAllocator.mm: max allowed = HIGH x this)";
  const std::string seen = fmt::format("Metal {}; torch {}", metal ? std::to_string(*metal) + " bytes" : "failed: " + metal_error,
                                       torch ? std::to_string(*torch) + " bytes" : "failed: " + torch_error);
  if (metal && torch && *metal == *torch) return make(check, expected, seen, Verdict::pass);
  if (virtual_device)
    return make(check, expected, seen, Verdict::skip,
                "a VM's paravirtual Metal device: GitHub documents MPS as unsupported there (expected)");
  if (!metal || !torch) return make(check, expected, seen, Verdict::fail, "one side could not be read");
  return make(check, expected, seen, Verdict::fail, "they differ: predict and explain would use a wrong recommended max");
}

Check judge_fill(const FillReading& r) {
  const std::string check = "a fill at HIGH " + fmt::format("{:g}", r.high) + " (" + r.device + ")";
  const std::string expected = fmt::format(
      "ends by PyTorch's own \"MPS backend out of memory\" within 60 s; explain parses max allowed = "
      "HIGH x recommended max (aten/src/ATen/mps/MPSAllocator.mm: \"m_max_total_allowed_size = "
      "static_cast<size_t>(m_high_watermark_ratio * (double)max_device_size())\")");
  std::string seen = r.failure.empty() ? "" : r.failure + "; ";
  seen += r.error_text ? "error: " + *r.error_text : std::string("no error line");
  seen += fmt::format("; parsed {} max allowed {}; hello recommended {}; {:.1f} s", r.parsed_kind,
                      r.max_allowed ? std::to_string(*r.max_allowed) + " bytes" : "none",
                      r.recommended ? std::to_string(*r.recommended) + " bytes" : "none", r.seconds);
  auto bad = [&](const std::string& why) {
    if (r.virtual_device)
      return make(check, expected, seen, Verdict::skip,
                  "a VM's paravirtual Metal device: GitHub documents MPS as unsupported there (expected); " + why);
    return make(check, expected, seen, Verdict::fail, why);
  };
  if (!r.failure.empty()) return bad("the child did not run to its error");
  if (!r.error_text) return bad("the fill ended without PyTorch's error");
  if (r.parsed_kind != "mps_oom" || !r.max_allowed) return bad("explain did not read a max allowed off the error");
  if (!r.recommended) return bad("the child's hello had no recommended max");
  const double want = r.high * static_cast<double>(*r.recommended);
  // The message prints 2 decimals of its unit (format_size: "50.11 MiB"): 0.5 % covers that.
  if (std::fabs(static_cast<double>(*r.max_allowed) - want) > want * 0.005 + 1024)
    return bad(fmt::format("max allowed is not HIGH x recommended max ({:.0f} bytes)", want));
  return make(check, expected, seen, Verdict::pass);
}

Check judge_cgroup2(const std::optional<std::string>& controllers, const std::string& error) {
  const std::string check = "cgroup v2 memory controller";
  const std::string expected =
      "/sys/fs/cgroup/cgroup.controllers lists \"memory\" (Documentation/admin-guide/cgroup-v2.rst; "
      "--ram-limit and run --command's own cgroup)";
  if (!controllers)
    return make(check, expected, "unreadable: " + error, Verdict::skip,
                "no cgroup v2 here: --ram-limit uses v1 or says what is missing (sandbox/sandbox.h)");
  std::string seen = *controllers;
  while (!seen.empty() && (seen.back() == '\n' || seen.back() == ' ')) seen.pop_back();
  const std::string padded = " " + seen + " ";
  if (padded.find(" memory ") == std::string::npos)
    return make(check, expected, seen, Verdict::skip, "no memory controller delegated here: --ram-limit says so");
  return make(check, expected, seen, Verdict::pass);
}

Check judge_psi(const std::optional<std::string>& text, const std::string& error) {
  const std::string check = "PSI memory pressure";
  const std::string expected =
      "/proc/pressure/memory reads \"some avg10=... total=...\" (Documentation/accounting/psi.rst)";
  if (!text)
    return make(check, expected, "unreadable: " + error, Verdict::skip,
                "no PSI (CONFIG_PSI off or psi=0): the tests that fill the machine say so and skip");
  const std::string first = text->substr(0, text->find('\n'));
  if (first.rfind("some avg10=", 0) != 0 || first.find(" total=") == std::string::npos)
    return make(check, expected, first, Verdict::fail, "another format than the kernel documents");
  return make(check, expected, first, Verdict::pass);
}

}  // namespace wmb::doctor
