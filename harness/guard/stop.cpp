#include "guard/stop.h"

#include "guard/supervisor.h"

namespace wmb {

const char* stopper_name(Stopper who) {
  switch (who) {
    case Stopper::Guard: return "guard";
    case Stopper::Timeout: return "timeout";
    default: return "interrupted";
  }
}

ExitStatus stop_child(const StopContext& ctx, Stopper who, const std::string& why, SuperviseResult& r) {
  ctx.sampler.sample(ctx.clock.now());
  r.stopper = who;
  r.reason = why;
  const double decided = ctx.clock.now();
  if (ctx.trace) {
    nlohmann::json ev = {{"type", "event"}, {"t", decided - ctx.t0}, {"kind", "stop"}, {"by", stopper_name(who)}, {"detail", why}};
    if (who == Stopper::Guard && !r.guard_signal.empty()) ev["signal"] = r.guard_signal;
    ctx.trace->line(ev);
  }
  ExitStatus st = stop_process_group(ctx.pid, ctx.grace, &r.killed, ctx.also, ctx.poll);
  r.stop_latency = ctx.clock.now() - decided;
  return st;
}

}  // namespace wmb
