// The POSIX Env: directory operations, tree removal, lock files, and that a File dispatches its
// operations through the Env that opened it.
#include "io/env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "io/fault_injection_env.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class EnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        (std::filesystem::temp_directory_path() / ("seglog_env_test_" + std::to_string(::getpid())))
            .string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Env* env_ = Env::Default();
  std::string dir_;
};

TEST_F(EnvTest, CreateDirectoriesListRenameRemoveTree) {
  ASSERT_TRUE(env_->CreateDirectories(dir_ + "/a/b").ok());
  ASSERT_TRUE(env_->CreateDirectories(dir_ + "/a/b").ok());  // existing: fine
  auto f = env_->OpenFile(dir_ + "/a/b/x", File::Mode::kCreateExclusive);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->env(), env_);
  EXPECT_TRUE(env_->OpenFile(dir_ + "/a/b/x", File::Mode::kCreateExclusive).status().code() ==
              Status::Code::kAlreadyExists);
  EXPECT_TRUE(env_->OpenFile(dir_ + "/a/nope", File::Mode::kReadOnly).status().IsNotFound());
  ASSERT_TRUE(env_->RenameFile(dir_ + "/a/b/x", dir_ + "/a/y").ok());
  EXPECT_THAT(*env_->ListDirectory(dir_ + "/a"), UnorderedElementsAre("b", "y"));
  auto st = env_->Stat(dir_ + "/a");
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->is_directory);
  EXPECT_FALSE(env_->Stat(dir_ + "/a/y")->is_directory);
  // A file where a directory should be: named in the error.
  Status s = env_->CreateDirectories(dir_ + "/a/y/z");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.ToString(), HasSubstr(dir_ + "/a/y"));
  ASSERT_TRUE(env_->RemoveTree(dir_ + "/a").ok());
  EXPECT_FALSE(env_->FileExists(dir_ + "/a"));
  EXPECT_TRUE(env_->RemoveTree(dir_ + "/a").ok());  // missing: fine
}

TEST_F(EnvTest, LockFileExcludesOtherProcessesOnly) {
  ASSERT_TRUE(env_->CreateDirectories(dir_).ok());
  auto lock = env_->LockFile(dir_ + "/.lock");
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  // fcntl locks belong to the process: a second lock in this process is granted (LogDirLock
  // keeps its own registry for that).
  EXPECT_TRUE(env_->LockFile(dir_ + "/.lock").ok());
}

TEST_F(EnvTest, FileOperationsGoThroughTheEnvThatOpenedTheFile) {
  ASSERT_TRUE(env_->CreateDirectories(dir_).ok());
  FaultInjectionEnv faulty(env_);
  auto f = faulty.OpenFile(dir_ + "/f", File::Mode::kCreate);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->env(), &faulty);
  const uint8_t data[4] = {1, 2, 3, 4};
  ASSERT_TRUE((*f)->WriteAt(0, data).ok());
  ASSERT_TRUE((*f)->Sync().ok());
  auto map = MappedRegion::Map(**f, 4, /*writable=*/true);
  ASSERT_TRUE(map.ok());
  ASSERT_TRUE((*map)->Sync((*f)->path()).ok());
  EXPECT_EQ(faulty.count(EnvOp::kOpen, "/f"), 1);
  EXPECT_EQ(faulty.count(EnvOp::kWrite, "/f"), 1);
  EXPECT_EQ(faulty.count(EnvOp::kSync, "/f"), 1);
  EXPECT_EQ(faulty.count(EnvOp::kMap, "/f"), 1);
  EXPECT_EQ(faulty.count(EnvOp::kMsync, "/f"), 1);
}

}  // namespace
}  // namespace seglog
