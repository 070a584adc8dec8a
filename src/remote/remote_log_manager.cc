// RemoteLogManager; see remote_log_manager.h and docs/design/tiered_storage.md.
#include "remote/remote_log_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "base/coding.h"
#include "base/uuid.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

// A batch's total size from its first 12 bytes (base offset, length).
constexpr int64_t kBatchPrefix = 12;
// The most a remote read fetches at once beyond what it was asked for, and at least.
constexpr int64_t kMinChunk = 64 * 1024;
// A batch length beyond this is not a batch (Kafka's largest message is far below it).
constexpr int64_t kMaxBatchBytes = int64_t{1} << 30;

// The leader-epoch checkpoint's text (version 0, count, "<epoch> <start offset>" lines) of the
// epochs that start below `next_offset`: the slice Kafka copies with a segment.
std::vector<uint8_t> EpochCheckpointText(const std::vector<std::pair<int32_t, int64_t>>& epochs,
                                         int64_t next_offset) {
  std::vector<std::pair<int32_t, int64_t>> kept;
  for (const auto& e : epochs) {
    if (e.second < next_offset) kept.push_back(e);
  }
  std::string text = fmt::format("0\n{}\n", kept.size());
  for (const auto& [epoch, start] : kept) text += fmt::format("{} {}\n", epoch, start);
  return std::vector<uint8_t>(text.begin(), text.end());
}

// Epoch -> its first offset within [start, end] (RemoteLogSegmentMetadata's
// segmentLeaderEpochs); at least one entry.
std::map<int32_t, int64_t> SegmentEpochs(const std::vector<std::pair<int32_t, int64_t>>& epochs,
                                         int64_t start, int64_t end) {
  std::map<int32_t, int64_t> out;
  for (size_t i = 0; i < epochs.size(); ++i) {
    const int64_t from = epochs[i].second;
    const int64_t until = i + 1 < epochs.size() ? epochs[i + 1].second : INT64_MAX;
    if (from <= end && until > start) out[epochs[i].first] = std::max(from, start);
  }
  if (out.empty()) out[0] = start;
  return out;
}

bool IsFinished(const RemoteLogSegmentMetadata& s) {
  return s.state == RemoteLogSegmentState::kCopySegmentFinished;
}

}  // namespace

RemoteLogManager::RemoteLogManager(LogManager* logs, RemoteStorageManager* rsm,
                                   RemoteLogMetadataManager* rlmm, RemoteIndexCache* cache,
                                   Scheduler* scheduler, RemoteLogManagerOptions options)
    : logs_(logs),
      rsm_(rsm),
      rlmm_(rlmm),
      cache_(cache),
      scheduler_(scheduler),
      options_(std::move(options)),
      readers_(options_.reader_threads, options_.reader_max_pending_tasks) {}

RemoteLogManager::~RemoteLogManager() { Shutdown(); }

void RemoteLogManager::Start() {
  scheduler_->Schedule(
      "remote-log-manager",
      [this] {
        if (Status s = RunOnce(); !s.ok()) Warn("remote log manager pass: " + s.ToString());
      },
      options_.task_interval_ms, options_.task_interval_ms);
}

void RemoteLogManager::Shutdown() {
  shut_down_.store(true, std::memory_order_release);
  readers_.Shutdown();    // queued reads cancelled, running ones finish
  MutexLock l(&run_mu_);  // waits for a running pass
}

int64_t RemoteLogManager::Now() const {
  return options_.clock ? options_.clock() : scheduler_->NowMs();
}

RemoteLogManagerStats RemoteLogManager::stats() const {
  RemoteLogManagerStats s;
  s.segments_copied = stats_.segments_copied.load();
  s.bytes_copied = stats_.bytes_copied.load();
  s.copy_failures = stats_.copy_failures.load();
  s.segments_deleted = stats_.segments_deleted.load();
  s.orphans_deleted = stats_.orphans_deleted.load();
  s.delete_failures = stats_.delete_failures.load();
  s.remote_reads = stats_.remote_reads.load();
  s.remote_read_failures = stats_.remote_read_failures.load();
  return s;
}

// ---------------------------------------------------------------------------------------------
// The pass

Status RemoteLogManager::RunOnce() {
  MutexLock l(&run_mu_);
  if (shut_down_.load(std::memory_order_acquire)) return Status::OK();
  std::vector<PartitionRef> tiered;
  std::vector<TopicIdPartition> to_delete;
  SEGLOG_RETURN_IF_ERROR(CollectPartitions(&tiered, &to_delete));
  Status first;
  auto keep = [&first](const Status& s) {
    if (!s.ok() && first.ok()) first = s;
  };
  for (PartitionRef& p : tiered) {
    if (shut_down_.load(std::memory_order_acquire)) break;
    Status s = RunPartition(p);
    if (!s.ok()) Warn(fmt::format("{}: {}", p.tp.ToString(), s.ToString()));
    keep(s);
  }
  for (const TopicIdPartition& id : to_delete) {
    if (shut_down_.load(std::memory_order_acquire)) break;
    keep(DeletePartitionData(id));
  }
  return first;
}

Status RemoteLogManager::CollectPartitions(std::vector<PartitionRef>* tiered,
                                           std::vector<TopicIdPartition>* to_delete) {
  std::set<std::pair<std::string, int32_t>> live;  // (topic id text, partition)
  for (const auto& [topic, md] : logs_->AllTopicMetadata()) {
    if (md.topic_id.empty()) continue;
    Result<Uuid> topic_id = Uuid::Parse(md.topic_id);
    if (!topic_id.ok()) continue;
    for (int32_t i = 0; i < md.partitions; ++i) {
      PartitionRef p;
      p.tp = TopicPartition{topic, i};
      p.id = TopicIdPartition{*topic_id, p.tp};
      Result<std::shared_ptr<Log>> log = logs_->GetLog(p.tp);
      if (!log.ok()) continue;
      live.insert({md.topic_id, i});
      p.log = *log;
      p.config = p.log->config();
      if (p.log->remote_log_enabled()) {
        tiered->push_back(std::move(p));
      } else if (p.config.remote_log_delete_on_disable &&
                 !rlmm_->ListRemoteLogSegments(p.id).empty()) {
        // Remote storage turned off with remote.log.delete.on.disable: the log starts at its
        // local data (Kafka raises it to the local log start), and the remote data goes.
        const int64_t local_start = p.log->local_log_start_offset();
        if (p.log->log_start_offset() < local_start) {
          Result<int64_t> raised = p.log->DeleteRecords(local_start);
          if (!raised.ok()) Warn(raised.status().ToString());
        }
        to_delete->push_back(p.id);
      }
    }
  }
  // The remote data of partitions that no longer exist (deleted topics).
  for (const TopicIdPartition& id : rlmm_->Partitions()) {
    if (!live.count({id.topic_id.ToString(), id.tp.partition})) to_delete->push_back(id);
  }
  return Status::OK();
}

Status RemoteLogManager::RunPartition(PartitionRef& p) {
  SEGLOG_RETURN_IF_ERROR(CleanupUnfinished(p));
  const std::vector<RemoteLogSegmentMetadata> segments = rlmm_->ListRemoteLogSegments(p.id);
  int64_t highest = -1;
  int64_t earliest = -1;
  for (const RemoteLogSegmentMetadata& s : segments) {
    if (!IsFinished(s)) continue;
    highest = std::max(highest, s.end_offset);
    if (earliest < 0 || s.start_offset < earliest) earliest = s.start_offset;
  }
  p.log->UpdateHighestOffsetInRemoteStorage(highest);
  const std::string key = p.tp.ToString();
  if (!initialised_.count(key)) {
    // The log start offset of a tiered log at its first pass: the earliest remote segment's
    // start, or the local log start when nothing is remote (a checkpoint may be older).
    const int64_t start = earliest >= 0 ? earliest : p.log->local_log_start_offset();
    SEGLOG_RETURN_IF_ERROR(p.log->UpdateLogStartOffsetFromRemoteTier(start));
    initialised_.insert(key);
  }
  Status copied = Status::OK();
  if (p.log->remote_copy_enabled() && !copy_stopped_.count(key)) copied = CopySegments(p);
  // Expiration runs whether or not the copy failed.
  Status expired = ExpireSegments(p);
  return copied.ok() ? expired : copied;
}

Status RemoteLogManager::CleanupUnfinished(const PartitionRef& p) {
  Status first;
  for (const RemoteLogSegmentMetadata& s : rlmm_->ListRemoteLogSegments(p.id)) {
    if (s.state != RemoteLogSegmentState::kCopySegmentStarted &&
        s.state != RemoteLogSegmentState::kDeleteSegmentStarted) {
      continue;
    }
    Info(fmt::format("Deleting the unfinished {} ({})", DescribeRemoteSegment(s),
                     RemoteLogSegmentStateName(s.state)));
    Status d = DeleteRemoteSegment(s);
    if (d.ok()) {
      stats_.orphans_deleted.fetch_add(1);
    } else if (first.ok()) {
      first = d;
    }
  }
  return first;
}

Status RemoteLogManager::CopySegments(PartitionRef& p) {
  const int64_t highest = p.log->highest_offset_in_remote_storage();
  const int64_t from = std::max(highest + 1, p.log->log_start_offset());
  SEGLOG_ASSIGN_OR_RETURN(std::vector<RemoteCopyCandidate> rolled, p.log->RemoteCopyCandidates(0));
  // KIP-1241: a segment waits until it is remote.copy.lag.ms old, or remote.copy.lag.bytes
  // follow it (-1: the effective local retention; 0 for the time: no wait).
  const int64_t lag_ms =
      p.config.remote_copy_lag_ms == -1 ? p.config.LocalRetentionMs() : p.config.remote_copy_lag_ms;
  const int64_t lag_bytes = p.config.remote_copy_lag_bytes == -1 ? p.config.LocalRetentionBytes()
                                                                 : p.config.remote_copy_lag_bytes;
  const int64_t total = p.log->size_in_bytes();
  int64_t through = 0;  // local bytes up to and including the candidate
  const int64_t now = Now();
  for (const RemoteCopyCandidate& c : rolled) {
    through += c.size_bytes;
    if (c.end_offset < from) continue;
    if (lag_ms > 0) {
      const bool old_enough = c.max_timestamp >= 0 && now - c.max_timestamp >= lag_ms;
      const bool enough_after = lag_bytes >= 0 && total - through >= lag_bytes;
      if (!old_enough && !enough_after) break;
    }
    if (shut_down_.load(std::memory_order_acquire)) break;
    SEGLOG_RETURN_IF_ERROR(CopySegment(p, c));
  }
  return Status::OK();
}

Status RemoteLogManager::CopySegment(PartitionRef& p, const RemoteCopyCandidate& c) {
  const std::vector<std::pair<int32_t, int64_t>> epochs = p.log->leader_epochs();
  RemoteLogSegmentMetadata md;
  md.segment_id = RemoteLogSegmentId{p.id, Uuid::Random()};
  md.start_offset = c.base_offset;
  md.end_offset = c.end_offset;
  md.max_timestamp_ms = c.max_timestamp;
  md.broker_id = options_.broker_id;
  md.event_timestamp_ms = Now();
  md.segment_leader_epochs = SegmentEpochs(epochs, c.base_offset, c.end_offset);
  md.segment_size_in_bytes = static_cast<int32_t>(c.size_bytes);
  md.state = RemoteLogSegmentState::kCopySegmentStarted;
  md.txn_index_empty = c.txn_index_path.empty();
  SEGLOG_RETURN_IF_ERROR(rlmm_->AddRemoteLogSegmentMetadata(md));

  LogSegmentData data;
  data.log_segment = c.log_path;
  data.offset_index = c.offset_index_path;
  data.time_index = c.time_index_path;
  if (!c.txn_index_path.empty()) data.transaction_index = c.txn_index_path;
  data.producer_snapshot = c.producer_snapshot_path;
  data.leader_epoch_index = EpochCheckpointText(epochs, c.end_offset + 1);
  Result<std::optional<std::vector<uint8_t>>> copied = rsm_->CopyLogSegmentData(md, data);
  Status failure;
  if (!copied.ok()) {
    failure = copied.status().WithContext(fmt::format("copying {}", DescribeRemoteSegment(md)));
  } else if (*copied && static_cast<int64_t>((*copied)->size()) >
                            static_cast<int64_t>(options_.custom_metadata_max_bytes)) {
    // Kafka's CustomMetadataSizeLimitExceededException.
    failure = Status::InvalidArgument(
        fmt::format("Custom metadata size {} exceeds configured limit {} for {}", (*copied)->size(),
                    options_.custom_metadata_max_bytes, DescribeRemoteSegment(md)));
  }
  if (!failure.ok()) {
    stats_.copy_failures.fetch_add(1);
    if (failure.IsInvalidArgument() && copied.ok()) {
      copy_stopped_.insert(p.tp.ToString());
      Error(fmt::format("{}; copying to remote storage is stopped for {} until a restart",
                        failure.ToString(), p.tp.ToString()));
    }
    // The objects written so far go now; if that fails too, the next pass's cleanup retries.
    if (Status d = DeleteRemoteSegment(md); !d.ok()) Warn(d.ToString());
    return failure;
  }
  md.custom_metadata = *copied;
  md.state = RemoteLogSegmentState::kCopySegmentFinished;
  md.event_timestamp_ms = Now();
  SEGLOG_RETURN_IF_ERROR(rlmm_->UpdateRemoteLogSegmentMetadata(md));
  p.log->UpdateHighestOffsetInRemoteStorage(c.end_offset);
  stats_.segments_copied.fetch_add(1);
  stats_.bytes_copied.fetch_add(c.size_bytes);
  Info(fmt::format("Copied {} to remote storage with segment-id: {}",
                   c.log_path.substr(c.log_path.rfind('/') + 1), md.segment_id.id.ToString()));
  return Status::OK();
}

Status RemoteLogManager::ExpireSegments(PartitionRef& p) {
  std::vector<RemoteLogSegmentMetadata> finished;
  for (RemoteLogSegmentMetadata& s : rlmm_->ListRemoteLogSegments(p.id)) {
    if (IsFinished(s)) finished.push_back(std::move(s));
  }
  if (finished.empty()) return Status::OK();
  std::sort(finished.begin(), finished.end(),
            [](const auto& a, const auto& b) { return a.start_offset < b.start_offset; });
  const int64_t log_start = p.log->log_start_offset();
  const int64_t highest = p.log->highest_offset_in_remote_storage();
  const bool by_time = p.config.cleanup_delete && p.config.retention_ms >= 0;
  const bool by_size = p.config.cleanup_delete && p.config.retention_bytes >= 0;
  int64_t excess = 0;
  if (by_size) {
    // The whole log's size: remote segments, plus the local bytes not yet remote.
    int64_t total = 0;
    for (const auto& s : finished) total += s.segment_size_in_bytes;
    int64_t local_copied = 0;
    SEGLOG_ASSIGN_OR_RETURN(std::vector<RemoteCopyCandidate> rolled,
                            p.log->RemoteCopyCandidates(0));
    for (const RemoteCopyCandidate& c : rolled) {
      if (c.end_offset <= highest) local_copied += c.size_bytes;
    }
    total += p.log->size_in_bytes() - local_copied;
    excess = total - p.config.retention_bytes;
  }
  const int64_t now = Now();
  std::vector<RemoteLogSegmentMetadata> expired;
  int64_t new_log_start = -1;
  for (const RemoteLogSegmentMetadata& s : finished) {
    if (s.end_offset < log_start) {  // below the log start offset (DeleteRecords, or raised)
      expired.push_back(s);
      continue;
    }
    const bool time_breach =
        by_time && s.max_timestamp_ms >= 0 && now - s.max_timestamp_ms > p.config.retention_ms;
    const bool size_breach = by_size && excess - s.segment_size_in_bytes >= 0;
    if (!time_breach && !size_breach) break;
    excess -= s.segment_size_in_bytes;
    new_log_start = s.end_offset + 1;
    Info(fmt::format("About to delete {} due to retention {} breach", DescribeRemoteSegment(s),
                     time_breach ? fmt::format("time {}ms", p.config.retention_ms)
                                 : fmt::format("size {} bytes", p.config.retention_bytes)));
    expired.push_back(s);
  }
  if (expired.empty()) return Status::OK();
  // The log start offset moves before any data goes, so no reader is sent to a deleted object.
  if (new_log_start > log_start) {
    SEGLOG_RETURN_IF_ERROR(p.log->UpdateLogStartOffsetFromRemoteTier(new_log_start));
  }
  for (const RemoteLogSegmentMetadata& s : expired) {
    if (shut_down_.load(std::memory_order_acquire)) break;
    SEGLOG_RETURN_IF_ERROR(DeleteRemoteSegment(s));
    stats_.segments_deleted.fetch_add(1);
  }
  return Status::OK();
}

Status RemoteLogManager::DeletePartitionData(const TopicIdPartition& id) {
  for (const RemoteLogSegmentMetadata& s : rlmm_->ListRemoteLogSegments(id)) {
    if (shut_down_.load(std::memory_order_acquire)) break;
    Info(fmt::format("Deleting {}: its partition's remote data is being deleted",
                     DescribeRemoteSegment(s)));
    SEGLOG_RETURN_IF_ERROR(DeleteRemoteSegment(s));
    stats_.segments_deleted.fetch_add(1);
  }
  return Status::OK();
}

Status RemoteLogManager::DeleteRemoteSegment(const RemoteLogSegmentMetadata& segment) {
  RemoteLogSegmentMetadata md = segment;
  if (md.state != RemoteLogSegmentState::kDeleteSegmentStarted) {
    md.state = RemoteLogSegmentState::kDeleteSegmentStarted;
    md.event_timestamp_ms = Now();
    md.broker_id = options_.broker_id;
    SEGLOG_RETURN_IF_ERROR(rlmm_->UpdateRemoteLogSegmentMetadata(md));
  }
  if (Status s = rsm_->DeleteLogSegmentData(md); !s.ok()) {
    stats_.delete_failures.fetch_add(1);
    return s.WithContext(fmt::format("deleting {}", DescribeRemoteSegment(md)));
  }
  if (Status s = cache_->Remove(md.segment_id.id); !s.ok()) Warn(s.ToString());
  md.state = RemoteLogSegmentState::kDeleteSegmentFinished;
  md.event_timestamp_ms = Now();
  return rlmm_->UpdateRemoteLogSegmentMetadata(md);
}

// ---------------------------------------------------------------------------------------------
// Reads

Result<TopicIdPartition> RemoteLogManager::IdFor(const TopicPartition& tp) const {
  std::optional<LogManager::TopicIdentity> identity = logs_->FindTopicIdentity(tp.topic);
  if (!identity || identity->topic_id.empty()) {
    return Status::NotFound(fmt::format("UnknownTopicOrPartitionException: {}", tp.ToString()));
  }
  SEGLOG_ASSIGN_OR_RETURN(const Uuid id, Uuid::Parse(identity->topic_id));
  return TopicIdPartition{id, tp};
}

Result<RemoteLogSegmentMetadata> RemoteLogManager::SegmentFor(const TopicIdPartition& id,
                                                              int64_t offset) const {
  std::optional<RemoteLogSegmentMetadata> best;
  for (RemoteLogSegmentMetadata& s : rlmm_->ListRemoteLogSegments(id)) {
    if (!IsFinished(s) || s.start_offset > offset || s.end_offset < offset) continue;
    if (!best || s.start_offset > best->start_offset) best = std::move(s);
  }
  if (!best) {
    return Status::OutOfRange(
        fmt::format("OffsetOutOfRangeException: no remote segment of {} holds offset {}",
                    id.tp.ToString(), offset));
  }
  return *best;
}

Status RemoteLogManager::ForEachRemoteBatch(
    const RemoteLogSegmentMetadata& segment, int64_t position, int64_t chunk_bytes,
    const std::function<Result<bool>(const RecordBatchView&)>& fn) {
  const int64_t size = segment.segment_size_in_bytes;
  int64_t chunk = std::max(chunk_bytes, kMinChunk);
  while (position + kBatchPrefix <= size) {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                            rsm_->FetchLogSegment(segment, position, chunk));
    size_t at = 0;
    bool need_more = false;
    while (at + kBatchPrefix <= bytes.size()) {
      const int64_t length = static_cast<int32_t>(LoadBE32(bytes.data() + at + 8));
      const int64_t batch_size = kBatchPrefix + length;
      if (length < static_cast<int64_t>(batch_layout::kRecordBatchOverhead) - kBatchPrefix ||
          batch_size > kMaxBatchBytes || position + static_cast<int64_t>(at) + batch_size > size) {
        return Status::Corruption(fmt::format(
            "{}: the batch at position {} has length {}, which does not fit the segment of {} "
            "bytes",
            DescribeRemoteSegment(segment), position + static_cast<int64_t>(at), length, size));
      }
      if (at + batch_size > bytes.size()) {
        need_more = true;
        chunk = std::max(chunk, batch_size);
        break;
      }
      SEGLOG_ASSIGN_OR_RETURN(
          RecordBatchView batch,
          RecordBatchView::Parse(Bytes(bytes.data() + at, static_cast<size_t>(batch_size)),
                                 position + static_cast<int64_t>(at)));
      if (Status crc = batch.ValidateCrc(); !crc.ok()) {
        return crc.WithContext(DescribeRemoteSegment(segment));
      }
      SEGLOG_ASSIGN_OR_RETURN(const bool more, fn(batch));
      if (!more) return Status::OK();
      at += static_cast<size_t>(batch_size);
    }
    if (bytes.empty()) break;
    if (!need_more && at == 0) break;  // a short read with no whole batch: nothing more
    position += static_cast<int64_t>(at);
  }
  return Status::OK();
}

Result<RemoteFetchData> RemoteLogManager::Read(const TopicPartition& tp, int64_t offset,
                                               int32_t max_bytes, bool min_one_message,
                                               int64_t max_offset) {
  stats_.remote_reads.fetch_add(1);
  auto failed = [this](const Status& s) {
    stats_.remote_read_failures.fetch_add(1);
    return s;
  };
  SEGLOG_ASSIGN_OR_RETURN(const std::shared_ptr<Log> log, logs_->GetLog(tp));
  if (offset < log->log_start_offset()) {
    return failed(Status::OutOfRange(
        fmt::format("OffsetOutOfRangeException: offset {} of {} is below the log start offset {}",
                    offset, tp.ToString(), log->log_start_offset())));
  }
  Result<TopicIdPartition> id = IdFor(tp);
  if (!id.ok()) return failed(id.status());
  // The segment by the offset's leader epoch (the metadata's index, as Kafka looks it up),
  // else by a walk of the partition's segments.
  std::optional<int32_t> epoch;
  for (const auto& [e, start] : log->leader_epochs()) {
    if (start > offset) break;
    epoch = e;
  }
  std::optional<RemoteLogSegmentMetadata> indexed;
  if (epoch) indexed = rlmm_->RemoteLogSegmentMetadataFor(*id, *epoch, offset);
  Result<RemoteLogSegmentMetadata> segment =
      indexed ? Result<RemoteLogSegmentMetadata>(std::move(*indexed)) : SegmentFor(*id, offset);
  if (!segment.ok()) return failed(segment.status());
  Result<std::shared_ptr<const RemoteIndexes>> indexes = cache_->Get(*segment);
  if (!indexes.ok()) {
    return failed(indexes.status().WithContext(
        fmt::format("reading offset {} from {}", offset, DescribeRemoteSegment(*segment))));
  }
  const int64_t position = (*indexes)->LookupOffset(offset).position;
  RemoteFetchData out;
  Status walked = ForEachRemoteBatch(
      *segment, position, max_bytes, [&](const RecordBatchView& batch) -> Result<bool> {
        if (batch.last_offset() < offset) return true;
        if (batch.base_offset() >= max_offset) return false;
        const int64_t after = static_cast<int64_t>(out.records.size() + batch.size_in_bytes());
        if (after > max_bytes && (!out.records.empty() || !min_one_message)) return false;
        if (out.records.empty()) out.first_offset = batch.base_offset();
        out.records.insert(out.records.end(), batch.bytes().begin(), batch.bytes().end());
        out.next_offset = batch.next_offset();
        return true;
      });
  if (!walked.ok()) {
    return failed(walked.WithContext(
        fmt::format("reading offset {} from {}", offset, DescribeRemoteSegment(*segment))));
  }
  return out;
}

Result<std::vector<AbortedTransaction>> RemoteLogManager::CollectAbortedTransactions(
    const TopicPartition& tp, int64_t start_offset, int64_t upper_bound) {
  SEGLOG_ASSIGN_OR_RETURN(const TopicIdPartition id, IdFor(tp));
  SEGLOG_ASSIGN_OR_RETURN(const std::shared_ptr<Log> log, logs_->GetLog(tp));
  std::vector<RemoteLogSegmentMetadata> segments;
  for (RemoteLogSegmentMetadata& s : rlmm_->ListRemoteLogSegments(id)) {
    if (IsFinished(s) && s.end_offset >= start_offset) segments.push_back(std::move(s));
  }
  std::sort(segments.begin(), segments.end(),
            [](const auto& a, const auto& b) { return a.start_offset < b.start_offset; });
  std::vector<AbortedTransaction> out;
  int64_t covered = start_offset;  // offsets below it were looked at remotely
  for (const RemoteLogSegmentMetadata& s : segments) {
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<const RemoteIndexes> indexes, cache_->Get(s));
    SEGLOG_ASSIGN_OR_RETURN(TransactionIndex::Collected c,
                            indexes->CollectAbortedTxns(start_offset, upper_bound));
    for (const AbortedTxn& t : c.txns) out.push_back({t.producer_id, t.first_offset});
    if (c.complete) return out;
    covered = s.end_offset + 1;
  }
  // On into the local segments (Kafka's collectAbortedTransactions over both tiers).
  const int64_t local_from = std::max(covered, log->local_log_start_offset());
  if (local_from < log->log_end_offset()) {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<AbortedTransaction> local,
                            log->CollectAbortedTransactions(local_from, upper_bound));
    for (const AbortedTransaction& a : local) {
      if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
    }
  }
  return out;
}

Result<std::optional<TimestampAndOffset>> RemoteLogManager::FindOffsetByTimestamp(
    const TopicPartition& tp, int64_t timestamp) {
  SEGLOG_ASSIGN_OR_RETURN(const TopicIdPartition id, IdFor(tp));
  SEGLOG_ASSIGN_OR_RETURN(const std::shared_ptr<Log> log, logs_->GetLog(tp));
  const int64_t log_start = log->log_start_offset();
  std::vector<RemoteLogSegmentMetadata> segments;
  for (RemoteLogSegmentMetadata& s : rlmm_->ListRemoteLogSegments(id)) {
    if (IsFinished(s) && s.end_offset >= log_start && s.max_timestamp_ms >= timestamp) {
      segments.push_back(std::move(s));
    }
  }
  std::sort(segments.begin(), segments.end(),
            [](const auto& a, const auto& b) { return a.start_offset < b.start_offset; });
  for (const RemoteLogSegmentMetadata& s : segments) {
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<const RemoteIndexes> indexes, cache_->Get(s));
    const int64_t from = std::max(log_start, s.start_offset);
    const int64_t position = indexes->LookupTimestamp(timestamp, from).position;
    std::optional<TimestampAndOffset> found;
    Status walked = ForEachRemoteBatch(
        s, position, kMinChunk, [&](const RecordBatchView& batch) -> Result<bool> {
          if (batch.last_offset() < from || batch.max_timestamp() < timestamp) return true;
          const bool append_time = batch.timestamp_type() == TimestampType::kLogAppendTime;
          RecordIterator it(batch);
          while (it.Next()) {
            const Record& r = it.record();
            const int64_t ts = append_time ? batch.max_timestamp() : r.timestamp;
            if (r.offset >= from && ts >= timestamp) {
              found = TimestampAndOffset{ts, r.offset, batch.partition_leader_epoch()};
              return false;
            }
          }
          SEGLOG_RETURN_IF_ERROR(it.status());
          return true;
        });
    SEGLOG_RETURN_IF_ERROR(walked);
    if (found) return found;
  }
  return std::optional<TimestampAndOffset>();
}

}  // namespace seglog
