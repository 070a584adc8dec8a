// LocalRemoteStorage; see local_remote_storage.h.
#include "remote/testing/local_remote_storage.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/crc32c.h"
#include "io/file_names.h"

namespace seglog {
namespace {

// Writes `to` from `from` (a file) or `bytes`, via "<to>.tmp" and a rename, so that an object
// exists whole or not at all; `object` gets its size and CRC-32C.
Status PutObject(Env* env, const std::string* from, std::span<const uint8_t> bytes,
                 const std::string& to, SegmentObject* object) {
  const std::string tmp = to + ".tmp";
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> out,
                          env->OpenFile(tmp, File::Mode::kCreateExclusive));
  uint32_t crc = Crc32c({});
  int64_t size = 0;
  if (from == nullptr) {
    SEGLOG_RETURN_IF_ERROR(out->WriteAt(0, bytes));
    crc = Crc32cExtend(crc, bytes);
    size = static_cast<int64_t>(bytes.size());
  } else {
    SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> in, env->OpenFile(*from, File::Mode::kReadOnly));
    std::vector<uint8_t> buf(1 << 20);
    for (;;) {
      SEGLOG_ASSIGN_OR_RETURN(const size_t n, in->ReadAtMost(size, buf));
      if (n == 0) break;
      const std::span<const uint8_t> chunk(buf.data(), n);
      SEGLOG_RETURN_IF_ERROR(out->WriteAt(size, chunk));
      crc = Crc32cExtend(crc, chunk);
      size += static_cast<int64_t>(n);
    }
  }
  SEGLOG_RETURN_IF_ERROR(out->Sync());
  out.reset();
  SEGLOG_RETURN_IF_ERROR(env->RenameFile(tmp, to));
  object->size = size;
  object->crc32c = crc;
  return Status::OK();
}

Result<std::vector<uint8_t>> ReadWholeFile(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env->OpenFile(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, file->Size());
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  SEGLOG_RETURN_IF_ERROR(file->ReadAt(0, bytes));
  return bytes;
}

}  // namespace

LocalRemoteStorage::LocalRemoteStorage(std::string root, Env* env)
    : root_(std::move(root)), env_(env != nullptr ? env : Env::Default()) {}

std::string LocalRemoteStorage::SegmentDir(const RemoteLogSegmentMetadata& metadata) const {
  return fmt::format("{}/{}", root_, metadata.segment_id.id.ToString());
}

std::string LocalRemoteStorage::ObjectPath(const RemoteLogSegmentMetadata& metadata,
                                           RemoteObjectKind kind) const {
  return fmt::format("{}/{}.{}", SegmentDir(metadata),
                     FilenamePrefixFromOffset(metadata.start_offset), RemoteObjectSuffix(kind));
}

bool LocalRemoteStorage::CountCopy() {
  MutexLock l(&mu_);
  ++counts_.copies;
  if (fail_copies_ == 0) return false;
  --fail_copies_;
  return true;
}

bool LocalRemoteStorage::CountDelete() {
  MutexLock l(&mu_);
  ++counts_.deletes;
  if (fail_deletes_ == 0) return false;
  --fail_deletes_;
  return true;
}

bool LocalRemoteStorage::CountFetch(std::optional<IndexType> type) {
  MutexLock l(&mu_);
  if (!type.has_value()) {
    ++counts_.log_fetches;
  } else {
    ++counts_.index_fetches;
    if (*type == IndexType::kOffset) ++counts_.offset_index_fetches;
    if (*type == IndexType::kTimestamp) ++counts_.time_index_fetches;
    if (*type == IndexType::kTransaction) ++counts_.txn_index_fetches;
  }
  if (fail_fetches_ == 0) return false;
  if (fail_fetch_type_.has_value() && fail_fetch_type_ != type) return false;
  --fail_fetches_;
  return true;
}

void LocalRemoteStorage::FailNextCopies(int n) {
  MutexLock l(&mu_);
  fail_copies_ = n;
}

void LocalRemoteStorage::FailNextFetches(int n, std::optional<IndexType> only) {
  MutexLock l(&mu_);
  fail_fetches_ = n;
  fail_fetch_type_ = only;
}

void LocalRemoteStorage::FailNextDeletes(int n) {
  MutexLock l(&mu_);
  fail_deletes_ = n;
}

LocalRemoteStorage::Counts LocalRemoteStorage::counts() const {
  MutexLock l(&mu_);
  return counts_;
}

Result<std::optional<std::vector<uint8_t>>> LocalRemoteStorage::CopyLogSegmentData(
    const RemoteLogSegmentMetadata& metadata, const LogSegmentData& data) {
  const bool fail = CountCopy();
  const std::string dir = SegmentDir(metadata);
  if (env_->FileExists(dir)) {
    return Status::AlreadyExists(
        fmt::format("copy of {}: {} exists (objects are never overwritten)",
                    DescribeRemoteSegment(metadata), dir));
  }
  SEGLOG_RETURN_IF_ERROR(env_->CreateDirectories(dir));
  struct Source {
    RemoteObjectKind kind;
    const std::string* path;  // null: `bytes`
    std::span<const uint8_t> bytes;
  };
  std::vector<Source> sources = {{RemoteObjectKind::kLog, &data.log_segment, {}},
                                 {RemoteObjectKind::kOffsetIndex, &data.offset_index, {}},
                                 {RemoteObjectKind::kTimeIndex, &data.time_index, {}}};
  if (data.transaction_index.has_value()) {
    sources.push_back({RemoteObjectKind::kTransactionIndex, &*data.transaction_index, {}});
  }
  if (!data.producer_snapshot.empty()) {  // empty: the segment has no producer snapshot
    sources.push_back({RemoteObjectKind::kProducerSnapshot, &data.producer_snapshot, {}});
  }
  sources.push_back({RemoteObjectKind::kLeaderEpochCheckpoint, nullptr, data.leader_epoch_index});

  SegmentObjects objects;
  for (const Source& source : sources) {
    SegmentObject object;
    object.kind = source.kind;
    const std::string to = ObjectPath(metadata, source.kind);
    Status s = PutObject(env_, source.path, source.bytes, to, &object);
    if (!s.ok()) return s.WithContext(fmt::format("copy of {}", DescribeRemoteSegment(metadata)));
    objects.objects.push_back(object);
    if (fail) {
      return Status::IOError(fmt::format("copy of {}: injected failure after writing {}",
                                         DescribeRemoteSegment(metadata), to));
    }
  }
  return std::optional<std::vector<uint8_t>>(objects.Encode());
}

namespace {

// The size and CRC-32C the copy recorded for `kind` (its object is at `path`).
Result<SegmentObject> ExpectedObject(const RemoteLogSegmentMetadata& metadata,
                                     RemoteObjectKind kind, const std::string& path) {
  if (!metadata.custom_metadata.has_value()) {
    return Status::FailedPrecondition(
        fmt::format("{}: no custom metadata, so the objects' sizes and checksums are unknown",
                    DescribeRemoteSegment(metadata)));
  }
  Result<SegmentObjects> objects = SegmentObjects::Decode(*metadata.custom_metadata);
  if (!objects.ok()) return objects.status().WithContext(DescribeRemoteSegment(metadata));
  const std::optional<SegmentObject> expected = objects->Find(kind);
  if (!expected.has_value()) {
    return Status::NotFound(fmt::format("{}: the copy has no .{} object ({} was not written)",
                                        DescribeRemoteSegment(metadata), RemoteObjectSuffix(kind),
                                        path));
  }
  return *expected;
}

}  // namespace

Result<std::vector<uint8_t>> LocalRemoteStorage::ReadChecked(
    const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind, SegmentObject* expected) {
  const std::string path = ObjectPath(metadata, kind);
  SEGLOG_ASSIGN_OR_RETURN(*expected, ExpectedObject(metadata, kind, path));
  if (!env_->FileExists(path)) {
    return Status::NotFound(
        fmt::format("{}: {} is missing", DescribeRemoteSegment(metadata), path));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadWholeFile(env_, path));
  if (static_cast<int64_t>(bytes.size()) != expected->size) {
    return Status::Corruption(
        fmt::format("{}: {} bytes, the copy recorded {}", path, bytes.size(), expected->size));
  }
  const uint32_t crc = Crc32c(bytes);
  if (crc != expected->crc32c) {
    return Status::Corruption(fmt::format("{}: CRC-32C 0x{:08x}, the copy recorded 0x{:08x}", path,
                                          crc, expected->crc32c));
  }
  return bytes;
}

Result<std::vector<uint8_t>> LocalRemoteStorage::FetchLogSegment(
    const RemoteLogSegmentMetadata& metadata, int64_t position, int64_t max_bytes) {
  const std::string path = ObjectPath(metadata, RemoteObjectKind::kLog);
  if (CountFetch(std::nullopt)) {
    return Status::IOError(
        fmt::format("fetch of {} at position {}: injected failure", path, position));
  }
  if (position < 0 || max_bytes < 0) {
    return Status::InvalidArgument(
        fmt::format("fetch of {}: position {} and max bytes {}", path, position, max_bytes));
  }
  SEGLOG_ASSIGN_OR_RETURN(const SegmentObject recorded,
                          ExpectedObject(metadata, RemoteObjectKind::kLog, path));
  if (position > recorded.size) {
    return Status::OutOfRange(fmt::format("fetch of {}: position {} is past its {} bytes", path,
                                          position, recorded.size));
  }
  SegmentObject expected;
  Result<std::vector<uint8_t>> bytes = ReadChecked(metadata, RemoteObjectKind::kLog, &expected);
  if (!bytes.ok()) return bytes.status().WithContext(fmt::format("fetch at position {}", position));
  const int64_t length = std::min(max_bytes, expected.size - position);
  return std::vector<uint8_t>(bytes->begin() + position, bytes->begin() + position + length);
}

Result<std::vector<uint8_t>> LocalRemoteStorage::FetchIndex(
    const RemoteLogSegmentMetadata& metadata, IndexType type) {
  const RemoteObjectKind kind = ObjectKindOf(type);
  if (CountFetch(type)) {
    return Status::IOError(fmt::format("fetch of the {} index {}: injected failure",
                                       IndexTypeName(type), ObjectPath(metadata, kind)));
  }
  SegmentObject expected;
  return ReadChecked(metadata, kind, &expected);
}

Status LocalRemoteStorage::DeleteLogSegmentData(const RemoteLogSegmentMetadata& metadata) {
  if (CountDelete()) {
    return Status::IOError(
        fmt::format("delete of {}: injected failure", DescribeRemoteSegment(metadata)));
  }
  return env_->RemoveTree(SegmentDir(metadata))
      .WithContext(fmt::format("delete of {}", DescribeRemoteSegment(metadata)));
}

Status LocalRemoteStorage::TruncateObject(const RemoteLogSegmentMetadata& metadata,
                                          RemoteObjectKind kind, int64_t size) {
  const std::string path = ObjectPath(metadata, kind);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env_->OpenFile(path, File::Mode::kReadWrite));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t current, file->Size());
  if (size < 0 || size > current) {
    return Status::InvalidArgument(
        fmt::format("{}: cannot truncate {} bytes to {}", path, current, size));
  }
  return file->Truncate(size);
}

Status LocalRemoteStorage::CorruptObject(const RemoteLogSegmentMetadata& metadata,
                                         RemoteObjectKind kind, int64_t position) {
  const std::string path = ObjectPath(metadata, kind);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env_->OpenFile(path, File::Mode::kReadWrite));
  uint8_t byte = 0;
  SEGLOG_RETURN_IF_ERROR(file->ReadAt(position, std::span<uint8_t>(&byte, 1)));
  byte ^= 0xFF;
  return file->WriteAt(position, std::span<const uint8_t>(&byte, 1));
}

Status LocalRemoteStorage::OverwriteObject(const RemoteLogSegmentMetadata& metadata,
                                           RemoteObjectKind kind, std::span<const uint8_t> bytes) {
  const std::string path = ObjectPath(metadata, kind);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env_->OpenFile(path, File::Mode::kReadWrite));
  SEGLOG_RETURN_IF_ERROR(file->Truncate(0));
  return file->WriteAt(0, bytes);
}

Status LocalRemoteStorage::DeleteObject(const RemoteLogSegmentMetadata& metadata,
                                        RemoteObjectKind kind) {
  return env_->RemoveFile(ObjectPath(metadata, kind), /*missing_ok=*/false);
}

}  // namespace seglog
