// The memory trace: JSON lines in the shape of the write-ups' meter
// ({"type":"start"...}, {"type":"sample","t","footprint","swap_used","level",...},
// {"type":"event",...}, {"type":"end"} only on a clean end). Each line is written with one
// write() call, so a trace survives a kill of the parent up to its last whole line.
//
// And a panic of the machine (issue 41): a line in the page cache is lost with the kernel, so a
// thread of the writer's own pushes what was written to the disk every `sync_interval` seconds
// (fdatasync; fsync on macOS, which has no fdatasync of its own). It runs beside the guard, never
// in its loop: a disk slowed by swapping delays the thread, not the guard's next check. A panic
// then loses at most the last interval's lines; `--resume` reads the trace up to its last sample.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace wmb {

class TraceWriter {
 public:
  static constexpr double kSyncInterval = 0.5;  // seconds: the trace's own sampling interval

  TraceWriter() = default;
  explicit TraceWriter(const std::string& path, double sync_interval = kSyncInterval);  // throws FileError
  // Takes over an open fd (e.g. Folder::open_for_write: inside a result folder, no link followed);
  // `display` names the file in errors. sync_interval <= 0: no syncing thread.
  TraceWriter(int fd, std::string display, double sync_interval = kSyncInterval);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  bool open() const { return fd_ >= 0; }
  void line(const nlohmann::json& j);  // write errors are remembered, not thrown
  const std::string& error() const { return error_; }
  // Syncs what is written, stops the syncing thread, closes the file.
  void close();
  // How many times the lines written so far were pushed to the disk (tests).
  uint64_t syncs() const { return syncs_.load(); }

 private:
  void start_syncer(double interval);
  void sync_loop(double interval);
  void sync_now();

  int fd_ = -1;
  std::string path_;
  std::string error_;
  std::atomic<bool> dirty_{false};
  std::atomic<uint64_t> syncs_{0};
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread syncer_;
};

}  // namespace wmb
