// Helpers shared by the unit tests: a fresh temp folder, a file written whole, the text of what a
// call threw, and a run record every reader accepts. Header-only (inline), included by the test
// files that need them.
#pragma once

#include <stdlib.h>

#include <exception>
#include <fstream>
#include <functional>
#include <string>

#include "../scratch_dir.h"
#include "common/units.h"
#include "results/run_record.h"

namespace wmbt_unit {

// A new empty folder under /tmp: each test its own, so tests run in parallel; removed when the test
// passed (tests/scratch_dir.h).
inline std::string tmpdir(const char* tag = "unit") { return wmbt_scratch::new_dir(tag); }
inline void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
inline bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }
// What f threw (its what()), or "" when it did not throw.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Run number `index` of cell `label`: a cpu fill of two 64 MiB steps stopped by its cap, as
// `wmbench run` writes it (a record every reader accepts; tests change what they need).
inline wmb::RunRecord sample_run(int index, const std::string& label) {
  wmb::RunRecord r;
  r.index = index;
  r.label = label;
  r.device = "cpu";
  r.stopped_by = "cap";
  r.step_bytes = 64 * wmb::MiB;
  r.steps = 2;
  r.held_bytes = 128 * wmb::MiB;
  r.cap_bytes = 128 * wmb::MiB;
  r.started_utc = "2026-12-01T10:00:00Z";
  r.ended_utc = "2026-12-01T10:00:02Z";
  return r;
}

}  // namespace wmbt_unit
