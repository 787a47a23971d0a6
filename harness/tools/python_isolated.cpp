#include "tools/python_isolated.h"

#include <filesystem>
#include <system_error>

namespace wmb {

std::vector<std::string> isolated_python_argv(const std::string& python, const std::vector<std::string>& rest) {
  std::vector<std::string> a = {python, "-I"};
  a.insert(a.end(), rest.begin(), rest.end());
  return a;
}

std::map<std::string, std::string> isolated_python_env(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env)
    if (k.rfind("PYTHON", 0) != 0) out.emplace(k, v);
  return out;
}

std::string absolute_for_child(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.string();
}

}  // namespace wmb
