// Which environment variables a scenario's cell may set for the fill child. wmbench runs as
// root and --resume reads folders others made: a cell env of LD_PRELOAD, DYLD_INSERT_LIBRARIES,
// PYTHONPATH or PATH would run code nobody named. A cell may set the PYTORCH_* variables (the
// allocator's knobs this benchmark is about: PYTORCH_MPS_HIGH_WATERMARK_RATIO,
// PYTORCH_MPS_LOW_WATERMARK_RATIO, PYTORCH_CUDA_ALLOC_CONF, ...), which is what the scenario
// format documents (docs/ARCHITECTURE.md "Scenario file"). Any other variable only when the
// user names it on the command line: `wmbench run --allow-env NAME` (repeatable).
//
// Values are bounded by the OS's limit on one argument/environment string: Linux refuses a
// string over MAX_ARG_STRLEN (32 pages = 128 KiB, linux/binfmts.h) with E2BIG at exec; macOS
// bounds the whole of argv+envp by ARG_MAX (1 MiB, sys/syslimits.h). 64 KiB is far below both
// and far above any real setting.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace wmb {

constexpr size_t kMaxCellEnvValueBytes = size_t{64} << 10;

// PYTORCH_* (and nothing else) unless `extra` names it.
bool cell_env_allowed(const std::string& name, const std::set<std::string>& extra = {});
// The names of `env` that are not allowed, sorted.
std::vector<std::string> disallowed_env(const std::map<std::string, std::string>& env,
                                        const std::set<std::string>& extra = {});
// "the PYTORCH_* variables (pass --allow-env NAME to allow another)"
std::string allowed_env_text();

}  // namespace wmb
