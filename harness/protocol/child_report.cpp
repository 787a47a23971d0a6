#include "protocol/child_report.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "io/json_input.h"
#include "io/utf8.h"
#include "results/run_record.h"

namespace wmb {
namespace {

const char* kSource = "the child's protocol line";

// Throws InputError when a field has the wrong type or range.
void check_message(const std::string& type, const nlohmann::json& msg) {
  JsonObject o(msg, kSource, type);
  if (type == "hello") {
    o.integer("pid", 0, int64_t{1} << 40);
    for (const char* k : {"torch_version", "device", "data", "program"}) {
      o.no_null(k);
      o.str(k, false, 4096);
    }
    o.str("torch_library", false, 4096);
    o.bytes("recommended_max_bytes");
    o.bytes("step_bytes");
    o.bytes("cap_bytes");
    o.bytes("offload_bytes");
    o.no_null("env");
    o.string_map("env");
  } else if (type == "step") {
    o.no_null("index");
    o.integer("index", 0, int64_t{1} << 40);
    o.bytes("held_bytes");
    o.bytes("allocated_bytes");
    o.bytes("driver_bytes");
    o.bytes("allocator_peak_bytes");
    o.no_null("step_seconds");
    o.number("step_seconds", 0, 1e9);
  } else if (type == "error") {
    o.str("text", true);
    o.no_null("exception");
    o.str("exception", false, 4096);
  } else if (type == "done") {
    o.str("reason", true, 256);
    o.bytes("held_bytes");
  } else if (type == "stage") {
    check_stage_json(msg, kSource, type);
  } else if (type == "limit") {
    o.bytes("max_allowed_bytes");
  } else if (type == "warning") {
    o.str("text", true);
  }
}

std::optional<uint64_t> u64(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;  // checked: a size >= 0, or absent/null
  return it->is_number_unsigned() ? it->get<uint64_t>() : static_cast<uint64_t>(it->get<int64_t>());
}

std::string cut_text(const std::string& s) {
  if (s.size() <= kMaxChildErrorTextBytes) return s;
  return std::string(utf8_prefix(s, kMaxChildErrorTextBytes)) + "...";
}

}  // namespace

void ChildReport::note_peak(std::optional<uint64_t> peak) {
  if (peak) allocator_peak_bytes = std::max(allocator_peak_bytes.value_or(0), *peak);
}

void ChildReport::warn(const std::string& text) {
  if (warnings.size() >= kMaxChildWarnings) {
    ++dropped_warnings;
    return;
  }
  warnings.push_back(utf8_sanitize(text, 1000));
}

ChildReport::Absorbed ChildReport::absorb(const nlohmann::json& msg) {
  Absorbed a;
  try {
    if (!msg.is_object()) {
      warn(fmt::format("the child wrote a JSON line that is not an object: {}", json_preview(msg, 200)));
      return a;
    }
    auto t = msg.find("type");
    if (t == msg.end() || !t->is_string()) {
      warn(fmt::format("the child wrote a line without a string \"type\": {}", json_preview(msg, 200)));
      return a;
    }
    const std::string type = t->get<std::string>();
    static const std::vector<std::string> known = {"hello", "step", "error", "done", "stage", "limit", "warning"};
    if (std::find(known.begin(), known.end(), type) == known.end()) return a;  // newer protocol: not an error
    try {
      check_message(type, msg);
    } catch (const InputError& e) {
      warn(fmt::format("ignored a line of the child: {}", e.what()));
      return a;
    }
    if (type == "hello") {
      hello = msg;
    } else if (type == "step") {
      steps = std::max<int64_t>(steps, std::min<int64_t>(msg.value("index", int64_t{steps} + 1), 1 << 30));
      if (auto h = u64(msg, "held_bytes")) held_bytes = *h;
      allocated_bytes = u64(msg, "allocated_bytes");
      driver_bytes = u64(msg, "driver_bytes");
      note_peak(u64(msg, "allocator_peak_bytes"));
    } else if (type == "error") {
      if (!error_text) {
        error_text = cut_text(msg["text"].get<std::string>());
        error_exception = msg.value("exception", std::string());
      }
    } else if (type == "done") {
      done_reason = msg["reason"].get<std::string>();
      if (auto h = u64(msg, "held_bytes")) held_bytes = *h;
    } else if (type == "stage") {
      if (stages.size() >= kMaxChildStages) {
        warn("the child reported more than 1000 stages; the rest are ignored");
        return a;
      }
      stages.push_back(msg);
      if (auto h = u64(msg, "held_bytes")) held_bytes = *h;
      allocated_bytes = u64(msg, "allocated_bytes");
      driver_bytes = u64(msg, "driver_bytes");
      note_peak(u64(msg, "allocator_peak_bytes"));
    } else if (type == "limit") {
      exact_max_allowed = u64(msg, "max_allowed_bytes");
    } else if (type == "warning") {
      warn(msg["text"].get<std::string>());
    }
    a.ok = true;
    a.type = type;
    a.msg = msg;
  } catch (const std::exception& e) {
    // Not reached with the checks above; kept so that no message can end the parent.
    warn(fmt::format("ignored a line of the child that wmbench could not read: {}", e.what()));
    a = Absorbed{};
  }
  return a;
}

ChildReport::Absorbed ChildReport::absorb_line(std::string_view line, bool cut) {
  if (cut) {
    warn(fmt::format("the child wrote a line of more than {} bytes; ignored: {}", kMaxChildLineBytes,
                     utf8_sanitize(line, 200)));
    return {};
  }
  nlohmann::json j;
  try {
    j = parse_json_text(line, kSource, kMaxChildLineBytes);
  } catch (const InputError&) {
    warn("the child wrote a line that is not JSON: " + utf8_sanitize(line, 200));
    return {};
  }
  return absorb(j);
}

ChildLineSplitter::ChildLineSplitter(size_t max_line) : max_(max_line) {}

void ChildLineSplitter::feed(const char* data, size_t n, const Sink& sink) {
  size_t i = 0;
  while (i < n) {
    const char* nl = static_cast<const char*>(std::memchr(data + i, '\n', n - i));
    const size_t end = nl ? static_cast<size_t>(nl - data) : n;
    if (!skipping_) {
      const size_t room = max_ - std::min(max_, pending_.size());
      pending_.append(data + i, std::min(room, end - i));
      if (end - i > room) {  // over the bound: hand on the start, skip the rest of the line
        sink(pending_, true);
        pending_.clear();
        skipping_ = true;
      }
    }
    if (!nl) break;
    if (!skipping_ && !pending_.empty()) sink(pending_, false);
    pending_.clear();
    skipping_ = false;
    i = end + 1;
  }
}

void ChildLineSplitter::finish(const Sink& sink) {
  if (!skipping_ && !pending_.empty()) sink(pending_, false);
  pending_.clear();
  skipping_ = false;
}

}  // namespace wmb
