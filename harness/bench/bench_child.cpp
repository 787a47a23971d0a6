// Starting children.
//
//   ChildStart         spawn the real `wmbench-fill --device cpu --step 4MiB --hello-only` (own process
//                      group, as the runner does) and time spawn -> its hello line read from the pipe;
//                      counter exit_ms: spawn -> the child reaped. wmbench-fill is $WMBENCH_FILL, else
//                      the one next to this executable.
//   PythonImportTorch  `python3 -c 'import torch'` end to end (spawn -> reaped); registered only when
//                      that command succeeds on this machine.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "common/platform.h"
#include "spawn/process.h"

namespace wmb::bench {
namespace {

using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t0) { return std::chrono::duration<double>(Steady::now() - t0).count(); }

std::string find_fill_binary() {
  if (const char* e = std::getenv("WMBENCH_FILL"); e && *e) return e;
  const std::string self = self_exe_path();
  const auto slash = self.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string cand = self.substr(0, slash) + "/wmbench-fill";
  return ::access(cand.c_str(), X_OK) == 0 ? cand : "";
}

// Reads up to the first '\n' (blocking). Returns false at end of file before one.
bool read_line(int fd, std::string& line) {
  line.clear();
  char c;
  while (true) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    line.push_back(c);
  }
}

void child_start(benchmark::State& state) {
  const std::string fill = find_fill_binary();
  if (fill.empty()) {
    state.SkipWithError("wmbench-fill not found next to wmbench-bench; set WMBENCH_FILL");
    return;
  }
  SpawnOptions so;
  so.argv = {fill, "--device", "cpu", "--step", "4MiB", "--hello-only"};
  so.env = current_environment();
  so.capture_stdout = true;
  so.stderr_path = "/dev/null";
  so.own_process_group = true;
  double exit_sum = 0;
  int64_t n = 0;
  std::string line;
  for (auto _ : state) {
    const auto t0 = Steady::now();
    Child child;
    try {
      child = spawn_child(so);
    } catch (const SpawnError& e) {
      state.SkipWithError((fill + ": " + e.what()).c_str());
      break;
    }
    const bool got = read_line(child.stdout_fd, line);
    const double hello = seconds_since(t0);
    ::close(child.stdout_fd);
    const ExitStatus st = reap(child.pid);
    exit_sum += seconds_since(t0);
    ++n;
    state.SetIterationTime(hello);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!got || j.is_discarded() || j.value("type", "") != "hello") {
      state.SkipWithError(("no hello from wmbench-fill (exit " + std::to_string(st.shell_status()) + "): " + line).c_str());
      break;
    }
  }
  if (n > 0) state.counters["exit_ms"] = 1000 * exit_sum / static_cast<double>(n);
}

SpawnOptions python_import_torch() {
  SpawnOptions so;
  so.argv = {"python3", "-c", "import torch"};
  so.env = current_environment();
  so.stderr_path = "/dev/null";
  return so;
}

bool python_has_torch() {
  try {
    const Child c = spawn_child(python_import_torch());
    const ExitStatus st = reap(c.pid);
    return st.code && *st.code == 0;
  } catch (const SpawnError&) {
    return false;
  }
}

void python_import(benchmark::State& state) {
  const SpawnOptions so = python_import_torch();
  for (auto _ : state) {
    try {
      const Child c = spawn_child(so);
      const ExitStatus st = reap(c.pid);
      if (!st.code || *st.code != 0) {
        state.SkipWithError("python3 -c 'import torch' failed");
        break;
      }
    } catch (const SpawnError& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
}

}  // namespace

void register_child_benchmarks() {
  benchmark::RegisterBenchmark("ChildStart", child_start)
      ->Unit(benchmark::kMillisecond)
      ->UseManualTime()
      ->MinTime(2.0);
  if (python_has_torch())
    benchmark::RegisterBenchmark("PythonImportTorch", python_import)->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace wmb::bench
