#include "log/leader_epoch_cache.h"

#include <gtest/gtest.h>

#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;
using Entries = std::vector<EpochEntry>;

class LeaderEpochCacheTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.path() + "/" + kLeaderEpochCheckpointFile; }
  Entries OnDisk() const {
    auto e = ReadLeaderEpochCheckpoint(Env::Default(), path());
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? *e : Entries{};
  }
  TempDir dir_;
};

TEST_F(LeaderEpochCacheTest, ANewLogLeadsEpochZeroFromItsEnd) {
  LeaderEpochCache cache(Env::Default(), path());
  ASSERT_TRUE(cache.Load(0, 42).ok());
  EXPECT_EQ(cache.entries(), (Entries{{0, 42}}));
  EXPECT_EQ(OnDisk(), (Entries{{0, 42}}));
}

TEST_F(LeaderEpochCacheTest, LoadDropsEntriesPastTheEndAndMovesTheLastOneBelowTheStart) {
  ASSERT_TRUE(
      WriteLeaderEpochCheckpoint(Env::Default(), path(), {{0, 0}, {3, 100}, {5, 250}, {6, 400}})
          .ok());
  LeaderEpochCache cache(Env::Default(), path());
  ASSERT_TRUE(cache.Load(/*log_start_offset=*/150, /*log_end_offset=*/400).ok());
  EXPECT_EQ(cache.entries(), (Entries{{3, 150}, {5, 250}}));
  EXPECT_EQ(OnDisk(), cache.entries());
}

TEST_F(LeaderEpochCacheTest, AnUnchangedCheckpointIsNotRewritten) {
  ASSERT_TRUE(WriteLeaderEpochCheckpoint(Env::Default(), path(), {{2, 10}}).ok());
  ASSERT_TRUE(SetLastModifiedMs(path(), 1000000).ok());
  LeaderEpochCache cache(Env::Default(), path());
  ASSERT_TRUE(cache.Load(10, 50).ok());
  EXPECT_EQ(StatFile(path())->last_modified_ms, 1000000);
}

TEST_F(LeaderEpochCacheTest, OnlyANewerEpochStartsAnEntryAndIsWrittenAtOnce) {
  LeaderEpochCache cache(Env::Default(), path());
  ASSERT_TRUE(cache.Load(0, 0).ok());
  ASSERT_TRUE(cache.Assign(0, 7).ok());  // same epoch: nothing
  ASSERT_TRUE(cache.Assign(4, 10).ok());
  ASSERT_TRUE(cache.Assign(3, 12).ok());  // older: nothing
  EXPECT_EQ(cache.entries(), (Entries{{0, 0}, {4, 10}}));
  EXPECT_EQ(OnDisk(), cache.entries());
}

TEST_F(LeaderEpochCacheTest, TruncateFromStartWaitsForWriteIfDirty) {
  LeaderEpochCache cache(Env::Default(), path());
  ASSERT_TRUE(cache.Load(0, 0).ok());
  ASSERT_TRUE(cache.Assign(1, 20).ok());
  EXPECT_FALSE(cache.TruncateFromStart(0));  // nothing below 0
  EXPECT_TRUE(cache.TruncateFromStart(25));
  EXPECT_EQ(cache.entries(), (Entries{{1, 25}}));
  EXPECT_EQ(OnDisk(), (Entries{{0, 0}, {1, 20}}));  // not yet written
  ASSERT_TRUE(cache.WriteIfDirty().ok());
  EXPECT_EQ(OnDisk(), (Entries{{1, 25}}));
  // An entry exactly at the new start is kept as it is.
  ASSERT_TRUE(cache.Assign(2, 30).ok());
  EXPECT_TRUE(cache.TruncateFromStart(30));
  EXPECT_EQ(cache.entries(), (Entries{{2, 30}}));
}

}  // namespace
}  // namespace seglog
