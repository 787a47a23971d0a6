// One run: wait for room, a sandbox, spawn the child, supervise it, classify, record. And the
// loop over the plan that calls it.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <ctime>
#include <memory>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "io/files.h"
#include "common/interrupt.h"
#include "common/units.h"
#include "io/utf8.h"
#include "proctree/leftovers.h"
#include "proctree/tree_probe.h"
#include "runner/build_record.h"
#include "child/child_command.h"
#include "results/rescue_record.h"
#include "verdict/classify.h"
#include "verdict/classify_job.h"
#include "verdict/diagnostic_reports.h"
#include "child/job_watch.h"
#include "runner/progress.h"
#include "runner/stages.h"
#include "runner/watch.h"
#include "sandbox/sandbox.h"
#include "spawn/process.h"
#include "trace/trace_writer.h"

namespace wmb {
namespace {

// A child's stderr log is kept up to this size; the classifier reads only its tail.
constexpr unsigned long long kMaxStderrLogBytes = 16ull << 20;

// Closes an fd at the end of the scope.
struct FdCloser {
  int fd = -1;
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  ~FdCloser() { close(); }
};

// A sleeper that wakes early when the parent gets SIGINT/SIGTERM/SIGHUP.

// What every run of a session shares.
struct Session {
  Session(const RunnerOptions& o, Prepared& p, MemoryProbe& pr, std::ostream& e)
      : opts(o), prep(p), probe(pr), err(e), progress(e) {}
  const RunnerOptions& opts;
  Prepared& prep;
  MemoryProbe& probe;
  std::ostream& err;
  SteadyClock clock;
  InterruptibleSleeper sleeper;
  ProgressLine progress;
  std::map<std::string, std::string> parent_env = current_environment();
  bool hello_noted = false;  // machine.json has this session's torch facts
  SessionEnd end;
};

// Writes runs/<NN>-<label>.json; false (and the error kept) when the disk refuses.
bool write_record(Session& s, RunRecord& r) {
  r.ended_utc = utc_now_iso();
  fit_run_record(r);  // the readers' bounds (results/run_record.h): never a record they refuse
  try {
    s.prep.held->folder.write_json("runs/" + r.file_stem() + ".json", to_json(r));
    return true;
  } catch (const FileError& e) {
    // The measurement is kept: written beside (results/rescue_record.h), and said where.
    std::string why;
    const std::string put = rescue_record(s.prep.held->folder, r.file_stem(), to_json(r), why);
    s.end.write_error = put.empty()
                            ? fmt::format("{}; the record could not be written anywhere else either ({}); here it is, "
                                          "to keep as runs/{}.json: {}",
                                          e.what(), why, r.file_stem(), rescue_record_text(to_json(r)))
                            : fmt::format("{}; the run's record was written to {} instead: check it, then move it to "
                                          "runs/{}.json",
                                          e.what(), put, r.file_stem());
    return false;
  }
}

void trace_start(TraceWriter& trace, const Session& s, const RunRecord& rec, pid_t pid) {
  const Scenario& sc = s.opts.scenario;
  trace.line({{"type", "start"},
              {"utc", rec.started_utc},
              {"interval", sc.guard.interval},
              {"label", rec.label},
              {"env", rec.env},
              {"pid", pid},
              {"device", sc.device},
              {"step_bytes", s.prep.sizes.step},
              {"swap_budget_bytes", s.prep.sizes.swap_budget},
              {"sandbox_bytes", s.opts.ram_limit ? nlohmann::json(*s.opts.ram_limit) : nlohmann::json(nullptr)}});
}

SuperviseOptions supervise_options(const Session& s, const Sandbox* sandbox, TraceWriter* trace) {
  const Scenario& sc = s.opts.scenario;
  SuperviseOptions sup;
  sup.guard = s.prep.guard;
  sup.sample_interval = sc.guard.interval;
  sup.timeout = sc.timeout;
  sup.grace = sc.guard.grace;
  sup.cgroup_dir = sandbox ? sandbox->dir() : "";
  sup.trace = trace;
  return sup;
}

// macOS jetsam: a SIGKILL wmbench did not send, and a JetsamEvent report of the run's time that
// names the child (verdict/diagnostic_reports.h). ReportCrash writes the report just after the
// kill, so it is looked for again for up to kJetsamReportWait seconds; where there are no report
// folders (Linux, unless WMBENCH_DIAGNOSTIC_REPORTS names one) nothing is looked for.
constexpr double kJetsamReportWait = 3.0;

void find_jetsam_kill(SuperviseResult& res, pid_t pid) {
  if (res.stopper != Stopper::None || !res.status.signal || *res.status.signal != SIGKILL) return;
  const std::vector<std::string> dirs = diagnostic_report_dirs();
  if (dirs.empty()) return;
  const int64_t since = static_cast<int64_t>(std::time(nullptr)) - static_cast<int64_t>(res.duration) - 2;
  for (int tries = static_cast<int>(kJetsamReportWait / 0.25); tries >= 0; --tries) {
    if (const auto kill = jetsam_kill_of(dirs, pid, since)) {
      res.jetsam_reason = kill->reason.empty() ? "not given" : kill->reason;
      res.jetsam_report = kill->report_path;
      return;
    }
    if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// The child is running: watch it to its end, then fold everything into the record.
// Returns the signal that interrupted the session while it ran, else 0.
// `job`: the command child's logs and cgroup (job_watch.h), nullptr for a fill child.
int watch_child(Session& s, const Child& child, RunRecord& rec, std::unique_ptr<TraceWriter> trace,
                    std::unique_ptr<Sandbox> sandbox, uint64_t swap_before, const std::string& head, JobRun* job = nullptr) {
  trace_start(*trace, s, rec, child.pid);
  SuperviseOptions sup = supervise_options(s, sandbox.get(), trace.get());
  RunWatch watch(s.probe, *trace, s.progress, head, child.pid, swap_before);
  watch.attach(sup);
  TreeProbe tree(s.probe);  // a job's footprint is its whole process tree's
  if (job) job->attach(sup, sandbox.get());
  SuperviseResult res = supervise(child, sup, job ? static_cast<MemoryProbe&>(tree) : s.probe, s.clock, swap_before);
  if (!job) find_jetsam_kill(res, child.pid);
  std::vector<std::string> job_warnings;
  if (job) job_warnings = job->end(sandbox.get(), child.pid, s.opts.scenario.guard.grace);
  // A fill child's leftovers (a process it forked) never outlive the run: stopped and named
  // (proctree/leftovers.h), in its sandbox or by the pids found.
  else if (std::string said = stop_what_is_left(sandbox.get(), child.pid, s.opts.scenario.guard.grace); !said.empty())
    job_warnings.push_back(std::move(said));
  const std::string stderr_tail =
      job ? job->stderr_tail() : s.prep.held->folder.read_tail("runs/" + rec.file_stem() + ".stderr.log", 4096);
  const Classification cls = job ? classify_job(res, stderr_tail) : classify(res, watch.report(), stderr_tail);
  WatchedRun w{res, watch.report(), cls, sandbox ? sandbox->peak_usage() : std::nullopt, s.opts.scenario.guard.grace, job_warnings};
  if (res.stopper == Stopper::None && cls.stopped_by != "crash" && cls.stopped_by != "kernel") trace->line({{"type", "end"}});
  if (!trace->error().empty()) w.late_warnings.push_back(trace->error());
  if (!job) note_capped_log(s.prep.held->folder, "runs/" + rec.file_stem() + ".stderr.log", kMaxStderrLogBytes, w.late_warnings);
  trace.reset();
  if (sandbox) {
    std::string e = sandbox->remove();
    if (!e.empty()) w.late_warnings.push_back(e);
  }
  record_watched_run(rec, w);
  if (job && !stderr_tail.empty()) rec.error_text = utf8_sanitize(stderr_tail);  // the job's stderr tail
  if (watch.report().hello && !s.hello_noted) {
    s.hello_noted = true;
    note_child_hello(s.prep.machine, *watch.report().hello, s.prep.model.has_value(), rec.recommended_max_bytes);
  }
  return res.stopper == Stopper::Interrupted ? res.interrupt_signal : 0;
}

std::string outcome_line(const std::string& head, const RunRecord& rec) {
  const int64_t grow = static_cast<int64_t>(rec.swap_after_bytes) - static_cast<int64_t>(rec.swap_before_bytes);
  return fmt::format("{}: {} | held {:.2f} GiB | swap {:+.2f} GiB | {:.1f} s | {}", head, rec.stopped_by,
                     static_cast<double>(rec.held_bytes) / GiB, static_cast<double>(grow) / GiB, rec.duration_s,
                     rec.detail);
}

// The run's sandbox (--ram-limit), else a job's tracking cgroup, into `sandbox`. False when the
// session must stop (the sandbox could not be made: said on s.err, exit code 2).
bool open_sandbox(Session& s, const RunRecord& rec, bool is_job, std::unique_ptr<Sandbox>& sandbox) {
  if (s.opts.ram_limit) {
    try {
      sandbox = std::make_unique<Sandbox>(*s.opts.ram_limit, rec.label);
    } catch (const SandboxError& e) {
      s.err << "wmbench run: " << e.what() << "\n";
      s.end.exit_code = 2;
      return false;
    }
  }
  if (is_job && !sandbox) sandbox = JobRun::tracking_cgroup(rec.label);
  return true;
}

// How the run's child is started: its argv and environment, stdout captured, the stderr log's
// bound for a fill child, the sandbox's cgroup (the stderr fd is set once the log is open).
SpawnOptions run_spawn_options(const Session& s, const PlannedRun& pr, const RunRecord& rec, bool is_job,
                               const Sandbox* sandbox) {
  const Scenario& sc = s.opts.scenario;
  SpawnOptions so;
  so.argv = s.prep.child->argv(fill_flags(sc, s.prep.sizes, rec.data, lever::model_for_cell(s.prep.model, *pr.cell),
                                          s.opts.model_revision, pr.cell->memory_fraction, s.opts.model_other));
  so.env = s.prep.child->environment(s.parent_env, pr.cell->env);
  so.capture_stdout = true;
  // The fill child's stderr log has a bound (a child writing 1 GiB of warnings): RLIMIT_FSIZE, as
  // it writes the file itself. A job's stderr comes through a pipe into a BoundedLog
  // (child/job_output.h), and the job's own files (a checkpoint) are none of wmbench's business:
  // RLIMIT_FSIZE on it made every write of a file past 16 MiB fail with EFBIG.
  if (!is_job) so.max_file_bytes = kMaxStderrLogBytes;
  if (sandbox) so.cgroup_procs = sandbox->procs_file();
  return so;
}

// Opens the run's trace, and a job's logs (JobRun, which sets them into `so`) or a fill child's
// stderr log. False (the error kept as the session's write error) when one cannot be opened.
bool open_run_files(Session& s, const RunRecord& rec, bool is_job, SpawnOptions& so,
                    std::unique_ptr<TraceWriter>& trace, FdCloser& stderr_log, std::unique_ptr<JobRun>& job) {
  // The trace and the stderr log: opened inside the folder, never through a planted link.
  const Folder& folder = s.prep.held->folder;
  try {
    trace = std::make_unique<TraceWriter>(folder.open_for_write(rec.trace, O_TRUNC | O_APPEND), folder.display(rec.trace));
    if (is_job)
      job = std::make_unique<JobRun>(folder, rec.file_stem(), so);
    else
      stderr_log.fd = folder.open_for_write("runs/" + rec.file_stem() + ".stderr.log", O_TRUNC);
  } catch (const FileError& e) {
    s.end.write_error = e.what();
    return false;
  } catch (const SpawnError& e) {
    s.end.write_error = e.what();
    return false;
  }
  return true;
}

// One planned run. Returns false when the session must stop (signal, disk, sandbox).
bool run_one(Session& s, const PlannedRun& pr, size_t pos, size_t total) {
  const Scenario& sc = s.opts.scenario;
  RunRecord rec = begin_record(pr, sc, s.prep.sizes);
  const std::string head = fmt::format("[run {}/{}] {}", pos, total, rec.label);

  WaitOutcome w = wait_for_free(s.probe, s.clock, s.sleeper, s.prep.guard.wait_free, s.prep.guard.wait_free_timeout);
  rec.wait_s = w.waited;
  rec.started_utc = utc_now_iso();
  if ((s.end.interrupted_by = interrupt_signal())) return false;
  if (!w.ok) {
    record_not_started(rec, w.why);
    s.progress.finish(fmt::format("{}: not started: {}", head, w.why));
    return write_record(s, rec);
  }
  const bool is_job = is_job_child(*s.prep.child);
  std::unique_ptr<Sandbox> sandbox;
  if (!open_sandbox(s, rec, is_job, sandbox)) return false;
  SpawnOptions so = run_spawn_options(s, pr, rec, is_job, sandbox.get());

  std::unique_ptr<TraceWriter> trace;
  FdCloser stderr_log;
  std::unique_ptr<JobRun> job;
  if (!open_run_files(s, rec, is_job, so, trace, stderr_log, job)) return false;
  if (!is_job) so.stderr_fd = stderr_log.fd;
  uint64_t swap_before = 0;
  try {
    swap_before = s.probe.system().swap_used;
  } catch (const ProbeError& e) {
    record_not_started(rec, fmt::format("the memory probe failed before the start: {}", e.what()));
    return write_record(s, rec);
  }
  // The cell's iogpu.wired_limit_mb (harness/lever/): set and read back now, put back after the child.
  lever::RunHold lever_hold(s.prep.lever.get(), *pr.cell, s.prep.held->folder, rec.file_stem());
  if (!lever_hold.refused().empty()) {
    record_not_started(rec, lever_hold.refused());
    s.progress.finish(fmt::format("{}: not started: {}", head, rec.detail));
    s.end.exit_code = 1;
    write_record(s, rec);
    return false;
  }
  Child child;
  CtrlZHold ctrl_z;  // a Ctrl-Z before the child's group is watched waits for it (common/interrupt.h)
  try {
    child = spawn_child(so);
  } catch (const SpawnError& e) {
    // Not started: a later --resume runs it again. The rest would fail the same way: the session stops.
    record_spawn_failure(rec, s.prep.child->cannot_start(e.what()), swap_before);
    s.progress.finish(fmt::format("{}: {}", head, rec.detail));
    s.end.exit_code = 1;
    write_record(s, rec);
    return false;
  }
  stderr_log.close();
  if (job) job->started();
  // Ctrl-Z stops the child (its group and its cgroup) with wmbench (common/interrupt.h).
  set_watched_child_group(child.pid, so.cgroup_procs);
  ctrl_z.release();
  const int interrupted = watch_child(s, child, rec, std::move(trace), std::move(sandbox), swap_before, head, job.get());
  set_watched_child_group(0);
  if (std::string back = lever_hold.restore(); !back.empty()) {
    rec.warnings.push_back(back);
    s.err << "wmbench run: " << back << "\n";
    s.end.exit_code = 1;
  }
  s.progress.finish(outcome_line(head, rec));
  if (!write_record(s, rec)) return false;
  s.end.interrupted_by = interrupted;
  return !interrupted;
}

}  // namespace

SessionEnd run_all(const RunnerOptions& opts, const Plan& plan, Prepared& prep, MemoryProbe& probe, std::ostream& err) {
  Session s(opts, prep, probe, err);
  adopt_orphans();  // what a child forks and leaves becomes wmbench's child, to be found after it
  for (size_t pi = 0; pi < plan.runs.size(); ++pi) {
    const PlannedRun& pr = plan.runs[pi];
    if (!plan.runs_now(pr)) continue;
    if ((s.end.interrupted_by = interrupt_signal())) break;
    if (!run_one(s, pr, pi + 1, plan.runs.size())) break;
  }
  return s.end;
}

}  // namespace wmb
