// Log: one partition; see seglog/log.h. Kafka's rules: docs/design/log.md.
#include "seglog/log.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <random>

#include "base/coding.h"
#include "base/crc32c.h"
#include "base/mutex.h"
#include "base/scheduler.h"
#include "io/env.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/checkpoint_file.h"
#include "log/leader_epoch_cache.h"
#include "log/log_loader.h"
#include "log/log_segment.h"
#include "log/log_state.h"
#include "log/log_validator.h"
#include "log/producer_state_manager.h"
#include "record/batch_walker.h"

namespace seglog {

namespace bl = batch_layout;

Log::Log(std::string dir, LogConfig config, LogOptions options)
    : dir_(std::move(dir)),
      config_(std::move(config)),
      options_(std::move(options)),
      state_(std::make_unique<State>(options_.env, dir_ + "/" + kLeaderEpochCheckpointFile)) {}

Log::~Log() {
  // Close() is the clean path; the destructor only releases resources.
  state_->DetachFlushHandle();
}

int64_t Log::Now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::unique_ptr<Log>> Log::Open(const std::string& dir, const LogConfig& config,
                                       LogOptions options) {
  const bool writable = !options.read_only;
  if (options.env == nullptr) options.env = Env::Default();
  if (writable) SEGLOG_RETURN_IF_ERROR(options.env->CreateDirectories(dir));
  std::unique_ptr<Log> log(new Log(dir, config, std::move(options)));
  State& st = *log->state_;
  SEGLOG_ASSIGN_OR_RETURN(LoadedLog loaded, LoadLog(dir, config, log->options_, log->Now()));
  st.log_end_offset.store(loaded.log_end_offset, std::memory_order_release);
  st.log_start_offset.store(loaded.log_start_offset, std::memory_order_release);
  {
    MutexLock l(&st.append_mu);
    st.recovery_point = loaded.recovery_point;
  }
  log->report_ = std::move(loaded.report);
  st.Publish(std::make_shared<SegmentMap>(std::move(loaded.segments)));
  {
    MutexLock l(&st.append_mu);
    st.last_flush_ms = log->Now();
  }
  if (writable) SEGLOG_RETURN_IF_ERROR(log->LoadEpochsAndTopicId());
  SEGLOG_RETURN_IF_ERROR(log->LoadProducerState(loaded.txn_index_rebuild_from));
  {
    MutexLock l(&st.flush_handle->mu);
    st.flush_handle->log = log.get();
  }
  return log;
}

Status Log::LoadEpochsAndTopicId() {
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  if (!options_.topic_id.empty()) {
    const std::string path = dir_ + "/" + kPartitionMetadataFile;
    if (options_.env->FileExists(path)) {
      SEGLOG_ASSIGN_OR_RETURN(const std::string id, ReadPartitionMetadata(options_.env, path));
      if (id != options_.topic_id) {
        return Status::InvalidArgument(fmt::format(
            "InconsistentTopicIdException: {} holds topic id {}, but the topic's id is {}", path,
            id, options_.topic_id));
      }
    } else {
      SEGLOG_RETURN_IF_ERROR(WritePartitionMetadata(options_.env, path, options_.topic_id));
    }
  }
  return st.epochs.Load(log_start_offset(), log_end_offset());
}

Status Log::LoadProducerState(std::optional<int64_t> replay_transactions_from) {
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  st.producers =
      std::make_unique<ProducerStateManager>(options_.env, dir_, dir_.substr(dir_.rfind('/') + 1),
                                             options_.producer_id_expiration_ms, options_.logger);
  // A read-only view (the tools) needs no producer state and must not write its snapshots.
  if (options_.read_only) return Status::OK();
  // Kafka's LogLoader: stray snapshots go, then rebuildProducerState up to the log end.
  const auto snapshot = st.Snapshot();
  std::vector<int64_t> bases;
  for (const auto& [base, seg] : *snapshot) bases.push_back(base);
  SEGLOG_RETURN_IF_ERROR(st.producers->RemoveStraySnapshots(bases));
  SEGLOG_RETURN_IF_ERROR(RebuildProducerState(st.producers.get(), *snapshot, log_start_offset(),
                                              log_end_offset(), options_.had_clean_shutdown, Now(),
                                              replay_transactions_from));
  st.first_unstable_offset.store(st.producers->FirstUnstableOffset().value_or(-1),
                                 std::memory_order_release);
  return Status::OK();
}

std::vector<ActiveProducer> Log::active_producers() const {
  MutexLock l(&state_->append_mu);
  std::vector<ActiveProducer> out;
  if (!state_->producers) return out;
  for (const auto& [id, e] : state_->producers->producers()) {
    ActiveProducer p;
    p.producer_id = id;
    p.producer_epoch = e.producer_epoch;
    p.first_sequence = e.FirstSeq();
    p.last_sequence = e.LastSeq();
    p.last_offset = e.LastDataOffset();
    p.last_timestamp = e.last_timestamp;
    p.coordinator_epoch = e.coordinator_epoch;
    p.current_txn_first_offset = e.current_txn_first_offset;
    p.retained_batches = static_cast<int32_t>(e.batches.size());
    out.push_back(p);
  }
  return out;
}

std::vector<int64_t> Log::producer_snapshot_offsets() const {
  MutexLock l(&state_->append_mu);
  return state_->producers ? state_->producers->snapshot_offsets() : std::vector<int64_t>{};
}

Result<int> Log::RemoveExpiredProducers() {
  MutexLock l(&state_->append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  return state_->producers->RemoveExpiredProducers(Now());
}

Status Log::AssignEpochLocked(int32_t epoch, int64_t start_offset) {
  state_->append_mu.AssertHeld();
  return state_->epochs.Assign(epoch, start_offset);
}

std::vector<std::pair<int32_t, int64_t>> Log::leader_epochs() const {
  MutexLock l(&state_->append_mu);
  std::vector<std::pair<int32_t, int64_t>> out;
  for (const EpochEntry& e : state_->epochs.entries()) out.emplace_back(e.epoch, e.start_offset);
  return out;
}

bool Log::offline() const {
  return state_->offline.load(std::memory_order_acquire) ||
         (options_.directory_offline &&
          options_.directory_offline->load(std::memory_order_acquire));
}

Status Log::offline_reason() const {
  MutexLock l(&state_->offline_mu);
  return state_->offline_reason;
}

void Log::MarkDeleted() { state_->deleted.store(true, std::memory_order_release); }

void Log::BlockAppends(bool blocked) {
  MutexLock lock(&state_->append_mu);
  state_->appends_blocked = blocked;
}

Status Log::CheckAppendsAllowedLocked() const {
  state_->append_mu.AssertHeld();
  if (state_->appends_blocked) {
    return Status::FailedPrecondition(fmt::format(
        "NotLeaderOrFollowerException: the partition of {} is moving to another log directory",
        dir_));
  }
  return Status::OK();
}

Status Log::CheckOpen() const {
  if (state_->deleted.load(std::memory_order_acquire)) {
    return Status::NotFound(
        fmt::format("UnknownTopicOrPartitionException: the partition of {} was deleted", dir_));
  }
  if (state_->closed_for_reads.load(std::memory_order_acquire)) {
    return Status::FailedPrecondition(dir_ + ": log is closed");
  }
  return CheckOnline();
}

Status Log::CheckOnline() const {
  if (!offline()) return Status::OK();
  if (!state_->offline.load(std::memory_order_acquire)) {
    return Status::IOError(fmt::format(
        "KafkaStorageException: {} is offline: its log directory had a failed sync", dir_));
  }
  return Status::IOError(fmt::format("KafkaStorageException: {} is offline after a failed sync: {}",
                                     dir_, offline_reason().ToString()));
}

Status Log::SyncFailed(const Status& failure) {
  State& st = *state_;
  bool first = false;
  {
    MutexLock l(&st.offline_mu);
    if (!st.offline.load(std::memory_order_relaxed)) {
      st.offline_reason = failure;
      st.offline.store(true, std::memory_order_release);
      if (options_.directory_offline) {
        options_.directory_offline->store(true, std::memory_order_release);
      }
      first = true;
    }
  }
  if (first && options_.on_storage_failure) options_.on_storage_failure(failure);
  return Status::IOError(fmt::format(
      "KafkaStorageException: {} is now offline; a failed sync or rename is never retried: {}",
      dir_, failure.ToString()));
}

int64_t Log::unflushed_messages() const {
  MutexLock l(&state_->append_mu);
  return log_end_offset() - state_->recovery_point;
}

Status Log::AfterAppendLocked(int32_t leader_epoch, int64_t first_offset) {
  State& st = *state_;
  st.append_mu.AssertHeld();
  if (leader_epoch >= 0) SEGLOG_RETURN_IF_ERROR(AssignEpochLocked(leader_epoch, first_offset));
  if (log_end_offset() - st.recovery_point >= config_.flush_messages) {
    st.pending_flush = std::max(st.pending_flush, log_end_offset());
  }
  return Status::OK();
}

Status Log::RunPendingFlush() {
  int64_t offset;
  {
    MutexLock l(&state_->append_mu);
    offset = state_->pending_flush;
    state_->pending_flush = -1;
  }
  return offset < 0 ? Status::OK() : Flush(offset);
}

const LoadReport& Log::load_report() const { return report_; }

int64_t Log::recovery_point() const {
  MutexLock l(&state_->append_mu);
  return state_->recovery_point;
}

int64_t Log::log_start_offset() const {
  return state_->log_start_offset.load(std::memory_order_acquire);
}
int64_t Log::log_end_offset() const {
  return state_->log_end_offset.load(std::memory_order_acquire);
}

int64_t Log::size_in_bytes() const {
  // Held for the loop: a range-for over *Snapshot() would free the map under it.
  const auto snapshot = state_->Snapshot();
  int64_t total = 0;
  for (const auto& [base, seg] : *snapshot) total += seg->size();
  return total;
}

int Log::num_segments() const { return static_cast<int>(state_->Snapshot()->size()); }

int Log::num_segments_with_open_indexes() const {
  // Held for the loop: a range-for over *Snapshot() would free the map under it.
  const auto snapshot = state_->Snapshot();
  int n = 0;
  for (const auto& [base, seg] : *snapshot) n += seg->indexes_loaded() ? 1 : 0;
  return n;
}

std::vector<int64_t> Log::segment_base_offsets() const {
  // Held for the loop: a range-for over *Snapshot() would free the map under it.
  const auto snapshot = state_->Snapshot();
  std::vector<int64_t> out;
  for (const auto& [base, seg] : *snapshot) out.push_back(base);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Append

namespace {

// The partition as Kafka names it in messages: the directory's name, "<topic>-<partition>".
std::string PartitionName(const std::string& dir) { return dir.substr(dir.rfind('/') + 1); }

// The shallow checks of a batch whose offsets are already assigned: its header, its size
// against max.message.bytes, its CRC and its codec.
Result<RecordBatchView> CheckAssignedBatch(const std::string& dir, const LogConfig& config,
                                           Bytes bytes, int64_t position) {
  SEGLOG_ASSIGN_OR_RETURN(RecordBatchView view, RecordBatchView::Parse(bytes, position));
  if (view.size_in_bytes() > static_cast<size_t>(config.max_message_bytes)) {
    return Status::InvalidArgument(fmt::format(
        "RecordTooLargeException: The record batch size in the append to {} is {} bytes which "
        "exceeds the maximum configured value of {}).",
        PartitionName(dir), view.size_in_bytes(), config.max_message_bytes));
  }
  SEGLOG_RETURN_IF_ERROR(view.ValidateCrc());
  SEGLOG_RETURN_IF_ERROR(view.compression().status());
  return view;
}

// After an append: the aborted transactions its markers ended go to the active segment's
// transaction index with their last stable offset (Kafka's updateTxnIndex), every ended one
// leaves the producer state's open transactions, and the first unstable offset is published.
Status CompleteTransactions(ProducerStateManager& producers, LogSegment& active,
                            const std::vector<CompletedTxn>& completed,
                            std::atomic<int64_t>* first_unstable) {
  Status result;
  for (const CompletedTxn& t : completed) {
    if (t.is_aborted && result.ok()) {
      result = active.txn_index().Append(
          {t.producer_id, t.first_offset, t.last_offset, producers.LastStableOffset(t)});
    }
    producers.CompleteTxn(t);
  }
  first_unstable->store(producers.FirstUnstableOffset().value_or(-1), std::memory_order_release);
  return result;
}

}  // namespace

Status Log::BecomeLeader(int32_t epoch) {
  if (epoch < 0) return Status::InvalidArgument(fmt::format("{}: leader epoch {}", dir_, epoch));
  leader_epoch_.store(epoch, std::memory_order_release);
  if (options_.read_only) return Status::OK();
  MutexLock lock(&state_->append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  const auto& entries = state_->epochs.entries();
  if (!entries.empty() && entries.back().epoch >= epoch) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(AssignEpochLocked(epoch, log_end_offset()));
  return WriteLeaderEpochsLocked();
}

Result<LogAppendInfo> Log::AppendAsLeader(std::span<const uint8_t> batches, int32_t leader_epoch,
                                          AppendOrigin origin) {
  if (leader_epoch == kCurrentLeaderEpoch) leader_epoch = this->leader_epoch();
  Result<LogAppendInfo> info = AppendAsLeaderUnflushed(batches, leader_epoch, origin);
  // flush.messages: the fsync runs after the append lock is released; the append is
  // acknowledged only once it is durable.
  if (Status s = RunPendingFlush(); info.ok() && !s.ok()) return s;
  return info;
}

Result<LogAppendInfo> Log::AppendAsLeaderUnflushed(std::span<const uint8_t> batches,
                                                   int32_t leader_epoch, AppendOrigin origin) {
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  SEGLOG_RETURN_IF_ERROR(CheckAppendsAllowedLocked());
  const int64_t now = Now();

  // 1-2. Kafka's checks, then offsets from the log end offset; `out` is what is written,
  // in place where Kafka writes in place (docs/design/log.md, "Appending as leader"). Nothing
  // is written on a refusal.
  LogValidator::Options vo;
  vo.topic_partition = PartitionName(dir_);
  vo.origin = origin;
  vo.partition_leader_epoch = leader_epoch;
  vo.now_ms = now;
  const LogValidator validator(config_, std::move(vo));
  std::vector<uint8_t> out;
  SEGLOG_ASSIGN_OR_RETURN(const ValidationResult v,
                          validator.ValidateMessagesAndAssignOffsets(
                              batches, st.log_end_offset.load(std::memory_order_relaxed), &out));
  if (v.batch_count == 0) return LogAppendInfo{};
  LogAppendInfo info;
  info.first_offset = v.first_offset;
  info.last_offset = v.last_offset;
  info.max_timestamp = v.max_timestamp;
  info.log_append_time = v.log_append_time;
  info.batch_count = v.batch_count;
  info.record_count = v.record_count;
  info.valid_bytes = static_cast<int64_t>(out.size());

  // 3. A set larger than a whole segment can never be written (docs/design/log.md,
  // "Appending as leader", step 4).
  if (out.size() > static_cast<size_t>(config_.SegmentSize())) {
    return Status::InvalidArgument(fmt::format(
        "RecordBatchTooLargeException: Message batch size is {} bytes in append to partition {}, "
        "which exceeds the maximum configured segment size of {}.",
        out.size(), PartitionName(dir_), config_.SegmentSize()));
  }

  // 4. The producer state (Kafka's analyzeAndValidateProducerState): a duplicate returns the
  // original batch's offsets and writes nothing. Kafka rolls before this check; seglog checks
  // first, so that a refused or duplicate append never rolls.
  SEGLOG_ASSIGN_OR_RETURN(const RecordBatchView written, RecordBatchView::Parse(out));
  ProducerStateManager::PendingUpdate producer_update;
  std::optional<BatchMetadata> duplicate;
  SEGLOG_RETURN_IF_ERROR(st.producers->Prepare(written, origin, &producer_update, &duplicate));
  if (duplicate) {
    LogAppendInfo dup;
    dup.duplicate = true;
    dup.first_offset = duplicate->FirstOffset();
    dup.last_offset = duplicate->last_offset;
    dup.max_timestamp = duplicate->timestamp;
    dup.log_append_time = duplicate->timestamp;
    return dup;
  }

  // 5. Roll if needed, then write; the producer state changes only once the write succeeded.
  auto snapshot = st.Snapshot();
  std::shared_ptr<LogSegment> active = snapshot->rbegin()->second;
  RollParams rp;
  rp.max_segment_bytes = config_.SegmentSize();
  rp.max_segment_ms = config_.MaxSegmentMs();
  rp.messages_size = static_cast<int64_t>(out.size());
  rp.max_timestamp_in_messages = info.max_timestamp;
  rp.max_offset_in_messages = info.last_offset;
  rp.now_ms = now;
  SEGLOG_ASSIGN_OR_RETURN(const bool roll, active->ShouldRoll(rp));
  if (roll) {
    SEGLOG_RETURN_IF_ERROR(RollLocked(info.first_offset));
    active = st.Snapshot()->rbegin()->second;
  }
  SEGLOG_RETURN_IF_ERROR(active->Append(info.last_offset, out));
  const std::vector<CompletedTxn> completed = std::move(producer_update.completed);
  st.producers->Commit(std::move(producer_update));
  st.producers->UpdateMapEndOffset(info.last_offset + 1);
  if (Status t = CompleteTransactions(*st.producers, *active, completed, &st.first_unstable_offset);
      !t.ok()) {
    return SyncFailed(t);  // the marker is written, its index entry not: offline, as Kafka
  }
  st.log_end_offset.store(info.last_offset + 1, std::memory_order_release);
  SEGLOG_RETURN_IF_ERROR(AfterAppendLocked(leader_epoch, info.first_offset));
  return info;
}

Result<LogAppendInfo> Log::AppendWithAssignedOffsets(std::span<const uint8_t> batches) {
  Result<LogAppendInfo> info = AppendWithAssignedOffsetsUnflushed(batches);
  if (Status s = RunPendingFlush(); info.ok() && !s.ok()) return s;
  return info;
}

Result<LogAppendInfo> Log::AppendWithAssignedOffsetsUnflushed(std::span<const uint8_t> batches) {
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  SEGLOG_RETURN_IF_ERROR(CheckOpen());
  SEGLOG_RETURN_IF_ERROR(CheckAppendsAllowedLocked());
  LogAppendInfo info;
  int64_t expected_min = st.log_end_offset.load(std::memory_order_relaxed);
  ProducerStateManager::PendingUpdate producer_update;
  LogBatchWalker walker(batches);
  while (walker.Next()) {
    if (walker.current().magic != kMagicV2) {
      return Status::InvalidArgument(
          fmt::format("{}: batch at byte {} has magic {}; seglog appends v2 batches only", dir_,
                      walker.current().position, walker.current().magic));
    }
    auto v = CheckAssignedBatch(dir_, config_, walker.current_bytes(), walker.current().position);
    if (!v.ok()) return v.status().WithContext(dir_);
    const RecordBatchView& b = *v;
    if (b.last_offset_delta() >= 0 && b.base_offset() > INT64_MAX - 1 - b.last_offset_delta()) {
      return Status::InvalidArgument(
          fmt::format("{}: batch at byte {}: base offset {} plus lastOffsetDelta {} overflows",
                      dir_, walker.current().position, b.base_offset(), b.last_offset_delta()));
    }
    if (b.base_offset() < expected_min || b.last_offset_delta() < 0) {
      return Status::InvalidArgument(fmt::format(
          "{}: out of order offsets: batch at byte {} has offsets {}..{}, expected at least {}",
          dir_, walker.current().position, b.base_offset(), b.last_offset(), expected_min));
    }
    // A replica's batches update the producer state unchecked (Kafka's REPLICATION origin).
    std::optional<BatchMetadata> unused;
    SEGLOG_RETURN_IF_ERROR(
        st.producers->Prepare(b, AppendOrigin::kReplication, &producer_update, &unused));
    if (info.first_offset < 0) info.first_offset = b.base_offset();
    info.last_offset = b.last_offset();
    info.max_timestamp = std::max(info.max_timestamp, b.max_timestamp());
    info.record_count += b.records_count();
    ++info.batch_count;
    expected_min = b.next_offset();
  }
  if (!walker.status().ok()) return walker.status().WithContext(dir_);
  if (walker.trailing_bytes() != 0) {
    return Status::Corruption(
        fmt::format("{}: append ends with {} byte(s) that are not a whole batch", dir_,
                    walker.trailing_bytes()));
  }
  if (info.batch_count == 0) return info;
  info.valid_bytes = static_cast<int64_t>(batches.size());
  if (batches.size() > static_cast<size_t>(config_.SegmentSize())) {
    return Status::InvalidArgument(fmt::format(
        "RecordBatchTooLargeException: the batches of {} bytes in append to {} are larger than "
        "the segment size {}",
        batches.size(), dir_, config_.SegmentSize()));
  }
  std::shared_ptr<LogSegment> active = st.Snapshot()->rbegin()->second;
  RollParams rp;
  rp.max_segment_bytes = config_.SegmentSize();
  rp.max_segment_ms = config_.MaxSegmentMs();
  rp.messages_size = static_cast<int64_t>(batches.size());
  rp.max_timestamp_in_messages = info.max_timestamp;
  rp.max_offset_in_messages = info.last_offset;
  rp.now_ms = Now();
  SEGLOG_ASSIGN_OR_RETURN(const bool roll, active->ShouldRoll(rp));
  if (roll) {
    SEGLOG_RETURN_IF_ERROR(RollLocked(info.first_offset));
    active = st.Snapshot()->rbegin()->second;
  }
  SEGLOG_RETURN_IF_ERROR(active->Append(info.last_offset, batches));
  const std::vector<CompletedTxn> completed = std::move(producer_update.completed);
  st.producers->Commit(std::move(producer_update));
  st.producers->UpdateMapEndOffset(info.last_offset + 1);
  if (Status t = CompleteTransactions(*st.producers, *active, completed, &st.first_unstable_offset);
      !t.ok()) {
    return SyncFailed(t);
  }
  st.log_end_offset.store(info.last_offset + 1, std::memory_order_release);
  // Each batch's leader epoch, as a follower's log records them.
  for (LogBatchWalker w(batches); w.Next();) {
    const int32_t epoch = LoadBEInt32(w.current_bytes().data() + bl::kPartitionLeaderEpochOffset);
    if (epoch >= 0) SEGLOG_RETURN_IF_ERROR(AssignEpochLocked(epoch, w.current().base_offset));
  }
  SEGLOG_RETURN_IF_ERROR(AfterAppendLocked(-1, info.first_offset));
  return info;
}

// ---------------------------------------------------------------------------------------------
// Roll, flush, close

Status Log::Roll() {
  {
    MutexLock lock(&state_->append_mu);
    SEGLOG_RETURN_IF_ERROR(CheckOpen());
    SEGLOG_RETURN_IF_ERROR(RollLocked(state_->log_end_offset.load(std::memory_order_relaxed)));
  }
  return RunPendingFlush();
}

Status Log::RollLocked(int64_t expected_next_offset) {
  State& st = *state_;
  st.append_mu.AssertHeld();
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  auto snapshot = st.Snapshot();
  std::shared_ptr<LogSegment> old_active = snapshot->rbegin()->second;
  const int64_t new_base =
      std::max(expected_next_offset, st.log_end_offset.load(std::memory_order_relaxed));
  if (old_active->base_offset() == new_base && old_active->size() == 0) {
    return Status::OK();  // the active segment is already an empty segment at that offset
  }
  const auto roll_start = std::chrono::steady_clock::now();
  if (snapshot->count(new_base)) {
    return Status::FailedPrecondition(fmt::format(
        "{}: cannot roll to offset {}: a segment with that base offset exists", dir_, new_base));
  }
  SEGLOG_RETURN_IF_ERROR(old_active->OnBecomeInactiveSegment());
  // Leftover files of a segment at the new offset (e.g. an index without its .log) go first.
  for (const std::string& path :
       {LogFilePath(dir_, new_base), OffsetIndexFilePath(dir_, new_base),
        TimeIndexFilePath(dir_, new_base), TxnIndexFilePath(dir_, new_base)}) {
    SEGLOG_RETURN_IF_ERROR(options_.env->RemoveFile(path, true));
  }
  int64_t jitter = 0;
  if (config_.segment_jitter_ms > 0) {
    const uint32_t r = static_cast<uint32_t>(st.rng()) & 0x7fffffffu;
    jitter = static_cast<int64_t>(r) % std::min(config_.segment_jitter_ms, config_.segment_ms);
  }
  SEGLOG_ASSIGN_OR_RETURN(
      std::shared_ptr<LogSegment> seg,
      LogSegment::Open(dir_, new_base, MakeSegmentOptions(config_, true, jitter, options_.env),
                       false, Now()));
  auto next_map = std::make_shared<SegmentMap>(*snapshot);
  (*next_map)[new_base] = std::move(seg);
  st.Publish(std::move(next_map));
  if (Status s = options_.env->SyncDirectory(dir_); !s.ok()) return SyncFailed(s);
  // The producer state as of the new segment's base offset (Kafka's roll), written without an
  // fsync; the flush of the rolled segment syncs it. A failed write only costs a longer replay
  // at the next open (the loader falls back to an older snapshot), so the roll stands.
  st.producers->UpdateMapEndOffset(new_base);
  if (auto written = st.producers->TakeSnapshot(/*sync=*/false); !written.ok()) {
    options_.logger.Warn("Failed to write producer snapshot: " + written.status().ToString());
  } else if (*written) {
    st.unsynced_snapshots.push_back(**written);
  }
  options_.logger.Info(fmt::format("Rolled new log segment at offset {} in {} ms.", new_base,
                                   std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::steady_clock::now() - roll_start)
                                       .count()));
  // The segment just closed is flushed off the append path (Kafka's flush-log task), which
  // then moves the recovery point to the new base offset.
  if (options_.scheduler != nullptr) {
    options_.scheduler->ScheduleOnce("flush-log", [handle = st.flush_handle, new_base] {
      MutexLock l(&handle->mu);
      if (handle->log != nullptr) (void)handle->log->Flush(new_base);  // failures go offline
    });
    return Status::OK();
  }
  // Without a scheduler, the caller flushes once it has released the append lock.
  st.pending_flush = std::max(st.pending_flush, new_base);
  return Status::OK();
}

Status Log::Flush(int64_t offset) {
  // As Kafka's UnifiedLog.flush and LevelDB's write path: choose what to sync under the append
  // lock, sync without it (appends go on meanwhile), then publish the new recovery point under
  // it. flush_mu keeps flushes in order and lets Close wait for one that is running.
  State& st = *state_;
  MutexLock flush_lock(&st.flush_mu);
  std::vector<std::shared_ptr<LogSegment>> to_sync;
  std::vector<int64_t> snapshots_to_sync;
  int64_t end;
  {
    MutexLock lock(&st.append_mu);
    if (options_.read_only || st.closed) return Status::OK();  // Close flushes by itself
    SEGLOG_RETURN_IF_ERROR(CheckOnline());
    for (auto it = st.unsynced_snapshots.begin(); it != st.unsynced_snapshots.end();) {
      if (*it <= offset) {
        snapshots_to_sync.push_back(*it);
        it = st.unsynced_snapshots.erase(it);
      } else {
        ++it;
      }
    }
    if (offset <= st.recovery_point && snapshots_to_sync.empty()) return Status::OK();
    end = log_end_offset();
    auto snapshot = st.Snapshot();
    for (auto it = snapshot->begin(); it != snapshot->end(); ++it) {
      auto next = std::next(it);
      const int64_t seg_end = next == snapshot->end() ? end : next->first;
      if (it->first >= offset) break;
      if (seg_end <= st.recovery_point && next != snapshot->end()) continue;  // already durable
      to_sync.push_back(it->second);
    }
  }
  const auto sync_start = std::chrono::steady_clock::now();
  for (const std::shared_ptr<LogSegment>& seg : to_sync) {
    Status s = seg->Flush();
    if (s.ok()) continue;
    // A segment that retention or the cleaner took out of the log meanwhile may have closed
    // its files under us; its data no longer matters. Any other failure is never retried.
    auto now = st.Snapshot();
    auto it = now->find(seg->base_offset());
    if (it != now->end() && it->second == seg) return SyncFailed(s);
  }
  // The producer snapshots a roll wrote (Kafka's flush task syncs them too). Reached without
  // the append lock: SyncProducerSnapshot only opens the file by name (gone: nothing to sync).
  for (const int64_t snapshot_offset : snapshots_to_sync) {
    if (Status s = SyncProducerSnapshot(options_.env, dir_, snapshot_offset); !s.ok()) {
      return SyncFailed(s);
    }
  }
  if (options_.on_flush) {
    options_.on_flush(std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now() - sync_start)
                          .count());
  }
  MutexLock lock(&st.append_mu);
  st.recovery_point = std::max(st.recovery_point, std::min(offset, end));
  st.last_flush_ms = Now();
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Retention and the log start offset

Status Log::WriteLeaderEpochs() {
  MutexLock lock(&state_->append_mu);
  return WriteLeaderEpochsLocked();
}

Status Log::WriteLeaderEpochsLocked() {
  State& st = *state_;
  st.append_mu.AssertHeld();
  if (offline()) return Status::OK();
  return st.epochs.WriteIfDirty();
}

LogConfig Log::config() const {
  MutexLock l(&state_->append_mu);
  return config_;
}

void Log::UpdateConfig(const LogConfig& config) {
  MutexLock l(&state_->append_mu);
  config_ = config;
}

std::vector<std::shared_ptr<LogSegment>> Log::segments() const {
  // Held for the loop: a range-for over *Snapshot() would free the map under it.
  const auto snapshot = state_->Snapshot();
  std::vector<std::shared_ptr<LogSegment>> out;
  for (const auto& [base, seg] : *snapshot) out.push_back(seg);
  return out;
}

Result<std::shared_ptr<LogSegment>> Log::CreateCleanedSegment(int64_t base_offset) {
  if (options_.read_only) return Status::FailedPrecondition(dir_ + ": log opened read-only");
  SegmentOptions o = MakeSegmentOptions(config(), true, 0, options_.env);
  o.file_suffix = std::string(kCleanedFileSuffix);
  for (const std::string& path :
       {LogFilePath(dir_, base_offset), OffsetIndexFilePath(dir_, base_offset),
        TimeIndexFilePath(dir_, base_offset), TxnIndexFilePath(dir_, base_offset)}) {
    SEGLOG_RETURN_IF_ERROR(
        options_.env->RemoveFile(path + o.file_suffix, true));  // an old attempt's output
  }
  return LogSegment::Open(dir_, base_offset, o, false, Now());
}

Status Log::ReplaceSegments(const std::shared_ptr<LogSegment>& cleaned,
                            const std::vector<std::shared_ptr<LogSegment>>& old) {
  State& st = *state_;
  MutexLock lock(&st.append_mu);
  Status online = CheckOnline();
  auto snapshot = st.Snapshot();
  bool all_there = true;
  for (const auto& seg : old) {
    auto it = snapshot->find(seg->base_offset());
    all_there &= it != snapshot->end() && it->second == seg;
  }
  if (!online.ok() || !all_there || st.closed) {
    Status s = cleaned->Close();
    (void)s;
    SEGLOG_RETURN_IF_ERROR(cleaned->DeleteFiles());
    return online.ok()
               ? Status::Aborted(fmt::format(
                     "{}: cleaning aborted: the segments it cleaned changed meanwhile", dir_))
               : online;
  }
  const std::string cleaned_suffix(kCleanedFileSuffix), swap_suffix(kSwapFileSuffix);
  // 1. .cleaned -> .swap, and into the map in place of the old segments. A failure here leaves
  // the log as it was (the loader deletes .swap files at or above a .cleaned one): the output is
  // removed and the log stays online.
  if (Status s = cleaned->ChangeFileSuffixes(cleaned_suffix, swap_suffix); !s.ok()) {
    (void)cleaned->Close();
    Status removed = cleaned->DeleteFiles();
    if (removed.ok()) return s;
    return Status::IOError(fmt::format("{}; removing the cleaned output failed too: {}",
                                       s.message(), removed.message()));
  }
  auto next_map = std::make_shared<SegmentMap>(*snapshot);
  for (const auto& seg : old) next_map->erase(seg->base_offset());
  (*next_map)[cleaned->base_offset()] = cleaned;
  st.Publish(std::move(next_map));
  // 2. The old segments go the two-step way. 3. .swap -> the live names. Once the map is
  // published, a failed rename leaves it over files it does not describe: the log goes offline
  // (the loader completes or undoes the swap at the next open).
  for (const auto& seg : old) {
    Status renamed = seg->ChangeFileSuffixes("", std::string(kDeletedFileSuffix));
    if (!renamed.ok()) return SyncFailed(renamed);
  }
  if (Status s = cleaned->ChangeFileSuffixes(swap_suffix, ""); !s.ok()) return SyncFailed(s);
  // The snapshots of the replaced segments go with them (Kafka's replaceSegments), except the
  // one at the cleaned segment's base offset, which still describes the log there.
  std::vector<std::string> snapshot_files =
      MarkSnapshotsForDeletionLocked(old, cleaned->base_offset());
  if (Status s = options_.env->SyncDirectory(dir_); !s.ok()) return SyncFailed(s);
  ScheduleDeletion(old, std::move(snapshot_files));
  return Status::OK();
}

Status Log::FlushIfDue() {
  {
    MutexLock lock(&state_->append_mu);
    if (state_->closed || Now() - state_->last_flush_ms < config_.flush_ms) return Status::OK();
  }
  return Flush(log_end_offset());
}

Status Log::Close() {
  State& st = *state_;
  st.DetachFlushHandle();              // waits for a running flush-log task
  MutexLock flush_lock(&st.flush_mu);  // and for any other running flush
  MutexLock lock(&st.append_mu);
  if (st.closed) return Status::OK();
  st.closed = true;
  st.closed_for_reads.store(true, std::memory_order_release);
  auto snapshot = st.Snapshot();
  Status result;
  // Flush what is not yet durable (segments from the recovery point on), as Kafka's close does;
  // older segments' indexes stay unopened.
  if (!options_.read_only) {
    for (auto it = snapshot->begin(); it != snapshot->end(); ++it) {
      auto next = std::next(it);
      if (next != snapshot->end() && next->first <= st.recovery_point) continue;
      Status s = offline() ? CheckOnline() : it->second->Flush();
      if (!s.ok() && !offline()) s = SyncFailed(s);
      if (result.ok() && !s.ok()) result = s;
    }
    st.recovery_point = log_end_offset();
    if (Status s = WriteLeaderEpochsLocked(); result.ok() && !s.ok()) result = s;
    // The producer state at the log end offset (Kafka's close), durable. A failure (a full
    // disk) fails nothing: the next open replays from an older snapshot instead.
    if (st.producers && !offline()) {
      st.producers->UpdateMapEndOffset(log_end_offset());
      st.producers->TakeSnapshotOrWarn();
    }
  }
  for (auto& [base, seg] : *snapshot) {
    Status s = seg->Close();
    if (result.ok() && !s.ok()) result = s;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
int64_t Log::last_stable_offset() const {
  const int64_t hw = high_watermark();
  const int64_t first_unstable = state_->first_unstable_offset.load(std::memory_order_acquire);
  if (first_unstable < 0) return hw;
  return std::min(std::max(first_unstable, log_start_offset()), hw);
}

}  // namespace seglog
