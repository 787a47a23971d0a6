#include "io/json_input.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "io/terminal_text.h"
#include "io/utf8.h"

namespace wmb {
namespace {

// nlohmann's DOM builder, with each object's keys checked for a duplicate as they come.
class DupKeySax : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
 public:
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  DupKeySax(nlohmann::json& root, std::function<void(const std::string&)> duplicate, std::function<void()> unique)
      : Base(root, true), duplicate_(std::move(duplicate)), unique_(std::move(unique)) {}
  bool start_object(std::size_t n) {
    open_.emplace_back();
    return Base::start_object(n);
  }
  bool end_object() {
    if (!open_.empty()) open_.pop_back();
    return Base::end_object();
  }
  // A number that underflows a double is refused as one that overflows is (nlohmann: out_of_range
  // 406 "number overflow"): 0.5e-400 would read as 0.0 (memory_fraction 0.0: no limit), 1e-320 as
  // a subnormal that strtod, the children's parser, refuses (issue 30).
  bool number_float(double v, const std::string& lexeme) {
    const bool subnormal = std::fpclassify(v) == FP_SUBNORMAL;
    bool nonzero_digits = false;
    if (v == 0)
      for (char ch : lexeme) {
        if (ch == 'e' || ch == 'E') break;
        if (ch >= '1' && ch <= '9') nonzero_digits = true;
      }
    if (subnormal || nonzero_digits) underflow_(lexeme);
    return Base::number_float(v, lexeme);
  }
  void on_underflow(std::function<void(const std::string&)> f) { underflow_ = std::move(f); }
  bool key(std::string& k) {
    if (!open_.empty() && !open_.back().insert(k).second) duplicate_(k);
    unique_();
    return Base::key(k);
  }

 private:
  std::vector<std::set<std::string>> open_;
  std::function<void(const std::string&)> duplicate_;
  std::function<void()> unique_;
  std::function<void(const std::string&)> underflow_ = [](const std::string&) {};
};

struct Scan {
  std::vector<size_t> key_offsets;  // byte offset of each object key's opening quote, in order
};

// One pass over the text outside the parser: the depth (refused past max_depth at the bracket
// that goes too deep) and where each key starts (for the line:col of a duplicate). Strings are
// skipped with their escapes; anything malformed is left to the parser, which reports it.
Scan prescan(std::string_view t, const std::string& source, size_t max_depth) {
  Scan s;
  size_t depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        auto [line, col] = line_col(t, i + 1);
        throw InputError(fmt::format("{}:{}:{}: nested deeper than {} levels; wmbench's files are a few levels deep",
                                     source, line, col, max_depth));
      }
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (c == '"') {
      const size_t start = i;
      for (++i; i < t.size() && t[i] != '"'; ++i)
        if (t[i] == '\\') ++i;
      size_t k = i + 1;
      while (k < t.size() && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r')) ++k;
      if (k < t.size() && t[k] == ':') s.key_offsets.push_back(start);
    }
  }
  return s;
}

std::string where(std::string_view text, const std::string& source, size_t offset) {
  // offset is 0-based here; line_col takes nlohmann's byte, one past.
  const auto [line, col] = line_col(text, offset + 1);
  return fmt::format("{}:{}:{}", source, line, col);
}

std::string describe(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_integer: return "a whole number";
    case nlohmann::json::value_t::number_float: return "a number";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "a list";
    case nlohmann::json::value_t::null: return "null";
    default: return "a value of another kind";
  }
}

void preview_into(const nlohmann::json& v, std::string& out, size_t budget, int levels) {
  if (out.size() >= budget) return;
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      if (levels == 0) {
        out += v.empty() ? "{}" : "{...}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end() && out.size() < budget; ++it) {
        if (!first) out += ", ";
        first = false;
        out += '"' + utf8_sanitize(it.key(), 40) + "\": ";
        preview_into(it.value(), out, budget, levels - 1);
      }
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      if (levels == 0) {
        out += v.empty() ? "[]" : "[...]";
        return;
      }
      out += '[';
      bool first = true;
      for (auto it = v.begin(); it != v.end() && out.size() < budget; ++it) {
        if (!first) out += ", ";
        first = false;
        preview_into(*it, out, budget, levels - 1);
      }
      out += ']';
      return;
    }
    case nlohmann::json::value_t::string:
      out += '"' + utf8_sanitize(v.get_ref<const std::string&>(), budget > out.size() ? budget - out.size() : 1) + '"';
      return;
    default:
      out += v.dump();  // a scalar: no recursion, never ill-formed
  }
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& source, size_t max_bytes, size_t max_depth) {
  if (text.size() > max_bytes)
    throw InputError(fmt::format("{}: {} bytes; wmbench reads at most {} bytes here", source, text.size(), max_bytes));
  const Scan scan = prescan(text, source, max_depth);
  // Duplicate keys: checked at each key as the DOM is built, in the order the scan found them.
  // A SAX handler, not nlohmann's parser callback: json_sax_dom_callback_parser::end_object scans
  // its parent container for a discarded value after every object (nlohmann/detail/input/
  // json_sax.hpp, "remove discarded value"), so an array of two million small objects took hours
  // (a 25 MB run file of one-key stages never finished in `report`).
  nlohmann::json result;
  size_t key_no = 0;
  DupKeySax sax(result, [&](const std::string& k) {
    const size_t off = key_no < scan.key_offsets.size() ? scan.key_offsets[key_no] : text.size();
    ++key_no;
    throw InputError(fmt::format("{}: duplicate key \"{}\"; each key may appear once in an object",
                                 where(text, source, off), utf8_sanitize(k, 80)));
  }, [&] { ++key_no; });
  sax.on_underflow([&](const std::string& lexeme) {
    throw InputError(fmt::format("{}: number underflow parsing '{}': too small for a double (it would read as 0.0, or "
                                 "lose its digits); wmbench refuses it as it refuses a number too large",
                                 source, utf8_sanitize(lexeme, 60)));
  });
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax, nlohmann::json::input_format_t::json, /*strict=*/true,
                              /*ignore_comments=*/false);
    return result;
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("parse error");
    const size_t off = e.byte > 0 ? e.byte - 1 : 0;
    // nlohmann quotes the bytes it last read: made safe and short.
    throw InputError(fmt::format("{}: malformed JSON: {}", where(text, source, off),
                                 utf8_sanitize(pos == std::string::npos ? what : what.substr(pos), 300)));
  } catch (const nlohmann::json::exception& e) {
    // out_of_range 406: a number too large for a double (1e999).
    throw InputError(fmt::format("{}: malformed JSON: {}", source, utf8_sanitize(e.what(), 300)));
  }
}

std::string json_preview(const nlohmann::json& v, size_t max_chars) {
  std::string out;
  try {
    preview_into(v, out, max_chars, 2);
  } catch (...) {
    return "(a value)";
  }
  if (out.size() > max_chars) out = std::string(utf8_prefix(out, max_chars > 3 ? max_chars - 3 : 0)) + "...";
  return out;
}

std::string json_shown(const nlohmann::json& v, size_t max_chars) {
  return v.is_null() ? "none" : escape_controls_line(json_preview(v, max_chars));
}

// ---- JsonObject ----

JsonObject::JsonObject(const nlohmann::json& j, std::string source, std::string path)
    : j_(&j), source_(std::move(source)), path_(std::move(path)) {
  if (!j.is_object()) {
    if (path_.empty())
      throw InputError(fmt::format("{}: the top level is {} ({}); expected a JSON object", source_, describe(j),
                                   json_preview(j)));
    throw InputError(fmt::format("{}: key \"{}\": value {} is {}; expected an object", source_, path_, json_preview(j),
                                 describe(j)));
  }
}

std::string JsonObject::path_of(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonObject::fail(const std::string& key, const std::string& msg) const {
  throw InputError(fmt::format("{}: key \"{}\": {}", source_, path_of(key), msg));
}

void JsonObject::wrong(const std::string& key, const nlohmann::json& v, const std::string& expected) const {
  fail(key, fmt::format("value {} is {}; expected {}", json_preview(v), describe(v), expected));
}

bool JsonObject::has(const char* key) const {
  auto it = j_->find(key);
  return it != j_->end() && !it->is_null();
}

void JsonObject::no_null(const char* key) const {
  auto it = j_->find(key);
  if (it != j_->end() && it->is_null()) fail(key, "is null; leave the key out instead");
}

const nlohmann::json* JsonObject::find(const char* key, bool required) const {
  auto it = j_->find(key);
  if (it == j_->end() || it->is_null()) {
    if (required) fail(key, it == j_->end() ? "missing; it is required" : "is null; it is required");
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> JsonObject::str(const char* key, bool required, size_t max_len) const {
  const auto* v = find(key, required);
  if (!v) return std::nullopt;
  if (!v->is_string()) wrong(key, *v, "a string");
  const auto& s = v->get_ref<const std::string&>();
  if (s.size() > max_len) fail(key, fmt::format("is a string of {} bytes; at most {} are allowed", s.size(), max_len));
  return s;
}

std::optional<std::string> JsonObject::choice(const char* key, const std::vector<std::string>& allowed,
                                              bool required) const {
  auto s = str(key, required, 256);
  if (!s) return s;
  if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
    std::string all;
    for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + a;
    fail(key, fmt::format("value \"{}\" is not one of: {}", utf8_sanitize(*s, 60), all));
  }
  return s;
}

std::optional<uint64_t> JsonObject::bytes(const char* key, bool required) const {
  const auto* v = find(key, required);
  if (!v) return std::nullopt;
  const std::string what = "a size in bytes (a whole number from 0 to 2^62)";
  if (v->is_number_unsigned()) {
    const uint64_t b = v->get<uint64_t>();
    if (b > kMaxStoredBytes) fail(key, fmt::format("value {} is larger than any machine (over 2^62 bytes)", b));
    return b;
  }
  if (v->is_number_integer()) {  // signed: built in code rather than parsed, or negative
    const int64_t i = v->get<int64_t>();
    if (i < 0) fail(key, fmt::format("value {} is negative; expected {}", i, what));
    return static_cast<uint64_t>(i);
  }
  wrong(key, *v, what);
}

std::optional<int64_t> JsonObject::integer(const char* key, int64_t lo, int64_t hi, bool required) const {
  const auto* v = find(key, required);
  if (!v) return std::nullopt;
  const std::string what = fmt::format("a whole number from {} to {}", lo, hi);
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    // Both ends: nlohmann reads a JSON 0 as unsigned, so `repeat: 0` came here and passed lo = 1.
    if (u > static_cast<uint64_t>(hi) || static_cast<int64_t>(u) < lo)
      fail(key, fmt::format("value {} is outside {}..{}", u, lo, hi));
    return static_cast<int64_t>(u);
  }
  if (v->is_number_integer()) {
    const int64_t i = v->get<int64_t>();
    if (i < lo || i > hi) fail(key, fmt::format("value {} is outside {}..{}", i, lo, hi));
    return i;
  }
  wrong(key, *v, what);
}

std::optional<double> JsonObject::number(const char* key, double lo, double hi, bool required) const {
  const auto* v = find(key, required);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong(key, *v, fmt::format("a number from {} to {}", lo, hi));
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) fail(key, fmt::format("value {} is outside {}..{}", json_preview(*v), lo, hi));
  return d;
}

std::optional<bool> JsonObject::boolean(const char* key, bool required) const {
  const auto* v = find(key, required);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) wrong(key, *v, "true or false");
  return v->get<bool>();
}

std::optional<JsonObject> JsonObject::object(const char* key, bool required) const {
  const auto* v = find(key, required);
  if (!v) return std::nullopt;
  if (!v->is_object()) wrong(key, *v, "an object");
  return JsonObject(*v, source_, path_of(key));
}

const nlohmann::json* JsonObject::array(const char* key, bool required) const {
  const auto* v = find(key, required);
  if (!v) return nullptr;
  if (!v->is_array()) wrong(key, *v, "a list");
  return v;
}

std::optional<std::map<std::string, std::string>> JsonObject::string_map(const char* key, bool required) const {
  auto o = object(key, required);
  if (!o) return std::nullopt;
  std::map<std::string, std::string> m;
  for (auto it = o->json().begin(); it != o->json().end(); ++it) {
    if (!it.value().is_string()) o->wrong(it.key(), it.value(), "a string");
    m[it.key()] = it.value().get<std::string>();
  }
  return m;
}

std::optional<std::vector<std::string>> JsonObject::string_list(const char* key, bool required) const {
  const auto* a = array(key, required);
  if (!a) return std::nullopt;
  std::vector<std::string> out;
  for (size_t i = 0; i < a->size(); ++i) {
    const auto& v = (*a)[i];
    if (!v.is_string()) wrong(fmt::format("{}[{}]", key, i), v, "a string");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<std::string> JsonObject::unknown_keys(const std::vector<std::string>& known) const {
  std::vector<std::string> out;
  for (auto it = j_->begin(); it != j_->end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) out.push_back(path_of(it.key()));
  return out;
}

}  // namespace wmb
