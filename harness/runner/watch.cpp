#include "runner/watch.h"

#include <fmt/format.h>

#include "common/units.h"
#include "io/files.h"

namespace wmb {
namespace {


}  // namespace

RunWatch::RunWatch(MemoryProbe& probe, TraceWriter& trace, ProgressLine& progress, std::string head, pid_t pid,
                   uint64_t swap_before)
    : probe_(probe), trace_(trace), progress_(progress), head_(std::move(head)), pid_(pid), swap_before_(swap_before),
      last_swap_(swap_before) {}

void RunWatch::on_stage(double t) {
  // The parent's own reading of the child's footprint at this stage (phys_footprint on a Mac).
  try {
    report_.stages.back()["footprint_sampled_bytes"] = probe_.process(pid_, cgroup_dir_).footprint;
  } catch (const ProbeError&) {
  }
  nlohmann::json e = report_.stages.back();
  e["type"] = "event";
  e["kind"] = "stage";
  e["t"] = t;
  trace_.line(e);
}

void RunWatch::on_line(std::string_view line, bool cut, double t) {
  // absorb_line checks the message's fields against the protocol's schema: what is read below
  // has its type (a bad line is a bounded warning in the report, never an exception).
  const ChildReport::Absorbed a = report_.absorb_line(line, cut);
  if (!a) return;
  const nlohmann::json& msg = a.msg;
  if (a.type == "step") {
    trace_.line({{"type", "event"}, {"t", t}, {"kind", "step"}, {"index", msg.value("index", int64_t{0})},
                 {"held", report_.held_bytes}, {"step_seconds", msg.value("step_seconds", 0.0)}});
  } else if (a.type == "stage") {
    on_stage(t);
  } else if (a.type == "error") {
    trace_.line({{"type", "event"}, {"t", t}, {"kind", "error"}, {"text", msg.value("text", "")}});
  } else if (a.type == "hello") {
    trace_.line({{"type", "event"}, {"t", t}, {"kind", "hello"}, {"torch_version", msg.value("torch_version", "")}});
  }
}

void RunWatch::attach(SuperviseOptions& sup) {
  cgroup_dir_ = sup.cgroup_dir;
  sup.on_line = [this](std::string_view line, bool cut, double t) { on_line(line, cut, t); };
  sup.decorate_sample = [this](nlohmann::json& s) {
    s["held"] = report_.held_bytes;
    s["allocated"] = json_or_null(report_.allocated_bytes);
    s["driver"] = json_or_null(report_.driver_bytes);
    if (s.contains("swap_used") && s["swap_used"].is_number()) last_swap_ = s["swap_used"].get<uint64_t>();
  };
  sup.on_tick = [this](double t) {
    const int64_t grow = static_cast<int64_t>(last_swap_) - static_cast<int64_t>(swap_before_);
    progress_.update(fmt::format("{}: held {}, swap {:+.2f} GiB, {:.1f} s", head_, format_gib(report_.held_bytes),
                                 static_cast<double>(grow) / GiB, t));
  };
}

}  // namespace wmb
