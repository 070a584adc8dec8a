#include "share/share_partition.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace seglog {

namespace {

// Kafka 4.4.0's messages (SharePartition, javap constants).
constexpr char kBatchNotFound[] =
    "Batch record not found. The request batch offsets are not found in the cache.";
constexpr char kFirstOffsetPastAcquired[] =
    "Batch record not found. The first offset in request is past acquired records.";
constexpr char kLastOffsetPastAcquired[] =
    "Batch record not found. The last offset in request is past acquired records.";
constexpr char kBatchNotAcquired[] =
    "The batch cannot be acknowledged. The batch is not in the acquired state.";
constexpr char kSubsetBatchNotAcquired[] =
    "The batch cannot be acknowledged. The subset batch is not in the acquired state.";
constexpr char kNotBatchOwner[] = "Member is not the owner of batch record";
constexpr char kOffsetNotAcquired[] =
    "The offset cannot be acknowledged. The offset is not acquired.";
constexpr char kNotOffsetOwner[] = "Member is not the owner of offset";
constexpr char kRenewNotEnabled[] = "Renewing acquisition locks is not enabled for the group.";

ShareError InvalidRecordState(std::string message) {
  return ShareError(share_error::kInvalidRecordState, std::move(message));
}

ShareError InvalidRequest(std::string message) {
  return ShareError(share_error::kInvalidRequest, std::move(message));
}

// Java's List.toString of the types: "[1, 5]".
std::string TypesToString(const std::vector<int8_t>& types) {
  std::string out = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(types[i]);
  }
  return out + "]";
}

// Kafka's throttleRecordsDeliveryLimit: max(2, ceil(limit / 2)).
int32_t ThrottleLimit(int32_t delivery_count_limit) {
  return std::max(2, (delivery_count_limit + 1) / 2);
}

// Kafka's lastOffsetFromBatchWithRequestOffset: the last offset of the log batch holding
// `offset`, so that whole batches are acquired; `offset` itself when no batch holds it.
int64_t LastOffsetOfBatchHolding(const std::vector<FetchedBatch>& batches, int64_t offset) {
  const FetchedBatch* holder = nullptr;
  for (const FetchedBatch& batch : batches) {
    if (offset < batch.base_offset) break;
    holder = &batch;
  }
  if (holder != nullptr && offset <= holder->last_offset) return holder->last_offset;
  return offset;
}

// Kafka's ShareFetchUtils.accumulateAcquiredRecords: adjacent offsets with the same delivery
// count become one range.
void AccumulateAcquiredRecords(const std::vector<AcquiredRecords>& single,
                               std::vector<AcquiredRecords>& out) {
  if (single.empty()) return;
  AcquiredRecords current = single.front();
  for (size_t i = 1; i < single.size(); ++i) {
    if (single[i].first_offset == current.last_offset + 1 &&
        single[i].delivery_count == current.delivery_count) {
      current.last_offset = single[i].last_offset;
    } else {
      out.push_back(current);
      current = single[i];
    }
  }
  out.push_back(current);
}

}  // namespace

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
        batch.state != RecordState::kArchived) {
      return Status::InvalidArgument("state batch at " + std::to_string(batch.first_offset) +
                                     " has state " + std::to_string(static_cast<int>(batch.state)) +
                                     ", expected 0, 2 or 4");
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

SharePartition::LastOffsetAndMaxRecords SharePartition::LastOffsetAndMaxRecordsToAcquire(
    int64_t fetch_offset, int32_t max_fetch_records, int64_t last_offset) const {
  int64_t max_records =
      std::min<int64_t>(max_fetch_records, config_.max_record_locks - InFlightRecords());
  if (max_records <= 0 && fetch_offset <= end_offset_) {
    // At the in-flight limit, records inside the in-flight range may still be acquired again.
    max_records = std::min<int64_t>(max_fetch_records, end_offset_ - fetch_offset + 1);
    last_offset = std::min(last_offset, end_offset_);
  }
  return {last_offset, static_cast<int32_t>(std::max<int64_t>(max_records, 0))};
}

void SharePartition::ArchiveStaleBatches(int64_t fetch_offset, int64_t base_offset) {
  // The fetch from fetch_offset returned nothing before base_offset: those offsets left the log
  // (compaction), so cached AVAILABLE records there are archived (maybeArchiveStaleBatches).
  if (cache_.empty() || fetch_offset >= base_offset) return;
  auto it = FloorEntry(fetch_offset);
  if (it == cache_.end() || it->second.last_offset < fetch_offset) {
    it = cache_.lower_bound(fetch_offset);
  }
  bool archived = false;
  for (; it != cache_.end() && it->first < base_offset; ++it) {
    InFlightBatch& batch = it->second;
    int64_t from = std::max(batch.first_offset, fetch_offset);
    int64_t to = std::min(batch.last_offset, base_offset - 1);
    if (!batch.split()) {
      if (batch.whole.state != RecordState::kAvailable) continue;
      if (from == batch.first_offset && to == batch.last_offset) {
        batch.whole.state = RecordState::kArchived;
        archived = true;
        continue;
      }
      batch.Split();
    }
    for (int64_t offset = from; offset <= to; ++offset) {
      InFlightState& state = batch.At(offset);
      if (state.state != RecordState::kAvailable) continue;
      state.state = RecordState::kArchived;
      archived = true;
    }
  }
  if (archived) MaybeAdvanceStartOffset();
}

bool SharePartition::ShouldThrottle(const InFlightBatch& batch, int64_t request_first,
                                    int64_t request_last) const {
  const int32_t limit = ThrottleLimit(config_.delivery_count_limit);
  if (!batch.split()) {
    return batch.whole.state == RecordState::kAvailable && batch.whole.delivery_count >= limit;
  }
  int32_t highest = 0;
  int64_t from = std::max(batch.first_offset, request_first);
  int64_t to = std::min(batch.last_offset, request_last);
  for (int64_t offset = from; offset <= to; ++offset) {
    const InFlightState& state = batch.At(offset);
    if (state.state == RecordState::kAvailable) highest = std::max(highest, state.delivery_count);
  }
  return highest >= limit;
}

ShareAcquiredRecords SharePartition::Acquire(const AcquireRequest& request, int64_t now_ms) {
  ShareAcquiredRecords result;
  if (request.max_fetch_records <= 0 || request.batches.empty()) return result;
  const FetchedBatch& first_batch = request.batches.front();
  if (request.batches.back().last_offset < start_offset_) return result;

  auto [last_offset, max_records] = LastOffsetAndMaxRecordsToAcquire(
      request.fetch_offset, request.max_fetch_records, request.batches.back().last_offset);
  if (max_records <= 0) return result;

  int64_t base_offset = first_batch.base_offset;
  ArchiveStaleBatches(request.fetch_offset, base_offset);
  // The fetch may start inside an in-flight batch (cached 10-14, fetched 12-13): start from the
  // cached batch that holds it.
  auto floor = FloorEntry(base_offset);
  if (floor == cache_.end()) {
    if (base_offset < start_offset_) base_offset = start_offset_;
  } else if (floor->second.last_offset >= base_offset) {
    base_offset = floor->first;
  }

  std::vector<int64_t> overlapping;
  for (auto it = cache_.lower_bound(std::min(first_batch.base_offset, base_offset));
       it != cache_.end() && it->first <= last_offset; ++it) {
    overlapping.push_back(it->first);
  }
  if (overlapping.empty()) {
    return AcquireNewBatchRecords(request, base_offset, last_offset, max_records, now_ms);
  }

  int32_t acquired = 0;
  for (int64_t key : overlapping) {
    if (acquired >= max_records) break;
    InFlightBatch& batch = cache_.at(key);
    bool full_match =
        batch.first_offset >= first_batch.base_offset && batch.last_offset <= last_offset;
    int32_t remaining = max_records - acquired;
    bool record_limit_subset =
        request.mode == ShareAcquireMode::kRecordLimit && batch.size() > remaining;
    bool throttle = ShouldThrottle(batch, first_batch.base_offset, last_offset);
    if (throttle && acquired > 0) {
      // Records delivered many times already go out in a fetch of their own.
      max_records = 0;
      break;
    }
    if (!full_match || batch.split() || record_limit_subset || throttle) {
      if (!batch.split()) {
        if (batch.whole.state != RecordState::kAvailable) continue;
        batch.Split();
      }
      int32_t count = AcquireSubsetBatchRecords(request, remaining, first_batch.base_offset,
                                                last_offset, batch, result.records, now_ms);
      acquired += count;
      if (throttle && count > 0) {
        max_records = 0;
        break;
      }
      continue;
    }
    if (batch.whole.state != RecordState::kAvailable) continue;
    batch.whole.state = RecordState::kAcquired;
    batch.whole.delivery_count++;
    batch.whole.member_id = request.member_id;
    batch.whole.lock_deadline_ms = now_ms + config_.record_lock_duration_ms;
    result.records.push_back(
        {batch.first_offset, batch.last_offset, static_cast<int16_t>(batch.whole.delivery_count)});
    acquired += static_cast<int32_t>(batch.size());
  }

  int64_t last_cached = cache_.at(overlapping.back()).last_offset;
  if (acquired < max_records && last_cached < last_offset) {
    // The fetch goes past the in-flight batches: the rest is new.
    ShareAcquiredRecords more = AcquireNewBatchRecords(request, last_cached + 1, last_offset,
                                                       max_records - acquired, now_ms);
    result.records.insert(result.records.end(), more.records.begin(), more.records.end());
    acquired += more.count;
  }
  result.count = acquired;
  return result;
}

ShareAcquiredRecords SharePartition::AcquireNewBatchRecords(const AcquireRequest& request,
                                                            int64_t first_offset,
                                                            int64_t last_offset,
                                                            int32_t max_records, int64_t now_ms) {
  ShareAcquiredRecords result;
  int64_t first_acquired = first_offset;
  if (cache_.empty() && end_offset_ > first_acquired) first_acquired = end_offset_;
  int64_t last_acquired = last_offset;
  if (max_records < last_acquired - first_acquired + 1) {
    last_acquired = LastOffsetOfBatchHolding(request.batches, first_acquired + max_records - 1);
  }
  // Never over a cached batch further on (the log had a hole the cache kept).
  auto next = cache_.upper_bound(first_acquired);
  if (next != cache_.end() && last_acquired >= next->first) last_acquired = next->first - 1;
  if (last_acquired < first_acquired) return result;

  InFlightState acquired;
  acquired.state = RecordState::kAcquired;
  acquired.delivery_count = 1;
  acquired.member_id = request.member_id;
  acquired.lock_deadline_ms = now_ms + config_.record_lock_duration_ms;

  int64_t counted_last = last_acquired;
  if (request.mode == ShareAcquireMode::kRecordLimit) {
    // One range; past max_records the offsets stay AVAILABLE (RecordLimitStrategy).
    if (last_acquired - first_acquired + 1 > max_records) {
      counted_last = first_acquired + max_records - 1;
      InFlightBatch batch;
      batch.first_offset = first_acquired;
      batch.last_offset = last_acquired;
      batch.Split();
      for (int64_t offset = first_acquired; offset <= counted_last; ++offset) {
        batch.At(offset) = acquired;
      }
      cache_.emplace(first_acquired, std::move(batch));
    } else {
      AddBatch(first_acquired, last_acquired, acquired);
    }
    result.records.push_back({first_acquired, counted_last, 1});
  } else {
    // Split at log-batch boundaries into ranges of about batch_size (BatchOptimizedStrategy).
    int64_t current_first = first_acquired;
    if (request.batch_size > 0 && last_acquired - first_acquired + 1 > request.batch_size) {
      for (const FetchedBatch& batch : request.batches) {
        if (batch.base_offset > last_acquired) break;
        if (batch.base_offset - current_first >= request.batch_size) {
          result.records.push_back({current_first, batch.base_offset - 1, 1});
          current_first = batch.base_offset;
        }
      }
    }
    result.records.push_back({current_first, last_acquired, 1});
    for (const AcquiredRecords& records : result.records) {
      AddBatch(records.first_offset, records.last_offset, acquired);
    }
  }
  if (cache_.begin()->first == first_acquired) start_offset_ = first_acquired;
  if (last_acquired > end_offset_) end_offset_ = last_acquired;
  result.count = static_cast<int32_t>(counted_last - first_acquired + 1);
  return result;
}

int32_t SharePartition::AcquireSubsetBatchRecords(const AcquireRequest& request,
                                                  int32_t max_records, int64_t request_first,
                                                  int64_t request_last, InFlightBatch& batch,
                                                  std::vector<AcquiredRecords>& out,
                                                  int64_t now_ms) {
  const int32_t max_delivery = config_.delivery_count_limit;
  const int32_t throttle_limit = ThrottleLimit(max_delivery);
  int32_t acquired = 0;
  int64_t throttle_end = -1;
  std::vector<AcquiredRecords> single;
  int64_t from = std::max(batch.first_offset, request_first);
  int64_t to = std::min(batch.last_offset, request_last);
  for (int64_t offset = from; offset <= to; ++offset) {
    InFlightState& state = batch.At(offset);
    if (state.state != RecordState::kAvailable) continue;
    int32_t count = state.delivery_count;
    // A record on its last attempt goes out alone, in the next fetch.
    if (max_delivery > 2 && count == max_delivery - 1 && acquired > 0) break;
    if (count >= throttle_limit && throttle_end < 0) {
      // The more deliveries, the fewer records per fetch: halve per delivery past the limit.
      int32_t shift = count - throttle_limit + 1;
      int64_t size = static_cast<int64_t>(batch.offsets.size());
      throttle_end = std::max<int64_t>(1, shift >= 63 ? 0 : size >> shift);
    }
    state.state = RecordState::kAcquired;
    state.delivery_count++;
    state.member_id = request.member_id;
    state.lock_deadline_ms = now_ms + config_.record_lock_duration_ms;
    single.push_back({offset, offset, static_cast<int16_t>(state.delivery_count)});
    ++acquired;
    if (max_delivery > 2 && state.delivery_count == max_delivery) break;
    if (request.mode == ShareAcquireMode::kRecordLimit && acquired == max_records) break;
    if (throttle_end >= 0 && acquired == throttle_end) break;
  }
  AccumulateAcquiredRecords(single, out);
  return acquired;
}

ShareError SharePartition::Acknowledge(std::string_view member_id,
                                       std::span<const AcknowledgementBatch> batches,
                                       int64_t now_ms) {
  if (batches.empty()) return ShareError::None();
  // The shape of each batch (KafkaApis validates it before the share partition sees it).
  int64_t low = batches.front().first_offset;
  int64_t high = batches.front().last_offset;
  for (const AcknowledgementBatch& batch : batches) {
    if (batch.first_offset < 0 || batch.last_offset < batch.first_offset) {
      return InvalidRequest("Acknowledgement batch [" + std::to_string(batch.first_offset) + ", " +
                            std::to_string(batch.last_offset) + "] is not a range");
    }
    size_t size = static_cast<size_t>(batch.last_offset - batch.first_offset + 1);
    if (batch.acknowledge_types.empty() ||
        (batch.acknowledge_types.size() != 1 && batch.acknowledge_types.size() != size)) {
      return InvalidRequest("Acknowledgement batch [" + std::to_string(batch.first_offset) + ", " +
                            std::to_string(batch.last_offset) + "] has " +
                            std::to_string(batch.acknowledge_types.size()) + " acknowledge types");
    }
    low = std::min(low, batch.first_offset);
    high = std::max(high, batch.last_offset);
  }

  // All or nothing: keep what the request can change - the whole state of each batch it
  // touches, or the touched offsets' states of a split one - and put it back on an error. The
  // acknowledgement only changes states (and splits batches in place), never the keys.
  struct Saved {
    int64_t key;
    bool was_split;
    InFlightState whole;
    int64_t from;                        // the first offset in `offsets`
    std::vector<InFlightState> offsets;  // when was_split: [from, min(last, high)]
  };
  std::vector<Saved> saved;
  auto it = FloorEntry(low);
  if (it == cache_.end() || it->second.last_offset < low) it = cache_.lower_bound(low);
  for (; it != cache_.end() && it->first <= high; ++it) {
    const InFlightBatch& batch = it->second;
    Saved entry{it->first, batch.split(), batch.whole, 0, {}};
    if (batch.split()) {
      entry.from = std::max(batch.first_offset, low);
      int64_t to = std::min(batch.last_offset, high);
      entry.offsets.assign(batch.offsets.begin() + (entry.from - batch.first_offset),
                           batch.offsets.begin() + (to - batch.first_offset + 1));
    }
    saved.push_back(std::move(entry));
  }

  for (const AcknowledgementBatch& batch : batches) {
    ShareError error = AcknowledgeOne(member_id, batch, now_ms);
    if (!error.ok()) {
      for (Saved& entry : saved) {
        InFlightBatch& restored = cache_.at(entry.key);
        if (!entry.was_split) {
          restored.offsets.clear();
          restored.whole = std::move(entry.whole);
          continue;
        }
        std::move(entry.offsets.begin(), entry.offsets.end(),
                  restored.offsets.begin() + (entry.from - restored.first_offset));
      }
      return error;
    }
  }
  MaybeAdvanceStartOffset();
  return ShareError::None();
}

ShareError SharePartition::AcknowledgeOne(std::string_view member_id,
                                          const AcknowledgementBatch& ack, int64_t now_ms) {
  for (int8_t type : ack.acknowledge_types) {
    if (type < 0 || type > kMaxAcknowledgeType) {
      return InvalidRequest("Invalid acknowledge type: " + TypesToString(ack.acknowledge_types));
    }
  }
  if (ack.last_offset < start_offset_) return ShareError::None();  // all finished already

  auto floor = FloorEntry(ack.first_offset);
  if (floor == cache_.end()) {
    if (ack.first_offset < start_offset_ && ack.last_offset >= start_offset_) {
      floor = FloorEntry(start_offset_);
    }
    if (floor == cache_.end()) return InvalidRecordState(kBatchNotFound);
  }
  auto stop = cache_.upper_bound(ack.last_offset);
  const InFlightBatch& last = std::prev(stop)->second;
  if (last.last_offset < ack.first_offset) return InvalidRequest(kFirstOffsetPastAcquired);
  if (ack.last_offset > last.last_offset) return InvalidRequest(kLastOffsetPastAcquired);

  for (auto it = floor; it != stop; ++it) {
    InFlightBatch& batch = it->second;
    if (batch.last_offset < start_offset_) continue;
    if (!batch.split()) {
      if (batch.whole.member_id.empty()) return InvalidRecordState(kBatchNotAcquired);
      if (batch.whole.member_id != member_id) return InvalidRecordState(kNotBatchOwner);
      bool full_match =
          batch.first_offset >= ack.first_offset && batch.last_offset <= ack.last_offset;
      bool per_offset_types = ack.acknowledge_types.size() > 1;
      bool start_within = batch.first_offset < start_offset_ && batch.last_offset >= start_offset_;
      if (full_match && !per_offset_types && !start_within) {
        if (batch.whole.state != RecordState::kAcquired) {
          return InvalidRecordState(kBatchNotAcquired);
        }
        ShareError error = ApplyType(ack.acknowledge_types[0], batch.whole, now_ms);
        if (!error.ok()) return error;
        continue;
      }
      if (batch.whole.state != RecordState::kAcquired) {
        return InvalidRecordState(kSubsetBatchNotAcquired);
      }
      batch.Split();
    }
    ShareError error = AcknowledgeOffsets(member_id, ack, batch, now_ms);
    if (!error.ok()) return error;
  }
  return ShareError::None();
}

ShareError SharePartition::AcknowledgeOffsets(std::string_view member_id,
                                              const AcknowledgementBatch& ack, InFlightBatch& batch,
                                              int64_t now_ms) {
  int64_t from = std::max({batch.first_offset, ack.first_offset, start_offset_});
  int64_t to = std::min(batch.last_offset, ack.last_offset);
  for (int64_t offset = from; offset <= to; ++offset) {
    InFlightState& state = batch.At(offset);
    if (state.state != RecordState::kAcquired) return InvalidRecordState(kOffsetNotAcquired);
    if (state.member_id != member_id) return InvalidRecordState(kNotOffsetOwner);
    int8_t type = ack.acknowledge_types.size() > 1
                      ? ack.acknowledge_types[static_cast<size_t>(offset - ack.first_offset)]
                      : ack.acknowledge_types[0];
    ShareError error = ApplyType(type, state, now_ms);
    if (!error.ok()) return error;
  }
  return ShareError::None();
}

ShareError SharePartition::ApplyType(int8_t type, InFlightState& state, int64_t now_ms) {
  switch (static_cast<AcknowledgeType>(type)) {
    case AcknowledgeType::kRenew:
      if (!config_.renew_acknowledge_enabled) return InvalidRecordState(kRenewNotEnabled);
      state.lock_deadline_ms = now_ms + config_.record_lock_duration_ms;
      return ShareError::None();
    case AcknowledgeType::kGap:
    case AcknowledgeType::kReject:
      state.state = RecordState::kArchived;
      break;
    case AcknowledgeType::kAccept:
      state.state = RecordState::kAcknowledged;
      break;
    case AcknowledgeType::kRelease:
      state.state = state.delivery_count >= config_.delivery_count_limit ? RecordState::kArchived
                                                                         : RecordState::kAvailable;
      break;
  }
  state.member_id.clear();
  state.lock_deadline_ms = -1;
  return ShareError::None();
}

void SharePartition::Release(InFlightState& state, ReleaseResult& result) const {
  if (state.delivery_count >= config_.delivery_count_limit) {
    state.state = RecordState::kArchived;
  } else {
    state.state = RecordState::kAvailable;
    result.became_available = true;
  }
  state.member_id.clear();
  state.lock_deadline_ms = -1;
}

template <typename Pred>
ReleaseResult SharePartition::ReleaseIf(Pred pred) {
  ReleaseResult result;
  for (auto& [first, batch] : cache_) {
    if (!batch.split()) {
      if (batch.whole.state == RecordState::kAcquired && pred(batch.whole)) {
        Release(batch.whole, result);
        result.released += static_cast<int32_t>(batch.size());
      }
      continue;
    }
    for (InFlightState& state : batch.offsets) {
      if (state.state == RecordState::kAcquired && pred(state)) {
        Release(state, result);
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
    if (state.state == RecordState::kArchiving) {
      return "offset " + std::to_string(offset) + " is ARCHIVING";
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
