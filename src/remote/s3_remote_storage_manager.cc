// S3RemoteStorageManager (s3_remote_storage_manager.h).
#include "remote/s3_remote_storage_manager.h"

#include <thread>

#include <fmt/format.h>

#include "base/crc32c.h"
#include "base/mutex.h"
#include "io/env.h"

namespace seglog {
namespace {

// Size and CRC-32C of a whole file, streamed.
Status Checksum(Env* env, const std::string& path, SegmentObject* out) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, env->OpenFile(path, File::Mode::kReadOnly));
  std::vector<uint8_t> buf(1 << 20);
  uint32_t crc = Crc32c({});
  int64_t position = 0;
  for (;;) {
    SEGLOG_ASSIGN_OR_RETURN(const size_t n, file->ReadAtMost(position, buf));
    if (n == 0) break;
    crc = Crc32cExtend(crc, std::span<const uint8_t>(buf.data(), n));
    position += static_cast<int64_t>(n);
  }
  out->size = position;
  out->crc32c = crc;
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<S3RemoteStorageManager>> S3RemoteStorageManager::Open(
    S3StorageConfig config) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<S3Client> client, S3Client::Create(config.client));
  return std::unique_ptr<S3RemoteStorageManager>(
      new S3RemoteStorageManager(std::move(config), std::move(client)));
}

Result<std::unique_ptr<S3RemoteStorageManager>> S3RemoteStorageManager::FromProperties(
    const std::map<std::string, std::string>& properties) {
  SEGLOG_ASSIGN_OR_RETURN(S3StorageConfig config, S3StorageConfig::FromProperties(properties));
  return Open(std::move(config));
}

std::string S3RemoteStorageManager::ObjectKey(const RemoteLogSegmentMetadata& metadata,
                                              RemoteObjectKind kind) const {
  const TopicIdPartition& p = metadata.segment_id.partition;
  return fmt::format("{}{}-{}/{}/{:020d}-{}.{}", config_.key_prefix, p.tp.topic,
                     p.topic_id.ToString(), p.tp.partition, metadata.start_offset,
                     metadata.segment_id.id.ToString(), RemoteObjectSuffix(kind));
}

Result<SegmentObjects> S3RemoteStorageManager::Objects(
    const RemoteLogSegmentMetadata& metadata) const {
  if (!metadata.custom_metadata.has_value()) {
    return Status::FailedPrecondition(
        fmt::format("{}: no custom metadata, so the objects' sizes and checksums are unknown",
                    DescribeRemoteSegment(metadata)));
  }
  Result<SegmentObjects> objects = SegmentObjects::Decode(*metadata.custom_metadata);
  if (!objects.ok()) return objects.status().WithContext(DescribeRemoteSegment(metadata));
  return objects;
}

Result<std::optional<std::vector<uint8_t>>> S3RemoteStorageManager::CopyLogSegmentData(
    const RemoteLogSegmentMetadata& metadata, const LogSegmentData& data) {
  Env* env = config_.client.env != nullptr ? config_.client.env : Env::Default();
  struct Upload {
    RemoteObjectKind kind;
    const std::string* path;  // null: `bytes`
    std::span<const uint8_t> bytes;
    SegmentObject object;
    Status status;
  };
  std::vector<Upload> uploads;
  uploads.push_back({RemoteObjectKind::kLog, &data.log_segment, {}, {}, {}});
  uploads.push_back({RemoteObjectKind::kOffsetIndex, &data.offset_index, {}, {}, {}});
  uploads.push_back({RemoteObjectKind::kTimeIndex, &data.time_index, {}, {}, {}});
  if (data.transaction_index.has_value()) {
    uploads.push_back({RemoteObjectKind::kTransactionIndex, &*data.transaction_index, {}, {}, {}});
  }
  // A segment without a producer snapshot (an empty path) copies none; fetching it is NotFound.
  if (!data.producer_snapshot.empty()) {
    uploads.push_back({RemoteObjectKind::kProducerSnapshot, &data.producer_snapshot, {}, {}, {}});
  }
  uploads.push_back(
      {RemoteObjectKind::kLeaderEpochCheckpoint, nullptr, data.leader_epoch_index, {}, {}});

  auto run = [&](Upload* u) {
    u->object.kind = u->kind;
    const std::string key = ObjectKey(metadata, u->kind);
    if (u->path == nullptr) {
      u->object.size = static_cast<int64_t>(u->bytes.size());
      u->object.crc32c = Crc32c(u->bytes);
      u->status = client_->PutObject(config_.bucket, key, u->bytes);
      return;
    }
    u->status = Checksum(env, *u->path, &u->object);
    if (!u->status.ok()) return;
    Result<int64_t> sent = client_->PutObjectFromFile(config_.bucket, key, *u->path);
    if (!sent.ok()) {
      u->status = sent.status();
    } else if (*sent != u->object.size) {
      u->status = Status::Aborted(
          fmt::format("{} changed while being copied: {} bytes checksummed, {} uploaded to {}/{}",
                      *u->path, u->object.size, *sent, config_.bucket, key));
    }
  };
  // One thread per object; the client's semaphore bounds the transfers actually in flight.
  std::vector<std::thread> threads;
  threads.reserve(uploads.size() - 1);
  for (size_t i = 1; i < uploads.size(); ++i) threads.emplace_back(run, &uploads[i]);
  run(&uploads[0]);
  for (std::thread& t : threads) t.join();

  SegmentObjects objects;
  for (const Upload& u : uploads) {
    if (!u.status.ok())
      return u.status.WithContext(fmt::format("copy of {}", DescribeRemoteSegment(metadata)));
    objects.objects.push_back(u.object);
  }
  return std::optional<std::vector<uint8_t>>(objects.Encode());
}

Result<std::vector<uint8_t>> S3RemoteStorageManager::FetchLogSegment(
    const RemoteLogSegmentMetadata& metadata, int64_t position, int64_t max_bytes) {
  const std::string key = ObjectKey(metadata, RemoteObjectKind::kLog);
  if (position < 0 || max_bytes < 0) {
    return Status::InvalidArgument(fmt::format("fetch of {}/{}: position {} and max bytes {}",
                                               config_.bucket, key, position, max_bytes));
  }
  SEGLOG_ASSIGN_OR_RETURN(const SegmentObjects objects, Objects(metadata));
  const std::optional<SegmentObject> log = objects.Find(RemoteObjectKind::kLog);
  if (!log.has_value()) {
    return Status::Corruption(fmt::format("{}: the custom metadata lists no .log object",
                                          DescribeRemoteSegment(metadata)));
  }
  if (position > log->size) {
    return Status::OutOfRange(fmt::format("fetch of {}/{}: position {} is past its {} bytes",
                                          config_.bucket, key, position, log->size));
  }
  const int64_t length = std::min(max_bytes, log->size - position);
  if (length == 0) return std::vector<uint8_t>();
  Result<std::vector<uint8_t>> bytes =
      client_->GetObjectRange(config_.bucket, key, position, length);
  if (!bytes.ok()) {
    if (bytes.status().IsOutOfRange()) {
      return Status::Corruption(
          fmt::format("{}/{} is truncated: no byte at position {}, the copy recorded {} bytes",
                      config_.bucket, key, position, log->size));
    }
    return bytes.status().WithContext(fmt::format("fetch at position {}", position));
  }
  if (static_cast<int64_t>(bytes->size()) < length) {
    return Status::Corruption(fmt::format(
        "{}/{} is truncated: it ends at position {}, the copy recorded {} bytes (fetch of {} "
        "bytes at position {})",
        config_.bucket, key, position + static_cast<int64_t>(bytes->size()), log->size, length,
        position));
  }
  return bytes;
}

Result<std::vector<uint8_t>> S3RemoteStorageManager::FetchIndex(
    const RemoteLogSegmentMetadata& metadata, IndexType type) {
  const RemoteObjectKind kind = ObjectKindOf(type);
  const std::string key = ObjectKey(metadata, kind);
  SEGLOG_ASSIGN_OR_RETURN(const SegmentObjects objects, Objects(metadata));
  const std::optional<SegmentObject> expected = objects.Find(kind);
  if (!expected.has_value()) {
    return Status::NotFound(fmt::format("{}: the copy has no {} index ({}/{} was not written)",
                                        DescribeRemoteSegment(metadata), IndexTypeName(type),
                                        config_.bucket, key));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, client_->GetObject(config_.bucket, key));
  if (static_cast<int64_t>(bytes.size()) != expected->size) {
    return Status::Corruption(fmt::format("{}/{}: {} bytes, the copy recorded {}", config_.bucket,
                                          key, bytes.size(), expected->size));
  }
  const uint32_t crc = Crc32c(bytes);
  if (crc != expected->crc32c) {
    return Status::Corruption(
        fmt::format("{}/{}: CRC-32C 0x{:08x}, the copy recorded 0x{:08x} ({} bytes)",
                    config_.bucket, key, crc, expected->crc32c, bytes.size()));
  }
  return bytes;
}

Status S3RemoteStorageManager::DeleteLogSegmentData(const RemoteLogSegmentMetadata& metadata) {
  // Every kind, whatever the custom metadata says: a copy that failed halfway has no custom
  // metadata but may have objects.
  Status first;
  for (int k = 0; k < kRemoteObjectKinds; ++k) {
    const std::string key = ObjectKey(metadata, static_cast<RemoteObjectKind>(k));
    Status s = client_->DeleteObject(config_.bucket, key);
    if (!s.ok() && first.ok()) first = s;
  }
  return first.WithContext(fmt::format("delete of {}", DescribeRemoteSegment(metadata)));
}

}  // namespace seglog
