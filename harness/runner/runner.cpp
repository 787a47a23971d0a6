#include "runner/runner.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "build_info.h"
#include "common/files.h"
#include "common/interrupt.h"
#include "common/platform.h"
#include "common/units.h"
#include "mpsmodel/watermark.h"
#include "probe/probe.h"
#include "results/report.h"
#include "runner/classify.h"
#include "sandbox/sandbox.h"
#include "spawn/process.h"
#include "trace/trace_writer.h"

#ifndef WMBENCH_SOURCE_DIR_DEFAULT
#define WMBENCH_SOURCE_DIR_DEFAULT ""
#endif

namespace wmb {
namespace {

// A sleeper that wakes early when the parent gets SIGINT/SIGTERM/SIGHUP.
class InterruptibleSleeper : public Sleeper {
 public:
  void sleep(double seconds) override {
    if (interrupt_signal()) return;
    struct pollfd p = {interrupt_fd(), POLLIN, 0};
    ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, static_cast<int>(seconds * 1000));
  }
};

std::string dirname_of(const std::string& p) {
  auto pos = p.find_last_of('/');
  return pos == std::string::npos ? "." : p.substr(0, pos);
}

bool is_executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

struct PlannedRun {
  int index;
  const Cell* cell;
  int repeat;
};

class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err) : err_(err), tty_(::isatty(2)) {}
  void update(const std::string& s) {
    if (!tty_) return;
    err_ << "\r\033[K" << s << std::flush;
    shown_ = true;
  }
  void finish(const std::string& s) {
    if (tty_ && shown_) err_ << "\r\033[K";
    err_ << s << "\n" << std::flush;
    shown_ = false;
  }

 private:
  std::ostream& err_;
  bool tty_;
  bool shown_ = false;
};

std::string short_held(uint64_t b) { return fmt::format("{:.2f} GiB", static_cast<double>(b) / GiB); }

// The first Python 3 that has matplotlib: $WMBENCH_PYTHON, python3 on PATH, /usr/bin/python3
// (a pyenv or venv python3 often lacks it while the system's has it).
std::string python_with_matplotlib() {
  std::vector<std::string> cands;
  if (const char* e = std::getenv("WMBENCH_PYTHON"); e && *e) cands.push_back(e);
  cands.push_back("python3");
  cands.push_back("/usr/bin/python3");
  cands.push_back("/opt/homebrew/bin/python3");
  for (const auto& c : cands) {
    std::string cmd = fmt::format("'{}' -c 'import matplotlib' >/dev/null 2>&1", c);
    if (std::system(cmd.c_str()) == 0) return c;
  }
  return "";
}

void draw_plots(const std::string& dir, std::ostream& out) {
  const std::string plots = find_repo_file("plots/table.py");
  if (plots.empty()) {
    out << "Charts: plots/ not found next to wmbench; draw them with python3 plots/table.py " << dir << "\n";
    return;
  }
  const std::string pdir = dirname_of(plots);
  const std::string py = python_with_matplotlib();
  if (py.empty()) {
    out << "Charts: no python3 with matplotlib found; with it, run:\n"
        << "  python3 " << pdir << "/table.py " << dir << "\n  python3 " << pdir << "/traces.py " << dir << "\n";
    return;
  }
  for (const char* script : {"table.py", "traces.py"}) {
    std::string cmd = fmt::format("'{}' '{}/{}' '{}' >/dev/null", py, pdir, script, dir);
    if (std::system(cmd.c_str()) != 0) out << "Charts: `" << cmd << "` failed\n";
  }
  out << "Charts: " << dir << "/plots/table.png, " << dir << "/plots/traces.png (and .svg)\n";
}

}  // namespace

std::string find_fill(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* e = std::getenv("WMBENCH_FILL"); e && *e) return e;
  const std::string self = self_exe_path();
  if (!self.empty()) {
    std::string cand = dirname_of(self) + "/wmbench-fill";
    if (is_executable(cand)) return cand;
  }
  return "wmbench-fill";  // PATH
}

std::string find_repo_file(const std::string& relative) {
  std::vector<std::string> roots;
  const std::string self = self_exe_path();
  if (!self.empty()) {
    std::string d = dirname_of(self);
    roots.push_back(d);
    roots.push_back(dirname_of(d));
    roots.push_back(dirname_of(dirname_of(d)));
    roots.push_back(dirname_of(d) + "/share/wmbench");
  }
  roots.push_back(".");
  if (*WMBENCH_SOURCE_DIR_DEFAULT) roots.push_back(WMBENCH_SOURCE_DIR_DEFAULT);
  for (const auto& r : roots) {
    std::string p = r + "/" + relative;
    if (path_exists(p)) return p;
  }
  return "";
}

ResolvedSizes resolve_sizes(const Scenario& s, uint64_t ram) {
  ResolvedSizes z;
  z.ram = ram;
  z.step = s.step.resolve(ram);
  if (s.min_steps > 0 && z.step > ram / static_cast<uint64_t>(s.min_steps)) {
    // Shrink to the largest power-of-two MiB that still gives min_steps steps across RAM.
    uint64_t limit = ram / static_cast<uint64_t>(s.min_steps);
    uint64_t p = MiB;
    while (p * 2 <= limit) p *= 2;
    z.step = p;
    z.step_shrunk = true;
  }
  z.step -= z.step % 4;
  if (z.step < 4) z.step = 4;
  if (s.cap) z.cap = s.cap->resolve(ram);
  z.swap_budget = s.guard.swap_budget.resolve(ram);
  if (s.offload_size) z.offload_size = s.offload_size->resolve(ram);
  return z;
}

int run_matrix(const RunnerOptions& opts_in, std::ostream& out, std::ostream& err) {
  RunnerOptions opts = opts_in;
  Scenario& sc = opts.scenario;
  install_interrupt_handlers();
  auto probe = make_platform_probe();
  SteadyClock clock;
  InterruptibleSleeper sleeper;
  const MachineFacts facts = machine_facts();

  // ---- the plan ----
  std::vector<const Cell*> cells;
  for (const auto& c : sc.matrix)
    if (opts.only.empty() || std::find(opts.only.begin(), opts.only.end(), c.label) != opts.only.end()) cells.push_back(&c);
  for (const auto& o : opts.only) {
    if (std::none_of(sc.matrix.begin(), sc.matrix.end(), [&](const Cell& c) { return c.label == o; })) {
      std::vector<std::string> labels;
      for (const auto& c : sc.matrix) labels.push_back(c.label);
      std::string hint = did_you_mean(o, labels), all;
      for (const auto& l : labels) all += (all.empty() ? "" : ", ") + l;
      err << fmt::format("wmbench run: --only: no cell is labelled \"{}\"{}; the cells of {} are: {}\n", o,
                         hint.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", hint), sc.name, all);
      return 2;
    }
  }
  std::vector<PlannedRun> plan;
  for (int rep = 1; rep <= sc.repeats; ++rep)
    for (size_t i = 0; i < cells.size(); ++i)
      plan.push_back({static_cast<int>((rep - 1) * cells.size() + i + 1), cells[i], rep});

  // ---- the fill child ----
  const std::string fill = find_fill(opts.fill_path);
  if (fill.find('/') != std::string::npos && !is_executable(fill)) {
    err << fmt::format("wmbench run: --fill: {} is not an executable file\n", fill);
    return 2;
  }

  // ---- memory the run sees: sandbox, model ----
  std::optional<mpsmodel::ModelledMac> model;
  uint64_t ram_for_sizes = facts.ram_bytes;
  if (opts.ram_limit) {
    SandboxSupport sup = sandbox_support(true);
    if (!sup.ok) {
      err << "wmbench run: --ram-limit: cannot make a memory sandbox here: " << sup.why_not << "\n";
      return 2;
    }
    ram_for_sizes = *opts.ram_limit;
  }
  if (sc.device == "mps-model") {
    const uint64_t free_mem = opts.ram_limit ? *opts.ram_limit : static_cast<uint64_t>(facts.ram_bytes);
    model = mpsmodel::modelled_mac_for_sandbox(free_mem, opts.model_mac_ram.value_or(48 * GiB));
    if (opts.recommended_max) model->recommended_max = *opts.recommended_max;
    ram_for_sizes = model->model_ram;
  }
  ResolvedSizes sizes = resolve_sizes(sc, ram_for_sizes);
  if (sizes.cap && *sizes.cap < sizes.step) {
    err << fmt::format("wmbench run: {}: cap {} is smaller than one step of {}\n", sc.source.empty() ? sc.name : sc.source,
                       format_size(*sizes.cap), format_size(sizes.step));
    return 2;
  }

  // Safety: without a sandbox a cpu-memory fill must stay under the memory free now.
  const bool cpu_memory = sc.device == "cpu" || sc.device == "mps-model";
  if (cpu_memory && !opts.ram_limit && !opts.force && sc.program == "fill") {
    SystemMemory m;
    try {
      m = probe->system();
    } catch (const ProbeError& e) {
      err << "wmbench run: cannot read free memory: " << e.what() << "\n";
      return 1;
    }
    const uint64_t free_now = m.available();
    if (!sizes.cap || *sizes.cap > free_now) {
      err << fmt::format(
          "wmbench run: refusing a {} fill {} while only {} is free: it would push this machine into swap "
          "with no sandbox around it. Give a smaller --cap, run in a sandbox with --ram-limit SIZE (Linux, root), "
          "or insist with --force.\n",
          sc.device, sizes.cap ? "with a cap of " + format_size(*sizes.cap) : "without a cap", format_size(free_now));
      return 2;
    }
  }

  // ---- the result folder ----
  std::string dir;
  std::set<std::pair<std::string, int>> done_before;
  try {
    if (!opts.resume_dir.empty()) {
      dir = opts.resume_dir;
      Report prev = load_report(dir);
      for (const auto& r : prev.runs)
        if (r.stopped_by != "interrupted" && r.stopped_by != "not_started") done_before.insert({r.label, r.repeat});
    } else {
      dir = create_result_dir(opts.out_dir, utc_today(), sc.name);
    }
  } catch (const FileError& e) {
    err << "wmbench run: " << e.what() << "\n";
    return 2;
  }

  nlohmann::json scenario_json = to_json(sc);
  {
    nlohmann::json m = nlohmann::json::array();
    for (const auto* c : cells) {
      nlohmann::json cell = {{"label", c->label}, {"env", c->env}};
      if (!c->data.empty()) cell["data"] = c->data;
      m.push_back(cell);
    }
    scenario_json["matrix"] = m;
    scenario_json["resolved"] = {{"ram_bytes", sizes.ram},
                                 {"step_bytes", sizes.step},
                                 {"step_shrunk", sizes.step_shrunk},
                                 {"cap_bytes", sizes.cap ? nlohmann::json(*sizes.cap) : nlohmann::json(nullptr)},
                                 {"swap_budget_bytes", sizes.swap_budget}};
    scenario_json["source"] = sc.source;
  }
  nlohmann::json machine;
  try {
    machine = path_exists(dir + "/machine.json") && !opts.resume_dir.empty() ? read_json_file(dir + "/machine.json")
                                                                            : nlohmann::json::object();
  } catch (const FileError&) {
    machine = nlohmann::json::object();
  }
  uint64_t swap_total = 0;
  try {
    swap_total = probe->system().swap_total;
  } catch (const ProbeError&) {
  }
  machine.update({{"os", facts.os},
                  {"os_version", facts.os_version},
                  {"chip", facts.chip},
                  {"cpus", facts.cpus},
                  {"hostname", facts.hostname},
                  {"ram_bytes", facts.ram_bytes},
                  {"swap_total_bytes", swap_total},
                  {"device", sc.device},
                  {"probe", probe->name()},
                  {"wmbench_version", WMBENCH_VERSION},
                  {"git_rev", WMBENCH_GIT_REV},
                  {"fill", fill},
                  {"notes", opts.notes}});
  if (!machine.contains("started_utc") || opts.resume_dir.empty()) machine["started_utc"] = utc_now_iso();
  machine["sandbox"] = opts.ram_limit ? nlohmann::json{{"ram_limit_bytes", *opts.ram_limit},
                                                      {"kind", sandbox_support(false).kind}}
                                      : nlohmann::json(nullptr);
  if (model) {
    machine["model"] = {{"mac_ram_bytes", model->mac_ram},
                        {"model_ram_bytes", model->model_ram},
                        {"recommended_max_bytes", model->recommended_max},
                        {"free_fraction", model->free_fraction},
                        {"free_bytes", model->sandbox},
                        {"note", opts.recommended_max
                                     ? fmt::format("the MPS allocator's limit policy on real CPU memory, with the recommended max "
                                                   "given on the command line ({}){}. Not a measurement of a Mac.",
                                                   format_size(model->recommended_max),
                                                   opts.ram_limit ? ", in a " + format_size(*opts.ram_limit) + " sandbox" : ", no sandbox")
                                     : fmt::format("the MPS allocator's limit policy on real CPU memory. It stands for a {} Mac "
                                                   "scaled down so that its free memory ({}) is the sandbox; modelled RAM {}, "
                                                   "recommended max {}. Not a measurement of a Mac.",
                                                   format_size(model->mac_ram), format_size(model->sandbox),
                                                   format_size(model->model_ram), format_size(model->recommended_max))}};
    machine["recommended_max_bytes"] = model->recommended_max;
  } else {
    machine["model"] = nullptr;
  }
  try {
    write_json_atomic(dir + "/scenario.json", scenario_json);
    write_json_atomic(dir + "/machine.json", machine);
  } catch (const FileError& e) {
    err << "wmbench run: " << e.what() << "\n";
    return 2;
  }

  out << fmt::format("wmbench {}: scenario {} ({} runs) on {} -> {}\n", WMBENCH_VERSION, sc.name, plan.size(), sc.device, dir);
  for (const auto& n : opts.notes) out << "  " << n << "\n";
  out << fmt::format("  step {}{}, cap {}, swap budget {}, timeout {} per run\n", format_size(sizes.step),
                     sizes.step_shrunk ? fmt::format(" (shrunk so {} steps fit)", sc.min_steps) : "",
                     sizes.cap ? format_size(*sizes.cap) : "none", format_size(sizes.swap_budget),
                     format_duration(sc.timeout));
  out.flush();

  GuardConfig gcfg;
  gcfg.swap_budget = sizes.swap_budget;
  gcfg.kill_free = sc.guard.kill_free;
  gcfg.wait_free = sc.guard.wait_free;
  gcfg.wait_free_timeout = sc.guard.wait_free_timeout;
  gcfg.check_interval = sc.guard.check_interval;

  ProgressLine progress(err);
  const auto parent_env = current_environment();
  int exit_code = 0;
  int interrupted_by = 0;
  std::string write_error;
  std::optional<std::string> torch_version;

  for (size_t pi = 0; pi < plan.size(); ++pi) {
    const PlannedRun& pr = plan[pi];
    if (done_before.count({pr.cell->label, pr.repeat})) continue;
    if (interrupt_signal()) {
      interrupted_by = interrupt_signal();
      break;
    }
    RunRecord rec;
    rec.index = pr.index;
    rec.label = pr.cell->label;
    rec.repeat = pr.repeat;
    rec.env = pr.cell->env;
    rec.device = sc.device;
    rec.data = pr.cell->data.empty() ? sc.data : pr.cell->data;
    rec.program = sc.program;
    rec.step_bytes = sizes.step;
    rec.cap_bytes = sizes.cap;
    rec.trace = "runs/" + rec.file_stem() + ".trace.jsonl";
    check_cell_env(*pr.cell, rec.label, rec.warnings);
    const std::string head = fmt::format("[run {}/{}] {}", pi + 1, plan.size(), rec.label);

    // Wait for room.
    WaitOutcome w = wait_for_free(*probe, clock, sleeper, gcfg.wait_free, gcfg.wait_free_timeout);
    rec.wait_s = w.waited;
    rec.started_utc = utc_now_iso();
    if (interrupt_signal()) {
      interrupted_by = interrupt_signal();
      break;
    }
    auto finish_record = [&](RunRecord& r) -> bool {
      r.ended_utc = utc_now_iso();
      try {
        write_json_atomic(dir + "/runs/" + r.file_stem() + ".json", to_json(r));
        return true;
      } catch (const FileError& e) {
        write_error = e.what();
        return false;
      }
    };
    if (!w.ok) {
      rec.stopped_by = "not_started";
      rec.detail = w.why;
      progress.finish(fmt::format("{}: not started: {}", head, w.why));
      if (!finish_record(rec)) break;
      continue;
    }

    // Sandbox for this run.
    std::unique_ptr<Sandbox> sandbox;
    if (opts.ram_limit) {
      try {
        sandbox = std::make_unique<Sandbox>(*opts.ram_limit, rec.label);
      } catch (const SandboxError& e) {
        err << "wmbench run: " << e.what() << "\n";
        exit_code = 2;
        break;
      }
    }

    std::vector<std::string> argv = {fill, "--device", sc.device, "--step", std::to_string(sizes.step), "--data", rec.data};
    if (sizes.cap) argv.insert(argv.end(), {"--cap", std::to_string(*sizes.cap)});
    if (sc.program != "fill") argv.insert(argv.end(), {"--program", sc.program});
    if (sc.step_delay > 0) argv.insert(argv.end(), {"--step-delay", fmt::format("{}", sc.step_delay)});
    if (sizes.offload_size) argv.insert(argv.end(), {"--offload-size", std::to_string(*sizes.offload_size)});
    if (model) {
      argv.insert(argv.end(), {"--recommended-max", std::to_string(model->recommended_max), "--model-ram",
                               std::to_string(model->model_ram)});
    }
    SpawnOptions so;
    so.argv = argv;
    so.env = child_environment(parent_env, pr.cell->env);
    so.capture_stdout = true;
    so.stderr_path = dir + "/runs/" + rec.file_stem() + ".stderr.log";
    if (sandbox) so.cgroup_procs = sandbox->procs_file();

    std::unique_ptr<TraceWriter> trace;
    try {
      trace = std::make_unique<TraceWriter>(dir + "/" + rec.trace);
    } catch (const FileError& e) {
      write_error = e.what();
      break;
    }
    uint64_t swap_before = 0;
    try {
      swap_before = probe->system().swap_used;
    } catch (const ProbeError& e) {
      rec.stopped_by = "not_started";
      rec.detail = fmt::format("the memory probe failed before the start: {}", e.what());
      if (!finish_record(rec)) break;
      continue;
    }

    Child child;
    try {
      child = spawn_child(so);
    } catch (const SpawnError& e) {
      rec.stopped_by = "crash";
      rec.detail = fmt::format("wmbench-fill could not be started: {} (give its path with --fill)", e.what());
      rec.swap_before_bytes = rec.swap_after_bytes = rec.swap_peak_bytes = swap_before;
      progress.finish(fmt::format("{}: {}", head, rec.detail));
      if (!finish_record(rec)) break;
      continue;
    }
    trace->line({{"type", "start"},
                 {"utc", rec.started_utc},
                 {"interval", sc.guard.interval},
                 {"label", rec.label},
                 {"env", rec.env},
                 {"pid", child.pid},
                 {"device", sc.device},
                 {"step_bytes", sizes.step},
                 {"swap_budget_bytes", sizes.swap_budget},
                 {"sandbox_bytes", opts.ram_limit ? nlohmann::json(*opts.ram_limit) : nlohmann::json(nullptr)}});

    ChildReport report;
    SuperviseOptions sup;
    sup.guard = gcfg;
    sup.sample_interval = sc.guard.interval;
    sup.timeout = sc.timeout;
    sup.grace = sc.guard.grace;
    sup.cgroup_dir = sandbox ? sandbox->dir() : "";
    sup.trace = trace.get();
    uint64_t last_swap = swap_before;
    sup.on_message = [&](const nlohmann::json& msg, double t) {
      report.absorb(msg);
      const std::string type = msg.value("type", "");
      if (type == "step") {
        trace->line({{"type", "event"}, {"t", t}, {"kind", "step"}, {"index", msg.value("index", 0)},
                     {"held", report.held_bytes}, {"step_seconds", msg.value("step_seconds", 0.0)}});
      } else if (type == "stage") {
        // The parent's own reading of the child's footprint at this stage (phys_footprint on a Mac).
        try {
          report.stages.back()["footprint_sampled_bytes"] = probe->process(child.pid, sup.cgroup_dir).footprint;
        } catch (const ProbeError&) {
        }
        nlohmann::json e = report.stages.back();
        e["type"] = "event";
        e["kind"] = "stage";
        e["t"] = t;
        trace->line(e);
      } else if (type == "error") {
        trace->line({{"type", "event"}, {"t", t}, {"kind", "error"}, {"text", msg.value("text", "")}});
      } else if (type == "hello") {
        trace->line({{"type", "event"}, {"t", t}, {"kind", "hello"}, {"torch_version", msg.value("torch_version", "")}});
      }
    };
    sup.on_bad_line = [&](const std::string& line) {
      rec.warnings.push_back("the child wrote a line that is not JSON: " + line.substr(0, 200));
    };
    sup.decorate_sample = [&](nlohmann::json& s) {
      s["held"] = report.held_bytes;
      s["allocated"] = report.allocated_bytes ? nlohmann::json(*report.allocated_bytes) : nlohmann::json(nullptr);
      s["driver"] = report.driver_bytes ? nlohmann::json(*report.driver_bytes) : nlohmann::json(nullptr);
      if (s.contains("swap_used") && s["swap_used"].is_number()) last_swap = s["swap_used"].get<uint64_t>();
    };
    sup.on_tick = [&](double t) {
      const int64_t grow = static_cast<int64_t>(last_swap) - static_cast<int64_t>(swap_before);
      progress.update(fmt::format("{}: held {}, swap {:+.2f} GiB, {:.1f} s", head, short_held(report.held_bytes),
                                  static_cast<double>(grow) / GiB, t));
    };

    SuperviseResult res = supervise(child, sup, *probe, clock, swap_before);
    Classification cls = classify(res, report);
    rec.stopped_by = cls.stopped_by;
    rec.detail = cls.detail;
    rec.error_text = report.error_text;
    if (cls.error) {
      rec.error = to_json(*cls.error);
      rec.max_allowed_bytes = cls.error->max_allowed_bytes;
    }
    // Where the device knows its limit to the byte (the model), that beats the 2-decimal text.
    if (report.exact_max_allowed && rec.stopped_by == "pytorch") rec.max_allowed_bytes = report.exact_max_allowed;
    rec.held_bytes = report.held_bytes;
    rec.steps = report.steps;
    rec.allocated_bytes = report.allocated_bytes;
    rec.driver_bytes = report.driver_bytes;
    if (report.hello) {
      auto h = *report.hello;
      if (h.contains("recommended_max_bytes") && h["recommended_max_bytes"].is_number())
        rec.recommended_max_bytes = h["recommended_max_bytes"].get<uint64_t>();
      rec.torch_version = h.value("torch_version", "");
      rec.child_env = h.value("env", nlohmann::json::object());
      if (!torch_version) {
        torch_version = rec.torch_version;
        machine["torch_version"] = rec.torch_version;
        machine["torch_library"] = h.value("torch_library", nlohmann::json(nullptr));
        if (!model && rec.recommended_max_bytes) machine["recommended_max_bytes"] = *rec.recommended_max_bytes;
      }
    }
    rec.swap_before_bytes = res.swap_before;
    rec.swap_after_bytes = res.swap_after;
    rec.swap_peak_bytes = res.swap_peak;
    rec.swap_end_bytes = res.swap_end;
    rec.peak_footprint_bytes = res.peak_footprint;
    if (sandbox) rec.peak_sandbox_bytes = sandbox->peak_usage();
    rec.duration_s = res.duration;
    if (res.stopper != Stopper::None) rec.stop_latency_s = res.stop_latency;
    rec.exit_code = res.status.code;
    rec.signal = res.status.signal;
    if (!report.stages.empty()) rec.stages = report.stages;
    for (auto& wmsg : report.warnings) rec.warnings.push_back("child: " + wmsg);
    if (!res.probe_error.empty()) rec.warnings.push_back("probe: " + res.probe_error);
    if (res.killed) rec.warnings.push_back(fmt::format("the child ignored SIGTERM for {} s and was killed", sc.guard.grace));
    const bool clean = res.stopper == Stopper::None && rec.stopped_by != "crash";
    if (clean) trace->line({{"type", "end"}});
    if (!trace->error().empty()) rec.warnings.push_back(trace->error());
    trace.reset();
    if (sandbox) {
      std::string e = sandbox->remove();
      if (!e.empty()) rec.warnings.push_back(e);
    }
    const int64_t grow = static_cast<int64_t>(rec.swap_after_bytes) - static_cast<int64_t>(rec.swap_before_bytes);
    progress.finish(fmt::format("{}: {} | held {} | swap {:+.2f} GiB | {:.1f} s | {}", head, rec.stopped_by,
                                short_held(rec.held_bytes), static_cast<double>(grow) / GiB, rec.duration_s, rec.detail));
    if (!finish_record(rec)) break;
    if (res.stopper == Stopper::Interrupted) {
      interrupted_by = res.interrupt_signal;
      break;
    }
  }

  // ---- the report ----
  machine["ended_utc"] = utc_now_iso();
  if (!write_error.empty()) {
    err << "wmbench run: " << write_error << "\n"
        << "  The runs written before are intact in " << dir << "; `wmbench run --resume " << dir
        << "` finishes the rest once there is room.\n";
    exit_code = 1;
  }
  try {
    write_json_atomic(dir + "/machine.json", machine);
    Report rep = load_report(dir, interrupted_by ? fmt::format("not run: wmbench got {}", signal_name(interrupted_by))
                                                 : write_error.empty() ? "not run" : "not run: " + write_error);
    write_report(rep);
  } catch (const FileError& e) {
    err << "wmbench run: " << e.what() << "\n";
    return 1;
  }
  out << "\n" << read_file(dir + "/table.md") << "\n";
  out << "Results: " << dir << " (summary.json, table.md, results.csv, runs/)\n";
  if (opts.draw_plots && !interrupted_by) draw_plots(dir, out);
  if (interrupted_by) {
    err << fmt::format("wmbench run: stopped by {}; finished runs are in {}; `wmbench run --resume {}` runs the rest\n",
                       signal_name(interrupted_by), dir, dir);
    return 128 + interrupted_by;
  }
  return exit_code;
}

}  // namespace wmb
