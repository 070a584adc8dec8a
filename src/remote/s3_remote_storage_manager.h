// S3RemoteStorageManager: RemoteStorageManager over an S3 bucket (S3Client). A copied segment
// is up to six objects, one per local file, named so that an operator can download them and
// run Kafka's DumpLogSegments on the copy (docs/format/remote_storage.md):
//
//   <key.prefix><topic>-<topic id>/<partition>/<start offset, 20 digits>-<segment id>.<suffix>
//
//   e.g. tiered/orders-Ws7Ti6EmQf2aCgn4kKEJ7w/3/00000000000000001000-J8yYbm1ZRdKp3gQ5nE7mLw.log
//
// suffix: log, index, timeindex, txnindex (only when the segment has one), snapshot,
// leader-epoch-checkpoint. CopyLogSegmentData returns SegmentObjects (segment_objects.h) as the
// custom metadata - each object's size and CRC-32C - and the fetches check against it: a
// missing object is NotFound naming its key, a short or damaged one Corruption naming the
// bucket/key and the position. The objects of one copy upload in parallel (the .log as a
// multipart upload above the part size), within the client's transfer bound.
//
// Thread safety: thread-safe (the S3Client is; the manager holds no other mutable state).
#ifndef SEGLOG_REMOTE_S3_REMOTE_STORAGE_MANAGER_H_
#define SEGLOG_REMOTE_S3_REMOTE_STORAGE_MANAGER_H_

#include <map>
#include <memory>
#include <string>

#include "remote/remote_storage_manager.h"
#include "remote/s3_client.h"
#include "remote/s3_storage_config.h"
#include "remote/segment_objects.h"

namespace seglog {

class S3RemoteStorageManager : public RemoteStorageManager {
 public:
  // InvalidArgument for a configuration the client refuses. Makes no request.
  static Result<std::unique_ptr<S3RemoteStorageManager>> Open(S3StorageConfig config);
  // S3StorageConfig::FromProperties, then Open.
  static Result<std::unique_ptr<S3RemoteStorageManager>> FromProperties(
      const std::map<std::string, std::string>& properties);

  Result<std::optional<std::vector<uint8_t>>> CopyLogSegmentData(
      const RemoteLogSegmentMetadata& metadata, const LogSegmentData& data) override;
  // Also Corruption when the .log object holds fewer bytes than the copy recorded.
  Result<std::vector<uint8_t>> FetchLogSegment(const RemoteLogSegmentMetadata& metadata,
                                               int64_t position, int64_t max_bytes) override;
  Result<std::vector<uint8_t>> FetchIndex(const RemoteLogSegmentMetadata& metadata,
                                          IndexType type) override;
  Status DeleteLogSegmentData(const RemoteLogSegmentMetadata& metadata) override;

  // The key of one object of the copy `metadata` names.
  std::string ObjectKey(const RemoteLogSegmentMetadata& metadata, RemoteObjectKind kind) const;
  const std::string& bucket() const { return config_.bucket; }
  S3Client* client() { return client_.get(); }

 private:
  S3RemoteStorageManager(S3StorageConfig config, std::unique_ptr<S3Client> client)
      : config_(std::move(config)), client_(std::move(client)) {}
  // The decoded custom metadata; FailedPrecondition naming the segment when it has none.
  Result<SegmentObjects> Objects(const RemoteLogSegmentMetadata& metadata) const;

  const S3StorageConfig config_;
  const std::unique_ptr<S3Client> client_;
};

}  // namespace seglog

#endif  // SEGLOG_REMOTE_S3_REMOTE_STORAGE_MANAGER_H_
