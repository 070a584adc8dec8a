// SegmentObjects: the custom metadata S3RemoteStorageManager returns from CopyLogSegmentData
// (Kafka's RemoteLogSegmentMetadata.CustomMetadata) - for each object of the copy, its size and
// CRC-32C, so that a later fetch can tell a truncated or damaged object from a good one.
//
// Layout (big-endian, as all Kafka bytes; docs/format/remote_storage.md):
//
//   +---------+---------+------------------------------------------+ ... +-----------+
//   | version | count N | object 0                                 |     | crc       |
//   | int8 =0 | int8    | kind int8 | size int64 | crc32c uint32    |     | uint32    |
//   +---------+---------+------------------------------------------+ ... +-----------+
//     0         1         2           3            11                      2 + 13 N
//
// `kind` is a RemoteObjectKind (the object's file suffix); each kind at most once, ascending.
// `crc` is the CRC-32C of every byte before it. Size: 2 + 13 N + 4 bytes (at most 84).
//
// Thread safety: plain values and pure functions.
#ifndef SEGLOG_REMOTE_SEGMENT_OBJECTS_H_
#define SEGLOG_REMOTE_SEGMENT_OBJECTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "remote/remote_storage_manager.h"
#include "seglog/result.h"

namespace seglog {

// The objects of one copied segment, named by their Kafka file suffix.
enum class RemoteObjectKind : int8_t {
  kLog = 0,                    // .log
  kOffsetIndex = 1,            // .index
  kTimeIndex = 2,              // .timeindex
  kTransactionIndex = 3,       // .txnindex (only when the segment has one)
  kProducerSnapshot = 4,       // .snapshot
  kLeaderEpochCheckpoint = 5,  // .leader-epoch-checkpoint
};
inline constexpr int kRemoteObjectKinds = 6;
// "log", "index", "timeindex", "txnindex", "snapshot", "leader-epoch-checkpoint".
std::string_view RemoteObjectSuffix(RemoteObjectKind kind);
// The object that holds a RemoteStorageManager::FetchIndex type.
RemoteObjectKind ObjectKindOf(IndexType type);

inline constexpr int8_t kSegmentObjectsVersion = 0;
inline constexpr size_t kSegmentObjectsHeaderSize = 2;  // version, count
inline constexpr size_t kSegmentObjectEntrySize = 1 + 8 + 4;
inline constexpr size_t kSegmentObjectsCrcSize = 4;
static_assert(kSegmentObjectsHeaderSize + kRemoteObjectKinds * kSegmentObjectEntrySize +
                  kSegmentObjectsCrcSize ==
              84);

struct SegmentObject {
  RemoteObjectKind kind = RemoteObjectKind::kLog;
  int64_t size = 0;
  uint32_t crc32c = 0;
  bool operator==(const SegmentObject&) const = default;
};

struct SegmentObjects {
  std::vector<SegmentObject> objects;  // ascending kind

  // The entry of `kind`, if the copy has that object.
  std::optional<SegmentObject> Find(RemoteObjectKind kind) const;

  std::vector<uint8_t> Encode() const;
  // Corruption naming the byte position and field for anything but the layout above (unknown
  // version or kind, a kind twice or out of order, a negative size, a bad CRC, extra bytes).
  static Result<SegmentObjects> Decode(std::span<const uint8_t> bytes);
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_SEGMENT_OBJECTS_H_
