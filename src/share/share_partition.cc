// SharePartition: loading, offsets, releases, the start offset and the state to persist. The
// acquisition is in share_partition_acquire.cc, the acknowledgement in
// share_partition_acknowledge.cc.
#include "share/share_partition.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

namespace seglog {

Result<SharePartition> SharePartition::Create(const SharePartitionConfig& config,
                                              const PersistedShareState& state) {
  if (state.start_offset < 0) {
    return Status::InvalidArgument("share partition start offset " +
                                   std::to_string(state.start_offset) + " is negative");
  }
  SharePartition partition(config, state.state_epoch, state.start_offset);
  bool have_previous = false;
  int64_t previous_last = 0;
  for (const PersistedStateBatch& batch : state.batches) {
    if (batch.first_offset > batch.last_offset || batch.first_offset < 0) {
      return Status::InvalidArgument("state batch [" + std::to_string(batch.first_offset) + ", " +
                                     std::to_string(batch.last_offset) + "] is not a range");
    }
    if (have_previous && batch.first_offset <= previous_last) {
      return Status::InvalidArgument("state batch at " + std::to_string(batch.first_offset) +
                                     " overlaps or precedes the batch ending at " +
                                     std::to_string(previous_last));
    }
    if (batch.state != RecordState::kAvailable && batch.state != RecordState::kAcknowledged &&
        batch.state != RecordState::kArchiving && batch.state != RecordState::kArchived) {
      return Status::InvalidArgument("state batch at " + std::to_string(batch.first_offset) +
                                     " has state " + std::to_string(static_cast<int>(batch.state)) +
                                     ", expected 0, 2, 3 or 4");
    }
    if (batch.delivery_count < 0) {
      return Status::InvalidArgument("state batch at " + std::to_string(batch.first_offset) +
                                     " has delivery count " + std::to_string(batch.delivery_count));
    }
    have_previous = true;
    previous_last = batch.last_offset;
    if (batch.last_offset < partition.start_offset_) continue;
    int64_t first = std::max(batch.first_offset, partition.start_offset_);
    // Offsets between the persisted batches were never delivered.
    int64_t next = partition.cache_.empty() ? partition.start_offset_ : partition.end_offset_ + 1;
    if (first > next) partition.AddBatch(next, first - 1, InFlightState{});
    InFlightState loaded;
    loaded.state = batch.state;
    loaded.delivery_count = batch.delivery_count;
    if (batch.state == RecordState::kArchiving) {
      // ARCHIVING (3) is written while a dead-letter-queue write is pending; the write is
      // resumed at load (Kafka's SharePartition.maybeResumeDlqArchiving, the cause from the
      // count).
      partition.AddDlqArchive(first, batch.last_offset, batch.delivery_count,
                              batch.delivery_count >= config.delivery_count_limit
                                  ? DlqCause::kDeliveryCountExceeded
                                  : DlqCause::kClientReject);
    }
    partition.AddBatch(first, batch.last_offset, loaded);
    partition.end_offset_ = batch.last_offset;
  }
  partition.MaybeAdvanceStartOffset();
  return partition;
}

void SharePartition::AddBatch(int64_t first, int64_t last, const InFlightState& state) {
  InFlightBatch batch;
  batch.first_offset = first;
  batch.last_offset = last;
  batch.whole = state;
  cache_.emplace(first, std::move(batch));
}

SharePartition::Cache::iterator SharePartition::FloorEntry(int64_t offset) {
  auto it = cache_.upper_bound(offset);
  if (it == cache_.begin()) return cache_.end();
  return std::prev(it);
}

int64_t SharePartition::InFlightRecords() const {
  return cache_.empty() ? 0 : end_offset_ - start_offset_ + 1;
}

int64_t SharePartition::NextFetchOffset() const {
  if (cache_.empty()) return end_offset_;
  for (const auto& [first, batch] : cache_) {
    if (!batch.split()) {
      if (batch.whole.state == RecordState::kAvailable) return std::max(first, start_offset_);
      continue;
    }
    for (int64_t offset = std::max(first, start_offset_); offset <= batch.last_offset; ++offset) {
      if (batch.At(offset).state == RecordState::kAvailable) return offset;
    }
  }
  return end_offset_ + 1;
}

void SharePartition::Release(InFlightState& state, int64_t first, int64_t last,
                             ReleaseResult& result) {
  if (state.delivery_count >= config_.delivery_count_limit) {
    Archive(state, first, last, DlqCause::kDeliveryCountExceeded);
  } else {
    state.state = RecordState::kAvailable;
    result.became_available = true;
  }
  state.member_id.clear();
  state.lock_deadline_ms = -1;
}

void SharePartition::Archive(InFlightState& state, int64_t first, int64_t last, DlqCause cause) {
  if (!dlq_enabled_) {
    state.state = RecordState::kArchived;
    return;
  }
  state.state = RecordState::kArchiving;
  AddDlqArchive(first, last, state.delivery_count, cause);
}

bool SharePartition::CompleteArchiving(int64_t first, int64_t last) {
  bool changed = false;
  auto it = FloorEntry(first);
  if (it == cache_.end() || it->second.last_offset < first) it = cache_.lower_bound(first);
  for (; it != cache_.end() && it->first <= last; ++it) {
    InFlightBatch& batch = it->second;
    const bool covered = batch.first_offset >= first && batch.last_offset <= last;
    if (!batch.split()) {
      if (batch.whole.state != RecordState::kArchiving) continue;
      if (covered) {
        batch.whole.state = RecordState::kArchived;
        changed = true;
        continue;
      }
      batch.Split();
    }
    const int64_t from = std::max(batch.first_offset, first);
    const int64_t to = std::min(batch.last_offset, last);
    for (int64_t offset = from; offset <= to; ++offset) {
      InFlightState& state = batch.At(offset);
      if (state.state != RecordState::kArchiving) continue;
      state.state = RecordState::kArchived;
      changed = true;
    }
  }
  if (changed) MaybeAdvanceStartOffset();
  return changed;
}

void SharePartition::AddDlqArchive(int64_t first, int64_t last, int32_t delivery_count,
                                   DlqCause cause) {
  const auto count = static_cast<int16_t>(std::min<int32_t>(delivery_count, INT16_MAX));
  if (!dlq_archives_.empty()) {
    DlqArchive& back = dlq_archives_.back();
    if (back.last_offset + 1 == first && back.delivery_count == count && back.cause == cause) {
      back.last_offset = last;
      return;
    }
  }
  dlq_archives_.push_back(DlqArchive{first, last, count, cause});
}

std::vector<DlqArchive> SharePartition::TakeDlqArchives() {
  std::vector<DlqArchive> out;
  out.swap(dlq_archives_);
  return out;
}

template <typename Pred>
ReleaseResult SharePartition::ReleaseIf(Pred pred) {
  ReleaseResult result;
  for (auto& [first, batch] : cache_) {
    if (!batch.split()) {
      if (batch.whole.state == RecordState::kAcquired && pred(batch.whole)) {
        Release(batch.whole, batch.first_offset, batch.last_offset, result);
        result.released += static_cast<int32_t>(batch.size());
      }
      continue;
    }
    for (int64_t offset = batch.first_offset; offset <= batch.last_offset; ++offset) {
      InFlightState& state = batch.At(offset);
      if (state.state == RecordState::kAcquired && pred(state)) {
        Release(state, offset, offset, result);
        result.released++;
      }
    }
  }
  if (result.released > 0) MaybeAdvanceStartOffset();
  return result;
}

ReleaseResult SharePartition::ReleaseMember(std::string_view member_id) {
  return ReleaseIf(
      [member_id](const InFlightState& state) { return state.member_id == member_id; });
}

ReleaseResult SharePartition::ExpireLocks(int64_t now_ms) {
  return ReleaseIf(
      [now_ms](const InFlightState& state) { return state.lock_deadline_ms <= now_ms; });
}

std::optional<int64_t> SharePartition::NextLockDeadline() const {
  std::optional<int64_t> earliest;
  auto consider = [&earliest](const InFlightState& state) {
    if (state.state != RecordState::kAcquired) return;
    if (!earliest || state.lock_deadline_ms < *earliest) earliest = state.lock_deadline_ms;
  };
  for (const auto& [first, batch] : cache_) {
    if (!batch.split()) {
      consider(batch.whole);
      continue;
    }
    for (const InFlightState& state : batch.offsets) consider(state);
  }
  return earliest;
}

void SharePartition::TrimBelowStart() {
  while (!cache_.empty()) {
    auto it = cache_.begin();
    if (it->second.last_offset < start_offset_) {
      cache_.erase(it);
      continue;
    }
    if (it->first < start_offset_) {
      auto node = cache_.extract(it);
      InFlightBatch& batch = node.mapped();
      if (batch.split()) {
        batch.offsets.erase(batch.offsets.begin(),
                            batch.offsets.begin() + (start_offset_ - batch.first_offset));
      }
      batch.first_offset = start_offset_;
      node.key() = start_offset_;
      cache_.insert(std::move(node));
    }
    break;
  }
}

void SharePartition::MaybeAdvanceStartOffset() {
  if (cache_.empty()) return;
  std::optional<int64_t> first_open;
  for (const auto& [first, batch] : cache_) {
    if (!batch.split()) {
      if (!IsTerminal(batch.whole.state)) first_open = std::max(first, start_offset_);
    } else {
      for (int64_t offset = std::max(first, start_offset_); offset <= batch.last_offset; ++offset) {
        if (!IsTerminal(batch.At(offset).state)) {
          first_open = offset;
          break;
        }
      }
    }
    if (first_open) break;
  }
  if (!first_open) {
    // Everything fetched is finished: the next fetch starts after it.
    start_offset_ = std::max(start_offset_, std::prev(cache_.end())->second.last_offset + 1);
    end_offset_ = start_offset_;
    cache_.clear();
    return;
  }
  if (*first_open > start_offset_) {
    start_offset_ = *first_open;
    TrimBelowStart();
  }
}

void SharePartition::UpdateLogStart(int64_t log_start_offset) {
  if (log_start_offset <= start_offset_) return;
  start_offset_ = log_start_offset;
  TrimBelowStart();
  if (cache_.empty()) {
    end_offset_ = start_offset_;
    return;
  }
  if (end_offset_ < start_offset_) end_offset_ = start_offset_;
  MaybeAdvanceStartOffset();
}

PersistedShareState SharePartition::PersistableState() const {
  PersistedShareState out;
  out.state_epoch = state_epoch_;
  out.start_offset = start_offset_;
  auto emit = [&out](int64_t first, int64_t last, const InFlightState& state) {
    RecordState persisted = state.state;
    int32_t count = state.delivery_count;
    if (persisted == RecordState::kAcquired) {
      // Kafka never writes an acquisition: its coordinator holds the state from before it.
      persisted = RecordState::kAvailable;
      count = std::max(count - 1, 0);
    }
    if (persisted == RecordState::kAvailable && count == 0) return;  // never delivered
    if (!out.batches.empty()) {
      PersistedStateBatch& previous = out.batches.back();
      if (previous.last_offset + 1 == first && previous.state == persisted &&
          previous.delivery_count == count) {
        previous.last_offset = last;
        return;
      }
    }
    out.batches.push_back({first, last, persisted, static_cast<int16_t>(count)});
  };
  for (const auto& [first, batch] : cache_) {
    if (!batch.split()) {
      emit(std::max(first, start_offset_), batch.last_offset, batch.whole);
      continue;
    }
    for (int64_t offset = std::max(first, start_offset_); offset <= batch.last_offset; ++offset) {
      emit(offset, offset, batch.At(offset));
    }
  }
  return out;
}

std::optional<OffsetSnapshot> SharePartition::StateOf(int64_t offset) const {
  if (offset < start_offset_) return std::nullopt;
  auto it = cache_.upper_bound(offset);
  if (it == cache_.begin()) return std::nullopt;
  const InFlightBatch& batch = std::prev(it)->second;
  if (offset > batch.last_offset) return std::nullopt;
  const InFlightState& state = batch.split() ? batch.At(offset) : batch.whole;
  OffsetSnapshot snapshot;
  snapshot.state = state.state;
  snapshot.delivery_count = state.delivery_count;
  snapshot.member_id = state.member_id;
  if (state.state == RecordState::kAcquired) snapshot.lock_deadline_ms = state.lock_deadline_ms;
  return snapshot;
}

Status SharePartition::CheckInvariants() const {
  auto broken = [](const std::string& what) { return Status::FailedPrecondition(what); };
  if (end_offset_ < start_offset_) {
    return broken("end offset " + std::to_string(end_offset_) + " below start offset " +
                  std::to_string(start_offset_));
  }
  if (cache_.empty()) {
    if (end_offset_ != start_offset_) {
      return broken("empty cache with start " + std::to_string(start_offset_) + " and end " +
                    std::to_string(end_offset_));
    }
    return Status::OK();
  }
  if (cache_.begin()->first != start_offset_) {
    return broken("first batch at " + std::to_string(cache_.begin()->first) + ", start offset " +
                  std::to_string(start_offset_));
  }
  if (std::prev(cache_.end())->second.last_offset != end_offset_) {
    return broken("last batch ends at " +
                  std::to_string(std::prev(cache_.end())->second.last_offset) + ", end offset " +
                  std::to_string(end_offset_));
  }
  int64_t previous_last = start_offset_ - 1;
  auto check_state = [](const InFlightState& state, int64_t offset) -> std::string {
    bool acquired = state.state == RecordState::kAcquired;
    if (acquired != !state.member_id.empty() || acquired != (state.lock_deadline_ms >= 0)) {
      return "offset " + std::to_string(offset) + " in state " +
             std::string(RecordStateName(state.state)) + " has member '" + state.member_id +
             "' and lock deadline " + std::to_string(state.lock_deadline_ms);
    }
    return "";
  };
  for (const auto& [first, batch] : cache_) {
    if (first != batch.first_offset || batch.last_offset < first || first <= previous_last) {
      return broken("batch keyed " + std::to_string(first) + " is [" +
                    std::to_string(batch.first_offset) + ", " + std::to_string(batch.last_offset) +
                    "] after offset " + std::to_string(previous_last));
    }
    previous_last = batch.last_offset;
    if (!batch.split()) {
      std::string problem = check_state(batch.whole, first);
      if (!problem.empty()) return broken(problem);
      continue;
    }
    if (static_cast<int64_t>(batch.offsets.size()) != batch.size()) {
      return broken("batch at " + std::to_string(first) + " has " +
                    std::to_string(batch.offsets.size()) + " offset states for " +
                    std::to_string(batch.size()) + " offsets");
    }
    for (int64_t offset = first; offset <= batch.last_offset; ++offset) {
      std::string problem = check_state(batch.At(offset), offset);
      if (!problem.empty()) return broken(problem);
    }
  }
  return Status::OK();
}

}  // namespace seglog
