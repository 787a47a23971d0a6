// Issue 22, class E (processes and signals), the cases still open after the first pass, each with
// real processes and real signals:
// - a command child's grandchild (`sh -c 'sleep 600 & exec ...'`) never outlives `run` or `guard`:
//   as root through the cgroup, and without a cgroup (a real non-root wmbench, or the guard's
//   WMBENCH_GUARD_NO_CGROUP=1) by the pids found, each stopped and named;
// - Ctrl-Z (SIGTSTP) to `run` or `guard` stops its child too, and SIGCONT continues both to a
//   normal end with a proper record;
// - `info` killed by SIGTERM while its child probes leaves none of the child's group, exits 143;
// - SIGINT/SIGTERM while the charts are drawn, and during `run`'s probe of wmbench-fill before any
//   folder, exit 128+N, never 0 and never blaming the child.
// Every wait is for an event (a pid file written, a /proc state changed) with a generous deadline,
// never a fixed sleep. Each test has its own temp folder and its own processes: they run in
// parallel with any other.
#include <gtest/gtest.h>

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "cli_util.h"
#include "sandbox/sandbox.h"

namespace test_signals_round2 {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;

namespace {

constexpr double kDeadline = 30;  // seconds for any awaited event (a loaded 2-core machine)

// Running (or stopped): neither gone nor a zombie waiting for a parent that may never reap it.
bool alive(pid_t pid) {
  const char st = proc_state(pid);
  return st != 0 && st != 'Z' && st != 'X';
}

// The pid written to `file` (by `echo $! > file` in a job), 0 until it is there.
pid_t pid_in(const std::string& file) {
  const std::string s = slurp(file);
  if (s.empty() || s.back() != '\n') return 0;
  try {
    return static_cast<pid_t>(std::stoi(s));
  } catch (...) {
    return 0;
  }
}

pid_t await_pid(const std::string& file) {
  pid_t p = 0;
  wait_for([&] { return (p = pid_in(file)) != 0; }, kDeadline);
  return p;
}

// proc_state and child_of (the first live child): proc_util.h.
// The live members (not zombies) of process group `pgid`, by /proc/*/stat.
std::vector<pid_t> group_members(pid_t pgid) {
  std::vector<pid_t> out;
  find_proc([&](const ProcStat& p) {
    if (p.pgrp == pgid && p.state != 'Z' && p.state != 'X') out.push_back(p.pid);
    return false;
  });
  return out;
}

// Kills a pid that a failed test left behind (never one that is not alive).
void reap_stray(pid_t pid) {
  if (pid > 0 && alive(pid)) ::kill(pid, SIGKILL);
}

// "pid 123 (": how wmbench names a leftover (its comm follows: `sleep`, or `sh` when it was
// stopped between the fork of `sleep 600 &` and its exec).
std::string named(pid_t pid) { return fmt::format("pid {} (", pid); }

bool any_warning(const nlohmann::json& run, const std::string& part) {
  for (const auto& w : run.value("warnings", nlohmann::json::array()))
    if (w.is_string() && has(w.get<std::string>(), part)) return true;
  return false;
}

// How wmbench runs as a user that is not root, when the tests are root: `setpriv` to nobody;
// "" (with `why`) when that cannot be done here.
std::vector<std::string> as_non_root(std::string& why, const std::string& owned_dir) {
  if (::geteuid() != 0) return {};
  const std::string setpriv = find_on_path("setpriv");
  const passwd* nobody = ::getpwnam("nobody");
  if (setpriv.empty() || !nobody) {
    why = "the tests run as root and there is no setpriv(1) or no user nobody to run wmbench without root";
    return {"-"};
  }
  if (::chown(owned_dir.c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
    why = "cannot give the test folder to nobody";
    return {"-"};
  }
  return {setpriv, fmt::format("--reuid={}", nobody->pw_uid), fmt::format("--regid={}", nobody->pw_gid),
          "--clear-groups", "--"};
}

std::string job_scenario(const std::string& dir) {
  return scenario(dir, "job", R"({"name": "job", "device": "cpu", "timeout": "120s", "guard": {"grace": "2s"},
                                  "matrix": [{"label": "a"}]})");
}

// `wmbench run --command -- JOB...` of one cell, with `prefix` (setpriv) before wmbench.
Result run_command(const Tmp& t, const std::vector<std::string>& prefix, const std::vector<std::string>& job,
                   RunOpts o = {}) {
  std::vector<std::string> argv = prefix;
  for (const char* a : {WMBENCH_BIN, "run"}) argv.push_back(a);
  for (const std::string& a : {job_scenario(t.path), std::string("--command"), std::string("--no-plots"),
                               std::string("--out"), t.path + "/out", std::string("--")})
    argv.push_back(a);
  argv.insert(argv.end(), job.begin(), job.end());
  o.set_env["WMBENCH_FILL"] = WMBENCH_FILL_BIN;
  return run(argv, o);
}

nlohmann::json the_record(const Tmp& t) {
  const std::string d = only_result_dir(t.path + "/out");
  if (d.empty() || !file_exists(d + "/runs/01-a.json")) return nlohmann::json::object();
  return read_json(d + "/runs/01-a.json");
}

// The job: a grandchild `sleep 600` in the background (its pid in `pidfile`), then the leader
// becomes `then` (exec): one that ends at once, or one that runs a while and ends.
std::vector<std::string> grandchild_job(const std::string& pidfile, const std::string& then) {
  return {"/bin/sh", "-c", "sleep 600 & echo $! > '" + pidfile + "'; exec " + then};
}

// The cgroup that `run --command` and `guard` track a command in as root; why not, else "".
std::string no_tracking_cgroup() {
  if (::geteuid() != 0) return "the cgroup path needs root (wmbench makes a cgroup only as root)";  // portable: a skip reason
  const auto s = wmb::sandbox_support(false);
  if (s.kind.empty()) return "no usable cgroup here: " + s.why_not;  // portable: a skip reason
  return "";
}

}  // namespace

// ---- a grandchild never outlives the run -------------------------------------------------------

TEST(SignalsRound2, RunCommandStopsAndNamesTheGrandchildItLeftWithoutACgroup) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc; macOS checks only the process group";
#endif
  for (const char* then : {"true", "sleep 1"}) {
    Tmp t;
    std::string why;
    const auto prefix = as_non_root(why, t.path);
    if (!why.empty()) GTEST_SKIP() << why;
    const std::string pidfile = t.path + "/grandchild.pid";
    const Result r = run_command(t, prefix, grandchild_job(pidfile, then));
    const pid_t g = pid_in(pidfile);
    ASSERT_NE(g, 0) << "the job never started its grandchild: " << r.err;
    EXPECT_EQ(r.status, 0) << then << ": " << r.err;
    EXPECT_FALSE(alive(g)) << then << ": the grandchild " << g << " outlived wmbench run: " << r.err;
    const auto rec = the_record(t);
    EXPECT_EQ(rec.value("stopped_by", ""), "finished") << rec.dump(2);
    EXPECT_TRUE(any_warning(rec, named(g))) << "the record names the pid: " << rec.dump(2);
    EXPECT_TRUE(any_warning(rec, "stopped them (SIGTERM was enough)")) << rec.dump(2);
    EXPECT_FALSE(any_warning(rec, "in its cgroup")) << "no cgroup without root: " << rec.dump(2);
    reap_stray(g);
  }
}

TEST(SignalsRound2, RunCommandStopsTheGrandchildThroughItsCgroupAsRoot) {
  WMBT_SKIP_IF(no_tracking_cgroup());
  Tmp t;
  const std::string pidfile = t.path + "/grandchild.pid";
  const Result r = run_command(t, {}, grandchild_job(pidfile, "true"));
  const pid_t g = pid_in(pidfile);
  ASSERT_NE(g, 0) << r.err;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(alive(g)) << "the grandchild " << g << " outlived wmbench run";
  const auto rec = the_record(t);
  EXPECT_TRUE(any_warning(rec, "in its cgroup")) << rec.dump(2);
  EXPECT_TRUE(any_warning(rec, named(g))) << rec.dump(2);
  EXPECT_TRUE(any_warning(rec, "stopped them")) << rec.dump(2);
  reap_stray(g);
}

TEST(SignalsRound2, AFillChildsGrandchildIsStoppedAndNamedBeforeTheNextCell) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc; macOS checks only the process group";
#endif
  Tmp t;
  const std::string pids = t.path + "/grandchildren.pid";
  // wmbench-fill behind a shell that leaves a `sleep 600` in each run (not in the --hello-only probe).
  const std::string fill = script(t.path, "fill-with-grandchild",
                                  "#!/bin/sh\ncase \" $* \" in *\" --hello-only \"*) ;; *) sleep 600 & echo $! >> '" + pids +
                                      "';; esac\nexec '" + WMBENCH_FILL_BIN + "' \"$@\"\n");
  const std::string sc = scenario(t.path, "two", R"({"name": "two", "device": "mps-model", "step": "4MiB", "cap": "8MiB",
      "timeout": "60s", "matrix": [{"label": "a"}, {"label": "b"}]})");
  RunOpts o;
  o.set_env["WMBENCH_FILL"] = fill;
  o.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";  // the model in wmbench-fill itself (cli_util.h)
  o.unset_env = {"WMBENCH_PYTHON_CHILD"};
  const Result r = run({WMBENCH_BIN, "run", sc, "--out", t.path + "/out", "--no-plots"}, o);
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<pid_t> left;
  std::istringstream in(slurp(pids));
  for (pid_t p = 0; in >> p;) left.push_back(p);
  ASSERT_EQ(left.size(), 2u) << "one grandchild per run: " << slurp(pids) << r.err;
  const std::string dir = only_result_dir(t.path + "/out");
  for (size_t i = 0; i < left.size(); ++i) {
    EXPECT_FALSE(alive(left[i])) << "the grandchild of run " << i + 1 << " outlived wmbench run";
    const auto rec = read_json(dir + (i == 0 ? "/runs/01-a.json" : "/runs/02-b.json"));
    EXPECT_EQ(rec.value("stopped_by", ""), "cap") << rec.dump(2);
    EXPECT_TRUE(any_warning(rec, named(left[i]))) << "named in its own run's record: " << rec.dump(2);
    EXPECT_TRUE(any_warning(rec, "stopped them")) << rec.dump(2);
    reap_stray(left[i]);
  }
}

TEST(SignalsRound2, GuardStopsAndNamesTheGrandchildWithoutACgroup) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc; macOS checks only the process group";
#endif
  // Two ways without a cgroup: a real non-root guard, and root's WMBENCH_GUARD_NO_CGROUP=1.
  for (const bool non_root : {true, false}) {
    Tmp t;
    std::string why;
    std::vector<std::string> argv = non_root ? as_non_root(why, t.path) : std::vector<std::string>{};
    if (non_root && !why.empty()) {
      std::cout << "[ skipped part ] " << why << "\n";
      continue;
    }
    const std::string pidfile = t.path + "/grandchild.pid";
    for (const char* a : {WMBENCH_BIN, "guard", "--grace", "2s", "--"}) argv.push_back(a);
    for (const auto& a : grandchild_job(pidfile, "true")) argv.push_back(a);
    RunOpts o;
    if (!non_root) o.set_env["WMBENCH_GUARD_NO_CGROUP"] = "1";
    const Result r = run(argv, o);
    const pid_t g = pid_in(pidfile);
    ASSERT_NE(g, 0) << r.err;
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(alive(g)) << (non_root ? "non-root" : "NO_CGROUP") << ": the grandchild outlived the guard: " << r.err;
    EXPECT_TRUE(has(r.err, named(g))) << r.err;
    EXPECT_TRUE(has(r.err, "stopped them (SIGTERM was enough)")) << r.err;
    reap_stray(g);
  }
}

TEST(SignalsRound2, GuardStopsTheGrandchildThroughItsCgroupAsRoot) {
  WMBT_SKIP_IF(no_tracking_cgroup());
  Tmp t;
  const std::string pidfile = t.path + "/grandchild.pid";
  std::vector<std::string> argv = {WMBENCH_BIN, "guard", "--grace", "2s", "--"};
  for (const auto& a : grandchild_job(pidfile, "true")) argv.push_back(a);
  RunOpts o;
  o.unset_env = {"WMBENCH_GUARD_NO_CGROUP"};
  const Result r = run(argv, o);
  const pid_t g = pid_in(pidfile);
  ASSERT_NE(g, 0) << r.err;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(alive(g)) << "the grandchild outlived the guard: " << r.err;
  EXPECT_TRUE(has(r.err, "in its cgroup")) << r.err;
  EXPECT_TRUE(has(r.err, named(g))) << r.err;
  reap_stray(g);
}

TEST(SignalsRound2, AGrandchildThatIgnoresSigtermIsKilledAfterTheGraceAndSaidSo) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc";
#endif
  Tmp t;
  const std::string pidfile = t.path + "/grandchild.pid";
  RunOpts o;
  o.set_env["WMBENCH_GUARD_NO_CGROUP"] = "1";
  // The grandchild writes its pid once it ignores SIGTERM; the leader ends only after that.
  const Result r = run({WMBENCH_BIN, "guard", "--grace", "1s", "--", "/bin/sh", "-c",
                        "sh -c 'trap \"\" TERM; echo $$ > " + pidfile + "; while :; do sleep 0.2; done' & "
                        "while [ ! -s '" + pidfile + "' ]; do sleep 0.05; done; exit 0"},
                       o);
  const pid_t g = pid_in(pidfile);
  ASSERT_NE(g, 0) << r.err;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(alive(g)) << "it outlived the guard: " << r.err;
  EXPECT_TRUE(has(r.err, fmt::format("pid {} (sh)", g))) << r.err;
  EXPECT_TRUE(has(r.err, "SIGKILL was needed after the 1 s grace")) << r.err;
  reap_stray(g);
}

// ---- Ctrl-Z ------------------------------------------------------------------------------------

namespace {

// The states of the live members of process group `pgid`, e.g. "T T" ('' when none).
std::string group_states(pid_t pgid) {
  std::string out;
  for (pid_t p : group_members(pgid)) {
    const char st = proc_state(p);
    if (st && st != 'Z') out += st;
  }
  return out;
}

// Every member is stopped: 'T' (or 't'), or 'D' for a shell waiting in vfork(2) for a child that
// was stopped before its exec (dash uses vfork), with at least one 'T'.
bool group_stopped(pid_t pgid) {
  const std::string s = group_states(pgid);
  return s.find_first_of("Tt") != std::string::npos && s.find_first_not_of("TtD") == std::string::npos;
}

// While `wmbench` (pid) runs: waits for its child, sends SIGTSTP to wmbench, checks that the
// child's whole process group and wmbench stop, sends SIGCONT, checks that both run again.
struct CtrlZSeen {
  pid_t child = 0;
  std::string group_when_stopped, group_when_resumed;
  char self_stopped = 0, self_resumed = 0;
  bool group_stopped = false;
  // Another process to watch (one the job moved out of its group): its pid is read from this
  // file once the child is ready; its states while stopped and after SIGCONT.
  std::string other_pidfile;
  pid_t other = 0;
  char other_when_stopped = 0, other_when_resumed = 0;
};

// Once wmbench's child is there and `child_ready` says so: Ctrl-Z (SIGTSTP to wmbench), wait until
// wmbench and the child's group are stopped, hold them stopped for `hold` seconds, then SIGCONT and
// wait until they run again; what was seen goes into `seen`.
void ctrl_z_then_continue(pid_t wmbench, CtrlZSeen& seen, const std::function<bool(pid_t)>& child_ready,
                          double hold = 0) {
  wait_for([&] { return (seen.child = child_of(wmbench)) != 0 && child_ready(seen.child); }, kDeadline);
  if (!seen.child) return;
  const pid_t g = seen.child;  // the child leads its own process group
  ::kill(wmbench, SIGTSTP);
  seen.group_stopped = wait_for([&] { return group_stopped(g) && proc_state(wmbench) == 'T'; }, kDeadline);
  seen.group_when_stopped = group_states(g);
  seen.self_stopped = proc_state(wmbench);
  if (!seen.other_pidfile.empty() && (seen.other = pid_in(seen.other_pidfile)) != 0) {
    wait_for([&] { return proc_state(seen.other) == 'T'; }, 5);
    seen.other_when_stopped = proc_state(seen.other);
  }
  if (hold > 0) std::this_thread::sleep_for(std::chrono::duration<double>(hold));
  ::kill(wmbench, SIGCONT);
  wait_for([&] { return group_states(g).find_first_of("Tt") == std::string::npos && proc_state(wmbench) != 'T'; },
           kDeadline);
  seen.group_when_resumed = group_states(g);
  seen.self_resumed = proc_state(wmbench);
  if (seen.other) {
    // Running again ('S' sleeping, 'R'), not merely no longer stopped: gone or a zombie is not it.
    wait_for([&] { return proc_state(seen.other) == 'S' || proc_state(seen.other) == 'R'; }, 5);
    seen.other_when_resumed = proc_state(seen.other);
  }
}

void expect_stopped_then_resumed(const CtrlZSeen& s) {
  ASSERT_NE(s.child, 0) << "no child was seen";
  EXPECT_TRUE(s.group_stopped) << "the child's group kept running while wmbench was stopped: states '"
                               << s.group_when_stopped << "', wmbench '" << s.self_stopped << "'";
  EXPECT_EQ(s.self_stopped, 'T') << "wmbench itself did not stop on SIGTSTP";
  EXPECT_EQ(s.group_when_resumed.find_first_of("Tt"), std::string::npos)
      << "the child's group stayed stopped after SIGCONT: " << s.group_when_resumed;
  EXPECT_NE(s.self_resumed, 'T') << "wmbench stayed stopped after SIGCONT";
}

// Starts wmbench through `start` (given the options to run it with) and Ctrl-Zs it once its child
// is ready (`child_ready`), holding it `hold` seconds before SIGCONT; returns what `start` returned.
Result run_with_ctrl_z(const std::function<Result(const RunOpts&)>& start, const std::function<bool(pid_t)>& child_ready,
                       CtrlZSeen& seen, double hold = 0) {
  RunOpts o;
  o.timeout = 300;
  o.while_running = [&](pid_t w) { ctrl_z_then_continue(w, seen, child_ready, hold); };
  return start(o);
}

// The job has written its pid into `file`: it runs.
std::function<bool(pid_t)> job_started(const std::string& file) {
  return [file](pid_t) { return pid_in(file) != 0; };
}

// A job that runs about 3 s of its own time (30 short sleeps) and says it is there first; `first`
// (shell commands, each ending in `;`) runs before it says so.
std::vector<std::string> slow_job(const std::string& started, const std::string& first = "") {
  return {"/bin/sh", "-c",
          first + "echo $$ > '" + started + "'; i=0; while [ $i -lt 30 ]; do i=$((i+1)); sleep 0.1; done; echo done"};
}

}  // namespace

TEST(SignalsRound2, CtrlZStopsRunAndItsCommandChildAndContinueFinishesTheRun) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#endif
  Tmp t;
  const std::string started = t.path + "/started";
  CtrlZSeen seen;
  const Result r = run_with_ctrl_z([&](const RunOpts& o) { return run_command(t, {}, slow_job(started), o); },
                                   job_started(started), seen);
  expect_stopped_then_resumed(seen);
  EXPECT_EQ(r.status, 0) << r.err;
  const auto rec = the_record(t);
  EXPECT_EQ(rec.value("stopped_by", ""), "finished") << rec.dump(2);
  EXPECT_TRUE(rec.contains("exit_code") && rec["exit_code"] == 0) << rec.dump(2);
}

// As root the job runs in a cgroup of its own (child/job_watch.h): Ctrl-Z stops every process in
// it, also a daemon the job moved out of its process group with setsid, and SIGCONT continues it.
namespace {

// Ctrl-Z and SIGCONT while the job runs a daemon it moved out of its process group (setsid(1)):
// only the job's cgroup still knows it. `start` runs the job under wmbench with the options given.
Result ctrl_z_with_a_daemon(const Tmp& t, const std::function<Result(const std::vector<std::string>&, const RunOpts&)>& start,
                            CtrlZSeen& seen) {
  const std::string started = t.path + "/started", daemon = t.path + "/daemon";
  // In `sh -c` the background child leads no group, so setsid(1) execs sleep in place: $! is it.
  // Its pid is written before the job says it started.
  const auto job = slow_job(started, leave_a_sleeper_line() + " echo $! > '" + daemon + "'; ");
  seen.other_pidfile = daemon;
  const Result r = run_with_ctrl_z([&](const RunOpts& o) { return start(job, o); }, job_started(started), seen);
  expect_stopped_then_resumed(seen);
  EXPECT_NE(seen.other, 0) << "the daemon's pid was not seen";
  EXPECT_EQ(seen.other_when_stopped, 'T') << "the daemon outside the job's group ran on while wmbench was stopped";
  EXPECT_TRUE(seen.other_when_resumed == 'S' || seen.other_when_resumed == 'R')
      << "the daemon did not run again after SIGCONT: state '" << seen.other_when_resumed << "'";
  return r;
}

}  // namespace

TEST(SignalsRound2, CtrlZAlsoStopsWhatTheJobMovedOutOfItsGroupWhenItHasACgroup) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#endif
  if (::geteuid() != 0) GTEST_SKIP() << "not root: the job runs in no cgroup of its own (CI runs as root)";
  Tmp t;
  CtrlZSeen seen;
  const Result r = ctrl_z_with_a_daemon(
      t, [&](const std::vector<std::string>& job, const RunOpts& o) { return run_command(t, {}, job, o); }, seen);
  EXPECT_EQ(r.status, 0) << r.err;
  const auto rec = the_record(t);
  EXPECT_EQ(rec.value("stopped_by", ""), "finished") << rec.dump(2);
  reap_stray(seen.other);  // stopped and named at the job's end; killed here if a failure left it
}

// `wmbench guard --ram-limit` runs its command in a memory cgroup (guard_command.cpp): Ctrl-Z reaches
// what the command moved out of its group through it, as for `run`.
TEST(SignalsRound2, GuardWithARamLimitCtrlZAlsoStopsWhatTheCommandMovedOutOfItsGroup) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#else
  if (const auto support = wmb::sandbox_support(); !support.ok)
    GTEST_SKIP() << "--ram-limit cannot run here (scripts/test.sh makes swap as root): " << support.why_not;
  Tmp t;
  CtrlZSeen seen;
  const Result r = ctrl_z_with_a_daemon(
      t,
      [&](const std::vector<std::string>& job, const RunOpts& o) {
        std::vector<std::string> argv = {WMBENCH_BIN, "guard", "--ram-limit", "256MiB", "--"};
        argv.insert(argv.end(), job.begin(), job.end());
        return run(argv, o);
      },
      seen);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "done")) << r.out << r.err;
  reap_stray(seen.other);
#endif
}

TEST(SignalsRound2, CtrlZStopsTheGuardAndItsCommandInAnOrphanedProcessGroupToo) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#endif
  // setsid(1) makes the guard a session (and process group) of its own whose parent is outside it:
  // an orphaned process group, where the kernel discards a SIGTSTP whose default action would stop
  // it (signal(7)). wmbench must stop itself anyway, or its child would stay stopped without it.
  const std::string setsid = find_on_path("setsid");
  if (setsid.empty()) GTEST_SKIP() << "no setsid(1) on PATH (util-linux) to make an orphaned process group";
  Tmp t;
  const std::string started = t.path + "/started";
  CtrlZSeen seen;
  // setsid execs the guard in place (the forked test child is no group leader), so `w` is the guard.
  std::vector<std::string> argv = {setsid, WMBENCH_BIN, "guard", "--"};
  for (const auto& a : slow_job(started)) argv.push_back(a);
  const Result r = run_with_ctrl_z(
      [&](const RunOpts& o) {
        RunOpts not_a_leader = o;
        not_a_leader.own_group = false;  // else setsid(1) forks and `w` is not the guard
        return run(argv, not_a_leader);
      },
      job_started(started), seen);
  expect_stopped_then_resumed(seen);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "done")) << r.out << r.err;
}

TEST(SignalsRound2, CtrlZStopsRunAndItsFillChildAndContinueFinishesTheRun) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#endif
  Tmp t;
  // 20 steps of 4 MiB, 0.25 s apart: about 5 s of filling.
  const std::string sc = scenario(t.path, "slow", R"({"name": "slow", "device": "mps-model", "step": "4MiB", "cap": "80MiB",
      "step_delay": "0.25s", "timeout": "300s", "matrix": [{"label": "a"}]})");
  CtrlZSeen seen;
  // The run's fill child, not the pre-folder probe (`--hello-only`): known by its argv.
  const auto fill_child = [](pid_t c) {
    std::string argv = slurp("/proc/" + std::to_string(c) + "/cmdline");
    std::replace(argv.begin(), argv.end(), '\0', ' ');
    return has(argv, "--step-delay") && !has(argv, "--hello-only");
  };
  const Result r = run_with_ctrl_z(
      [&](const RunOpts& o) { return wmbench({"run", sc, "--out", t.path + "/out", "--no-plots"}, o); }, fill_child,
      seen);
  expect_stopped_then_resumed(seen);
  EXPECT_EQ(r.status, 0) << r.err;
  const auto rec = the_record(t);
  EXPECT_EQ(rec.value("stopped_by", ""), "cap") << rec.dump(2);
}

TEST(SignalsRound2, CtrlZStopsTheGuardAndItsCommandAndContinueEndsItNormally) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#endif
  Tmp t;
  const std::string started = t.path + "/started";
  CtrlZSeen seen;
  std::vector<std::string> argv = {WMBENCH_BIN, "guard", "--"};
  for (const auto& a : slow_job(started)) argv.push_back(a);
  const Result r = run_with_ctrl_z([&](const RunOpts& o) { return run(argv, o); }, job_started(started), seen);
  expect_stopped_then_resumed(seen);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "done")) << "the command ran to its end: " << r.out << r.err;
}

// ---- info, charts, the pre-folder probe: 128+N -------------------------------------------------

namespace {

// A "wmbench-fill" that never answers: it starts a `sleep` in its own process group (pid in
// `pidfile`, its own pid in `pidfile`.self) and waits.
std::string slow_fill(const Tmp& t, const std::string& pidfile) {
  return script(t.path, "slow-fill",
                "#!/bin/sh\necho $$ > '" + pidfile + ".self'\nsleep 600 &\necho $! > '" + pidfile + "'\nwait\n");
}

}  // namespace

TEST(SignalsRound2, InfoKilledBySigtermWhileItsChildProbesLeavesNoneOfTheChildsGroupAndExits143) {
  Tmp t;
  const std::string pidfile = t.path + "/probe.pid";
  RunOpts o;
  o.timeout = 120;
  o.set_env["WMBENCH_FILL"] = slow_fill(t, pidfile);
  o.unset_env = {"WMBENCH_PYTHON_CHILD"};
  pid_t leader = 0, sleeper = 0;
  o.while_running = [&](pid_t w) {
    sleeper = await_pid(pidfile);
    leader = pid_in(pidfile + ".self");
    if (sleeper) ::kill(w, SIGTERM);
  };
  const Result r = run({WMBENCH_BIN, "info"}, o);
  ASSERT_NE(sleeper, 0) << "the fake child never started: " << r.err;
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.out << r.err;
  EXPECT_TRUE(wait_for([&] { return !alive(sleeper) && !alive(leader); }, 5))
      << "info left its child's group running: " << leader << ", " << sleeper;
  EXPECT_FALSE(has(r.err, "cannot be used as wmbench-fill")) << "the child is blamed for the signal: " << r.err;
  EXPECT_TRUE(group_members(leader).empty()) << "a member of the child's process group is left";
  reap_stray(sleeper);
  reap_stray(leader);
}

TEST(SignalsRound2, SigintOrSigtermDuringRunsProbeOfWmbenchFillExits128PlusNNeverBlamingTheChild) {
  for (const int sig : {SIGINT, SIGTERM}) {
    Tmp t;
    const std::string pidfile = t.path + "/probe.pid";
    RunOpts o;
    o.timeout = 120;
    o.set_env["WMBENCH_FILL"] = slow_fill(t, pidfile);
    o.unset_env = {"WMBENCH_PYTHON_CHILD"};
    pid_t sleeper = 0;
    o.while_running = [&](pid_t w) {
      if ((sleeper = await_pid(pidfile))) ::kill(w, sig);
    };
    const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "cpu", "step": "4MiB", "cap": "8MiB",
        "timeout": "60s", "matrix": [{"label": "a"}]})");
    const Result r = run({WMBENCH_BIN, "run", sc, "--out", t.path + "/out", "--no-plots"}, o);
    ASSERT_NE(sleeper, 0) << r.err;
    EXPECT_EQ(r.status, 128 + sig) << r.err;
    EXPECT_FALSE(has(r.err, "cannot be used as wmbench-fill")) << r.err;
    EXPECT_TRUE(has(r.err, "nothing was run")) << r.err;
    EXPECT_FALSE(file_exists(t.path + "/out")) << "a folder was made although nothing ran";
    EXPECT_TRUE(wait_for([&] { return !alive(sleeper); }, 5)) << "the probe's sleep is left";
    reap_stray(sleeper);
  }
}

TEST(SignalsRound2, SigintOrSigtermWhileTheChartsAreDrawnExits128PlusN) {
  for (const int sig : {SIGINT, SIGTERM}) {
    Tmp t;
    const std::string pidfile = t.path + "/chart.pid";
    // A "python3 with matplotlib" whose chart scripts never end: the probe `-c 'import matplotlib'`
    // says yes, a script writes its pid and sleeps.
    const std::string py = script(t.path, "python3",
                                  "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = 'import matplotlib' ] && exit 0; done\n"
                                  "echo $$ > '" + pidfile + "'\nexec sleep 600\n");
    RunOpts o;
    o.timeout = 300;
    o.set_env["WMBENCH_PYTHON"] = py;
    pid_t chart = 0;
    o.while_running = [&](pid_t w) {
      if ((chart = await_pid(pidfile))) ::kill(w, sig);
    };
    const std::string sc = scenario(t.path, "one", R"({"name": "one", "device": "mps-model", "step": "4MiB", "cap": "8MiB",
        "timeout": "60s", "matrix": [{"label": "a"}]})");
    const Result r = wmbench({"run", sc, "--out", t.path + "/out"}, o);
    ASSERT_NE(chart, 0) << "the chart script never started: " << r.out << r.err;
    EXPECT_EQ(r.status, 128 + sig) << r.out << r.err;
    EXPECT_TRUE(has(r.err, "while drawing the charts")) << r.err;
    EXPECT_FALSE(has(r.err, "chart table.py failed")) << "the chart is blamed for the signal: " << r.err;
    EXPECT_FALSE(has(r.err, "chart traces.py")) << "the next chart ran after the signal: " << r.err;
    EXPECT_FALSE(has(r.out, "Charts: ")) << "charts claimed: " << r.out;
    EXPECT_TRUE(wait_for([&] { return !alive(chart); }, 5)) << "the chart python is left";
    const auto rec = the_record(t);
    EXPECT_EQ(rec.value("stopped_by", ""), "cap") << "every run is recorded: " << rec.dump(2);
    reap_stray(chart);
  }
}

TEST(SignalsRound2, TheTimeoutCountsTheTimeTheRunRanNotTheTimeItWasStopped) {
#ifndef __linux__
  GTEST_SKIP() << "reads /proc/PID/stat";
#endif
  // A job of one `sleep 3` under a 4 s timeout, held stopped by Ctrl-Z for 5 s: it ran well inside
  // the timeout (its sleep's 3 s pass while it is stopped too, so it ends at once on SIGCONT), so it
  // finishes; counted by the wall clock (over 5 s) it would have been a `timeout`. 3 s, so that the
  // Ctrl-Z lands while it runs however late a loaded machine wakes this test.
  Tmp t;
  const std::string started = t.path + "/started";
  const std::string sc = scenario(t.path, "short", R"({"name": "short", "device": "cpu", "timeout": "4s",
    "guard": {"grace": "2s"}, "matrix": [{"label": "a"}]})");
  CtrlZSeen seen;
  // Held stopped 5 s: the stop itself is what the test is about.
  const Result r = run_with_ctrl_z(
      [&](const RunOpts& o) {
        return wmbench({"run", sc, "--command", "--no-plots", "--out", t.path + "/out", "--", "/bin/sh", "-c",
                        "echo $$ > '" + started + "'; sleep 3; echo done"},
                       o);
      },
      job_started(started), seen, 5);
  expect_stopped_then_resumed(seen);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const auto rec = the_record(t);
  EXPECT_EQ(rec.value("stopped_by", ""), "finished") << rec.dump(2);
}

}  // namespace test_signals_round2
