// The records of __share_group_state (docs/format/share_group_state.md), built and read with
// the generated ShareSnapshot/ShareUpdate structs of kafka-share-coordinator-4.4.0.jar:
//
//   key   = int16 record type (0 ShareSnapshot, 1 ShareUpdate) | GroupId string (int16 length)
//           | TopicId uuid (16 bytes) | Partition int32               - version 0, not flexible
//   value = int16 version 0 | the value struct (flexible: compact arrays, tagged fields)
//
//   ShareSnapshot value: SnapshotEpoch int32 | StateEpoch int32 | LeaderEpoch int32 |
//       StartOffset int64 | CreateTimestamp int64 | WriteTimestamp int64 |
//       StateBatches [FirstOffset int64 | LastOffset int64 | DeliveryState int8 |
//                     DeliveryCount int16] | tag 0: DeliveryCompleteCount int32 (not -1)
//   ShareUpdate value: SnapshotEpoch | LeaderEpoch | StartOffset | StateBatches | tag 0 as above
//
// A snapshot is a share-partition's whole state; an update carries the batches one write
// changed, merged into the state before it (share_state_batch.h). A ShareSnapshot key with no
// value is the tombstone of a deleted share-partition.
//
// Thread safety: value types and pure functions.
#ifndef SEGLOG_SHARESTATE_SHARE_STATE_RECORDS_H_
#define SEGLOG_SHARESTATE_SHARE_STATE_RECORDS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coordinator/coordinator_record.h"
#include "seglog/result.h"
#include "sharestate/share_partition_key.h"
#include "sharestate/share_state_batch.h"

namespace seglog {

inline constexpr const char* kShareGroupStateTopic = "__share_group_state";

// One share-partition's state as the share coordinator keeps it (Kafka's ShareGroupOffset).
struct ShareGroupOffset {
  int32_t snapshot_epoch = 0;
  int32_t state_epoch = 0;
  int32_t leader_epoch = 0;
  int64_t start_offset = 0;              // -1: not initialized to an offset yet
  int32_t delivery_complete_count = -1;  // KIP-1226; -1: unknown
  std::vector<PersisterStateBatch> state_batches;
  int64_t create_timestamp = 0;
  int64_t write_timestamp = 0;
  bool operator==(const ShareGroupOffset&) const = default;
};

CoordinatorRecord ShareSnapshotRecord(const SharePartitionKey& key, const ShareGroupOffset& value);
// Writes `value`'s snapshot epoch, leader epoch, start offset, delivery-complete count and
// batches (an update has no state epoch or timestamps).
CoordinatorRecord ShareUpdateRecord(const SharePartitionKey& key, const ShareGroupOffset& value);
CoordinatorRecord ShareStateTombstone(const SharePartitionKey& key);

struct LoadedShareStateRecord {
  enum class Type { kSnapshot, kUpdate };
  Type type = Type::kSnapshot;
  SharePartitionKey key;
  // The decoded value (an update's state epoch and timestamps are 0); nullopt: a tombstone.
  std::optional<ShareGroupOffset> value;
  // Set (and nothing else) for a record this build skips: an unknown record type or value
  // version, with the line to log.
  std::string skipped;
};

// Decodes one record of __share_group_state. Corruption for bytes that do not parse.
Result<LoadedShareStateRecord> DecodeShareStateRecord(
    std::span<const uint8_t> key, const std::optional<std::span<const uint8_t>>& value);

}  // namespace seglog

#endif  // SEGLOG_SHARESTATE_SHARE_STATE_RECORDS_H_
