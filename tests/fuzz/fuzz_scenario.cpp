// libFuzzer target: the scenario loader (wmb::parse_scenario). The input is the file's text.
//
// Checked: only wmb::ScenarioError escapes; no crash or UB; for a scenario that loads, every label
// and the name pass label_problem, every size resolves, durations are finite and > 0, and
// to_json(s) dumps, re-parses without error to the same scenario, and is a fixed point
// (to_json(parse(to_json(s))) == to_json(s)).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fuzz_common.h"
#include "scenario/scenario.h"

namespace {

static constexpr const char* kFuzzTarget = "fuzz_scenario";

void check_valid(const wmb::Scenario& s, std::string_view in) {
  FUZZ_CHECK(wmb::label_problem(s.name).empty(), in, "name \"" + s.name + "\" passed but label_problem says: " + wmb::label_problem(s.name));
  FUZZ_CHECK(!s.matrix.empty(), in, "a scenario with an empty matrix loaded");
  for (const auto& c : s.matrix) {
    FUZZ_CHECK(wmb::label_problem(c.label).empty(), in, "label \"" + c.label + "\" loaded but label_problem says: " + wmb::label_problem(c.label));
    for (const auto& [k, v] : c.env) FUZZ_CHECK(!k.empty() && k.find('=') == std::string::npos, in, "bad env name \"" + k + "\"");
  }
  FUZZ_CHECK(s.repeats >= 1 && s.repeats <= 1000, in, fmt::format("repeats {} loaded", s.repeats));
  FUZZ_CHECK(s.min_steps >= 0 && s.min_steps <= 100000, in, fmt::format("min_steps {} loaded", s.min_steps));
  FUZZ_CHECK(s.program != "offload" || s.offload_size, in, "program offload without offload_size loaded");
  const double durations[] = {s.timeout, s.guard.interval, s.guard.check_interval, s.guard.wait_free_timeout, s.guard.grace};
  for (double d : durations) FUZZ_CHECK(d > 0 && std::isfinite(d), in, fmt::format("a duration of {} loaded", d));
  FUZZ_CHECK(s.step_delay >= 0 && std::isfinite(s.step_delay), in, fmt::format("step_delay {} loaded", s.step_delay));
  FUZZ_CHECK(s.guard.wait_free >= 0 && s.guard.wait_free <= 100 && s.guard.kill_free >= 0 && s.guard.kill_free <= 100, in,
             "wait_free/kill_free outside 0..100 loaded");
  for (uint64_t ram : {uint64_t{0}, 16 * wmb::GiB, uint64_t{1} << 45}) {
    (void)s.step.resolve(ram);
    if (s.cap) (void)s.cap->resolve(ram);
    (void)s.guard.swap_budget.resolve(ram);
    if (s.offload_size) (void)s.offload_size->resolve(ram);
  }
}

bool same(const wmb::Scenario& a, const wmb::Scenario& b) {
  auto env_eq = [](const std::vector<wmb::Cell>& x, const std::vector<wmb::Cell>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].label != y[i].label || x[i].env != y[i].env) return false;
    return true;
  };
  const auto& g = a.guard;
  const auto& h = b.guard;
  return a.name == b.name && a.description == b.description && a.device == b.device && a.step.text == b.step.text &&
         a.min_steps == b.min_steps && a.data == b.data && a.cap.has_value() == b.cap.has_value() &&
         (!a.cap || a.cap->text == b.cap->text) && a.timeout == b.timeout && a.step_delay == b.step_delay &&
         a.repeats == b.repeats && a.program == b.program && a.offload_size.has_value() == b.offload_size.has_value() &&
         (!a.offload_size || a.offload_size->text == b.offload_size->text) && g.swap_budget.text == h.swap_budget.text &&
         g.wait_free == h.wait_free && g.kill_free == h.kill_free && g.interval == h.interval &&
         g.check_interval == h.check_interval && g.wait_free_timeout == h.wait_free_timeout && g.grace == h.grace &&
         env_eq(a.matrix, b.matrix);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string_view in(text);
  std::vector<std::string> warnings;
  wmb::Scenario s;
  try {
    s = wmb::parse_scenario(text, "fuzz.json", warnings);
  } catch (const wmb::ScenarioError& e) {
    FUZZ_CHECK(std::string_view(e.what()).rfind("fuzz.json", 0) == 0, in,
               std::string("a ScenarioError that does not start with the file name: ") + e.what());
    return 0;
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "parse_scenario (only ScenarioError may escape)", in);
  }

  try {
    check_valid(s, in);
    const nlohmann::json j = wmb::to_json(s);
    const std::string dumped = j.dump(2);
    std::vector<std::string> warnings2;
    wmb::Scenario s2;
    try {
      s2 = wmb::parse_scenario(dumped, "roundtrip.json", warnings2);
    } catch (const wmb::ScenarioError& e) {
      wmb_fuzz::fail(kFuzzTarget, std::string("to_json(s) does not load again: ") + e.what() + "\n  to_json(s) = " + j.dump(), in);
    }
    FUZZ_CHECK(same(s, s2), in, "to_json(s) loads as a different scenario: " + j.dump() + " vs " + wmb::to_json(s2).dump());
    FUZZ_CHECK(wmb::to_json(s2) == j, in, "to_json is not a fixed point: " + j.dump() + " vs " + wmb::to_json(s2).dump());
    FUZZ_CHECK(warnings2.size() == warnings.size(), in,
               fmt::format("{} warnings from the input, {} from to_json(s)", warnings.size(), warnings2.size()));
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "checking a scenario that loaded (to_json, reload, resolve)", in);
  }
  return 0;
}
