// The scenario's warnings (scenario/scenario.cpp check_cell_env) against what the model child
// (wmbench-fill --device mps-model) actually raises, over a grid of HIGH/LOW pairs: negatives,
// 0.0, 2.0, above 2.0, NaN, and strings strtod reads only in part. PyTorch checks HIGH first
// (pytorch/pytorch aten/src/ATen/mps/MPSAllocator.mm init_allocator: setHighWatermarkRatio, then
// setLowWatermarkRatio), so a warning must quote exactly the error the child gives, and a setting
// the child runs must not be warned about as refused.
#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "proc_util.h"
#include "mpsmodel/heap_allocator.h"
#include "mpsmodel/watermark.h"
#include "scenario/scenario.h"

namespace test_model_warnings {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
using nlohmann::json;

namespace {

struct ChildOutcome {
  int status = -1;
  std::optional<std::string> error;  // the error line's text
  std::string out, err;
};

ChildOutcome run_model(const std::map<std::string, std::string>& env, const std::vector<std::string>& extra = {}) {
  RunOpts o;
  o.set_env = env;
  for (const char* k : {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO"})
    if (!env.count(k)) o.unset_env.push_back(k);
  // The model without libtorch: the same checks of the variables (harness/fillbase/), whose lines
  // FillHalves.* proves equal to the libtorch half's, without a libtorch start per child (issue 44).
  o.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";
  o.timeout = 60;
  std::vector<std::string> argv = {WMBENCH_FILL_BIN, "--device", "mps-model", "--step", "4MiB", "--cap", "4MiB",
                                   "--recommended-max", "1GiB"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const Result r = run(argv, o);
  ChildOutcome c{r.status, std::nullopt, r.out, r.err};
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const json j = json::parse(line);
    if (j.value("type", "") == "error") c.error = j.value("text", "");
  }
  return c;
}

// The text a "refused" warning quotes: ... ("<text>") and the run ...
std::optional<std::string> quoted_refusal(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) {
    const auto a = w.find("first allocation (\"");
    if (a == std::string::npos) continue;
    const auto b = w.find("\") and the run", a);
    if (b == std::string::npos) continue;
    const auto start = a + std::string("first allocation (\"").size();
    return w.substr(start, b - start);
  }
  return std::nullopt;
}

// What the model child does with its environment, here in this process with the variables set or
// unset as a child would have them: harness/fill/device_mps_model.cpp builds the model from
// read_watermark_config_from_process() (getenv + strtod) and allocates its first step, which checks
// the configuration as PyTorch's first allocation does. The error text, "" when the step is taken;
// "usage: ..." where the child would exit 2. The variables are as they were afterwards.
std::string child_side_in_process(const std::optional<std::string>& high, const std::optional<std::string>& low) {
  const std::pair<const char*, const std::optional<std::string>*> vars[] = {
      {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", &high}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", &low}};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved;
  for (const auto& [name, value] : vars) {
    const char* was = std::getenv(name);
    saved.emplace_back(name, was ? std::optional<std::string>(was) : std::nullopt);
    if (*value) ::setenv(name, (*value)->c_str(), 1);
    else ::unsetenv(name);
  }
  std::string error;
  try {
    wmb::mpsmodel::MpsAllocatorModel model(wmb::mpsmodel::read_watermark_config_from_process(), 1ull << 30);
    model.allocate(4ull << 20);
  } catch (const wmb::mpsmodel::ModelError& e) {
    error = e.what();
  } catch (const std::invalid_argument& e) {
    error = std::string("usage: ") + e.what();
  }
  for (const auto& [name, was] : saved) {
    if (was) ::setenv(name, was->c_str(), 1);
    else ::unsetenv(name);
  }
  return error;
}

using V = std::optional<std::string>;
using Pair = std::pair<V, V>;                                // HIGH, LOW
using RealCase = std::pair<Pair, std::optional<std::string>>;  // a pair and its pinned error text

// The grid: every pair of the core values, then each further value beside an unset and an in-range other.
std::vector<Pair> grid_pairs() {
  const std::vector<V> core = {std::nullopt, "-0.1", "0.0", "0.5", "2.0", "2.5", "0.8abc"};
  const std::vector<V> more = {"1.4", "2.0000001", "abc", "", "nan"};
  std::vector<Pair> pairs;
  for (const auto& high : core)
    for (const auto& low : core) pairs.emplace_back(high, low);
  for (const auto& v : more)
    for (const V& other : {V{}, V{"0.5"}}) {
      pairs.emplace_back(v, other);
      pairs.emplace_back(other, v);
    }
  return pairs;
}

// "HIGH=... LOW=...", for the failure messages.
std::string what_of(const Pair& p) {
  return "HIGH=" + p.first.value_or("<unset>") + " LOW=" + p.second.value_or("<unset>");
}

// The error text the scenario's "refused" warning quotes for the pair ("" when it warns of none).
std::string warned_of(const Pair& p) {
  wmb::Cell cell;
  cell.label = "grid";
  if (p.first) cell.env["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = *p.first;
  if (p.second) cell.env["PYTORCH_MPS_LOW_WATERMARK_RATIO"] = *p.second;
  std::vector<std::string> warnings;
  wmb::check_cell_env(cell, "grid", warnings);
  return quoted_refusal(warnings).value_or("");
}

// Each pair's warning against the child's reading in this process; the grid must hold both kinds.
void check_grid_in_process(const std::vector<Pair>& pairs) {
  int refused = 0, ran = 0;
  for (const auto& pair : pairs) {
    const std::string child = child_side_in_process(pair.first, pair.second), warned = warned_of(pair);
    (child.empty() ? ran : refused) += 1;
    EXPECT_EQ(warned, child) << what_of(pair) << ": the warning quotes what the child's reading does not give";
  }
  // The grid holds both kinds (a test that cannot fail would not).
  EXPECT_GT(ran, 5);
  EXPECT_GT(refused, 30);
}

// The pairs run in real children: those with PyTorch's pinned texts, then the other ways in, unpinned.
std::vector<RealCase> real_child_cases() {
  std::vector<RealCase> real = {
      {{V{}, V{}}, ""},
      {{V{"-0.1"}, V{"2.5"}}, "invalid high watermark ratio -0.1"},
      {{V{"2.5"}, V{}}, "invalid high watermark ratio 2.5"},
      {{V{"2.0000001"}, V{}}, "invalid high watermark ratio 2"},
      {{V{"nan"}, V{}}, "invalid high watermark ratio nan"},
      {{V{"0.5"}, V{}}, "invalid low watermark ratio 1.4"},
      {{V{"0.0"}, V{"2.5"}}, "invalid low watermark ratio 2.5"},
      {{V{"0.0"}, V{"2.0"}}, ""},
      {{V{"0.8abc"}, V{"0.8abc"}}, ""},
      {{V{"abc"}, V{}}, ""},
      {{V{"0.5"}, V{""}}, ""},
  };
  // The other ways in, unpinned (the warning is their check): a LOW alone, set to "", unread, NaN.
  for (const std::pair<V, V>& p : std::vector<std::pair<V, V>>{
           {V{}, V{"-0.1"}}, {V{}, V{"nan"}}, {V{""}, V{}}, {V{"0.5"}, V{"abc"}}, {V{"0.5"}, V{"2.0"}}})
    real.push_back({p, std::nullopt});
  return real;
}

// Starts a model child per case, four at a time (each waits for the one four before it).
std::vector<std::future<ChildOutcome>> start_children(const std::vector<RealCase>& real) {
  std::vector<std::future<ChildOutcome>> outcomes;
  for (size_t i = 0; i < real.size(); ++i) {
    if (i >= 4) outcomes[i - 4].wait();
    const auto& [high, low] = real[i].first;
    std::map<std::string, std::string> env;
    if (high) env["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = *high;
    if (low) env["PYTORCH_MPS_LOW_WATERMARK_RATIO"] = *low;
    outcomes.push_back(std::async(std::launch::async, [env] { return run_model(env); }));
  }
  return outcomes;
}

// Each child's outcome, in order, against the grid, the warning and the pinned text (an ASSERT ends the checks).
void check_children(const std::vector<Pair>& pairs, const std::vector<RealCase>& real,
                    std::vector<std::future<ChildOutcome>>& outcomes) {
  for (size_t i = 0; i < real.size(); ++i) {
    const auto& [pair, pinned] = real[i];
    const std::string what = what_of(pair);
    ASSERT_NE(std::find(pairs.begin(), pairs.end(), pair), pairs.end()) << what << " is not a pair of the grid";
    const ChildOutcome c = outcomes[i].get();
    const std::string warned = warned_of(pair);
    if (c.status == 0) {
      EXPECT_FALSE(c.error) << what;
      EXPECT_EQ(warned, "") << what << ": the child ran, yet the warning says it will be refused";
    } else {
      EXPECT_EQ(c.status, 3) << what << "\n" << c.out << c.err;
      EXPECT_EQ(c.error.value_or("<no error line>"), warned) << what;
    }
    if (pinned) EXPECT_EQ(c.error.value_or(""), *pinned) << what;
  }
}

}  // namespace

TEST(ModelWarningsGrid, EachWarningIsTheErrorTheModelChildGives) {
  // nullopt: the variable is not set (PyTorch's defaults, HIGH 1.7 and LOW 1.4). Every pair of the
  // core values (each class of value once: unset, negative, 0.0, in range, 2.0, above 2.0, a string
  // strtod reads in part), and each further value beside an unset and an in-range other variable,
  // both ways round: 69 pairs. Each pair's warning is checked against the child's own reading of
  // its environment, in this process; real children run the pairs below that PyTorch's texts are
  // pinned for and those that take each other way a value can reach a child (set, set to "", unset,
  // a string strtod reads in part or not at all, NaN), so the exec and the variables' passage are
  // proven too (69 children took 24 s of CPU, a third of this suite's single largest test).
  const std::vector<Pair> pairs = grid_pairs();
  check_grid_in_process(pairs);

  // PyTorch's own texts, pinned from MPSAllocator.mm itself, not from mpsmodel::validate (which
  // both sides above use): init_allocator checks `m_high_watermark_ratio >= 0.0 && <= 2.0`
  // ("invalid high watermark ratio " << ratio), then LOW `>= 0.0 && <= (HIGH == 0.0 ? 2.0 : HIGH)`
  // ("invalid low watermark ratio " << ratio); both read with strtod (a string it cannot read is
  // 0.0), printed as an ostream prints a double (6 significant digits: 2.0000001 is "2"). "" is a
  // setting the child runs. Each is a pair of the grid; each runs in a real child.
  const std::vector<RealCase> real = real_child_cases();
  // Four children at a time; the checks are made here, in order.
  std::vector<std::future<ChildOutcome>> outcomes = start_children(real);
  check_children(pairs, real, outcomes);
}

TEST(ModelWarningsGrid, HighIsCheckedBeforeLow) {
  wmb::Cell cell{"neg", {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "-0.1"}}, "", std::nullopt, std::nullopt};
  std::vector<std::string> w;
  wmb::check_cell_env(cell, "neg", w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("(\"invalid high watermark ratio -0.1\")"), std::string::npos) << w[0];
  EXPECT_EQ(w[0].find("low watermark"), std::string::npos) << w[0];
  EXPECT_EQ(run_model(cell.env).error.value_or(""), "invalid high watermark ratio -0.1");
}

}  // namespace test_model_warnings
