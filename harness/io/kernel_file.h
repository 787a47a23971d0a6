#pragma once
// Reading a file the kernel makes up as it is read (/proc, cgroupfs, /etc/os-release): the
// process behind /proc/PID/ may exit between open() and read(), and read() then fails with
// ESRCH. std::ifstream turns such a read error into an exception from istreambuf_iterator
// (libstdc++'s "basic_filebuf::underflow error reading the file: No such process", which once
// ended a tune run as an internal error), so these files are read here, with open/read and no
// exceptions: a file that cannot be read whole is "no answer", never a throw.
#include <cstddef>
#include <optional>
#include <string>

namespace wmb {

// The whole file, or nullopt (errno says why; EFBIG for too long) when it cannot be opened, a read() fails (EINTR is retried), or it
// is longer than max_bytes. Opened O_NONBLOCK, so a FIFO put in a file's place never hangs it.
std::optional<std::string> read_kernel_file(const std::string& path, size_t max_bytes = size_t{1} << 20);

}  // namespace wmb
