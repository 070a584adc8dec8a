// SharePartitionManager; see share_partition_manager.h.
#include "share/share_partition_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <set>
#include <utility>

#include "base/coding.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/record_batch.h"
#include "sharestate/share_coordinator.h"

namespace seglog {

namespace {

constexpr int16_t kFencedStateEpoch = 124;  // Errors.FENCED_STATE_EPOCH

// Errors.UNKNOWN_TOPIC_OR_PARTITION with its exception's default message.
ShareError NotHosted() {
  return ShareError(kafka_error::kUnknownTopicOrPartition,
                    "This server does not host this topic-partition.");
}

// An ISO-8601 duration as Java's Duration.parse reads it (PnDTnHnMn.nS), in ms; none when it
// does not parse.
std::optional<int64_t> ParseIsoDurationMs(std::string_view text) {
  if (text.size() < 2 || (text[0] != 'P' && text[0] != 'p')) return std::nullopt;
  size_t i = 1;
  bool in_time = false;
  double total_ms = 0;
  bool any = false;
  while (i < text.size()) {
    if (text[i] == 'T' || text[i] == 't') {
      in_time = true;
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) ||
                               text[j] == '.' || text[j] == '-')) {
      ++j;
    }
    if (j == i || j >= text.size()) return std::nullopt;
    const double value = std::strtod(std::string(text.substr(i, j - i)).c_str(), nullptr);
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[j])));
    if (!in_time && unit == 'D') {
      total_ms += value * 86400000.0;
    } else if (in_time && unit == 'H') {
      total_ms += value * 3600000.0;
    } else if (in_time && unit == 'M') {
      total_ms += value * 60000.0;
    } else if (in_time && unit == 'S') {
      total_ms += value * 1000.0;
    } else {
      return std::nullopt;
    }
    any = true;
    i = j + 1;
  }
  if (!any) return std::nullopt;
  return static_cast<int64_t>(total_ms);
}

// The v2 batch headers of `slice`, in order; a partial batch at the end is left out.
struct SliceBatch {
  int64_t base_offset;
  int64_t last_offset;
  int64_t position;  // in the file
  int64_t size;
  int64_t producer_id;  // -1: none (or not a v2 batch)
  bool transactional;
  bool control;
};
// The v2 batch header: up to the record count (61 bytes).
constexpr size_t kBatchHeaderSize = 61;

// Reads the batch headers of `slice` up to and including the first batch that reaches
// `last_needed` (Acquire never takes an offset past it; a fetch slice may hold tens of MiB of
// batches, one header read each, where a fetch acquires max_records of them).
std::vector<SliceBatch> ReadBatchHeaders(const FileSlice& slice, int64_t last_needed) {
  std::vector<SliceBatch> out;
  if (slice.file == nullptr) return out;
  constexpr size_t kMinimum = batch_layout::kLastOffsetDeltaOffset + 4;
  int64_t pos = slice.position;
  const int64_t end = slice.position + slice.length;
  std::array<uint8_t, kBatchHeaderSize> header{};
  while (end - pos >= static_cast<int64_t>(kMinimum)) {
    const size_t want =
        static_cast<size_t>(std::min<int64_t>(end - pos, static_cast<int64_t>(kBatchHeaderSize)));
    if (!slice.file->ReadAt(pos, std::span<uint8_t>(header.data(), want)).ok()) break;
    const int64_t base = LoadBEInt64(header.data() + batch_layout::kBaseOffsetOffset);
    const int64_t size =
        static_cast<int64_t>(LoadBEInt32(header.data() + batch_layout::kLengthOffset)) +
        static_cast<int64_t>(batch_layout::kLogOverhead);
    if (size <= 0 || pos + size > end) break;
    SliceBatch b{base, base, pos, size, -1, false, false};
    if (header[batch_layout::kMagicOffset] >= kMagicV2 && want == kBatchHeaderSize) {
      b.last_offset = base + LoadBEInt32(header.data() + batch_layout::kLastOffsetDeltaOffset);
      const int16_t attributes = LoadBEInt16(header.data() + batch_layout::kAttributesOffset);
      b.producer_id = LoadBEInt64(header.data() + batch_layout::kProducerIdOffset);
      b.transactional = (attributes & batch_layout::kTransactionalFlagMask) != 0;
      b.control = (attributes & batch_layout::kControlFlagMask) != 0;
    }
    out.push_back(b);
    pos += size;
    if (b.last_offset >= last_needed) break;
  }
  return out;
}

// The transactional batches of aborted transactions among `batches` (Kafka's
// SharePartition.fetchAbortedTransactionRecordBatches): a producer is in an aborted
// transaction from the transaction's first offset until its (abort) control batch.
std::vector<std::pair<int64_t, int64_t>> AbortedBatches(const std::vector<SliceBatch>& batches,
                                                        std::vector<AbortedTransaction> aborted) {
  std::vector<std::pair<int64_t, int64_t>> out;
  std::sort(aborted.begin(), aborted.end(),
            [](const auto& a, const auto& b) { return a.first_offset < b.first_offset; });
  size_t next = 0;
  std::set<int64_t> ongoing;
  for (const SliceBatch& b : batches) {
    if (b.producer_id < 0) continue;
    while (next < aborted.size() && aborted[next].first_offset <= b.last_offset) {
      ongoing.insert(aborted[next++].producer_id);
    }
    if (ongoing.count(b.producer_id) == 0) continue;
    if (b.control) {
      ongoing.erase(b.producer_id);  // the abort marker ends the transaction
    } else if (b.transactional) {
      out.emplace_back(b.base_offset, b.last_offset);
    }
  }
  return out;
}

// `acquired` without the offsets of `removed`.
std::vector<AcquiredRecords> Subtract(const std::vector<AcquiredRecords>& acquired,
                                      const std::vector<std::pair<int64_t, int64_t>>& removed) {
  std::vector<AcquiredRecords> out;
  for (const AcquiredRecords& a : acquired) {
    std::vector<AcquiredRecords> pieces{a};
    for (const auto& [first, last] : removed) {
      std::vector<AcquiredRecords> next;
      for (const AcquiredRecords& p : pieces) {
        if (last < p.first_offset || first > p.last_offset) {
          next.push_back(p);
          continue;
        }
        if (p.first_offset < first) next.push_back({p.first_offset, first - 1, p.delivery_count});
        if (p.last_offset > last) next.push_back({last + 1, p.last_offset, p.delivery_count});
      }
      pieces = std::move(next);
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
  }
  return out;
}

bool IsFenced(int16_t code) {
  return code == kafka_error::kFencedLeaderEpoch || code == kFencedStateEpoch;
}

}  // namespace

SharePartitionManager::SharePartitionManager(Options options) : options_(std::move(options)) {}

void SharePartitionManager::Start() {
  if (options_.scheduler == nullptr) return;
  options_.scheduler->Schedule(
      "share-acquisition-lock-timer", [this] { ExpireLocks(); }, kLockTimerPeriodMs,
      kLockTimerPeriodMs);
}

int64_t SharePartitionManager::NowMs() const {
  if (options_.clock) return options_.clock();
  if (options_.scheduler != nullptr) return options_.scheduler->NowMs();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ShareGroupSettings SharePartitionManager::SettingsOf(const std::string& group_id) const {
  if (options_.settings) return options_.settings(group_id);
  return ShareGroupSettings{};
}

int32_t SharePartitionManager::RecordLockDurationMs(const std::string& group_id) const {
  return static_cast<int32_t>(SettingsOf(group_id).partition.record_lock_duration_ms);
}

std::shared_ptr<SharePartitionManager::Entry> SharePartitionManager::EntryFor(
    const SharePartitionKey& key) {
  MutexLock lock(&mu_);
  auto [it, added] = partitions_.try_emplace(key);
  if (added) it->second = std::make_shared<Entry>(key);
  return it->second;
}

std::shared_ptr<SharePartitionManager::Entry> SharePartitionManager::Find(
    const SharePartitionKey& key) {
  MutexLock lock(&mu_);
  auto it = partitions_.find(key);
  return it == partitions_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<SharePartitionManager::Entry>> SharePartitionManager::Entries(
    const std::string* group_id) {
  MutexLock lock(&mu_);
  std::vector<std::shared_ptr<Entry>> out;
  for (const auto& [key, entry] : partitions_) {
    if (group_id == nullptr || key.group_id == *group_id) out.push_back(entry);
  }
  return out;
}

void SharePartitionManager::Drop(const std::shared_ptr<Entry>& entry) {
  MutexLock lock(&mu_);
  auto it = partitions_.find(entry->key);
  if (it != partitions_.end() && it->second == entry) partitions_.erase(it);
}

void SharePartitionManager::NotifyAvailable(const std::string& group_id) const {
  if (options_.on_available) options_.on_available(group_id);
}

ShareError SharePartitionManager::EnsureLoaded(Entry& entry, const std::string& topic) {
  while (entry.loading) entry.changed.Wait(&entry.mu);
  if (entry.partition) return ShareError::None();
  if (options_.coordinator == nullptr || options_.logs == nullptr) {
    return ShareError(kafka_error::kCoordinatorNotAvailable, "Share coordinator is not available.");
  }
  const SharePartitionKey key = entry.key;
  entry.loading = true;
  entry.mu.Unlock();
  // No lock held: the coordinator's Read appends a record (the new leader epoch).
  int32_t leader_epoch = 0;
  const ShareGroupSettings settings = SettingsOf(key.group_id);
  Result<SharePartition> created = Status::NotFound("not loaded");
  ShareError error = [&]() -> ShareError {
    Result<std::shared_ptr<Log>> log = options_.logs->GetLog({topic, key.partition});
    if (!log.ok()) {
      return ShareError(kafka_error::kUnknownTopicOrPartition,
                        "This server does not host this topic-partition.");
    }
    leader_epoch = (*log)->leader_epoch();
    ShareCoordinator::ReadOutcome read = options_.coordinator->Read(key, leader_epoch);
    if (read.error_code != 0) {
      return ShareError(read.error_code, read.error_message.value_or(""));
    }
    int64_t start = read.start_offset;
    if (start < 0) {
      // SharePartition.startOffsetDuringInitialization: share.auto.offset.reset.
      const std::string& reset = settings.auto_offset_reset;
      const int64_t latest =
          settings.read_committed ? (*log)->last_stable_offset() : (*log)->high_watermark();
      start = latest;
      if (reset == "earliest") {
        start = (*log)->log_start_offset();
      } else if (reset.starts_with("by_duration:")) {
        std::optional<int64_t> ms = ParseIsoDurationMs(reset.substr(12));
        if (ms) {
          Result<std::optional<TimestampAndOffset>> found =
              (*log)->FetchOffsetByTimestamp(NowMs() - *ms);
          if (found.ok() && found->has_value() && (*found)->offset >= 0) start = (*found)->offset;
        }
      }
    }
    PersistedShareState state;
    state.state_epoch = read.state_epoch;
    state.start_offset = start;
    for (const PersisterStateBatch& b : read.state_batches) {
      state.batches.push_back(PersistedStateBatch{b.first_offset, b.last_offset,
                                                  static_cast<RecordState>(b.delivery_state),
                                                  b.delivery_count});
    }
    created = SharePartition::Create(settings.partition, state);
    if (!created.ok()) {
      return ShareError(kafka_error::kUnknownServerError, created.status().ToString());
    }
    options_.logger.Info(
        fmt::format("Share partition {} loaded at start offset {}", key.CoordinatorKey(), start));
    return ShareError::None();
  }();
  entry.mu.Lock();
  entry.loading = false;
  entry.changed.SignalAll();
  if (!error.ok()) return error;
  entry.partition.emplace(std::move(created).value());
  HandOffDlq(entry);
  entry.leader_epoch = leader_epoch;
  entry.read_committed = settings.read_committed;
  return ShareError::None();
}

void SharePartitionManager::HandOffDlq(Entry& entry) {
  std::vector<DlqArchive> archived = entry.partition->TakeDlqArchives();
  if (archived.empty()) return;
  if (options_.on_dlq_archived) {
    options_.on_dlq_archived(entry.key, std::move(archived));
    return;
  }
  // No writer (a loaded state's ARCHIVING records): archived at once, written with the next
  // change.
  for (const DlqArchive& a : archived)
    entry.partition->CompleteArchiving(a.first_offset, a.last_offset);
}

ShareCoordinatorWriteData SharePartitionManager::WriteDataOf(const SharePartition& partition,
                                                             int32_t leader_epoch) const {
  PersistedShareState state = partition.PersistableState();
  ShareCoordinator::WriteData data;
  data.state_epoch = state.state_epoch;
  data.leader_epoch = leader_epoch;
  data.start_offset = state.start_offset;
  int64_t complete = 0;
  for (const PersistedStateBatch& b : state.batches) {
    if (IsTerminal(b.state)) complete += b.last_offset - b.first_offset + 1;
    data.state_batches.push_back(PersisterStateBatch{
        b.first_offset, b.last_offset, static_cast<int8_t>(b.state), b.delivery_count});
  }
  data.delivery_complete_count = static_cast<int32_t>(std::min<int64_t>(complete, INT32_MAX));
  return data;
}

SharePartitionManager::WriteOutcome SharePartitionManager::WriteChange(Entry& entry,
                                                                       const ChangeFn& change,
                                                                       bool apply_on_failure) {
  WriteOutcome out;
  while (entry.write_in_flight) entry.changed.Wait(&entry.mu);
  // Invariant: loaded partitions are never unloaded (a fenced one is dropped from the map).
  assert(entry.partition.has_value());
  // Kafka reads isDLQEnabledForGroup at each transition.
  entry.partition->SetDeadLetterQueue(options_.on_dlq_archived && options_.dlq_enabled &&
                                      options_.dlq_enabled(entry.key.group_id));
  SharePartition next = *entry.partition;
  const Change planned = change(next);
  if (!planned.error.ok()) {
    out.error = planned.error;
    return out;
  }
  if (!planned.write) {
    entry.partition = std::move(next);
    HandOffDlq(entry);
    out.applied = true;
    out.became_available = planned.became_available;
    return out;
  }
  const ShareCoordinatorWriteData data = WriteDataOf(next, entry.leader_epoch);
  const SharePartitionKey key = entry.key;
  entry.write_in_flight = true;
  entry.mu.Unlock();
  // No lock held: the write appends to __share_group_state. Fetches of this partition go on.
  ShareCoordinator::Outcome written;
  if (options_.write_state) {
    written = options_.write_state(key, data);
  } else if (options_.coordinator != nullptr) {
    written = options_.coordinator->Write(key, data);
  } else {
    written.error_code = kafka_error::kCoordinatorNotAvailable;
    written.error_message = "Share coordinator is not available.";
  }
  entry.mu.Lock();
  entry.write_in_flight = false;
  entry.changed.SignalAll();
  if (written.error_code != 0) {
    out.error = ShareError(written.error_code, written.error_message.value_or(""));
    out.fenced = IsFenced(written.error_code);
    if (!apply_on_failure) return out;
  }
  // The live partition changed meanwhile only by acquisitions of AVAILABLE records (the
  // invariant of write_in_flight), which the change does not touch: it applies as planned.
  const Change applied = change(*entry.partition);
  HandOffDlq(entry);
  if (!applied.error.ok()) {
    options_.logger.Warn(fmt::format("Share partition {}: a written change no longer applies: {}",
                                     key.CoordinatorKey(), applied.error.message()));
  }
  out.applied = applied.error.ok();
  out.became_available = applied.became_available;
  return out;
}

SharePartitionManager::PartitionFetch SharePartitionManager::Fetch(
    const FetchParams& params, const ShareTopicIdPartition& partition, const std::string& topic,
    int32_t max_bytes) {
  PartitionFetch out;
  const SharePartitionKey key{params.group_id, partition.topic_id, partition.partition};
  std::shared_ptr<Entry> entry = EntryFor(key);
  Result<std::shared_ptr<Log>> log = options_.logs->GetLog({topic, partition.partition});
  if (!log.ok()) {
    out.error_code = kafka_error::kUnknownTopicOrPartition;
    return out;
  }
  int64_t fetch_offset = 0;
  int64_t last_needed = 0;
  bool read_committed = false;
  {
    MutexLock lock(&entry->mu);
    ShareError loaded = EnsureLoaded(*entry, topic);
    if (!loaded.ok()) {
      out.error_code = loaded.code();
      if (!loaded.message().empty()) out.error_message = loaded.message();
      return out;
    }
    if (entry->fetch_in_progress) return out;  // Kafka's fetchLock: another fetch has it
    // A moved log start waits for a write in flight (which may change the records below it).
    if (!entry->write_in_flight) entry->partition->UpdateLogStart((*log)->log_start_offset());
    fetch_offset = entry->partition->NextFetchOffset();
    // Acquire takes in-flight offsets up to EndOffset() and at most max_records new ones after
    // it (the whole batch holding the last); an acknowledgement meanwhile moves EndOffset() by
    // at most one (everything finished: the end becomes the next offset). Batches past that
    // bound are not read.
    last_needed = std::max(entry->partition->EndOffset() + 1, fetch_offset) +
                  std::max<int64_t>(params.max_records, 1);
    read_committed = entry->read_committed;
    entry->fetch_in_progress = true;
  }
  // The log is read with no lock held.
  const int64_t bound = read_committed ? (*log)->last_stable_offset() : (*log)->high_watermark();
  std::vector<SliceBatch> batches;
  std::vector<std::pair<int64_t, int64_t>> aborted;  // read_committed: to archive
  FileSlice slice;
  Status read_status;
  if (fetch_offset < bound) {
    Result<FetchDataInfo> data = (*log)->Read(fetch_offset, std::max<int32_t>(max_bytes, 0),
                                              /*min_one_message=*/true, bound);
    if (data.ok()) {
      slice = data->slice;
      batches = ReadBatchHeaders(slice, last_needed);
      if (read_committed && !batches.empty()) {
        Result<std::vector<AbortedTransaction>> txns =
            (*log)->CollectAbortedTransactions(fetch_offset, batches.back().last_offset + 1);
        if (txns.ok()) {
          aborted = AbortedBatches(batches, std::move(txns).value());
        } else {
          read_status = txns.status();
        }
      }
    } else {
      read_status = data.status();
    }
  }
  std::vector<FetchedBatch> fetched;
  fetched.reserve(batches.size());
  for (const SliceBatch& b : batches) fetched.push_back(FetchedBatch{b.base_offset, b.last_offset});
  ShareAcquiredRecords acquired;
  std::optional<int64_t> lock_deadline;
  {
    MutexLock lock(&entry->mu);
    entry->fetch_in_progress = false;
    if (!read_status.ok()) {
      if (read_status.IsOutOfRange()) {
        // The log start moved past the fetch offset meanwhile: the next fetch starts there.
        if (entry->partition && !entry->write_in_flight) {
          entry->partition->UpdateLogStart((*log)->log_start_offset());
        }
        return out;
      }
      out.error_code = kafka_error::FromStatus(read_status);
      return out;
    }
    if (!fetched.empty() && entry->partition) {
      AcquireRequest request;
      request.member_id = params.member_id;
      request.mode = params.mode;
      request.batch_size = params.batch_size;
      request.max_fetch_records = params.max_records;
      request.fetch_offset = fetch_offset;
      request.batches = fetched;
      const int64_t now = NowMs();
      acquired = entry->partition->Acquire(request, now);
      // read_committed: records of aborted transactions are archived, never delivered
      // (SharePartition.maybeFilterAbortedTransactionalAcquiredRecords).
      if (!aborted.empty() && !acquired.records.empty()) {
        std::vector<AcquiredRecords> kept = Subtract(acquired.records, aborted);
        std::vector<std::pair<int64_t, int64_t>> gone;
        for (const AcquiredRecords& a : acquired.records) {
          for (const auto& [first, last] : aborted) {
            const int64_t lo = std::max(first, a.first_offset);
            const int64_t hi = std::min(last, a.last_offset);
            if (lo <= hi) gone.emplace_back(lo, hi);
          }
        }
        std::vector<AcknowledgementBatch> gaps;
        for (const auto& [lo, hi] : gone) {
          gaps.push_back(
              AcknowledgementBatch{lo, hi, {static_cast<int8_t>(AcknowledgeType::kGap)}});
        }
        std::sort(gaps.begin(), gaps.end(),
                  [](const auto& x, const auto& y) { return x.first_offset < y.first_offset; });
        ShareError archived = entry->partition->Acknowledge(params.member_id, gaps, now);
        if (archived.ok()) acquired.records = std::move(kept);
      }
      lock_deadline = entry->partition->NextLockDeadline();
    }
  }
  if (acquired.records.empty()) return out;
  if (lock_deadline) ArmLockTimer(*lock_deadline);
  out.acquired = std::move(acquired.records);
  // Only the log batches that hold acquired records go back (Kafka's maybeSliceFetchRecords).
  const int64_t first = out.acquired.front().first_offset;
  const int64_t last = out.acquired.back().last_offset;
  int64_t begin = -1;
  int64_t end = -1;
  for (const SliceBatch& b : batches) {
    if (b.last_offset < first || b.base_offset > last) continue;
    if (begin < 0) begin = b.position;
    end = b.position + b.size;
  }
  if (begin >= 0) out.records = FileSlice{slice.file, begin, end - begin};
  return out;
}

ShareError SharePartitionManager::Acknowledge(const std::string& group_id,
                                              const std::string& member_id,
                                              const ShareTopicIdPartition& partition,
                                              std::span<const AcknowledgementBatch> batches) {
  const SharePartitionKey key{group_id, partition.topic_id, partition.partition};
  // Kafka's SharePartitionManager.acknowledge: only a share partition a ShareFetch has
  // already created takes acknowledgements; nothing is created or read for one that is not.
  std::shared_ptr<Entry> entry = Find(key);
  if (entry == nullptr) return NotHosted();
  bool released = false;
  for (const AcknowledgementBatch& b : batches) {
    for (int8_t t : b.acknowledge_types) {
      released = released || t == static_cast<int8_t>(AcknowledgeType::kRelease);
    }
  }
  const int64_t now = NowMs();
  WriteOutcome written;
  {
    MutexLock lock(&entry->mu);
    while (entry->loading) entry->changed.Wait(&entry->mu);
    if (!entry->partition) return NotHosted();
    // The new state is durable before the acknowledgement is answered; a failed write
    // applies nothing. A change of no record's state (batches below the start offset, Renew
    // alone) is not written, as in Kafka.
    written = WriteChange(
        *entry,
        [&](SharePartition& p) {
          Change c;
          bool transitioned = false;
          c.error = p.Acknowledge(member_id, batches, now, &transitioned);
          c.write = c.error.ok() && transitioned;
          return c;
        },
        /*apply_on_failure=*/false);
  }
  if (written.fenced) Drop(entry);
  if (written.error.ok() && released) NotifyAvailable(group_id);
  return written.error;
}

void SharePartitionManager::CompleteArchiving(const SharePartitionKey& key, int64_t first,
                                              int64_t last) {
  std::shared_ptr<Entry> entry = Find(key);
  if (entry == nullptr) return;
  WriteOutcome written;
  {
    MutexLock lock(&entry->mu);
    while (entry->loading) entry->changed.Wait(&entry->mu);
    if (!entry->partition) return;
    // A failed write keeps the records ARCHIVED in memory, as Kafka does ("Could not persist
    // ARCHIVED state").
    written = WriteChange(
        *entry,
        [first, last](SharePartition& p) {
          Change c;
          c.write = p.CompleteArchiving(first, last);
          return c;
        },
        /*apply_on_failure=*/true);
  }
  if (!written.error.ok()) {
    options_.logger.Warn(fmt::format("Could not persist ARCHIVED state of {} [{}, {}]: {}",
                                     key.CoordinatorKey(), first, last, written.error.message()));
  }
  if (written.fenced) Drop(entry);
  // The start offset may have moved: fetches waiting at the in-flight limit may go on.
  if (written.applied) NotifyAvailable(key.group_id);
}

bool SharePartitionManager::ReleaseOn(const std::shared_ptr<Entry>& entry,
                                      const std::string& member_id) {
  WriteOutcome written;
  {
    MutexLock lock(&entry->mu);
    while (entry->loading) entry->changed.Wait(&entry->mu);
    if (!entry->partition) return false;
    // A failed write keeps the records released in memory (the safe side: they are
    // delivered again).
    written = WriteChange(
        *entry,
        [&](SharePartition& p) {
          ReleaseResult r = p.ReleaseMember(member_id);
          Change c;
          c.write = r.released > 0;
          c.became_available = r.became_available;
          return c;
        },
        /*apply_on_failure=*/true);
  }
  if (!written.error.ok()) {
    options_.logger.Warn(fmt::format("Failed to write the share state of {}: {}",
                                     entry->key.CoordinatorKey(), written.error.message()));
  }
  if (written.fenced) Drop(entry);
  return written.became_available;
}

void SharePartitionManager::ReleaseSession(const ReleasedShareSession& session) {
  bool available = false;
  for (const ShareTopicIdPartition& p : session.partitions) {
    std::shared_ptr<Entry> entry;
    {
      MutexLock lock(&mu_);
      auto it = partitions_.find(SharePartitionKey{session.group_id, p.topic_id, p.partition});
      if (it == partitions_.end()) continue;
      entry = it->second;
    }
    available = ReleaseOn(entry, session.member_id) || available;
  }
  if (available) NotifyAvailable(session.group_id);
}

void SharePartitionManager::ArmLockTimer(int64_t deadline_ms) {
  if (options_.scheduler == nullptr) return;
  {
    MutexLock lock(&timer_mu_);
    if (next_timer_ms_ <= deadline_ms) return;
    next_timer_ms_ = deadline_ms;
  }
  std::weak_ptr<int> alive = alive_;
  const int64_t delay = std::max<int64_t>(0, deadline_ms - NowMs());
  options_.scheduler->Schedule(
      "share-acquisition-lock-expiry",
      [this, alive, deadline_ms] {
        if (alive.expired()) return;
        {
          MutexLock lock(&timer_mu_);
          // A later-armed earlier deadline leaves this one stale; it passes harmlessly.
          if (next_timer_ms_ == deadline_ms) next_timer_ms_ = INT64_MAX;
        }
        ExpireLocks();
      },
      delay);
}

void SharePartitionManager::ExpireLocks() {
  const int64_t now = NowMs();
  std::vector<std::string> groups;
  std::optional<int64_t> earliest_left;
  for (const std::shared_ptr<Entry>& entry : Entries(nullptr)) {
    WriteOutcome written;
    {
      MutexLock lock(&entry->mu);
      if (!entry->partition || entry->loading) continue;
      // A write in flight: the next periodic pass (the timer thread does not wait for it).
      if (entry->write_in_flight) continue;
      std::optional<int64_t> deadline = entry->partition->NextLockDeadline();
      if (deadline && *deadline > now) {
        earliest_left = std::min(earliest_left.value_or(INT64_MAX), *deadline);
      }
      if (!deadline || *deadline > now) continue;
      written = WriteChange(
          *entry,
          [&](SharePartition& p) {
            ReleaseResult r = p.ExpireLocks(now);
            Change c;
            c.write = r.released > 0;
            c.became_available = r.became_available;
            return c;
          },
          /*apply_on_failure=*/true);
      std::optional<int64_t> left = entry->partition->NextLockDeadline();
      if (left) earliest_left = std::min(earliest_left.value_or(INT64_MAX), *left);
    }
    if (!written.error.ok()) {
      options_.logger.Warn(fmt::format("Failed to write the share state of {}: {}",
                                       entry->key.CoordinatorKey(), written.error.message()));
    }
    if (written.fenced) Drop(entry);
    if (written.became_available) groups.push_back(entry->key.group_id);
  }
  if (earliest_left) ArmLockTimer(*earliest_left);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  for (const std::string& g : groups) NotifyAvailable(g);
}

void SharePartitionManager::OnShareGroupMemberLeft(const std::string& group_id,
                                                   const std::string& member_id) {
  if (options_.sessions != nullptr) (void)options_.sessions->RemoveSession(group_id, member_id);
  bool available = false;
  for (const std::shared_ptr<Entry>& entry : Entries(&group_id)) {
    available = ReleaseOn(entry, member_id) || available;
  }
  if (available) NotifyAvailable(group_id);
}

void SharePartitionManager::OnShareGroupDeleted(const std::string& group_id) {
  MutexLock lock(&mu_);
  std::erase_if(partitions_, [&](const auto& kv) { return kv.first.group_id == group_id; });
}

void SharePartitionManager::ForgetAll() {
  MutexLock lock(&mu_);
  partitions_.clear();
}

std::optional<OffsetSnapshot> SharePartitionManager::StateOf(const SharePartitionKey& key,
                                                             int64_t offset) {
  std::shared_ptr<Entry> entry;
  {
    MutexLock lock(&mu_);
    auto it = partitions_.find(key);
    if (it == partitions_.end()) return std::nullopt;
    entry = it->second;
  }
  MutexLock lock(&entry->mu);
  if (!entry->partition) return std::nullopt;
  return entry->partition->StateOf(offset);
}

std::optional<std::pair<int64_t, int64_t>> SharePartitionManager::StartAndEndOffsets(
    const SharePartitionKey& key) {
  std::shared_ptr<Entry> entry = Find(key);
  if (entry == nullptr) return std::nullopt;
  MutexLock lock(&entry->mu);
  if (!entry->partition) return std::nullopt;
  return std::make_pair(entry->partition->StartOffset(), entry->partition->EndOffset());
}

bool SharePartitionManager::IsLoaded(const SharePartitionKey& key) {
  std::shared_ptr<Entry> entry;
  {
    MutexLock lock(&mu_);
    auto it = partitions_.find(key);
    if (it == partitions_.end()) return false;
    entry = it->second;
  }
  MutexLock lock(&entry->mu);
  return entry->partition.has_value();
}

}  // namespace seglog
