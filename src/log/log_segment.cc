// LogSegment; see log_segment.h. Kafka's rules: docs/design/log.md.
#include "log/log_segment.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/coding.h"
#include "io/file_names.h"
#include "log/file_batch_walker.h"
#include "record/batch_walker.h"
#include "record/legacy_record_batch.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace bl = batch_layout;

Result<std::shared_ptr<LogSegment>> LogSegment::Open(const std::string& dir, int64_t base_offset,
                                                     const SegmentOptions& options,
                                                     bool file_already_exists, int64_t now_ms) {
  const std::string path = LogFilePath(dir, base_offset) + options.file_suffix;
  if (options.env == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: SegmentOptions.env is not set", path));
  }
  Env* const env = options.env;
  std::shared_ptr<File> log;
  int64_t size = 0;
  if (file_already_exists) {
    SEGLOG_ASSIGN_OR_RETURN(const FileStat st, env->Stat(path));
    if (st.size > INT32_MAX) {
      return Status::Corruption(
          fmt::format("{}: {} bytes, larger than a segment can be (2^31-1)", path, st.size));
    }
    size = st.size;
  } else {
    if (!options.writable) {
      return Status::FailedPrecondition(fmt::format("{}: cannot create a read-only segment", path));
    }
    SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> created,
                            env->OpenFile(path, File::Mode::kCreateExclusive));
    log = std::move(created);
    if (options.preallocate) SEGLOG_RETURN_IF_ERROR(log->Truncate(options.segment_bytes));
  }
  return std::shared_ptr<LogSegment>(
      new LogSegment(dir, base_offset, options, std::move(log), size, now_ms));
}

LogSegment::LogSegment(std::string dir, int64_t base_offset, const SegmentOptions& options,
                       std::shared_ptr<File> log, int64_t size, int64_t now_ms)
    : dir_(std::move(dir)),
      base_offset_(base_offset),
      options_(options),
      log_path_(LogFilePath(dir_, base_offset) + options.file_suffix),
      log_(std::move(log)),
      offset_index_(options.env, OffsetIndexFilePath(dir_, base_offset) + options.file_suffix,
                    base_offset, options.max_index_size, options.writable),
      time_index_(options.env, TimeIndexFilePath(dir_, base_offset) + options.file_suffix,
                  base_offset, options.max_index_size, options.writable),
      txn_index_(options.env, base_offset,
                 TxnIndexFilePath(dir_, base_offset) + options.file_suffix, options.writable),
      size_(size),
      created_ms_(now_ms) {}

LogSegment::~LogSegment() = default;

Result<std::shared_ptr<File>> LogSegment::log_file() const {
  MutexLock l(&file_mu_);
  if (!log_) {
    SEGLOG_ASSIGN_OR_RETURN(
        std::unique_ptr<File> f,
        options_.env->OpenFile(log_path_,
                               options_.writable ? File::Mode::kReadWrite : File::Mode::kReadOnly));
    log_ = std::move(f);
  }
  return log_;
}

std::string LogSegment::log_path() const {
  MutexLock l(&file_mu_);
  return log_path_;
}

Status LogSegment::ChangeFileSuffixes(const std::string& old_suffix,
                                      const std::string& new_suffix) {
  auto renamed = [&](const std::string& path) {
    return path.substr(0, path.size() - old_suffix.size()) + new_suffix;
  };
  {
    MutexLock l(&file_mu_);
    if (!log_path_.ends_with(old_suffix)) {
      return Status::FailedPrecondition(
          fmt::format("{}: does not end with '{}'", log_path_, old_suffix));
    }
    const std::string to = renamed(log_path_);
    SEGLOG_RETURN_IF_ERROR(options_.env->RenameFile(log_path_, to));
    log_path_ = to;
  }
  SEGLOG_RETURN_IF_ERROR(offset_index_.RenameTo(renamed(offset_index_.path())));
  SEGLOG_RETURN_IF_ERROR(time_index_.RenameTo(renamed(time_index_.path())));
  return txn_index_.RenameTo(renamed(txn_index_.path()));
}

Status LogSegment::SetLastModified(int64_t ms) {
  SEGLOG_RETURN_IF_ERROR(options_.env->SetLastModifiedMs(log_path(), ms));
  for (const std::string& index : {offset_index_.path(), time_index_.path()}) {
    if (options_.env->FileExists(index)) {
      SEGLOG_RETURN_IF_ERROR(options_.env->SetLastModifiedMs(index, ms));
    }
  }
  return Status::OK();
}

Result<int64_t> LogSegment::LastModified() const {
  SEGLOG_ASSIGN_OR_RETURN(const FileStat st, options_.env->Stat(log_path()));
  return st.last_modified_ms;
}

std::string LogSegment::Describe() {
  const std::string path = log_path();
  auto st = options_.env->Stat(path);
  auto max = MaxTimestampAndOffsetSoFar();
  return fmt::format(
      "LogSegment(baseOffset={}, size={}, lastModifiedTime={}, largestRecordTimestamp={})",
      base_offset_, size(), st.ok() ? st->last_modified_ms : 0, max.ok() ? max->timestamp : -1);
}

bool LogSegment::log_file_open() const {
  MutexLock l(&file_mu_);
  return log_ != nullptr;
}

Result<std::shared_ptr<File>> LogSegment::OpenOrTransientLogFile() const {
  std::string path;
  {
    MutexLock l(&file_mu_);
    if (log_) return log_;
    path = log_path_;
  }
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> f,
                          options_.env->OpenFile(path, File::Mode::kReadOnly));
  return std::shared_ptr<File>(std::move(f));
}

Status LogSegment::TrimLogFile(File& log) const {
  // Only a longer (preallocated) file is cut, as Kafka's FileRecords.truncateTo: an
  // ftruncate to the same length would still move the mtime that retention may judge by.
  SEGLOG_ASSIGN_OR_RETURN(const int64_t length, log.Size());
  return length > size() ? log.Truncate(size()) : Status::OK();
}

Status LogSegment::EnsureOffsetInRange(int64_t offset) const {
  const int64_t relative = offset - base_offset_;
  if (relative < 0 || relative > INT32_MAX) {
    return Status::OutOfRange(
        fmt::format("offset {} cannot be stored relative to base offset {} of segment {}", offset,
                    base_offset_, log_path()));
  }
  return Status::OK();
}

Result<int64_t> LogSegment::RollingBasedTimestamp() {
  {
    MutexLock l(&state_mu_);
    if (rolling_based_timestamp_) return *rolling_based_timestamp_;
  }
  // The max timestamp of the first batch in the file, if there is one (docs/design/log.md,
  // "The time limit: segment.ms").
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, log_file());
  FileBatchWalker w(*log, 0, size());
  int64_t ts = -1;
  if (w.Next()) ts = w.max_timestamp();
  if (!w.status().ok()) return w.status();
  MutexLock l(&state_mu_);
  if (size() > 0) rolling_based_timestamp_ = ts;
  return ts;
}

Result<bool> LogSegment::ShouldRoll(const RollParams& p) {
  int64_t waited;
  SEGLOG_ASSIGN_OR_RETURN(const int64_t rolling, RollingBasedTimestamp());
  if (rolling >= 0) {
    waited = p.max_timestamp_in_messages - rolling;  // record time, not wall clock
  } else {
    MutexLock l(&state_mu_);
    waited = p.now_ms - created_ms_;
  }
  const bool reached_roll_ms = waited > p.max_segment_ms - options_.roll_jitter_ms;
  const int64_t sz = size();
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
  const int64_t relative = p.max_offset_in_messages - base_offset_;
  return sz > p.max_segment_bytes - p.messages_size ||  // 1. size
         (sz > 0 && reached_roll_ms) ||                 // 2. time (record timestamps)
         oi->IsFull() ||                                // 3. offset index full
         ti->IsFull() ||                                // 4. time index full (reserved slot)
         relative < 0 || relative > INT32_MAX;          // 5. relative offset overflow
}

Result<TimestampOffset> LogSegment::MaxTimestampAndOffsetSoFar() {
  {
    MutexLock l(&state_mu_);
    if (max_timestamp_so_far_) return *max_timestamp_so_far_;
  }
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
  const TimestampOffset last = ti->LastEntry();
  MutexLock l(&state_mu_);
  if (!max_timestamp_so_far_) max_timestamp_so_far_ = last;
  return *max_timestamp_so_far_;
}

Result<int64_t> LogSegment::LargestTimestamp() {
  SEGLOG_ASSIGN_OR_RETURN(const TimestampOffset max, MaxTimestampAndOffsetSoFar());
  if (max.timestamp >= 0) return max.timestamp;
  SEGLOG_ASSIGN_OR_RETURN(const FileStat st, options_.env->Stat(log_path()));
  return st.last_modified_ms;
}

Status LogSegment::Append(int64_t largest_offset, std::span<const uint8_t> batches) {
  if (batches.empty()) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(EnsureOffsetInRange(largest_offset));
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, log_file());
  const int64_t start = size();
  if (start + static_cast<int64_t>(batches.size()) > INT32_MAX) {
    return Status::OutOfRange(fmt::format("append of {} bytes would make {} larger than 2^31-1",
                                          batches.size(), log_path()));
  }
  SEGLOG_ASSIGN_OR_RETURN(TimestampOffset max_so_far, MaxTimestampAndOffsetSoFar());
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
  const int oi_entries = oi->entries();
  const int ti_entries = ti->entries();
  const int64_t bytes_since = bytes_since_last_index_entry_;
  // All of it or none: on any failure (a full disk mid-write, an index entry that cannot be
  // written) the .log is cut back and the indexes forget this append's entries. Readers never
  // saw any of it: the size they read is published last.
  auto undo = [&](const Status& failure) {
    oi->TruncateToEntries(oi_entries);
    ti->TruncateToEntries(ti_entries);
    bytes_since_last_index_entry_ = bytes_since;
    Status cut = log->Truncate(start);
    return failure.WithContext(fmt::format(
        "append of {} bytes at position {} of {} failed{}", batches.size(), start, log_path(),
        cut.ok() ? "; the segment was cut back to its previous end"
                 : fmt::format(" and cutting it back failed too ({})", cut.message())));
  };
  if (Status written = log->WriteAt(start, batches); !written.ok()) return undo(written);
  // Index entries by Kafka's per-batch rule (docs/format/offset_index.md §3, "When an entry is
  // written").
  int64_t position = start;
  LogBatchWalker w(batches);
  while (w.Next()) {
    auto view = RecordBatchView::Parse(w.current_bytes(), position);
    if (!view.ok()) return undo(view.status());
    if (view->max_timestamp() > max_so_far.timestamp) {
      max_so_far = {view->max_timestamp(), view->last_offset()};
    }
    if (bytes_since_last_index_entry_ > options_.index_interval_bytes) {
      if (Status s = oi->Append(view->last_offset(), static_cast<int32_t>(position)); !s.ok()) {
        return undo(s);
      }
      if (Status s = ti->MaybeAppend(max_so_far.timestamp, max_so_far.offset); !s.ok()) {
        return undo(s);
      }
      bytes_since_last_index_entry_ = 0;
    }
    position += w.current().size_in_bytes();
    bytes_since_last_index_entry_ += w.current().size_in_bytes();
  }
  {
    MutexLock l(&state_mu_);
    max_timestamp_so_far_ = max_so_far;
  }
  // Publish last: readers never see part of this append.
  size_.store(position, std::memory_order_release);
  return Status::OK();
}

Result<std::optional<BatchLocation>> LogSegment::TranslateOffset(int64_t offset,
                                                                 int64_t starting_position) {
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
  const OffsetPosition mapping = oi->Lookup(offset);
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, log_file());
  FileBatchWalker w(*log, std::max<int64_t>(mapping.position, starting_position), size());
  while (w.Next()) {
    if (w.last_offset() >= offset) {
      return std::optional<BatchLocation>(BatchLocation{
          base_offset_, w.current().position, static_cast<int32_t>(w.current().size_in_bytes()),
          w.current().base_offset, w.last_offset()});
    }
  }
  if (!w.status().ok()) return w.status();
  return std::optional<BatchLocation>();
}

Result<std::optional<FetchDataInfo>> LogSegment::Read(int64_t start_offset, int32_t max_size,
                                                      int64_t max_position, bool min_one_message) {
  if (max_size < 0) {
    return Status::InvalidArgument(fmt::format("invalid max size {} for log read", max_size));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::optional<BatchLocation> loc, TranslateOffset(start_offset));
  if (!loc || loc->position >= max_position) return std::optional<FetchDataInfo>();
  FetchDataInfo info;
  info.first_batch = *loc;
  SEGLOG_ASSIGN_OR_RETURN(info.slice.file, log_file());
  info.slice.position = loc->position;
  const int64_t adjusted = min_one_message ? std::max<int64_t>(max_size, loc->size) : max_size;
  info.slice.length = std::min(max_position - loc->position, adjusted);
  info.first_entry_incomplete = adjusted < loc->size;
  return std::optional<FetchDataInfo>(info);
}

Result<std::optional<TimestampAndOffset>> LogSegment::FindOffsetByTimestamp(
    int64_t timestamp, int64_t starting_offset) {
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
  const TimestampOffset entry = ti->Lookup(timestamp);
  const int64_t position = oi->Lookup(std::max(entry.offset, starting_offset)).position;
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, log_file());
  FileBatchWalker w(*log, position, size());
  std::vector<uint8_t> bytes;
  while (w.Next()) {
    if (w.max_timestamp() < timestamp) continue;
    SEGLOG_RETURN_IF_ERROR(w.ReadCurrent(&bytes));
    if (w.current().magic != kMagicV2) {
      return Status::Corruption(fmt::format(
          "{}: timestamp lookup over legacy batches (magic {}) at position {} is not supported",
          log_path(), w.current().magic, w.current().position));
    }
    SEGLOG_ASSIGN_OR_RETURN(RecordBatchView view,
                            RecordBatchView::Parse(bytes, w.current().position));
    RecordIterator it(view);
    while (it.Next()) {
      if (it.record().timestamp >= timestamp && it.record().offset >= starting_offset) {
        TimestampAndOffset found{it.record().timestamp, it.record().offset, std::nullopt};
        if (view.partition_leader_epoch() >= 0) found.leader_epoch = view.partition_leader_epoch();
        return std::optional<TimestampAndOffset>(found);
      }
    }
    SEGLOG_RETURN_IF_ERROR(it.status().WithContext(log_path()));
  }
  if (!w.status().ok()) return w.status();
  return std::optional<TimestampAndOffset>();
}

Result<int64_t> LogSegment::ReadNextOffset() {
  OffsetPosition last;
  if (offset_index_.IsLoaded()) {
    SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
    last = oi->LastEntry();
  } else {
    SEGLOG_ASSIGN_OR_RETURN(
        last, OffsetIndex::ReadLastEntry(options_.env, offset_index_.path(), base_offset_));
  }
  if (size() == 0) return base_offset_;
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, OpenOrTransientLogFile());
  FileBatchWalker w(*log, last.position, size());
  int64_t next = base_offset_;
  while (w.Next()) next = WrappingAdd(w.last_offset(), 1);
  if (!w.status().ok()) return w.status();
  return next;
}

Status LogSegment::OnBecomeInactiveSegment() {
  SEGLOG_ASSIGN_OR_RETURN(const TimestampOffset max, MaxTimestampAndOffsetSoFar());
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
  SEGLOG_RETURN_IF_ERROR(ti->MaybeAppend(max.timestamp, max.offset, /*skip_full_check=*/true));
  SEGLOG_RETURN_IF_ERROR(oi->TrimToValidSize());
  SEGLOG_RETURN_IF_ERROR(ti->TrimToValidSize());
  if (options_.writable) {
    SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, log_file());
    SEGLOG_RETURN_IF_ERROR(TrimLogFile(*log));
  }
  return Status::OK();
}

Status LogSegment::Flush() {
  if (!options_.writable) return Status::OK();
  // Only what was opened can hold unsynced writes: a segment nobody touched since it was
  // loaded is already durable, and stays unopened.
  std::shared_ptr<File> log;
  {
    MutexLock l(&file_mu_);
    log = log_;
  }
  if (log) SEGLOG_RETURN_IF_ERROR(log->Sync());
  if (offset_index_.IsLoaded()) {
    SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
    SEGLOG_RETURN_IF_ERROR(oi->Flush());
  }
  if (time_index_.IsLoaded()) {
    SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
    SEGLOG_RETURN_IF_ERROR(ti->Flush());
  }
  return txn_index_.Flush();
}

Status LogSegment::Close() {
  Status result;
  if (options_.writable) {
    std::optional<TimestampOffset> max;
    {
      MutexLock l(&state_mu_);
      max = max_timestamp_so_far_;
    }
    if (max && time_index_.IsLoaded()) {
      auto ti = time_index();
      if (ti.ok()) result = (*ti)->MaybeAppend(max->timestamp, max->offset, true);
    }
  }
  Status s1 = offset_index_.Close();
  Status s2 = time_index_.Close();
  if (options_.writable && !log_path().ends_with(kDeletedFileSuffix) &&
      options_.env->FileExists(log_path())) {
    // An index never used (a segment with no append since it was made) has no file yet; Kafka
    // creates both with the segment and logs an ERROR at its next start for a .log without
    // them, so a clean close leaves them as Kafka's would be: empty.
    for (const std::string& path : {offset_index_.path(), time_index_.path()}) {
      if (options_.env->FileExists(path)) continue;
      Result<std::unique_ptr<File>> f = options_.env->OpenFile(path, File::Mode::kCreate);
      if (!f.ok() && s1.ok()) s1 = f.status();
    }
  }
  (void)txn_index_.Close();  // only drops a descriptor
  std::shared_ptr<File> log;
  {
    MutexLock l(&file_mu_);
    log = log_;
  }
  Status s3 = options_.writable && log ? TrimLogFile(*log) : Status::OK();
  for (const Status& s : {s1, s2, s3}) {
    if (result.ok() && !s.ok()) result = s;
  }
  return result;
}

namespace {
// Recovery reads a segment in windows of this many bytes (FileBatchWalker's read-ahead).
constexpr int64_t kRecoveryReadAhead = 1 << 20;
}  // namespace

Result<LogSegment::RecoveryResult> LogSegment::Recover(const CutHandler& on_cut) {
  SEGLOG_ASSIGN_OR_RETURN(OffsetIndex * oi, offset_index());
  SEGLOG_ASSIGN_OR_RETURN(TimeIndex * ti, time_index());
  SEGLOG_RETURN_IF_ERROR(oi->Reset());
  SEGLOG_RETURN_IF_ERROR(ti->Reset());
  SEGLOG_ASSIGN_OR_RETURN(std::shared_ptr<File> log, log_file());
  SEGLOG_ASSIGN_OR_RETURN(const int64_t file_size, log->Size());
  RecoveryResult result;
  TimestampOffset max_so_far{-1, base_offset_};
  int64_t valid = 0;
  int64_t next_offset = base_offset_;  // after the last valid batch
  int64_t last_index_entry = 0;
  // One sequential pass in 1 MiB windows: each batch is checked where it was read.
  FileBatchWalker w(*log, 0, file_size, kRecoveryReadAhead);
  while (w.Next()) {
    const BatchPrefix& p = w.current();
    const std::span<const uint8_t> bytes = w.current_bytes();
    // Validity as Kafka's ensureValid: v2 size and CRC-32C, legacy CRC-32.
    Status valid_batch;
    if (p.magic >= kMagicV2) {
      auto view = RecordBatchView::Parse(bytes, p.position);
      valid_batch = view.ok() ? view->ValidateCrc() : view.status();
    } else {
      auto legacy = LegacyRecordBatchView::Parse(bytes, p.position);
      valid_batch = legacy.ok() ? legacy->ValidateCrc() : legacy.status();
    }
    if (!valid_batch.ok()) {
      result.stop_reason = valid_batch.WithContext(log_path());
      break;
    }
    const int64_t relative = w.last_offset() - base_offset_;
    if (relative < 0 || relative > INT32_MAX) {
      result.stop_reason = Status::Corruption(fmt::format(
          "{}: batch at position {} has last offset {}, not representable relative to base {}",
          log_path(), p.position, w.last_offset(), base_offset_));
      break;
    }
    if (w.max_timestamp() > max_so_far.timestamp) max_so_far = {w.max_timestamp(), w.last_offset()};
    if (valid - last_index_entry > options_.index_interval_bytes) {
      SEGLOG_RETURN_IF_ERROR(oi->Append(w.last_offset(), static_cast<int32_t>(valid)));
      SEGLOG_RETURN_IF_ERROR(ti->MaybeAppend(max_so_far.timestamp, max_so_far.offset));
      last_index_entry = valid;
    }
    valid += p.size_in_bytes();
    next_offset = w.last_offset() + 1;
    ++result.batches;
  }
  if (result.stop_reason.ok() && !w.status().ok()) {
    result.stop_reason = w.status();
  }
  if (result.stop_reason.ok() && valid < file_size) {
    result.stop_reason =
        Status::Corruption(fmt::format("{}: {} byte(s) at position {} are not a whole batch",
                                       log_path(), file_size - valid, valid));
  }
  result.valid_bytes = valid;
  result.truncated_bytes = file_size - valid;
  if (result.truncated_bytes > 0) {
    if (on_cut) SEGLOG_RETURN_IF_ERROR(on_cut(*log, valid, file_size));
    SEGLOG_RETURN_IF_ERROR(log->Truncate(valid));
  }
  size_.store(valid, std::memory_order_release);
  bytes_since_last_index_entry_ = 0;
  // Aborted transactions whose markers were cut go; a broken index is emptied (the producer
  // state's replay at load writes the entries of the markers it replays again).
  if (!txn_index_.SanityCheck().ok()) {
    SEGLOG_RETURN_IF_ERROR(txn_index_.Reset());
    result.txn_index_reset = true;
  } else {
    SEGLOG_RETURN_IF_ERROR(txn_index_.TruncateTo(next_offset));
  }
  SEGLOG_RETURN_IF_ERROR(oi->TrimToValidSize());
  SEGLOG_RETURN_IF_ERROR(ti->MaybeAppend(max_so_far.timestamp, max_so_far.offset, true));
  SEGLOG_RETURN_IF_ERROR(ti->TrimToValidSize());
  {
    MutexLock l(&state_mu_);
    max_timestamp_so_far_ = max_so_far;
    rolling_based_timestamp_.reset();
  }
  return result;
}

Status LogSegment::ResizeIndexes(int64_t size) {
  SEGLOG_RETURN_IF_ERROR(offset_index_.Resize(size));
  return time_index_.Resize(size);
}

Status LogSegment::DeleteFiles() {
  SEGLOG_RETURN_IF_ERROR(offset_index_.Delete());
  SEGLOG_RETURN_IF_ERROR(time_index_.Delete());
  SEGLOG_RETURN_IF_ERROR(txn_index_.DeleteIfExists());
  return options_.env->RemoveFile(log_path(), true);
}

}  // namespace seglog
