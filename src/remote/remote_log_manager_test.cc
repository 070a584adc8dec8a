// The remote log manager over a real LogManager, __remote_log_metadata and a local-directory
// store with faults (LocalRemoteStorage): copy, local trim, reads from offset 0, restarts,
// orphans, retention over both tiers, deleted topics, and bad remote objects.
#include "remote/remote_log_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "base/scheduler.h"
#include "remote/testing/local_remote_storage.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kNow = 1'800'000'000'000;
constexpr int kRecordsPerBatch = 10;

class RemoteLogManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }
  void TearDown() override { Stop(); }

  void Start(RemoteLogManagerOptions options = {}) {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", tmp_.path() + "/logs"},
                                                    {"remote.log.storage.system.enable", "true"},
                                                    {"log.initial.task.delay.ms", "0"}});
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = NewManualScheduler(now_);
    auto logs = LogManager::Open(*config, scheduler_.get());
    ASSERT_TRUE(logs.ok()) << logs.status().ToString();
    logs_ = std::move(*logs);
    RemoteLogMetadataManagerOptions rlmm_options;
    rlmm_options.num_partitions = 3;
    auto rlmm = RemoteLogMetadataManager::Open(logs_.get(), rlmm_options);
    ASSERT_TRUE(rlmm.ok()) << rlmm.status().ToString();
    rlmm_ = std::move(*rlmm);
    if (!rsm_) rsm_ = std::make_unique<LocalRemoteStorage>(tmp_.path() + "/store");
    RemoteIndexCacheOptions cache_options;
    cache_options.dir = tmp_.path() + "/logs/remote-log-index-cache";
    auto cache = RemoteIndexCache::Open(cache_options, rsm_.get());
    ASSERT_TRUE(cache.ok()) << cache.status().ToString();
    cache_ = std::move(*cache);
    options.logger = [this](const std::string& line) { lines_.push_back(line); };
    rlm_ = std::make_unique<RemoteLogManager>(logs_.get(), rsm_.get(), rlmm_.get(), cache_.get(),
                                              scheduler_.get(), options);
  }
  void Stop() {
    if (rlm_) rlm_->Shutdown();
    rlm_.reset();
    cache_.reset();
    rlmm_.reset();
    if (logs_) {
      ASSERT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
    if (scheduler_) now_ = scheduler_->NowMs();
    scheduler_.reset();
  }
  void Restart(RemoteLogManagerOptions options = {}) {
    Stop();
    Start(options);
  }

  // A tiered topic of one partition whose local copies go as soon as they are remote.
  void CreateTopic(std::map<std::string, std::string> configs = {}) {
    configs.emplace("remote.storage.enable", "true");
    configs.emplace("internal.segment.bytes", "2000");
    configs.emplace("local.retention.ms", "0");
    configs.emplace("retention.ms", "-1");
    ASSERT_TRUE(logs_->CreateTopic("t", 1, configs).ok());
  }
  std::shared_ptr<Log> log() { return *logs_->GetLog({"t", 0}); }
  // Appends `n` batches; returns every batch's bytes as the log holds them, by base offset.
  void Produce(int n, int64_t first_timestamp = kNow - 1000000) {
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(log()->log_end_offset());
      // Record o has timestamp first_timestamp + o.
      auto r = log()->AppendAsLeader(ProducerBatch(first, kRecordsPerBatch, 60, first_timestamp));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }
  // Every batch of the log, read locally before anything is tiered.
  std::map<int64_t, std::vector<uint8_t>> LocalBatches() {
    std::map<int64_t, std::vector<uint8_t>> out;
    Status s = testing::ForEachBatch(log().get(), [&](const RecordBatchView& b, Bytes bytes) {
      out[b.base_offset()] = std::vector<uint8_t>(bytes.begin(), bytes.end());
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  // Reads every batch from `from` to the log end: the remote tier below the local log start
  // (through the manager), the local log above it - as the broker's Fetch does.
  std::map<int64_t, std::vector<uint8_t>> ReadThrough(int64_t from, int32_t max_bytes = 4096) {
    std::map<int64_t, std::vector<uint8_t>> out;
    int64_t offset = from;
    while (offset < log()->log_end_offset()) {
      Result<FetchDataInfo> local = log()->Read(offset, max_bytes);
      std::vector<uint8_t> bytes;
      if (!local.ok()) {
        EXPECT_TRUE(IsOffsetMovedToTieredStorage(local.status())) << local.status().ToString();
        auto remote = rlm_->Read({"t", 0}, offset, max_bytes, true, log()->log_end_offset());
        EXPECT_TRUE(remote.ok()) << remote.status().ToString();
        if (!remote.ok() || remote->records.empty()) break;
        bytes = remote->records;
      } else {
        auto all = local->slice.ReadAll();
        EXPECT_TRUE(all.ok());
        bytes = *all;
      }
      if (bytes.empty()) break;
      size_t at = 0;
      while (at < bytes.size()) {
        auto b = RecordBatchView::Parse(Bytes(bytes.data() + at, bytes.size() - at));
        if (!b.ok()) break;  // a partial last batch of a local read
        out[b->base_offset()] = std::vector<uint8_t>(b->bytes().begin(), b->bytes().end());
        offset = b->next_offset();
        at += b->size_in_bytes();
      }
    }
    return out;
  }
  // Copies and trims until only the (empty) active segment is local: the last pass's local
  // retention rolls the active segment, and the next copies it.
  void TierEverything() {
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(rlm_->RunOnce().ok());
      ASSERT_TRUE(logs_->RunTask("retention").ok());
    }
    ASSERT_EQ(log()->num_segments(), 1);
    ASSERT_EQ(log()->local_log_start_offset(), log()->log_end_offset());
  }
  int StoredSegments() {
    const std::string root = tmp_.path() + "/store";
    if (!std::filesystem::exists(root)) return 0;
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(root)) n += e.is_directory() ? 1 : 0;
    return n;
  }
  TopicIdPartition Id() {
    return {*Uuid::Parse(logs_->FindTopic("t")->topic_id), TopicPartition{"t", 0}};
  }
  std::vector<RemoteLogSegmentMetadata> Remote() { return rlmm_->ListRemoteLogSegments(Id()); }

  TempDir tmp_;
  int64_t now_ = kNow;
  std::unique_ptr<ManualScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<RemoteLogMetadataManager> rlmm_;
  std::unique_ptr<LocalRemoteStorage> rsm_;
  std::unique_ptr<RemoteIndexCache> cache_;
  std::unique_ptr<RemoteLogManager> rlm_;
  std::vector<std::string> lines_;
};

TEST_F(RemoteLogManagerTest, CopiesTrimsAndReadsEveryRecordBackFromOffsetZero) {
  CreateTopic();
  Produce(40);
  const auto before = LocalBatches();
  const int segments = log()->num_segments();
  ASSERT_GT(segments, 5);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  // Every rolled segment is remote, FINISHED, once.
  const auto remote = Remote();
  ASSERT_EQ(static_cast<int>(remote.size()), segments - 1);
  for (const auto& s : remote) EXPECT_EQ(s.state, RemoteLogSegmentState::kCopySegmentFinished);
  EXPECT_EQ(StoredSegments(), segments - 1);
  const int64_t active_base = log()->segment_base_offsets().back();
  EXPECT_EQ(log()->highest_offset_in_remote_storage(), active_base - 1);
  // A second pass copies nothing again.
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(rlm_->stats().segments_copied, segments - 1);
  // Local retention trims the local copies, and rolls the active segment (past
  // local.retention.ms) for the next pass to copy; the log start stays 0.
  ASSERT_TRUE(logs_->RunTask("retention").ok());
  EXPECT_EQ(log()->num_segments(), 2);
  EXPECT_EQ(log()->log_start_offset(), 0);
  EXPECT_EQ(log()->local_log_start_offset(), active_base);
  EXPECT_EQ(ReadThrough(0), before);
  TierEverything();
  EXPECT_EQ(log()->highest_offset_in_remote_storage(), log()->log_end_offset() - 1);
  // Every batch comes back, byte for byte, from offset 0.
  EXPECT_EQ(ReadThrough(0), before);
  // Small and odd max_bytes still return whole batches, the first one at least.
  EXPECT_EQ(ReadThrough(0, 1), before);
  EXPECT_EQ(ReadThrough(0, 777), before);
  // From an offset inside a batch: that batch first.
  auto mid = rlm_->Read({"t", 0}, 15, 1 << 20, true, log()->log_end_offset());
  ASSERT_TRUE(mid.ok()) << mid.status().ToString();
  EXPECT_EQ(mid->first_offset, 10);
  // The bound (a read_committed LSO) stops the read.
  auto bounded = rlm_->Read({"t", 0}, 0, 1 << 20, true, 20);
  ASSERT_TRUE(bounded.ok());
  EXPECT_EQ(bounded->next_offset, 20);
  // Timestamps are found in the remote tier (record r has timestamp kNow - 1000000 + r).
  auto ts = rlm_->FindOffsetByTimestamp({"t", 0}, kNow - 1000000 + 37);
  ASSERT_TRUE(ts.ok() && ts->has_value()) << ts.status().ToString();
  EXPECT_EQ((*ts)->offset, 37);
  EXPECT_EQ((*ts)->timestamp, kNow - 1000000 + 37);
  auto none = rlm_->FindOffsetByTimestamp({"t", 0}, kNow);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  // KIP-1005 from the log.
  auto tiered = log()->FetchOffsetByTimestamp(kLatestTieredTimestamp);
  ASSERT_TRUE(tiered.ok());
  EXPECT_EQ((*tiered)->offset, log()->log_end_offset() - 1);
}

TEST_F(RemoteLogManagerTest, ARestartFindsTheRemoteTierAgain) {
  CreateTopic();
  Produce(30);
  const auto before = LocalBatches();
  TierEverything();
  const int64_t end = log()->log_end_offset();
  EXPECT_EQ(ReadThrough(0), before);  // fills the index cache
  const int64_t cached = cache_->stats().entries;
  ASSERT_EQ(cached, static_cast<int64_t>(Remote().size()));
  Restart();
  EXPECT_EQ(log()->log_start_offset(), 0);  // the checkpoint kept it below the local segments
  EXPECT_EQ(log()->local_log_start_offset(), end);
  EXPECT_EQ(log()->highest_offset_in_remote_storage(), -1);  // until the first pass
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(log()->highest_offset_in_remote_storage(), end - 1);
  EXPECT_EQ(rlm_->stats().segments_copied, 0);
  EXPECT_EQ(ReadThrough(0), before);
  // The index cache's files were reused: the second run's reads fetched no index.
  EXPECT_EQ(cache_->stats().reused_at_open, cached);
  EXPECT_EQ(cache_->stats().misses, 0);
  EXPECT_EQ(rsm_->counts().index_fetches, 3 * cached);  // all from the first run
}

TEST_F(RemoteLogManagerTest, AFailedCopyLeavesTheSegmentLocalAndNoObjects) {
  CreateTopic();
  Produce(12);
  const int rolled = log()->num_segments() - 1;
  rsm_->FailNextCopies(1);
  Status s = rlm_->RunOnce();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.ToString(), HasSubstr("copying remote segment"));
  EXPECT_EQ(rlm_->stats().copy_failures, 1);
  EXPECT_TRUE(Remote().empty());   // the failed copy's metadata reached DELETE_FINISHED
  EXPECT_EQ(StoredSegments(), 0);  // and its objects are gone
  ASSERT_TRUE(logs_->RunTask("retention").ok());
  EXPECT_EQ(log()->num_segments(), rolled + 1);  // nothing local went
  EXPECT_EQ(log()->local_log_start_offset(), 0);
  // The next pass copies everything.
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(static_cast<int>(Remote().size()), rolled);
  EXPECT_EQ(StoredSegments(), rolled);
}

TEST_F(RemoteLogManagerTest, AnOrphanOfACrashedCopyIsDeletedAndTheSegmentCopiedAgain) {
  CreateTopic();
  Produce(12);
  // A crash after COPY_SEGMENT_STARTED and the upload, before COPY_SEGMENT_FINISHED.
  auto candidates = log()->RemoteCopyCandidates(0);
  ASSERT_TRUE(candidates.ok() && !candidates->empty());
  const RemoteCopyCandidate& c = candidates->front();
  RemoteLogSegmentMetadata orphan;
  orphan.segment_id = {Id(), Uuid::Random()};
  orphan.start_offset = c.base_offset;
  orphan.end_offset = c.end_offset;
  orphan.max_timestamp_ms = c.max_timestamp;
  orphan.segment_leader_epochs = {{0, c.base_offset}};
  orphan.segment_size_in_bytes = static_cast<int32_t>(c.size_bytes);
  ASSERT_TRUE(rlmm_->AddRemoteLogSegmentMetadata(orphan).ok());
  LogSegmentData data;
  data.log_segment = c.log_path;
  data.offset_index = c.offset_index_path;
  data.time_index = c.time_index_path;
  data.producer_snapshot = c.producer_snapshot_path;
  ASSERT_TRUE(rsm_->CopyLogSegmentData(orphan, data).ok());
  ASSERT_EQ(StoredSegments(), 1);
  Restart();
  ASSERT_EQ(rlmm_->OrphanedSegments().size(), 1u);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(rlm_->stats().orphans_deleted, 1);
  EXPECT_FALSE(std::filesystem::exists(tmp_.path() + "/store/" + orphan.segment_id.id.ToString()));
  const auto remote = Remote();
  ASSERT_EQ(static_cast<int>(remote.size()), log()->num_segments() - 1);
  EXPECT_EQ(remote.front().start_offset, c.base_offset);
  EXPECT_NE(remote.front().segment_id.id, orphan.segment_id.id);
  EXPECT_EQ(StoredSegments(), static_cast<int>(remote.size()));
}

TEST_F(RemoteLogManagerTest, ACrashDuringARemoteDeleteIsFinishedAfterTheRestart) {
  CreateTopic();
  Produce(20);
  TierEverything();
  const auto remote = Remote();
  ASSERT_GE(remote.size(), 3u);
  // Expiration had raised the log start past the first segment (in memory: the checkpoint
  // still says 0), written DELETE_SEGMENT_STARTED and deleted one object when the node died.
  RemoteLogSegmentMetadata deleting = remote[0];
  deleting.state = RemoteLogSegmentState::kDeleteSegmentStarted;
  ASSERT_TRUE(rlmm_->UpdateRemoteLogSegmentMetadata(deleting).ok());
  ASSERT_TRUE(rsm_->DeleteObject(remote[0], RemoteObjectKind::kOffsetIndex).ok());
  Restart();
  EXPECT_EQ(log()->log_start_offset(), 0);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  // The delete is finished, and the log starts at the first segment still remote.
  EXPECT_EQ(rlm_->stats().orphans_deleted, 1);
  EXPECT_FALSE(
      std::filesystem::exists(tmp_.path() + "/store/" + remote[0].segment_id.id.ToString()));
  ASSERT_EQ(Remote().size(), remote.size() - 1);
  EXPECT_EQ(log()->log_start_offset(), remote[1].start_offset);
  EXPECT_EQ(StoredSegments(), static_cast<int>(remote.size()) - 1);
  auto below = rlm_->Read({"t", 0}, 0, 4096, true, log()->log_end_offset());
  EXPECT_TRUE(below.status().IsOutOfRange());
  EXPECT_EQ(ReadThrough(remote[1].start_offset).begin()->first, remote[1].start_offset);
}

TEST_F(RemoteLogManagerTest, RetentionMsExpiresRemoteSegmentsAndRaisesTheLogStart) {
  CreateTopic({{"retention.ms", "600000"}, {"local.retention.ms", "0"}});
  Produce(10, kNow - 10'000'000);  // old
  ASSERT_TRUE(log()->Roll().ok());
  const int64_t old_end = log()->log_end_offset();
  Produce(10, kNow - 1000);  // recent
  ASSERT_TRUE(rlm_->RunOnce().ok());
  ASSERT_TRUE(logs_->RunTask("retention").ok());
  // The first pass copied everything rolled, and expired what is older than retention.ms.
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(log()->log_start_offset(), old_end);
  for (const auto& s : Remote()) EXPECT_GE(s.start_offset, old_end);
  EXPECT_GT(rlm_->stats().segments_deleted, 0);
  auto gone = rlm_->Read({"t", 0}, 0, 4096, true, log()->log_end_offset());
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsOutOfRange());
  EXPECT_EQ(StoredSegments(), static_cast<int>(Remote().size()));
  // What is left reads through.
  EXPECT_EQ(ReadThrough(old_end).begin()->first, old_end);
}

TEST_F(RemoteLogManagerTest, RetentionBytesCountsBothTiers) {
  CreateTopic();
  Produce(30);
  TierEverything();
  Produce(5);  // local only
  const auto remote = Remote();
  ASSERT_GT(remote.size(), 3u);
  int64_t remote_bytes = 0;
  for (const auto& s : remote) remote_bytes += s.segment_size_in_bytes;
  const int64_t total = remote_bytes + log()->size_in_bytes();
  // Keep about half: the oldest segments go while the rest stays at or above the cap.
  const int64_t cap = total / 2;
  ASSERT_TRUE(
      logs_
          ->AlterTopicConfig(
              "t", {{"retention.bytes", std::to_string(cap)}, {"local.retention.bytes", "-2"}}, {})
          .ok());
  ASSERT_TRUE(rlm_->RunOnce().ok());  // copies the new rolled segments, then expires
  // The whole log: remote segments, and the local bytes not yet remote.
  int64_t left = log()->size_in_bytes();
  auto rolled = log()->RemoteCopyCandidates(0);
  ASSERT_TRUE(rolled.ok());
  for (const auto& c : *rolled) {
    if (c.end_offset <= log()->highest_offset_in_remote_storage()) left -= c.size_bytes;
  }
  for (const auto& s : Remote()) left += s.segment_size_in_bytes;
  EXPECT_GE(left, cap);
  EXPECT_LT(left - Remote().front().segment_size_in_bytes, cap);
  EXPECT_EQ(log()->log_start_offset(), Remote().front().start_offset);
}

TEST_F(RemoteLogManagerTest, ADeletedTopicsRemoteDataIsDeleted) {
  CreateTopic();
  Produce(12);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  ASSERT_GT(StoredSegments(), 0);
  const TopicIdPartition id = Id();
  ASSERT_TRUE(logs_->DeleteTopic("t").ok());
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(StoredSegments(), 0);
  EXPECT_TRUE(rlmm_->ListRemoteLogSegments(id).empty());
}

TEST_F(RemoteLogManagerTest, TurningRemoteStorageOffWithDeleteRemovesTheRemoteData) {
  CreateTopic();
  Produce(12);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  ASSERT_TRUE(logs_->RunTask("retention").ok());
  const int64_t local_start = log()->local_log_start_offset();
  ASSERT_GT(local_start, 0);
  ASSERT_TRUE(
      logs_
          ->AlterTopicConfig(
              "t", {{"remote.storage.enable", "false"}, {"remote.log.delete.on.disable", "true"}},
              {})
          .ok());
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(StoredSegments(), 0);
  EXPECT_TRUE(Remote().empty());
  EXPECT_EQ(log()->log_start_offset(), local_start);
}

TEST_F(RemoteLogManagerTest, BadRemoteObjectsFailTheReadNamingTheSegmentAndOffset) {
  CreateTopic();
  Produce(12);
  const auto before = LocalBatches();
  ASSERT_TRUE(rlm_->RunOnce().ok());
  ASSERT_TRUE(logs_->RunTask("retention").ok());
  const auto remote = Remote();
  ASSERT_GE(remote.size(), 2u);
  // A flipped bit in the first segment's .log.
  ASSERT_TRUE(rsm_->CorruptObject(remote[0], RemoteObjectKind::kLog, 100).ok());
  auto bad = rlm_->Read({"t", 0}, 0, 1 << 20, true, log()->log_end_offset());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().ToString(), HasSubstr(remote[0].segment_id.id.ToString()));
  EXPECT_THAT(bad.status().ToString(), HasSubstr("offset 0"));
  // The second segment's .log is missing.
  ASSERT_TRUE(rsm_->DeleteObject(remote[1], RemoteObjectKind::kLog).ok());
  auto missing =
      rlm_->Read({"t", 0}, remote[1].start_offset, 1 << 20, true, log()->log_end_offset());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().ToString(), HasSubstr(remote[1].segment_id.id.ToString()));
  EXPECT_GE(rlm_->stats().remote_read_failures, 2);
  // The local data is untouched.
  const int64_t local_start = log()->local_log_start_offset();
  auto local = ReadThrough(local_start);
  for (const auto& [offset, bytes] : local) EXPECT_EQ(before.at(offset), bytes);
  EXPECT_FALSE(local.empty());
}

TEST_F(RemoteLogManagerTest, OversizedCustomMetadataDeletesTheCopy) {
  RemoteLogManagerOptions options;
  options.custom_metadata_max_bytes = 4;
  Restart(options);
  CreateTopic();
  Produce(8);
  Status s = rlm_->RunOnce();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.ToString(), HasSubstr("exceeds configured limit 4"));
  EXPECT_EQ(StoredSegments(), 0);
  EXPECT_TRUE(Remote().empty());
  // The partition's copies stop (as Kafka cancels its copy task): no upload at the next pass.
  const int64_t copies = rsm_->counts().copies;
  EXPECT_EQ(copies, 1);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(rsm_->counts().copies, copies);
  // After a restart with a large enough limit, they go.
  Restart();
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(static_cast<int>(Remote().size()), log()->num_segments() - 1);
}

TEST_F(RemoteLogManagerTest, CopyLagHoldsSegmentsBack) {
  CreateTopic({{"local.retention.ms", "-2"},
               {"retention.ms", "3600000"},
               {"remote.copy.lag.ms", "600000"}});
  Produce(10, kNow - 7'000'000 + 6'400'000);  // about 600 s old at most: not old enough
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_TRUE(Remote().empty());
  scheduler_->Advance(700000);
  ASSERT_TRUE(rlm_->RunOnce().ok());
  EXPECT_EQ(static_cast<int>(Remote().size()), log()->num_segments() - 1);
}

}  // namespace
}  // namespace seglog
