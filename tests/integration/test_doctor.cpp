// `wmbench doctor` run for real on this machine (Linux here; a Mac runs the same tests): every
// check passes or skips with a reason; a probe that gives a planted wrong answer fails the check
// that reads it, by name; the command's table, --json, exit code and doctor.json (never through a
// link).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "doctor/doctor.h"
#include "probe/probe.h"

namespace test_doctor {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmbt;
using wmb::doctor::Verdict;

namespace {

// The platform's probe, with one answer planted wrong.
class PlantedProbe : public wmb::MemoryProbe {
 public:
  enum class Lie { swap_total, footprint };
  explicit PlantedProbe(Lie lie) : real_(wmb::make_platform_probe()), lie_(lie) {}
  wmb::SystemMemory system() override { return plant(real_->system()); }
  wmb::SystemMemory check_reading() override { return plant(real_->check_reading()); }
  wmb::ProcessMemory process(pid_t pid, const std::string& cg) override {
    wmb::ProcessMemory p = real_->process(pid, cg);
    if (lie_ == Lie::footprint) p.footprint = 0;
    return p;
  }
  std::string name() const override { return "planted"; }

 private:
  wmb::SystemMemory plant(wmb::SystemMemory m) const {
    if (lie_ == Lie::swap_total) m.swap_total += uint64_t{1} << 30;
    return m;
  }
  std::unique_ptr<wmb::MemoryProbe> real_;
  Lie lie_;
};

std::string failed_names(const wmb::doctor::DoctorReport& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict == Verdict::fail) s += c.name + " (" + c.seen + ": " + c.why + "); ";
  return s;
}

}  // namespace

TEST(Doctor, EveryCheckPassesOrSaysWhyItSkipsOnThisMachine) {
  auto probe = wmb::make_platform_probe();
  const auto r = wmb::doctor::run_checks(*probe, WMBENCH_FILL_BIN);
  EXPECT_TRUE(r.ok()) << failed_names(r) << "\n" << wmb::doctor::report_text(r);
  EXPECT_GE(r.checks.size(), 8u);
  for (const auto& c : r.checks) {
    EXPECT_FALSE(c.expected.empty()) << c.name;
    EXPECT_FALSE(c.seen.empty()) << c.name;
    if (c.verdict == Verdict::skip) EXPECT_FALSE(c.why.empty()) << c.name << " skips without saying why";
  }
  const std::string text = wmb::doctor::report_text(r);
  EXPECT_TRUE(has(text, "a fill at HIGH 0.01")) << text;
  EXPECT_TRUE(has(text, "exit watch then reap")) << text;
}

TEST(Doctor, APlantedWrongSwapReadingFailsTheSwapCheckByName) {
  PlantedProbe probe(PlantedProbe::Lie::swap_total);
  const auto r = wmb::doctor::run_checks(probe, WMBENCH_FILL_BIN);
  EXPECT_FALSE(r.ok());
  size_t failed = 0;
  for (const auto& c : r.checks) {
    if (c.verdict != Verdict::fail) continue;
    ++failed;
    EXPECT_EQ(c.name, "swap reading") << "only the check that reads the planted answer fails: " << c.why;
  }
  EXPECT_EQ(failed, 1u) << failed_names(r);
}

TEST(Doctor, APlantedZeroFootprintFailsBothFootprintChecks) {
  PlantedProbe probe(PlantedProbe::Lie::footprint);
  const auto r = wmb::doctor::run_checks(probe, WMBENCH_FILL_BIN);
  EXPECT_FALSE(r.ok());
  const std::string failed = failed_names(r);
  EXPECT_TRUE(has(failed, "on itself")) << failed;
  EXPECT_TRUE(has(failed, "on a child")) << failed;
}

TEST(Doctor, TheCommandPrintsJsonExitsByTheVerdictAndWritesDoctorJsonOnlyWhereAsked) {
  Tmp t;
  auto r = wmbench({"doctor", "--json", "--out", t.path + "/report"});
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(r.status, j.at("ok").get<bool>() ? 0 : 1) << r.err;
  EXPECT_TRUE(j.at("checks").is_array());
  EXPECT_TRUE(file_exists(t.path + "/report/doctor.json"));
  EXPECT_EQ(nlohmann::json::parse(read_text(t.path + "/report/doctor.json")).at("checks").size(), j.at("checks").size());
  // A planted link in doctor.json's place is never written through.
  const std::string victim = t.path + "/victim";
  write(victim, "keep");
  ::mkdir((t.path + "/linked").c_str(), 0755);
  ASSERT_EQ(::symlink(victim.c_str(), (t.path + "/linked/doctor.json").c_str()), 0);
  auto l = wmbench({"doctor", "--out", t.path + "/linked"});
  EXPECT_EQ(l.status, 2) << l.out << l.err;
  EXPECT_TRUE(has(l.err, "doctor.json")) << l.err;
  EXPECT_EQ(read_text(victim), "keep");
  auto table = wmbench({"doctor"});
  EXPECT_TRUE(has(table.out, "check") && has(table.out, "expected") && has(table.out, "seen")) << table.out;
  EXPECT_TRUE(has(table.out, "wmbench doctor (")) << table.out;
}

}  // namespace test_doctor
