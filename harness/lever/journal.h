// The value to put back, kept where the next wmbench start finds it: before wmbench changes
// iogpu.wired_limit_mb it writes the value it found (and the result folder it ran) to
// <state>/wired-limit.json, and removes it once the value is back. A wmbench killed (SIGKILL) or
// crashed in between leaves the file: the next start of wmbench, any command, puts the value back
// and says so (restore_left_over, called first thing by cli/main.cpp). A file from before a reboot
// is only removed: the reboot reset the sysctl. While a wmbench holds the lever it holds
// <state>/wired-limit.lock (flock), so another wmbench's start never puts a value back under it.
//
// <state> is $WMBENCH_LEVER_STATE (the tests: one folder each), else /var/db/wmbench on a Mac
// (/var/lib/wmbench elsewhere): a folder of root's, 0700; one that is a link, not a folder, or
// writable by others is refused, and so is a file in it that is a link or not wmbench's JSON.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "lever/sysctl.h"

namespace wmb::lever {

inline constexpr const char* kStateEnv = "WMBENCH_LEVER_STATE";

struct Pending {
  std::string name;     // iogpu.wired_limit_mb
  uint64_t found = 0;   // the value found before it was changed (MiB; 0 = the system default)
  uint64_t set = 0;     // the value set
  std::string folder;   // the result folder whose run set it
  std::string run;      // the run (runs/<NN>-<label>)
  std::string boot;     // boot_id() when it was set
  long long pid = 0;    // the wmbench that set it
  std::string since_utc;
};

std::string state_dir();

// The lever's lock, held for a whole session that changes the sysctl. Throws LeverError when the
// state folder cannot be used, or when another wmbench holds it (naming that).
class StateLock {
 public:
  StateLock();
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  int fd_ = -1;
};

// Written before the value is changed; throws LeverError (then nothing is changed).
void write_pending(const Pending& p);
// Removed once the value is back (an error is returned in words, "" when done).
std::string clear_pending();

// Every start: a value left set by a wmbench that did not end is put back through `sysctl`, and
// said on `err`. Never throws; says what it could not do.
void restore_left_over(Sysctl& sysctl, std::ostream& err);
// The same with chosen_sysctl(), and nothing at all (not a file looked at beyond one stat) when no
// value is pending.
void restore_left_over(std::ostream& err);

}  // namespace wmb::lever
