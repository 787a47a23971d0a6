#include "doctor/fill_check.h"

#include <poll.h>
#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

#include "errparse/error_parser.h"
#include "mpsmodel/watermark.h"
#include "protocol/child_report.h"
#include "spawn/process.h"

namespace wmb::doctor {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kFillSeconds = 60;

// Reads the child's lines into `report` until its stdout ends or the deadline passes.
bool read_lines(int fd, ChildReport& report, Clock::time_point deadline) {
  ChildLineSplitter split(64 * 1024);
  const ChildLineSplitter::Sink sink = [&](std::string_view line, bool cut) { report.absorb_line(line, cut); };
  while (Clock::now() < deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    struct pollfd p = {fd, POLLIN, 0};
    const int pr = ::poll(&p, 1, static_cast<int>(std::max<long long>(1, std::min<long long>(left, 1000))));
    if (pr <= 0) continue;
    char buf[4096];
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0) continue;
    if (got == 0) {
      split.finish(sink);
      return true;
    }
    split.feed(buf, static_cast<size_t>(got), sink);
  }
  return false;
}

}  // namespace

FillReading run_tiny_fill(const FillPlan& plan) {
  FillReading r;
  r.device = plan.device;
  r.high = kDoctorHigh;
  r.virtual_device = plan.virtual_device;
  if (plan.fill_path.empty()) {
    r.failure = "wmbench-fill not found (next to wmbench, $WMBENCH_FILL or PATH)";
    return r;
  }
  SpawnOptions o;
  o.argv = {plan.fill_path, "--device", plan.device, "--step", "8MiB", "--cap", "512MiB"};
  o.argv.insert(o.argv.end(), plan.args.begin(), plan.args.end());
  const std::string ratio = fmt::format("{:g}", kDoctorHigh);
  o.env = child_environment(current_environment(), {{std::string(mpsmodel::kHighEnv), ratio},
                                                    {std::string(mpsmodel::kLowEnv), ratio}});
  o.capture_stdout = true;
  o.stderr_path = "/dev/null";
  const auto t0 = Clock::now();
  Child c;
  try {
    c = spawn_child(o);
  } catch (const std::exception& e) {
    r.failure = std::string("cannot start wmbench-fill: ") + e.what();
    return r;
  }
  ChildReport report;
  const bool ended = read_lines(c.stdout_fd, report, t0 + std::chrono::seconds(static_cast<int>(kFillSeconds)));
  ::close(c.stdout_fd);
  const ExitStatus st = stop_process_group(c.pid, 2.0);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!ended) r.failure = fmt::format("no end within {:.0f} s (stopped)", kFillSeconds);
  if (report.hello) {
    auto it = report.hello->find("recommended_max_bytes");
    if (it != report.hello->end() && it->is_number_unsigned()) r.recommended = it->get<uint64_t>();
  } else if (r.failure.empty()) {
    r.failure = "no hello line (exit status " + std::to_string(st.shell_status()) + ")";
  }
  r.error_text = report.error_text;
  const ParsedError parsed = parse_error(report.error_text.value_or(""));
  r.parsed_kind = kind_name(parsed.kind);
  r.max_allowed = parsed.max_allowed_bytes;
  return r;
}

}  // namespace wmb::doctor
