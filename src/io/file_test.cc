#include "io/file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

namespace seglog {
namespace {

using ::testing::HasSubstr;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("seglog_file_test_" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove_all(dir_);
    ASSERT_TRUE(CreateDirectories(dir_).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FileTest, WriteReadTruncateSync) {
  auto f = File::Open(dir_ + "/a", File::Mode::kCreate);
  ASSERT_TRUE(f.ok());
  const uint8_t data[] = {1, 2, 3, 4, 5};
  ASSERT_TRUE((*f)->WriteAt(10, data).ok());
  EXPECT_EQ(*(*f)->Size(), 15);
  uint8_t out[5];
  ASSERT_TRUE((*f)->ReadAt(10, out).ok());
  EXPECT_EQ(out[4], 5);
  Status s = (*f)->ReadAt(12, out);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.ToString(), HasSubstr(dir_ + "/a"));
  EXPECT_EQ(*(*f)->ReadAtMost(12, out), 3u);
  ASSERT_TRUE((*f)->Truncate(4).ok());
  EXPECT_EQ(*(*f)->Size(), 4);
  EXPECT_TRUE((*f)->Sync().ok());
  EXPECT_TRUE(SyncDirectory(dir_).ok());
}

TEST_F(FileTest, OpenModes) {
  EXPECT_TRUE(File::Open(dir_ + "/missing", File::Mode::kReadOnly).status().IsNotFound());
  ASSERT_TRUE(File::Open(dir_ + "/x", File::Mode::kCreateExclusive).ok());
  EXPECT_EQ(File::Open(dir_ + "/x", File::Mode::kCreateExclusive).status().code(),
            Status::Code::kAlreadyExists);
  EXPECT_TRUE(FileExists(dir_ + "/x"));
  ASSERT_TRUE(RenameFile(dir_ + "/x", dir_ + "/y").ok());
  EXPECT_FALSE(FileExists(dir_ + "/x"));
  auto names = ListDirectory(dir_);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"y"});
  EXPECT_TRUE(RemoveFile(dir_ + "/y", false).ok());
  EXPECT_TRUE(RemoveFile(dir_ + "/y", true).ok());
  EXPECT_TRUE(RemoveFile(dir_ + "/y", false).IsIOError());
}

TEST_F(FileTest, MappedRegionSeesWrites) {
  auto f = File::Open(dir_ + "/m", File::Mode::kCreate);
  ASSERT_TRUE((*f)->Truncate(4096).ok());
  auto m = MappedRegion::Map(**f, 4096, true);
  ASSERT_TRUE(m.ok());
  (*m)->data()[100] = 42;
  ASSERT_TRUE((*m)->Sync((*f)->path()).ok());
  uint8_t b;
  ASSERT_TRUE((*f)->ReadAt(100, {&b, 1}).ok());
  EXPECT_EQ(b, 42);
}

TEST_F(FileTest, MapWholeFileMapsTheFileAsItIs) {
  {
    auto f = File::Open(dir_ + "/w", File::Mode::kCreate);
    const uint8_t bytes[3] = {1, 2, 3};
    ASSERT_TRUE((*f)->WriteAt(0, bytes).ok());
  }
  auto m = MappedRegion::MapWholeFile(dir_ + "/w");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_THAT((*m)->bytes(), ::testing::ElementsAre(1, 2, 3));
  auto f = File::Open(dir_ + "/empty", File::Mode::kCreate);
  auto empty = MappedRegion::MapWholeFile(dir_ + "/empty");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE((*empty)->bytes().empty());
  EXPECT_TRUE(MappedRegion::MapWholeFile(dir_ + "/missing").status().IsNotFound());
}

}  // namespace
}  // namespace seglog
