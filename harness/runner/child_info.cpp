#include "runner/child_info.h"

#include <unistd.h>

#include "runner/runner.h"
#include "spawn/process.h"

namespace wmb {

std::optional<nlohmann::json> fetch_child_hello(const std::string& fill_path, const std::string& device,
                                                std::string* error) {
  SpawnOptions so;
  so.argv = {fill_path, "--device", device, "--step", "4MiB", "--hello-only"};
  so.env = current_environment();
  so.capture_stdout = true;
  so.stderr_path = "/dev/null";
  Child c;
  try {
    c = spawn_child(so);
  } catch (const SpawnError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(c.stdout_fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  ::close(c.stdout_fd);
  reap(c.pid);
  size_t start = 0;
  std::optional<nlohmann::json> last_error;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? text.size() : nl + 1;
    try {
      auto j = nlohmann::json::parse(line);
      if (j.value("type", "") == "hello") return j;
      if (j.value("type", "") == "error") last_error = j;
    } catch (const nlohmann::json::exception&) {
    }
  }
  if (error) *error = last_error ? last_error->value("text", "no hello") : "wmbench-fill said no hello";
  return std::nullopt;
}

std::optional<nlohmann::json> fetch_child_hello(const std::string& device) {
  return fetch_child_hello(find_fill(""), device, nullptr);
}

}  // namespace wmb
