// SharePartition::Acquire: Kafka 4.4.0's SharePartition.acquire with its batch-optimized and
// record-limit strategies, the in-flight limit and delivery throttling.
#include <algorithm>
#include <vector>

#include "share/share_partition.h"

namespace seglog {

namespace {

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

}  // namespace seglog
