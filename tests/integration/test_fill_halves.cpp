// wmbench-fill's two halves (harness/fillbase/main.cpp): mps-model runs in wmbench-fill itself,
// without libtorch; every other device is wmbench-fill-torch, which wmbench-fill becomes (execv).
// The model without libtorch must say, line for line, what the libtorch model (wmbench-fill-torch
// started directly: fill/device_mps_model.cpp over the same fillbase/model_buffers.h) says, with the
// same exit code, for every way a model run ends; and a wmbench-fill whose torch half is missing
// still runs the model and says which file it could not start for any other device.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_util.h"
#include "fillbase/child_lines.h"
#include "fillbase/model_buffers.h"

namespace test_fill_halves {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
namespace fs = std::filesystem;

namespace {

std::string torch_half() { return (fs::path(WMBENCH_FILL_BIN).parent_path() / "wmbench-fill-torch").string(); }

std::vector<nlohmann::json> lines_of(const std::string& out) {
  std::vector<nlohmann::json> v;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    if (!line.empty()) v.push_back(nlohmann::json::parse(line));
    start = end + 1;
  }
  return v;
}

// What differs between two runs of the same thing: the pid, a step's time, a stage's footprint.
nlohmann::json comparable(nlohmann::json j) {
  for (const char* k : {"pid", "step_seconds", "footprint_bytes"})
    if (j.contains(k)) j[k] = "-";
  return j;
}

struct Case {
  std::string name;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  int exit_code;
};

}  // namespace

TEST(FillHalves, TheModelWithoutLibtorchSaysWhatTheLibtorchModelSaysLineForLine) {
  ASSERT_TRUE(file_exists(torch_half())) << torch_half() << " was not built beside " << WMBENCH_FILL_BIN;
  const std::vector<std::string> small = {"--device", "mps-model", "--recommended-max", "64MiB", "--step", "8MiB"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = small;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const std::vector<Case> cases = {
      {"the limit (PyTorch's OOM and the exact limit)", with({"--cap", "256MiB"}), {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.5"}}, 3},
      {"the cap", with({"--cap", "32MiB", "--data", "ones"}), {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0"}}, 0},
      {"a bad LOW at the first allocation", with({"--cap", "64MiB"}),
       {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.8"}, {"PYTORCH_MPS_LOW_WATERMARK_RATIO", "1.4"}}, 3},
      {"a refused memory fraction", with({"--cap", "64MiB", "--memory-fraction", "2.5"}), {}, 3},
      {"a buffer over maxBufferLength", with({"--cap", "64MiB", "--model-max-buffer", "4MiB"}), {}, 3},
      {"an older revision's message", with({"--cap", "256MiB", "--model-revision", "legacy"}),
       {{"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.0"}}, 3},
      {"the hello only", with({"--hello-only", "--model-ram", "8GiB"}), {}, 0},
      {"the offload program", with({"--program", "offload", "--offload-size", "24MiB", "--data", "zeros"}), {}, 0},
      {"a usage error", with({"--data", "halves"}), {}, 2},
  };
  for (const Case& c : cases) {
    RunOpts o;
    o.timeout = 120;
    o.set_env = c.env;
    for (const char* k : {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO"})
      if (!c.env.count(k)) o.unset_env.push_back(k);
    std::vector<std::string> model = c.args, torch = c.args;
    model.insert(model.begin(), WMBENCH_FILL_BIN);
    torch.insert(torch.begin(), torch_half());
    RunOpts lean = o;
    lean.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";  // the model in wmbench-fill itself
    const Result m = run(model, lean), t = run(torch, o);
    EXPECT_EQ(m.status, c.exit_code) << c.name << "\n" << m.out << m.err;
    EXPECT_EQ(t.status, c.exit_code) << c.name << "\n" << t.out << t.err;
    const auto ml = lines_of(m.out), tl = lines_of(t.out);
    ASSERT_EQ(ml.size(), tl.size()) << c.name << "\nwithout libtorch:\n" << m.out << "\nlibtorch:\n" << t.out;
    ASSERT_FALSE(ml.empty()) << c.name;
    for (size_t i = 0; i < ml.size(); ++i)
      EXPECT_EQ(comparable(ml[i]), comparable(tl[i])) << c.name << ", line " << i + 1;
    if (c.exit_code == 3) {
      EXPECT_EQ(ml.back()["type"] == "limit" ? ml[ml.size() - 2]["exception"] : ml.back()["exception"], "c10::Error")
          << c.name << "\n" << m.out;
    }
  }
}

TEST(FillHalves, WithoutItsTorchHalfWmbenchFillRunsTheModelAndNamesTheFileForAnyOtherDevice) {
  Tmp t;
  const std::string alone = t.path + "/wmbench-fill";
  fs::copy_file(WMBENCH_FILL_BIN, alone);
  ::chmod(alone.c_str(), 0755);
  RunOpts o;
  o.timeout = 120;
  o.unset_env = {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO", "WMBENCH_FILL_MODEL_WITHOUT_TORCH"};
  // By default the model too is the torch half's: alone, wmbench-fill names it.
  auto r = run({alone, "--device", "mps-model", "--recommended-max", "64MiB", "--step", "8MiB", "--cap", "256MiB"}, o);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, t.path + "/wmbench-fill-torch")) << r.out;
  RunOpts lean = o;
  lean.unset_env = {"PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO"};
  lean.set_env["WMBENCH_FILL_MODEL_WITHOUT_TORCH"] = "1";
  r = run({alone, "--device", "mps-model", "--recommended-max", "64MiB", "--step", "8MiB", "--cap", "256MiB"}, lean);
  EXPECT_EQ(r.status, 3) << r.out << r.err;  // PyTorch's refusal at 1.7 x 64 MiB, not a failure to start
  EXPECT_TRUE(has(r.out, "MPS backend out of memory")) << r.out;
  r = run({alone, "--device", "cpu", "--step", "8MiB", "--cap", "16MiB"}, o);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0]["type"], "error");
  EXPECT_EQ(lines[0]["exception"], "launcher");
  EXPECT_TRUE(has(lines[0]["text"].get<std::string>(), t.path + "/wmbench-fill-torch")) << r.out;
  EXPECT_TRUE(has(r.err, "wmbench-fill-torch")) << r.err;
  // A usage error is said before any half is chosen, as before.
  r = run({alone, "--device", "cpu", "--step", "0"}, o);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
}

TEST(FillHalves, EveryOtherDeviceIsTheTorchHalfUnderTheSamePid) {
  RunOpts o;
  o.timeout = 120;
  std::atomic<pid_t> started{0};
  o.while_running = [&](pid_t pid) { started = pid; };
  const Result r = run({WMBENCH_FILL_BIN, "--device", "cpu", "--step", "4MiB", "--cap", "8MiB"}, o);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0]["type"], "hello");
  EXPECT_EQ(lines[0]["device"], "cpu");
  // execv, not a child of wmbench-fill: the pid the parent started is the one that says hello
  EXPECT_EQ(lines[0]["pid"].get<int64_t>(), static_cast<int64_t>(started.load())) << r.out;
  EXPECT_EQ(lines.back()["type"], "done") << r.out;
  // the hello's library is the torch the process really loaded
  ASSERT_TRUE(lines[0]["torch_library"].is_string()) << r.out;
  EXPECT_TRUE(file_exists(lines[0]["torch_library"].get<std::string>())) << r.out;
}

// Issue 45: the same refusal gives the same exit code from both children. A std::exception out of
// a libtorch call (c10's allocator config parses PYTORCH_CUDA_ALLOC_CONF's numbers with std::stod:
// per_process_memory_fraction:abc throws std::invalid_argument) is a RuntimeError in Python
// (torch/csrc/Exceptions.h, CATCH_ALL_ERRORS), exit 3 in the Python child; the native child said
// "unexpected" and exit 1. Read here in this process: fillbase/child_lines.h report_exception.
namespace {

struct Reported {
  int code;
  nlohmann::json line;
};

template <class E>
Reported report_of(const E& thrown, bool torchs) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  wmb::fill::ProtocolOut out(fds[1]);
  int code = -1;
  try {
    throw thrown;
  } catch (...) {
    code = wmb::fill::report_exception(out, torchs);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  return {code, text.empty() ? nlohmann::json() : nlohmann::json::parse(text.substr(0, text.find('\n')))};
}

}  // namespace

TEST(FillHalves, AStdExceptionOutOfLibtorchIsExit3AsInPythonAndOneOfWmbenchsOwnIsExit1) {
  auto r = report_of(std::invalid_argument("stod"), true);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.line["type"], "error");
  EXPECT_EQ(r.line["text"], "stod");
  EXPECT_EQ(r.line["exception"], "std::invalid_argument");
  r = report_of(std::invalid_argument("stod"), false);  // no libtorch call ran: wmbench's own fault
  EXPECT_EQ(r.code, 1);
  r = report_of(wmb::fill::PyTorchRefusal("invalid low watermark ratio 1.4"), false);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.line["exception"], "c10::Error");
  EXPECT_EQ(r.line["text"], "invalid low watermark ratio 1.4");
  r = report_of(std::bad_alloc(), false);
  EXPECT_EQ(r.code, 3);
  r = report_of(wmb::fill::UsageError("--step: bad"), true);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.line["exception"], "usage");
  r = report_of(42, true);  // not a std::exception at all
  EXPECT_EQ(r.code, 1);
}

}  // namespace test_fill_halves
