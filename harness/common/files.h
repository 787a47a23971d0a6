// File helpers: atomic writes (a reader sees the old file or the whole new one, never half),
// reading whole files, and a small "is this folder writable" check.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace wmb {

struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes to PATH.tmp.<pid>, fsyncs, renames over PATH, fsyncs the folder. Throws FileError naming
// the path and the system's reason (e.g. "No space left on device"); PATH is then untouched.
void write_file_atomic(const std::string& path, const std::string& content);
void write_json_atomic(const std::string& path, const nlohmann::json& j);

std::string read_file(const std::string& path);                 // throws FileError
nlohmann::json read_json_file(const std::string& path);         // throws FileError (with line:col on bad JSON)

// 1-based line and column of a byte offset (nlohmann's parse_error::byte) in `text`.
std::pair<size_t, size_t> line_col(const std::string& text, size_t offset);

void make_dirs(const std::string& path);                        // mkdir -p; throws FileError
bool path_exists(const std::string& path);

// Current UTC time as "2026-10-13T10:00:00Z" and the date part "2026-10-13".
std::string utc_now_iso();
std::string utc_today();

}  // namespace wmb
