// Kernel files read as they change under the reader (io/kernel_file.h). A tune run under ASan
// once ended as "wmbench: internal error: basic_filebuf::underflow error reading the file: No such
// process": the guard's process scan read /proc/PID/stat through an ifstream while PID exited.
// /proc/self/fd/N of a stat file opened before its process was reaped reproduces that read at will.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "cli_util.h"
#include "io/kernel_file.h"
#ifdef __linux__
#include "proctree/proc_table.h"
#include "proctree/tree_probe.h"
#endif

namespace test_kernel_files {  // one namespace per test file: the unity build compiles 8 files as one

namespace {

using wmb::read_kernel_file;

TEST(KernelFiles, AFolderAFifoWithAWriterAndAnOverLongFileAreNoAnswerWithTheirErrno) {
  wmbt::Tmp tmp;
  errno = 0;
  EXPECT_FALSE(read_kernel_file(tmp.path));
  EXPECT_EQ(errno, EISDIR);

  const std::string fifo = tmp.path + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);  // a writer that never writes
  ASSERT_GE(writer, 0);
  errno = 0;
  EXPECT_FALSE(read_kernel_file(fifo));  // would block for ever without O_NONBLOCK
  EXPECT_EQ(errno, EAGAIN);
  ::close(writer);

  const std::string ten = tmp.path + "/ten";
  { std::ofstream(ten) << "0123456789"; }
  errno = 0;
  EXPECT_FALSE(read_kernel_file(ten, 9));
  EXPECT_EQ(errno, EFBIG);
  EXPECT_EQ(read_kernel_file(ten, 10).value_or("?"), "0123456789");
  EXPECT_FALSE(read_kernel_file(tmp.path + "/none"));
}

#ifdef __linux__
// A child's /proc/PID/stat, open while the child runs; the child is then killed and reaped.
struct ReapedStat {
  int fd = -1;
  std::string path;  // /proc/self/fd/N: opens the same stat file of the reaped process again
  ReapedStat() {
    const pid_t child = ::fork();
    if (child == 0) {
      ::pause();
      ::_exit(0);
    }
    if (child < 0) return;  // fd stays -1: the test says so (never kill(-1, ...))
    fd = ::open(("/proc/" + std::to_string(child) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  ~ReapedStat() {
    if (fd >= 0) ::close(fd);
  }
};

TEST(KernelFiles, AStatFileWhoseProcessExitedWhileItWasReadIsNoAnswerNeverAThrow) {
  ReapedStat gone;
  ASSERT_GE(gone.fd, 0) << "fork or open of the child's /proc/PID/stat failed: " << std::strerror(errno);
#ifdef __GLIBCXX__
  // The class of failure: how the old reader met this file (it must still throw here, or this
  // test no longer reproduces the race it guards against).
  EXPECT_THROW(
      {
        std::ifstream in(gone.path);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      },
      std::ios_base::failure);
#endif
  errno = 0;
  EXPECT_FALSE(read_kernel_file(gone.path));
  EXPECT_EQ(errno, ESRCH);
  wmb::ProcStat st;
  bool read = true;
  EXPECT_NO_THROW(read = wmb::read_proc_stat_at(gone.path, st));
  EXPECT_FALSE(read);
  // The scan and the process tree that use it, while processes come and go, never throw.
  EXPECT_NO_THROW(wmb::scan_processes());
  EXPECT_NO_THROW(wmb::process_tree(::getpid(), ""));
}
#endif

}  // namespace

}  // namespace test_kernel_files
