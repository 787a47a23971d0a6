#include "results/summary_stream.h"

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "io/json_input.h"
#include "io/utf8.h"
#include "common/limits.h"

namespace wmb {
namespace {

using json = nlohmann::json;
using Builder = nlohmann::detail::json_sax_dom_parser<json>;

const std::set<std::string> kKept = {"schema_version", "scenario", "device", "machine", "not_run"};

class Stream {
 public:
  Stream(const std::string& source, const std::function<void(json&&, size_t)>& on_run, SummaryHead& out)
      : source_(source), on_run_(on_run), out_(out) {}

  bool null() { return value([](Builder& b) { return b.null(); }); }
  bool boolean(bool v) { return value([&](Builder& b) { return b.boolean(v); }); }
  bool number_integer(json::number_integer_t v) { return value([&](Builder& b) { return b.number_integer(v); }); }
  bool number_unsigned(json::number_unsigned_t v) { return value([&](Builder& b) { return b.number_unsigned(v); }); }
  bool number_float(json::number_float_t v, const std::string& lexeme) {
    bool nonzero = false;
    if (v == 0)
      for (char ch : lexeme) {
        if (ch == 'e' || ch == 'E') break;
        if (ch >= '1' && ch <= '9') nonzero = true;
      }
    if (nonzero || std::fpclassify(v) == FP_SUBNORMAL)
      fail(fmt::format("number underflow parsing '{}': too small for a double; wmbench refuses it as it refuses a "
                       "number too large",
                       utf8_sanitize(lexeme, 60)));
    return value([&](Builder& b) { return b.number_float(v, lexeme); });
  }
  bool string(std::string& v) { return value([&](Builder& b) { return b.string(v); }); }
  bool binary(json::binary_t& v) { return value([&](Builder& b) { return b.binary(v); }); }

  bool start_object(std::size_t n) { return open(true, n); }
  bool start_array(std::size_t n) { return open(false, n); }
  bool end_object() { return close(true); }
  bool end_array() { return close(false); }

  bool key(std::string& k) {
    if (depth_ == 1) {  // a top-level key
      if (!top_keys_.insert(k).second) fail(fmt::format("duplicate key \"{}\"; each key may appear once", utf8_sanitize(k, 80)));
      key_ = k;
      mode_ = k == "runs" ? Mode::Runs : kKept.count(k) ? Mode::Keep : Mode::Skip;
      if (mode_ == Mode::Skip) out_.unknown.push_back(k);
      return true;
    }
    if (builder_) {
      if (!keys_.empty() && !keys_.back().insert(k).second)
        fail(fmt::format("{}: duplicate key \"{}\"; each key may appear once in an object", where(), utf8_sanitize(k, 80)));
      count();
      return builder_->key(k);
    }
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;  // nlohmann's own exception: the caller words it as parse_json_text does
  }

 private:
  enum class Mode { Keep, Runs, Skip };

  [[noreturn]] void fail(const std::string& msg) const { throw InputError(fmt::format("{}: {}", source_, msg)); }
  std::string where() const { return mode_ == Mode::Runs ? fmt::format("runs[{}]", out_.runs) : key_; }

  void count() {
    if (++values_ > kMaxSummaryElementValues)
      fail(fmt::format("{} holds more than {} values; a record wmbench writes holds far fewer", where(),
                       kMaxSummaryElementValues));
  }

  // A value begins an element to build: a kept key's value (depth 1) or an element of "runs" (depth 2).
  bool starts_element() const {
    return (depth_ == 1 && mode_ == Mode::Keep) || (depth_ == 2 && mode_ == Mode::Runs && runs_open_);
  }

  void begin_element() {
    element_ = json();
    builder_ = std::make_unique<Builder>(element_, true);
    values_ = 0;
    element_depth_ = depth_;
  }

  void end_element() {
    builder_.reset();
    keys_.clear();
    if (mode_ == Mode::Keep) {
      out_.head[key_] = std::move(element_);
    } else {
      if (out_.runs >= kMaxPlannedRuns)
        fail(fmt::format("\"runs\" holds more than {} runs; one result folder holds at most {} (common/limits.h)",
                         kMaxPlannedRuns, kMaxPlannedRuns));
      on_run_(std::move(element_), out_.runs);
      ++out_.runs;
    }
    element_ = json();
  }

  template <class F>
  bool value(F&& f) {
    if (depth_ == 0) fail("not a JSON object (expected {\"schema_version\": 1, ...})");
    if (builder_) {
      count();
      return f(*builder_);
    }
    if (starts_element()) {
      begin_element();
      f(*builder_);
      end_element();
      return true;
    }
    if (depth_ == 1 && mode_ == Mode::Runs) fail("\"runs\" must be a list of run records");
    return true;  // a value no reader reads: parsed, not built
  }

  bool open(bool object, std::size_t n) {
    if (depth_ == 0 && !object) fail("not a JSON object (expected {\"schema_version\": 1, ...})");
    if (!builder_ && starts_element()) begin_element();
    ++depth_;
    if (depth_ > kMaxJsonDepth)
      fail(fmt::format("nested deeper than {} levels; wmbench's files are a few levels deep", kMaxJsonDepth));
    if (builder_) {
      count();
      keys_.emplace_back();  // an array's entry stays empty: the stack follows the depth
      return object ? builder_->start_object(n) : builder_->start_array(n);
    }
    if (depth_ == 2 && mode_ == Mode::Runs) {
      if (object) fail("\"runs\" must be a list of run records");
      runs_open_ = true;
      out_.has_runs = true;
    }
    return true;
  }

  bool close(bool object) {
    bool result = true;
    if (builder_) {
      keys_.pop_back();
      result = object ? builder_->end_object() : builder_->end_array();
    }
    --depth_;
    if (builder_ && depth_ == element_depth_) end_element();
    else if (!builder_ && depth_ == 1 && mode_ == Mode::Runs) runs_open_ = false;
    return result;
  }

  const std::string& source_;
  const std::function<void(json&&, size_t)>& on_run_;
  SummaryHead& out_;
  size_t depth_ = 0;
  Mode mode_ = Mode::Skip;
  std::string key_;
  std::set<std::string> top_keys_;
  bool runs_open_ = false;
  json element_;
  std::unique_ptr<Builder> builder_;
  std::vector<std::set<std::string>> keys_;
  size_t values_ = 0;
  size_t element_depth_ = 0;
};

}  // namespace

SummaryHead stream_summary_json(std::string_view text, const std::string& source,
                                const std::function<void(nlohmann::json&& run, size_t index)>& on_run) {
  if (text.size() > kMaxFolderJsonBytes)
    throw InputError(fmt::format("{}: {} bytes; wmbench reads at most {} bytes here", source, text.size(), kMaxFolderJsonBytes));
  SummaryHead out;
  Stream sax(source, on_run, out);
  try {
    json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("parse error");
    const auto [line, col] = line_col(text, e.byte > 0 ? e.byte : 1);
    throw InputError(fmt::format("{}:{}:{}: malformed JSON: {}", source, line, col,
                                 utf8_sanitize(pos == std::string::npos ? what : what.substr(pos), 300)));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: malformed JSON: {}", source, utf8_sanitize(e.what(), 300)));
  }
  return out;
}

}  // namespace wmb
