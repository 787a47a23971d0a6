// `wmbench predict [--ram SIZE] [--recommended-max SIZE] [--free SIZE] [--json] [--scenario FILE]
//                  [--simulate] [--model-revision NAME] [--python PYTHON] [--from-error FILE|-]`:
// what each watermark setting would do on this machine (or a Mac of --ram), before running
// anything. This file only turns flags into inspect::PredictArgs; the inputs and the driver are
// inspect/predict_inputs.h and inspect/predict_run.h, the model and its report mpsmodel/predict.h.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "inspect/predict_run.h"
#include "mpsmodel/revision.h"

namespace {

using wmb::inspect::PredictArgs;
using wmb::inspect::run_predict;

const wmb::cli::Registrar reg_predict{wmb::cli::Command{50, [](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict what each watermark setting does on this machine (or a Mac of --ram): max allowed, whether it lies "
      "above RAM or the memory free now (=> swap, no clean error), and the HIGH/LOW pair for a clean error");
  sub->add_option("--ram", args->ram, "RAM of the Mac to predict for (default: this machine's), e.g. 48GiB");
  sub->add_option("--recommended-max", args->recommended_max,
                  "Metal's recommended max working set (default: from MPS on a Mac, else estimated from the RAM)");
  sub->add_option("--wired-limit", args->wired_limit,
                  "The sysctl iogpu.wired_limit_mb to predict with (MiB, e.g. 12000, or 80%RAM; 0 = the system "
                  "default): Metal's recommended max follows it, so every limit is HIGH x it");
  sub->add_option("--free", args->free,
                  "Memory free with the everyday apps open (default: measured now; with --ram, this machine's "
                  "free share of it)");
  sub->add_option("--scenario", args->scenario, "Scenario file whose matrix cells to predict (default: built-in set)");
  sub->add_option("--model-revision", args->revision,
                  "PyTorch release the messages are modelled on: " + wmb::mpsmodel::revision_names() + " (default current)");
  sub->add_option("--python", args->python,
                  "Ask MPS for the recommended max through the Python child under this interpreter (a Mac; default "
                  "$WMBENCH_PYTHON_CHILD, else wmbench-fill on a Mac)");
  sub->add_option("--other-allocations", args->other,
                  "Metal's and MPSGraph's own memory, counted against the same limit (default 448KiB, the write-up's; "
                  "users report gigabytes at baseline)");
  sub->add_option("--from-error", args->from_error,
                  "A pasted MPS out-of-memory message (FILE, or - for standard input): its recommended max, other "
                  "allocations and step, and what each setting would do on that Mac");
  CLI::Option* high = sub->add_option("--high", args->high,
                                      "With --from-error: the HIGH ratio in force when it was raised (default 1.7)");
  high->check(CLI::Range(0.0, 2.0).description("RATIO in (0, 2]"));
  CLI::Option* fraction = sub->add_option(
      "--fraction", args->fraction,
      "With --from-error: torch.mps.set_per_process_memory_fraction(F) called by the code (it replaces HIGH; the "
      "message is the same)");
  fraction->check(CLI::Range(0.0, 2.0).description("F in (0, 2]"));
  sub->add_flag("--simulate", args->simulate,
                "Also show each setting's fill simulated step by step (always with --scenario, always in --json)");
  sub->add_flag("--json", args->json, "Print one JSON object");
  sub->callback([args, high, fraction, &exit_code]() {
    args->high_given = high->count() > 0;
    args->fraction_given = fraction->count() > 0;
    if (args->fraction_given && !(args->fraction > 0)) {
      std::cerr << "wmbench predict: --fraction must be a memory fraction in (0, 2]\n";
      exit_code = wmb::cli::kExitUsage;
      return;
    }
    if (args->high_given && !(args->high > 0)) {
      std::cerr << "wmbench predict: --high must be a ratio in (0, 2]\n";
      exit_code = wmb::cli::kExitUsage;
      return;
    }
    exit_code = run_predict(*args);
  });
}}};

}  // namespace
