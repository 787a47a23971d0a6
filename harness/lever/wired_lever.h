// A session's iogpu.wired_limit_mb: the cells' values checked before any folder exists, and each
// run's value set before its child starts, read back, recorded in the folder's lever.json, and
// the value found put back after the run on every way out (the run's end, the guard, Ctrl-C and
// SIGTERM end the run and so reach restore(); SIGKILL or a crash of wmbench leaves the journal,
// lever/journal.h, which the next start puts back).
//
// Which device writes: mps (a Mac, root); mps-model only models it (the cell's value is the
// modelled recommended max, nothing is written) unless WMBENCH_SYSCTL_STANDIN names a stand-in
// sysctl (the simulated Mac), which it then also sets. cpu and cuda refuse the key.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/files.h"
#include "lever/journal.h"
#include "lever/sysctl.h"
#include "mpsmodel/watermark.h"
#include "scenario/scenario.h"

namespace wmb::lever {

// The session's lever, made by check_wired_lever when a cell sets the sysctl on a device that writes it.
struct WiredLever {
  std::unique_ptr<Sysctl> sysctl;
  std::unique_ptr<StateLock> lock;
  uint64_t ram = 0;  // the RAM the cells' values are resolved against
};

// Before any folder: every cell with "sysctl" is allowed on `device` and resolves below `ram`
// (the machine's, or with mps-model the modelled Mac's); a device that writes needs root (`root`),
// a working sysctl and the lever's lock. Throws RunRefused naming the cell, the key and what is
// allowed. Returns nullptr when nothing is written.
std::unique_ptr<WiredLever> check_wired_lever(const std::vector<const Cell*>& cells, const std::string& device,
                                              uint64_t ram, bool root);

// mps-model: the modelled Mac for one cell: its "sysctl" value (0: the system default, as it was)
// is the recommended max in MiB (Metal's recommendedMaxWorkingSetSize follows it).
std::optional<mpsmodel::ModelledMac> model_for_cell(const std::optional<mpsmodel::ModelledMac>& model, const Cell& cell);

// One run's hold. Constructed before the child starts: journal, set, read back. restore() (or the
// destructor) puts the found value back. With no lever or no key in the cell it does nothing.
class RunHold {
 public:
  RunHold(WiredLever* lever, const Cell& cell, const Folder& folder, const std::string& run_stem);
  ~RunHold();
  RunHold(const RunHold&) = delete;
  RunHold& operator=(const RunHold&) = delete;

  // "" when set (or nothing to do), else why the run must not start (nothing was changed, or what
  // was changed is already back).
  const std::string& refused() const { return refused_; }
  // Puts the found value back; "" when done, else what the user must do (and the journal stays).
  std::string restore();
  // For the progress line: "iogpu.wired_limit_mb 12000 (found 0)", "" when none.
  std::string said() const;

 private:
  void record(const nlohmann::json& fields);
  WiredLever* lever_ = nullptr;
  const Folder* folder_ = nullptr;
  std::string stem_;
  uint64_t found_ = 0, set_ = 0;
  bool changed_ = false;
  std::string refused_;
};

}  // namespace wmb::lever
