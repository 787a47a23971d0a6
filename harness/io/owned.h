// What wmbench trusts in a folder it keeps between runs (the env cache of `wmbench releases`):
// only what root or this user owns and nobody else can change. A folder (and each folder above it
// that is a symbolic link) is owned by root or this user and not writable by others (group-writable
// only for this user's own group, or root's); a file opened there is opened without following a
// link and must be a regular file of that owner with one link (a hard link to /etc/passwd planted
// there is refused, not truncated). The rule of ssh's StrictModes, applied as root.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace wmb {

// "" when `st` (an lstat or fstat) is owned by root or this user and, unless it is a symbolic
// link, not writable by others; else why not ("owned by user 1000", "writable by every user").
// A sticky folder (/tmp) may be writable by every user.
std::string why_not_owned(const struct stat& st);

// `path` as a folder this user may trust: a symbolic link is followed only when root or this user
// owns it; the folder it is must pass why_not_owned. Throws FileError naming `what`, the path and why.
void check_owned_dir(const std::string& path, const std::string& what);

// Every entry under `dir` (and `dir` itself), links never followed: each passes why_not_owned.
// More than `max_entries` entries is refused too. Throws FileError naming the first that fails.
void check_owned_tree(const std::string& dir, const std::string& what, size_t max_entries = 2000000);

// Opens `path` (O_NOFOLLOW, O_NONBLOCK, O_CLOEXEC, plus `flags`: O_RDWR|O_CREAT, O_WRONLY|O_CREAT)
// and checks what it opened: a regular file, one link, passes why_not_owned. `truncate`: emptied
// only after those checks. Returns the fd (blocking again); throws FileError.
int open_owned_file(const std::string& path, int flags, bool truncate);

}  // namespace wmb
