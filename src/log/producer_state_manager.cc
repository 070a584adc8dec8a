// ProducerStateManager; see producer_state_manager.h. Messages follow Kafka 4.4.0's wording
// (ProducerAppendInfo, ProducerStateManager) after the exception name.
#include "log/producer_state_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/coding.h"
#include "base/crc32c.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/file_batch_walker.h"

namespace seglog {

namespace ps = producer_snapshot;

int32_t BatchMetadata::FirstSeq() const {
  // Kafka's DefaultRecordBatch.decrementSequence.
  if (last_seq < offset_delta) return INT32_MAX - (offset_delta - last_seq) + 1;
  return last_seq - offset_delta;
}

void ProducerStateEntry::MaybeUpdateProducerEpoch(int16_t epoch) {
  if (producer_epoch != epoch) {
    batches.clear();
    producer_epoch = epoch;
  }
}

void ProducerStateEntry::AddBatch(int16_t epoch, int32_t last_seq, int64_t last_offset,
                                  int32_t offset_delta, int64_t timestamp) {
  MaybeUpdateProducerEpoch(epoch);
  if (batches.size() == kNumBatchesToRetain) batches.pop_front();
  batches.push_back(BatchMetadata{last_seq, last_offset, offset_delta, timestamp});
  last_timestamp = timestamp;
}

std::optional<BatchMetadata> ProducerStateEntry::FindDuplicate(int16_t epoch, int32_t first_seq,
                                                               int32_t last_seq) const {
  if (epoch != producer_epoch) return std::nullopt;
  for (const BatchMetadata& b : batches) {
    if (b.FirstSeq() == first_seq && b.last_seq == last_seq) return b;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// The snapshot file

std::vector<uint8_t> SerializeProducerSnapshot(
    const std::map<int64_t, ProducerStateEntry>& entries) {
  std::vector<uint8_t> out(ps::kHeaderSize + ps::kEntrySize * entries.size());
  uint8_t* p = out.data();
  StoreBE16(p + ps::kVersionOffset, static_cast<uint16_t>(ps::kVersion));
  StoreBE32(p + ps::kCountOffset, static_cast<uint32_t>(entries.size()));
  uint8_t* e = p + ps::kEntriesOffset;
  for (const auto& [id, entry] : entries) {
    StoreBE64(e + ps::kProducerIdOffset, static_cast<uint64_t>(id));
    StoreBE16(e + ps::kEpochOffset, static_cast<uint16_t>(entry.producer_epoch));
    StoreBE32(e + ps::kLastSequenceOffset, static_cast<uint32_t>(entry.LastSeq()));
    StoreBE64(e + ps::kLastOffsetOffset, static_cast<uint64_t>(entry.LastDataOffset()));
    StoreBE32(e + ps::kOffsetDeltaOffset, static_cast<uint32_t>(entry.LastOffsetDelta()));
    StoreBE64(e + ps::kTimestampOffset, static_cast<uint64_t>(entry.last_timestamp));
    StoreBE32(e + ps::kCoordinatorEpochOffset, static_cast<uint32_t>(entry.coordinator_epoch));
    StoreBE64(e + ps::kCurrentTxnFirstOffsetOffset,
              static_cast<uint64_t>(entry.current_txn_first_offset));
    e += ps::kEntrySize;
  }
  StoreBE32(p + ps::kCrcOffset, Crc32c(std::span<const uint8_t>(out).subspan(ps::kCountOffset)));
  return out;
}

Result<std::vector<ProducerStateEntry>> ParseProducerSnapshot(std::span<const uint8_t> bytes,
                                                              const std::string& path) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(fmt::format("CorruptSnapshotException: {}: {}", path, what));
  };
  if (bytes.size() < ps::kVersionLength) {
    return corrupt(
        fmt::format("Snapshot failed schema validation: {} byte(s), no version", bytes.size()));
  }
  const int16_t version = LoadBEInt16(bytes.data() + ps::kVersionOffset);
  if (version != ps::kVersion) {
    return corrupt(fmt::format("Snapshot contained an unknown file version {}", version));
  }
  if (bytes.size() < ps::kHeaderSize) {
    return corrupt(fmt::format(
        "Snapshot failed schema validation: {} byte(s), shorter than the {}-byte header",
        bytes.size(), ps::kHeaderSize));
  }
  const int32_t count = LoadBEInt32(bytes.data() + ps::kCountOffset);
  const size_t room = (bytes.size() - ps::kHeaderSize) / ps::kEntrySize;
  if (count < 0 || static_cast<size_t>(count) > room) {
    return corrupt(fmt::format(
        "Snapshot failed schema validation: {} entries declared at byte {}, room for {} in {} "
        "bytes",
        count, ps::kCountOffset, room, bytes.size()));
  }
  const uint32_t stored = LoadBE32(bytes.data() + ps::kCrcOffset);
  const uint32_t computed = Crc32c(bytes.subspan(ps::kCountOffset));
  if (stored != computed) {
    return corrupt(fmt::format(
        "Snapshot is corrupt (CRC is no longer valid). Stored crc: {}. Computed crc: {}", stored,
        computed));
  }
  std::vector<ProducerStateEntry> out;
  out.reserve(static_cast<size_t>(count));
  const uint8_t* e = bytes.data() + ps::kEntriesOffset;
  for (int32_t i = 0; i < count; ++i, e += ps::kEntrySize) {
    ProducerStateEntry entry;
    entry.producer_id = LoadBEInt64(e + ps::kProducerIdOffset);
    entry.producer_epoch = LoadBEInt16(e + ps::kEpochOffset);
    const int32_t last_seq = LoadBEInt32(e + ps::kLastSequenceOffset);
    const int64_t last_offset = LoadBEInt64(e + ps::kLastOffsetOffset);
    const int32_t offset_delta = LoadBEInt32(e + ps::kOffsetDeltaOffset);
    entry.last_timestamp = LoadBEInt64(e + ps::kTimestampOffset);
    entry.coordinator_epoch = LoadBEInt32(e + ps::kCoordinatorEpochOffset);
    const int64_t txn = LoadBEInt64(e + ps::kCurrentTxnFirstOffsetOffset);
    entry.current_txn_first_offset = txn >= 0 ? txn : -1;
    if (last_offset >= 0) {
      entry.batches.push_back(
          BatchMetadata{last_seq, last_offset, offset_delta, entry.last_timestamp});
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Checks and updates

ProducerStateManager::ProducerStateManager(Env* env, std::string dir, std::string topic_partition,
                                           int64_t producer_id_expiration_ms, Logger logger)
    : env_(env),
      dir_(std::move(dir)),
      topic_partition_(std::move(topic_partition)),
      producer_id_expiration_ms_(producer_id_expiration_ms),
      logger_(std::move(logger)) {}

void ProducerStateManager::Warn(const std::string& line) const { logger_.Warn(line); }

std::optional<ProducerStateEntry> ProducerStateManager::LastEntry(int64_t producer_id) const {
  auto it = producers_.find(producer_id);
  if (it == producers_.end()) return std::nullopt;
  return it->second;
}

namespace {

bool InSequence(int32_t last_seq, int32_t next_seq) {
  return int64_t{next_seq} == int64_t{last_seq} + 1 || (next_seq == 0 && last_seq == INT32_MAX);
}

}  // namespace

Status ProducerStateManager::Prepare(const RecordBatchView& batch, AppendOrigin origin,
                                     PendingUpdate* pending,
                                     std::optional<BatchMetadata>* duplicate) const {
  duplicate->reset();
  const int64_t pid = batch.producer_id();
  if (pid < 0) return Status::OK();
  const int16_t epoch = batch.producer_epoch();
  ProducerStateEntry empty_entry;
  empty_entry.producer_id = pid;
  auto committed_it = producers_.find(pid);
  const ProducerStateEntry& current =
      committed_it == producers_.end() ? empty_entry : committed_it->second;
  // Kafka's analyzeAndValidateProducerState: a client's retry of a retained batch.
  if (origin == AppendOrigin::kClient && !batch.is_control()) {
    *duplicate = current.FindDuplicate(epoch, batch.base_sequence(), batch.last_sequence());
    if (*duplicate) return Status::OK();
  }
  // The entry this append builds: the current one's epoch, coordinator epoch, timestamp and
  // transaction, and only the batches of this append (Kafka's ProducerAppendInfo.updatedEntry).
  auto [it, inserted] = pending->updated.try_emplace(pid);
  ProducerStateEntry& updated = it->second;
  if (inserted) {
    updated.producer_id = pid;
    updated.producer_epoch = current.producer_epoch;
    updated.coordinator_epoch = current.coordinator_epoch;
    updated.last_timestamp = current.last_timestamp;
    updated.current_txn_first_offset = current.current_txn_first_offset;
  }
  const int64_t first_offset = batch.base_offset();
  // checkProducerEpoch (data batches and markers alike; Kafka's TV_UNKNOWN rule: older only).
  if (epoch < updated.producer_epoch) {
    const std::string message = fmt::format(
        "Epoch of producer {} at offset {} in {} is {}, which is < the last seen epoch {} (TV0)",
        pid, first_offset, topic_partition_, epoch, updated.producer_epoch);
    if (origin != AppendOrigin::kReplication) {
      return Status::FailedPrecondition("InvalidProducerEpochException: " + message);
    }
    Warn(message);
  }
  if (batch.is_control()) {
    // Kafka's appendEndTxnMarker; an empty control batch (its transaction cleaned away) is
    // nothing to apply.
    RecordIterator records(batch);
    if (!records.Next()) return records.status();
    SEGLOG_ASSIGN_OR_RETURN(const ControlRecordKey key,
                            ParseControlRecordKey(records.record().key));
    if (key.type() != ControlRecordType::kCommit && key.type() != ControlRecordType::kAbort) {
      return Status::OK();
    }
    SEGLOG_ASSIGN_OR_RETURN(const EndTransactionMarker marker,
                            ParseEndTransactionMarker(records.record().value));
    if (updated.coordinator_epoch > marker.coordinator_epoch) {
      const std::string message = fmt::format(
          "Invalid coordinator epoch for producerId {} at offset {} in partition {}: {} "
          "(zombie), {} (current)",
          pid, first_offset, topic_partition_, marker.coordinator_epoch, updated.coordinator_epoch);
      if (origin != AppendOrigin::kReplication) {
        return Status::FailedPrecondition("TransactionCoordinatorFencedException: " + message);
      }
      Warn(message);
    }
    updated.MaybeUpdateProducerEpoch(epoch);
    updated.coordinator_epoch = marker.coordinator_epoch;
    updated.last_timestamp = records.record().timestamp;
    CompletedTxn completed;
    completed.producer_id = pid;
    completed.first_offset =
        updated.current_txn_first_offset >= 0 ? updated.current_txn_first_offset : first_offset;
    completed.last_offset = first_offset;
    completed.is_aborted = key.type() == ControlRecordType::kAbort;
    pending->completed.push_back(completed);
    updated.current_txn_first_offset = -1;
    return Status::OK();
  }
  const int32_t first_seq = batch.base_sequence();
  if (origin == AppendOrigin::kClient) {
    // checkSequence.
    if (epoch != updated.producer_epoch) {
      if (first_seq != 0 && updated.producer_epoch != kNoProducerEpoch) {
        return Status::FailedPrecondition(fmt::format(
            "OutOfOrderSequenceException: Invalid sequence number for new epoch of producer {} "
            "at offset {} in partition {}: {} (request epoch), {} (seq. number), {} (current "
            "producer epoch)",
            pid, first_offset, topic_partition_, epoch, first_seq, updated.producer_epoch));
      }
    } else {
      int32_t current_last_seq = kNoSequence;
      if (!updated.empty()) {
        current_last_seq = updated.LastSeq();
      } else if (epoch == current.producer_epoch) {
        current_last_seq = current.LastSeq();
      }
      // No known epoch (e.g. every batch of the producer was deleted by retention or
      // DeleteRecords and the entry expired): any sequence is accepted, as in Kafka 4.x.
      if (current.producer_epoch != kNoProducerEpoch && !InSequence(current_last_seq, first_seq)) {
        return Status::FailedPrecondition(fmt::format(
            "OutOfOrderSequenceException: Out of order sequence number for producer {} at "
            "offset {} in partition {}: {} (incoming seq. number), {} (current end sequence "
            "number)",
            pid, first_offset, topic_partition_, first_seq, current_last_seq));
      }
    }
  }
  const int64_t last_offset = batch.last_offset();
  if (updated.current_txn_first_offset >= 0 && !batch.is_transactional()) {
    return Status::FailedPrecondition(fmt::format(
        "InvalidTxnStateException: Expected transactional write from producer {} at offset {} "
        "in partition {}",
        pid, first_offset, topic_partition_));
  }
  updated.AddBatch(epoch, batch.last_sequence(), last_offset,
                   static_cast<int32_t>(last_offset - first_offset), batch.max_timestamp());
  if (updated.current_txn_first_offset < 0 && batch.is_transactional()) {
    updated.current_txn_first_offset = first_offset;
    pending->started.emplace_back(first_offset, pid);
  }
  return Status::OK();
}

void ProducerStateManager::Commit(PendingUpdate&& pending) {
  for (auto& [pid, next] : pending.updated) {
    auto [it, inserted] = producers_.try_emplace(pid, next);
    if (inserted) continue;
    // Kafka's ProducerStateEntry.update: the new epoch (dropping the old epoch's batches), the
    // new batches after the retained ones, and the rest from the update.
    ProducerStateEntry& entry = it->second;
    entry.MaybeUpdateProducerEpoch(next.producer_epoch);
    for (const BatchMetadata& b : next.batches) {
      if (entry.batches.size() == kNumBatchesToRetain) entry.batches.pop_front();
      entry.batches.push_back(b);
    }
    entry.coordinator_epoch = next.coordinator_epoch;
    entry.current_txn_first_offset = next.current_txn_first_offset;
    entry.last_timestamp = next.last_timestamp;
  }
  for (const auto& [first_offset, pid] : pending.started) ongoing_txns_[first_offset] = pid;
}

int64_t ProducerStateManager::LastStableOffset(const CompletedTxn& txn) const {
  for (const auto& [first_offset, pid] : ongoing_txns_) {
    if (pid != txn.producer_id) return first_offset;
  }
  return txn.last_offset + 1;
}

void ProducerStateManager::CompleteTxn(const CompletedTxn& txn) {
  auto it = ongoing_txns_.find(txn.first_offset);
  if (it != ongoing_txns_.end() && it->second == txn.producer_id) ongoing_txns_.erase(it);
}

std::optional<int64_t> ProducerStateManager::FirstUnstableOffset() const {
  if (ongoing_txns_.empty()) return std::nullopt;
  return ongoing_txns_.begin()->first;
}

void ProducerStateManager::RebuildOngoingTxns() {
  ongoing_txns_.clear();
  for (const auto& [pid, e] : producers_) {
    if (e.current_txn_first_offset >= 0) ongoing_txns_[e.current_txn_first_offset] = pid;
  }
}

Status ProducerStateManager::ReplayBatch(
    const RecordBatchView& batch,
    const std::function<Status(const CompletedTxn&, int64_t)>& on_aborted) {
  if (batch.producer_id() < 0) return Status::OK();
  PendingUpdate pending;
  std::optional<BatchMetadata> duplicate;
  SEGLOG_RETURN_IF_ERROR(Prepare(batch, AppendOrigin::kReplication, &pending, &duplicate));
  const std::vector<CompletedTxn> completed = pending.completed;
  Commit(std::move(pending));
  for (const CompletedTxn& txn : completed) {
    if (txn.is_aborted && on_aborted)
      SEGLOG_RETURN_IF_ERROR(on_aborted(txn, LastStableOffset(txn)));
    CompleteTxn(txn);
  }
  return Status::OK();
}

bool ProducerStateManager::IsExpired(int64_t now_ms, const ProducerStateEntry& entry) const {
  return entry.current_txn_first_offset < 0 &&
         now_ms - entry.last_timestamp >= producer_id_expiration_ms_;
}

int ProducerStateManager::RemoveExpiredProducers(int64_t now_ms) {
  int removed = 0;
  for (auto it = producers_.begin(); it != producers_.end();) {
    if (IsExpired(now_ms, it->second)) {
      it = producers_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

void ProducerStateManager::OnLogStartOffsetIncremented(int64_t log_start_offset) {
  map_end_offset_ = std::max(map_end_offset_, log_start_offset);
  last_snapshot_offset_ = snapshots_.empty() ? log_start_offset : snapshots_.rbegin()->first;
}

// ---------------------------------------------------------------------------------------------
// Snapshot files

namespace {

bool IsSnapshotFileName(const std::string& name) {
  return name.size() == 20 + kSnapshotFileSuffix.size() && name.ends_with(kSnapshotFileSuffix) &&
         OffsetFromFileName(name).ok();
}

}  // namespace

std::vector<int64_t> ProducerStateManager::snapshot_offsets() const {
  std::vector<int64_t> out;
  for (const auto& [offset, path] : snapshots_) out.push_back(offset);
  return out;
}

Status ProducerStateManager::LoadSnapshotFiles() {
  snapshots_.clear();
  SEGLOG_ASSIGN_OR_RETURN(const std::vector<std::string> names, env_->ListDirectory(dir_));
  for (const std::string& name : names) {
    if (!IsSnapshotFileName(name)) continue;
    snapshots_[*OffsetFromFileName(name)] = dir_ + "/" + name;
  }
  return Status::OK();
}

Result<std::optional<int64_t>> ProducerStateManager::TakeSnapshot(bool sync) {
  if (map_end_offset_ <= last_snapshot_offset_) return std::optional<int64_t>();
  const std::vector<uint8_t> bytes = SerializeProducerSnapshot(producers_);
  const std::string path = SnapshotFilePath(dir_, map_end_offset_);
  const std::string tmp = path + ".tmp";
  Status written = [&]() -> Status {
    SEGLOG_ASSIGN_OR_RETURN(auto f, env_->OpenFile(tmp, File::Mode::kCreate));
    SEGLOG_RETURN_IF_ERROR(f->Truncate(0));
    SEGLOG_RETURN_IF_ERROR(f->WriteAt(0, bytes));
    if (sync) SEGLOG_RETURN_IF_ERROR(f->Sync());
    return env_->RenameFile(tmp, path);
  }();
  if (!written.ok()) {
    (void)env_->RemoveFile(tmp, true);  // best effort; the next open removes it otherwise
    return written;
  }
  if (sync) SEGLOG_RETURN_IF_ERROR(env_->SyncDirectory(dir_));
  snapshots_[map_end_offset_] = path;
  last_snapshot_offset_ = map_end_offset_;
  return std::optional<int64_t>(map_end_offset_);
}

void ProducerStateManager::TakeSnapshotOrWarn() {
  if (auto s = TakeSnapshot(true); !s.ok()) {
    Warn(fmt::format("Failed to write producer snapshot at offset {}: {}", map_end_offset_,
                     s.status().ToString()));
  }
}

Status SyncProducerSnapshot(Env* env, const std::string& dir, int64_t offset) {
  const std::string path = SnapshotFilePath(dir, offset);
  auto f = env->OpenFile(path, File::Mode::kReadOnly);
  if (!f.ok()) {
    // Deleted meanwhile with its segment: nothing left to make durable.
    if (f.status().IsNotFound()) return Status::OK();
    return f.status();
  }
  SEGLOG_RETURN_IF_ERROR((*f)->Sync());
  return env->SyncDirectory(dir);
}

Status ProducerStateManager::DeleteSnapshot(int64_t offset) {
  auto it = snapshots_.find(offset);
  if (it == snapshots_.end()) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(env_->RemoveFile(it->second, true));
  snapshots_.erase(it);
  return Status::OK();
}

Status ProducerStateManager::RemoveStraySnapshots(
    const std::vector<int64_t>& segment_base_offsets) {
  SEGLOG_RETURN_IF_ERROR(LoadSnapshotFiles());
  const std::set<int64_t> bases(segment_base_offsets.begin(), segment_base_offsets.end());
  std::optional<int64_t> latest_stray;
  for (const int64_t offset : snapshot_offsets()) {
    if (bases.count(offset)) continue;
    if (latest_stray) SEGLOG_RETURN_IF_ERROR(DeleteSnapshot(*latest_stray));
    latest_stray = offset;
  }
  if (latest_stray && !bases.empty() && *latest_stray < *bases.rbegin()) {
    SEGLOG_RETURN_IF_ERROR(DeleteSnapshot(*latest_stray));
  }
  return Status::OK();
}

Result<std::optional<std::vector<ProducerStateEntry>>> ProducerStateManager::ReadSnapshot(
    int64_t offset) {
  const std::string& path = snapshots_.at(offset);
  SEGLOG_ASSIGN_OR_RETURN(auto f, env_->OpenFile(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, f->Size());
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  SEGLOG_ASSIGN_OR_RETURN(const size_t n, f->ReadAtMost(0, bytes));
  bytes.resize(n);
  auto parsed = ParseProducerSnapshot(bytes, path);
  if (!parsed.ok()) {
    if (!parsed.status().IsCorruption()) return parsed.status();
    Warn(fmt::format("Failed to load producer snapshot from '{}': {}", path,
                     parsed.status().message()));
    return std::optional<std::vector<ProducerStateEntry>>();
  }
  return std::optional<std::vector<ProducerStateEntry>>(std::move(*parsed));
}

Status ProducerStateManager::TruncateAndReload(int64_t log_start_offset, int64_t log_end_offset,
                                               int64_t now_ms) {
  for (const int64_t offset : snapshot_offsets()) {
    if (offset > log_end_offset || offset <= log_start_offset) {
      SEGLOG_RETURN_IF_ERROR(DeleteSnapshot(offset));
    }
  }
  if (log_end_offset == map_end_offset_) {
    OnLogStartOffsetIncremented(log_start_offset);
    return Status::OK();
  }
  producers_.clear();
  ongoing_txns_.clear();
  // Kafka's loadFromSnapshot: the newest snapshot that parses; corrupt ones are deleted.
  while (!snapshots_.empty()) {
    const int64_t offset = snapshots_.rbegin()->first;
    SEGLOG_ASSIGN_OR_RETURN(auto entries, ReadSnapshot(offset));
    if (!entries) {
      SEGLOG_RETURN_IF_ERROR(DeleteSnapshot(offset));
      continue;
    }
    for (ProducerStateEntry& e : *entries) {
      if (!IsExpired(now_ms, e)) producers_[e.producer_id] = std::move(e);
    }
    RebuildOngoingTxns();
    last_snapshot_offset_ = offset;
    map_end_offset_ = offset;
    return Status::OK();
  }
  last_snapshot_offset_ = log_start_offset;
  map_end_offset_ = log_start_offset;
  return Status::OK();
}

Result<std::optional<std::string>> ProducerStateManager::RenameSnapshotForDeletion(int64_t offset) {
  auto it = snapshots_.find(offset);
  if (it == snapshots_.end()) return std::optional<std::string>();
  const std::string target = it->second + std::string(kDeletedFileSuffix);
  Status s = env_->RenameFile(it->second, target);
  snapshots_.erase(it);
  if (!s.ok()) {
    // Kafka ignores a snapshot that is already gone.
    if (!env_->FileExists(target)) return std::optional<std::string>();
    return s;
  }
  return std::optional<std::string>(target);
}

// ---------------------------------------------------------------------------------------------
// Rebuild at load

Status RebuildProducerState(ProducerStateManager* state, const SegmentMap& segments,
                            int64_t log_start_offset, int64_t log_end_offset,
                            bool had_clean_shutdown, int64_t now_ms,
                            std::optional<int64_t> replay_from) {
  std::set<int64_t> to_snapshot{log_end_offset};
  if (!segments.empty()) {
    auto last = segments.rbegin();
    to_snapshot.insert(last->first);
    if (std::next(last) != segments.rend()) to_snapshot.insert(std::next(last)->first);
  }
  SEGLOG_RETURN_IF_ERROR(state->LoadSnapshotFiles());
  if (replay_from && *replay_from < log_end_offset) {
    // Only snapshots at or below it may be the replay's start.
    SEGLOG_RETURN_IF_ERROR(state->TruncateAndReload(log_start_offset, *replay_from, now_ms));
  } else if (state->snapshot_offsets().empty() && had_clean_shutdown) {
    // A log written before producer state existed: nothing to replay after a clean shutdown.
    for (const int64_t offset : to_snapshot) {
      state->UpdateMapEndOffset(offset);
      state->TakeSnapshotOrWarn();
    }
    return Status::OK();
  }
  SEGLOG_RETURN_IF_ERROR(state->TruncateAndReload(log_start_offset, log_end_offset, now_ms));
  if (log_end_offset > state->map_end_offset()) {
    auto it = segments.upper_bound(state->map_end_offset());
    if (it != segments.begin()) --it;
    for (; it != segments.end() && it->first < log_end_offset; ++it) {
      LogSegment& seg = *it->second;
      const int64_t start =
          std::max({seg.base_offset(), state->map_end_offset(), log_start_offset});
      state->UpdateMapEndOffset(start);
      if (to_snapshot.count(seg.base_offset())) state->TakeSnapshotOrWarn();
      SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> file, seg.log_file());
      FileBatchWalker walker(*file, 0, seg.size(), int64_t{1} << 20);
      while (walker.Next()) {
        if (walker.current().magic != kMagicV2 || walker.last_offset() < start) continue;
        SEGLOG_ASSIGN_OR_RETURN(
            const RecordBatchView batch,
            RecordBatchView::Parse(walker.current_bytes(), walker.current().position));
        // A marker of an aborted transaction whose index entry is missing (recovery cut it,
        // or a crash came between the marker and its entry) writes it again.
        SEGLOG_RETURN_IF_ERROR(state->ReplayBatch(batch, [&seg](const CompletedTxn& t,
                                                                int64_t lso) {
          return seg.txn_index().AppendIfNew({t.producer_id, t.first_offset, t.last_offset, lso});
        }));
      }
      SEGLOG_RETURN_IF_ERROR(walker.status());
    }
  }
  state->UpdateMapEndOffset(log_end_offset);
  state->TakeSnapshotOrWarn();
  return Status::OK();
}

}  // namespace seglog
