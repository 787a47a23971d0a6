// What one run of the command child (child_command.h) needs around the run-one stage
// (run_one.cpp), in one place: its own cgroup (Linux as root, when no sandbox is asked for), the
// bounded stdout/stderr logs in the folder, the stderr relay, stopping every process of the job,
// and the leftovers it forked (stopped and named: proctree/leftovers.h).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/files.h"
#include "guard/supervisor.h"
#include "child/job_output.h"
#include "sandbox/sandbox.h"
#include "spawn/process.h"

namespace wmb {

class JobRun {
 public:
  // Opens runs/<stem>.stdout.log and .stderr.log in `folder` (through Folder: never a link) and the
  // stderr pipe, and sets them into `so`. Throws FileError (the folder) or SpawnError (the pipe).
  JobRun(const Folder& folder, const std::string& stem, SpawnOptions& so);
  ~JobRun();
  JobRun(const JobRun&) = delete;
  JobRun& operator=(const JobRun&) = delete;

  // A cgroup without a limit, only to know and stop every process of the job: Linux as root.
  // nullptr elsewhere (then process groups and the subreaper find what is left).
  static std::unique_ptr<Sandbox> tracking_cgroup(const std::string& label);

  // The job is running (or failed to start): the parent's end of the pipe is closed, the relay runs.
  void started();
  // supervise's callbacks: stdout lines into the stdout log; each stop signal also to every
  // process in `cgroup` (one that left the job's group with setsid included).
  void attach(SuperviseOptions& sup, Sandbox* cgroup);
  // The job's leader is gone: what it left running is stopped and named (in `cgroup`, else by pid), the logs are
  // finished. Returns the warnings for the record.
  std::vector<std::string> end(Sandbox* cgroup, pid_t pgid, double grace);

  std::string stderr_tail() const { return err_.tail(); }

 private:
  // Takes the two open log files (stdout, stderr); the public constructor delegates to it, so that
  // a throw after it (the pipe) runs the destructor, which closes them.
  JobRun(std::pair<int, int> logs);

  int stdout_file_ = -1, stderr_file_ = -1, pipe_read_ = -1, pipe_write_ = -1;
  BoundedLog out_, err_;
  std::unique_ptr<PipeRelay> relay_;
};

}  // namespace wmb
