#include "errparse/pasted_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/json_input.h"

namespace wmb {

// Reads the whole input; on failure prints a message naming the file and returns false.
bool read_pasted_input(const char* command, const std::string& file, std::string& out) {
  const bool from_stdin = file.empty() || file == "-";
  const std::string name = from_stdin ? std::string("standard input") : "\"" + file + "\"";
  int fd = STDIN_FILENO;
  if (from_stdin) {
    if (::isatty(fd)) std::fputs("Paste the PyTorch error message, then press Ctrl-D on an empty line:\n", stderr);
  } else {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      std::fprintf(stderr, "%s: cannot read %s: %s\n", command, name.c_str(), std::strerror(errno));
      return false;
    }
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "%s: cannot read %s: it is a directory\n", command, name.c_str());
    if (!from_stdin) ::close(fd);
    return false;
  }
  char buf[65536];
  bool ok = true;
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      if (out.size() > wmb::kMaxPastedTextBytes) {
        std::fprintf(stderr,
                     "%s: %s holds more than %zu bytes; an error message is a few KiB: give only the "
                     "message (e.g. the lines from \"RuntimeError\" on)\n", command,
                     name.c_str(), wmb::kMaxPastedTextBytes);
        ok = false;
        break;
      }
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      std::fprintf(stderr, "%s: cannot read %s: %s\n", command, name.c_str(), std::strerror(errno));
      ok = false;
      break;
    }
  }
  if (!from_stdin) ::close(fd);
  if (ok && out.find_first_not_of(" \t\r\n\v\f") == std::string::npos) {
    std::fprintf(stderr, "%s: %s holds no text; give the error message in a file or on standard input\n", command,
                 name.c_str());
    ok = false;
  }
  return ok;
}

}  // namespace wmb
