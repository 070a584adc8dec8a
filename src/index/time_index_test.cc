#include "index/time_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "index/offset_index.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

class TimeIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("seglog_time_index_test_" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = dir_ + "/00000000000000000000.timeindex";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, path_;
};

TEST_F(TimeIndexTest, OnlyGrowingTimestampsAreWritten) {
  auto idx = *TimeIndex::Open(Env::Default(), path_, 0, 12 * 10);
  EXPECT_EQ(idx->LastEntry(), (TimestampOffset{-1, 0}));
  ASSERT_TRUE(idx->MaybeAppend(-1, 5).ok());  // not above -1: ignored
  EXPECT_EQ(idx->entries(), 0);
  ASSERT_TRUE(idx->MaybeAppend(1000, 9).ok());
  ASSERT_TRUE(idx->MaybeAppend(1000, 19).ok());  // equal: ignored
  EXPECT_EQ(idx->entries(), 1);
  ASSERT_TRUE(idx->MaybeAppend(1500, 29).ok());
  EXPECT_THAT(idx->MaybeAppend(2000, 20).ToString(), HasSubstr("smaller than the last offset"));
  EXPECT_THAT(idx->MaybeAppend(900, 39).ToString(), HasSubstr("smaller than the last timestamp"));
  EXPECT_EQ(idx->Lookup(999), (TimestampOffset{-1, 0}));
  EXPECT_EQ(idx->Lookup(1000), (TimestampOffset{1000, 9}));
  EXPECT_EQ(idx->Lookup(1499), (TimestampOffset{1000, 9}));
  EXPECT_EQ(idx->Lookup(99999), (TimestampOffset{1500, 29}));
}

// seed 000, "shrink the index": segment.index.bytes=400 gives 50 offset slots and 33 time slots
// (396 bytes); the time index reports full at 32 entries, keeping a slot for the roll entry.
TEST_F(TimeIndexTest, KeepsOneSlotForTheRollEntry) {
  auto time = *TimeIndex::Open(Env::Default(), path_, 0, 400);
  auto offsets = *OffsetIndex::Open(Env::Default(), dir_ + "/0.index", 0, 400);
  EXPECT_EQ(std::filesystem::file_size(path_), 396u);
  EXPECT_EQ(time->max_entries(), 33);
  EXPECT_EQ(offsets->max_entries(), 50);
  for (int i = 0; i < 32; ++i) ASSERT_TRUE(time->MaybeAppend(1000 + i, i).ok());
  EXPECT_TRUE(time->IsFull());
  EXPECT_FALSE(offsets->IsFull());
  EXPECT_FALSE(time->MaybeAppend(5000, 100).ok());
  ASSERT_TRUE(time->MaybeAppend(5000, 100, /*skip_full_check=*/true).ok());
  EXPECT_EQ(time->entries(), 33);
  EXPECT_FALSE(time->MaybeAppend(6000, 101, true).ok());  // no slot left at all
}

TEST_F(TimeIndexTest, TruncateTrimReopenAndSanity) {
  {
    auto idx = *TimeIndex::Open(Env::Default(), path_, 0, 12 * 50);
    for (int i = 1; i <= 10; ++i) ASSERT_TRUE(idx->MaybeAppend(i * 100, i * 10).ok());
    ASSERT_TRUE(idx->TruncateTo(50).ok());
    EXPECT_EQ(idx->entries(), 4);
    ASSERT_TRUE(idx->Close().ok());
  }
  EXPECT_EQ(std::filesystem::file_size(path_), 48u);
  auto idx = *TimeIndex::Open(Env::Default(), path_, 0, 12 * 50);
  EXPECT_EQ(idx->LastEntry(), (TimestampOffset{400, 40}));
  EXPECT_TRUE(idx->SanityCheck().ok());
  std::filesystem::resize_file(path_, 50);
  auto bad = *TimeIndex::Open(Env::Default(), path_, 0, 600, false);
  EXPECT_THAT(bad->SanityCheck().ToString(), HasSubstr("multiple of 12"));
}

}  // namespace
}  // namespace seglog
