#include "common/env_allowlist.h"

namespace wmb {

bool cell_env_allowed(const std::string& name, const std::set<std::string>& extra) {
  return name.rfind("PYTORCH_", 0) == 0 || extra.count(name) > 0;
}

std::vector<std::string> disallowed_env(const std::map<std::string, std::string>& env,
                                        const std::set<std::string>& extra) {
  std::vector<std::string> out;
  for (const auto& kv : env)
    if (!cell_env_allowed(kv.first, extra)) out.push_back(kv.first);
  return out;
}

std::string allowed_env_text() {
  return "a cell may set only the PYTORCH_* variables (wmbench run --allow-env NAME allows another, on purpose)";
}

}  // namespace wmb
