// What differs by platform in `wmbench doctor`: readers_linux.cpp and readers_macos.cpp read
// this machine (sysctl, /proc, /sys, Metal, `sysctl` text) and hand each reading to a judge of
// checks.h. Only the platform file of this OS is built (CMakeLists.txt: *_linux.cpp, *_macos.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doctor/checks.h"
#include "doctor/fill_check.h"
#include "doctor/live.h"
#include "probe/probe.h"

namespace wmb::doctor {

std::string platform_name();  // "linux" | "macos"
LiveNames live_names();
// The checks of this platform's own readings: macOS, each sysctl's size and the swap reading
// against `sysctl vm.swapusage`; Linux, the swap reading against sysinfo(2), cgroup v2, PSI.
// `probe` is the probe wmbench's guard uses (a test plants a wrong one).
std::vector<Check> platform_checks(MemoryProbe& probe);
// The tiny fill's device and flags here (fill_check.h).
FillPlan fill_plan(const std::string& fill_path);
// macOS: Metal's recommendedMaxWorkingSetSize against the fill child's hello; nullopt elsewhere.
std::optional<Check> recommended_check(const FillReading& fill);

}  // namespace wmb::doctor
