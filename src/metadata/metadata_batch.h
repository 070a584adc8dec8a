// The record batches of KRaft's log and snapshots (docs/format/metadata_log.md, "Batches"):
// ordinary v2 batches, uncompressed, CreateTime, no producer (id -1, epoch -1, sequence -1), not
// transactional, whose partitionLeaderEpoch is the raft epoch. A data batch's records have a
// null key, no headers and a framed metadata record as value (metadata_record_serde.h); a
// control batch's (attribute bit 5) have the key int16 0 + int16 control type and, as value,
// the control message (LeaderChangeMessage, SnapshotHeaderRecord, ...) at version 0.
//
// Thread safety: functions over values.
#ifndef SEGLOG_METADATA_METADATA_BATCH_H_
#define SEGLOG_METADATA_METADATA_BATCH_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "metadata/metadata_record_serde.h"
#include "protocol/protocol_writer.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

// KafkaRaftClient.MAX_BATCH_SIZE_BYTES: the largest batch KRaft writes.
inline constexpr size_t kMaxMetadataBatchBytes = 8 * 1024 * 1024;

struct ControlRecordValue {
  ControlRecordType type = ControlRecordType::kUnknown;
  std::vector<uint8_t> body;  // the control message at version 0
};

template <typename T>
Result<ControlRecordValue> EncodeControlRecord(ControlRecordType type, const T& message) {
  protocol::ProtocolWriter writer;
  SEGLOG_RETURN_IF_ERROR(message.Encode(&writer, 0));
  ControlRecordValue v{type, {}};
  SEGLOG_RETURN_IF_ERROR(writer.Flatten(&v.body));
  return v;
}

Result<std::vector<uint8_t>> BuildMetadataBatch(int64_t base_offset, int32_t epoch,
                                                int64_t timestamp,
                                                std::span<const MetadataRecordValue> records);
Result<std::vector<uint8_t>> BuildControlBatch(int64_t base_offset, int32_t epoch,
                                               int64_t timestamp,
                                               std::span<const ControlRecordValue> records);

// The records of one batch (CRC already checked by the caller): `on_data` gets each data
// record's value, `on_control` each control record. Corruption for a data record with a key or
// no value, or a control record whose key is not a control key.
Status ForEachMetadataRecord(
    const RecordBatchView& batch,
    const std::function<Status(int64_t offset, std::span<const uint8_t> value)>& on_data,
    const std::function<Status(int64_t offset, ControlRecordType type,
                               std::span<const uint8_t> value)>& on_control);

}  // namespace seglog

#endif  // SEGLOG_METADATA_METADATA_BATCH_H_
