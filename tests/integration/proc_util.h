// Helpers for integration tests: run the real binaries as a user would, with a timeout.
#pragma once

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform_util.h"
#include "../scratch_dir.h"

extern char** environ;  // run(): the environment its children start from (macOS declares it nowhere)

namespace wmbt {

// The machine's swap (SwapTotal of /proc/meminfo), 0 where there is none or no /proc.
inline uint64_t swap_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string k, unit;
  uint64_t v = 0;
  while (in >> k >> v) {
    std::getline(in, unit);
    if (k == "SwapTotal:") return v * 1024;
  }
  return 0;
}

// Why a real-swap test (a memory cgroup and at least min_swap bytes of swap) cannot run here, or "".
inline std::string real_swap_skip_reason(uint64_t min_swap) {
#if !defined(__linux__)
  (void)min_swap;
  return "Linux only: a memory cgroup, a swapfile and /proc/meminfo";
#else
  if (::geteuid() != 0) return "not root: a memory cgroup cannot be made (CI runs as root)";
  if (swap_total_bytes() < min_swap)
    return "less than " + std::to_string(min_swap >> 20) +
           " MiB of swap: run `sudo scripts/swapfile.sh on` first (scripts/test.sh does)";
  return "";
#endif
}

// The binaries under test built with AddressSanitizer? Asked of this process at run time: the
// sanitized build (CI's stage 2) links ASan's runtime into the test binaries, with wmbench_core
// instrumented, but compiles the test files themselves as the plain build does
// (tests/CMakeLists.txt), so no compile-time macro of theirs says it. ASan's runtime defines
// __asan_init, which dlsym finds in a GCC build (libasan.so) and a clang one alike.
#if defined(__SANITIZE_ADDRESS__)
#define WMBENCH_TEST_COMPILED_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WMBENCH_TEST_COMPILED_WITH_ASAN 1
#endif
#endif
#ifndef WMBENCH_TEST_COMPILED_WITH_ASAN
#define WMBENCH_TEST_COMPILED_WITH_ASAN 0
#endif
inline const bool kUnderAsan = WMBENCH_TEST_COMPILED_WITH_ASAN || ::dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
// ASan reserves terabytes of address space for its shadow memory, so an RLIMIT_AS test cannot run under it.
constexpr const char* kAsanNoRlimit = "built with AddressSanitizer, which reserves terabytes of address space: "
                                      "an address-space limit cannot be tested under it (the plain build tests it)";

// Why an address-space limit (RLIMIT_AS) cannot stop allocations here, or "" when it can.
// Checked, not assumed: a forked child sets RLIMIT_AS to 64 GiB and maps 128 GiB of address space
// (PROT_NONE, nothing committed); the limit works only if setrlimit succeeds AND that mapping fails
// with ENOMEM. macOS on Apple silicon rejects such a limit (EINVAL) or accepts and ignores it;
// a test that relied on it would then run a real, unlimited fill.
inline std::string address_space_limit_unusable() {
  if (kUnderAsan) return kAsanNoRlimit;
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed: cannot check RLIMIT_AS";
  // The child makes only async-signal-safe calls after fork: it writes what it saw as two ints
  // (what failed, errno), and the parent words it.
  enum : int { kEnforced = 0, kSetrlimitFailed = 1, kNotEnforced = 2, kOtherErrno = 3 };
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    int seen[2] = {kEnforced, 0};
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = 64ull << 30;
    if (::setrlimit(RLIMIT_AS, &rl) != 0) {
      seen[0] = kSetrlimitFailed;
      seen[1] = errno;
    } else {
      const size_t len = 128ull << 30;
      void* p = ::mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANON | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        ::munmap(p, len);
        seen[0] = kNotEnforced;
      } else if (errno != ENOMEM) {
        seen[0] = kOtherErrno;
        seen[1] = errno;
      }
    }
    ::_exit(::write(fds[1], seen, sizeof seen) == static_cast<ssize_t>(sizeof seen) ? 0 : 2);
  }
  ::close(fds[1]);
  int seen[2] = {-1, 0};
  const ssize_t got = ::read(fds[0], seen, sizeof seen);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != static_cast<ssize_t>(sizeof seen))
    return "the RLIMIT_AS probe did not finish";
  switch (seen[0]) {
    case kEnforced: return "";
    case kSetrlimitFailed:
      return std::string("setrlimit(RLIMIT_AS, 64 GiB) failed: ") + std::strerror(seen[1]) +
             " (this system does not limit the address space)";
    case kNotEnforced: return "RLIMIT_AS is accepted but not enforced here: 128 GiB were mapped under a 64 GiB limit";
    case kOtherErrno: return std::string("under RLIMIT_AS a large mmap failed with ") + std::strerror(seen[1]) + ", not ENOMEM";
    default: return "the RLIMIT_AS probe said something unknown";
  }
}

// The first NAME on PATH that is an executable file, or "" (platform_util.h).
inline std::string find_on_path(const std::string& name) { return program_on_path(name); }

// The address space (VmSize) a fill child has mapped once it has said hello. An RLIMIT_AS test
// gives the child this plus a fixed headroom, whatever libtorch it links: Debian's CPU libtorch
// maps about 1 GiB before the first step, a CUDA build of torch 2.11 several GiB (under a flat
// 2 GiB limit it cannot even load libcublasLt, seen on the H200 machine). `argv` is the child
// with everything before its flags (the program, or python and the .py file). 0 if unknown.
inline uint64_t vm_size_at_hello(std::vector<std::string> argv) {
  for (const char* a : {"--device", "cpu", "--step", "1MiB", "--cap", "2MiB", "--step-delay", "30"}) argv.push_back(a);
  std::vector<char*> av;
  for (auto& a : argv) av.push_back(a.data());
  av.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) return 0;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::alarm(60);
    ::execv(av[0], av.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string got;
  char c;
  while (got.find('\n') == std::string::npos && ::read(fds[0], &c, 1) == 1) got += c;  // the hello line
  const uint64_t vm = address_space_of(pid);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(fds[0]);
  return vm;
}

struct Result {
  int status = -1;  // exit code, or 128+signal
  std::string out, err;
  bool timed_out = false;  // RunOpts::timeout ran out: the whole tree was ended (end_tree)
};

struct RunOpts {
  std::map<std::string, std::string> set_env;
  std::vector<std::string> unset_env;
  uint64_t rlimit_as = 0;  // bytes, 0 = none
  double timeout = 600;  // then end_tree: SIGTERM, and after `timeout_grace` s SIGKILL to all it started
  double timeout_grace = 10;
  std::string cwd;
  // Called with the pid once started (e.g. to send it a signal); runs on another thread.
  std::function<void(pid_t)> while_running;
  // The same, with the path of the file its stderr goes to, to wait for what it says
  // (stderr_says) instead of sleeping.
  std::function<void(pid_t, const std::string& err_path)> while_running_err;
  // A `wmbench run`/`tune` on the real mps device without a small cap and a short timeout is
  // refused (device_memory_unbounded); only the opt-in real-MPS test (WMBENCH_TEST_REAL_MPS=1) sets this.
  bool unbounded_device_ok = false;
  // The program runs in a process group of its own (so end_tree can end it with all it started);
  // false only for a test that needs it not to lead a group (setsid(1) then execs in place).
  bool own_group = true;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Adds to `seen` every process whose parent is in `seen` (a tree from the process table now).
inline void add_descendants(std::vector<pid_t>& seen) {
  std::vector<ProcStat> table;
  for (const pid_t p : all_pids()) {
    ProcStat ps;
    if (proc_stat_of(p, ps) && ps.state != 'Z') table.push_back(ps);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& ps : table)
      if (std::find(seen.begin(), seen.end(), ps.ppid) != seen.end() &&
          std::find(seen.begin(), seen.end(), ps.pid) == seen.end()) {
        seen.push_back(ps.pid);
        grew = true;
      }
  }
}

// Ends `pid` (our child, not yet reaped; `status` gets its wait status) and everything it started,
// so that a test's timeout leaves no process behind (issue 28): wmbench's fill child and a job run
// in process groups of their own, a daemon even in a session of its own, so a SIGKILL to wmbench
// alone would leave them filling memory unguarded. First SIGTERM, so that wmbench stops its child
// as on Ctrl-C and keeps what it measured; the tree is read again while it ends; after `grace` s
// (or once `pid` is gone) SIGKILL to every process of the tree seen at any time and to each one's
// process group (never the test's own).
inline void end_tree(pid_t pid, double grace, int& status) {
  std::vector<pid_t> seen = {pid};
  add_descendants(seen);
  ::kill(pid, SIGTERM);
  bool reaped = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
  while (std::chrono::steady_clock::now() < deadline) {
    add_descendants(seen);
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  add_descendants(seen);  // those that outlived wmbench: reparented, but seen before
  const pid_t own_group = ::getpgrp();
  for (const pid_t p : seen) {
    ProcStat ps;
    if (p != pid && proc_stat_of(p, ps) && ps.pgrp > 1 && ps.pgrp != own_group) ::kill(-ps.pgrp, SIGKILL);
    if (p != pid) ::kill(p, SIGKILL);
  }
  if (!reaped) {
    if (::getpgid(pid) == pid) ::kill(-pid, SIGKILL);  // its own group (run() makes it one)
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
}

// ---- No test fills a real device's memory (issue 28) ----------------------------------------
// On a Mac `wmbench run` fills real unified memory on `mps` (a scenario's device, `--device mps`,
// or the default there); beside a dozen parallel tests that is swap, and a test's timeout is no
// guard. So every `wmbench run`/`tune` a test starts on mps gives a cap of at most kTestDeviceCap
// and a timeout of at most kTestDeviceTimeout_s; run() refuses (a test failure, nothing started)
// any other, on every system, so a Linux CI catches the test that would fill a Mac.
constexpr uint64_t kTestDeviceCap = 256ull << 20;
constexpr double kTestDeviceTimeout_s = 120;

// "64MiB" / "512KiB" / "1GiB" / "4096" / "30s" / "2m" / "500ms" -> bytes or seconds; -1 when not that simple form.
inline double simple_amount(const std::string& v, bool duration) {
  size_t n = 0;
  double x = 0;
  try {
    x = std::stod(v, &n);
  } catch (...) {
    return -1;
  }
  const std::string u = v.substr(n);
  if (duration) {
    if (u == "s") return x;
    if (u == "ms") return x / 1000;
    if (u == "m") return x * 60;
    if (u == "h") return x * 3600;
    return -1;
  }
  if (u.empty() || u == "B") return x;
  if (u == "KiB") return x * 1024;
  if (u == "MiB") return x * 1048576;
  if (u == "GiB" || u == "GB") return x * 1073741824.0;
  return -1;
}

// Why this command line may fill a real device beyond the bound, or "" (argv[0] is the program).
inline std::string device_memory_unbounded(const std::vector<std::string>& argv, const std::string& scenarios_dir) {
  if (argv.size() < 2) return "";
  const std::string prog = argv[0].substr(argv[0].rfind('/') + 1);
  if (prog != "wmbench" || (argv[1] != "run" && argv[1] != "tune")) return "";
  std::string device, cap, timeout, scenario_text;
  bool resume = false, positional = false;
  for (size_t i = 2; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") break;
    const bool has_value = i + 1 < argv.size();
    if (a == "--device" && has_value) device = argv[++i];
    else if (a == "--cap" && has_value) cap = argv[++i];
    else if (a == "--timeout" && has_value) timeout = argv[++i];
    else if (a == "--resume") resume = true;
    else if (!a.empty() && a[0] != '-' && !positional && i == 2) {
      positional = true;
      scenario_text = read_text(a.find('/') == std::string::npos ? scenarios_dir + "/" + a + ".json" : a);
    }
  }
  if (positional) {  // what the command line does not say, the scenario file does
    const auto sc = nlohmann::json::parse(scenario_text, nullptr, /*allow_exceptions=*/false);
    const auto field = [&](const char* k) {
      return sc.is_object() && sc.contains(k) && sc[k].is_string() ? sc[k].get<std::string>() : std::string();
    };
    if (device.empty()) device = field("device");
    if (cap.empty()) cap = field("cap");
    if (timeout.empty()) timeout = field("timeout");
  } else if (device.empty() && !resume) {
    device = kApple ? "mps" : "";  // no scenario: the default matrix, on mps on a Mac
  }
  if (device != "mps") return "";
  const double c = simple_amount(cap, false), t = simple_amount(timeout, true);
  if (c < 0 || c > static_cast<double>(kTestDeviceCap) || t < 0 || t > kTestDeviceTimeout_s)
    return "this test runs `wmbench " + argv[1] + "` on the real mps device with --cap '" + cap + "' and --timeout '" +
           timeout + "': a test gives --cap of at most 256MiB and --timeout of at most 120s there (tests/integration/"
           "proc_util.h, issue 28), or it is the opt-in real-MPS test";
  return "";
}

// This process's environment (the first of a name, as getenv reads it) with SET_ENV set and
// UNSET_ENV removed, as "NAME=VALUE" strings: what a child forked by a test starts with. Made
// before fork: the child may then make only async-signal-safe calls (see run()).
inline std::vector<std::string> child_environment(const std::map<std::string, std::string>& set_env,
                                                  const std::vector<std::string>& unset_env) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env.emplace(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
  }
  for (auto& [k, v] : set_env) env[k] = v;
  for (auto& k : unset_env) env.erase(k);
  std::vector<std::string> text;
  for (auto& [k, v] : env) text.push_back(k + "=" + v);
  return text;
}

// STRINGS as the null-terminated char* array execve takes; they must outlive it.
inline std::vector<char*> exec_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

inline Result run(const std::vector<std::string>& argv, const RunOpts& o = {}) {
  if (!o.unbounded_device_ok) {
    if (const std::string why = device_memory_unbounded(argv, std::string(WMBENCH_SOURCE_DIR) + "/scenarios"); !why.empty()) {
      ADD_FAILURE() << why;
      Result refused;
      refused.status = 125;
      refused.err = "not started: " + why;
      return refused;
    }
  }
  char out_t[] = "/tmp/wmbt-out-XXXXXX", err_t[] = "/tmp/wmbt-err-XXXXXX";
  int ofd = ::mkstemp(out_t), efd = ::mkstemp(err_t);
  // Everything the child needs is made before fork: its argv, its whole environment, /dev/null.
  // Tests start children from several threads at once (std::async), and a child forked while
  // another thread held a lock (the allocator's under ASan, setenv's) hangs if it takes that lock
  // before exec: it calls only async-signal-safe functions (fork(2), signal-safety(7)). A child
  // that hung so was seen once in CI's ASan stage (ModelWarningsGrid: killed at its 60 s timeout).
  std::vector<std::string> env_text = child_environment(o.set_env, o.unset_env), argv_text = argv;
  const std::vector<char*> envp = exec_array(env_text), a = exec_array(argv_text);
  const int devnull = ::open("/dev/null", O_RDONLY);
  pid_t pid = ::fork();
  if (pid == 0) {
    if (o.own_group) ::setpgid(0, 0);  // a group of its own: end_tree can end it with all it started
    ::dup2(ofd, 1);
    ::dup2(efd, 2);
    ::dup2(devnull, 0);
    if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) ::_exit(126);
    if (o.rlimit_as) {
      struct rlimit rl = {o.rlimit_as, o.rlimit_as};
      if (::setrlimit(RLIMIT_AS, &rl) != 0) {  // never run the command without the limit it asked for
        // After fork only async-signal-safe calls (no strerror): errno as digits, then exit 125.
        char msg[] = "setrlimit(RLIMIT_AS) failed: errno 000\n";
        const int e = errno;
        char* d = msg + sizeof msg - 2;  // the newline; the digits end before it
        for (int v = e < 0 ? 0 : e % 1000, i = 0; i < 3; ++i, v /= 10) *--d = static_cast<char>('0' + v % 10);
        (void)!::write(2, msg, sizeof msg - 1);
        ::_exit(125);
      }
    }
    ::execve(a[0], a.data(), envp.data());
    ::_exit(127);
  }
  if (devnull >= 0) ::close(devnull);
  if (pid > 0 && o.own_group) ::setpgid(pid, pid);  // also here: no race with an early end_tree (EACCES after its exec is fine)
  std::thread side;
  const std::string err_path = err_t;
  if (o.while_running) side = std::thread([&] { o.while_running(pid); });
  else if (o.while_running_err) side = std::thread([&] { o.while_running_err(pid, err_path); });
  int status = 0;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.timeout);
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
      end_tree(pid, o.timeout_grace, status);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (side.joinable()) side.join();
  Result res;
  res.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  res.timed_out = timed_out;
  res.out = slurp(out_t);
  res.err = slurp(err_t);
  ::close(ofd);
  ::close(efd);
  ::unlink(out_t);
  ::unlink(err_t);
  return res;
}

// A new empty folder, removed when the test passed (tests/scratch_dir.h).
inline std::string tmpdir() { return wmbt_scratch::new_dir("it"); }

inline void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> v;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) v.push_back(nlohmann::json::parse(line));
  return v;
}

// Waits until `pred` is true or `timeout` seconds passed.
inline bool wait_for(const std::function<bool()>& pred, double timeout) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

// The state letter of PID ('S', 'R', 'T' stopped, ...; platform_util.h); 0 when gone.
inline char proc_state(pid_t pid) {
  ProcStat ps;
  return proc_stat_of(pid, ps) ? ps.state : 0;
}

// Calls fn for each process in the process table (read one at a time: one may end meanwhile)
// until fn returns true; returns the pid it stopped at, 0 when none. Linux /proc, macOS libproc.
inline pid_t find_proc(const std::function<bool(const ProcStat&)>& fn) {
  for (const pid_t pid : all_pids()) {
    ProcStat ps;
    if (proc_stat_of(pid, ps) && fn(ps)) return pid;
  }
  return 0;
}

// The first live child of `parent` (from the process table), 0 when none yet.
inline pid_t child_of(pid_t parent) {
  // A zombie is no longer the child that runs.
  return find_proc([&](const ProcStat& p) { return p.ppid == parent && p.state != 'Z'; });
}

// Waits until the file at `path` (a child's stderr, RunOpts::while_running_err) contains `text`.
inline bool stderr_says(const std::string& path, const std::string& text, double timeout) {
  return wait_for([&] { return slurp(path).find(text) != std::string::npos; }, timeout);
}

inline bool file_exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

// The single dated result folder under `out` (the first by name when there are more). No shell:
// `out` may hold quotes and $(...) (the tests of hostile paths).
inline std::string only_result_dir(const std::string& out) {
  std::vector<std::string> dirs;
  if (DIR* d = ::opendir(out.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      struct stat st;
      if (name[0] != '.' && ::stat((out + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        dirs.push_back(out + "/" + name);
    }
    ::closedir(d);
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs.empty() ? "" : dirs.front();
}

}  // namespace wmbt
