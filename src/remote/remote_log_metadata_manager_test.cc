// RemoteLogMetadataManager over a real LogManager: events surviving a restart, the refused
// transitions, the metadata partition of each event, garbage in the topic, the topic's
// creation, orphans, DELETE_SEGMENT_FINISHED, partitions kept apart, failed appends and
// fsyncs (FaultInjectionEnv), Kafka's epoch lookups, and readers not waiting on an fsync.
#include "remote/remote_log_metadata_manager.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <future>
#include <thread>

#include "base/scheduler.h"
#include "io/fault_injection_env.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using S = RemoteLogSegmentState;

constexpr int64_t kT0 = 1794024676000;
constexpr int32_t kPartitions = 5;
const std::string kTopic(protocol::kRemoteLogMetadataTopic);

TopicIdPartition Tp(const Uuid& id, const std::string& topic, int32_t partition) {
  return TopicIdPartition{id, TopicPartition{topic, partition}};
}

RemoteLogSegmentMetadata Segment(const TopicIdPartition& tp, int64_t start, int64_t end,
                                 std::map<int32_t, int64_t> epochs) {
  RemoteLogSegmentMetadata m;
  m.segment_id = RemoteLogSegmentId{tp, Uuid::Random()};
  m.start_offset = start;
  m.end_offset = end;
  m.max_timestamp_ms = kT0 + end;
  m.broker_id = 1;
  m.event_timestamp_ms = kT0;
  m.segment_leader_epochs = std::move(epochs);
  m.segment_size_in_bytes = static_cast<int32_t>((end - start + 1) * 100);
  m.state = S::kCopySegmentStarted;
  return m;
}

// Every field, for comparisons with a readable difference.
std::string Describe(const RemoteLogSegmentMetadata& m) {
  std::string epochs;
  for (const auto& [e, o] : m.segment_leader_epochs) epochs += fmt::format("{}:{} ", e, o);
  std::string custom = "null";
  if (m.custom_metadata) custom = std::to_string(m.custom_metadata->size()) + " bytes";
  return fmt::format(
      "{}/{}-{} id={} [{}-{}] max_ts={} broker={} ts={} epochs={}size={} "
      "custom={} state={} txn_empty={}",
      m.segment_id.partition.topic_id.ToString(), m.segment_id.partition.tp.topic,
      m.segment_id.partition.tp.partition, m.segment_id.id.ToString(), m.start_offset, m.end_offset,
      m.max_timestamp_ms, m.broker_id, m.event_timestamp_ms, epochs, m.segment_size_in_bytes,
      custom, RemoteLogSegmentStateName(m.state), m.txn_index_empty);
}
std::vector<std::string> DescribeAll(const std::vector<RemoteLogSegmentMetadata>& v) {
  std::vector<std::string> out;
  for (const auto& m : v) out.push_back(Describe(m));
  return out;
}

RemoteLogSegmentMetadata WithState(RemoteLogSegmentMetadata m, S state) {
  m.state = state;
  m.event_timestamp_ms += 1;
  return m;
}

class RemoteLogMetadataManagerTest : public ::testing::Test {
 protected:
  void TearDown() override { Close(); }

  void Open(Env* env = nullptr, RemoteLogMetadataManagerOptions options = {}) {
    OpenLogs(env);
    if (options.num_partitions == protocol::kDefaultRemoteLogMetadataTopicPartitions &&
        !default_partitions_) {
      options.num_partitions = kPartitions;
    }
    options.logger = [this](const std::string& l) { lines_.push_back(l); };
    auto m = RemoteLogMetadataManager::Open(logs_.get(), options);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    rlmm_ = std::move(m).value();
  }
  void OpenLogs(Env* env = nullptr) {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto logs = LogManager::Open(*config, scheduler_.get(), {}, env);
    ASSERT_TRUE(logs.ok()) << logs.status().ToString();
    logs_ = std::move(logs).value();
  }
  void Close() {
    rlmm_.reset();
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
  }
  void Reopen(Env* env = nullptr) {
    Close();
    lines_.clear();
    Open(env);
  }
  void Add(const RemoteLogSegmentMetadata& m) {
    Status s = rlmm_->AddRemoteLogSegmentMetadata(m);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void Update(const RemoteLogSegmentMetadata& m, S state) {
    Status s = rlmm_->UpdateRemoteLogSegmentMetadata(WithState(m, state));
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::shared_ptr<Log> MetadataLog(int32_t p) {
    auto log = logs_->GetLog({kTopic, p});
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? *log : nullptr;
  }
  // Appends a record with `value` (nullopt: a null value) straight to metadata partition `p`.
  void AppendRaw(int32_t p, std::optional<std::vector<uint8_t>> value) {
    RecordBatchBuilder b{BatchOptions{}};
    NullableBytes v;
    if (value) v = Bytes(*value);
    ASSERT_TRUE(b.Append(kT0, std::nullopt, v).ok());
    auto batch = b.Build();
    ASSERT_TRUE(batch.ok());
    auto info = MetadataLog(p)->AppendAsLeader(*batch);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
  }
  // The decoded records of metadata partition `p`.
  std::vector<protocol::RemoteLogMetadataRecord> Records(int32_t p) {
    std::vector<protocol::RemoteLogMetadataRecord> out;
    Status s = testing::ForEachBatch(MetadataLog(p).get(), [&](const RecordBatchView& v, Bytes) {
      RecordIterator it(v);
      while (it.Next()) {
        EXPECT_FALSE(it.record().key.has_value());
        auto r = protocol::DecodeRemoteLogMetadata(*it.record().value);
        EXPECT_TRUE(r.ok()) << r.status().ToString();
        if (r.ok()) out.push_back(*r);
      }
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  int64_t TotalRecords() {
    int64_t n = 0;
    for (int32_t p = 0; p < rlmm_->num_partitions(); ++p) n += MetadataLog(p)->log_end_offset();
    return n;
  }

  TempDir dir_;
  FaultInjectionEnv env_{Env::Default()};  // outlives the logs that use it
  bool default_partitions_ = false;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<RemoteLogMetadataManager> rlmm_;
  std::vector<std::string> lines_;
  const TopicIdPartition orders_ = Tp(Uuid::Random(), "orders", 3);
};

TEST_F(RemoteLogMetadataManagerTest, TopicIsCreatedByTheFirstWriteWithKafkasSettings) {
  default_partitions_ = true;
  Open();
  EXPECT_FALSE(logs_->FindTopic(kTopic).ok());  // nothing tiered, no topic
  EXPECT_EQ(rlmm_->num_partitions(), 50);
  Add(Segment(orders_, 0, 99, {{0, 0}}));
  auto md = logs_->FindTopic(kTopic);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->partitions, 50);
  EXPECT_EQ(md->configs.at("cleanup.policy"), "delete");
  EXPECT_EQ(md->configs.at("retention.ms"), "-1");
  EXPECT_EQ(md->configs.at("remote.storage.enable"), "false");
  EXPECT_EQ(MetadataLog(49)->config().retention_ms, -1);
}

TEST_F(RemoteLogMetadataManagerTest, AnExistingTopicWithAnotherPartitionCountIsRefused) {
  Open();
  Add(Segment(orders_, 0, 99, {{0, 0}}));
  Close();
  OpenLogs();
  RemoteLogMetadataManagerOptions options;
  options.num_partitions = kPartitions + 1;
  auto m = RemoteLogMetadataManager::Open(logs_.get(), options);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(m.status().message(), HasSubstr("Existing topic partition count [5] is not same"));
  options.num_partitions = 0;
  EXPECT_TRUE(RemoteLogMetadataManager::Open(logs_.get(), options).status().IsInvalidArgument());
}

TEST_F(RemoteLogMetadataManagerTest, EventsRoundTripThroughARestart) {
  Open();
  const TopicIdPartition other = Tp(Uuid::Random(), "payments", 0);
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  RemoteLogSegmentMetadata b = Segment(orders_, 100, 199, {{0, 100}, {2, 150}});
  b.custom_metadata = std::vector<uint8_t>{1, 2, 3};
  b.txn_index_empty = false;
  RemoteLogSegmentMetadata c = Segment(orders_, 200, 299, {{2, 200}});
  RemoteLogSegmentMetadata d = Segment(other, 0, 9, {{5, 0}});
  Add(a);
  Add(b);
  Add(c);
  Add(d);
  Update(a, S::kCopySegmentFinished);
  Update(b, S::kCopySegmentFinished);
  Update(a, S::kDeleteSegmentStarted);
  ASSERT_TRUE(rlmm_
                  ->PutRemotePartitionDeleteMetadata(
                      other, RemotePartitionDeleteState::kDeletePartitionMarked, kT0 + 5, 1)
                  .ok());

  const auto segments = DescribeAll(rlmm_->ListRemoteLogSegments(orders_));
  ASSERT_EQ(segments.size(), 3u);
  const auto finished = rlmm_->RemoteLogSegmentMetadataFor(orders_, 2, 160);
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(finished->segment_id, b.segment_id);
  EXPECT_EQ(finished->custom_metadata, b.custom_metadata);

  Reopen();
  EXPECT_EQ(rlmm_->skipped_records(), 0);
  EXPECT_EQ(DescribeAll(rlmm_->ListRemoteLogSegments(orders_)), segments);
  EXPECT_EQ(DescribeAll(rlmm_->ListRemoteLogSegments(other)), DescribeAll({d}));
  const auto again = rlmm_->RemoteLogSegmentMetadataFor(orders_, 2, 160);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(Describe(*again), Describe(*finished));
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 0), 149);
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 2), 199);
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 1), std::nullopt);
  const auto deletes = rlmm_->PartitionsWithDeleteState();
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0],
            (RemotePartitionDeleteMetadata{
                other, RemotePartitionDeleteState::kDeletePartitionMarked, kT0 + 5, 1}));
  EXPECT_EQ(rlmm_->Partitions().size(), 2u);
}

TEST_F(RemoteLogMetadataManagerTest, InvalidEventsAreRefusedAndNothingIsWritten) {
  Open();
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  // An add must be COPY_SEGMENT_STARTED, with leader epochs.
  EXPECT_TRUE(rlmm_->AddRemoteLogSegmentMetadata(WithState(a, S::kCopySegmentFinished))
                  .IsInvalidArgument());
  RemoteLogSegmentMetadata no_epochs = a;
  no_epochs.segment_leader_epochs.clear();
  EXPECT_TRUE(rlmm_->AddRemoteLogSegmentMetadata(no_epochs).IsInvalidArgument());
  // An update of an unknown segment.
  Status unknown = rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kCopySegmentFinished));
  EXPECT_TRUE(unknown.IsNotFound()) << unknown.ToString();
  EXPECT_THAT(unknown.message(), HasSubstr(a.segment_id.id.ToString()));
  EXPECT_FALSE(logs_->FindTopic(kTopic).ok());  // nothing was written

  Add(a);
  const int64_t written = TotalRecords();
  EXPECT_TRUE(rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kCopySegmentStarted))
                  .IsInvalidArgument());
  Status skip = rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kDeleteSegmentFinished));
  EXPECT_EQ(skip.code(), Status::Code::kFailedPrecondition) << skip.ToString();
  EXPECT_THAT(skip.message(), HasSubstr("COPY_SEGMENT_STARTED can not be transitioned to target "
                                        "state: DELETE_SEGMENT_FINISHED"));
  Update(a, S::kCopySegmentFinished);
  Update(a, S::kCopySegmentFinished);  // a retry: a valid self transition
  EXPECT_EQ(rlmm_->AddRemoteLogSegmentMetadata(a).code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kDeleteSegmentFinished)).code(),
            Status::Code::kFailedPrecondition);
  EXPECT_EQ(TotalRecords(), written + 2);
  ASSERT_EQ(rlmm_->ListRemoteLogSegments(orders_).size(), 1u);
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_)[0].state, S::kCopySegmentFinished);
}

TEST_F(RemoteLogMetadataManagerTest, EachEventGoesToThePartitionOfRemoteLogMetadataPartitionFor) {
  Open();
  std::vector<TopicIdPartition> partitions;
  for (int i = 0; i < 12; ++i) partitions.push_back(Tp(Uuid::Random(), "t", i));
  std::map<int32_t, int> expected;
  for (const auto& tp : partitions) {
    RemoteLogSegmentMetadata m = Segment(tp, 0, 9, {{0, 0}});
    Add(m);
    Update(m, S::kCopySegmentFinished);
    const int32_t p =
        protocol::RemoteLogMetadataPartitionFor(tp.topic_id, tp.tp.partition, kPartitions);
    EXPECT_EQ(rlmm_->MetadataPartitionFor(tp), p);
    expected[p] += 2;
  }
  ASSERT_TRUE(rlmm_
                  ->PutRemotePartitionDeleteMetadata(
                      partitions[0], RemotePartitionDeleteState::kDeletePartitionMarked)
                  .ok());
  expected[rlmm_->MetadataPartitionFor(partitions[0])] += 1;
  for (int32_t p = 0; p < kPartitions; ++p) {
    const auto records = Records(p);
    EXPECT_EQ(static_cast<int>(records.size()), expected[p]) << "partition " << p;
    for (const auto& r : records) {
      const protocol::RemoteLogMetadataRecord* rec = &r;
      Uuid id;
      int32_t partition = -1;
      if (const auto* add = std::get_if<protocol::RemoteLogSegmentMetadataRecord>(rec)) {
        id = add->remote_log_segment_id.topic_id_partition.id;
        partition = add->remote_log_segment_id.topic_id_partition.partition;
        EXPECT_EQ(add->remote_log_segment_state, 0);
      } else if (const auto* u = std::get_if<protocol::RemoteLogSegmentMetadataUpdateRecord>(rec)) {
        id = u->remote_log_segment_id.topic_id_partition.id;
        partition = u->remote_log_segment_id.topic_id_partition.partition;
        EXPECT_EQ(u->remote_log_segment_state, 1);
      } else {
        const auto& d = std::get<protocol::RemotePartitionDeleteMetadataRecord>(r);
        id = d.topic_id_partition.id;
        partition = d.topic_id_partition.partition;
      }
      EXPECT_EQ(protocol::RemoteLogMetadataPartitionFor(id, partition, kPartitions), p);
    }
  }
}

TEST_F(RemoteLogMetadataManagerTest, GarbageRecordsAreSkippedAndCounted) {
  Open();
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  Add(a);
  const int32_t p = rlmm_->MetadataPartitionFor(orders_);
  AppendRaw(p, std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef});  // does not decode
  AppendRaw(p, std::nullopt);                                  // a null value
  // An update of a segment never added.
  protocol::RemoteLogSegmentMetadataUpdateRecord unknown;
  unknown.remote_log_segment_id.topic_id_partition.name = "orders";
  unknown.remote_log_segment_id.topic_id_partition.id = orders_.topic_id;
  unknown.remote_log_segment_id.topic_id_partition.partition = 3;
  unknown.remote_log_segment_id.id = Uuid::Random();
  unknown.remote_log_segment_state = 1;
  AppendRaw(p, *protocol::EncodeRemoteLogMetadata(unknown));
  // A snapshot record (apiKey 3): not a topic record.
  protocol::RemoteLogSegmentMetadataSnapshotRecord snapshot;
  snapshot.segment_id = Uuid::Random();
  AppendRaw(p, *protocol::EncodeRemoteLogMetadata(snapshot));
  // An invalid transition (COPY_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED).
  protocol::RemoteLogSegmentMetadataUpdateRecord skip = unknown;
  skip.remote_log_segment_id.id = a.segment_id.id;
  skip.remote_log_segment_state = 3;
  AppendRaw(p, *protocol::EncodeRemoteLogMetadata(skip));
  // Valid events after the garbage still apply.
  Update(a, S::kCopySegmentFinished);

  Reopen();
  EXPECT_EQ(rlmm_->skipped_records(), 5);
  EXPECT_EQ(rlmm_->load_stats().records, 7);
  EXPECT_EQ(rlmm_->load_stats().undecodable, 2);
  EXPECT_EQ(rlmm_->load_stats().unknown_segment_updates, 1);
  EXPECT_EQ(rlmm_->load_stats().invalid_events, 2);
  const auto segments = rlmm_->ListRemoteLogSegments(orders_);
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_EQ(segments[0].state, S::kCopySegmentFinished);
  int warnings = 0;
  for (const auto& l : lines_) warnings += l.find("WARN") != std::string::npos;
  EXPECT_EQ(warnings, 5);
}

TEST_F(RemoteLogMetadataManagerTest, OrphansAreTheSegmentsLeftUnfinishedByTheLastRun) {
  Open();
  RemoteLogSegmentMetadata copying = Segment(orders_, 0, 99, {{0, 0}});
  RemoteLogSegmentMetadata copied = Segment(orders_, 100, 199, {{0, 100}});
  RemoteLogSegmentMetadata deleting = Segment(orders_, 200, 299, {{0, 200}});
  Add(copying);
  Add(copied);
  Add(deleting);
  Update(copied, S::kCopySegmentFinished);
  Update(deleting, S::kCopySegmentFinished);
  Update(deleting, S::kDeleteSegmentStarted);
  EXPECT_TRUE(rlmm_->OrphanedSegments().empty());  // this run's own work in progress

  Reopen();  // a crash, as far as the metadata knows
  auto orphans = rlmm_->OrphanedSegments(orders_);
  ASSERT_EQ(orphans.size(), 2u);
  EXPECT_EQ(orphans[0].segment_id, copying.segment_id);
  EXPECT_EQ(orphans[0].state, S::kCopySegmentStarted);
  EXPECT_EQ(orphans[1].segment_id, deleting.segment_id);
  EXPECT_EQ(orphans[1].state, S::kDeleteSegmentStarted);
  EXPECT_EQ(DescribeAll(rlmm_->OrphanedSegments()), DescribeAll(orphans));
  // A copy this run starts is no orphan.
  Add(Segment(orders_, 300, 399, {{0, 300}}));
  EXPECT_EQ(rlmm_->OrphanedSegments().size(), 2u);
  // The remote log manager deletes them: still listed while DELETE_SEGMENT_STARTED.
  Update(copying, S::kDeleteSegmentStarted);
  EXPECT_EQ(rlmm_->OrphanedSegments().size(), 2u);
  Update(copying, S::kDeleteSegmentFinished);
  Update(deleting, S::kDeleteSegmentFinished);
  EXPECT_TRUE(rlmm_->OrphanedSegments().empty());
  Reopen();
  ASSERT_EQ(rlmm_->OrphanedSegments().size(), 1u);  // the copy started before this restart
  EXPECT_EQ(rlmm_->OrphanedSegments()[0].start_offset, 300);
}

TEST_F(RemoteLogMetadataManagerTest, DeleteSegmentFinishedRemovesTheSegment) {
  Open();
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  RemoteLogSegmentMetadata b = Segment(orders_, 100, 199, {{0, 100}});
  Add(a);
  Add(b);
  Update(a, S::kCopySegmentFinished);
  Update(b, S::kCopySegmentFinished);
  ASSERT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 50).has_value());
  Update(a, S::kDeleteSegmentStarted);
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 50).has_value());  // not readable
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_).size(), 2u);                   // still listed
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_, 0).size(), 2u);
  Update(a, S::kDeleteSegmentFinished);
  EXPECT_EQ(DescribeAll(rlmm_->ListRemoteLogSegments(orders_)),
            DescribeAll({WithState(b, S::kCopySegmentFinished)}));
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_, 0).size(), 1u);
  // Gone: an update is refused.
  EXPECT_TRUE(
      rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kDeleteSegmentFinished)).IsNotFound());
  Reopen();
  EXPECT_EQ(DescribeAll(rlmm_->ListRemoteLogSegments(orders_)),
            DescribeAll({WithState(b, S::kCopySegmentFinished)}));
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 0), 199);
  EXPECT_EQ(rlmm_->skipped_records(), 0);
}

TEST_F(RemoteLogMetadataManagerTest, DeletePartitionFinishedForgetsThePartition) {
  Open();
  Add(Segment(orders_, 0, 99, {{0, 0}}));
  ASSERT_TRUE(rlmm_
                  ->PutRemotePartitionDeleteMetadata(
                      orders_, RemotePartitionDeleteState::kDeletePartitionStarted)
                  .ok());
  ASSERT_TRUE(rlmm_->PartitionDeleteMetadata(orders_).has_value());
  EXPECT_EQ(rlmm_->PartitionDeleteMetadata(orders_)->state,
            RemotePartitionDeleteState::kDeletePartitionStarted);
  ASSERT_TRUE(rlmm_
                  ->PutRemotePartitionDeleteMetadata(
                      orders_, RemotePartitionDeleteState::kDeletePartitionFinished)
                  .ok());
  EXPECT_TRUE(rlmm_->Partitions().empty());
  EXPECT_TRUE(rlmm_->PartitionsWithDeleteState().empty());
  Reopen();
  EXPECT_TRUE(rlmm_->Partitions().empty());
  EXPECT_TRUE(rlmm_->ListRemoteLogSegments(orders_).empty());
}

TEST_F(RemoteLogMetadataManagerTest, TopicIdPartitionsAreKeptApart) {
  Open();
  // The same name under another topic id (a re-created topic), and another partition.
  const TopicIdPartition recreated = Tp(Uuid::Random(), "orders", 3);
  const TopicIdPartition sibling = Tp(orders_.topic_id, "orders", 4);
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  RemoteLogSegmentMetadata b = Segment(recreated, 0, 49, {{0, 0}});
  RemoteLogSegmentMetadata c = Segment(sibling, 0, 9, {{0, 0}});
  for (const auto* m : {&a, &b, &c}) {
    Add(*m);
    Update(*m, S::kCopySegmentFinished);
  }
  Reopen();
  EXPECT_EQ(rlmm_->Partitions().size(), 3u);
  for (const auto* m : {&a, &b, &c}) {
    const auto list = rlmm_->ListRemoteLogSegments(m->segment_id.partition);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0].segment_id, m->segment_id);
    const auto found = rlmm_->RemoteLogSegmentMetadataFor(m->segment_id.partition, 0, 5);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->segment_id, m->segment_id);
    EXPECT_EQ(rlmm_->HighestOffsetForEpoch(m->segment_id.partition, 0), m->end_offset);
  }
  // An update names its partition: b's id under orders_ is unknown.
  RemoteLogSegmentMetadata wrong = WithState(b, S::kDeleteSegmentStarted);
  wrong.segment_id.partition = orders_;
  EXPECT_TRUE(rlmm_->UpdateRemoteLogSegmentMetadata(wrong).IsNotFound());
}

TEST_F(RemoteLogMetadataManagerTest, LookupsFollowKafkasLeaderEpochRules) {
  Open();
  RemoteLogSegmentMetadata s = Segment(orders_, 100, 199, {{0, 100}, {2, 150}});
  Add(s);
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 120).has_value());  // not copied
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 0), std::nullopt);
  Update(s, S::kCopySegmentFinished);
  EXPECT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 100).has_value());
  EXPECT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 149).has_value());
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 150).has_value());  // epoch 2's
  EXPECT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 2, 150).has_value());
  EXPECT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 2, 199).has_value());
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 2, 200).has_value());
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 2, 149).has_value());
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 1, 120).has_value());
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 0), 149);
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(orders_, 2), 199);

  // A new leader copies again, in a larger segment, offsets an earlier copy holds (Kafka's
  // duplicate segment case): reads go to the new copy, the old one stays listed for deletion.
  const TopicIdPartition tp = Tp(Uuid::Random(), "dup", 0);
  RemoteLogSegmentMetadata s0 = Segment(tp, 0, 100, {{0, 0}});
  RemoteLogSegmentMetadata s1 = Segment(tp, 0, 200, {{0, 0}});
  Add(s0);
  Update(s0, S::kCopySegmentFinished);
  Add(s1);
  Update(s1, S::kCopySegmentFinished);
  for (int64_t offset : {0, 50, 150}) {
    auto found = rlmm_->RemoteLogSegmentMetadataFor(tp, 0, offset);
    ASSERT_TRUE(found.has_value()) << offset;
    EXPECT_EQ(found->segment_id, s1.segment_id) << offset;
  }
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(tp, 0).size(), 2u);
  EXPECT_EQ(rlmm_->HighestOffsetForEpoch(tp, 0), 200);
}

TEST_F(RemoteLogMetadataManagerTest, AFailedAppendOrFsyncReturnsItsErrorAndChangesNothing) {
  Open(&env_);
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  Add(a);  // the topic exists now
  const std::string partition_dir =
      fmt::format("{}-{}/", kTopic, rlmm_->MetadataPartitionFor(orders_));

  env_.Fail(EnvOp::kWrite, partition_dir, ENOSPC);
  Status s = rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kCopySegmentFinished));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("writing the event of"));
  RemoteLogSegmentMetadata b = Segment(orders_, 100, 199, {{0, 100}});
  EXPECT_TRUE(rlmm_->AddRemoteLogSegmentMetadata(b).IsIOError());
  ASSERT_EQ(rlmm_->ListRemoteLogSegments(orders_).size(), 1u);
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_)[0].state, S::kCopySegmentStarted);
  env_.ClearFailures();
  Update(a, S::kCopySegmentFinished);  // the retry

  // A failed fsync: not acknowledged, not applied (and the log goes offline).
  env_.Fail(EnvOp::kSync, partition_dir, EIO);
  s = rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kDeleteSegmentStarted));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_)[0].state, S::kCopySegmentFinished);
  EXPECT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 50).has_value());
  env_.ClearFailures();
  rlmm_.reset();
  (void)logs_->Shutdown();
  logs_.reset();

  Open();
  // What was acknowledged is there; the unacknowledged delete may or may not be.
  const auto segments = rlmm_->ListRemoteLogSegments(orders_);
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_NE(segments[0].state, S::kCopySegmentStarted);
}

TEST_F(RemoteLogMetadataManagerTest, ReadersDoNotWaitForAWritersFsync) {
  Open(&env_);
  RemoteLogSegmentMetadata a = Segment(orders_, 0, 99, {{0, 0}});
  Add(a);
  const int block = env_.Block(EnvOp::kSync, fmt::format("{}-", kTopic));
  auto writer = std::async(std::launch::async, [&] {
    return rlmm_->UpdateRemoteLogSegmentMetadata(WithState(a, S::kCopySegmentFinished));
  });
  env_.WaitUntilBlocked(block);
  // The writer is inside its fsync: readers answer with the state before its event.
  EXPECT_EQ(rlmm_->ListRemoteLogSegments(orders_)[0].state, S::kCopySegmentStarted);
  EXPECT_FALSE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 50).has_value());
  EXPECT_EQ(rlmm_->Partitions().size(), 1u);
  env_.Release(block);
  Status s = writer.get();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(rlmm_->RemoteLogSegmentMetadataFor(orders_, 0, 50).has_value());
}

TEST_F(RemoteLogMetadataManagerTest, ConcurrentWritersAndReaders) {
  Open();
  constexpr int kWriters = 4;
  constexpr int kSegments = 10;
  std::vector<TopicIdPartition> tps;
  for (int w = 0; w < kWriters; ++w) tps.push_back(Tp(Uuid::Random(), "c", w));
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      for (const auto& tp : tps) {
        for (const auto& m : rlmm_->ListRemoteLogSegments(tp)) {
          EXPECT_EQ(m.segment_id.partition, tp);
        }
        (void)rlmm_->RemoteLogSegmentMetadataFor(tp, 0, 5);
      }
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kSegments; ++i) {
        RemoteLogSegmentMetadata m = Segment(tps[w], i * 10, i * 10 + 9, {{0, i * 10}});
        EXPECT_TRUE(rlmm_->AddRemoteLogSegmentMetadata(m).ok());
        EXPECT_TRUE(
            rlmm_->UpdateRemoteLogSegmentMetadata(WithState(m, S::kCopySegmentFinished)).ok());
      }
    });
  }
  for (auto& t : writers) t.join();
  done.store(true);
  reader.join();
  Reopen();
  for (const auto& tp : tps) {
    EXPECT_EQ(rlmm_->ListRemoteLogSegments(tp).size(), static_cast<size_t>(kSegments));
    EXPECT_EQ(rlmm_->HighestOffsetForEpoch(tp, 0), kSegments * 10 - 1);
  }
}

}  // namespace
}  // namespace seglog
