#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <sstream>

#include "io/kernel_file.h"
#include "host/platform.h"

namespace wmb {
namespace {
std::string os_release_pretty() {
  std::istringstream in(read_kernel_file("/etc/os-release", 64 << 10).value_or(""));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "Linux";
}
std::string cpu_model() {
  std::istringstream in(read_kernel_file("/proc/cpuinfo", size_t{16} << 20).value_or(""));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto c = line.find(':');
      if (c != std::string::npos) return line.substr(c + 2);
    }
  }
  return "unknown CPU";
}
}  // namespace

MachineFacts machine_facts() {
  MachineFacts f;
  f.os = "Linux";
  struct utsname u {};
  ::uname(&u);
  f.os_version = os_release_pretty() + ", kernel " + u.release;
  f.chip = cpu_model();
  const long page = ::sysconf(_SC_PAGESIZE);
  f.page_size_bytes = page > 0 ? static_cast<uint64_t>(page) : 0;
  f.ram_bytes = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * f.page_size_bytes;
  f.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  f.hostname = host;
  return f;
}

std::string self_exe_path() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace wmb
