// `wmbench explain [FILE|-] [--json] [--high RATIO]`: which memory limit a pasted PyTorch error
// message names, and what to set. The parsing and the advice live in errparse/error_parser.*;
// this file reads the input and prints.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "errparse/pasted_input.h"
#include "io/json_input.h"
#include "errparse/error_parser.h"
#include "explain/explain.h"
#include "common/units.h"
#include "scenario/wired_limit.h"

namespace {

struct ExplainArgs {
  std::string file;  // empty or "-": stdin
  bool json = false;
  double high = wmb::kDefaultHighWatermark;
  double fraction = 0;  // --fraction (given: fraction_given)
  std::string wired_limit;  // --wired-limit N (MiB)
};

int run_explain(const ExplainArgs& args, bool high_given, bool fraction_given) {
  std::string text;
  if (!wmb::read_pasted_input("wmbench explain", args.file, text)) return wmb::cli::kExitUsage;
  const wmb::ParsedError parsed = wmb::parse_error(text);
  wmb::ExplainOptions opt{args.high, high_given, std::nullopt, std::nullopt};
  if (fraction_given) opt.fraction = args.fraction;
  if (!args.wired_limit.empty()) {
    try {
      const wmb::WiredLimit w = wmb::parse_wired_limit(args.wired_limit);
      if (w.percent_ram) throw wmb::UnitError("a share of RAM needs the RAM; give MiB (e.g. 12000)");
      if (!w.system_default()) opt.wired_limit_mib = w.mib;
    } catch (const wmb::UnitError& e) {
      std::cerr << "wmbench explain: --wired-limit: " << e.what() << '\n';
      return wmb::cli::kExitUsage;
    }
  }
  if (args.json) {
    // Ill-formed UTF-8 in the pasted text is written as U+FFFD: a dump never throws.
    std::cout << wmb::explain_json(parsed, opt).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    std::cout << wmb::explain_text(parsed, opt);
  }
  std::cout.flush();
  return parsed.kind == wmb::ErrorKind::Unknown ? wmb::cli::kExitFail : wmb::cli::kExitOk;
}

const wmb::cli::Registrar reg_explain{wmb::cli::Command{40, [](CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "Explain a pasted PyTorch error message: which memory limit was hit (MPS watermark, CUDA cap, CPU), the "
      "implied recommended max and Mac RAM class, and a HIGH/LOW pair that gives a clean error");
  sub->add_option("file", args->file, "File holding the error text; '-' or nothing reads standard input");
  sub->add_flag("--json", args->json, "Print one JSON object (the parsed error, plus implied_recommended_max_bytes "
                                      "and likely_ram_bytes when computed)");
  CLI::Option* high = sub->add_option(
      "--high", args->high,
      "PYTORCH_MPS_HIGH_WATERMARK_RATIO in force when the error was raised (default 1.7), in (0, 2]");
  high->check(CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0 || v > 2.0)
          return "--high must be a ratio in (0, 2] (the HIGH watermark the message was raised under), got \"" + s + "\"";
        return std::string();
      },
      "RATIO in (0, 2]"));
  CLI::Option* fraction = sub->add_option(
      "--fraction", args->fraction,
      "torch.mps.set_per_process_memory_fraction(F) called by the code, in (0, 2]: it replaces HIGH, and the message is "
      "the same");
  fraction->check(CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0 || v > 2.0)
          return "--fraction must be a memory fraction in (0, 2] (torch.mps.set_per_process_memory_fraction), got \"" + s + "\"";
        return std::string();
      },
      "F in (0, 2]"));
  sub->add_option("--wired-limit", args->wired_limit,
                  "The sysctl iogpu.wired_limit_mb (MiB): also say what the limit would be with it (HIGH x it)");
  sub->callback([args, high, fraction, &exit_code]() {
    exit_code = run_explain(*args, high->count() > 0, fraction->count() > 0);
  });
}}};

}  // namespace
