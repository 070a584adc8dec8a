// SegmentObjects' byte layout (segment_objects.h).
#include "remote/segment_objects.h"

#include <fmt/format.h>

#include "base/byte_reader.h"
#include "base/coding.h"
#include "base/crc32c.h"

namespace seglog {

std::string_view RemoteObjectSuffix(RemoteObjectKind kind) {
  switch (kind) {
    case RemoteObjectKind::kLog:
      return "log";
    case RemoteObjectKind::kOffsetIndex:
      return "index";
    case RemoteObjectKind::kTimeIndex:
      return "timeindex";
    case RemoteObjectKind::kTransactionIndex:
      return "txnindex";
    case RemoteObjectKind::kProducerSnapshot:
      return "snapshot";
    case RemoteObjectKind::kLeaderEpochCheckpoint:
      return "leader-epoch-checkpoint";
  }
  return "unknown";
}

std::optional<SegmentObject> SegmentObjects::Find(RemoteObjectKind kind) const {
  for (const SegmentObject& o : objects) {
    if (o.kind == kind) return o;
  }
  return std::nullopt;
}

std::vector<uint8_t> SegmentObjects::Encode() const {
  std::vector<uint8_t> out(kSegmentObjectsHeaderSize + objects.size() * kSegmentObjectEntrySize +
                           kSegmentObjectsCrcSize);
  out[0] = static_cast<uint8_t>(kSegmentObjectsVersion);
  out[1] = static_cast<uint8_t>(objects.size());
  uint8_t* p = out.data() + kSegmentObjectsHeaderSize;
  for (const SegmentObject& o : objects) {
    p[0] = static_cast<uint8_t>(o.kind);
    StoreBE64(p + 1, static_cast<uint64_t>(o.size));
    StoreBE32(p + 9, o.crc32c);
    p += kSegmentObjectEntrySize;
  }
  StoreBE32(p, Crc32c(std::span<const uint8_t>(out.data(), out.size() - kSegmentObjectsCrcSize)));
  return out;
}

Result<SegmentObjects> SegmentObjects::Decode(std::span<const uint8_t> bytes) {
  auto corrupt = [](std::string_view what) {
    return Status::Corruption(fmt::format("remote segment custom metadata: {}", what));
  };
  ByteReader r(bytes);
  int8_t version = 0;
  int8_t count = 0;
  SEGLOG_RETURN_IF_ERROR(r.ReadInt8("version", &version));
  if (version != kSegmentObjectsVersion) {
    return corrupt(
        fmt::format("version {} at byte 0, expected {}", version, kSegmentObjectsVersion));
  }
  SEGLOG_RETURN_IF_ERROR(r.ReadInt8("object count", &count));
  if (count < 0 || count > kRemoteObjectKinds) {
    return corrupt(
        fmt::format("object count {} at byte 1, expected 0..{}", count, kRemoteObjectKinds));
  }
  SegmentObjects out;
  int previous = -1;
  for (int i = 0; i < count; ++i) {
    const int64_t at = r.position();
    int8_t kind = 0;
    SegmentObject o;
    uint32_t crc = 0;
    SEGLOG_RETURN_IF_ERROR(r.ReadInt8("object kind", &kind));
    SEGLOG_RETURN_IF_ERROR(r.ReadInt64("object size", &o.size));
    SEGLOG_RETURN_IF_ERROR(r.ReadUInt32("object crc32c", &crc));
    if (kind < 0 || kind >= kRemoteObjectKinds || kind <= previous) {
      return corrupt(fmt::format("object kind {} at byte {} (kinds are 0..{}, ascending, once)",
                                 kind, at, kRemoteObjectKinds - 1));
    }
    if (o.size < 0) return corrupt(fmt::format("object size {} at byte {}", o.size, at + 1));
    previous = kind;
    o.kind = static_cast<RemoteObjectKind>(kind);
    o.crc32c = crc;
    out.objects.push_back(o);
  }
  const size_t body = r.offset();
  uint32_t stored = 0;
  SEGLOG_RETURN_IF_ERROR(r.ReadUInt32("crc", &stored));
  const uint32_t computed = Crc32c(bytes.subspan(0, body));
  if (stored != computed) {
    return corrupt(fmt::format("crc at byte {} is 0x{:08x}, the bytes before it give 0x{:08x}",
                               body, stored, computed));
  }
  if (!r.empty()) {
    return corrupt(fmt::format("{} bytes after the crc at byte {}", r.remaining(), r.offset()));
  }
  return out;
}

RemoteObjectKind ObjectKindOf(IndexType type) {
  switch (type) {
    case IndexType::kOffset:
      return RemoteObjectKind::kOffsetIndex;
    case IndexType::kTimestamp:
      return RemoteObjectKind::kTimeIndex;
    case IndexType::kProducerSnapshot:
      return RemoteObjectKind::kProducerSnapshot;
    case IndexType::kTransaction:
      return RemoteObjectKind::kTransactionIndex;
    case IndexType::kLeaderEpoch:
      return RemoteObjectKind::kLeaderEpochCheckpoint;
  }
  return RemoteObjectKind::kOffsetIndex;
}

}  // namespace seglog
