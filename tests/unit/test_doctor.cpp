// wmbench doctor's verdicts (harness/doctor/checks.h), each given a right and a planted wrong
// reading: a wrong one must fail and say why, an absent optional feature must skip.
#include <gtest/gtest.h>

#include "doctor/checks.h"

namespace test_doctor {  // one namespace per test file: the unity build compiles 8 files as one

using namespace wmb::doctor;

TEST(DoctorJudge, SysctlOfTheWrongSizeFailsAndAnAbsentOptionalOneSkips) {
  EXPECT_EQ(judge_sysctl("vm.swapusage", SysctlSize{32, 0}, {32}, "struct xsw_usage", false).verdict, Verdict::pass);
  const Check wrong = judge_sysctl("vm.swapusage", SysctlSize{24, 0}, {32}, "struct xsw_usage", false);
  EXPECT_EQ(wrong.verdict, Verdict::fail);
  EXPECT_EQ(wrong.name, "sysctl vm.swapusage");
  EXPECT_NE(wrong.why.find("another size"), std::string::npos) << wrong.why;
  EXPECT_EQ(judge_sysctl("hw.memsize", SysctlSize{std::nullopt, 2}, {8}, "quad", false).verdict, Verdict::fail);
  const Check absent = judge_sysctl("iogpu.wired_limit_mb", SysctlSize{std::nullopt, 2}, {4, 8}, "int", true);
  EXPECT_EQ(absent.verdict, Verdict::skip);
  EXPECT_EQ(judge_sysctl("iogpu.wired_limit_mb", SysctlSize{8, 0}, {4, 8}, "int", true).verdict, Verdict::pass);
}

TEST(DoctorJudge, SysctlSwapusageTextIsParsedInMebibytes) {
  // As system_cmds' sysctl.c S_xswusage prints it: "total = %.2fM  used = %.2fM  free = %.2fM  %s".
  const auto f = parse_swapusage_text("vm.swapusage: total = 2048.00M  used = 1052.25M  free = 995.75M  (encrypted)\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->total, uint64_t{2048} << 20);
  EXPECT_EQ(f->used, static_cast<uint64_t>(1052.25 * 1048576));
  const auto none = parse_swapusage_text("vm.swapusage: total = 0.00M  used = 0.00M  free = 0.00M  ");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->total, 0u);
  EXPECT_FALSE(parse_swapusage_text("vm.swapusage: total = lots"));
  EXPECT_FALSE(parse_swapusage_text("sysctl: unknown oid 'vm.swapusage'"));
  EXPECT_FALSE(parse_swapusage_text("total = 1e999M used = 1M"));
}

TEST(DoctorJudge, SwapThatDisagreesWithTheSecondSourceFails) {
  const SwapFigures ref{uint64_t{8} << 30, uint64_t{1} << 30};
  EXPECT_EQ(judge_swap("p", ref, "", "r", ref, "").verdict, Verdict::pass);
  SwapFigures near = ref;
  near.used += 10 << 20;  // swap moved between the readings
  EXPECT_EQ(judge_swap("p", near, "", "r", ref, "").verdict, Verdict::pass);
  SwapFigures planted = ref;
  planted.total += uint64_t{1} << 30;
  const Check c = judge_swap("p", planted, "", "r", ref, "");
  EXPECT_EQ(c.verdict, Verdict::fail);
  EXPECT_NE(c.why.find("totals differ"), std::string::npos) << c.why;
  planted = ref;
  planted.used = ref.used * 3;
  EXPECT_EQ(judge_swap("p", planted, "", "r", ref, "").verdict, Verdict::fail);
  EXPECT_EQ(judge_swap("p", std::nullopt, "no /proc/meminfo", "r", ref, "").verdict, Verdict::fail);  // portable: an error text for the judge
  EXPECT_EQ(judge_swap("p", ref, "", "r", std::nullopt, "sysctl failed").verdict, Verdict::fail);
}

TEST(DoctorJudge, GroupListingMustNameEveryMemberAndNoOther) {
  EXPECT_EQ(judge_group_listing("proc_listpgrppids", {10, 11, 12}, {12, 10, 11}).verdict, Verdict::pass);
  // The issue-42 defect: a count taken for bytes leaves only the leader.
  const Check leader_only = judge_group_listing("proc_listpgrppids", {10, 11, 12}, {10});
  EXPECT_EQ(leader_only.verdict, Verdict::fail);
  EXPECT_EQ(leader_only.name, "proc_listpgrppids on a group of 3");
  EXPECT_EQ(judge_group_listing("x", {10, 11, 12}, {10, 11, 12, 99}).verdict, Verdict::fail);
  EXPECT_EQ(judge_group_stop(3, {}, "ended by SIGTERM").verdict, Verdict::pass);
  EXPECT_EQ(judge_group_stop(3, {11}, "ended by SIGTERM").verdict, Verdict::fail);
}

TEST(DoctorJudge, ExitWatchMustWakeAndThenReapButPollIsASkipOnOldKernels) {
  ExitWatchReading r{"pidfd", true, true, 0.1};
  EXPECT_EQ(judge_exit_watch("pidfd", r, "").verdict, Verdict::pass);
  r.reaped = false;
  EXPECT_EQ(judge_exit_watch("pidfd", r, "").verdict, Verdict::fail);
  ExitWatchReading poll{"poll", true, true, 1};
  EXPECT_EQ(judge_exit_watch("kqueue", poll, "").verdict, Verdict::fail);
  EXPECT_EQ(judge_exit_watch("pidfd", poll, "kernel 4.19 has no pidfd_open (5.3+)").verdict, Verdict::skip);
  EXPECT_EQ(judge_footprint("c", "itself", 0, "").verdict, Verdict::fail);
  EXPECT_EQ(judge_footprint("c", "itself", std::nullopt, "EPERM").verdict, Verdict::fail);
  EXPECT_EQ(judge_footprint("c", "itself", 4096, "").verdict, Verdict::pass);
}

TEST(DoctorJudge, FillMustEndByPytorchsErrorAtHighTimesRecommendedMax) {
  FillReading r;
  r.device = "mps";
  r.high = 0.01;
  r.recommended = uint64_t{5010800640};
  r.error_text = "MPS backend out of memory (...)";
  r.parsed_kind = "mps_oom";
  r.max_allowed = static_cast<uint64_t>(0.01 * 5010800640.0);
  EXPECT_EQ(judge_fill(r).verdict, Verdict::pass) << judge_fill(r).why;
  FillReading wrong = r;
  wrong.max_allowed = static_cast<uint64_t>(0.02 * 5010800640.0);
  EXPECT_EQ(judge_fill(wrong).verdict, Verdict::fail);
  FillReading no_error = r;
  no_error.error_text.reset();
  EXPECT_EQ(judge_fill(no_error).verdict, Verdict::fail);
  no_error.virtual_device = true;  // a VM's MPS: expected, said, a skip
  const Check vm = judge_fill(no_error);
  EXPECT_EQ(vm.verdict, Verdict::skip);
  EXPECT_NE(vm.why.find("paravirtual"), std::string::npos) << vm.why;
  EXPECT_EQ(judge_recommended_max(100, "", 100, "", false).verdict, Verdict::pass);
  EXPECT_EQ(judge_recommended_max(100, "", 99, "", false).verdict, Verdict::fail);
  EXPECT_EQ(judge_recommended_max(100, "", std::nullopt, "no hello", true).verdict, Verdict::skip);
}

TEST(DoctorJudge, LinuxFeaturesPassSkipOrFailByTheirText) {
  EXPECT_EQ(judge_cgroup2(std::string("cpuset cpu io memory pids\n"), "").verdict, Verdict::pass);
  EXPECT_EQ(judge_cgroup2(std::string("cpuset cpu io pids\n"), "").verdict, Verdict::skip);
  EXPECT_EQ(judge_cgroup2(std::nullopt, "ENOENT").verdict, Verdict::skip);
  EXPECT_EQ(judge_psi(std::string("some avg10=0.00 avg60=0.00 avg300=0.00 total=12\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=3\n"), "")
                .verdict,
            Verdict::pass);
  EXPECT_EQ(judge_psi(std::string("garbage\n"), "").verdict, Verdict::fail);
  EXPECT_EQ(judge_psi(std::nullopt, "ENOENT").verdict, Verdict::skip);
}

}  // namespace test_doctor
