// The preparation: the child, the memory the runs see (sandbox, model), the sizes, the safety
// refusal, the result folder, scenario.json and machine.json. Nothing is written before every
// refusal had its say.
#include <unistd.h>

#include <fmt/format.h>

#include "build_info.h"
#include "io/files.h"
#include "io/terminal_text.h"
#include "common/units.h"
#include "io/utf8.h"
#include "results/folder_schema.h"
#include "results/report.h"
#include "scenario/device_here.h"
#include "common/run_error.h"
#include "runner/stages.h"
#include "sandbox/sandbox.h"

namespace wmb {
namespace {

// The RAM the sizes refer to: the machine's, the sandbox's, or the modelled Mac's.
struct RunMemory {
  uint64_t ram_for_sizes;
  std::optional<mpsmodel::ModelledMac> model;
};

RunMemory memory_for_runs(const RunnerOptions& opts, const MachineFacts& facts) {
  const Scenario& sc = opts.scenario;
  RunMemory m{facts.ram_bytes, std::nullopt};
  if (opts.ram_limit) {
    SandboxSupport sup = sandbox_support(true);
    if (!sup.ok) throw RunRefused("--ram-limit: cannot make a memory sandbox here: " + sup.why_not);
    m.ram_for_sizes = *opts.ram_limit;
  }
  if (sc.device == "mps-model") {
    const uint64_t free_mem = opts.ram_limit ? *opts.ram_limit : static_cast<uint64_t>(facts.ram_bytes);
    m.model = mpsmodel::modelled_mac_for_sandbox(free_mem, opts.model_mac_ram.value_or(48 * GiB));
    if (opts.recommended_max) m.model->recommended_max = *opts.recommended_max;
    // --wired-limit: the modelled iogpu.wired_limit_mb, which Metal's recommended max follows.
    if (opts.wired_limit && !opts.wired_limit->system_default()) {
      try {
        m.model->recommended_max = resolve_wired_limit_mib(*opts.wired_limit, m.model->model_ram) * MiB;
      } catch (const UnitError& e) {
        throw RunRefused(fmt::format("--wired-limit: {} (the modelled Mac's RAM)", e.what()));
      }
    }
    m.ram_for_sizes = m.model->model_ram;
  }
  return m;
}

// Below this a step is refused: a tensor of a few bytes or KiB maps a fresh page (or a fresh
// mmap) each, so the cap on the bytes held no longer bounds the memory the child maps, and at
// tiny steps the child runs into the kernel's limit on mappings (vm.max_map_count).
constexpr uint64_t kMinStep = MiB;

ResolvedSizes sizes_for_runs(const Scenario& sc, uint64_t ram) {
  const std::string where = sc.source.empty() ? sc.name : sc.source;
  ResolvedSizes sizes = resolve_sizes(sc, ram);
  if (sizes.step < kMinStep)
    throw RunRefused(fmt::format("{}: step \"{}\" is {} bytes, below the smallest step of 1 MiB: tiny tensors map a "
                                 "page each, so the cap would not bound what the child maps; give --step 1MiB or more",
                                 where, sc.step.text, sizes.step));
  if (sizes.cap && *sizes.cap < sizes.step)
    throw RunRefused(fmt::format("{}: cap {} is smaller than one step of {}", where, format_size(*sizes.cap),
                                 format_size(sizes.step)));
  return sizes;
}

// What the child maps at its peak, for the free-memory refusal; nullopt = no bound (a fill
// without a cap runs to the end of memory).
//   fill:    the cap (the child stops before holding more, fill/main.cpp `fits`).
//   offload: twice offload_size: fill/offload.cpp holds the "device" tensors and their `.to("cpu")`
//            copies at once before it drops the first (on cpu and mps-model both are CPU memory).
std::optional<uint64_t> peak_mapped(const Scenario& sc, const ResolvedSizes& sizes) {
  if (sc.program == "offload") {
    if (!sizes.offload_size) return std::nullopt;
    return *sizes.offload_size > UINT64_MAX / 2 ? UINT64_MAX : 2 * *sizes.offload_size;
  }
  return sizes.cap;
}

// Without a sandbox a cpu-memory fill must stay under the memory free now, whatever its program.
void refuse_unsafe_fill(const RunnerOptions& opts, const ResolvedSizes& sizes, MemoryProbe& probe) {
  const Scenario& sc = opts.scenario;
  const bool cpu_memory = sc.device == "cpu" || sc.device == "mps-model";
  if (sc.program == "command") return;  // the user's own job: its size is its own; the guard watches it
  if (!cpu_memory || opts.ram_limit || opts.force) return;
  SystemMemory m;
  try {
    m = probe.system();
  } catch (const ProbeError& e) {
    throw RunRefused(std::string("cannot read free memory: ") + e.what(), 1);
  }
  const uint64_t free_now = m.available();
  const std::optional<uint64_t> peak = peak_mapped(sc, sizes);
  if (peak && *peak <= free_now) return;
  std::string what;
  if (sc.program == "offload")
    what = fmt::format("an offload of {} (it holds about twice that, {}, while it copies)",
                       format_size(sizes.offload_size.value_or(0)), format_size(peak.value_or(0)));
  else
    what = sizes.cap ? "fill with a cap of " + format_size(*sizes.cap) : "fill without a cap";
  throw RunRefused(fmt::format(
      "refusing a {} {} while only {} is free: it would push this machine into swap "
      "with no sandbox around it. Give a smaller {}, run in a sandbox with --ram-limit SIZE (Linux, root), "
      "or insist with --force.",
      sc.device, what, format_size(free_now), sc.program == "offload" ? "offload_size" : "--cap"));
}

// A new folder: made, then locked before anything is written into it.
std::unique_ptr<HeldFolder> new_result_folder(const RunnerOptions& opts) {
  std::string dir;
  try {
    dir = opts.result_dir.empty() ? create_result_dir(opts.out_dir, utc_today(), opts.scenario.name)
                                  : create_named_result_dir(opts.result_dir);
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  return hold_folder(dir, opts);
}

}  // namespace

// scenario.json: the scenario as run (the planned cells only) with its resolved sizes.
nlohmann::json scenario_as_run(const Scenario& sc, const Plan& plan, const ResolvedSizes& sizes) {
  nlohmann::json j = to_json(sc);
  nlohmann::json m = nlohmann::json::array();
  for (const auto* c : plan.cells) m.push_back(to_json(*c));
  j["matrix"] = m;
  j["resolved"] = {{"ram_bytes", sizes.ram},
                   {"step_bytes", sizes.step},
                   {"step_shrunk", sizes.step_shrunk},
                   {"cap_bytes", sizes.cap ? nlohmann::json(*sizes.cap) : nlohmann::json(nullptr)},
                   {"swap_budget_bytes", sizes.swap_budget}};
  j["source"] = sc.source;
  return j;
}

namespace {

// A resumed folder's machine.json (checked by its schema), to be updated; {} for a new folder.
nlohmann::json previous_machine(const RunnerOptions& opts, const Folder& f) {
  if (opts.resume_dir.empty() || !f.exists("machine.json")) return nlohmann::json::object();
  try {
    nlohmann::json m = f.read_json("machine.json");
    check_machine_json(m, f.display("machine.json"));
    return m;
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
}

// --resume: a folder is one kind of child (a comparison of children is two folders). The
// interpreter recorded there is named, never run: it comes from a file.
void refuse_other_child(const nlohmann::json& previous, const std::string& now, const std::string& dir) {
  const auto c = previous.find("child");
  if (c == previous.end() || !c->is_object()) return;  // made before "child": the native child, or unreadable
  const auto kind = c->find("kind");
  if (kind == c->end() || !kind->is_string()) return;
  const std::string was = kind->get<std::string>();
  if (was == now) return;
  std::string how = "without --python";
  if (was == "command") how = "with --command and the command you mean to run (read its scenario.json first)";
  if (was == "python") {
    // The folder's interpreter is a path from a file: named as what the folder says, never as a
    // ready-to-paste `--python PATH` that would run it (issue 30).
    const auto py = c->find("python");
    how = py != c->end() && py->is_object() && py->contains("path") && (*py)["path"].is_string()
              ? fmt::format("with --python and an interpreter you chose yourself (its machine.json names \"{}\", a path "
                            "from the folder: read what it is before you run it)",
                            escape_controls_line(utf8_sanitize((*py)["path"].get<std::string>(), 200)))
              : "with --python and an interpreter you chose yourself";
  }
  throw RunRefused(fmt::format("--resume {}: it was run by the {} child, this session would run the {} child; resume it "
                               "{} (a folder holds one kind of child)",
                               dir, was, now, how));
}

GuardConfig guard_for_runs(const Scenario& sc, const ResolvedSizes& sizes) {
  GuardConfig g;
  g.swap_budget = sizes.swap_budget;
  g.kill_free = sc.guard.kill_free;
  g.wait_free = sc.guard.wait_free;
  g.wait_free_timeout = sc.guard.wait_free_timeout;
  g.check_interval = sc.guard.check_interval;
  apply_guard_signals(sc.guard, sizes.ram, g);
  return g;
}

}  // namespace

std::string lock_note(const RunnerOptions& opts) {
  if (!opts.resume_dir.empty()) return "wmbench run --resume " + opts.resume_dir;
  return "wmbench run " + (opts.scenario.source.empty() ? opts.scenario.name : opts.scenario.source);
}

std::unique_ptr<HeldFolder> hold_folder(const std::string& dir, const RunnerOptions& opts) {
  try {
    return std::make_unique<HeldFolder>(dir, lock_note(opts));
  } catch (const FileError& e) {  // FolderBusy included: it names the holder
    throw RunRefused(e.what());
  }
}

Prepared prepare(const RunnerOptions& opts, const Plan& plan, MemoryProbe& probe, std::unique_ptr<HeldFolder> held) {
  refuse_device_not_here(opts.scenario, opts.resume_dir.empty() ? "" : "--resume " + opts.resume_dir);
  const MachineFacts facts = machine_facts();
  Prepared p;
  const bool resume = !opts.resume_dir.empty();
  // What the options say of the child first (conflicting options are usage errors), then every
  // refusal that needs no child, then the child: choosing it starts it for its hello (a libtorch
  // start or a torch import), which none of those refusals needs.
  const std::string child_kind = chosen_child_kind(opts);
  nlohmann::json previous = resume ? previous_machine(opts, held->folder) : nlohmann::json::object();
  refuse_other_child(previous, child_kind, opts.resume_dir);
  RunMemory mem = memory_for_runs(opts, facts);
  p.model = mem.model;
  p.sizes = sizes_for_runs(opts.scenario, mem.ram_for_sizes);
  refuse_unsafe_fill(opts, p.sizes, probe);
  // The cells' "sysctl" (harness/lever/): refused or held before any folder exists.
  p.lever = lever::check_wired_lever(plan.cells, opts.scenario.device, mem.model ? mem.model->model_ram : mem.ram_for_sizes,
                                     ::geteuid() == 0);
  p.guard = guard_for_runs(opts.scenario, p.sizes);
  if (resume) check_resume_matches(opts, *held, p.sizes);
  p.child = choose_fill_child(opts);
  p.held = resume ? std::move(held) : new_result_folder(opts);
  p.dir = p.held->folder.path();
  const Folder& f = p.held->folder;
  p.machine = machine_json(opts, facts, probe, *p.child, p.model, p.sizes, std::move(previous));
  try {
    // A resumed folder's scenario.json is its plan: never rewritten (see plan.cpp).
    if (!resume) f.write_json("scenario.json", scenario_as_run(opts.scenario, plan, p.sizes));
    f.write_json("machine.json", p.machine);
  } catch (const FileError& e) {
    throw RunRefused(e.what());
  }
  return p;
}

void say_start(const RunnerOptions& opts, const Plan& plan, const Prepared& prep, std::ostream& out) {
  const Scenario& sc = opts.scenario;
  const ResolvedSizes& z = prep.sizes;
  size_t now = 0;
  for (const auto& r : plan.runs) now += plan.runs_now(r);
  out << fmt::format("wmbench {}: scenario {} ({} runs{}) on {} -> {}\n", WMBENCH_VERSION, sc.name, now,
                     now == plan.runs.size() ? "" : fmt::format(" of {} planned", plan.runs.size()), sc.device, prep.dir);
  for (const auto& n : opts.notes) out << "  " << n << "\n";
  out << fmt::format("  step {}{}, cap {}, swap budget {}, timeout {} per run\n", format_size(z.step),
                     z.step_shrunk ? fmt::format(" (shrunk so {} steps fit)", sc.min_steps) : "",
                     z.cap ? format_size(*z.cap) : "none", format_size(z.swap_budget), format_duration(sc.timeout));
  out.flush();
}

}  // namespace wmb
