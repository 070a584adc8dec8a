// MetadataLog (see the header).
#include "metadata/metadata_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "protocol/generated/begin_transaction_record.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/end_transaction_record.h"
#include "protocol/generated/k_raft_version_record.h"
#include "protocol/generated/leader_change_message.h"

namespace seglog {

namespace {

// The largest batch a metadata log takes (KRaft's limit plus the batch header).
constexpr int32_t kMaxMetadataMessageBytes = static_cast<int32_t>(kMaxMetadataBatchBytes) + 1024;

}  // namespace

MetadataLog::MetadataLog(std::string dir, MetadataLogOptions options)
    : dir_(std::move(dir)),
      options_(std::move(options)),
      env_(options_.env != nullptr ? options_.env : Env::Default()) {}

MetadataLog::~MetadataLog() {
  if (log_ != nullptr) (void)log_->Close();
}

int64_t MetadataLog::Now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t MetadataLog::end_offset() const { return log_->log_end_offset(); }
int64_t MetadataLog::start_offset() const { return log_->log_start_offset(); }

Result<std::unique_ptr<MetadataLog>> MetadataLog::Open(const std::string& log_dir,
                                                       MetadataLogOptions options) {
  std::unique_ptr<MetadataLog> ml(
      new MetadataLog(log_dir + "/" + kMetadataPartitionDir, std::move(options)));
  if (!ml->env_->FileExists(ml->dir_)) {
    return Status::NotFound(
        fmt::format("{} has no metadata log ({}): the directory is not formatted", log_dir,
                    kMetadataPartitionDir));
  }
  SEGLOG_RETURN_IF_ERROR(ml->LoadSnapshots());

  LogConfig config;
  config.segment_bytes =
      static_cast<int32_t>(std::min<int64_t>(ml->options_.segment_bytes, INT32_MAX));
  config.segment_ms = ml->options_.segment_ms;
  config.retention_ms = -1;
  config.retention_bytes = -1;
  config.max_message_bytes = kMaxMetadataMessageBytes;
  LogOptions lo;
  lo.clock = [m = ml.get()] { return m->Now(); };
  lo.read_only = ml->options_.read_only;
  lo.env = ml->env_;
  // As Kafka opens its metadata log: recovery point 0 and no clean shutdown, so every batch is
  // checked at every start and a torn tail is cut.
  lo.had_clean_shutdown = ml->options_.read_only;
  lo.recovery_point = 0;
  lo.logger = ml->options_.logger;
  lo.topic_id = kMetadataTopicId;
  Result<std::unique_ptr<Log>> log = Log::Open(ml->dir_, config, lo);
  if (!log.ok()) return log.status();
  ml->log_ = std::move(log).value();

  const int64_t log_start = ml->log_->log_start_offset();
  int64_t from = log_start;
  if (!ml->snapshots_.empty()) {
    from = ml->snapshots_.back().end_offset;
    if (from < log_start) {
      return Status::Corruption(fmt::format(
          "Inconsistent snapshot state: the latest snapshot {} ends below the log start offset "
          "{} of {}",
          SnapshotName(ml->snapshots_.back()), log_start, ml->dir_));
    }
  } else if (log_start > 0) {
    return Status::Corruption(fmt::format(
        "Inconsistent snapshot state: the log start offset of {} is {} and there is no snapshot",
        ml->dir_, log_start));
  }
  if (ml->snapshots_.empty() && ml->log_->log_end_offset() == 0) {
    return Status::NotFound(fmt::format(
        "{} has neither a snapshot nor a record: the directory is not formatted", ml->dir_));
  }
  if (from > ml->log_->log_end_offset()) {
    // Kafka truncates the log to the snapshot then; a log shorter than its snapshot has lost
    // nothing the snapshot does not hold.
    from = ml->log_->log_end_offset();
  }
  SEGLOG_RETURN_IF_ERROR(ml->ReplayLog(from));
  Result<QuorumState> qs = ReadQuorumState(ml->env_, ml->dir_);
  if (qs.ok()) {
    ml->quorum_data_version_ = qs.value().data_version;
    if (qs.value().leader_epoch < ml->last_batch_epoch_ && ml->options_.logger) {
      ml->options_.logger.Warn(
          fmt::format("Epoch from quorum store file ({}/{}) is {}, which is smaller "
                      "than last written epoch {} in the log",
                      ml->dir_, kQuorumStateFile, qs.value().leader_epoch, ml->last_batch_epoch_));
    }
    ml->epoch_ = std::max(ml->epoch_, qs.value().leader_epoch);
  } else if (!qs.status().IsNotFound()) {
    return qs.status();
  }
  if (ml->kraft_version_ >= 1) ml->quorum_data_version_ = 1;
  ml->last_snapshot_ms_ = ml->Now();
  return ml;
}

Status MetadataLog::LoadSnapshots() {
  Result<std::vector<std::string>> names = env_->ListDirectory(dir_);
  if (!names.ok()) return names.status();
  std::vector<SnapshotId> ids;
  for (const std::string& n : names.value()) {
    if (n.ends_with(kPartialSnapshotSuffix) || n.ends_with(kDeletedSnapshotSuffix)) {
      if (!options_.read_only) SEGLOG_RETURN_IF_ERROR(env_->RemoveFile(dir_ + "/" + n, true));
      continue;
    }
    if (auto id = ParseSnapshotFileName(n)) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  snapshots_ = ids;
  // The newest snapshot that reads cleanly; a corrupt one is logged and passed over.
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    const std::string path = fmt::format("{}/{}{}", dir_, SnapshotName(*it), kSnapshotSuffix);
    Result<SnapshotContents> contents = ReadSnapshot(env_, path);
    if (!contents.ok()) {
      if (options_.logger) {
        options_.logger.Warn(
            fmt::format("Skipping the snapshot {}: {}", path, contents.status().message()));
      }
      snapshots_.erase(std::find(snapshots_.begin(), snapshots_.end(), *it));
      continue;
    }
    MetadataImage image;
    for (size_t i = 0; i < contents.value().records.size(); ++i) {
      Status s = image.ReplayValue(contents.value().records[i]);
      if (!s.ok()) {
        return Status::Corruption(
            fmt::format("snapshot {}: record {}: {}", path, i + 1, s.message()));
      }
    }
    image_ = std::move(image);
    kraft_control_ = contents.value().control;
    for (const ControlRecordValue& c : kraft_control_) {
      if (c.type == ControlRecordType::kKRaftVersion) {
        Result<protocol::KRaftVersionRecord> v = protocol::KRaftVersionRecord::Parse(c.body, 0);
        if (v.ok()) kraft_version_ = v.value().k_raft_version;
      }
    }
    epoch_ = it->epoch;
    last_batch_epoch_ = it->epoch;
    last_record_timestamp_ = contents.value().last_contained_log_timestamp;
    // Snapshots newer than this one are unreadable: they stay on disk but are not counted.
    snapshots_.erase(std::upper_bound(snapshots_.begin(), snapshots_.end(), *it), snapshots_.end());
    return Status::OK();
  }
  return Status::OK();
}

Status MetadataLog::ReplayLog(int64_t from) {
  int64_t offset = from;
  const int64_t end = log_->log_end_offset();
  // Batches that start below `from` are read from their start; their records below it are
  // already in the snapshot.
  while (offset < end) {
    Result<FetchDataInfo> read = log_->Read(offset, kMaxMetadataMessageBytes, true);
    if (!read.ok()) return read.status();
    std::vector<uint8_t> bytes;
    SEGLOG_RETURN_IF_ERROR(read.value().slice.ReadInto(&bytes));
    if (bytes.empty()) break;
    size_t pos = 0;
    int64_t next = offset;
    while (pos < bytes.size()) {
      Result<RecordBatchView> batch =
          RecordBatchView::Parse(std::span<const uint8_t>(bytes).subspan(pos));
      if (!batch.ok()) break;  // a partial last batch: read again from its start
      const RecordBatchView& b = batch.value();
      pos += b.size_in_bytes();
      next = b.next_offset();
      if (b.last_offset() < from) continue;
      last_batch_epoch_ = b.partition_leader_epoch();
      epoch_ = std::max(epoch_, last_batch_epoch_);
      last_record_timestamp_ = b.max_timestamp();
      Status s = ForEachMetadataRecord(
          b,
          [&](int64_t at, std::span<const uint8_t> value) -> Status {
            if (at < from) return Status::OK();
            bytes_since_snapshot_ += static_cast<int64_t>(value.size());
            Status r = image_.ReplayValue(value);
            if (!r.ok()) {
              return Status::Corruption(
                  fmt::format("{}: the record at offset {} cannot be "
                              "replayed: {}",
                              dir_, at, r.message()));
            }
            return Status::OK();
          },
          [&](int64_t at, ControlRecordType type, std::span<const uint8_t> value) -> Status {
            if (at < from) return Status::OK();
            if (type == ControlRecordType::kKRaftVersion) {
              Result<protocol::KRaftVersionRecord> v =
                  protocol::KRaftVersionRecord::Parse(value, 0);
              if (v.ok()) kraft_version_ = v.value().k_raft_version;
            }
            return Status::OK();
          });
      if (!s.ok()) return s;
    }
    if (next <= offset) {
      return Status::Corruption(fmt::format("{}: no progress reading at offset {}", dir_, offset));
    }
    offset = next;
  }
  return Status::OK();
}

Status MetadataLog::AppendBatch(const std::vector<uint8_t>& batch) {
  Result<LogAppendInfo> info = log_->AppendWithAssignedOffsets(batch);
  if (!info.ok()) return info.status();
  SEGLOG_RETURN_IF_ERROR(log_->Flush(log_->log_end_offset()));
  last_batch_epoch_ = epoch_;
  return Status::OK();
}

Status MetadataLog::BecomeLeader() {
  if (options_.read_only) return Status::FailedPrecondition("the metadata log is read-only");
  const bool empty = log_->log_end_offset() == 0;
  const int32_t epoch = std::max(epoch_, last_batch_epoch_) + 1;
  QuorumState qs;
  qs.data_version = quorum_data_version_;
  qs.leader_id = options_.node_id;
  qs.leader_epoch = epoch;
  qs.voted_id = -1;
  if (qs.data_version == 0) qs.voters = {options_.node_id};
  SEGLOG_RETURN_IF_ERROR(WriteQuorumState(env_, dir_, qs));
  epoch_ = epoch;
  leader_ = true;
  if (options_.logger) {
    options_.logger.Info(
        fmt::format("Completed transition to Leader(localReplicaKey=ReplicaKey(id={}), "
                    "epoch={}) of {}",
                    options_.node_id, epoch, dir_));
  }
  protocol::LeaderChangeMessage lc;
  lc.leader_id = options_.node_id;
  protocol::LeaderChangeMessage::Voter self;
  self.voter_id = options_.node_id;
  lc.voters.push_back(self);
  lc.granting_voters.push_back(self);
  SEGLOG_ASSIGN_OR_RETURN(ControlRecordValue v,
                          EncodeControlRecord(ControlRecordType::kLeaderChange, lc));
  const int64_t now = Now();
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> batch,
                          BuildControlBatch(log_->log_end_offset(), epoch_, now, std::span(&v, 1)));
  SEGLOG_RETURN_IF_ERROR(AppendBatch(batch));
  if (!empty || snapshots_.empty()) return Status::OK();
  // An empty log after format: the bootstrap snapshot's records are appended as Kafka's
  // controller appends them, in one metadata transaction.
  SEGLOG_ASSIGN_OR_RETURN(std::vector<MetadataRecordValue> bootstrap, image_.SnapshotRecords());
  std::vector<MetadataRecordValue> records;
  protocol::BeginTransactionRecord begin;
  begin.name = "Bootstrap records";
  SEGLOG_ASSIGN_OR_RETURN(MetadataRecordValue b, EncodeMetadataRecord(begin));
  records.push_back(std::move(b));
  for (MetadataRecordValue& r : bootstrap) records.push_back(std::move(r));
  if (image_.FeatureLevel(kEligibleLeaderReplicasFeature) >= 1) {
    // With ELR, Kafka's controller sets the cluster-wide min.insync.replicas (the node's own
    // setting, 1 by default; a single node's is 1).
    protocol::ConfigRecord min_isr;
    min_isr.resource_type = kConfigResourceBroker;
    min_isr.resource_name = "";
    min_isr.name = "min.insync.replicas";
    min_isr.value = "1";
    SEGLOG_ASSIGN_OR_RETURN(MetadataRecordValue c, EncodeMetadataRecord(min_isr));
    records.push_back(std::move(c));
  }
  SEGLOG_ASSIGN_OR_RETURN(MetadataRecordValue e,
                          EncodeMetadataRecord(protocol::EndTransactionRecord{}));
  records.push_back(std::move(e));
  if (options_.logger) {
    options_.logger.Info(
        fmt::format("The metadata log appears to be empty. Appending {} bootstrap "
                    "record(s) at metadata.version {} from bootstrap source "
                    "'bootstrap'.",
                    bootstrap.size(), image_.FeatureLevel(kMetadataVersionFeature)));
  }
  // The bootstrap records are in the image already (from the snapshot); only the broker default
  // is new, so the whole batch is replayed into a fresh image built from it.
  MetadataImage replayed;
  for (const MetadataRecordValue& r : records)
    SEGLOG_RETURN_IF_ERROR(replayed.ReplayValue(r.bytes));
  SEGLOG_ASSIGN_OR_RETURN(batch, BuildMetadataBatch(log_->log_end_offset(), epoch_, now, records));
  SEGLOG_RETURN_IF_ERROR(AppendBatch(batch));
  image_ = std::move(replayed);
  last_record_timestamp_ = now;
  return Status::OK();
}

Status MetadataLog::Append(std::span<const MetadataRecordValue> records) {
  if (!leader_) return Status::FailedPrecondition("the metadata log is not the leader's");
  if (records.empty()) return Status::OK();
  const int64_t now = Now();
  SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> batch,
                          BuildMetadataBatch(log_->log_end_offset(), epoch_, now, records));
  if (batch.size() > kMaxMetadataBatchBytes) {
    return Status::InvalidArgument(fmt::format(
        "a metadata batch of {} records is {} bytes, more than the {} bytes KRaft allows",
        records.size(), batch.size(), kMaxMetadataBatchBytes));
  }
  SEGLOG_RETURN_IF_ERROR(AppendBatch(batch));
  last_record_timestamp_ = now;
  for (const MetadataRecordValue& r : records) {
    bytes_since_snapshot_ += static_cast<int64_t>(r.bytes.size());
    Status s = image_.ReplayValue(r.bytes);
    if (!s.ok()) {
      return Status::Corruption(
          fmt::format("{}: a record just appended cannot be replayed: {}", dir_, s.message()));
    }
  }
  return Status::OK();
}

Status MetadataLog::MaybeSnapshot() {
  if (options_.read_only || !leader_) return Status::OK();
  const int64_t now = Now();
  const bool by_bytes = bytes_since_snapshot_ >= options_.max_record_bytes_between_snapshots;
  const bool by_time = options_.max_snapshot_interval_ms > 0 && bytes_since_snapshot_ > 0 &&
                       now - last_snapshot_ms_ >= options_.max_snapshot_interval_ms;
  if (by_bytes || by_time) {
    if (options_.logger) {
      options_.logger.Info(
          fmt::format("Creating new KRaft snapshot file snapshot {} because {}",
                      SnapshotName({log_->log_end_offset(), last_batch_epoch_}),
                      by_bytes ? fmt::format("we have replayed at least {} bytes",
                                             options_.max_record_bytes_between_snapshots)
                               : fmt::format("we have waited at least {} minute(s)",
                                             options_.max_snapshot_interval_ms / 60000)));
    }
    SEGLOG_RETURN_IF_ERROR(Snapshot());
  }
  return CleanSnapshots();
}

Status MetadataLog::Snapshot() {
  if (options_.read_only) return Status::FailedPrecondition("the metadata log is read-only");
  if (image_.in_transaction()) return Status::OK();  // not at a transaction boundary
  const SnapshotId id{log_->log_end_offset(), last_batch_epoch_};
  if (!snapshots_.empty() && snapshots_.back().end_offset >= id.end_offset) return Status::OK();
  SEGLOG_ASSIGN_OR_RETURN(std::vector<MetadataRecordValue> records, image_.SnapshotRecords());
  const int64_t now = Now();
  SEGLOG_RETURN_IF_ERROR(
      WriteSnapshot(env_, dir_, id, last_record_timestamp_, now, kraft_control_, records));
  snapshots_.push_back(id);
  bytes_since_snapshot_ = 0;
  last_snapshot_ms_ = now;
  return Status::OK();
}

Status MetadataLog::CleanSnapshots() {
  // Kafka's RaftMetadataLogCleanerManager: only with two snapshots or more; the newest stays.
  while (snapshots_.size() >= 2) {
    const SnapshotId oldest = snapshots_.front();
    const std::string path = fmt::format("{}/{}{}", dir_, SnapshotName(oldest), kSnapshotSuffix);
    int64_t snapshot_bytes = 0;
    for (const SnapshotId& id : snapshots_) {
      Result<FileStat> st =
          env_->Stat(fmt::format("{}/{}{}", dir_, SnapshotName(id), kSnapshotSuffix));
      if (st.ok()) snapshot_bytes += static_cast<int64_t>(st.value().size);
    }
    const bool over_bytes = options_.max_retention_bytes >= 0 &&
                            log_->size_in_bytes() + snapshot_bytes > options_.max_retention_bytes;
    bool over_time = false;
    if (options_.max_retention_ms >= 0) {
      Result<SnapshotContents> c = ReadSnapshot(env_, path);
      over_time =
          c.ok() && Now() - c.value().last_contained_log_timestamp > options_.max_retention_ms;
    }
    if (!over_bytes && !over_time) break;
    const int64_t next_start = snapshots_[1].end_offset;
    if (next_start > log_->log_start_offset()) {
      Result<int64_t> moved = log_->DeleteRecords(next_start);
      if (!moved.ok()) return moved.status();
      Result<int> deleted = log_->DeleteOldSegments();
      if (!deleted.ok()) return deleted.status();
    }
    const std::string deleted = path + ".deleted";
    SEGLOG_RETURN_IF_ERROR(env_->RenameFile(path, deleted));
    SEGLOG_RETURN_IF_ERROR(env_->RemoveFile(deleted, true));
    snapshots_.erase(snapshots_.begin());
    if (options_.logger) {
      options_.logger.Info(fmt::format("Deleted the snapshot {} of {}: the log start offset is {}",
                                       SnapshotName(oldest), dir_, log_->log_start_offset()));
    }
  }
  return Status::OK();
}

Status MetadataLog::Close() {
  if (log_ == nullptr) return Status::OK();
  Status s = log_->Close();
  log_.reset();
  return s;
}

}  // namespace seglog
