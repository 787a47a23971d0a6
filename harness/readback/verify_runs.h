// Readers trust the records, not the digest: compare and history read summary.json, and a
// folder with runs/ has its summary verified against the run files first (the same records
// report, check and --resume read: results/report.h load_report, duplicates refused there).
// A summary.json that disagrees, or a run file that cannot be used, is an error naming the file
// and the fix (`wmbench report DIR` rebuilds summary.json from runs/). A folder with no runs/
// (an exported digest, tests/data/compare) is read as it is.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wmb::compare {

// Throws CompareError.
void verify_summary_against_runs(const std::string& dir, const nlohmann::json& summary);

}  // namespace wmb::compare
