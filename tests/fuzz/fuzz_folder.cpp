// libFuzzer target: the folder loader (io/json_input.h + results/run_record.h +
// results/folder_schema.h) on the files of a result folder someone else made. The first byte of
// the input picks the file (a run file, machine.json, summary.json, scenario.json); the rest is
// its text.
//
// Checked: only wmb::FileError (InputError) escapes, starting with the file name; no crash or UB
// (100,000-deep nesting included); an accepted run record is a fixed point of to_json/run_from_json
// and its label is a usable file name; an accepted summary renders through every exporter
// (summary.json, table.md, results.csv, README.md) without an exception, and what they write is
// valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/json_input.h"
#include "io/utf8.h"
#include "fuzz_common.h"
#include "results/folder_schema.h"
#include "results/report.h"
#include "scenario/scenario.h"

namespace {

static constexpr const char* kFuzzTarget = "fuzz_folder";

void check_run(const wmb::RunRecord& r, std::string_view in) {
  FUZZ_CHECK(wmb::label_problem(r.label).empty(), in, "an accepted run's label is not a file name: " + r.label);
  const nlohmann::json j = wmb::to_json(r);
  const std::string dumped = j.dump(2, ' ', false, nlohmann::json::error_handler_t::strict);
  wmb::RunRecord again;
  try {
    again = wmb::run_from_json(wmb::parse_json_text(dumped, "again.json", wmb::kMaxFolderJsonBytes), "again.json");
  } catch (const std::exception& e) {
    wmb_fuzz::fail(kFuzzTarget, std::string("to_json of an accepted run does not load again: ") + e.what(), in);
  }
  FUZZ_CHECK(wmb::to_json(again) == j, in, "to_json/run_from_json is not a fixed point: " + dumped);
}

void render_all(const wmb::Report& rep, std::string_view in) {
  for (const auto& e : wmb::all_exporters()) {
    std::string out;
    try {
      out = e->render(rep);
    } catch (...) {
      wmb_fuzz::unexpected_exception(kFuzzTarget, ("exporter " + e->file_name() + " on loader-accepted input").c_str(), in);
    }
    FUZZ_CHECK(wmb::utf8_valid(out), in, e->file_name() + " rendered ill-formed UTF-8");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 4;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string_view in(text);
  static const char* names[] = {"runs/01-x.json", "machine.json", "summary.json", "scenario.json"};
  const std::string source = names[which];
  try {
    if (which == 0) {
      const nlohmann::json j = wmb::parse_json_text(text, source, wmb::kMaxFolderJsonBytes);
      check_run(wmb::run_from_json(j, source), in);
    } else if (which == 1) {
      const nlohmann::json j = wmb::parse_json_text(text, source, wmb::kMaxFolderJsonBytes);
      wmb::check_machine_json(j, source);
      wmb::Report rep;
      rep.machine = j;
      render_all(rep, in);
    } else if (which == 2) {
      const nlohmann::json j = wmb::parse_json_text(text, source, wmb::kMaxFolderJsonBytes);
      wmb::SummaryFile s = wmb::check_summary_json(j, source);
      wmb::Report rep;
      rep.machine = s.machine;
      rep.runs = s.runs;
      for (const auto& r : rep.runs) check_run(r, in);
      render_all(rep, in);
    } else {
      nlohmann::json parsed;
      wmb::Scenario sc = wmb::check_folder_scenario_json(text, source, parsed);
      (void)sc;
      wmb::Report rep;
      rep.scenario = parsed;
      render_all(rep, in);
    }
  } catch (const wmb::FileError& e) {
    FUZZ_CHECK(std::string_view(e.what()).rfind(source, 0) == 0, in,
               std::string("an error that does not start with the file name: ") + e.what());
    FUZZ_CHECK(wmb::utf8_valid(e.what()), in, "an error message that is not UTF-8");
  } catch (...) {
    wmb_fuzz::unexpected_exception(kFuzzTarget, "the folder loader (only FileError may escape)", in);
  }
  return 0;
}
