// The result folder as a unit: one writer at a time. `run`, `run --resume` and `report` take the
// lock before writing anything into a folder; a second writer is refused with who holds it.
//
// flock(2) on DIR/.wmbench.lock (opened without following links): the kernel drops the lock when
// the holder exits, however it ends (a SIGKILL included), so a stale lock file never blocks. The
// file holds a note (pid, host, command, since) that the refusal quotes.
#pragma once

#include <string>

#include "io/files.h"

namespace wmb {

struct FolderBusy : FileError {
  using FileError::FileError;
};

constexpr const char* kLockFileName = ".wmbench.lock";

class FolderLock {
 public:
  // Takes the lock on `folder` (without waiting) for `command` (e.g. "wmbench run --resume DIR").
  // Throws FolderBusy naming the holder when another process has it, FileError when the lock
  // file cannot be made (a link in its place, a read-only folder).
  FolderLock(const Folder& folder, const std::string& command);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace wmb
