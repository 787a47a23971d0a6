// The one loader for JSON from outside wmbench: a result folder's files (machine.json,
// scenario.json, runs/*.json, summary.json), scenario files, and the fill child's protocol lines.
//
//  - sizes are bounded (the caller says how many bytes), nesting is bounded (kMaxJsonDepth; a
//    100,000-deep document is an error at its position, never a deep recursion), duplicate keys
//    are refused (at their line:col), text is UTF-8 (nlohmann's lexer refuses ill-formed bytes);
//  - JsonObject reads one object field by field with a type and a range for each, and an error
//    names the source, the key path ("runs[3].held_bytes"), the value and what is allowed.
// Every error is an InputError (a FileError, so existing `catch (const FileError&)` sites see it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/files.h"

namespace wmb {

struct InputError : FileError {
  using FileError::FileError;
};

// Bounds. JSON files of a result folder: summary.json holds every run (with its stages), far
// below this; one child line: a PyTorch error message is a few KiB.
constexpr size_t kMaxJsonDepth = 64;
constexpr size_t kMaxFolderJsonBytes = size_t{32} << 20;  // 32 MiB
constexpr size_t kMaxScenarioBytes = size_t{4} << 20;     // 4 MiB
constexpr size_t kMaxChildLineBytes = size_t{1} << 20;    // 1 MiB
constexpr size_t kMaxPastedTextBytes = size_t{4} << 20;   // `explain` input
// Sizes in bytes read from files: at most 2^62 (4 EiB), so that differences of two never overflow.
constexpr uint64_t kMaxStoredBytes = uint64_t{1} << 62;

// Parses `text` (from `source`, a file name or "child line"). Throws InputError
// "SOURCE:LINE:COL: ..." on malformed JSON, too deep nesting, a duplicate key, or more than
// `max_bytes` bytes.
nlohmann::json parse_json_text(std::string_view text, const std::string& source, size_t max_bytes,
                               size_t max_depth = kMaxJsonDepth);

// A short, safe rendering of a value for an error message: at most `max_chars` characters,
// containers shown only a few levels deep, strings cut on a character boundary. Never throws.
std::string json_preview(const nlohmann::json& v, size_t max_chars = 80);
// A recorded setting as a resume's mismatch message shows it: "none" for null, else json_preview
// with control and bidi characters escaped (escape_controls_line). Never throws.
std::string json_shown(const nlohmann::json& v, size_t max_chars);

// One JSON object read field by field. `source` names the file, `path` the object inside it
// ("" for the top, "runs[3]", "machine.model"). A missing or null optional field reads as nullopt.
class JsonObject {
 public:
  // Throws InputError when `j` is not an object.
  JsonObject(const nlohmann::json& j, std::string source, std::string path = "");

  const nlohmann::json& json() const { return *j_; }
  bool has(const char* key) const;  // present and not null
  // Refuses null for `key` (for raw objects whose readers take a missing key, but not null, as "absent").
  void no_null(const char* key) const;

  std::optional<std::string> str(const char* key, bool required = false, size_t max_len = 1 << 20) const;
  std::optional<std::string> choice(const char* key, const std::vector<std::string>& allowed, bool required = false) const;
  std::optional<uint64_t> bytes(const char* key, bool required = false) const;  // whole number in 0..2^62
  std::optional<int64_t> integer(const char* key, int64_t lo, int64_t hi, bool required = false) const;
  std::optional<double> number(const char* key, double lo, double hi, bool required = false) const;  // finite
  std::optional<bool> boolean(const char* key, bool required = false) const;
  std::optional<JsonObject> object(const char* key, bool required = false) const;
  const nlohmann::json* array(const char* key, bool required = false) const;
  std::optional<std::map<std::string, std::string>> string_map(const char* key, bool required = false) const;
  std::optional<std::vector<std::string>> string_list(const char* key, bool required = false) const;

  // Keys not in `known`, for a note ("unknown key ... ignored").
  std::vector<std::string> unknown_keys(const std::vector<std::string>& known) const;

  std::string path_of(const std::string& key) const;  // "runs[3].held_bytes"
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const;
  [[noreturn]] void wrong(const std::string& key, const nlohmann::json& v, const std::string& expected) const;

 private:
  const nlohmann::json* find(const char* key, bool required) const;
  const nlohmann::json* j_;
  std::string source_, path_;
};

}  // namespace wmb
