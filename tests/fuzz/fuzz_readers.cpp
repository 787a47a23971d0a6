// libFuzzer target: the readers issues 22 and 23 added, on text someone else wrote. The first byte
// of the input picks the reader; the rest is its text:
//   0  a cell's environment (common/env_allowlist.h): a JSON object of NAME: "value", through the
//      scenario schema's string map, then the allowlist;
//   1  machine.json through the folder schema, then what README.md reads of it (machine_vm_note);
//   2  tune.json (tune/tune_report.cpp tune_policy_from_json, for `tune --resume`);
//   3  a pasted error message (errparse/pasted_input.cpp, `explain FILE`, `predict --from-error FILE`),
//      from a file, then the error parser and the explanation;
//   4  summary.json verified against a folder's run files (readback/verify_runs.h), as compare
//      and history read it; byte 1 picks whether the text is the summary or the run file.
//
// Checked: only the reader's own error type escapes (FileError, CompareError), its message UTF-8;
// no crash or UB; what a reader accepts is what its writer or its next reader accepts too
// (an allowed name is a PYTORCH_* one; an accepted tune policy has no problem and a bounded number
// of settings; a pasted text read back is the file's bytes, within kMaxPastedTextBytes; a summary
// verified against the run files holds exactly their records).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "errparse/pasted_input.h"
#include "common/env_allowlist.h"
#include "io/files.h"
#include "io/json_input.h"
#include "host/machine_json.h"
#include "io/utf8.h"
#include "compare/compare.h"
#include "readback/verify_runs.h"
#include "errparse/error_parser.h"
#include "explain/explain.h"
#include "fuzz_common.h"
#include "results/folder_schema.h"
#include "results/report.h"
#include "tune/tune.h"
#include "tune/tune_policy.h"

namespace {

static constexpr const char* kFuzzTarget = "fuzz_readers";

// One temp folder for the whole process: a result folder with one run file, and a file for the
// pasted text. Removed at exit.
struct Scratch {
  std::string dir, pasted;
  Scratch() {
    char t[] = "/tmp/wmbench-fuzz-readers-XXXXXX";
    dir = ::mkdtemp(t);
    wmb::make_dirs(dir + "/runs");
    pasted = dir + "/pasted.txt";
  }
  ~Scratch() {
    for (const char* f : {"/runs/01-a.json", "/summary.json", "/pasted.txt"}) ::unlink((dir + f).c_str());
    ::rmdir((dir + "/runs").c_str());
    ::rmdir(dir.c_str());
  }
};
Scratch& scratch() {
  static Scratch s;
  return s;
}

void put(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) std::abort();
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) std::abort();
    text.remove_prefix(static_cast<size_t>(n));
  }
  ::close(fd);
}

nlohmann::json a_record() {
  wmb::RunRecord r;
  r.index = 1;
  r.label = "a";
  r.device = "cpu";
  r.stopped_by = "cap";
  r.held_bytes = 1 << 20;
  return wmb::to_json(r);
}

void env(const std::string& text, std::string_view in) {
  const nlohmann::json j = wmb::parse_json_text(text, "scenario.json", wmb::kMaxScenarioBytes);
  const nlohmann::json cell = {{"env", j}};  // JsonObject keeps a pointer: never to a temporary
  wmb::JsonObject o(cell, "scenario.json");
  const auto m = o.string_map("env");
  if (!m) return;
  const std::set<std::string> extra = {"MY_TOOL"};
  const auto bad = wmb::disallowed_env(*m, extra);
  for (const auto& [k, v] : *m) {
    const bool allowed = wmb::cell_env_allowed(k, extra);
    const bool listed = std::find(bad.begin(), bad.end(), k) != bad.end();
    FUZZ_CHECK(allowed != listed, in, "cell_env_allowed and disallowed_env disagree on " + k);
    FUZZ_CHECK(!allowed || k.rfind("PYTORCH_", 0) == 0 || k == "MY_TOOL", in, "an allowed name that is not PYTORCH_*: " + k);
  }
  FUZZ_CHECK(std::is_sorted(bad.begin(), bad.end()), in, "disallowed_env is not sorted");
  FUZZ_CHECK(wmb::utf8_valid(wmb::allowed_env_text()), in, "allowed_env_text is not UTF-8");
}

void machine(const std::string& text, std::string_view in) {
  const nlohmann::json j = wmb::parse_json_text(text, "machine.json", wmb::kMaxFolderJsonBytes);
  wmb::check_machine_json(j, "machine.json");
  std::string note;
  try {
    note = wmb::machine_vm_note(j);
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "machine_vm_note on a schema-accepted machine.json", in);
  }
  FUZZ_CHECK(wmb::utf8_valid(note), in, "machine_vm_note is not UTF-8");
}

void tune(const std::string& text, std::string_view in) {
  const nlohmann::json j = wmb::parse_json_text(text, "tune.json", wmb::kMaxFolderJsonBytes);
  const wmb::TunePolicy p = wmb::tune_policy_from_json(j, "tune.json");
  FUZZ_CHECK(wmb::tune_policy_problem(p).empty(), in, "an accepted tune.json's policy has a problem");
  const int n = wmb::max_tune_settings(p);
  FUZZ_CHECK(n >= 1 && n <= 10000, in, "an accepted policy's number of settings is " + std::to_string(n));
  // --resume's first step on no runs: a setting within the bracket.
  const wmb::TuneStep step = wmb::next_tune_step(p, {});
  (void)step;
}

void pasted(const std::string& text, std::string_view in) {
  put(scratch().pasted, text);
  std::string out;
  // Its messages go to stderr (libFuzzer's output; not checked here).
  const bool ok = wmb::read_pasted_input("fuzz", scratch().pasted, out);
  if (!ok) return;
  FUZZ_CHECK(out == text, in, "the pasted text read back is not the file's bytes");
  FUZZ_CHECK(out.size() <= wmb::kMaxPastedTextBytes, in, "the pasted text is over its bound");
  const wmb::ParsedError e = wmb::parse_error(out);
  const std::string said = wmb::explain_text(e);
  FUZZ_CHECK(wmb::utf8_valid(said), in, "explain_text is not UTF-8");
  (void)wmb::explain_json(e).dump();
}

void verify(const std::string& text, bool text_is_run_file, std::string_view in) {
  const std::string& d = scratch().dir;
  const nlohmann::json rec = a_record();
  nlohmann::json summary = {{"schema_version", 1}, {"runs", nlohmann::json::array({rec})}, {"not_run", nlohmann::json::array()}};
  if (text_is_run_file) {
    put(d + "/runs/01-a.json", text);
  } else {
    put(d + "/runs/01-a.json", rec.dump(2));
    summary = wmb::parse_json_text(text, d + "/summary.json", wmb::kMaxFolderJsonBytes);
  }
  try {
    wmb::compare::verify_summary_against_runs(d, summary);
  } catch (const wmb::compare::CompareError& e) {
    FUZZ_CHECK(wmb::utf8_valid(e.what()), in, "a CompareError that is not UTF-8");
    return;
  }
  // Accepted: the summary's runs are the folder's records, key by key.
  const wmb::Report rep = wmb::load_report(d);
  FUZZ_CHECK(rep.problems.empty(), in, "verify accepted a folder whose run files have problems");
  if (!summary.contains("runs") || !summary["runs"].is_array()) return;
  for (const auto& r : rep.runs) {
    bool found = false;
    for (const auto& s : summary["runs"])
      found = found || (s.is_object() && s.value("label", nlohmann::json()) == r.label);
    FUZZ_CHECK(found, in, "verify accepted a summary that lacks run " + r.file_stem());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int which = data[0] % 5;
  const bool flag = data[1] & 1;
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  const std::string_view in(text);
  try {
    switch (which) {
      case 0: env(text, in); break;
      case 1: machine(text, in); break;
      case 2: tune(text, in); break;
      case 3: pasted(text, in); break;
      default: verify(text, flag, in); break;
    }
  } catch (const wmb::FileError& e) {
    FUZZ_CHECK(wmb::utf8_valid(e.what()), in, std::string("an error message that is not UTF-8: ") + e.what());
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "a reader (only FileError or CompareError may escape)", in);
  }
  return 0;
}
