#include "spawn/process.h"

#include "common/pipe.h"
#include "spawn/exit_watch.h"

#include <fcntl.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace wmb {

namespace {

// What the child side of spawn_child needs, all prepared before fork.
struct ChildPlan {
  pid_t parent;
  int out_write;   // the stdout pipe's write end (when capture_stdout)
  int err_write;   // the exec-error pipe's write end
  int stderr_fd;   // -1: inherited
  int cgroup_fd;   // -1: none
  const std::vector<std::string>* candidates;
  char* const* argv;
  char* const* envp;
};

// "KEY=value" for each variable of the child's environment.
std::vector<std::string> environment_strings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  return env_strings;
}

// Pointers to each string's data, then a nullptr (an execve array; the strings must outlive it).
std::vector<char*> exec_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The paths to try for `name`: itself when it has a '/', else each absolute PATH entry of `env`
// (an empty or relative entry is skipped: never the current folder).
std::vector<std::string> exec_candidates(const std::string& name, const std::map<std::string, std::string>& env) {
  std::vector<std::string> candidates;
  if (name.find('/') != std::string::npos) {
    candidates.push_back(name);
  } else {
    auto it = env.find("PATH");
    std::string path = it != env.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= path.size()) {
      size_t c = path.find(':', start);
      std::string dir = path.substr(start, c == std::string::npos ? std::string::npos : c - start);
      // An empty or relative entry would find a program in the current folder, which nobody named.
      if (!dir.empty() && dir[0] == '/') candidates.push_back(dir + "/" + name);
      if (c == std::string::npos) break;
      start = c + 1;
    }
  }
  return candidates;
}

// The child's stderr fd (a CLOEXEC dup of opts.stderr_fd, or opts.stderr_path opened), -1 to inherit.
int open_child_stderr(const SpawnOptions& opts) {
  int stderr_fd = -1;
  if (opts.stderr_fd >= 0) {
    stderr_fd = ::fcntl(opts.stderr_fd, F_DUPFD_CLOEXEC, 3);
    if (stderr_fd < 0) throw SpawnError(fmt::format("cannot use the stderr fd: {}", std::strerror(errno)), errno);
  } else if (!opts.stderr_path.empty()) {
    stderr_fd = ::open(opts.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (stderr_fd < 0) throw SpawnError(fmt::format("cannot open {}: {}", opts.stderr_path, std::strerror(errno)), errno);
  }
  return stderr_fd;
}

// opts.cgroup_procs opened for writing, -1 when none (on failure stderr_fd is closed, then it throws).
int open_cgroup_procs(const SpawnOptions& opts, int stderr_fd) {
  int cgroup_fd = -1;
  if (!opts.cgroup_procs.empty()) {
    cgroup_fd = ::open(opts.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (cgroup_fd < 0 && stderr_fd >= 0) ::close(stderr_fd);
    if (cgroup_fd < 0) throw SpawnError(fmt::format("cannot open {}: {}", opts.cgroup_procs, std::strerror(errno)), errno);
  }
  return cgroup_fd;
}

// In the child: reports `stage_errno` to the parent through the exec-error pipe and exits 127.
[[noreturn]] void child_fail(int err_write, int stage_errno) {
  int e = stage_errno;
  (void)!::write(err_write, &e, sizeof e);
  ::_exit(127);
}

// The child side of spawn_child, after fork: async-signal-safe calls only, then exec (never returns).
[[noreturn]] void exec_child(const SpawnOptions& opts, const ChildPlan& p) {
  if (opts.own_process_group) ::setpgid(0, 0);
#ifdef __linux__
  // If wmbench itself dies (even by SIGKILL), its child must not go on filling memory unwatched.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != p.parent) ::_exit(127);
#endif
  // Default signal dispositions and an empty mask, whatever the parent had.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) ::signal(s, SIG_DFL);
  if (p.cgroup_fd >= 0) {
    char buf[32];
    int n = 0;
    // "0" means "the writing process" in cgroup.procs (v1 and v2).
    buf[n++] = '0';
    if (::write(p.cgroup_fd, buf, static_cast<size_t>(n)) < 0) child_fail(p.err_write, errno);
  }
  if (!opts.cwd.empty() && ::chdir(opts.cwd.c_str()) != 0) child_fail(p.err_write, errno);
  if (opts.max_file_bytes > 0) {
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(opts.max_file_bytes);
    if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) child_fail(p.err_write, errno);
    ::signal(SIGXFSZ, SIG_IGN);
  }
  if (opts.stdin_null) {
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) { ::dup2(devnull, 0); ::close(devnull); }
  }
  if (opts.capture_stdout) ::dup2(p.out_write, 1);
  if (p.stderr_fd >= 0) ::dup2(p.stderr_fd, 2);
  int last = ENOENT;
  for (auto& c : *p.candidates) {
    ::execve(c.c_str(), p.argv, p.envp);
    if (errno != ENOENT && errno != ENOTDIR) last = errno;
    if (errno == EACCES) last = EACCES;
  }
  child_fail(p.err_write, last);
}

// The parent side of spawn_child, after fork: closes the child's ends, then waits for exec
// (EOF on the exec-error pipe) or its errno, which is thrown.
Child await_exec(const SpawnOptions& opts, pid_t pid, const int out_pipe[2], const int err_pipe[2], int stderr_fd,
                 int cgroup_fd) {
  // Also set the group from here: whichever runs first wins, both are fine.
  if (opts.own_process_group) ::setpgid(pid, pid);
  ::close(err_pipe[1]);
  if (stderr_fd >= 0) ::close(stderr_fd);
  if (cgroup_fd >= 0) ::close(cgroup_fd);
  if (opts.capture_stdout) ::close(out_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(err_pipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    ::waitpid(pid, nullptr, 0);
    if (opts.capture_stdout) ::close(out_pipe[0]);
    throw SpawnError(fmt::format("cannot start {}: {}", opts.argv[0], std::strerror(child_errno)), child_errno);
  }
  return Child{pid, opts.capture_stdout ? out_pipe[0] : -1};
}

}  // namespace

Child spawn_child(const SpawnOptions& opts) {
  if (opts.argv.empty()) throw SpawnError("no command given", EINVAL);
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_strings = environment_strings(opts.env);
  std::vector<char*> envp = exec_array(env_strings);
  std::vector<std::string> args = opts.argv;
  std::vector<char*> argv = exec_array(args);
  // PATH lookup done here, in the parent, with the child's PATH.
  const std::vector<std::string> candidates = exec_candidates(args[0], opts.env);

  int out_pipe[2] = {-1, -1};
  int err_pipe[2];
  if (opts.capture_stdout && make_pipe(out_pipe) != 0)
    throw SpawnError(fmt::format("pipe: {}", std::strerror(errno)), errno);
  if (make_pipe(err_pipe) != 0) throw SpawnError(fmt::format("pipe: {}", std::strerror(errno)), errno);

  const int stderr_fd = open_child_stderr(opts);
  const int cgroup_fd = open_cgroup_procs(opts, stderr_fd);

  const pid_t parent = ::getpid();
  const ChildPlan plan{parent, out_pipe[1], err_pipe[1], stderr_fd, cgroup_fd, &candidates, argv.data(), envp.data()};
  pid_t pid = ::fork();
  if (pid < 0) throw SpawnError(fmt::format("fork: {}", std::strerror(errno)), errno);
  if (pid == 0) exec_child(opts, plan);
  // Parent.
  return await_exec(opts, pid, out_pipe, err_pipe, stderr_fd, cgroup_fd);
}

namespace {
ExitStatus from_wait(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) s.code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) s.signal = WTERMSIG(status);
  return s;
}
}  // namespace

std::optional<ExitStatus> try_reap(pid_t pid) {
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid) return from_wait(status);
  return std::nullopt;
}

ExitStatus reap(pid_t pid) {
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  return from_wait(status);
}

ExitStatus stop_process_group(pid_t pid, double grace, bool* killed, const std::function<void(int sig)>& also,
                              double poll) {
  auto signal_all = [&](int sig) {
    ::kill(-pid, sig);
    if (also) also(sig);
  };
  if (killed) *killed = false;
  if (auto s = try_reap(pid)) {
    signal_all(SIGKILL);  // stragglers of the group
    return *s;
  }
  // Opened before the SIGTERM: the child is not reaped yet, so its pid is still ours.
  ExitWatch watch(pid);
  signal_all(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
  const auto left = [&] { return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count(); };
  while (left() > 0) {
    if (poll > 0) {  // the old sleep-poll (kept for the side-by-side benchmark, GuardReaction)
      if (auto s = try_reap(pid)) {
        ::kill(-pid, SIGKILL);
        return *s;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(poll));
      continue;
    }
    if (watch.wait(left())) {  // woken by the child's end (pidfd / kqueue), or the deadline
      if (auto s = try_reap(pid)) {
        ::kill(-pid, SIGKILL);  // the group's stragglers; others get the rest of their grace (stop_all)
        return *s;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // ended but not reapable yet: never spin
    }
  }
  if (killed) *killed = true;
  signal_all(SIGKILL);
  return reap(pid);
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string s(*e);
    auto eq = s.find('=');
    if (eq == std::string::npos) continue;
    env.emplace(s.substr(0, eq), s.substr(eq + 1));
  }
  return env;
}

std::map<std::string, std::string> child_environment(const std::map<std::string, std::string>& parent,
                                                     const std::map<std::string, std::string>& cell) {
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : parent) {
    if (k.rfind("PYTORCH_MPS_", 0) == 0 || k == "PYTORCH_CUDA_ALLOC_CONF") continue;
    env.emplace(k, v);
  }
  for (const auto& [k, v] : cell) env[k] = v;
  return env;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return fmt::format("signal {}", sig);
  }
}

}  // namespace wmb
