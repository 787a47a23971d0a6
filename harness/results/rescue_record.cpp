#include "results/rescue_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace wmb {
namespace {

// Writes `text` to a new file made by mkstemp in the temp folder ($TMPDIR, else /tmp); returns its
// path, or "" with the reason added to `why`.
std::string write_in_temp(const std::string& folder_name, const std::string& stem, const std::string& text,
                          std::string& why) {
  const char* env = std::getenv("TMPDIR");
  std::string dir = env && *env == '/' ? env : "/tmp";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::string path = fmt::format("{}/wmbench-rescued-{}-{}-XXXXXX.json", dir, folder_name, stem);
  std::string buf = path;
  const int fd = ::mkstemps(buf.data(), 5);  // O_RDWR|O_CREAT|O_EXCL, mode 0600
  if (fd < 0) {
    why += fmt::format("{}cannot create a file in {}: {}", why.empty() ? "" : "; ", dir, std::strerror(errno));
    return "";
  }
  std::string_view left = text;
  int err = 0;
  while (!left.empty()) {
    const ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    left.remove_prefix(static_cast<size_t>(n));
  }
  if (!err && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (err) {
    ::unlink(buf.c_str());
    why += fmt::format("{}cannot write {}: {}", why.empty() ? "" : "; ", buf, std::strerror(err));
    return "";
  }
  return buf;
}

std::string base_name(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t slash = p.rfind('/');
  std::string b = slash == std::string::npos ? p : p.substr(slash + 1);
  return b.empty() || b == "/" ? "folder" : b;
}

}  // namespace

std::string rescue_record(const Folder& folder, const std::string& stem, const nlohmann::json& record, std::string& why) {
  const std::string name = stem + ".json.rescued";
  for (const std::string& rel : {"runs/" + name, name}) {
    try {
      folder.write_json(rel, record);
      return folder.display(rel);
    } catch (const FileError& e) {
      why += std::string(why.empty() ? "" : "; ") + e.what();
    }
  }
  const std::string beside = folder.path() + "." + name;
  try {
    write_json_atomic(beside, record);
    return beside;
  } catch (const FileError& e) {
    why += std::string(why.empty() ? "" : "; ") + e.what();
  }
  return write_in_temp(base_name(folder.path()), stem,
                       record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", why);
}

std::string rescue_record_text(const nlohmann::json& record) {
  return record.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace wmb
