// Starting children.
//
//   ChildStart         spawn the real `wmbench-fill --device cpu --step 4MiB --hello-only` (own process
//                      group, as the runner does) and time spawn -> its hello line read from the pipe;
//                      counter exit_ms: spawn -> the child reaped. wmbench-fill is $WMBENCH_FILL, else
//                      the one next to this executable.
//   ModelChildStart    the same for `wmbench-fill --device mps-model --recommended-max 1GiB --step 4MiB
//                      --hello-only` with WMBENCH_FILL_MODEL_WITHOUT_TORCH=1: the model in wmbench-fill
//                      itself, which links no libtorch (harness/fillbase/main.cpp).
//   PythonChildStart   the same for the Python child: `PYTHON wmbench_fill.py --device cpu --step 4MiB
//                      --hello-only`, measured the same way, registered right after ChildStart so the two
//                      run side by side. wmbench_fill.py is $WMBENCH_PYFILL, else the one next to this
//                      executable (CMake copies it there); PYTHON is the first of $WMBENCH_TORCH_PYTHON,
//                      python3 on PATH, /usr/bin/python3 that imports torch. Registered only when both exist.
//   PythonImportTorch  `PYTHON -c 'import torch'` end to end (spawn -> reaped), with that same PYTHON;
//                      registered only when there is one.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "host/platform.h"
#include "spawn/process.h"

namespace wmb::bench {
namespace {

using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t0) { return std::chrono::duration<double>(Steady::now() - t0).count(); }

// $env_var, else `name` next to this executable (when it is there with `mode` access).
std::string find_beside_self(const char* env_var, const char* name, int mode) {
  if (const char* e = std::getenv(env_var); e && *e) return e;
  const std::string self = self_exe_path();
  const auto slash = self.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string cand = self.substr(0, slash) + "/" + name;
  return ::access(cand.c_str(), mode) == 0 ? cand : "";
}

std::string find_fill_binary() { return find_beside_self("WMBENCH_FILL", "wmbench-fill", X_OK); }
std::string find_python_child() { return find_beside_self("WMBENCH_PYFILL", "wmbench_fill.py", R_OK); }

bool imports_torch(const std::string& python) {
  SpawnOptions so;
  so.argv = {python, "-c", "import torch"};
  so.env = current_environment();
  so.stderr_path = "/dev/null";
  try {
    const Child c = spawn_child(so);
    const ExitStatus st = reap(c.pid);
    return st.code && *st.code == 0;
  } catch (const SpawnError&) {
    return false;
  }
}

// The first python that imports torch ("" when none): a pyenv python3 on PATH often lacks it.
const std::string& torch_python() {
  static const std::string found = [] {
    std::vector<std::string> cands;
    if (const char* e = std::getenv("WMBENCH_TORCH_PYTHON"); e && *e) cands.push_back(e);
    cands.push_back("python3");
    cands.push_back("/usr/bin/python3");
    for (const auto& c : cands)
      if (imports_torch(c)) return c;
    return std::string();
  }();
  return found;
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

// Spawn `argv` (a child given `device` and "--step 4MiB --hello-only") -> its hello line read.
void time_to_hello(benchmark::State& state, const std::vector<std::string>& argv,
                   const std::vector<std::string>& device = {"--device", "cpu"}, bool model_without_torch = false) {
  const std::string& fill = argv.back();
  SpawnOptions so;
  so.argv = argv;
  so.argv.insert(so.argv.end(), device.begin(), device.end());
  for (const char* a : {"--step", "4MiB", "--hello-only"}) so.argv.push_back(a);
  so.env = current_environment();
  if (model_without_torch) so.env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";
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
      state.SkipWithError(("no hello from " + fill + " (exit " + std::to_string(st.shell_status()) + "): " + line).c_str());
      break;
    }
  }
  if (n > 0) state.counters["exit_ms"] = 1000 * exit_sum / static_cast<double>(n);
}

void child_start(benchmark::State& state) {
  const std::string fill = find_fill_binary();
  if (fill.empty()) {
    state.SkipWithError("wmbench-fill not found next to wmbench-bench; set WMBENCH_FILL");
    return;
  }
  time_to_hello(state, {fill});
}

void model_child_start(benchmark::State& state) {
  const std::string fill = find_fill_binary();
  if (fill.empty()) {
    state.SkipWithError("wmbench-fill not found next to wmbench-bench; set WMBENCH_FILL");
    return;
  }
  time_to_hello(state, {fill}, {"--device", "mps-model", "--recommended-max", "1GiB"}, /*model_without_torch=*/true);
}

void python_child_start(benchmark::State& state) { time_to_hello(state, {torch_python(), find_python_child()}); }

SpawnOptions python_import_torch() {
  SpawnOptions so;
  so.argv = {torch_python(), "-c", "import torch"};
  so.env = current_environment();
  so.stderr_path = "/dev/null";
  return so;
}

void python_import(benchmark::State& state) {
  const SpawnOptions so = python_import_torch();
  for (auto _ : state) {
    try {
      const Child c = spawn_child(so);
      const ExitStatus st = reap(c.pid);
      if (!st.code || *st.code != 0) {
        state.SkipWithError((torch_python() + " -c 'import torch' failed").c_str());
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
  benchmark::RegisterBenchmark("ModelChildStart", model_child_start)
      ->Unit(benchmark::kMillisecond)
      ->UseManualTime()
      ->MinTime(2.0);
  if (torch_python().empty()) return;
  if (!find_python_child().empty())
    benchmark::RegisterBenchmark("PythonChildStart", python_child_start)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->MinTime(2.0);
  benchmark::RegisterBenchmark("PythonImportTorch", python_import)->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace wmb::bench
