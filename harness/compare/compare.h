// `wmbench compare BASE NEW`: the comparison of two result folders.
//
// Pure logic over the folders' summary.json (and machine.json), as readback/result_folder.h reads
// them. Runs are matched by label; the repeats of a label are grouped.
// Per label: the stop reasons seen (a different set of reasons is a regression, like asv's "!"),
// held memory (median over repeats; a change beyond the tolerance is a regression unless both
// sides have >= 3 repeats and the medians lie within each other's [min, max] spread), PyTorch's
// "max allowed" (a change beyond the tolerance is a regression) and the swap growth
// (informational). A label only in BASE is a regression, a label only in NEW is not.
//
// What can be compared at all: a label is one setting only when both sides ran it with the same
// settings (compare/cell_settings.h); two folders only when they measured one device with one
// model and set-up (compare/comparable.h). Anything else is "not comparable": its differences are
// notes, never a regression, and never "no regression" either (Comparison::exit_code: 3).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "readback/result_folder.h"

namespace wmb::compare {

// Facts about one side, for the header.
struct SideInfo {
  std::string path;
  std::string scenario;
  std::string device;
  std::string torch_version;  // "?" when unknown
  std::string torch_library;  // machine.json torch_library; "" when unknown
  std::string child;          // machine.json "child".kind: "native" (also folders without the key) or "python"
  std::string os_version;     // "macOS 14.4" (os + os_version) when both are known
  std::string chip;
  std::string date;           // YYYY-MM-DD of started_utc, or the folder name's date
  int runs = 0;
  int not_run = 0;
};

// The repeats of one label on one side.
struct SideStats {
  int repeats = 0;
  std::map<std::string, int> stopped_by;      // reason -> count
  // The guard's signal of each guard stop that names one (runs' "guard_signal"): signal -> count.
  // Empty for a folder written before the key: its guard stops are not compared by signal.
  std::map<std::string, int> guard_signals;
  std::optional<uint64_t> held_median, held_min, held_max;
  int held_count = 0;                         // repeats with a held_bytes value
  std::optional<uint64_t> max_allowed;        // median of the non-null values; null when all null
  std::optional<int64_t> swap_growth;         // median of swap_after - swap_before
};

// The facts of one folder for a header (also used by `wmbench history`).
SideInfo side_info(const ResultFolder& f);

// Each label of a summary with the stats of its repeats, in first-seen order (also used by
// `wmbench history`, so that a history cell and a compare side are the same numbers).
std::vector<std::pair<std::string, SideStats>> label_stats(const nlohmann::json& summary);

// "guard", "guard x3", "guard x2, pytorch x1"; "-" when empty; the guard's signals after it where
// known ("guard (pressure)", "guard x3 (swap x2, pressure x1)").
std::string stopped_by_text(const SideStats& s);

enum class RowKind { compared, only_in_base, only_in_new };
enum class Spread { not_judged, within, beyond };  // not_judged: fewer than 3 repeats on a side

// The comparison of one size (held or max allowed) between the two sides.
struct SizeChange {
  std::optional<uint64_t> base, now;
  std::optional<double> change_pct;  // null when either side is null, or base is 0 and new is not
  bool differs = false;              // the values differ at all (null vs value counts)
  bool over_tolerance = false;       // |change| > tolerance, or a null <-> value / 0 -> x change
  bool changed = false;              // counted: over tolerance (and, for held, beyond the spread)
  std::string direction() const;     // "more", "less", "same", "appeared", "gone"
};

struct Row {
  std::string label;
  RowKind kind = RowKind::compared;
  SideStats base, now;
  bool stop_reason_changed = false;
  SizeChange held;
  Spread held_spread = Spread::not_judged;
  SizeChange max_allowed;
  bool regression = false;
  // Not comparable: the label's settings differ between the sides ("PYTORCH_MPS_HIGH_WATERMARK_RATIO
  // 0.8 -> 0.7"; compare/cell_settings.h). The row is then never a regression and never "ok": its
  // verdict says "not comparable: the settings differ under one label (...)", what changed is in notes.
  std::vector<std::string> settings_differ;
  std::vector<std::string> reasons;  // why it regressed ("stop reason changed", "held more (+12.0 %)")
  std::vector<std::string> notes;    // what changed without regressing ("held +7.0 %, within spread")
  std::string verdict;               // "ok", "REGRESSION: stop reason changed, held less", "only in base", ...
};

struct Comparison {
  SideInfo base, now;
  double tolerance_pct = 5.0;
  std::vector<Row> rows;  // BASE's label order, then labels only in NEW in NEW's order
  std::vector<std::string> notes;  // e.g. "chips differ: Apple M2 Max vs Apple M4"
  // Why the folders cannot be compared (compare/comparable.h): the devices differ, the model or the
  // set-up changed; empty when they can. Rows that differ then are notes, not regressions.
  std::vector<std::string> not_comparable;
  int regressions = 0;             // rows that regressed
  int settings_differ = 0;         // rows whose label ran other settings on each side
  int compared = 0;                // rows on both sides with the same settings
  // Nothing regressed (what `history` marks). Not a claim that nothing changed: see below.
  bool ok() const { return regressions == 0; }
  // "no regression" may be said: nothing regressed, the folders are comparable, every label on
  // both sides ran the same settings, and at least one was compared.
  bool claims_no_regression() const {
    return regressions == 0 && not_comparable.empty() && settings_differ == 0 && compared > 0;
  }
  // `wmbench compare`'s exit: 1 something regressed; 0 no regression (claims_no_regression);
  // 3 nothing regressed but not everything could be compared (settings differ under a label, the
  // folders are not comparable, or no label ran on both sides): no claim either way.
  int exit_code() const { return regressions > 0 ? 1 : claims_no_regression() ? 0 : 3; }
};

// Throws CompareError when the summaries are malformed or ran different scenarios.
Comparison compare_folders(const ResultFolder& base, const ResultFolder& now, double tolerance_pct = 5.0);

std::string format_text(const Comparison& c);
std::string format_markdown(const Comparison& c);
nlohmann::json to_json(const Comparison& c);

// "5", "2.5", "5%" -> the percentage; null for text that is not a finite number >= 0.
std::optional<double> parse_tolerance(const std::string& text);

enum class OutputFormat { text, markdown, json };

struct CompareOptions {
  std::string base_dir, new_dir;
  std::string tolerance = "5";  // percent, as typed
  OutputFormat format = OutputFormat::text;
};

// What `wmbench compare` does: returns Comparison::exit_code() (0 no regression, 1 something
// regressed, 3 not comparable: nothing regressed, but not all could be compared), 2 on bad input
// (the message goes to `err`).
int run_compare(const CompareOptions& opts, std::ostream& out, std::ostream& err);

}  // namespace wmb::compare
