#include "manager/log_dir_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

// POSIX record locks exclude other processes, so the contender runs in a child process.
int ChildTriesLock(const std::string& dir) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto lock = LogDirLock::Acquire(Env::Default(), dir);
    if (lock.ok()) ::_exit(0);
    const bool clear = lock.status().code() == Status::Code::kFailedPrecondition &&
                       lock.status().ToString().find(dir) != std::string::npos;
    ::_exit(clear ? 1 : 2);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WEXITSTATUS(status);
}

TEST(LogDirLockTest, SecondProcessGetsAClearError) {
  testing::TempDir tmp;
  {
    auto lock = LogDirLock::Acquire(Env::Default(), tmp.path());
    ASSERT_TRUE(lock.ok()) << lock.status().ToString();
    EXPECT_EQ(ChildTriesLock(tmp.path()), 1);
  }
  EXPECT_EQ(ChildTriesLock(tmp.path()), 0);  // released when the holder goes away
}

// fcntl locks do not exclude the process that holds them: the registry of locked directories
// does, by the directory's identity (another path to it is refused too), and a released
// directory can be locked again.
TEST(LogDirLockTest, ASecondOpenInTheSameProcessIsRefused) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/data";
  {
    auto lock = LogDirLock::Acquire(Env::Default(), dir);
    ASSERT_TRUE(lock.ok()) << lock.status().ToString();
    for (const std::string& path :
         {dir, dir + "/",
          tmp.path() + "/../" + tmp.path().substr(tmp.path().rfind('/') + 1) + "/data"}) {
      auto again = LogDirLock::Acquire(Env::Default(), path);
      ASSERT_FALSE(again.ok()) << path;
      EXPECT_EQ(again.status().code(), Status::Code::kFailedPrecondition);
      EXPECT_THAT(again.status().message(), ::testing::HasSubstr("open already"));
    }
    // Another directory is not affected.
    EXPECT_TRUE(LogDirLock::Acquire(Env::Default(), tmp.path() + "/other").ok());
  }
  EXPECT_TRUE(LogDirLock::Acquire(Env::Default(), dir).ok());
}

}  // namespace
}  // namespace seglog
