#include "compare/comparable.h"

#include <optional>
#include <set>

#include <fmt/format.h>

#include "io/text_table.h"
#include "common/units.h"
#include "readback/folder_device.h"
#include "mpsmodel/revision.h"

namespace wmb::compare {

using nlohmann::json;

namespace {

json machine_of(const ResultFolder& f) {
  json m = json::object();
  if (f.summary.is_object())
    if (auto it = f.summary.find("machine"); it != f.summary.end() && it->is_object()) m = *it;
  if (f.machine.is_object()) m.update(f.machine);  // machine.json wins
  return m;
}

json model_of(const json& machine) {
  auto it = machine.find("model");
  return it != machine.end() && it->is_object() ? *it : json();
}

std::optional<uint64_t> size_at(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

std::string text_at(const json& obj, const char* key, const std::string& fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::set<uint64_t> steps_of(const ResultFolder& f) {
  std::set<uint64_t> out;
  if (!f.summary.is_object()) return out;
  auto runs = f.summary.find("runs");
  if (runs == f.summary.end() || !runs->is_array()) return out;
  for (const auto& r : *runs)
    if (auto v = size_at(r, "step_bytes")) out.insert(*v);
  return out;
}

std::string steps_text(const std::set<uint64_t>& s) {
  std::string out;
  for (uint64_t v : s) out += (out.empty() ? "" : ", ") + format_size(v);
  return out;
}

std::string sandbox_text(const json& machine) {
  auto it = machine.find("sandbox");
  if (it == machine.end() || it->is_null()) return "none";
  if (auto v = size_at(*it, "ram_limit_bytes")) return format_size(*v);
  return "unknown";
}

}  // namespace

std::string model_version_text(const json& model) {
  if (!model.is_object()) return "";
  if (auto it = model.find("version"); it != model.end()) {
    // A whole number (signed or not: in memory nlohmann keeps an int signed), 0..1000.
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 1000)
      return "unknown (not a small whole number)";
    const int64_t v = it->get<int64_t>();
    return fmt::format("{} ({})", v, mpsmodel::model_version_in_words(static_cast<int>(v)));
  }
  if (model.contains("tier_scale"))
    return fmt::format("{} ({}, inferred: the folder has tier_scale but no version)", mpsmodel::kHeapModelVersion,
                       mpsmodel::model_version_in_words(mpsmodel::kHeapModelVersion));
  return "older (before the heap model: no version, no tier_scale)";
}

std::string Comparability::what() const {
  if (!device.empty()) return "the devices differ";
  if (!model.empty()) return "the model changed";
  if (!setup.empty()) return "the set-up changed";
  return "";
}

std::string Comparability::title() const {
  if (comparable()) return "";
  std::vector<std::string> all = device;
  all.insert(all.end(), model.begin(), model.end());
  all.insert(all.end(), setup.begin(), setup.end());
  return fmt::format("not comparable: {} ({})", what(), join(all, "; "));
}

Comparability comparability(const ResultFolder& base, const ResultFolder& now) {
  Comparability c;
  const std::string db = folder_device(base), dn = folder_device(now);
  if (db != dn) c.device.push_back(fmt::format("device {} -> {}", db, dn));
  const json mb = machine_of(base), mn = machine_of(now);
  const json ob = model_of(mb), on = model_of(mn);
  if (ob.is_object() && on.is_object()) {
    const std::string vb = model_version_text(ob), vn = model_version_text(on);
    // An inferred 2 and a written 2 are the same model: compare the number, not the words.
    auto number = [](const std::string& t) { return t.substr(0, t.find(' ')); };
    if (number(vb) != number(vn)) c.model.push_back(fmt::format("model version {} -> {}", vb, vn));
    const std::string rb = text_at(ob, "revision", "unknown"), rn = text_at(on, "revision", "unknown");
    if (rb != rn) c.model.push_back(fmt::format("model revision {} -> {}", rb, rn));
    const auto xb = size_at(ob, "other_bytes"), xn = size_at(on, "other_bytes");
    if (xb && xn && *xb != *xn)
      c.model.push_back(fmt::format("other allocations {} -> {}", format_size(*xb), format_size(*xn)));
  }
  const auto sb = steps_of(base), sn = steps_of(now);
  if (!sb.empty() && !sn.empty() && sb != sn) c.setup.push_back(fmt::format("step {} -> {}", steps_text(sb), steps_text(sn)));
  const std::string xb = sandbox_text(mb), xn = sandbox_text(mn);
  if (xb != xn) c.setup.push_back(fmt::format("sandbox {} -> {}", xb, xn));
  return c;
}

void apply_comparability(Comparison& c, const Comparability& why) {
  if (why.comparable()) return;
  const std::string title = why.title();
  c.notes.push_back(title);
  c.not_comparable = why.device;
  c.not_comparable.insert(c.not_comparable.end(), why.model.begin(), why.model.end());
  c.not_comparable.insert(c.not_comparable.end(), why.setup.begin(), why.setup.end());
  for (auto& r : c.rows) {
    if (!r.regression || r.kind == RowKind::only_in_base) continue;
    for (auto& reason : r.reasons) r.notes.push_back(reason);
    r.verdict = fmt::format("not comparable: {} ({})", why.what(), join(r.reasons, ", "));
    r.reasons.clear();
    r.regression = false;
  }
  c.regressions = 0;
  for (const auto& r : c.rows) c.regressions += r.regression ? 1 : 0;
}

}  // namespace wmb::compare
