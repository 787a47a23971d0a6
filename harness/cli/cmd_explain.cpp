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
#include "common/json_input.h"
#include "errparse/error_parser.h"

namespace {

struct ExplainArgs {
  std::string file;  // empty or "-": stdin
  bool json = false;
  double high = wmb::kDefaultHighWatermark;
};

// Reads the whole input; on failure prints a message naming the file and returns false.
bool read_input(const std::string& file, std::string& out) {
  const bool from_stdin = file.empty() || file == "-";
  const std::string name = from_stdin ? std::string("standard input") : "\"" + file + "\"";
  int fd = STDIN_FILENO;
  if (from_stdin) {
    if (::isatty(fd)) std::fputs("Paste the PyTorch error message, then press Ctrl-D on an empty line:\n", stderr);
  } else {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      std::fprintf(stderr, "wmbench explain: cannot read %s: %s\n", name.c_str(), std::strerror(errno));
      return false;
    }
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "wmbench explain: cannot read %s: it is a directory\n", name.c_str());
    if (!from_stdin) ::close(fd);
    return false;
  }
  char buf[65536];
  bool ok = true;
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      if (out.size() > wmb::kMaxPastedTextBytes) {
        std::fprintf(stderr,
                     "wmbench explain: %s holds more than %zu bytes; an error message is a few KiB: give only the "
                     "message (e.g. the lines from \"RuntimeError\" on)\n",
                     name.c_str(), wmb::kMaxPastedTextBytes);
        ok = false;
        break;
      }
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      std::fprintf(stderr, "wmbench explain: cannot read %s: %s\n", name.c_str(), std::strerror(errno));
      ok = false;
      break;
    }
  }
  if (!from_stdin) ::close(fd);
  if (ok && out.find_first_not_of(" \t\r\n\v\f") == std::string::npos) {
    std::fprintf(stderr, "wmbench explain: %s holds no text; give the error message in a file or on standard input\n",
                 name.c_str());
    ok = false;
  }
  return ok;
}

int run_explain(const ExplainArgs& args, bool high_given) {
  std::string text;
  if (!read_input(args.file, text)) return wmb::cli::kExitUsage;
  const wmb::ParsedError parsed = wmb::parse_error(text);
  const wmb::ExplainOptions opt{args.high, high_given};
  if (args.json) {
    // Ill-formed UTF-8 in the pasted text is written as U+FFFD: a dump never throws.
    std::cout << wmb::explain_json(parsed, opt).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    std::cout << wmb::explain_text(parsed, opt);
  }
  std::cout.flush();
  return parsed.kind == wmb::ErrorKind::Unknown ? wmb::cli::kExitFail : wmb::cli::kExitOk;
}

const wmb::cli::Registrar reg{wmb::cli::Command{40, [](CLI::App& app, int& exit_code) {
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
  sub->callback([args, high, &exit_code]() { exit_code = run_explain(*args, high->count() > 0); });
}}};

}  // namespace
