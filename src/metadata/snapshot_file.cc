// KRaft snapshot files (see the header).
#include "metadata/snapshot_file.h"

#include <fmt/format.h>

#include "base/uuid.h"
#include "io/atomic_file.h"
#include "protocol/generated/snapshot_footer_record.h"
#include "protocol/generated/snapshot_header_record.h"

namespace seglog {

std::string SnapshotName(const SnapshotId& id) {
  return fmt::format("{:020d}-{:010d}", id.end_offset, id.epoch);
}

std::optional<SnapshotId> ParseSnapshotFileName(std::string_view name, std::string_view suffix) {
  if (name.size() != 31 + suffix.size() || !name.ends_with(suffix) || name[20] != '-') {
    return std::nullopt;
  }
  int64_t offset = 0;
  int64_t epoch = 0;
  for (size_t i = 0; i < 31; ++i) {
    if (i == 20) continue;
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    int64_t& v = i < 20 ? offset : epoch;
    v = v * 10 + (name[i] - '0');
  }
  if (epoch > INT32_MAX) return std::nullopt;
  return SnapshotId{offset, static_cast<int32_t>(epoch)};
}

Result<SnapshotContents> ReadSnapshot(Env* env, const std::string& path) {
  Result<std::string> text = ReadFileToString(env, path);
  if (!text.ok()) return text.status();
  const auto* data = reinterpret_cast<const uint8_t*>(text.value().data());
  const std::span<const uint8_t> bytes(data, text.value().size());
  auto bad = [&](std::string_view why) {
    return Status::Corruption(fmt::format("snapshot {}: {}", path, why));
  };
  SnapshotContents out;
  size_t pos = 0;
  int64_t next_offset = 0;
  bool header = false;
  bool footer = false;
  while (pos < bytes.size()) {
    if (footer) return bad(fmt::format("bytes after the footer at position {}", pos));
    Result<RecordBatchView> batch = RecordBatchView::Parse(bytes.subspan(pos), pos);
    if (!batch.ok()) return bad(batch.status().message());
    const RecordBatchView& b = batch.value();
    if (!b.IsValid()) return bad(fmt::format("batch at position {} fails its CRC", pos));
    if (b.base_offset() != next_offset) {
      return bad(fmt::format("batch at position {} starts at offset {}, expected {}", pos,
                             b.base_offset(), next_offset));
    }
    if (out.batch_epoch == -1) out.batch_epoch = b.partition_leader_epoch();
    Status s = ForEachMetadataRecord(
        b,
        [&](int64_t offset, std::span<const uint8_t> value) -> Status {
          if (!header) return bad(fmt::format("record at offset {} before the header", offset));
          out.records.emplace_back(value.begin(), value.end());
          return Status::OK();
        },
        [&](int64_t offset, ControlRecordType type, std::span<const uint8_t> value) -> Status {
          if (type == ControlRecordType::kSnapshotHeader) {
            if (header || offset != 0) return bad("a second header");
            Result<protocol::SnapshotHeaderRecord> h =
                protocol::SnapshotHeaderRecord::Parse(value, 0);
            if (!h.ok()) return bad(h.status().message());
            out.last_contained_log_timestamp = h.value().last_contained_log_timestamp;
            header = true;
          } else if (type == ControlRecordType::kSnapshotFooter) {
            if (!header) return bad("a footer before the header");
            footer = true;
          } else {
            if (!header) return bad("a control record before the header");
            out.control.push_back({type, std::vector<uint8_t>(value.begin(), value.end())});
          }
          return Status::OK();
        });
    if (!s.ok()) return s.IsCorruption() ? s : bad(s.message());
    next_offset = b.next_offset();
    pos += b.size_in_bytes();
  }
  if (!header) return bad("no header");
  if (!footer) return bad("no footer");
  return out;
}

Status WriteSnapshot(Env* env, const std::string& dir, const SnapshotId& id,
                     int64_t last_contained_log_timestamp, int64_t now_ms,
                     std::span<const ControlRecordValue> control_after_header,
                     std::span<const MetadataRecordValue> records, size_t max_batch_bytes) {
  std::vector<uint8_t> content;
  int64_t offset = 0;
  auto add = [&](Result<std::vector<uint8_t>> batch, int64_t count) -> Status {
    if (!batch.ok()) return batch.status();
    content.insert(content.end(), batch.value().begin(), batch.value().end());
    offset += count;
    return Status::OK();
  };
  protocol::SnapshotHeaderRecord header;
  header.last_contained_log_timestamp = last_contained_log_timestamp;
  std::vector<ControlRecordValue> first;
  SEGLOG_ASSIGN_OR_RETURN(ControlRecordValue h,
                          EncodeControlRecord(ControlRecordType::kSnapshotHeader, header));
  first.push_back(std::move(h));
  first.insert(first.end(), control_after_header.begin(), control_after_header.end());
  SEGLOG_RETURN_IF_ERROR(
      add(BuildControlBatch(offset, id.epoch, now_ms, first), static_cast<int64_t>(first.size())));
  size_t from = 0;
  while (from < records.size()) {
    size_t to = from;
    size_t bytes = 0;
    // Room for the batch header and each record's framing.
    while (to < records.size() &&
           (to == from || bytes + records[to].bytes.size() + 32 + 61 <= max_batch_bytes)) {
      bytes += records[to].bytes.size() + 32;
      ++to;
    }
    SEGLOG_RETURN_IF_ERROR(
        add(BuildMetadataBatch(offset, id.epoch, now_ms, records.subspan(from, to - from)),
            static_cast<int64_t>(to - from)));
    from = to;
  }
  ControlRecordValue footer_value;
  SEGLOG_ASSIGN_OR_RETURN(footer_value, EncodeControlRecord(ControlRecordType::kSnapshotFooter,
                                                            protocol::SnapshotFooterRecord{}));
  SEGLOG_RETURN_IF_ERROR(
      add(BuildControlBatch(offset, id.epoch, now_ms, std::span(&footer_value, 1)), 1));

  const std::string name = SnapshotName(id);
  const std::string part =
      fmt::format("{}/{}-{}{}", dir, name, Uuid::Random().ToString(), kPartialSnapshotSuffix);
  {
    Result<std::unique_ptr<File>> f = env->OpenFile(part, File::Mode::kCreateExclusive);
    if (!f.ok()) return f.status();
    SEGLOG_RETURN_IF_ERROR(f.value()->WriteAt(0, content));
    SEGLOG_RETURN_IF_ERROR(f.value()->Sync());
  }
  SEGLOG_RETURN_IF_ERROR(env->RenameFile(part, fmt::format("{}/{}{}", dir, name, kSnapshotSuffix)));
  return env->SyncDirectory(dir);
}

}  // namespace seglog
