// The scenario's warnings (scenario/scenario.cpp check_cell_env) against what the model child
// (wmbench-fill --device mps-model) actually raises, over a grid of HIGH/LOW pairs: negatives,
// 0.0, 2.0, above 2.0, NaN, and strings strtod reads only in part. PyTorch checks HIGH first
// (pytorch/pytorch aten/src/ATen/mps/MPSAllocator.mm init_allocator: setHighWatermarkRatio, then
// setLowWatermarkRatio), so a warning must quote exactly the error the child gives, and a setting
// the child runs must not be warned about as refused.
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
  int refused = 0, ran = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& [high, low] = pairs[i];
    std::vector<std::string> warnings;
    wmb::check_cell_env(cells[i], "grid", warnings);
    const auto warned = quoted_refusal(warnings);
    const ChildOutcome c = outcomes[i].get();
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

TEST(ModelWarningsGrid, PyTorchsOwnTextsForSomeCells) {
  // Pinned from MPSAllocator.mm itself, not from mpsmodel::validate (which both the grid's sides
  // use): init_allocator checks `m_high_watermark_ratio >= 0.0 && <= 2.0` ("invalid high watermark
  // ratio " << ratio), then LOW `>= 0.0 && <= (HIGH == 0.0 ? 2.0 : HIGH)` ("invalid low watermark
  // ratio " << ratio); both read with strtod (a string it cannot read is 0.0), printed as an
  // ostream prints a double (6 significant digits: 2.0000001 is "2").
  using Env = std::map<std::string, std::string>;
  const std::string H = "PYTORCH_MPS_HIGH_WATERMARK_RATIO", L = "PYTORCH_MPS_LOW_WATERMARK_RATIO";
  const std::vector<std::pair<Env, std::string>> cases = {
      {{}, ""},
      {{{H, "-0.1"}, {L, "2.5"}}, "invalid high watermark ratio -0.1"},
      {{{H, "2.5"}}, "invalid high watermark ratio 2.5"},
      {{{H, "2.0000001"}}, "invalid high watermark ratio 2"},
      {{{H, "nan"}}, "invalid high watermark ratio nan"},
      {{{H, "0.5"}}, "invalid low watermark ratio 1.4"},
      {{{H, "0.0"}, {L, "2.5"}}, "invalid low watermark ratio 2.5"},
      {{{H, "0.0"}, {L, "2.0"}}, ""},
      {{{H, "0.8abc"}, {L, "0.8abc"}}, ""},
      {{{H, "abc"}}, ""},
      {{{H, "0.5"}, {L, ""}}, ""},
  };
  for (const auto& [env, want] : cases) {
    const ChildOutcome got = run_model(env);
    std::string where;
    for (const auto& [k, v] : env) where += k + "=\"" + v + "\" ";
    EXPECT_EQ(got.error.value_or(""), want) << where;
  }
}
