#include "releases/release_request.h"

#include <cctype>

#include <fmt/format.h>

#include "releases/torch_version.h"

namespace wmb::releases {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!std::isdigit(c)) return false;
  return true;
}

// cpu, xpu, cuNN or cuNNN, rocmN[.N[.N]]: the names PyTorch's index has folders for.
bool known_variant(const std::string& v) {
  if (v == "cpu" || v == "xpu") return true;
  if (v.rfind("cu", 0) == 0) return v.size() >= 4 && v.size() <= 5 && all_digits(v.substr(2));
  if (v.rfind("rocm", 0) == 0 && v.size() > 4 && v.size() <= 12) {
    const std::string n = v.substr(4);
    if (n.front() == '.' || n.back() == '.') return false;
    size_t start = 0;
    for (;;) {
      const size_t dot = n.find('.', start);
      if (!all_digits(n.substr(start, dot == std::string::npos ? std::string::npos : dot - start))) return false;
      if (dot == std::string::npos) return true;
      start = dot + 1;
    }
  }
  return false;
}

}  // namespace

std::string request_problem(const std::string& text) {
  // The version's own bound is 64 (version_problem); "@nightly/rocmN.N.N" adds at most 21.
  if (text.size() > 96) return fmt::format("{} characters (a release is at most 96)", text.size());
  const size_t at = text.find('@');
  const std::string version = text.substr(0, at);
  if (const std::string why = version_problem(version); !why.empty()) return why;
  if (at == std::string::npos) return "";
  std::string rest = text.substr(at + 1);
  if (version.find('+') != std::string::npos)
    return fmt::format("a local part (+{}) and a variant (@{}) together: give one of them", version.substr(version.find('+') + 1),
                       rest);
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    const std::string channel = rest.substr(0, slash);
    if (channel != "test" && channel != "nightly")
      return fmt::format("channel \"{}\" after '@' (allowed: test/, nightly/, or none for the releases)", channel);
    rest = rest.substr(slash + 1);
  }
  if (!known_variant(rest))
    return fmt::format("variant \"{}\" after '@' (allowed: cpu, xpu, cuNN or cuNNN such as cu130, rocmN.N such as "
                       "rocm6.4; optionally after test/ or nightly/)",
                       rest);
  return "";
}

ReleaseRequest parse_request(const std::string& text) {
  ReleaseRequest r;
  const size_t at = text.find('@');
  r.version = text.substr(0, at);
  if (at == std::string::npos) return r;
  std::string rest = text.substr(at + 1);
  if (const size_t slash = rest.find('/'); slash != std::string::npos) {
    r.channel = rest.substr(0, slash);
    rest = rest.substr(slash + 1);
  }
  r.variant = rest;
  return r;
}

std::string ReleaseRequest::index_url(const std::string& root) const {
  if (variant.empty()) return "";
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base + "/" + (channel.empty() ? "" : channel + "/") + variant;
}

bool variant_matches(const ReleaseRequest& r, const std::string& imported_variant, const std::string& platform) {
  if (r.variant.empty() || r.variant == imported_variant) return true;
  return r.variant == "cpu" && imported_variant == "default" && platform == "darwin";
}

}  // namespace wmb::releases
