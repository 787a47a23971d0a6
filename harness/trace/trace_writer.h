// The memory trace: JSON lines in the shape of the write-ups' meter
// ({"type":"start"...}, {"type":"sample","t","footprint","swap_used","level",...},
// {"type":"event",...}, {"type":"end"} only on a clean end). Each line is written with one
// write() call, so a trace survives a kill of the parent up to its last whole line.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wmb {

class TraceWriter {
 public:
  TraceWriter() = default;
  explicit TraceWriter(const std::string& path);  // throws FileError
  // Takes over an open fd (e.g. Folder::open_for_write: inside a result folder, no link followed);
  // `display` names the file in errors.
  TraceWriter(int fd, std::string display);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  bool open() const { return fd_ >= 0; }
  void line(const nlohmann::json& j);  // write errors are remembered, not thrown
  const std::string& error() const { return error_; }
  void close();

 private:
  int fd_ = -1;
  std::string path_;
  std::string error_;
};

}  // namespace wmb
