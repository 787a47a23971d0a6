// The stop of supervise(): one last sample (the trace then shows what the guard saw), the stop
// event in the trace, then SIGTERM to the child's group and SIGKILL after the grace.
// A new stop class: a Stopper value in supervisor.h, its name in stopper_name() here, the
// condition in supervise()'s loop (supervisor.cpp) and its record class in verdict/classify.cpp.
#pragma once

#include <functional>
#include <string>

#include "common/clock.h"
#include "guard/sampler.h"
#include "spawn/process.h"
#include "trace/trace_writer.h"

namespace wmb {

enum class Stopper;
struct SuperviseResult;

const char* stopper_name(Stopper who);  // "guard" | "timeout" | "interrupted"

struct StopContext {
  pid_t pid;
  double grace;
  double t0;
  Clock& clock;
  Sampler& sampler;
  TraceWriter* trace;
  std::function<void(int sig)> also;  // SuperviseOptions::signal_others
  double poll = 0;                     // > 0: the old sleep-poll in the stop (stop_process_group)
};

// Sets result.stopper/reason/killed/stop_latency; returns the child's status once it is gone.
ExitStatus stop_child(const StopContext& ctx, Stopper who, const std::string& why, SuperviseResult& result);

}  // namespace wmb
