#include "releases/torch_version.h"

#include <algorithm>
#include <limits>
#include <regex>
#include <tuple>

#include <fmt/format.h>

namespace wmb::releases {
namespace {

// Group 1: the release numbers; 2: a/b/rc; 3: its number; 4: post; 5: dev; 6: local.
const std::regex& version_form() {
  static const std::regex r(
      R"(^([0-9]{1,6}(?:\.[0-9]{1,6}){1,3})(?:(a|b|rc)([0-9]{1,6}))?(?:\.post([0-9]{1,6}))?(?:\.dev([0-9]{1,10}))?(?:\+([A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*))?$)");
  return r;
}

struct Parsed {
  std::vector<long> release;
  int pre_kind = 3;  // 0 dev-only, 1 a, 2 b, 3 rc... see key(); 3 = none
  long pre_num = 0;
  long post = -1;
  long dev = -1;
  std::string local;
  bool ok = false;
};

Parsed parse(const std::string& v) {
  Parsed p;
  std::smatch m;
  if (v.size() > 64 || !std::regex_match(v, m, version_form())) return p;
  const std::string rel = m[1];
  size_t start = 0;
  while (start <= rel.size()) {
    const size_t dot = rel.find('.', start);
    p.release.push_back(std::stol(rel.substr(start, dot == std::string::npos ? std::string::npos : dot - start)));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  while (p.release.size() > 1 && p.release.back() == 0) p.release.pop_back();  // 2.12.0 == 2.12
  if (m[2].matched) {
    p.pre_kind = m[2] == "a" ? 0 : m[2] == "b" ? 1 : 2;
    p.pre_num = std::stol(m[3]);
  }
  if (m[4].matched) p.post = std::stol(m[4]);
  if (m[5].matched) p.dev = std::stol(m[5]);
  if (m[6].matched) p.local = m[6];
  p.ok = true;
  return p;
}

// PEP 440: X.devN < XaN < XbN < XrcN < X < X.postN (a dev of a pre or post release sorts just before it).
auto key(const Parsed& p) {
  // A bare .devN (no pre, no post) sorts before every pre-release of that release.
  const int pre = (p.dev >= 0 && p.pre_kind == 3 && p.post < 0) ? -1 : p.pre_kind;
  return std::make_tuple(pre, p.pre_num, p.post, p.dev < 0 ? std::numeric_limits<long>::max() : p.dev);
}

std::string release_text(const std::string& v) {
  std::smatch m;
  return std::regex_match(v, m, version_form()) ? std::string(m[1]) : "";
}

size_t count_dots(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '.')); }

}  // namespace

std::string version_problem(const std::string& text) {
  if (text.empty()) return "an empty torch version";
  if (text.size() > 64) return fmt::format("a torch version of {} characters (at most 64)", text.size());
  if (!parse(text).ok)
    return "not a torch version: expected MAJOR.MINOR[.PATCH] with optionally aN, bN, rcN, .postN, .devN and a local "
           "part of letters, digits and dots (2.12, 2.12.1, 2.13.0.dev20260601, 2.11.0+cpu)";
  return "";
}

std::string pip_requirement(const std::string& request) {
  const std::string rel = release_text(request);
  if (rel == request && count_dots(rel) == 1) return "torch==" + request + ".*";
  return "torch==" + request;
}

bool version_matches(const std::string& request, const std::string& imported) {
  const Parsed want = parse(request), got = parse(imported);
  if (!want.ok || !got.ok) return false;
  const std::string rel = release_text(request);
  if (rel == request && count_dots(rel) == 1) {  // "2.12": any 2.12.x
    return got.release.size() >= 1 && got.release[0] == want.release[0] &&
           (got.release.size() >= 2 ? got.release[1] : 0) == (want.release.size() >= 2 ? want.release[1] : 0);
  }
  if (want.release != got.release || key(want) != key(got)) return false;
  return want.local.empty() || want.local == got.local;
}

int compare_versions(const std::string& a, const std::string& b) {
  const Parsed x = parse(a), y = parse(b);
  if (!x.ok || !y.ok) return a < b ? -1 : a > b ? 1 : 0;
  if (x.release != y.release) return x.release < y.release ? -1 : 1;
  if (key(x) != key(y)) return key(x) < key(y) ? -1 : 1;
  if (x.local != y.local) return x.local < y.local ? -1 : 1;
  return 0;
}

std::string file_safe(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out;
}

}  // namespace wmb::releases
