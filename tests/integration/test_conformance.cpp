// One protocol, two children: the C++ child (wmbench-fill, WMBENCH_FILL_BIN) and the Python child
// (build/wmbench_fill.py, WMBENCH_PYFILL, run by WMBENCH_TORCH_PYTHON, a python3 with torch found
// at configure time) get the same requests on cpu and must answer with the same message sequence
// (types in order), the same fields per message type, the same values where the request fixes
// them, and the same classification by the runner's own code (ChildReport + classify).
//
// Where the two legitimately differ, the test says so where it allows it:
//   - the Python child's hello has five more keys (child, python_version, python_executable,
//     torch_git_version, torch_file), after the C++ child's keys, in the same order;
//   - "exception" names the language's class: c10::Error vs RuntimeError (the text is PyTorch's);
//   - torch_version: the C++ child's is libtorch's header (1.13.0 on Debian), the Python child's is
//     torch.__version__ (1.13.0a0 for Debian's python3-torch): both non-empty strings;
//   - under an address-space limit the Python process has less room (the interpreter and torch's
//     Python extension are mapped too), so the number of steps before the refusal may differ;
//   - the Python child starts slower (import torch; BENCHMARKS.md), so timeouts are generous;
//   - mps-model exists in the C++ child only; the Python child refuses it as a usage error;
//   - CLI11's own parse errors (a missing required flag) are worded by CLI11 in the C++ child and
//     by the Python child itself: both are usage errors, only the value errors are word for word.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fillbase/options.h"
#include "guard/supervisor.h"
#include "protocol/child_report.h"
#include "verdict/classify.h"
#include "spawn/process.h"

#include "cli_util.h"

extern char** environ;

namespace test_conformance {  // one namespace per test file: the unity build compiles 8 files as one

namespace {

using ojson = nlohmann::ordered_json;
using Steady = std::chrono::steady_clock;

constexpr uint64_t MiB = 1ull << 20;
[[maybe_unused]] constexpr uint64_t GiB = 1ull << 30;  // used by Linux-only tests

// The keys only the Python child's hello has, in the order it writes them after the shared ones.
const std::vector<std::string> kPythonOnlyHelloKeys{"child", "python_version", "python_executable",
                                                    "torch_git_version", "torch_file"};

struct Kid {
  std::string name;               // "native" | "python"
  std::vector<std::string> argv;  // the program and the arguments before the child's flags
};

Kid native_child() { return {"native", {WMBENCH_FILL_BIN}}; }
Kid python_child() { return {"python", {WMBENCH_TORCH_PYTHON, WMBENCH_PYFILL}}; }

struct Line {
  ojson msg;
  double t = 0;  // seconds from the start when the line was read
};

struct Outcome {
  std::vector<Line> lines;
  std::vector<std::string> raw;
  wmb::ExitStatus status;
  std::string err;

  std::vector<std::string> types() const {
    std::vector<std::string> v;
    for (const auto& l : lines) v.push_back(l.msg.value("type", "?"));
    return v;
  }
  // The types in order with each run of "step" lines folded into one "step+".
  std::vector<std::string> shape() const {
    std::vector<std::string> v;
    for (const auto& t : types()) {
      const std::string s = t == "step" ? "step+" : t;
      if (v.empty() || v.back() != s || s != "step+") v.push_back(s);
    }
    return v;
  }
  std::vector<ojson> of_type(const std::string& type) const {
    std::vector<ojson> v;
    for (const auto& l : lines)
      if (l.msg.value("type", "") == type) v.push_back(l.msg);
    return v;
  }
  std::string describe() const {
    std::ostringstream os;
    os << "exit " << status.shell_status() << "\n--- stdout:\n";
    for (const auto& l : raw) os << l << "\n";
    os << "--- stderr:\n" << err;
    return os.str();
  }
};

struct Request {
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  uint64_t rlimit_as = 0;
  // RLIMIT_AS = what the child itself maps by its hello + this (0: no such limit): each child gets
  // the same headroom over its own start, however much its libtorch maps (wmbt::vm_size_at_hello).
  uint64_t rlimit_as_headroom = 0;
  // SIGKILL the child once it has written this many step lines (0: never).
  int kill_after_steps = 0;
  unsigned timeout_s = 300;
};

Outcome run_kid(const Kid& kid, const Request& rq_in) {
  Request rq = rq_in;
  if (rq.rlimit_as_headroom) {
    const uint64_t base = wmbt::vm_size_at_hello(kid.argv);
    EXPECT_GT(base, 0u) << kid.name << ": could not read its VmSize at the hello";
    rq.rlimit_as = base + rq.rlimit_as_headroom;
  }
  std::vector<std::string> argv_s = kid.argv;
  argv_s.insert(argv_s.end(), rq.args.begin(), rq.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (!rq.env.count(kv.substr(0, kv.find('=')))) env_s.push_back(kv);
  }
  for (const auto& [k, v] : rq.env) env_s.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  char err_path[] = "/tmp/wmbench-conformance-stderr-XXXXXX";
  const int err_fd = mkstemp(err_path);
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const auto t0 = Steady::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    close(err_fd);
    if (rq.rlimit_as && !wmbt::limit_address_space(rq.rlimit_as)) _exit(125);
    alarm(rq.timeout_s);  // survives exec: a hung child dies of SIGALRM
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(fds[1]);
  Outcome o;
  std::string buf;
  int steps = 0;
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      const std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      o.raw.push_back(line);
      Line l;
      l.t = std::chrono::duration<double>(Steady::now() - t0).count();
      try {
        l.msg = ojson::parse(line);
      } catch (const std::exception& e) {
        ADD_FAILURE() << kid.name << ": stdout line is not JSON: \"" << line << "\": " << e.what();
        continue;
      }
      if (l.msg.value("type", "") == "step" && ++steps == rq.kill_after_steps) kill(pid, SIGKILL);
      o.lines.push_back(std::move(l));
    }
  }
  EXPECT_TRUE(buf.empty()) << kid.name << ": stdout ends in a partial line: " << buf;
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) o.status.code = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) o.status.signal = WTERMSIG(st);
  o.err = wmbt::slurp(err_path);
  close(err_fd);
  unlink(err_path);
  return o;
}

// The runner's view: every line folded into a ChildReport, classified as the runner does for a
// child that ended by itself (or was killed from outside): no guard, no timeout.
struct Verdict {
  wmb::ChildReport report;
  wmb::Classification cls;
};

Verdict classify_outcome(const Outcome& o) {
  Verdict v;
  for (const auto& l : o.lines)
    EXPECT_TRUE(v.report.absorb(nlohmann::json::parse(l.msg.dump()))) << "unknown line type: " << l.msg.dump();
  wmb::SuperviseResult sup;
  sup.status = o.status;
  v.cls = wmb::classify(sup, v.report);
  return v;
}

std::vector<std::string> keys_of(const ojson& j) {
  std::vector<std::string> k;
  for (const auto& item : j.items()) k.push_back(item.key());
  return k;
}

// Same keys in the same order, and the same JSON kind per key (number / null / string / object),
// for every line of the same type. The Python hello may have kPythonOnlyHelloKeys after the rest.
void expect_same_fields(const ojson& native, const ojson& python) {
  const std::string type = native.value("type", "?");
  std::vector<std::string> nk = keys_of(native), pk = keys_of(python);
  if (type == "hello") {
    ASSERT_GE(pk.size(), kPythonOnlyHelloKeys.size()) << python.dump();
    const std::vector<std::string> tail(pk.end() - static_cast<long>(kPythonOnlyHelloKeys.size()), pk.end());
    EXPECT_EQ(tail, kPythonOnlyHelloKeys) << python.dump();
    pk.resize(pk.size() - kPythonOnlyHelloKeys.size());
  }
  EXPECT_EQ(nk, pk) << "fields of \"" << type << "\" differ:\n native " << native.dump() << "\n python " << python.dump();
  for (const auto& k : nk) {
    if (!python.contains(k)) continue;
    const auto kind = [](const ojson& v) {
      if (v.is_number()) return std::string("number");
      return std::string(v.type_name());
    };
    EXPECT_EQ(kind(native[k]), kind(python[k])) << type << "." << k << ":\n native " << native.dump()
                                                << "\n python " << python.dump();
  }
}

// Both children given `rq`: the same shape, the same fields line by line (over the common prefix
// of lines of each type), the same classification. Returns both outcomes for further checks.
std::pair<Outcome, Outcome> run_both(const Request& rq, bool same_step_count = true) {
  Outcome n = run_kid(native_child(), rq);
  Outcome p = run_kid(python_child(), rq);
  if (same_step_count)
    EXPECT_EQ(n.types(), p.types()) << "native:\n" << n.describe() << "\npython:\n" << p.describe();
  else
    EXPECT_EQ(n.shape(), p.shape()) << "native:\n" << n.describe() << "\npython:\n" << p.describe();
  EXPECT_EQ(n.status.code, p.status.code) << "native:\n" << n.describe() << "\npython:\n" << p.describe();
  EXPECT_EQ(n.status.signal, p.status.signal);
  std::map<std::string, std::vector<ojson>> by_type_n, by_type_p;
  for (const auto& l : n.lines) by_type_n[l.msg.value("type", "?")].push_back(l.msg);
  for (const auto& l : p.lines) by_type_p[l.msg.value("type", "?")].push_back(l.msg);
  for (const auto& [type, ns] : by_type_n) {
    const auto& ps = by_type_p[type];
    for (size_t i = 0; i < std::min(ns.size(), ps.size()); ++i) expect_same_fields(ns[i], ps[i]);
  }
  const Verdict vn = classify_outcome(n), vp = classify_outcome(p);
  EXPECT_EQ(vn.cls.stopped_by, vp.cls.stopped_by) << "native: " << vn.cls.detail << "\npython: " << vp.cls.detail;
  EXPECT_EQ(vn.cls.detail, vp.cls.detail);
  EXPECT_EQ(vn.cls.error.has_value(), vp.cls.error.has_value());
  if (vn.cls.error && vp.cls.error) {
    EXPECT_EQ(vn.cls.error->kind, vp.cls.error->kind);
    EXPECT_EQ(vn.cls.error->requested_bytes, vp.cls.error->requested_bytes);
  }
  if (same_step_count) {
    EXPECT_EQ(vn.report.steps, vp.report.steps);
    EXPECT_EQ(vn.report.held_bytes, vp.report.held_bytes);
    EXPECT_EQ(vn.report.allocated_bytes, vp.report.allocated_bytes);
  }
  EXPECT_EQ(vn.report.driver_bytes, vp.report.driver_bytes);
  EXPECT_EQ(vn.report.done_reason, vp.report.done_reason);
  EXPECT_EQ(vn.report.exact_max_allowed, vp.report.exact_max_allowed);
  EXPECT_EQ(vn.report.warnings, vp.report.warnings);
  EXPECT_EQ(vn.report.stages.size(), vp.report.stages.size());
  return {std::move(n), std::move(p)};
}

std::string classify_of(const Outcome& o) { return classify_outcome(o).cls.stopped_by; }

// The values a request fixes, in both hellos.
void expect_hello_values(const Outcome& o, const ojson& want) {
  ASSERT_FALSE(o.lines.empty()) << o.describe();
  const ojson& h = o.lines.front().msg;
  for (const auto& item : want.items()) EXPECT_EQ(h[item.key()], item.value()) << item.key() << ": " << h.dump();
  EXPECT_GT(h.value("pid", 0), 0);
  ASSERT_TRUE(h["torch_version"].is_string()) << h.dump();
  EXPECT_FALSE(h["torch_version"].get<std::string>().empty());
  ASSERT_TRUE(h["torch_library"].is_string()) << h.dump();
  struct stat st;
  EXPECT_EQ(stat(h["torch_library"].get<std::string>().c_str(), &st), 0) << h.dump();
}

TEST(Conformance, FillToCapSameLinesSameVerdict) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Request rq;
  rq.args = {"--device", "cpu", "--step", "4MiB", "--cap", "16MiB"};
  rq.env = {{"PYTORCH_CONFORMANCE_VAR", "0.8 \"quoted\" é"}, {"WMBENCH_NOT_PYTORCH", "x"}};
  auto [n, p] = run_both(rq);
  const std::vector<std::string> want{"hello", "step", "step", "step", "step", "done"};
  EXPECT_EQ(n.types(), want) << n.describe();
  EXPECT_EQ(classify_of(n), "cap");
  const ojson fixed = {{"device", "cpu"},
                       {"step_bytes", 4 * MiB},
                       {"cap_bytes", 16 * MiB},
                       {"data", "random"},
                       {"program", "fill"},
                       {"recommended_max_bytes", nullptr},
                       {"env", {{"PYTORCH_CONFORMANCE_VAR", "0.8 \"quoted\" é"}}}};
  for (const Outcome* o : {&n, &p}) {
    SCOPED_TRACE(o == &n ? "native" : "python");
    expect_hello_values(*o, fixed);
    ASSERT_EQ(o->lines.size(), 6u) << o->describe();
    for (uint64_t i = 1; i <= 4; ++i) {
      const ojson& s = o->lines[i].msg;
      EXPECT_EQ(s["index"], i) << s.dump();
      EXPECT_EQ(s["held_bytes"], i * 4 * MiB) << s.dump();
      EXPECT_EQ(s["allocated_bytes"], i * 4 * MiB) << s.dump();  // cpu: the live tensors' bytes
      EXPECT_TRUE(s["driver_bytes"].is_null()) << s.dump();
      EXPECT_GE(s["step_seconds"].get<double>(), 0.0);
    }
    EXPECT_EQ(o->lines.back().msg, (ojson{{"type", "done"}, {"reason", "cap"}, {"held_bytes", 16 * MiB}}));
  }
  // The Python child's own keys.
  const ojson& ph = p.lines.front().msg;
  EXPECT_EQ(ph.value("child", ""), "python");
  EXPECT_NE(ph.value("python_version", "").find('.'), std::string::npos) << ph.dump();
  EXPECT_TRUE(ph["torch_git_version"].is_string() || ph["torch_git_version"].is_null()) << ph.dump();
  EXPECT_TRUE(wmbt::file_exists(ph.value("torch_file", "/nonexistent"))) << ph.dump();
  EXPECT_TRUE(wmbt::file_exists(ph.value("python_executable", "/nonexistent"))) << ph.dump();
  EXPECT_FALSE(n.lines.front().msg.contains("child")) << "the C++ child has no \"child\" key (runner: absent = native)";
}

TEST(Conformance, DataKindsAndStepRounding) {
  SKIP_WITHOUT_PYTHON_TORCH();
  for (const std::string data : {"ones", "zeros"}) {
    SCOPED_TRACE(data);
    Request rq;
    rq.args = {"--device", "cpu", "--step", "1048579", "--cap", "3MiB", "--data", data};  // 1 MiB + 3 bytes
    auto [n, p] = run_both(rq);
    for (const Outcome* o : {&n, &p}) {
      expect_hello_values(*o, {{"step_bytes", MiB}, {"data", data}, {"cap_bytes", 3 * MiB}});
      EXPECT_EQ(o->status.code, 0) << o->describe();
    }
    EXPECT_EQ(n.of_type("step").size(), 3u);
  }
}

TEST(Conformance, StepDelayIsSleptBetweenSteps) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Request rq;
  rq.args = {"--device", "cpu", "--step", "1MiB", "--cap", "3MiB", "--step-delay", "400ms"};
  auto [n, p] = run_both(rq);
  for (const Outcome* o : {&n, &p}) {
    SCOPED_TRACE(o == &n ? "native" : "python");
    ASSERT_EQ(o->lines.size(), 5u) << o->describe();
    // Two delays (none after the last step): steps 1 -> 3 take at least 0.8 s in the child; t is
    // when this test read each line, so a late wake-up for step 1 shortens what it sees (0.2 s of
    // margin; without the delays the two steps are milliseconds apart).
    EXPECT_GE(o->lines[3].t - o->lines[1].t, 0.6) << o->describe();
  }
}

TEST(Conformance, HelloOnly) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Request rq;
  rq.args = {"--device", "cpu", "--step", "4MiB", "--hello-only"};
  auto [n, p] = run_both(rq);
  EXPECT_EQ(n.types(), std::vector<std::string>{"hello"}) << n.describe();
  EXPECT_EQ(n.status.code, 0);
  for (const Outcome* o : {&n, &p}) expect_hello_values(*o, {{"cap_bytes", nullptr}, {"data", "random"}});
}

TEST(Conformance, OffloadProgramSameStages) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Request rq;
  rq.args = {"--device", "cpu", "--step", "16MiB", "--program", "offload", "--offload-size", "64MiB"};
  auto [n, p] = run_both(rq);
  EXPECT_EQ(classify_of(n), "finished");
  const std::vector<std::string> names{"start", "on_device", "moved_to_cpu", "cpu_read", "released"};
  const std::vector<uint64_t> held{0, 64 * MiB, 64 * MiB, 64 * MiB, 0};
  const std::vector<uint64_t> allocated{0, 64 * MiB, 0, 0, 0};
  for (const Outcome* o : {&n, &p}) {
    SCOPED_TRACE(o == &n ? "native" : "python");
    expect_hello_values(*o, {{"program", "offload"}, {"offload_bytes", 64 * MiB}});
    const auto stages = o->of_type("stage");
    ASSERT_EQ(stages.size(), names.size()) << o->describe();
    for (size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(stages[i]["name"], names[i]);
      EXPECT_EQ(stages[i]["held_bytes"], held[i]) << stages[i].dump();
      EXPECT_EQ(stages[i]["allocated_bytes"], allocated[i]) << stages[i].dump();
      EXPECT_TRUE(stages[i]["driver_bytes"].is_null()) << stages[i].dump();
      ASSERT_TRUE(stages[i].contains("footprint_bytes")) << stages[i].dump();
#if defined(__linux__)
      ASSERT_TRUE(stages[i]["footprint_bytes"].is_number()) << stages[i].dump();  // VmRSS + VmSwap
#endif
    }
#if defined(__linux__)
    // The footprint follows the weights: resident while held, given back once released to meta.
    const auto fp = [&](size_t i) { return stages[i]["footprint_bytes"].get<uint64_t>(); };
    EXPECT_LT(fp(0) + 32 * MiB, fp(1)) << o->describe();
    EXPECT_GE(fp(3), fp(0) + 48 * MiB) << o->describe();
    if (!wmbt::kUnderAsan) EXPECT_LT(fp(4) + 32 * MiB, fp(3)) << o->describe();
#endif
    EXPECT_EQ(o->lines.back().msg, (ojson{{"type", "done"}, {"reason", "program"}, {"held_bytes", 0}}));
  }
}

// A real refusal by PyTorch's CPU allocator under an address-space limit 512 MiB above what each child maps by its hello
// (64 MiB steps; 2 GiB and 256 MiB steps before issue 44, the same 7-8 steps in four times the memory written): steps, then the
// error line (verbatim PyTorch text, no backtrace) while the earlier tensors are held, exit 3.
TEST(Conformance, AllocationFailureUnderAddressSpaceLimit) {
  SKIP_WITHOUT_PYTHON_TORCH();
  if (auto why = wmbt::address_space_limit_unusable(); !why.empty()) GTEST_SKIP() << why;
  // (Each child's own map at its hello is read by run_kid: wmbt::address_space_of.)
  if (wmbt::address_space_of(::getpid()) == 0)
    GTEST_SKIP() << "the address space a child maps by its hello cannot be read here";
  Request rq;
  rq.args = {"--device", "cpu", "--step", "64MiB"};
  rq.rlimit_as_headroom = 512 * MiB;
  // The Python process maps more before its first step: the step counts may differ.
  auto [n, p] = run_both(rq, /*same_step_count=*/false);
  EXPECT_EQ(n.shape(), (std::vector<std::string>{"hello", "step+", "error"})) << n.describe();
  EXPECT_EQ(classify_of(n), "pytorch");
  for (const Outcome* o : {&n, &p}) {
    SCOPED_TRACE(o == &n ? "native" : "python");
    EXPECT_EQ(o->status.code, 3) << o->describe();
    const auto steps = o->of_type("step");
    EXPECT_GE(steps.size(), 1u) << o->describe();
    EXPECT_LE(steps.size(), 8u) << o->describe();  // 8 x 64 MiB = the whole headroom
    ASSERT_FALSE(o->lines.empty());
    const ojson& e = o->lines.back().msg;
    const std::string text = e.value("text", "");
    EXPECT_NE(text.find("DefaultCPUAllocator: can't allocate memory"), std::string::npos) << text;
    EXPECT_NE(text.find("67108864 bytes"), std::string::npos) << text;
    EXPECT_EQ(text.find("Exception raised from"), std::string::npos) << "backtrace leaked: " << text;
  }
  // The same PyTorch text (the line number in alloc_cpu.cpp included); the class is per language.
  EXPECT_EQ(n.lines.back().msg["text"], p.lines.back().msg["text"]);
  EXPECT_EQ(n.lines.back().msg.value("exception", "").rfind("c10::", 0), 0u);
  EXPECT_EQ(p.lines.back().msg.value("exception", ""), "RuntimeError");
}

// Killed from outside (as by the kernel's OOM killer) mid-fill: the lines so far, then nothing.
TEST(Conformance, KilledFromOutsideIsACrash) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Request rq;
  rq.args = {"--device", "cpu", "--step", "1MiB", "--step-delay", "0.3"};
  rq.kill_after_steps = 2;
  auto [n, p] = run_both(rq, /*same_step_count=*/false);
  EXPECT_EQ(n.shape(), (std::vector<std::string>{"hello", "step+"})) << n.describe();
  for (const Outcome* o : {&n, &p}) {
    EXPECT_EQ(o->status.signal, SIGKILL) << o->describe();
    EXPECT_EQ(classify_of(*o), "crash");
    EXPECT_GE(o->of_type("step").size(), 2u);
    EXPECT_LE(o->of_type("step").size(), 3u);  // at most one more step was on its way
  }
}

struct UsageCase {
  std::vector<std::string> args;
  std::string must_contain;
  bool same_text;  // worded by our own options code in both (not by CLI11)
};

TEST(Conformance, UsageErrorsSameTextSameExitCode) {
  SKIP_WITHOUT_PYTHON_TORCH();
  const std::vector<UsageCase> cases{
      {{"--device", "cpu", "--step", "abc"}, "abc", true},
      {{"--device", "cpu", "--step", "3"}, "4 bytes", true},
      {{"--device", "cpu", "--step", "0"}, "zero", true},
      {{"--device", "cpu", "--step", "-1MiB"}, "negative", true},
      {{"--device", "cpu", "--step", "1PiB"}, "unknown unit", true},
      {{"--device", "cpu", "--step", "99999999TiB"}, "too large", true},
      {{"--device", "cpu", "--step", "8MiB", "--cap", "4MiB"}, "smaller than --step", true},
      {{"--device", "tpu", "--step", "8MiB"}, "mps, cuda, cpu, mps-model", true},
      {{"--device", "cpu", "--step", "8MiB", "--data", "purple"}, "random, ones, zeros", true},
      {{"--device", "cpu", "--step", "8MiB", "--program", "offload"}, "--offload-size", true},
      {{"--device", "cpu", "--step", "8MiB", "--offload-size", "1GiB"}, "only to --program offload", true},
      {{"--device", "cpu", "--step", "8MiB", "--recommended-max", "1GiB"}, "only to --device mps-model", true},
      {{"--device", "cpu", "--step", "8MiB", "--step-delay", "-1"}, ">= 0 seconds", true},
      {{"--device", "cpu", "--step", "8MiB", "--step-delay", "5 parsecs"}, "unknown unit", true},
      {{"--device", "cpu"}, "--step", false},
      {{"--step", "8MiB"}, "--device", false},
      {{"--device", "cpu", "--step", "8MiB", "--bogus"}, "--bogus", false},
  };
  // Every case runs in the Python child; the native child's text is its own option parser's
  // (fillbase/options.cpp, no libtorch) read here in this process, since each native start costs a
  // libtorch start (0.45 s of CPU) and every usage error takes the same path out of main.cpp. Three
  // cases, one of each way (a value our code words, a missing option, an unknown one), also run
  // the real native binary: its exit code, error line and stderr.
  const std::set<std::vector<std::string>> real_native = {
      {"--device", "cpu", "--step", "abc"}, {"--device", "cpu"}, {"--device", "cpu", "--step", "8MiB", "--bogus"}};
  size_t real_native_seen = 0;
  for (const UsageCase& c : cases) {
    std::string label;
    for (const auto& a : c.args) label += a + " ";
    SCOPED_TRACE(label);
    std::vector<const char*> argv = {"wmbench-fill"};
    for (const auto& a : c.args) argv.push_back(a.c_str());
    std::string native_text;
    try {
      wmb::fill::parse_fill_options(static_cast<int>(argv.size()), argv.data());
      ADD_FAILURE() << "the native parser accepted it";
    } catch (const wmb::fill::UsageError& e) {
      native_text = e.what();
    }
    EXPECT_NE(native_text.find(c.must_contain), std::string::npos) << native_text;
    Request rq;
    rq.args = c.args;
    std::vector<Outcome> outs = {run_kid(python_child(), rq)};
    if (real_native.count(c.args)) {
      ++real_native_seen;
      outs.push_back(run_kid(native_child(), rq));
    }
    for (const Outcome& o : outs) {
      EXPECT_EQ(o.status.code, 2) << o.describe();
      ASSERT_EQ(o.types(), std::vector<std::string>{"error"}) << o.describe();
      EXPECT_EQ(o.lines[0].msg.value("exception", ""), "usage");
      EXPECT_NE(o.lines[0].msg.value("text", "").find(c.must_contain), std::string::npos) << o.describe();
      EXPECT_NE(o.err.find(c.must_contain), std::string::npos) << "stderr: " << o.err;
      EXPECT_EQ(classify_of(o), "config");
      expect_same_fields(outs[0].lines.empty() ? ojson::object() : outs[0].lines[0].msg, o.lines[0].msg);
    }
    if (outs.size() == 2 && !outs[1].lines.empty())
      EXPECT_EQ(outs[1].lines[0].msg.value("text", ""), native_text) << "the binary says what its parser says";
    if (c.same_text && !outs[0].lines.empty()) EXPECT_EQ(outs[0].lines[0].msg.value("text", ""), native_text);
  }
  EXPECT_EQ(real_native_seen, real_native.size()) << "a case meant to run the binary is not in the list";
}

// A device that cannot run here: the same refusal (usage) from both, before any hello.
TEST(Conformance, UnavailableDevicesAreRefusedAlike) {
  SKIP_WITHOUT_PYTHON_TORCH();
#if !defined(__APPLE__)
  {
    Request rq;
    rq.args = {"--device", "mps", "--step", "8MiB"};
    for (const Kid& k : {native_child(), python_child()}) {
      const Outcome o = run_kid(k, rq);
      EXPECT_EQ(o.status.code, 2) << o.describe();
      ASSERT_EQ(o.types(), std::vector<std::string>{"error"}) << o.describe();
      EXPECT_EQ(o.lines[0].msg.value("text", "").rfind("device mps is available only on macOS (Apple silicon)", 0), 0u)
          << o.describe();
      EXPECT_EQ(classify_of(o), "config");
    }
  }
#endif
  // cuda: refused by both where neither sees a CUDA device; where both do, both say hello.
  Request rq;
  rq.args = {"--device", "cuda", "--step", "8MiB", "--hello-only"};
  const Outcome n = run_kid(native_child(), rq), p = run_kid(python_child(), rq);
  for (const Outcome* o : {&n, &p}) {
    if (o->status.code == 2) {
      ASSERT_EQ(o->types(), std::vector<std::string>{"error"}) << o->describe();
      EXPECT_EQ(o->lines[0].msg.value("text", "").rfind("device cuda is not available", 0), 0u) << o->describe();
    } else {
      EXPECT_EQ(o->status.code, 0) << o->describe();
      ASSERT_EQ(o->types(), std::vector<std::string>{"hello"}) << o->describe();
      EXPECT_TRUE(o->lines[0].msg["recommended_max_bytes"].is_number()) << o->describe();
    }
  }
  EXPECT_EQ(n.status.code, p.status.code) << "native:\n" << n.describe() << "\npython:\n" << p.describe();
}

// mps-model lives in the C++ child only: the Python child refuses it clearly.
TEST(Conformance, PythonChildRefusesMpsModel) {
  SKIP_WITHOUT_PYTHON_TORCH();
  Request rq;
  rq.args = {"--device", "mps-model", "--step", "8MiB", "--cap", "16MiB"};
  const Outcome n = run_kid(native_child(), rq);
  EXPECT_EQ(n.status.code, 0) << n.describe();
  const Outcome p = run_kid(python_child(), rq);
  EXPECT_EQ(p.status.code, 2) << p.describe();
  ASSERT_EQ(p.types(), std::vector<std::string>{"error"}) << p.describe();
  EXPECT_EQ(p.lines[0].msg.value("exception", ""), "usage");
  EXPECT_NE(p.lines[0].msg.value("text", "").find("mps-model"), std::string::npos);
  EXPECT_NE(p.lines[0].msg.value("text", "").find("without --python"), std::string::npos);
  EXPECT_EQ(classify_of(p), "config");
}

}  // namespace

}  // namespace test_conformance
