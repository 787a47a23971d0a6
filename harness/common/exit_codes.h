// Exit codes shared by the subcommands (cli/) and the drivers they call (job/run_setup, doctor/).
#pragma once

namespace wmb {

constexpr int kExitOk = 0;
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
// An exception no command handled (a wmbench bug, or memory exhausted): main prints it, says so,
// and exits with this (EX_SOFTWARE of sysexits.h). Run files already written stay on disk.
constexpr int kExitInternal = 70;

}  // namespace wmb
