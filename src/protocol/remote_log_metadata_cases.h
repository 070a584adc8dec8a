// Test support: the fixed __remote_log_metadata values that interop/kafka/src/
// RemoteLogMetadataGolden.java builds with Kafka's own classes, by the same names and with the
// same ids, offsets and times. remote_log_metadata_serde_test.cc holds the bytes Kafka's
// RemoteLogMetadataSerde wrote for them; interop/remote_log_metadata_dump.cc prints seglog's
// encoding of them for Kafka to judge.
//
// Thread safety: pure functions.
#ifndef SEGLOG_PROTOCOL_REMOTE_LOG_METADATA_CASES_H_
#define SEGLOG_PROTOCOL_REMOTE_LOG_METADATA_CASES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/coding.h"
#include "base/uuid.h"
#include "protocol/remote_log_metadata_serde.h"

namespace seglog::protocol::testing {

// Java's new Uuid(msb, lsb).
inline Uuid JavaUuid(uint64_t msb, uint64_t lsb) {
  Uuid u;
  StoreBE64(u.bytes.data(), msb);
  StoreBE64(u.bytes.data() + 8, lsb);
  return u;
}

inline Uuid CaseTopic1() { return JavaUuid(0x0123456789abcdefULL, 0xfedcba9876543210ULL); }
inline Uuid CaseTopic2() { return JavaUuid(0xdeadbeefcafebabeULL, 0x0000000000000001ULL); }
inline Uuid CaseTopic3() { return JavaUuid(0x6b1f3a5c9d2e4f70ULL, 0x1a2b3c4d5e6f7081ULL); }
inline Uuid CaseSegment1() { return JavaUuid(0x1111222233334444ULL, 0x5555666677778888ULL); }
inline Uuid CaseSegment2() { return JavaUuid(0x7fffffff00000001ULL, 0x8000000000000002ULL); }

// The generated TopicIdPartitionEntry of any of the four records.
template <typename Entry>
Entry CaseTopicIdPartition(const std::string& name, const Uuid& id, int32_t partition) {
  Entry e;
  e.name = name;
  e.id = id;
  e.partition = partition;
  return e;
}

template <typename Record>
typename Record::RemoteLogSegmentIdEntry CaseSegmentId(const Uuid& segment) {
  typename Record::RemoteLogSegmentIdEntry id;
  id.topic_id_partition =
      CaseTopicIdPartition<typename Record::TopicIdPartitionEntry>("orders", CaseTopic1(), 3);
  id.id = segment;
  return id;
}

template <typename Record>
std::vector<typename Record::SegmentLeaderEpochEntry> CaseEpochs(
    std::vector<std::pair<int32_t, int64_t>> epochs) {
  std::vector<typename Record::SegmentLeaderEpochEntry> out;
  for (const auto& [epoch, offset] : epochs) {
    typename Record::SegmentLeaderEpochEntry e;
    e.leader_epoch = epoch;
    e.offset = offset;
    out.push_back(e);
  }
  return out;
}

struct RemoteLogMetadataCase {
  std::string name;
  RemoteLogMetadataRecord record;
};

// In RemoteLogMetadataGolden.cases() order.
inline std::vector<RemoteLogMetadataCase> AllRemoteLogMetadataCases() {
  using Segment = RemoteLogSegmentMetadataRecord;
  using Update = RemoteLogSegmentMetadataUpdateRecord;
  using Delete = RemotePartitionDeleteMetadataRecord;
  using Snapshot = RemoteLogSegmentMetadataSnapshotRecord;
  const auto state = [](RemoteLogSegmentState s) { return static_cast<int8_t>(s); };
  std::vector<RemoteLogMetadataCase> cases;

  Segment started;
  started.remote_log_segment_id = CaseSegmentId<Segment>(CaseSegment1());
  started.start_offset = 100;
  started.end_offset = 199;
  started.broker_id = 1;
  started.max_timestamp_ms = 1700000000123;
  started.event_timestamp_ms = 1700000000456;
  started.segment_leader_epochs = CaseEpochs<Segment>({{0, 100}, {2, 150}});
  started.segment_size_in_bytes = 4096;
  started.remote_log_segment_state = state(RemoteLogSegmentState::kCopySegmentStarted);
  cases.push_back({"segment_started", started});

  Segment finished;
  finished.remote_log_segment_id = CaseSegmentId<Segment>(CaseSegment2());
  finished.start_offset = 0;
  finished.end_offset = 99;
  finished.broker_id = 2;
  finished.max_timestamp_ms = 1700000001000;
  finished.event_timestamp_ms = 1700000002000;
  finished.segment_leader_epochs = CaseEpochs<Segment>({{5, 0}});
  finished.segment_size_in_bytes = 1048576;
  finished.custom_metadata = std::vector<uint8_t>{1, 2, 3};
  finished.remote_log_segment_state = state(RemoteLogSegmentState::kCopySegmentFinished);
  finished.txn_index_empty = true;
  cases.push_back({"segment_finished_txn_empty", finished});

  const auto update = [&](const Uuid& segment, int64_t event_ms,
                          std::optional<std::vector<uint8_t>> custom, RemoteLogSegmentState s,
                          int32_t broker) {
    Update u;
    u.remote_log_segment_id = CaseSegmentId<Update>(segment);
    u.broker_id = broker;
    u.event_timestamp_ms = event_ms;
    u.custom_metadata = std::move(custom);
    u.remote_log_segment_state = state(s);
    return u;
  };
  cases.push_back({"update_copy_finished", update(CaseSegment1(), 1700000003000, std::nullopt,
                                                  RemoteLogSegmentState::kCopySegmentFinished, 1)});
  cases.push_back({"update_delete_started",
                   update(CaseSegment2(), 1700000004000, std::vector<uint8_t>{9, 8, 7, 6},
                          RemoteLogSegmentState::kDeleteSegmentStarted, 2)});
  cases.push_back(
      {"update_delete_finished", update(CaseSegment2(), 1700000005000, std::nullopt,
                                        RemoteLogSegmentState::kDeleteSegmentFinished, 2)});

  const auto partition_delete = [](Delete::TopicIdPartitionEntry tip, RemotePartitionDeleteState s,
                                   int64_t event_ms, int32_t broker) {
    Delete d;
    d.topic_id_partition = std::move(tip);
    d.broker_id = broker;
    d.event_timestamp_ms = event_ms;
    d.remote_partition_delete_state = static_cast<int8_t>(s);
    return d;
  };
  cases.push_back(
      {"partition_delete_marked",
       partition_delete(
           CaseTopicIdPartition<Delete::TopicIdPartitionEntry>("orders", CaseTopic1(), 3),
           RemotePartitionDeleteState::kDeletePartitionMarked, 1700000006000, 0)});
  cases.push_back(
      {"partition_delete_finished",
       partition_delete(
           CaseTopicIdPartition<Delete::TopicIdPartitionEntry>("events.v2_x-y", CaseTopic2(), 0),
           RemotePartitionDeleteState::kDeletePartitionFinished, 1700000007000, 3)});

  Snapshot snapshot;
  snapshot.segment_id = CaseSegment1();
  snapshot.start_offset = 100;
  snapshot.end_offset = 199;
  snapshot.broker_id = 1;
  snapshot.max_timestamp_ms = 1700000000123;
  snapshot.event_timestamp_ms = 1700000008000;
  snapshot.segment_leader_epochs = CaseEpochs<Snapshot>({{0, 100}, {2, 150}});
  snapshot.segment_size_in_bytes = 4096;
  snapshot.remote_log_segment_state = state(RemoteLogSegmentState::kCopySegmentFinished);
  cases.push_back({"snapshot", snapshot});

  Snapshot custom;
  custom.segment_id = CaseSegment2();
  custom.start_offset = 0;
  custom.end_offset = 99;
  custom.broker_id = 2;
  custom.max_timestamp_ms = 1700000001000;
  custom.event_timestamp_ms = 1700000009000;
  custom.segment_leader_epochs = CaseEpochs<Snapshot>({{5, 0}, {6, 50}});
  custom.segment_size_in_bytes = 1048576;
  custom.custom_metadata = std::vector<uint8_t>{0x42};
  custom.remote_log_segment_state = state(RemoteLogSegmentState::kDeleteSegmentStarted);
  custom.txn_index_empty = true;
  cases.push_back({"snapshot_txn_empty_custom", custom});
  return cases;
}

// The topic ids, partitions and metadata partition counts whose metadata partition
// RemoteLogMetadataGolden prints ("partition" lines), in its order.
inline std::vector<Uuid> PartitionCaseTopics() {
  return {CaseTopic1(), CaseTopic2(), CaseTopic3()};
}
inline std::vector<int32_t> PartitionCasePartitions() { return {0, 1, 3, 17, 2147483647}; }
inline std::vector<int32_t> PartitionCaseCounts() { return {50, 1, 7, 3}; }

}  // namespace seglog::protocol::testing

#endif  // SEGLOG_PROTOCOL_REMOTE_LOG_METADATA_CASES_H_
