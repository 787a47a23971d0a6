#include "check/check_tune.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "io/files.h"
#include "io/json_input.h"
#include "io/terminal_text.h"
#include "io/utf8.h"
#include "results/report.h"
#include "tune/tune.h"

namespace wmb {
namespace {

std::string shown(const nlohmann::json& v) { return escape_controls_line(json_preview(v, 160)); }

bool same_ratio(const nlohmann::json& v, std::optional<double> want) {
  if (!want) return v.is_null();
  return v.is_number() && std::fabs(v.get<double>() - *want) < 5e-7;
}

// Reports a problem of tune.json's key: "<src>: \"<key>\" <msg>".
struct TuneProblem {
  const std::string& src;
  std::vector<std::string>& problems;
  void operator()(const std::string& key, const std::string& msg) const {
    problems.push_back(fmt::format("{}: \"{}\" {}", src, key, msg));
  }
};

// A search that did not record its end: no answer or export may be said; a note where its records give one.
void check_unended_search(const nlohmann::json& j, const TuneStep& step, const std::string& src, const TuneProblem& problem,
                          std::vector<std::string>& notes) {
  // A search stopped before its end (interrupted, a run not recorded): no answer may be said.
  if (j.contains("answer") && !j["answer"].is_null())
    problem("answer", fmt::format("is {} but \"outcome\" is null (the search did not end)", shown(j["answer"])));
  if (j.contains("export") && !j["export"].is_null())
    problem("export", fmt::format("is {} but the search did not end, so there is no line to export", shown(j["export"])));
  if (step.done)
    notes.push_back(fmt::format("{}: the search did not record its end, but its records give one ({}); `wmbench tune "
                                "--resume` finishes it",
                                src, tune_outcome_name(step.outcome)));
}

// The outcome tune.json says against the one the folder's records give (or their next probe).
void check_said_outcome(const std::string& said_outcome, const TuneStep& step, const TuneProblem& problem) {
  if (!step.done) {
    problem("outcome", fmt::format("is \"{}\" but the folder's records have not ended the search (the next probe is "
                                   "HIGH {})",
                                   escape_controls_line(utf8_sanitize(said_outcome, 40)), ratio_text(step.high)));
  } else if (said_outcome != tune_outcome_name(step.outcome)) {
    problem("outcome", fmt::format("is \"{}\" but the folder's records give \"{}\"", escape_controls_line(utf8_sanitize(said_outcome, 40)),
                                   tune_outcome_name(step.outcome)));
  }
}

// An ended search's "answer" and "lowest_unclean" against what the folder's records give.
void check_answer(const nlohmann::json& j, const TunePolicy& p, const TuneStep& step, const TuneProblem& problem) {
  const nlohmann::json answer = j.value("answer", nlohmann::json());
  const std::optional<double> want_low =
      step.answer ? std::optional<double>(tune_low(p, *step.answer)) : std::nullopt;
  if (!(answer.is_null() ? !step.answer
                         : answer.is_object() && same_ratio(answer.value("high", nlohmann::json()), step.answer) &&
                               same_ratio(answer.value("low", nlohmann::json()), want_low)))
    problem("answer", fmt::format("is {} but the folder's records give {}", shown(answer),
                                  step.answer ? fmt::format("HIGH {} LOW {}", ratio_text(*step.answer), ratio_text(*want_low))
                                              : std::string("no answer")));
  if (!same_ratio(j.value("lowest_unclean", nlohmann::json()), step.lowest_unclean))
    problem("lowest_unclean", fmt::format("is {} but the folder's records give {}", shown(j.value("lowest_unclean", nlohmann::json())),
                                          step.lowest_unclean ? ratio_text(*step.lowest_unclean) : std::string("none")));
}

// The export line: exactly what the answer's ratios give (a copy-paste line a reader trusts).
void check_export_line(const nlohmann::json& j, const TuneSummary& sum, const TuneProblem& problem) {
  const std::string line = tune_export_line(sum);
  const nlohmann::json exp = j.value("export", nlohmann::json());
  const bool ok = line.empty() ? exp.is_null() : exp.is_string() && exp.get<std::string>() == line;
  if (!ok)
    problem("export", fmt::format("is {}; the answer's ratios give {}", shown(exp),
                                  line.empty() ? std::string("no line (null)") : "\"" + line + "\""));
}

// The probes it lists: one per record of the search, in order (`want`: sum.probes, non-const as before).
void check_probes(const nlohmann::json& j, std::vector<nlohmann::json>& want, const TuneProblem& problem) {
  const nlohmann::json probes = j.value("probes", nlohmann::json());
  if (!probes.is_array()) {
    problem("probes", fmt::format("is {}; expected the list of the search's runs", shown(probes)));
  } else if (probes.size() != want.size()) {
    problem("probes", fmt::format("lists {} probes; the folder's records hold {}", probes.size(), want.size()));
  } else {
    // Every key the site draws (held, the limit, swap growth, the detail), not only the verdict's.
    for (size_t i = 0; i < probes.size(); ++i)
      for (auto it = want[i].begin(); it != want[i].end(); ++it)
        if (const std::string& k = it.key(); !probes[i].is_object() || probes[i].value(k, nlohmann::json()) != *it) {
          problem(fmt::format("probes[{}].{}", i, k),
                  fmt::format("is {} but runs/ give {}", probes[i].is_object() ? shown(probes[i].value(k, nlohmann::json())) : shown(probes[i]),
                              shown(want[i][k])));
          break;
        }
  }
}

// `said` against what the records give: the same words, or (a folder an earlier wmbench wrote, whose
// wording of the free memory differed) the same verdict before the first ':' or '.' and the same
// export line after the newline. The verdict and the export line are what README and the site show.
bool said_matches(const std::string& said, const std::string& want) {
  if (said == want) return true;
  const size_t v = want.find_first_of(":.");
  const size_t nl = want.find('\n'), snl = said.find('\n');
  const bool same_verdict = v != std::string::npos && said.compare(0, v + 1, want, 0, v + 1) == 0;
  const bool same_export = nl == std::string::npos ? snl == std::string::npos
                                                   : snl != std::string::npos && said.substr(snl) == want.substr(nl);
  return same_verdict && same_export;
}

// What it says in words is shown (README, publish): exactly what the search's end gives for the
// free memory and sandbox tune.json records.
void check_said_text(const nlohmann::json& j, TuneSummary& sum, const TuneProblem& problem) {
  const nlohmann::json free = j.value("free_bytes_at_start", nlohmann::json());
  const nlohmann::json sandbox = j.value("sandbox_bytes", nlohmann::json());
  if (!free.is_number_unsigned()) {
    problem("free_bytes_at_start", fmt::format("is {}; expected a byte count", shown(free)));
    return;
  }
  if (!sandbox.is_null() && !sandbox.is_number_unsigned()) {
    problem("sandbox_bytes", fmt::format("is {}; expected a byte count or null", shown(sandbox)));
    return;
  }
  sum.free_bytes_at_start = free.get<uint64_t>();
  if (sandbox.is_number_unsigned()) sum.sandbox_bytes = sandbox.get<uint64_t>();
  const std::string want = tune_answer_text(sum);
  const nlohmann::json said = j.value("said", nlohmann::json());
  // "" is what tune.json holds between probes (a session killed before its end wrote no words).
  const bool unsaid = !sum.end && said == "";
  if (!unsaid && (!said.is_string() || !said_matches(said.get<std::string>(), want)))
    problem("said", fmt::format("is {} but the folder's records give \"{}\"", shown(said), escape_controls_line(want)));
  const nlohmann::json most = j.value("max_settings", nlohmann::json());
  if (most != nlohmann::json(max_tune_settings(sum.policy)))
    problem("max_settings", fmt::format("is {} but the policy gives {}", shown(most), max_tune_settings(sum.policy)));
}

// A key tune.json does not have (tune_report.cpp's tune_json): noted, not silently passed.
void note_unknown_keys(const nlohmann::json& j, const std::string& src, std::vector<std::string>& notes) {
  static const std::set<std::string> known = {
      "schema_version", "outcome", "answer", "lowest_unclean", "export", "said", "resolution", "tolerance_bytes",
      "bracket", "repeat", "low_factor", "max_settings", "free_bytes_at_start", "sandbox_bytes", "probes"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key()))
      notes.push_back(fmt::format("{}: key \"{}\" is not one wmbench tune writes; no reader uses it", src,
                                  escape_controls_line(utf8_sanitize(it.key(), 64))));
}

// What it says in words is shown to users: no control characters.
void check_said(const nlohmann::json& j, const TuneProblem& problem) {
  if (j.contains("said") && j["said"].is_string() && escape_controls_line(j["said"].get<std::string>()) != j["said"].get<std::string>()) {
    // Newlines are the sentence's own (the export line on its own line); any other control is not.
    std::string s = j["said"].get<std::string>();
    for (auto& ch : s)
      if (ch == '\n') ch = ' ';
    if (escape_controls_line(s) != s) problem("said", "holds control characters (escape sequences)");
  }
}

}  // namespace

void check_tune_json(const Folder& f, const Report& rep, std::vector<std::string>& problems, std::vector<std::string>& notes) {
  if (!f.exists("tune.json")) return;
  const std::string src = f.display("tune.json");
  const TuneProblem problem{src, problems};
  nlohmann::json j;
  TunePolicy p;
  try {
    j = f.read_json("tune.json", kMaxFolderJsonBytes);
    p = tune_policy_from_json(j, src);  // `tune --resume` refuses what this refuses
  } catch (const FileError& e) {
    problems.push_back(std::string(e.what()) + "; `tune --resume` refuses it");
    return;
  }
  // The search re-run on the folder's own records.
  TuneSummary sum;
  sum.policy = p;
  const std::vector<TuneRun> runs = tune_runs_of(rep, p, sum.probes);
  const TuneStep step = next_tune_step(p, runs);
  const nlohmann::json outcome = j.value("outcome", nlohmann::json());
  if (!outcome.is_null() && !outcome.is_string()) {
    problem("outcome", fmt::format("is {}; expected a word or null", shown(outcome)));
    return;
  }
  if (step.done) sum.end = step;
  if (outcome.is_null()) {
    check_unended_search(j, step, src, problem, notes);
    sum.end.reset();
  } else {
    const std::string said_outcome = outcome.get<std::string>();
    check_said_outcome(said_outcome, step, problem);
    if (step.done) check_answer(j, p, step, problem);
  }
  check_export_line(j, sum, problem);
  check_probes(j, sum.probes, problem);
  check_said(j, problem);
  check_said_text(j, sum, problem);
  note_unknown_keys(j, src, notes);
}

}  // namespace wmb
