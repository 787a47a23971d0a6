// A result folder read back (compare, history, publish, releases): summary.json, machine.json and
// scenario.json, each through the bounded loader, summary.json checked against runs/
// (readback/verify_runs.h) and the files' device agreeing (readback/folder_device.h). The
// namespace stays wmb::compare, where these were first written.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace wmb::compare {

// Bad input: what() names the folder or file and the problem.
struct CompareError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One result folder as read from disk (or crafted in memory by a test).
struct ResultFolder {
  std::string path;          // as given on the command line; used in messages and the header
  nlohmann::json summary;    // summary.json
  nlohmann::json machine;    // machine.json, or null when the folder has none
  nlohmann::json scenario;   // scenario.json, or null (compare reads a command program's argv)
};

// Reads DIR/summary.json (required), DIR/machine.json and DIR/scenario.json (optional; malformed
// is an error). Throws CompareError for: a missing folder, a path that is not a folder, a missing,
// unreadable or malformed summary.json, a summary.json without the fields compare needs, one that
// disagrees with runs/ (verify_runs.h), a malformed machine.json or scenario.json, and files that
// disagree on the device the folder measured (folder_device.h).
ResultFolder load_result_folder(const std::string& dir);

// Checks the fields compare reads (scenario, runs[].label, sizes as non-negative numbers or null).
// `where` names the source in the message (e.g. "results/x/summary.json").
void check_summary(const nlohmann::json& summary, const std::string& where);

}  // namespace wmb::compare
