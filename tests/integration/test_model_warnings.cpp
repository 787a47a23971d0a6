// The scenario's warnings (scenario/scenario.cpp check_cell_env) against what the model child
// (wmbench-fill --device mps-model) actually raises, over a grid of HIGH/LOW pairs: negatives,
// 0.0, 2.0, above 2.0, NaN, and strings strtod reads only in part. PyTorch checks HIGH first
// (pytorch/pytorch aten/src/ATen/mps/MPSAllocator.mm init_allocator: setHighWatermarkRatio, then
// setLowWatermarkRatio), so a warning must quote exactly the error the child gives, and a setting
// the child runs must not be warned about as refused.
#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "proc_util.h"
#include "scenario/scenario.h"

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

}  // namespace

TEST(ModelWarningsGrid, EachWarningIsTheErrorTheModelChildGives) {
  // nullopt: the variable is not set (PyTorch's defaults, HIGH 1.7 and LOW 1.4). Every pair of the
  // core values (each class of value once: unset, negative, 0.0, in range, 2.0, above 2.0, a string
  // strtod reads in part), and each further value beside an unset and an in-range other variable,
  // both ways round: 69 children, each about 0.65 s of CPU (a full 12 x 12 grid took 77 s).
  using V = std::optional<std::string>;
  const std::vector<V> core = {std::nullopt, "-0.1", "0.0", "0.5", "2.0", "2.5", "0.8abc"};
  const std::vector<V> more = {"1.4", "2.0000001", "abc", "", "nan"};
  std::vector<std::pair<V, V>> pairs;
  for (const auto& high : core)
    for (const auto& low : core) pairs.emplace_back(high, low);
  for (const auto& v : more)
    for (const V& other : {V{}, V{"0.5"}}) {
      pairs.emplace_back(v, other);
      pairs.emplace_back(other, v);
    }
  // The children run four at a time; the checks are made here, in order.
  std::vector<std::future<ChildOutcome>> outcomes;
  std::vector<wmb::Cell> cells;
  for (const auto& [high, low] : pairs) {
    wmb::Cell cell;
    cell.label = "grid";
    if (high) cell.env["PYTORCH_MPS_HIGH_WATERMARK_RATIO"] = *high;
    if (low) cell.env["PYTORCH_MPS_LOW_WATERMARK_RATIO"] = *low;
    cells.push_back(cell);
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i >= 4) outcomes[i - 4].wait();
    outcomes.push_back(std::async(std::launch::async, [env = cells[i].env] { return run_model(env); }));
  }
  std::vector<ChildOutcome> got;
  for (auto& f : outcomes) got.push_back(f.get());
  int refused = 0, ran = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& [high, low] = pairs[i];
    std::vector<std::string> warnings;
    wmb::check_cell_env(cells[i], "grid", warnings);
    const auto warned = quoted_refusal(warnings);
    const ChildOutcome& c = got[i];
    const std::string what = "HIGH=" + high.value_or("<unset>") + " LOW=" + low.value_or("<unset>");
    if (c.status == 0) {
      ++ran;
      EXPECT_FALSE(warned) << what << ": the child ran, yet the warning says it will be refused: " << *warned;
      EXPECT_FALSE(c.error) << what;
    } else {
      ++refused;
      EXPECT_EQ(c.status, 3) << what << "\n" << c.out << c.err;
      ASSERT_TRUE(c.error) << what << "\n" << c.out;
      ASSERT_TRUE(warned) << what << ": the child raised \"" << *c.error << "\" with no warning";
      EXPECT_EQ(*warned, *c.error) << what;
    }
  }
  // The grid holds both kinds (a test that cannot fail would not).
  EXPECT_GT(ran, 5);
  EXPECT_GT(refused, 30);

  // PyTorch's own texts for some cells of the grid, pinned from MPSAllocator.mm itself, not from
  // mpsmodel::validate (which both sides above use): init_allocator checks
  // `m_high_watermark_ratio >= 0.0 && <= 2.0` ("invalid high watermark ratio " << ratio), then LOW
  // `>= 0.0 && <= (HIGH == 0.0 ? 2.0 : HIGH)` ("invalid low watermark ratio " << ratio); both read
  // with strtod (a string it cannot read is 0.0), printed as an ostream prints a double (6
  // significant digits: 2.0000001 is "2"). "" is a cell the child runs. Each is a pair of the grid,
  // so its child already ran above.
  const std::vector<std::pair<std::pair<V, V>, std::string>> pinned = {
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
  for (const auto& [pair, want] : pinned) {
    const auto at = std::find(pairs.begin(), pairs.end(), pair);
    const std::string what = "HIGH=" + pair.first.value_or("<unset>") + " LOW=" + pair.second.value_or("<unset>");
    ASSERT_NE(at, pairs.end()) << what << " is pinned but not a cell of the grid";
    EXPECT_EQ(got[static_cast<size_t>(at - pairs.begin())].error.value_or(""), want) << what;
  }
}

TEST(ModelWarningsGrid, HighIsCheckedBeforeLow) {
  wmb::Cell cell{"neg", {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "-0.1"}}, "", std::nullopt};
  std::vector<std::string> w;
  wmb::check_cell_env(cell, "neg", w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("(\"invalid high watermark ratio -0.1\")"), std::string::npos) << w[0];
  EXPECT_EQ(w[0].find("low watermark"), std::string::npos) << w[0];
  EXPECT_EQ(run_model(cell.env).error.value_or(""), "invalid high watermark ratio -0.1");
}
