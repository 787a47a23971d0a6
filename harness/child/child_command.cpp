#include "child/child_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "io/utf8.h"
#include "child/child_spec.h"
#include "common/run_error.h"

namespace wmb {
namespace {

class CommandChild final : public FillChild {
 public:
  explicit CommandChild(std::vector<std::string> argv) : argv_(std::move(argv)) {}
  // The job takes no fill flags: the cell is its environment.
  std::vector<std::string> argv(const std::vector<std::string>& /*flags*/) const override { return argv_; }
  nlohmann::json describe() const override {
    return {{"kind", kCommandChild}, {"program", argv_[0]}, {"command", argv_}, {"python", nullptr}};
  }
  std::string program() const override { return argv_[0]; }
  std::string cannot_start(const std::string& why) const override {
    return fmt::format("the command {} could not be started: {}", argv_[0], why);
  }

 private:
  std::vector<std::string> argv_;
};

// "" when `path` is an executable regular file, else why not.
std::string not_runnable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return "it is not executable";
  return "";
}

}  // namespace

std::string resolve_job_program(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty())
    throw RunRefused("--command: no command given; usage: wmbench run --command [options] -- CMD ARGS...");
  const std::string& name = argv[0];
  const std::string shown = utf8_sanitize(name, 200);
  if (name.find('/') != std::string::npos) {
    const std::string why = not_runnable(name);
    if (!why.empty()) throw RunRefused(fmt::format("--command: the program {} cannot be run: {}", shown, why));
    return name;
  }
  const char* env = std::getenv("PATH");
  const std::string path = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
  for (size_t start = 0; start <= path.size();) {
    const size_t c = path.find(':', start);
    const std::string dir = path.substr(start, c == std::string::npos ? std::string::npos : c - start);
    const std::string cand = (dir.empty() ? "." : dir) + "/" + name;
    if (not_runnable(cand).empty()) return cand;
    if (c == std::string::npos) break;
    start = c + 1;
  }
  throw RunRefused(fmt::format("--command: the program {} was not found as an executable file on PATH ({})", shown,
                               utf8_sanitize(path, 400)));
}

std::unique_ptr<FillChild> command_fill_child(const std::vector<std::string>& argv) {
  const std::string program = resolve_job_program(argv);  // throws on an empty argv
  std::vector<std::string> a = argv;
  a[0] = program;
  return std::make_unique<CommandChild>(std::move(a));
}

bool is_job_child(const FillChild& child) { return dynamic_cast<const CommandChild*>(&child) != nullptr; }

}  // namespace wmb
