#include "readback/package_freeze.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace wmb {
namespace {

std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

std::string freeze_text(const std::map<std::string, std::string>& packages) {
  std::vector<std::pair<std::string, std::string>> v(packages.begin(), packages.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return ascii_lower(a.first) < ascii_lower(b.first); });
  std::string s;
  for (const auto& [n, ver] : v) s += n + "==" + ver + "\n";
  return s;
}

}  // namespace wmb
