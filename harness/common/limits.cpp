#include "common/limits.h"

#include <fmt/format.h>

#include "common/units.h"

namespace wmb {

double check_percent(double v, const std::string& what) {
  if (!(v >= 0 && v <= 100)) throw UnitError(fmt::format("{} {} is not a percent from 0 to 100", what, v));
  return v;
}

int check_repeats(long long v, const std::string& what) {
  if (v < 1 || v > kMaxRepeats) throw UnitError(fmt::format("{} {} is outside 1..{}", what, v, kMaxRepeats));
  return static_cast<int>(v);
}

void check_plan_size(size_t cells, long long repeats, const std::string& what) {
  const unsigned long long runs = static_cast<unsigned long long>(cells) * static_cast<unsigned long long>(repeats);
  if (repeats > 0 && runs > kMaxPlannedRuns)
    throw UnitError(fmt::format("{}: {} cells x {} repeats = {} runs; one result folder holds at most {} (split the "
                                "matrix into several scenarios)",
                                what, cells, repeats, runs, kMaxPlannedRuns));
}

unsigned long long check_model_bytes(unsigned long long bytes, const std::string& what) {
  if (bytes < kMinModelBytes || bytes > kMaxModelBytes)
    throw UnitError(fmt::format("{} {} is outside {} .. {} (the sizes a modelled Mac can have)", what, format_size(bytes),
                                format_size(kMinModelBytes), format_size(kMaxModelBytes)));
  return bytes;
}

unsigned long long check_other_bytes(unsigned long long bytes, const std::string& what) {
  if (bytes > kMaxModelBytes)
    throw UnitError(fmt::format("{} {} is above {} (the most a modelled Mac can have)", what, format_size(bytes),
                                format_size(kMaxModelBytes)));
  return bytes;
}

double check_memory_fraction(double f, const std::string& what) {
  const double m = f < 0 ? -f : f;
  if (!(f == 0 || (m >= kMinMemoryFraction && m <= kMaxMemoryFraction)))
    throw UnitError(fmt::format("{} {} is outside the memory fractions wmbench runs and records: 0, or {} to {} (either "
                                "sign; PyTorch itself takes 0 to 2 on MPS, 0 to 1 on CUDA, and its refusal of a value in "
                                "this bound is what the run records)",
                                what, f, kMinMemoryFraction, kMaxMemoryFraction));
  return f;
}

double check_interval(double seconds, const std::string& what) {
  if (!(seconds >= kMinIntervalSeconds))
    throw UnitError(fmt::format("{} {} s is below the smallest interval of {} s", what, seconds, kMinIntervalSeconds));
  return seconds;
}

}  // namespace wmb
