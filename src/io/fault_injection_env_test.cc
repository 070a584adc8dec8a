// FaultInjectionEnv: failures once, N times and always, by operation and path; blocking an
// operation until released, with a wait for the blocked thread.
#include "io/fault_injection_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <thread>

namespace seglog {
namespace {

using ::testing::HasSubstr;

class FaultInjectionEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("seglog_fault_env_test_" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove_all(dir_);
    ASSERT_TRUE(Env::Default()->CreateDirectories(dir_).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::unique_ptr<File> Create(const std::string& name) {
    auto f = env_.OpenFile(dir_ + "/" + name, File::Mode::kCreate);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? std::move(f).value() : nullptr;
  }
  FaultInjectionEnv env_{Env::Default()};
  std::string dir_;
  const uint8_t data_[3] = {1, 2, 3};
};

TEST_F(FaultInjectionEnvTest, FailsMatchingOperationsOnceNTimesOrAlways) {
  auto a = Create("a.log");
  auto b = Create("b.index");
  env_.Fail(EnvOp::kWrite, "a.log", ENOSPC, /*times=*/2);
  for (int i = 0; i < 2; ++i) {
    Status s = a->WriteAt(0, data_);
    EXPECT_TRUE(s.IsIOError());
    EXPECT_THAT(s.ToString(), HasSubstr(dir_ + "/a.log: pwrite: No space left on device"));
    EXPECT_THAT(s.ToString(), HasSubstr("injected"));
  }
  EXPECT_TRUE(a->WriteAt(0, data_).ok());  // the third goes through
  EXPECT_TRUE(b->WriteAt(0, data_).ok());  // another path: untouched
  EXPECT_EQ(*a->Size(), 3);
  env_.Fail(EnvOp::kSync, ".index", EIO);  // always
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(b->Sync().ToString(), HasSubstr("fdatasync: Input/output error"));
  }
  EXPECT_TRUE(a->Sync().ok());
  EXPECT_EQ(env_.failures_injected(), 5);
  env_.ClearFailures();
  EXPECT_TRUE(b->Sync().ok());
}

TEST_F(FaultInjectionEnvTest, FailsPathOperationsAndLeavesTheFileSystemUnchanged) {
  auto a = Create("x");
  env_.Fail(EnvOp::kRename, "x.deleted", EIO, 1);
  Status s = env_.RenameFile(dir_ + "/x", dir_ + "/x.deleted");
  EXPECT_THAT(s.ToString(), HasSubstr("rename " + dir_ + "/x to " + dir_ + "/x.deleted"));
  EXPECT_TRUE(env_.FileExists(dir_ + "/x"));  // not performed
  env_.Fail(EnvOp::kMkdir, "/sub", ENOSPC, 1);
  EXPECT_TRUE(env_.CreateDirectories(dir_ + "/sub").IsIOError());
  EXPECT_FALSE(env_.FileExists(dir_ + "/sub"));
  env_.Fail(EnvOp::kUnlink, "/x", EIO, 1);
  EXPECT_TRUE(env_.RemoveFile(dir_ + "/x", true).IsIOError());
  EXPECT_TRUE(env_.RemoveFile(dir_ + "/x", true).ok());
  env_.Fail(EnvOp::kOpen, "/y", EIO, 1);
  EXPECT_THAT(env_.OpenFile(dir_ + "/y", File::Mode::kCreate).status().ToString(),
              HasSubstr("/y: open: Input/output error"));
  env_.Fail(EnvOp::kSyncDir, dir_, EIO, 1);
  EXPECT_TRUE(env_.SyncDirectory(dir_).IsIOError());
  EXPECT_TRUE(env_.SyncDirectory(dir_).ok());
  EXPECT_EQ(env_.count(EnvOp::kSyncDir), 2);
}

TEST_F(FaultInjectionEnvTest, BlocksAnOperationUntilReleased) {
  auto a = Create("a.log");
  auto b = Create("b.log");
  const int id = env_.Block(EnvOp::kSync, "a.log");
  Status synced = Status::Aborted("not yet");
  std::thread t([&] { synced = a->Sync(); });
  env_.WaitUntilBlocked(id);
  // Meanwhile other operations, and the same operation on other files, go on.
  EXPECT_TRUE(a->WriteAt(0, data_).ok());
  EXPECT_TRUE(b->Sync().ok());
  env_.Release(id);
  t.join();
  EXPECT_TRUE(synced.ok());
  EXPECT_TRUE(a->Sync().ok());  // released for good
}

}  // namespace
}  // namespace seglog
