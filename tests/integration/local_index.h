// A real PEP 503 "simple" index on 127.0.0.1 for the tests of `wmbench releases`, so that pip's
// own index path runs (its HTML page, the links, the hashes), not only --find-links: wheels are
// put in ROOT/files/, ROOT/simple/torch/index.html links each with its sha256, and `python3 -m
// http.server` (the standard library's) serves ROOT on a free port for the test's lifetime.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli_util.h"

extern char** environ;

namespace wmbt {

class LocalIndex {
 public:
  // `python`: a Python 3 (http.server, hashlib); `root`: an empty folder of the test's.
  LocalIndex(std::string python, std::string root) : python_(std::move(python)), root_(std::move(root)) {
    std::filesystem::create_directories(root_ + "/files");
    std::filesystem::create_directories(root_ + "/simple/torch");
    publish();
    port_ = free_port();
    const std::string port = std::to_string(port_);
    std::vector<std::string> args = {python_, "-I", "-m", "http.server", "--bind", "127.0.0.1", "--directory", root_, port};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    // http.server says each request on stderr ("GET /simple/torch/ HTTP/1.1" 200): requests().
    posix_spawn_file_actions_addopen(&fa, 2, (root_ + ".requests.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (posix_spawn(&pid_, python_.c_str(), &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    ready_ = pid_ > 0 && wait_for([&] { return can_connect(); }, 20);
  }
  ~LocalIndex() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  LocalIndex(const LocalIndex&) = delete;
  LocalIndex& operator=(const LocalIndex&) = delete;

  bool ready() const { return ready_; }
  // How many requests the server said so far whose line holds `part` ("GET /simple/torch/").
  size_t requests(const std::string& part) const {
    const std::string log = slurp(root_ + ".requests.log");
    size_t n = 0;
    for (size_t at = log.find(part); at != std::string::npos; at = log.find(part, at + part.size())) ++n;
    return n;
  }
  // The index at ROOT/`sub` (default "simple"); other subs are more indexes on the same server, as
  // PyTorch's https://download.pytorch.org/whl has cpu/, cu130/, test/cpu/, nightly/cpu/.
  std::string url(const std::string& sub = "simple") const { return root_url() + "/" + sub; }
  std::string root_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Where the wheels of index `sub` are: ROOT/files ("simple"), ROOT/files/SUB (another).
  std::string files(const std::string& sub = "simple") const { return root_ + "/files" + (sub == "simple" ? "" : "/" + sub); }
  // Moves the wheel at `path` into index `sub` and rewrites the pages.
  void add(const std::string& path, const std::string& sub = "simple") {
    std::filesystem::create_directories(files(sub));
    std::filesystem::rename(path, files(sub) + "/" + std::filesystem::path(path).filename().string());
    if (std::find(subs_.begin(), subs_.end(), sub) == subs_.end()) subs_.push_back(sub);
    publish();
  }
  // Every index's wheels on SUB/torch/index.html, each with its sha256 (PEP 503).
  void publish() const {
    const std::string code =
        "import hashlib, html, os, sys\n"
        "root = sys.argv[1]\n"
        "for sub in sys.argv[2:]:\n"
        "    files = os.path.join(root, 'files') if sub == 'simple' else os.path.join(root, 'files', sub)\n"
        "    rel = '../' * (sub.count('/') + 2) + ('files/' if sub == 'simple' else 'files/' + sub + '/')\n"
        "    os.makedirs(os.path.join(root, sub, 'torch'), exist_ok=True)\n"
        "    links = []\n"
        "    for n in sorted(os.listdir(files)) if os.path.isdir(files) else []:\n"
        "        if not n.endswith('.whl'): continue\n"
        "        h = hashlib.sha256(open(os.path.join(files, n), 'rb').read()).hexdigest()\n"
        "        links.append('<a href=\"%s%s#sha256=%s\">%s</a><br>' % (rel, html.escape(n), h, html.escape(n)))\n"
        "    open(os.path.join(root, sub, 'torch', 'index.html'), 'w').write("
        "'<!DOCTYPE html><html><body>\\n' + '\\n'.join(links) + '\\n</body></html>\\n')\n"
        "    open(os.path.join(root, sub, 'index.html'), 'w').write("
        "'<!DOCTYPE html><html><body><a href=\"torch/\">torch</a></body></html>\\n')\n";
    std::vector<std::string> argv = {python_, "-I", "-c", code, root_};
    argv.insert(argv.end(), subs_.begin(), subs_.end());
    run(argv);
  }

 private:
  static int free_port() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    ::close(s);
    return port;
  }
  bool can_connect() const {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port_));
    const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    return ok;
  }
  std::string python_, root_;
  std::vector<std::string> subs_ = {"simple"};
  int port_ = 0;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace wmbt
