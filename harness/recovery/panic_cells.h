// The Mac panicked during a cell (issue 41): the parent died with the kernel, so the cell has no
// run file, only its trace up to the last sample that reached the disk (trace/trace_writer.h
// syncs it every 0.5 s). `run --resume`, `tune --resume` and `report` find such a cell by a panic
// report (verdict/diagnostic_reports.h) dated at or after the trace's last sample and at most
// kPanicWindowSeconds later (a watchdog panics minutes after the machine stops answering), and
// record it: stopped_by "kernel", kernel_event "panic", the trace kept as it is. Such a cell is
// not run again unless --force says so (runner/plan.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/files.h"
#include "results/report.h"

namespace wmb {

constexpr int64_t kPanicWindowSeconds = 900;

struct PanickedCell {
  std::string label;
  int repeat = 1;
  int index = 0;
  std::string report;   // the panic report's path
  std::string summary;  // its first line
  std::string file;     // the run file written (runs/NN-label.json)
};

// Each run the folder's scenario.json plans and that has no run file in `report`: when its trace
// holds a sample and a panic report of `dirs` falls in the window after the last one, its record
// is written (Folder::write_json; throws FileError when it cannot be). The caller holds the
// folder's lock and reloads the report after. The trace is read bounded and never through a
// link; a trace that cannot be read, or holds no sample, is left as it is (the cell stays unrun).
std::vector<PanickedCell> record_panicked_cells(const Folder& folder, const Report& report,
                                                const std::vector<std::string>& dirs);

// "cell \"L\" repeat R (runs/NN-L.json): the Mac panicked during it (REPORT: SUMMARY)".
std::string panicked_cell_text(const PanickedCell& c);

// True for a record written by record_panicked_cells (stopped_by kernel, kernel_event panic).
bool is_panic_record(const RunRecord& r);

}  // namespace wmb
