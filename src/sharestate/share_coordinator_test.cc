// ShareCoordinator over a real LogManager on the manual clock: initialize, read, write, delete
// and summaries with Kafka's errors, the snapshot every N updates, restarts that replay to the
// same state, the prune of redundant records, cold-partition snapshots, deleted topics, and a
// corrupt record at load.
#include "sharestate/share_coordinator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/java_string.h"
#include "base/scheduler.h"
#include "coordinator/coordinator_log.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
constexpr int64_t kT0 = 1794024676000;
constexpr int16_t kFencedStateEpoch = 124;
using B = PersisterStateBatch;

B Batch(int64_t first, int64_t last, int8_t state, int16_t count) {
  return {
      .first_offset = first, .last_offset = last, .delivery_state = state, .delivery_count = count};
}

ShareCoordinator::WriteData Write(int32_t state_epoch, int32_t leader_epoch, int64_t start_offset) {
  ShareCoordinator::WriteData w;
  w.state_epoch = state_epoch;
  w.leader_epoch = leader_epoch;
  w.start_offset = start_offset;
  return w;
}

class ShareCoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { Close(); }

  void Open() {
    std::map<std::string, std::string> props = props_;
    props["log.dirs"] = dir_.path();
    props.emplace("share.coordinator.state.topic.num.partitions", "3");
    props.emplace("share.coordinator.snapshot.update.records.per.snapshot", "3");
    config_ = TestConfig();
    std::vector<std::string> errors;
    LogManagerConfig::Parse(
        props,
        [this](const std::string& k, const std::string& v) { return config_.share.Set(k, v); },
        &config_, &errors);
    Status parsed = config_.Finish(errors);
    ASSERT_TRUE(parsed.ok()) << parsed.ToString();
    scheduler_ = std::make_unique<MockScheduler>(now_);
    auto m = LogManager::Open(config_, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    if (!logs_->FindTopic("data").ok()) {
      ASSERT_TRUE(logs_->CreateTopic("data", 2).ok());
    }
    auto id = Uuid::Parse(logs_->FindTopicIdentity("data")->topic_id);
    ASSERT_TRUE(id.ok());
    topic_id_ = *id;
    auto c = ShareCoordinator::Open(
        config_.share, logs_.get(), scheduler_.get(),
        [this](const Uuid& topic) -> std::optional<int32_t> {
          std::optional<std::string> name = logs_->TopicNameForId(topic.ToString());
          if (!name) return std::nullopt;
          auto identity = logs_->FindTopicIdentity(*name);
          if (!identity) return std::nullopt;
          return identity->partitions;
        },
        [this](const std::string& l) { lines_.push_back(l); });
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    share_ = std::move(c).value();
    share_->Start();
  }
  void Close() {
    if (share_) {
      share_->Shutdown();
    }
    share_.reset();
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
    if (scheduler_) now_ = scheduler_->NowMs();
  }
  void Reopen() {
    Close();
    Open();
  }

  SharePartitionKey Key(int32_t partition = 0, const std::string& group = "g") const {
    return {.group_id = group, .topic_id = topic_id_, .partition = partition};
  }

  // Every record of the key's partition of __share_group_state, from its log start: (type,
  // whether it has a value).
  std::vector<std::pair<LoadedShareStateRecord::Type, bool>> RecordsOf(const SharePartitionKey& k) {
    std::vector<std::pair<LoadedShareStateRecord::Type, bool>> out;
    auto log = logs_->GetLog({kShareGroupStateTopic, share_->PartitionFor(k)});
    EXPECT_TRUE(log.ok());
    if (!log.ok()) return out;
    ReplayHandler h;
    h.record = [&](const RecordBatchView&, const Record& r) {
      std::optional<std::span<const uint8_t>> value;
      if (r.value) value = *r.value;
      auto rec = DecodeShareStateRecord(*r.key, value);
      ASSERT_TRUE(rec.ok());
      if (rec->key == k) out.emplace_back(rec->type, rec->value.has_value());
    };
    EXPECT_TRUE(ReplayCoordinatorLog(**log, "t", ReplayPolicy::kStrict, h).ok());
    return out;
  }

  testing::TempDir dir_;
  int64_t now_ = kT0;
  std::map<std::string, std::string> props_;
  struct TestConfig : LogManagerConfig {
    ShareCoordinatorConfig share;
  };
  TestConfig config_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<ShareCoordinator> share_;
  Uuid topic_id_;
  std::vector<std::string> lines_;
};

using Type = LoadedShareStateRecord::Type;

TEST_F(ShareCoordinatorTest, KeysLiveInTheirJavaHashPartition) {
  const SharePartitionKey k = Key(1, "group-a");
  EXPECT_EQ(k.CoordinatorKey(), "group-a:" + topic_id_.ToString() + ":1");
  EXPECT_EQ(share_->PartitionFor(k), CoordinatorPartitionFor(k.CoordinatorKey(), 3));
}

TEST_F(ShareCoordinatorTest, InitializeThenReadThenWrite) {
  ASSERT_EQ(share_->Initialize(Key(), 0, 10).error_code, 0);
  // The topic is Kafka's: delete policy, kept forever.
  auto topic = logs_->FindTopic(kShareGroupStateTopic);
  ASSERT_TRUE(topic.ok());
  EXPECT_EQ(topic->partitions, 3);
  EXPECT_EQ(topic->configs.at("cleanup.policy"), "delete");
  EXPECT_EQ(topic->configs.at("retention.ms"), "-1");

  ShareCoordinator::ReadOutcome r = share_->Read(Key(), 1);
  ASSERT_EQ(r.error_code, 0) << *r.error_message;
  EXPECT_EQ(r.state_epoch, 0);
  EXPECT_EQ(r.start_offset, 10);
  EXPECT_TRUE(r.state_batches.empty());

  ShareCoordinator::WriteData w{.state_epoch = 0,
                                .leader_epoch = 1,
                                .start_offset = 10,
                                .delivery_complete_count = 2,
                                .state_batches = {Batch(10, 11, kDeliveryStateAcknowledged, 1),
                                                  Batch(12, 14, kDeliveryStateAvailable, 1)}};
  ASSERT_EQ(share_->Write(Key(), w).error_code, 0);
  r = share_->Read(Key(), 1);
  ASSERT_EQ(r.error_code, 0);
  EXPECT_EQ(r.state_batches, w.state_batches);
  // Snapshot (initialize), update (the new leader's epoch), update (the write).
  EXPECT_EQ(RecordsOf(Key()),
            (std::vector<std::pair<Type, bool>>{
                {Type::kSnapshot, true}, {Type::kUpdate, true}, {Type::kUpdate, true}}));
  const auto summary = share_->ReadSummary(Key());
  EXPECT_EQ(summary.error_code, 0);
  EXPECT_EQ(summary.start_offset, 10);
  EXPECT_EQ(summary.delivery_complete_count, 2);
  EXPECT_EQ(summary.leader_epoch, 1);
  EXPECT_EQ(summary.state_epoch, 0);
}

TEST_F(ShareCoordinatorTest, UninitializedAndBadArgumentsChangeNothing) {
  ShareCoordinator::WriteData w = Write(0, 0, 0);
  auto o = share_->Write(Key(), w);
  EXPECT_EQ(o.error_code, ke::kInvalidRequest);
  EXPECT_EQ(*o.error_message, "Write operation on uninitialized share partition not allowed.");
  auto r = share_->Read(Key(), 0);
  EXPECT_EQ(r.error_code, ke::kInvalidRequest);
  EXPECT_EQ(*r.error_message, "Read operation on uninitialized share partition not allowed.");
  EXPECT_EQ(share_->Read(Key(), -1).error_code, ke::kInvalidRequest);
  EXPECT_EQ(share_->Initialize(Key(-1), 0, 0).error_code, ke::kInvalidRequest);
  EXPECT_EQ(*share_->Initialize(Key(), -1, 0).error_message,
            "The state epoch cannot be a negative number.");
  w.leader_epoch = -1;
  EXPECT_EQ(*share_->Write(Key(), w).error_message,
            "The leader epoch cannot be a negative number.");
  // A partition the topic does not have, a topic that does not exist.
  auto unknown = share_->Initialize(Key(2), 0, 0);
  EXPECT_EQ(unknown.error_code, ke::kUnknownTopicOrPartition);
  SharePartitionKey other = Key();
  other.topic_id = Uuid::FromHalves(9, 9);
  EXPECT_EQ(share_->Initialize(other, 0, 0).error_code, ke::kUnknownTopicOrPartition);
  EXPECT_FALSE(share_->StateOf(Key(2)).has_value());
  EXPECT_TRUE(RecordsOf(Key(2)).empty());
  // No state: a summary of -1s, a delete that writes nothing.
  const auto summary = share_->ReadSummary(Key());
  EXPECT_EQ(summary.error_code, 0);
  EXPECT_EQ(summary.start_offset, -1);
  EXPECT_EQ(summary.delivery_complete_count, -1);
  EXPECT_EQ(share_->Delete(Key()).error_code, 0);
  EXPECT_TRUE(RecordsOf(Key()).empty());
}

TEST_F(ShareCoordinatorTest, EpochsFenceOlderLeadersAndStates) {
  ASSERT_EQ(share_->Initialize(Key(), 2, 0).error_code, 0);
  ASSERT_EQ(share_->Read(Key(), 5).error_code, 0);  // leader epoch 5 recorded
  const auto before = share_->StateOf(Key());
  auto r = share_->Read(Key(), 4);
  EXPECT_EQ(r.error_code, ke::kFencedLeaderEpoch);
  ShareCoordinator::WriteData w = Write(2, 4, 3);
  EXPECT_EQ(share_->Write(Key(), w).error_code, ke::kFencedLeaderEpoch);
  w.leader_epoch = 5;
  w.state_epoch = 1;
  auto fenced = share_->Write(Key(), w);
  EXPECT_EQ(fenced.error_code, kFencedStateEpoch);
  EXPECT_EQ(*fenced.error_message,
            "The coordinator rejected the request because the state epoch did not match.");
  EXPECT_EQ(share_->Initialize(Key(), 1, 0).error_code, kFencedStateEpoch);
  EXPECT_EQ(share_->StateOf(Key()), before);
  // A new state epoch re-initializes: snapshot epoch +1, leader epoch 0, no batches.
  ASSERT_EQ(share_->Initialize(Key(), 3, 7).error_code, 0);
  const auto after = share_->StateOf(Key());
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->state_epoch, 3);
  EXPECT_EQ(after->snapshot_epoch, before->snapshot_epoch + 1);
  EXPECT_EQ(after->start_offset, 7);
  EXPECT_EQ(after->leader_epoch, 0);
  // ... yet the highest leader epoch seen still fences.
  EXPECT_EQ(share_->Read(Key(), 4).error_code, ke::kFencedLeaderEpoch);
}

TEST_F(ShareCoordinatorTest, StartOffsetNeverMovesBackAndPrunesBatches) {
  ASSERT_EQ(share_->Initialize(Key(), 0, 0).error_code, 0);
  ShareCoordinator::WriteData w{.state_epoch = 0,
                                .leader_epoch = 0,
                                .start_offset = 5,
                                .delivery_complete_count = 0,
                                .state_batches = {Batch(3, 9, kDeliveryStateAvailable, 1)}};
  ASSERT_EQ(share_->Write(Key(), w).error_code, 0);
  EXPECT_EQ(share_->StateOf(Key())->state_batches,
            (std::vector<B>{Batch(5, 9, kDeliveryStateAvailable, 1)}));
  w.start_offset = 2;
  w.state_batches = {Batch(6, 6, kDeliveryStateArchived, 2)};
  ASSERT_EQ(share_->Write(Key(), w).error_code, 0);
  const auto s = share_->StateOf(Key());
  EXPECT_EQ(s->start_offset, 5);
  EXPECT_EQ(s->state_batches, (std::vector<B>{Batch(5, 5, kDeliveryStateAvailable, 1),
                                              Batch(6, 6, kDeliveryStateArchived, 2),
                                              Batch(7, 9, kDeliveryStateAvailable, 1)}));
}

TEST_F(ShareCoordinatorTest, SnapshotAfterNUpdatesAndRestartReplaysTheSameState) {
  ASSERT_EQ(share_->Initialize(Key(1), 0, 0).error_code, 0);
  for (int i = 0; i < 5; ++i) {
    ShareCoordinator::WriteData w{
        .state_epoch = 0,
        .leader_epoch = 0,
        .start_offset = i,
        .delivery_complete_count = 1,
        .state_batches = {Batch(i, i + 2, kDeliveryStateAcknowledged, 1)}};
    ASSERT_EQ(share_->Write(Key(1), w).error_code, 0);
  }
  // Snapshot, three updates, then a snapshot (the 4th write), then an update.
  EXPECT_EQ(RecordsOf(Key(1)), (std::vector<std::pair<Type, bool>>{{Type::kSnapshot, true},
                                                                   {Type::kUpdate, true},
                                                                   {Type::kUpdate, true},
                                                                   {Type::kUpdate, true},
                                                                   {Type::kSnapshot, true},
                                                                   {Type::kUpdate, true}}));
  const auto before = share_->StateOf(Key(1));
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->snapshot_epoch, 1);
  EXPECT_EQ(before->start_offset, 4);
  EXPECT_EQ(before->state_batches, (std::vector<B>{Batch(4, 6, kDeliveryStateAcknowledged, 1)}));
  Reopen();
  EXPECT_EQ(share_->StateOf(Key(1)), before);
  // The counts and epochs came back too: the next write fences and snapshots as before.
  ShareCoordinator::WriteData w = Write(0, 0, 4);
  ASSERT_EQ(share_->Write(Key(1), w).error_code, 0);
  ASSERT_EQ(share_->Write(Key(1), w).error_code, 0);
  ASSERT_EQ(share_->Write(Key(1), w).error_code, 0);
  EXPECT_EQ(RecordsOf(Key(1)).back().first, Type::kSnapshot);
}

TEST_F(ShareCoordinatorTest, DeleteWritesATombstoneThatSurvivesARestart) {
  ASSERT_EQ(share_->Initialize(Key(), 0, 0).error_code, 0);
  ASSERT_EQ(share_->Delete(Key()).error_code, 0);
  EXPECT_FALSE(share_->StateOf(Key()).has_value());
  EXPECT_EQ(RecordsOf(Key()).back(), std::make_pair(Type::kSnapshot, false));
  Reopen();
  EXPECT_FALSE(share_->StateOf(Key()).has_value());
  EXPECT_EQ(share_->Read(Key(), 0).error_code, ke::kInvalidRequest);
  // Initialized again from scratch: the old epochs went with the tombstone.
  ASSERT_EQ(share_->Initialize(Key(), 0, 3).error_code, 0);
  EXPECT_EQ(share_->StateOf(Key())->snapshot_epoch, 0);
}

TEST_F(ShareCoordinatorTest, PruneDeletesOnlyRecordsBelowTheOldestLiveSnapshot) {
  props_["share.coordinator.cold.partition.snapshot.interval.ms"] = "1000000000";  // not here
  Reopen();
  // Two keys in one partition (find a second group that hashes with "g").
  const SharePartitionKey a = Key(0, "g");
  SharePartitionKey b = a;
  b.group_id = "g0";
  for (int i = 1; share_->PartitionFor(b) != share_->PartitionFor(a); ++i) {
    b.group_id = fmt::format("g{}", i);
  }
  ASSERT_EQ(share_->Initialize(a, 0, 0).error_code, 0);  // snapshot of a
  ASSERT_EQ(share_->Initialize(b, 0, 0).error_code, 0);  // snapshot of b
  ShareCoordinator::WriteData w = Write(0, 0, 0);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(share_->Write(a, w).error_code, 0);  // 3 updates + snapshot
  auto log = logs_->GetLog({kShareGroupStateTopic, share_->PartitionFor(a)});
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->log_end_offset(), 6);
  // b's snapshot (offset 1) is the oldest still needed.
  scheduler_->Advance(config_.share.state_topic_prune_interval_ms);
  EXPECT_EQ((*log)->log_start_offset(), 1);
  // Once b is re-snapshotted, everything below a's latest snapshot (offset 5) goes.
  ASSERT_EQ(share_->Initialize(b, 0, 0).error_code, 0);  // offset 6
  const auto a_before = share_->StateOf(a), b_before = share_->StateOf(b);
  share_->Prune();
  EXPECT_EQ((*log)->log_start_offset(), 5);
  Reopen();
  EXPECT_EQ(share_->StateOf(a), a_before);
  EXPECT_EQ(share_->StateOf(b), b_before);
}

TEST_F(ShareCoordinatorTest, ColdPartitionsAreSnapshottedOnce) {
  props_["share.coordinator.state.topic.prune.interval.ms"] = "1000000000";  // not here
  Reopen();
  ASSERT_EQ(share_->Initialize(Key(), 0, 0).error_code, 0);
  ShareCoordinator::WriteData w{.state_epoch = 0,
                                .leader_epoch = 0,
                                .start_offset = 0,
                                .delivery_complete_count = 0,
                                .state_batches = {Batch(0, 1, kDeliveryStateArchived, 5)}};
  ASSERT_EQ(share_->Write(Key(), w).error_code, 0);
  const auto before = share_->StateOf(Key());
  const size_t records = RecordsOf(Key()).size();
  scheduler_->Advance(config_.share.cold_partition_snapshot_interval_ms);
  auto after = share_->StateOf(Key());
  ASSERT_EQ(RecordsOf(Key()).size(), records + 1);
  EXPECT_EQ(RecordsOf(Key()).back().first, Type::kSnapshot);
  EXPECT_EQ(after->snapshot_epoch, before->snapshot_epoch + 1);
  EXPECT_EQ(after->state_batches, before->state_batches);
  EXPECT_EQ(after->create_timestamp, before->create_timestamp);
  EXPECT_EQ(after->write_timestamp, scheduler_->NowMs());
  // Everything is cold-snapshotted now: the next rounds write nothing (as Kafka's shard).
  scheduler_->Advance(2 * static_cast<int64_t>(config_.share.cold_partition_snapshot_interval_ms));
  EXPECT_EQ(RecordsOf(Key()).size(), records + 1);
}

TEST_F(ShareCoordinatorTest, DeletedTopicsLoseTheirState) {
  ASSERT_EQ(share_->Initialize(Key(0), 0, 0).error_code, 0);
  ASSERT_EQ(share_->Initialize(Key(1), 0, 0).error_code, 0);
  share_->DeleteStateOfTopics({topic_id_});
  EXPECT_FALSE(share_->StateOf(Key(0)).has_value());
  EXPECT_FALSE(share_->StateOf(Key(1)).has_value());
  EXPECT_EQ(RecordsOf(Key(1)).back(), std::make_pair(Type::kSnapshot, false));
}

TEST_F(ShareCoordinatorTest, ShutDownAnswersCoordinatorNotAvailable) {
  ASSERT_EQ(share_->Initialize(Key(), 0, 0).error_code, 0);
  share_->Shutdown();
  auto r = share_->Read(Key(), 0);
  EXPECT_EQ(r.error_code, ke::kCoordinatorNotAvailable);
  EXPECT_EQ(*r.error_message, "Share coordinator is not available.");
  EXPECT_EQ(share_->ReadSummary(Key()).error_code, ke::kCoordinatorNotAvailable);
}

TEST_F(ShareCoordinatorTest, ACorruptRecordIsSkippedAtLoad) {
  ASSERT_EQ(share_->Initialize(Key(0), 0, 0).error_code, 0);
  // A record with a key that does not decode, appended as the coordinator appends.
  auto log = logs_->GetLog({kShareGroupStateTopic, share_->PartitionFor(Key(0))});
  ASSERT_TRUE(log.ok());
  CoordinatorRecord bad{{0, 0, 0, 9}, std::vector<uint8_t>{0, 0}};
  ASSERT_TRUE(AppendCoordinatorRecords(**log, {&bad, 1}, {.now_ms = kT0}).ok());
  ShareCoordinator::WriteData w{.state_epoch = 0,
                                .leader_epoch = 0,
                                .start_offset = 1,
                                .delivery_complete_count = 0,
                                .state_batches = {}};
  ASSERT_EQ(share_->Write(Key(0), w).error_code, 0);
  const auto before = share_->StateOf(Key(0));
  Reopen();
  EXPECT_EQ(share_->StateOf(Key(0)), before);
  bool warned = false;
  for (const auto& l : lines_) warned |= l.find("Skipping the corrupt record") != std::string::npos;
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace seglog
