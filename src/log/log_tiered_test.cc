// A tiered log (KIP-405): local retention waits for remote storage, the log start offset stays
// below the local segments, reads below them are refused as moved to tiered storage, and the
// KIP-1005 ListOffsets timestamps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kNow = 1'800'000'000'000;

LogConfig TieredConfig() {
  LogConfig c;
  c.internal_segment_bytes = 1200;  // about two batches of 10 x 40-byte records per segment
  c.remote_storage_enable = true;
  c.local_retention_ms = 0;  // every copied segment may go at once
  c.retention_ms = -1;
  return c;
}

LogOptions TieredOptions(bool system_enable = true) {
  LogOptions o;
  o.clock = [] { return kNow; };
  o.remote_storage_system_enable = system_enable;
  return o;
}

// Appends batches of 10 records until the log has `segments` segments.
void Fill(Log& log, int segments) {
  int next = 0;
  while (log.num_segments() < segments) {
    ASSERT_TRUE(log.AppendAsLeader(ProducerBatch(next, 10, 40, kNow - 100000 + next)).ok());
    next += 10;
  }
}

TEST(LogTieredTest, LocalRetentionWaitsForRemoteStorageAndKeepsTheLogStart) {
  TempDir tmp;
  auto log = Log::Open(tmp.path() + "/t-0", TieredConfig(), TieredOptions());
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  Fill(**log, 5);
  ASSERT_TRUE((*log)->remote_log_enabled());
  const std::vector<int64_t> bases = (*log)->segment_base_offsets();
  // Nothing copied yet: local.retention.ms=0 deletes nothing.
  auto n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0);
  // Remote storage holds the first three segments: exactly those go.
  (*log)->UpdateHighestOffsetInRemoteStorage(bases[3] - 1);
  n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3);
  EXPECT_EQ((*log)->segment_base_offsets().front(), bases[3]);
  EXPECT_EQ((*log)->log_start_offset(), 0);
  EXPECT_EQ((*log)->local_log_start_offset(), bases[3]);
  // A read below the local segments is for remote storage.
  auto below = (*log)->Read(0, 1 << 20);
  ASSERT_FALSE(below.ok());
  EXPECT_TRUE(IsOffsetMovedToTieredStorage(below.status())) << below.status().ToString();
  EXPECT_THAT(below.status().ToString(), HasSubstr("below the local log start offset"));
  EXPECT_TRUE((*log)->Read(bases[3], 1 << 20).ok());
  // Other range errors are not "moved to tiered storage".
  auto past = (*log)->Read((*log)->log_end_offset() + 1, 1 << 20);
  ASSERT_FALSE(past.ok());
  EXPECT_FALSE(IsOffsetMovedToTieredStorage(past.status()));
  // KIP-1005's timestamps, and earliest still the log start.
  auto earliest = (*log)->FetchOffsetByTimestamp(kEarliestTimestamp);
  auto local = (*log)->FetchOffsetByTimestamp(kEarliestLocalTimestamp);
  auto tiered = (*log)->FetchOffsetByTimestamp(kLatestTieredTimestamp);
  ASSERT_TRUE(earliest.ok() && local.ok() && tiered.ok());
  EXPECT_EQ((*earliest)->offset, 0);
  EXPECT_EQ((*local)->offset, bases[3]);
  EXPECT_EQ((*local)->leader_epoch, std::optional<int32_t>(0));
  EXPECT_EQ((*tiered)->offset, bases[3] - 1);
  EXPECT_EQ((*tiered)->leader_epoch, std::optional<int32_t>(0));
  // The remote tier raises the log start; never lowers it.
  ASSERT_TRUE((*log)->UpdateLogStartOffsetFromRemoteTier(bases[1]).ok());
  EXPECT_EQ((*log)->log_start_offset(), bases[1]);
  ASSERT_TRUE((*log)->UpdateLogStartOffsetFromRemoteTier(bases[0]).ok());
  EXPECT_EQ((*log)->log_start_offset(), bases[1]);
  auto gone = (*log)->Read(0, 1 << 20);
  ASSERT_FALSE(gone.ok());
  EXPECT_FALSE(IsOffsetMovedToTieredStorage(gone.status()));
  EXPECT_THAT(gone.status().ToString(), HasSubstr("OffsetOutOfRangeException"));
}

TEST(LogTieredTest, AnActiveSegmentPastLocalRetentionIsRolledForTheCopy) {
  TempDir tmp;
  auto log = Log::Open(tmp.path() + "/t-0", TieredConfig(), TieredOptions());
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->AppendAsLeader(ProducerBatch(0, 3, 10, kNow - 100000)).ok());
  ASSERT_EQ((*log)->num_segments(), 1);
  auto n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0);
  // Rolled, not deleted: it is a copy candidate now.
  EXPECT_EQ((*log)->num_segments(), 2);
  auto candidates = (*log)->RemoteCopyCandidates(0);
  ASSERT_TRUE(candidates.ok());
  ASSERT_EQ(candidates->size(), 1u);
  EXPECT_EQ((*candidates)[0].end_offset, 2);
  // Once copied, it goes; the new active segment is empty and is not rolled again.
  (*log)->UpdateHighestOffsetInRemoteStorage(2);
  n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  EXPECT_EQ((*log)->num_segments(), 1);
  EXPECT_EQ((*log)->local_log_start_offset(), 3);
  EXPECT_EQ((*log)->log_start_offset(), 0);
  // An untiered log past retention deletes its active segment instead (rolling an empty one).
  LogConfig plain;
  plain.retention_ms = 0;
  auto other = Log::Open(tmp.path() + "/u-0", plain, TieredOptions());
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->AppendAsLeader(ProducerBatch(0, 3, 10, kNow - 100000)).ok());
  n = (*other)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1);
  EXPECT_EQ((*other)->log_start_offset(), 3);
}

TEST(LogTieredTest, NothingTieredAnswersMinusOneForLatestTiered) {
  TempDir tmp;
  auto log = Log::Open(tmp.path() + "/t-0", TieredConfig(), TieredOptions());
  ASSERT_TRUE(log.ok());
  Fill(**log, 2);
  auto tiered = (*log)->FetchOffsetByTimestamp(kLatestTieredTimestamp);
  ASSERT_TRUE(tiered.ok() && tiered->has_value());
  EXPECT_EQ((*tiered)->offset, -1);
  EXPECT_EQ((*tiered)->leader_epoch, std::nullopt);
  EXPECT_EQ((*tiered)->timestamp, kNoTimestamp);
  // An untiered log's earliest-local offset is its log start offset.
  auto local = (*log)->FetchOffsetByTimestamp(kEarliestLocalTimestamp);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ((*local)->offset, 0);
}

TEST(LogTieredTest, WithoutTheBrokerSwitchTheTopicConfigDoesNothing) {
  TempDir tmp;
  LogConfig config = TieredConfig();
  config.retention_ms = 0;  // local.retention.ms is ignored; retention.ms applies
  auto log = Log::Open(tmp.path() + "/t-0", config, TieredOptions(/*system_enable=*/false));
  ASSERT_TRUE(log.ok());
  Fill(**log, 4);
  EXPECT_FALSE((*log)->remote_log_enabled());
  // Every segment has expired, the active one too (an empty one is rolled first).
  auto n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 4);
  EXPECT_EQ((*log)->log_start_offset(), (*log)->log_end_offset());
  EXPECT_FALSE((*log)->UpdateLogStartOffsetFromRemoteTier((*log)->log_end_offset()).ok());
}

TEST(LogTieredTest, CopyDisabledRetentionIsLocalAndRaisesTheLogStart) {
  TempDir tmp;
  LogConfig config = TieredConfig();
  config.remote_log_copy_disable = true;
  config.retention_ms = 0;
  auto log = Log::Open(tmp.path() + "/t-0", config, TieredOptions());
  ASSERT_TRUE(log.ok());
  Fill(**log, 3);
  EXPECT_TRUE((*log)->remote_log_enabled());
  EXPECT_FALSE((*log)->remote_copy_enabled());
  // Nothing needs to be remote first, and the log start follows the deletion.
  auto n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 3);
  EXPECT_EQ((*log)->log_start_offset(), (*log)->log_end_offset());
}

TEST(LogTieredTest, LocalRetentionBytesCountsOnlyCopiedSegments) {
  TempDir tmp;
  LogConfig config = TieredConfig();
  config.local_retention_ms = -2;  // retention.ms=-1: no time limit
  config.local_retention_bytes = 1;
  auto log = Log::Open(tmp.path() + "/t-0", config, TieredOptions());
  ASSERT_TRUE(log.ok());
  Fill(**log, 4);
  const std::vector<int64_t> bases = (*log)->segment_base_offsets();
  (*log)->UpdateHighestOffsetInRemoteStorage(bases[2] - 1);
  auto n = (*log)->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);
  EXPECT_EQ((*log)->local_log_start_offset(), bases[2]);
  EXPECT_EQ((*log)->log_start_offset(), 0);
}

TEST(LogTieredTest, ReopenKeepsTheCheckpointedLogStartBelowTheLocalSegments) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/t-0";
  int64_t local_start = 0;
  {
    auto log = Log::Open(dir, TieredConfig(), TieredOptions());
    ASSERT_TRUE(log.ok());
    Fill(**log, 3);
    const std::vector<int64_t> bases = (*log)->segment_base_offsets();
    (*log)->UpdateHighestOffsetInRemoteStorage(bases[2] - 1);
    ASSERT_TRUE((*log)->DeleteOldSegments().ok());
    local_start = (*log)->local_log_start_offset();
    ASSERT_EQ(local_start, bases[2]);
    ASSERT_TRUE((*log)->Close().ok());
  }
  LogOptions options = TieredOptions();
  options.log_start_offset = 7;  // what the checkpoint file said
  auto log = Log::Open(dir, TieredConfig(), options);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->log_start_offset(), 7);
  EXPECT_EQ((*log)->local_log_start_offset(), local_start);
  // The same directory opened untiered starts at its first segment.
  ASSERT_TRUE((*log)->Close().ok());
  log = Log::Open(dir, TieredConfig(), [&] {
    LogOptions o = TieredOptions(false);
    o.log_start_offset = 7;
    return o;
  }());
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->log_start_offset(), local_start);
}

TEST(LogTieredTest, InternalTopicsAreNeverTiered) {
  TempDir tmp;
  auto log = Log::Open(tmp.path() + "/__consumer_offsets-3", TieredConfig(), TieredOptions());
  ASSERT_TRUE(log.ok());
  EXPECT_FALSE((*log)->remote_log_enabled());
  auto other = Log::Open(tmp.path() + "/__remote_log_metadata-0", TieredConfig(), TieredOptions());
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE((*other)->remote_log_enabled());  // not in Kafka's Topic.isInternal set
}

TEST(LogTieredTest, CopyCandidatesAreRolledSegmentsBelowTheLastStableOffset) {
  TempDir tmp;
  auto log = Log::Open(tmp.path() + "/t-0", TieredConfig(), TieredOptions());
  ASSERT_TRUE(log.ok());
  Fill(**log, 4);
  const std::vector<int64_t> bases = (*log)->segment_base_offsets();
  auto all = (*log)->RemoteCopyCandidates(0);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 3u);  // never the active segment
  for (size_t i = 0; i < all->size(); ++i) {
    const RemoteCopyCandidate& c = (*all)[i];
    EXPECT_EQ(c.base_offset, bases[i]);
    EXPECT_EQ(c.end_offset, bases[i + 1] - 1);
    EXPECT_EQ(c.size_bytes, static_cast<int64_t>(std::filesystem::file_size(c.log_path)));
    EXPECT_TRUE(std::filesystem::exists(c.offset_index_path)) << c.offset_index_path;
    EXPECT_TRUE(std::filesystem::exists(c.time_index_path)) << c.time_index_path;
    EXPECT_TRUE(c.txn_index_path.empty());  // no aborted transactions
    EXPECT_TRUE(std::filesystem::exists(c.producer_snapshot_path)) << c.producer_snapshot_path;
    EXPECT_GT(c.max_timestamp, 0);
  }
  // From an offset inside the second segment: the second and third.
  auto later = (*log)->RemoteCopyCandidates(bases[1] + 1);
  ASSERT_TRUE(later.ok());
  ASSERT_EQ(later->size(), 2u);
  EXPECT_EQ((*later)[0].base_offset, bases[1]);
  auto none = (*log)->RemoteCopyCandidates(bases[3]);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(LogTieredTest, ConfigKeysHaveKafkasDefaultsAndRules) {
  LogConfig c;
  EXPECT_FALSE(c.remote_storage_enable);
  EXPECT_EQ(c.local_retention_ms, -2);
  EXPECT_EQ(c.local_retention_bytes, -2);
  EXPECT_EQ(c.LocalRetentionMs(), c.retention_ms);
  EXPECT_EQ(c.LocalRetentionBytes(), c.retention_bytes);
  auto parsed = LogConfig::FromProperties({{"remote.storage.enable", "true"},
                                           {"local.retention.ms", "1000"},
                                           {"local.retention.bytes", "-1"},
                                           {"remote.log.copy.disable", "true"},
                                           {"remote.log.delete.on.disable", "true"}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed->remote_storage_enable);
  EXPECT_EQ(parsed->LocalRetentionMs(), 1000);
  EXPECT_EQ(parsed->LocalRetentionBytes(), -1);
  EXPECT_EQ(parsed->Overrides().size(), 5u);
  auto bad = LogConfig::FromProperties({{"local.retention.ms", "-3"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().ToString(),
              HasSubstr("Invalid value -3 for configuration local.retention.ms: Value must be at "
                        "least -2"));

  LogConfig t;
  t.remote_storage_enable = true;
  EXPECT_TRUE(t.ValidateRemoteStorage(true, false).ok());
  EXPECT_THAT(t.ValidateRemoteStorage(false, false).ToString(),
              HasSubstr("Tiered Storage functionality is disabled in the broker"));
  LogConfig compact = t;
  compact.cleanup_compact = true;
  EXPECT_THAT(compact.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("Remote log storage only supports topics with cleanup.policy=delete or "
                        "cleanup.policy being an empty list."));
  LogConfig ms = t;
  ms.retention_ms = 1000;
  ms.local_retention_ms = 2000;
  EXPECT_THAT(ms.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("Value must not be more than retention.ms property value: 1000"));
  ms.local_retention_ms = -1;
  EXPECT_THAT(ms.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("Value must not be -1 as retention.ms value is set as 1000"));
  LogConfig bytes = t;
  bytes.retention_bytes = 100;
  bytes.local_retention_bytes = 200;
  EXPECT_THAT(bytes.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("local.retention.bytes"));
  bytes.local_retention_bytes = 50;
  EXPECT_TRUE(bytes.ValidateRemoteStorage(true, false).ok());
  // Turning it off needs remote.log.delete.on.disable=true.
  LogConfig off;
  EXPECT_THAT(off.ValidateRemoteStorage(true, true).ToString(),
              HasSubstr("It is invalid to disable remote storage without deleting remote data"));
  off.remote_log_delete_on_disable = true;
  EXPECT_TRUE(off.ValidateRemoteStorage(true, true).ok());
  // Read-only remote data: local.retention.* must be what retention.* is.
  LogConfig read_only = t;
  read_only.remote_log_copy_disable = true;
  read_only.retention_ms = 1000;
  read_only.local_retention_ms = 500;
  EXPECT_THAT(read_only.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("the `local.retention.ms` and `retention.ms` must be set to the identical "
                        "value because there will be no more logs copied to the remote storage."));
  read_only.local_retention_ms = 1000;
  EXPECT_TRUE(read_only.ValidateRemoteStorage(true, false).ok());
  // KIP-1241's lags, within the effective local retention.
  LogConfig lag = t;
  lag.retention_ms = 1000;
  lag.local_retention_ms = 500;
  lag.remote_copy_lag_ms = 700;
  EXPECT_THAT(lag.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("Invalid value 700 for configuration remote.copy.lag.ms: Value must not "
                        "exceed local.retention.ms (effective value: 500)"));
  lag.remote_copy_lag_ms = 500;
  EXPECT_TRUE(lag.ValidateRemoteStorage(true, false).ok());
  lag.retention_bytes = 1000;
  lag.remote_copy_lag_bytes = 2000;
  EXPECT_THAT(lag.ValidateRemoteStorage(true, false).ToString(),
              HasSubstr("Invalid value 2000 for configuration remote.copy.lag.bytes: Value must "
                        "not exceed local.retention.bytes (effective value: 1000)"));
  EXPECT_EQ(LogConfig().remote_copy_lag_ms, 0);
  EXPECT_EQ(LogConfig().remote_copy_lag_bytes, -1);
}

}  // namespace
}  // namespace seglog
