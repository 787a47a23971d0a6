// `wmbench history DIR...`: one view over many result folders (many Macs, many torch releases).
//
// Folders are grouped into series by (scenario, device): a series never mixes scenarios, and never
// mixes devices (mps, mps-model, cuda, cpu measure different things), so `wmbench history results/*/`
// shows every folder, each in the series it belongs to. `--scenario NAME` keeps one scenario and
// names the folders it skips. Inside a series the folders are put in the order asked for (date,
// torch version, or machine by RAM) and each folder is compared with the one before it by
// compare::compare_folders, the very function `wmbench compare` uses: a history mark and a compare
// verdict are one judgement.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare.h"

namespace wmb::history {

// Bad input: what() names the folder or file and the problem.
struct HistoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Order { date, torch, machine };

// "date" / "torch" / "machine"; nullopt for anything else.
std::optional<Order> parse_order(const std::string& text);
const char* order_name(Order o);

// One folder as history shows it.
struct FolderInfo {
  compare::SideInfo side;            // path, scenario, device, torch, OS, chip, date, runs
  std::string started_utc;           // for the date order ("" when unknown)
  std::string child = "native";      // machine.json "child".kind; folders without it ran the native child
  std::string machine;               // "Apple M5 Pro" / "MODEL of a 48 GiB Mac on AMD EPYC"
  std::optional<uint64_t> ram_bytes; // the Mac's RAM (for mps-model: the modelled Mac's)
  std::string os;                    // "macOS 15.1 (24B83), Mac16,7" or "Debian GNU/Linux 12 (bookworm)"
  std::optional<uint64_t> recommended_max;  // MPS recommended max; on cuda the device's total memory
  std::string setup;                 // "step 32 MiB, cap 3 GiB, swap budget 2 GiB, sandbox 2 GiB"
};

// One setting in one folder, and how it changed against the folder before it in the series.
struct Cell {
  bool present = false;           // the setting ran in this folder
  compare::SideStats stats;       // the same numbers `compare` shows for a side
  bool compared = false;          // there is a folder before it in the series
  compare::RowKind kind = compare::RowKind::compared;  // only_in_base: ran before, not here
  bool regression = false;
  std::string verdict;            // compare's verdict of (previous -> this) for the setting
};

struct Setting {
  std::string label;
  std::vector<Cell> cells;  // one per folder of the series, in order
};

struct Series {
  std::string scenario, device;
  std::vector<FolderInfo> folders;         // in the chosen order
  std::vector<Setting> settings;           // labels in first-seen order over the folders
  std::vector<compare::Comparison> steps;  // steps[i]: folders[i] -> folders[i+1]
  std::vector<std::vector<std::string>> step_notes;  // compare's notes plus setup differences
  bool newest_regressed() const { return !steps.empty() && !steps.back().ok(); }
  // The newest step compared nothing like for like (compare.h claims_no_regression): the devices,
  // the model or the set-up changed, or settings differ under a label. Said, never "no regression".
  bool newest_not_comparable() const {
    return !steps.empty() && steps.back().ok() && !steps.back().claims_no_regression();
  }
};

struct Skipped {
  std::string path, scenario, device;
};

struct History {
  Order order = Order::date;
  double tolerance_pct = 5.0;
  std::string only_scenario;     // --scenario, "" = every scenario
  std::vector<Series> series;    // in the order their first folder was given
  std::vector<Skipped> skipped;  // folders of another scenario than --scenario
  bool regressed() const;        // the newest folder of some series regressed against the one before
};

// A loaded folder plus what history reads beyond compare's summary and machine: scenario.json.
struct Input {
  compare::ResultFolder folder;
  nlohmann::json scenario;  // scenario.json or null
};

// Reads DIR like compare (summary.json required, machine.json and scenario.json optional; a
// folder whose files disagree on its device is refused: readback/folder_device.h). Throws
// HistoryError naming the folder.
Input load_input(const std::string& dir);

// The facts of one folder as history shows them (also `wmbench publish`'s index). Throws
// HistoryError for a machine.json "child" of the wrong shape.
FolderInfo folder_info(const Input& in);

// Groups, orders and compares. Throws HistoryError for a tolerance that is not finite and >= 0.
History build_history(const std::vector<Input>& inputs, Order order, double tolerance_pct,
                      const std::string& only_scenario = "");

std::string format_text(const History& h);
std::string format_markdown(const History& h);
nlohmann::json to_json(const History& h);

enum class OutputFormat { text, markdown, json };

struct HistoryOptions {
  std::vector<std::string> dirs;
  std::string tolerance = "5";
  std::string by = "date";
  std::string scenario;
  OutputFormat format = OutputFormat::text;
  bool plot = false;
  std::string plot_out = ".";
};

// What `wmbench history` does: 0, 1 when the newest folder of a series regressed against the one
// before it, 2 on bad input (the message, naming the folder, goes to `err`), 3 when --plot drew
// no chart. A newest folder that is not comparable with the one before it (Series::
// newest_not_comparable) is 0 and said so in the verdicts: history's 0 is "nothing regressed",
// compare's "no regression" claim is compare's (its exit 3).
int run_history(const HistoryOptions& opts, std::ostream& out, std::ostream& err);

// --plot: runs plots/history.py with the first python3 that has matplotlib, without a shell.
// Returns 0 when the chart was drawn, else non-zero with the reason on `err`.
int draw_history_plot(const HistoryOptions& opts, std::ostream& err);

}  // namespace wmb::history
