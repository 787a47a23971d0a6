// Opening a file the user named on the command line for writing (guard --trace FILE), never
// through a link: the last component is opened with O_NOFOLLOW (a planted link is refused, and a
// dangling link's target is never created), without blocking (a FIFO with no reader is refused,
// not waited on), and must be a regular file (/proc/self/mem, a device, a folder are refused); it
// is truncated only after those checks. Every folder above it is checked: a component that is a
// symbolic link is followed only when its owner is root or this user (the rule of Linux's
// fs.protected_symlinks, applied everywhere: /tmp -> /private/tmp on macOS is root's).
#pragma once

#include <string>

namespace wmb {

// Returns an fd open for writing (O_APPEND, O_CLOEXEC), truncated. Throws FileError naming the
// path and what it is.
int open_user_file_for_write(const std::string& path);

// Throws FileError when a folder on the way to `path` (not `path` itself) is a symbolic link
// owned by another user than root or this one.
void check_parent_links(const std::string& path);

}  // namespace wmb
