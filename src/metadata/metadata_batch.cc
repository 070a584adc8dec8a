// KRaft's batches (see the header).
#include "metadata/metadata_batch.h"

#include <fmt/format.h>

namespace seglog {

Result<std::vector<uint8_t>> BuildMetadataBatch(int64_t base_offset, int32_t epoch,
                                                int64_t timestamp,
                                                std::span<const MetadataRecordValue> records) {
  BatchOptions options;
  options.base_offset = base_offset;
  options.partition_leader_epoch = epoch;
  RecordBatchBuilder builder(options);
  for (const MetadataRecordValue& r : records) {
    SEGLOG_RETURN_IF_ERROR(builder.Append(timestamp, NullableBytes(), NullableBytes(r.bytes)));
  }
  return builder.Build();
}

Result<std::vector<uint8_t>> BuildControlBatch(int64_t base_offset, int32_t epoch,
                                               int64_t timestamp,
                                               std::span<const ControlRecordValue> records) {
  BatchOptions options;
  options.base_offset = base_offset;
  options.partition_leader_epoch = epoch;
  options.is_control = true;
  RecordBatchBuilder builder(options);
  for (const ControlRecordValue& r : records) {
    const auto type = static_cast<uint16_t>(r.type);
    const uint8_t key[4] = {0, 0, static_cast<uint8_t>(type >> 8), static_cast<uint8_t>(type)};
    SEGLOG_RETURN_IF_ERROR(builder.Append(timestamp, NullableBytes(std::span<const uint8_t>(key)),
                                          NullableBytes(r.body)));
  }
  return builder.Build();
}

Status ForEachMetadataRecord(
    const RecordBatchView& batch,
    const std::function<Status(int64_t offset, std::span<const uint8_t> value)>& on_data,
    const std::function<Status(int64_t offset, ControlRecordType type,
                               std::span<const uint8_t> value)>& on_control) {
  RecordIterator it(batch);
  while (it.Next()) {
    const Record& r = it.record();
    if (batch.is_control()) {
      Result<ControlRecordKey> key = ParseControlRecordKey(r.key);
      if (!key.ok()) {
        return Status::Corruption(
            fmt::format("control record at offset {}: {}", r.offset, key.status().message()));
      }
      std::span<const uint8_t> value;
      if (r.value.has_value()) value = *r.value;
      SEGLOG_RETURN_IF_ERROR(on_control(r.offset, key.value().type(), value));
      continue;
    }
    if (!r.value.has_value()) {
      return Status::Corruption(fmt::format("metadata record at offset {} has no value", r.offset));
    }
    SEGLOG_RETURN_IF_ERROR(on_data(r.offset, *r.value));
  }
  return it.status();
}

}  // namespace seglog
