// One bound per input, the same for the writers (the command line, `wmbench run`) and the
// readers (the scenario and folder schema, report, check, history, compare, --resume): wmbench
// never writes a folder that it then refuses. Each check throws UnitError naming what and the
// allowed range.
#pragma once

#include <cstddef>
#include <string>

namespace wmb {

constexpr int kMaxRepeats = 1000;  // scenario "repeats", --repeat
// cells x repeats of one folder: every record and not-run entry of summary.json stays far under
// the 32 MiB that every reader applies (kMaxFolderJsonBytes; a record is about 2 KiB).
constexpr size_t kMaxPlannedRuns = 10000;
// guard.interval, guard.check_interval, --interval, --check-interval: at most 100 samples or
// checks a second (a trace line each).
constexpr double kMinIntervalSeconds = 0.01;

// The model's inputs (--recommended-max, --model-mac-ram, predict --ram/--recommended-max, and a
// resumed folder's machine.json "model"): 64 MiB (a recommended max below it leaves no room for
// one step, and ratios computed from it mean nothing: predict --recommended-max 1 suggested
// HIGH 2.00) to 1 PiB (1.7 x it stays far below 2^62, the bound of every stored size).
constexpr unsigned long long kMinModelBytes = 64ull << 20;
constexpr unsigned long long kMaxModelBytes = 1ull << 50;
// predict simulates each setting's fill step by step: at most this many steps, whatever --ram.
constexpr unsigned long long kMaxSimulatedSteps = 1ull << 16;

unsigned long long check_model_bytes(unsigned long long bytes, const std::string& what);
// The model's "other allocations" (--other-allocations of run and predict, a pasted error's, a
// resumed folder's machine.json model.other_bytes): 0 (none) to kMaxModelBytes, so that limit +
// other + a step never overflows.
unsigned long long check_other_bytes(unsigned long long bytes, const std::string& what);

// A cell's "memory_fraction" (torch.mps/torch.cuda.set_per_process_memory_fraction): 0, or a
// magnitude from kMinMemoryFraction to kMaxMemoryFraction, either sign. The same bound for the
// scenario reader (scenario.cpp), both children's argument parsers (fill/options.cpp and
// pyfill/wmbench_fill.py, whose MEMORY_FRACTION_MIN/MAX must equal these), the run record's reader
// (run_record.cpp) and so every folder reader (issue 30: 1e308 ran and its record was then
// refused; 1e-320 ran and the child refused its argument). PyTorch's own range (0..2 on MPS, 0..1
// on CUDA) is left to PyTorch inside this bound, so that its refusal is what a run records. Below
// 1e-9 no modelled Mac (at most kMaxModelBytes) allows a MiB; a JSON number that underflows a
// double (0.5e-400) is refused by the loader (json_input.h) as one that overflows is.
constexpr double kMinMemoryFraction = 1e-9;
constexpr double kMaxMemoryFraction = 1000.0;
double check_memory_fraction(double f, const std::string& what);

// 0..100 and a number (NaN is refused: every comparison with it is false).
double check_percent(double v, const std::string& what);
// 1..kMaxRepeats
int check_repeats(long long v, const std::string& what);
// cells x repeats <= kMaxPlannedRuns
void check_plan_size(size_t cells, long long repeats, const std::string& what);
// >= kMinIntervalSeconds
double check_interval(double seconds, const std::string& what);

}  // namespace wmb
