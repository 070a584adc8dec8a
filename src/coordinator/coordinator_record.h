// CoordinatorRecord: one record a coordinator writes to its compacted internal topic
// (__consumer_offsets, __transaction_state): the key, and the value or none (a tombstone,
// which compaction later removes with its key). The bytes are the coordinator's own schemas
// (docs/format/consumer_offsets.md, docs/format/transaction_state.md).
//
// Thread safety: a value type.
#ifndef SEGLOG_COORDINATOR_COORDINATOR_RECORD_H_
#define SEGLOG_COORDINATOR_COORDINATOR_RECORD_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace seglog {

struct CoordinatorRecord {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;  // nullopt: a tombstone
  bool operator==(const CoordinatorRecord&) const = default;
};

}  // namespace seglog

#endif  // SEGLOG_COORDINATOR_COORDINATOR_RECORD_H_
