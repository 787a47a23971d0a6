#include "child/job_watch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "proctree/leftovers.h"

namespace wmb {

namespace {

// runs/<stem>.stdout.log and .stderr.log, both open or neither (the first is closed when the
// second cannot be opened).
std::pair<int, int> open_logs(const Folder& folder, const std::string& stem) {
  const int out = folder.open_for_write("runs/" + stem + ".stdout.log", O_TRUNC);
  try {
    return {out, folder.open_for_write("runs/" + stem + ".stderr.log", O_TRUNC)};
  } catch (...) {
    ::close(out);
    throw;
  }
}

}  // namespace

JobRun::JobRun(std::pair<int, int> logs)
    : stdout_file_(logs.first), stderr_file_(logs.second), out_(stdout_file_), err_(stderr_file_) {}

JobRun::JobRun(const Folder& folder, const std::string& stem, SpawnOptions& so) : JobRun(open_logs(folder, stem)) {
  int p[2];
  if (::pipe(p) != 0) throw SpawnError(fmt::format("pipe: {}", std::strerror(errno)), errno);
  pipe_read_ = p[0];
  pipe_write_ = p[1];
  ::fcntl(pipe_read_, F_SETFD, FD_CLOEXEC);
  ::fcntl(pipe_write_, F_SETFD, FD_CLOEXEC);  // spawn_child dups it for the child's fd 2
  so.stderr_fd = pipe_write_;
  so.capture_stdout = true;
  adopt_orphans();  // orphans of the job become wmbench's children, to be found after it
}

JobRun::~JobRun() {
  relay_.reset();  // it closed pipe_read_ when it was started
  for (int fd : {stdout_file_, stderr_file_, pipe_write_, pipe_read_})
    if (fd >= 0) ::close(fd);
}

std::unique_ptr<Sandbox> JobRun::tracking_cgroup(const std::string& label) {
  if (::geteuid() != 0 || sandbox_support(false).kind.empty()) return nullptr;
  try {
    return std::make_unique<Sandbox>(0, label);
  } catch (const SandboxError&) {
    return nullptr;
  }
}

void JobRun::started() {
  if (pipe_write_ >= 0) ::close(pipe_write_);
  pipe_write_ = -1;
  relay_ = std::make_unique<PipeRelay>(pipe_read_, err_);  // it closes pipe_read_
  pipe_read_ = -1;
}

void JobRun::attach(SuperviseOptions& sup, Sandbox* cgroup) {
  sup.on_line = [this](std::string_view line, bool cut, double) {
    out_.write(line);
    out_.write(cut ? " [wmbench: line cut]\n" : "\n");
  };
  if (cgroup)
    sup.signal_others = [cgroup](int sig) { cgroup->signal_all(sig); };
}

std::vector<std::string> JobRun::end(Sandbox* cgroup, pid_t pgid, double grace) {
  std::vector<std::string> w;
  // What the job left running is stopped and named, in its cgroup or by pid (proctree/leftovers.h).
  if (std::string said = stop_what_is_left(cgroup, pgid, grace); !said.empty()) w.push_back(std::move(said));
  if (pipe_write_ >= 0) started();  // never started: the relay still drains and ends
  relay_->stop();
  out_.finish();
  err_.finish();
  if (out_.dropped_bytes() || err_.dropped_bytes())
    w.push_back(fmt::format("the command wrote {} bytes to stdout and {} to stderr; the logs keep the first {} and the last "
                            "{} bytes of each",
                            out_.total_bytes(), err_.total_bytes(), kJobLogHeadBytes, kJobLogTailBytes));
  if (out_.write_failed() || err_.write_failed()) w.push_back("a log of the command's output could not be written in full");
  return w;
}

}  // namespace wmb
