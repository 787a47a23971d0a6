#include "scenario/scenario.h"

#include "io/text_table.h"
#include "io/files.h"
#include "io/json_input.h"
#include "common/units.h"
#include "io/utf8.h"
#include "mpsmodel/memory_fraction.h"
#include "mpsmodel/watermark.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/env_allowlist.h"
#include "common/limits.h"

namespace wmb {

const std::vector<std::string> kDevices = {"mps", "cuda", "cpu", "mps-model"};

namespace {

const std::vector<std::string> kTopKeys = {"name",    "description", "device", "step",  "min_steps",
                                           "data",    "cap",         "timeout", "repeats", "guard", "step_delay",
                                           "program", "offload_size", "command", "matrix", "$comment",
                                           "resolved", "source"};  // the last two: written by wmbench into scenario.json
const std::vector<std::string> kGuardKeys = {"swap_budget", "wait_free", "kill_free", "interval",
                                             "check_interval", "wait_free_timeout", "grace", "pressure",
                                             "pressure_stall", "compressor_budget", "wired_budget"};
const std::vector<std::string> kCellKeys = {"label", "env", "data", "memory_fraction", "sysctl", "$comment"};
const std::vector<std::string> kData = {"random", "ones", "zeros"};
const std::vector<std::string> kPrograms = {"fill", "offload", "command"};

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

class Validator {
 public:
  explicit Validator(std::string source) : src_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw ScenarioError(fmt::format("{}: key \"{}\": {}", src_, key, msg));
  }

  // Never recurses deeper than a few levels, whatever the value (json_preview).
  static std::string show(const nlohmann::json& v) { return json_preview(v, 80); }

  void check_keys(const nlohmann::json& obj, const std::vector<std::string>& allowed, const std::string& where) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      std::string hint = did_you_mean(it.key(), allowed);
      const std::string shown = utf8_sanitize(it.key(), 64);
      const std::string key = where.empty() ? shown : where + "." + shown;
      fail(key, fmt::format("unknown key{}; allowed keys: {}",
                            hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint), join(allowed)));
    }
  }

  std::string str(const nlohmann::json& obj, const std::string& key, const std::string& path, bool required) const {
    if (!obj.contains(key)) {
      if (required) fail(path, "missing; it is required");
      return "";
    }
    const auto& v = obj.at(key);
    if (!v.is_string()) fail(path, fmt::format("value {} is a {}; expected a string", show(v), v.type_name()));
    return v.get<std::string>();
  }

  std::string choice(const nlohmann::json& obj, const std::string& key, const std::string& path,
                     const std::vector<std::string>& allowed, const std::string& dflt) const {
    if (!obj.contains(key)) return dflt;
    std::string s = str(obj, key, path, true);
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
      std::string hint = did_you_mean(s, allowed);
      fail(path, fmt::format("value \"{}\" is not allowed{}; allowed: {}", utf8_sanitize(s, 64),
                             hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint), join(allowed)));
    }
    return s;
  }

  SizeExpr size(const nlohmann::json& v, const std::string& path) const {
    if (!v.is_string())
      fail(path, fmt::format("value {} is a {}; expected a size string such as \"512MiB\", \"2GiB\" or \"95%RAM\"",
                             show(v), v.type_name()));
    try {
      return parse_size_expr(v.get<std::string>());
    } catch (const UnitError& e) {
      fail(path, e.what());
    }
  }

  double duration(const nlohmann::json& v, const std::string& path) const {
    if (v.is_number()) {
      double d = v.get<double>();
      if (!(d > 0)) fail(path, fmt::format("value {} must be > 0 seconds", show(v)));
      if (!(d <= 1e9)) fail(path, fmt::format("value {} is too long (over 30 years)", show(v)));
      return d;
    }
    if (!v.is_string()) fail(path, fmt::format("value {} is a {}; expected a duration such as \"30s\" or \"10m\"", show(v), v.type_name()));
    try {
      return parse_duration(v.get<std::string>());
    } catch (const UnitError& e) {
      fail(path, e.what());
    }
  }

  double interval(const nlohmann::json& v, const std::string& path) const {
    const double d = duration(v, path);
    try {
      return check_interval(d, "the interval");
    } catch (const UnitError& e) {
      fail(path, e.what());
    }
  }

  double percent(const nlohmann::json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, fmt::format("value {} is a {}; expected a number of percent from 0 to 100", show(v), v.type_name()));
    double d = v.get<double>();
    if (!(d >= 0 && d <= 100)) fail(path, fmt::format("value {} is outside 0..100 (percent)", show(v)));
    return d;
  }

  int integer(const nlohmann::json& v, const std::string& path, int lo, int hi) const {
    if (!v.is_number_integer())
      fail(path, fmt::format("value {} is a {}; expected a whole number from {} to {}", show(v), v.type_name(), lo, hi));
    auto i = v.get<int64_t>();
    if (i < lo || i > hi) fail(path, fmt::format("value {} is outside {}..{}", i, lo, hi));
    return static_cast<int>(i);
  }

 private:
  std::string src_;
};

// "command": [argv...] of program "command": strings, the first the program, none with a NUL
// byte (exec would cut it there), at most 4096 of at most 64 KiB each.
std::vector<std::string> command_argv(const Validator& val, const nlohmann::json& v) {
  if (!v.is_array() || v.empty())
    val.fail("command", fmt::format("value {} is a {}; expected a list of strings, the program first, e.g. [\"python3\", \"train.py\"]",
                                    Validator::show(v), v.is_array() ? "empty list" : v.type_name()));
  if (v.size() > 4096) val.fail("command", fmt::format("has {} arguments; at most 4096", v.size()));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = fmt::format("command[{}]", i);
    if (!v[i].is_string()) val.fail(where, fmt::format("value {} is a {}; expected a string", Validator::show(v[i]), v[i].type_name()));
    std::string a = v[i].get<std::string>();
    if (a.find('\0') != std::string::npos) val.fail(where, "holds a NUL byte, which no program can be given");
    if (a.size() > 65536) val.fail(where, fmt::format("is {} bytes long; at most 65536", a.size()));
    if (i == 0 && a.empty()) val.fail(where, "is empty; the first entry is the program to run");
    out.push_back(std::move(a));
  }
  return out;
}

bool is_ratio_var(const std::string& k) {
  return k == "PYTORCH_MPS_HIGH_WATERMARK_RATIO" || k == "PYTORCH_MPS_LOW_WATERMARK_RATIO";
}

// The top-level keys other than "guard" and "matrix", validated into `s` in parse_scenario's order.
void parse_top_keys(const Validator& val, const nlohmann::json& j, Scenario& s) {
  s.name = val.str(j, "name", "name", true);
  if (auto p = label_problem(s.name); !p.empty())
    val.fail("name", fmt::format("value \"{}\" {}; names become folder names: use letters, digits, '.', '_', '-', '+'", utf8_sanitize(s.name, 80), p));
  s.description = val.str(j, "description", "description", false);
  if (!j.contains("device")) val.fail("device", fmt::format("missing; it is required (one of {})", join(kDevices)));
  s.device = val.choice(j, "device", "device", kDevices, "");
  s.data = val.choice(j, "data", "data", kData, "random");
  s.program = val.choice(j, "program", "program", kPrograms, "fill");
  if (j.contains("step")) s.step = val.size(j["step"], "step");
  if (j.contains("min_steps")) s.min_steps = val.integer(j["min_steps"], "min_steps", 0, 100000);
  if (j.contains("cap") && !j["cap"].is_null()) s.cap = val.size(j["cap"], "cap");
  if (j.contains("offload_size")) s.offload_size = val.size(j["offload_size"], "offload_size");
  if (j.contains("command")) s.command = command_argv(val, j["command"]);
  if (s.program == "command" && s.command.empty())
    val.fail("command", "missing; program \"command\" needs it: the job's argv, e.g. [\"python3\", \"train.py\"]");
  if (s.program != "command" && !s.command.empty())
    val.fail("command", fmt::format("is given, but program is \"{}\"; set \"program\": \"command\"", s.program));
  if (s.program == "offload" && !s.offload_size) val.fail("offload_size", "missing; program \"offload\" needs it (e.g. \"4GiB\")");
  if (j.contains("timeout")) s.timeout = val.duration(j["timeout"], "timeout");
  if (j.contains("step_delay")) s.step_delay = val.duration(j["step_delay"], "step_delay");
  if (j.contains("repeats")) s.repeats = val.integer(j["repeats"], "repeats", 1, kMaxRepeats);
}

// "guard": an object of kGuardKeys, each validated into `guard` in turn.
void parse_guard(const Validator& val, const nlohmann::json& g, GuardSettings& guard) {
  if (!g.is_object()) val.fail("guard", fmt::format("value {} is a {}; expected an object", Validator::show(g), g.type_name()));
  val.check_keys(g, kGuardKeys, "guard");
  if (g.contains("swap_budget")) guard.swap_budget = val.size(g["swap_budget"], "guard.swap_budget");
  if (g.contains("wait_free")) guard.wait_free = val.percent(g["wait_free"], "guard.wait_free");
  if (g.contains("kill_free")) guard.kill_free = val.percent(g["kill_free"], "guard.kill_free");
  if (g.contains("interval")) guard.interval = val.interval(g["interval"], "guard.interval");
  if (g.contains("check_interval")) guard.check_interval = val.interval(g["check_interval"], "guard.check_interval");
  if (g.contains("wait_free_timeout")) guard.wait_free_timeout = val.duration(g["wait_free_timeout"], "guard.wait_free_timeout");
  if (g.contains("grace")) guard.grace = val.duration(g["grace"], "guard.grace");
  guard.pressure = val.choice(g, "pressure", "guard.pressure", {"critical", "warn", "off"}, guard.pressure);
  if (g.contains("pressure_stall")) guard.pressure_stall = val.percent(g["pressure_stall"], "guard.pressure_stall");
  // A budget is a size ("2GiB", "25%RAM") or "off".
  const auto budget = [&](const char* key, std::optional<SizeExpr>& out) {
    if (!g.contains(key)) return;
    const auto& v = g[key];
    out = v.is_string() && v.get<std::string>() == "off" ? std::nullopt
                                                         : std::optional<SizeExpr>(val.size(v, std::string("guard.") + key));
  };
  budget("compressor_budget", guard.compressor_budget);
  budget("wired_budget", guard.wired_budget);
}

// A cell's "memory_fraction" (value `f`, key `path`): a finite number within check_memory_fraction's bounds.
double cell_memory_fraction(const Validator& val, const nlohmann::json& f, const std::string& path) {
  if (!f.is_number() || !std::isfinite(f.get<double>()))
    val.fail(path,
             fmt::format("value {} is a {}; expected a number such as 0.8 (torch.mps/torch.cuda "
                         "set_per_process_memory_fraction)",
                         Validator::show(f), f.type_name()));
  try {
    return check_memory_fraction(f.get<double>(), "value");
  } catch (const UnitError& e) {
    val.fail(path, e.what());
  }
}

// A cell's "env" (value `e`): valid variable names to string values, copied into `env`.
void parse_cell_env(const Validator& val, const nlohmann::json& e, const std::string& where,
                    std::map<std::string, std::string>& env) {
  if (!e.is_object()) val.fail(where + ".env", fmt::format("value {} is a {}; expected an object of variable: \"value\"", Validator::show(e), e.type_name()));
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string kp = where + ".env." + utf8_sanitize(it.key(), 64);
    if (it.key().empty() || it.key().find('=') != std::string::npos || it.key().find('\0') != std::string::npos)
      val.fail(kp, "is not a valid environment variable name");
    if (it.value().is_string() && it.value().get_ref<const std::string&>().find('\0') != std::string::npos)
      val.fail(kp, "value holds a NUL byte (\\u0000); an environment value cannot");
    if (it.value().is_string() && it.value().get_ref<const std::string&>().size() > kMaxCellEnvValueBytes)
      val.fail(kp, fmt::format("value is {} bytes; an environment value may hold at most {} bytes (the OS refuses a "
                               "longer one when the child starts: E2BIG, Linux's limit is 128 KiB per string)",
                               it.value().get_ref<const std::string&>().size(), kMaxCellEnvValueBytes));
    if (!it.value().is_string())
      val.fail(kp, fmt::format("value {} is a {}; environment values are strings, passed verbatim (write \"0.8\", not 0.8)",
                               Validator::show(it.value()), it.value().type_name()));
    env[it.key()] = it.value().get<std::string>();
  }
}

// A cell's "sysctl" (value `s`): an object of exactly one key, iogpu.wired_limit_mb
// (scenario/wired_limit.h); any other name, a second key or a hostile value is refused naming it.
WiredLimit parse_cell_sysctl(const Validator& val, const nlohmann::json& s, const std::string& where) {
  const std::string path = where + ".sysctl";
  const std::string allowed = fmt::format("allowed: {{\"{}\": N}}, this key alone", kWiredLimitKey);
  if (!s.is_object() || s.size() != 1)
    val.fail(path, fmt::format("value {} is not allowed; {}", Validator::show(s), allowed));
  if (s.begin().key() != kWiredLimitKey)
    val.fail(path + "." + utf8_sanitize(s.begin().key(), 64),
             fmt::format("is not a sysctl wmbench sets; {}", allowed));
  try {
    return wired_limit_from_json(s.begin().value());
  } catch (const UnitError& e) {
    val.fail(path + "." + kWiredLimitKey, e.what());
  }
}

// One matrix cell `c` at `where`: its keys, a valid label not yet in `seen`, then data, memory_fraction, env.
Cell parse_cell(const Validator& val, const nlohmann::json& c, const std::string& where, std::set<std::string>& seen) {
  if (!c.is_object()) val.fail(where, fmt::format("value {} is a {}; expected {{\"label\": ..., \"env\": {{...}}}}", Validator::show(c), c.type_name()));
  val.check_keys(c, kCellKeys, where);
  Cell cell;
  cell.label = val.str(c, "label", where + ".label", true);
  if (auto p = label_problem(cell.label); !p.empty())
    val.fail(where + ".label", fmt::format("value \"{}\" {}; labels become file names: use 1-64 letters, digits, '.', '_', '-', '+'", utf8_sanitize(cell.label, 80), p));
  if (!seen.insert(cell.label).second) val.fail(where + ".label", fmt::format("value \"{}\" is a duplicate; labels must be unique", cell.label));
  if (c.contains("data")) cell.data = val.choice(c, "data", where + ".data", kData, "");
  if (c.contains("memory_fraction")) cell.memory_fraction = cell_memory_fraction(val, c["memory_fraction"], where + ".memory_fraction");
  if (c.contains("env")) parse_cell_env(val, c["env"], where, cell.env);
  if (c.contains("sysctl")) cell.wired_limit = parse_cell_sysctl(val, c["sysctl"], where);
  return cell;
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 4;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string label_problem(const std::string& label) {
  if (label.empty()) return "is empty";
  if (label.size() > 64) return "is longer than 64 characters";
  if (label == "." || label == "..") return "is \".\" or \"..\"";
  for (unsigned char c : label) {
    if (c == '/' || c == '\\') return "contains a path separator";
    if (c < 0x20 || c == 0x7f) return "contains a control character";
    // A byte of a multi-byte character is never quoted alone: the message stays UTF-8 (a
    // fuzz_folder finding: "mps\xd6\x88atermark" gave "contains '\xd6'").
    if (c >= 0x80) return "contains a non-ASCII character";
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+'))
      return fmt::format("contains '{}'", static_cast<char>(c));
  }
  if (label.find("..") != std::string::npos) return "contains \"..\"";
  return "";
}

void check_cell_env(const Cell& cell, const std::string& where, std::vector<std::string>& warnings,
                    const std::string& device) {
  for (const auto& [k, v] : cell.env) {
    if (!is_ratio_var(k)) continue;
    // PyTorch reads these with strtod and no end-pointer check (MPSAllocator.mm init_allocator:
    // `strtod(high_watermark_ratio_str, nullptr)`): the leading number counts, and text with no
    // leading number reads as 0.0.
    const char* s = v.c_str();
    char* end = nullptr;
    const double d = std::strtod(s, &end);
    if (end == s || *end != '\0')
      warnings.push_back(fmt::format("{}: {}=\"{}\" is not a plain number; PyTorch reads it with strtod as {}{}",
                                     where, k, v, mpsmodel::format_ratio(d),
                                     (k.find("HIGH") != std::string::npos && d == 0.0) ? " (no upper limit)" : ""));
  }
  check_cell_config(cell, where, warnings, device);
}

void check_cell_config(const Cell& cell, const std::string& where, std::vector<std::string>& warnings,
                       const std::string& device) {
  if (cell.memory_fraction && (device == "cuda" || device == "cpu")) {
    const double f = *cell.memory_fraction;
    if (device == "cpu")
      warnings.push_back(fmt::format("{}: memory_fraction {} does not apply to device cpu; the fill child refuses it "
                                     "and the run will be recorded as stopped by config",
                                     where, mpsmodel::python_float_repr(f)));
    else if (auto e = mpsmodel::python_cuda_fraction_error(f))
      // torch/cuda/memory.py; the native child's C++ call (c10/cuda/CUDACachingAllocator) asserts
      // "invalid fraction:F. Please set within (0, 1)." instead.
      warnings.push_back(fmt::format("{}: memory_fraction {} is outside 0..1 (CUDA: a fraction of the device's "
                                     "memory); PyTorch will refuse it before the first allocation (\"{}\") and the "
                                     "run will be recorded as stopped by config",
                                     where, mpsmodel::python_float_repr(f), *e));
    return;
  }
  // The model's own check (mpsmodel::validate), so the warning is the error the model child gives:
  // pytorch/pytorch aten/src/ATen/mps/MPSAllocator.mm init_allocator calls setHighWatermarkRatio
  // first (TORCH_CHECK 0.0 <= HIGH <= 2.0, "invalid high watermark ratio <HIGH>") and only then
  // setLowWatermarkRatio (0.0 <= LOW <= HIGH, or 2.0 when HIGH is 0.0). So HIGH = -0.1 is refused
  // for HIGH, whatever LOW is.
  auto cfg = mpsmodel::read_watermark_config_from_map(cell.env);
  cfg.memory_fraction = cell.memory_fraction;
  const auto err = mpsmodel::validate(cfg);
  if (!err) return;
  if (err->rfind("Invalid fraction value", 0) == 0) {
    // torch/mps/__init__.py raises this ValueError before the allocator starts.
    warnings.push_back(fmt::format(
        "{}: memory_fraction {} is outside 0..2; PyTorch will refuse it before the first allocation (\"{}\") and "
        "the run will be recorded as stopped by config",
        where, mpsmodel::python_float_repr(*cell.memory_fraction), *err));
    return;
  }
  const bool high = err->rfind("invalid high", 0) == 0;
  const std::string why =
      high ? fmt::format("HIGH {}{} is outside 0.0..2.0", mpsmodel::format_ratio(cfg.high), cfg.high_set ? "" : " (the default)")
           : fmt::format("LOW {}{} is outside 0.0..{} ({})", mpsmodel::format_ratio(cfg.low),
                         cfg.low_set ? "" : " (the default)",
                         mpsmodel::format_ratio(cfg.high == 0.0 ? mpsmodel::kHighUpperBound : cfg.high),
                         cfg.high == 0.0 ? "2.0 as HIGH is 0.0" : "LOW may not exceed HIGH");
  warnings.push_back(fmt::format(
      "{}: {}; PyTorch will refuse it at the first allocation (\"{}\") and the run will be recorded as stopped by "
      "config",
      where, why, *err));
}

Scenario parse_scenario(const std::string& text, const std::string& source, std::vector<std::string>& warnings) {
  // The bounded loader: size, nesting depth, duplicate keys, UTF-8 (io/json_input.h).
  nlohmann::json j;
  try {
    j = parse_json_text(text, source, kMaxScenarioBytes);
  } catch (const InputError& e) {
    throw ScenarioError(e.what());
  }
  Validator val(source);
  if (!j.is_object()) throw ScenarioError(fmt::format("{}: the scenario must be a JSON object, not {}", source, j.type_name()));
  val.check_keys(j, kTopKeys, "");

  Scenario s;
  s.source = source;
  parse_top_keys(val, j, s);

  if (j.contains("guard")) parse_guard(val, j["guard"], s.guard);

  if (!j.contains("matrix")) val.fail("matrix", "missing; it is required (a list of {\"label\": ..., \"env\": {...}})");
  const auto& m = j["matrix"];
  if (!m.is_array()) val.fail("matrix", fmt::format("value {} is a {}; expected a list of cells", Validator::show(m), m.type_name()));
  if (m.empty()) val.fail("matrix", "is empty; give at least one cell ({\"label\": \"default\", \"env\": {}})");
  std::set<std::string> seen;
  for (size_t i = 0; i < m.size(); ++i) {
    const std::string where = fmt::format("matrix[{}]", i);
    Cell cell = parse_cell(val, m[i], where, seen);
    check_cell_env(cell, fmt::format("{}: {} (\"{}\")", source, where, cell.label), warnings, s.device);
    s.matrix.push_back(std::move(cell));
  }
  try {
    check_plan_size(s.matrix.size(), s.repeats, "matrix x repeats");
  } catch (const UnitError& e) {
    val.fail("repeats", e.what());
  }
  return s;
}

Scenario load_scenario(const std::string& path, std::vector<std::string>& warnings) {
  std::string text;
  try {
    text = read_file(path, kMaxScenarioBytes);
  } catch (const FileError& e) {
    throw ScenarioError(fmt::format("{}: cannot open the scenario file: {}", path, e.what()));
  }
  return parse_scenario(text, path, warnings);
}

nlohmann::json to_json(const Cell& c) {
  nlohmann::json cell = {{"label", c.label}, {"env", c.env}};
  if (!c.data.empty()) cell["data"] = c.data;
  if (c.memory_fraction) cell["memory_fraction"] = *c.memory_fraction;
  if (c.wired_limit) cell["sysctl"] = {{kWiredLimitKey, to_json(*c.wired_limit)}};
  return cell;
}

nlohmann::json to_json(const Scenario& s) {
  nlohmann::json matrix = nlohmann::json::array();
  for (const auto& c : s.matrix) matrix.push_back(to_json(c));
  nlohmann::json j = {
      {"name", s.name},
      {"description", s.description},
      {"device", s.device},
      {"program", s.program},
      {"step", s.step.text},
      {"min_steps", s.min_steps},
      {"data", s.data},
      {"cap", s.cap ? nlohmann::json(s.cap->text) : nlohmann::json(nullptr)},
      {"timeout", s.timeout},
      {"repeats", s.repeats},
      {"guard",
       {{"swap_budget", s.guard.swap_budget.text},
        {"wait_free", s.guard.wait_free},
        {"kill_free", s.guard.kill_free},
        {"interval", s.guard.interval},
        {"check_interval", s.guard.check_interval},
        {"wait_free_timeout", s.guard.wait_free_timeout},
        {"grace", s.guard.grace},
        {"pressure", s.guard.pressure},
        {"pressure_stall", s.guard.pressure_stall},
        {"compressor_budget", s.guard.compressor_budget ? s.guard.compressor_budget->text : std::string("off")},
        {"wired_budget", s.guard.wired_budget ? s.guard.wired_budget->text : std::string("off")}}},
      {"matrix", matrix},
  };
  if (s.offload_size) j["offload_size"] = s.offload_size->text;
  if (!s.command.empty()) j["command"] = s.command;
  if (s.step_delay > 0) j["step_delay"] = s.step_delay;
  return j;
}

}  // namespace wmb
