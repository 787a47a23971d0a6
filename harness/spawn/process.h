// Starting a child in its own process group without a shell, and stopping it: SIGTERM to the
// group, SIGKILL after a grace, then waiting until it is really gone.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wmb {

struct SpawnError : std::runtime_error {
  SpawnError(const std::string& what, int err) : std::runtime_error(what), error(err) {}
  int error;  // errno of the failed exec (ENOENT: not found)
};

struct SpawnOptions {
  std::vector<std::string> argv;                 // argv[0] is looked up in PATH when it has no '/'
  std::map<std::string, std::string> env;        // the child's whole environment
  bool capture_stdout = false;                   // stdout -> a pipe whose read end is returned
  std::string stderr_path;                       // "" = inherit (a path: a link there is followed)
  int stderr_fd = -1;                            // else: the child's stderr is this fd (the caller keeps and closes it)
  bool stdin_null = true;                        // stdin from /dev/null (else inherited)
  std::string cgroup_procs;                      // a cgroup.procs file to join before exec ("" = none)
  bool own_process_group = true;
  std::string cwd;                               // the child's working directory ("" = the parent's)
  // > 0: RLIMIT_FSIZE of the child, SIGXFSZ ignored, so a write past it fails (EFBIG) instead of
  // growing a file without bound (the fill child's stderr log) or killing the child.
  unsigned long long max_file_bytes = 0;
};

struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;  // when capture_stdout
};

// Throws SpawnError when fork or exec fails (exec errors are reported back through a CLOEXEC pipe).
Child spawn_child(const SpawnOptions& opts);

struct ExitStatus {
  std::optional<int> code;    // exit code, when it exited
  std::optional<int> signal;  // the signal that ended it
  // 128+N for a signal, like a shell.
  int shell_status() const { return code ? *code : 128 + signal.value_or(0); }
};

// Non-blocking: the status when the child has ended, else nullopt.
std::optional<ExitStatus> try_reap(pid_t pid);
ExitStatus reap(pid_t pid);  // blocking

// SIGTERM to the group, SIGKILL after `grace` seconds, then wait for the leader to be gone.
// Returns the leader's status; `killed` tells whether SIGKILL was needed. `also`, when set, is
// given each signal sent to the group, for processes outside it (a cgroup's, see guard_command).
// The wait for the leader's end is on an ExitWatch (pidfd on Linux, kqueue EVFILT_PROC on macOS:
// spawn/exit_watch.h), woken by the end itself; `poll` > 0 is the old sleep-poll of that period
// instead (only the side-by-side benchmark asks for it).
ExitStatus stop_process_group(pid_t pid, double grace, bool* killed = nullptr,
                              const std::function<void(int sig)>& also = {}, double poll = 0);

// The parent's environment as a map, and the child's: every PYTORCH_MPS_* and
// PYTORCH_CUDA_ALLOC_CONF variable removed, then the cell's own added verbatim.
std::map<std::string, std::string> current_environment();
std::map<std::string, std::string> child_environment(const std::map<std::string, std::string>& parent,
                                                     const std::map<std::string, std::string>& cell);

std::string signal_name(int sig);  // "SIGKILL"

}  // namespace wmb
