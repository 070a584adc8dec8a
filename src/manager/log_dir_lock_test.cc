#include "manager/log_dir_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/files.h"

namespace seglog {
namespace {

// POSIX record locks exclude other processes, so the contender runs in a child process.
int ChildTriesLock(const std::string& dir) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto lock = LogDirLock::Acquire(dir);
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
    auto lock = LogDirLock::Acquire(tmp.path());
    ASSERT_TRUE(lock.ok()) << lock.status().ToString();
    EXPECT_EQ(ChildTriesLock(tmp.path()), 1);
  }
  EXPECT_EQ(ChildTriesLock(tmp.path()), 0);  // released when the holder goes away
}

TEST(LogDirLockTest, SecondLockInTheSameProcessFails) {
  testing::TempDir tmp;
  auto first = LogDirLock::Acquire(tmp.path());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = LogDirLock::Acquire(tmp.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(second.status().ToString(), ::testing::HasSubstr("Failed to acquire lock"));
  first->reset();
  EXPECT_TRUE(LogDirLock::Acquire(tmp.path()).ok());  // released with the holder
}

}  // namespace
}  // namespace seglog
