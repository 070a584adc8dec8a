// RecordIterator and control-record parsing; see seglog/record_batch.h.
//
// Record layout (all varints zigzag; docs/format/record_batch.md):
//   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
//   keyLength varint | key | valueLength varint | value | headerCount varint |
//   headers: (keyLength varint | key | valueLength varint | value) * headerCount
#include <fmt/format.h>

#include "base/byte_reader.h"
#include "base/coding.h"
#include "record/compression.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace bl = batch_layout;

RecordIterator::RecordIterator(const RecordBatchView& batch, const ReadOptions& options)
    : batch_(batch) {
  if (batch.records_count() < 0) {
    Fail(Status::Corruption(
        fmt::format("recordsCount: found {}, must be >= 0", batch.records_count())));
    return;
  }
  auto codec = batch.compression();
  if (!codec.ok()) {
    status_ = codec.status();
    done_ = true;
    return;
  }
  if (*codec == CompressionType::kNone) {
    section_ = batch.records_bytes();
    section_position_ = batch.position() + static_cast<int64_t>(bl::kRecordsOffset);
    return;
  }
  std::vector<uint8_t>* out = options.scratch != nullptr ? options.scratch : &decompressed_;
  Status s = Decompress(*codec, batch.records_bytes(), options.max_decompressed_bytes, out);
  if (!s.ok()) {
    Fail(s.WithContext(fmt::format("records section at byte {}",
                                   batch.position() + static_cast<int64_t>(bl::kRecordsOffset))));
    return;
  }
  section_ = *out;
  section_position_ = -1;
}

void RecordIterator::Fail(const Status& s) {
  status_ = s.WithContext(fmt::format("batch at position {} (base offset {})", batch_.position(),
                                      batch_.base_offset()));
  done_ = true;
}

bool RecordIterator::Next() {
  if (done_) return false;
  if (returned_ == batch_.records_count()) {
    done_ = true;
    if (pos_ != section_.size()) {
      Fail(Status::Corruption(fmt::format(
          "Incorrect declared batch size: {} record(s) read, but {} byte(s) remain after them",
          returned_, section_.size() - pos_)));
    }
    return false;
  }
  Status s = ReadRecord();
  if (!s.ok()) {
    Fail(s);
    return false;
  }
  ++returned_;
  return true;
}

Status RecordIterator::ReadRecord() {
  // Positions in messages: file positions for plain batches, "decompressed byte N" otherwise.
  const bool plain = section_position_ >= 0;
  const int64_t base_pos = plain ? section_position_ : 0;
  const std::string_view where = plain ? "" : " (decompressed)";
  ByteReader outer(section_.subspan(pos_), base_pos + static_cast<int64_t>(pos_));
  int32_t length = 0;
  Status s = outer.ReadVarint("record length", &length);
  if (!s.ok()) {
    return Status::Corruption(fmt::format("record {}{}: {} ({} of {} declared records read)",
                                          returned_, where, s.message(), returned_,
                                          batch_.records_count()));
  }
  if (length < 0 || static_cast<size_t>(length) > outer.remaining()) {
    return Status::Corruption(fmt::format(
        "record {}{} at byte {}: length: found {}, but {} byte(s) remain in the batch", returned_,
        where, base_pos + static_cast<int64_t>(pos_), length, outer.remaining()));
  }
  const size_t header_len = outer.offset();
  Bytes body;
  (void)outer.ReadBytes("record body", static_cast<size_t>(length), &body);  // checked above
  ByteReader r(body, base_pos + static_cast<int64_t>(pos_ + header_len));

  auto wrap = [&](const Status& st) {
    return Status::Corruption(fmt::format("record {}{}: {}", returned_, where, st.message()));
  };
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  if (Status st = r.ReadInt8("record attributes", &attributes); !st.ok()) return wrap(st);
  if (Status st = r.ReadVarlong("timestampDelta", &timestamp_delta); !st.ok()) return wrap(st);
  if (Status st = r.ReadVarint("offsetDelta", &offset_delta); !st.ok()) return wrap(st);

  auto read_nullable = [&r](std::string_view len_field, std::string_view field,
                            NullableBytes* out) {
    return r.ReadVarintNullableBytes(len_field, field, out);
  };
  // Straight into record_: building the optionals on the stack and copying them over cost more
  // than the rest of the parse (a profile of zstd appends: partial stores, then wide loads).
  if (Status st = read_nullable("keyLength", "key", &record_.key); !st.ok()) return wrap(st);
  if (Status st = read_nullable("valueLength", "value", &record_.value); !st.ok()) return wrap(st);

  int32_t header_count = 0;
  if (Status st = r.ReadVarint("headerCount", &header_count); !st.ok()) return wrap(st);
  if (header_count < 0 || static_cast<size_t>(header_count) > r.remaining()) {
    return wrap(Status::Corruption(fmt::format(
        "headerCount at byte {}: found {}, must be between 0 and the {} byte(s) remaining",
        r.position(), header_count, r.remaining())));
  }
  headers_.clear();
  for (int32_t i = 0; i < header_count; ++i) {
    int32_t key_len = 0;
    if (Status st = r.ReadVarint("header key length", &key_len); !st.ok()) return wrap(st);
    if (key_len < 0) {
      return wrap(Status::Corruption(fmt::format(
          "header {} key length at byte {}: found {}, must be >= 0", i, r.position(), key_len)));
    }
    Bytes hk;
    if (Status st = r.ReadBytes("header key", static_cast<size_t>(key_len), &hk); !st.ok()) {
      return wrap(st);
    }
    Header h;
    h.key = std::string_view(reinterpret_cast<const char*>(hk.data()), hk.size());
    if (Status st = read_nullable("header value length", "header value", &h.value); !st.ok()) {
      return wrap(st);
    }
    headers_.push_back(h);
  }
  if (!r.empty()) {
    return wrap(Status::Corruption(
        fmt::format("length {} at byte {} is longer than the record's fields: {} byte(s) left over",
                    length, base_pos + static_cast<int64_t>(pos_), r.remaining())));
  }

  record_.offset = WrappingAdd(batch_.base_offset(), offset_delta);
  record_.timestamp = batch_.timestamp_type() == TimestampType::kLogAppendTime
                          ? batch_.max_timestamp()
                          : WrappingAdd(batch_.base_timestamp(), timestamp_delta);
  const int32_t base_seq = batch_.base_sequence();
  if (base_seq >= 0) {
    record_.sequence = (offset_delta >= 0 && base_seq > INT32_MAX - offset_delta)
                           ? offset_delta - (INT32_MAX - base_seq) - 1
                           : static_cast<int32_t>(static_cast<uint32_t>(base_seq) +
                                                  static_cast<uint32_t>(offset_delta));
  } else {
    record_.sequence = kNoSequence;
  }
  record_.attributes = attributes;
  record_.size_in_bytes = static_cast<int32_t>(header_len) + length;
  record_.headers = headers_;
  pos_ += header_len + static_cast<size_t>(length);
  return Status::OK();
}

std::string_view ControlRecordTypeName(ControlRecordType type) {
  switch (type) {
    case ControlRecordType::kAbort:
      return "ABORT";
    case ControlRecordType::kCommit:
      return "COMMIT";
    case ControlRecordType::kLeaderChange:
      return "LEADER_CHANGE";
    case ControlRecordType::kSnapshotHeader:
      return "SNAPSHOT_HEADER";
    case ControlRecordType::kSnapshotFooter:
      return "SNAPSHOT_FOOTER";
    case ControlRecordType::kKRaftVersion:
      return "KRAFT_VERSION";
    case ControlRecordType::kKRaftVoters:
      return "KRAFT_VOTERS";
    case ControlRecordType::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

ControlRecordType ControlRecordKey::type() const {
  if (type_id >= 0 && type_id <= 6) return static_cast<ControlRecordType>(type_id);
  return ControlRecordType::kUnknown;
}

Result<ControlRecordKey> ParseControlRecordKey(NullableBytes key) {
  if (!key || key->size() < 4) {
    return Status::Corruption(
        fmt::format("control record key: expected at least 4 bytes (version, type), found {}",
                    key ? fmt::format("{}", key->size()) : std::string("null")));
  }
  ControlRecordKey k;
  k.version = LoadBEInt16(key->data());
  k.type_id = LoadBEInt16(key->data() + 2);
  if (k.version < 0) {
    return Status::Corruption(
        fmt::format("control record key: version must be >= 0, found {}", k.version));
  }
  return k;
}

Result<EndTransactionMarker> ParseEndTransactionMarker(NullableBytes value) {
  if (!value || value->size() < 6) {
    return Status::Corruption(fmt::format(
        "end transaction marker: expected at least 6 bytes (version, coordinatorEpoch), found {}",
        value ? fmt::format("{}", value->size()) : std::string("null")));
  }
  EndTransactionMarker m;
  m.version = LoadBEInt16(value->data());
  m.coordinator_epoch = LoadBEInt32(value->data() + 2);
  if (m.version < 0) {
    return Status::Corruption(
        fmt::format("end transaction marker: version must be >= 0, found {}", m.version));
  }
  return m;
}

}  // namespace seglog
