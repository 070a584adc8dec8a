// SharePartition::Acknowledge: Kafka 4.4.0's SharePartition.acknowledge - the checks in Kafka's
// order and words, applied all or nothing.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "share/share_partition.h"

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

}  // namespace

ShareError SharePartition::Acknowledge(std::string_view member_id,
                                       std::span<const AcknowledgementBatch> batches,
                                       int64_t now_ms, bool* transitioned) {
  if (transitioned != nullptr) *transitioned = false;
  acknowledge_transitions_ = 0;
  if (batches.empty()) return ShareError::None();
  const size_t dlq_mark = dlq_archives_.size();
  // The shape of each batch (KafkaApis validates it before the share partition sees it). A
  // negative first offset is not refused: KafkaApis lets -1 through, and offsets below the
  // start offset are finished already.
  int64_t low = batches.front().first_offset;
  int64_t high = batches.front().last_offset;
  for (const AcknowledgementBatch& batch : batches) {
    if (batch.last_offset < batch.first_offset) {
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
      dlq_archives_.resize(dlq_mark);
      return error;
    }
  }
  MaybeAdvanceStartOffset();
  if (transitioned != nullptr) *transitioned = acknowledge_transitions_ > 0;
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
        ShareError error = ApplyType(ack.acknowledge_types[0], batch.whole, batch.first_offset,
                                     batch.last_offset, now_ms);
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
    ShareError error = ApplyType(type, state, offset, offset, now_ms);
    if (!error.ok()) return error;
  }
  return ShareError::None();
}

ShareError SharePartition::ApplyType(int8_t type, InFlightState& state, int64_t first, int64_t last,
                                     int64_t now_ms) {
  switch (static_cast<AcknowledgeType>(type)) {
    case AcknowledgeType::kRenew:
      if (!config_.renew_acknowledge_enabled) return InvalidRecordState(kRenewNotEnabled);
      state.lock_deadline_ms = now_ms + config_.record_lock_duration_ms;
      return ShareError::None();
    case AcknowledgeType::kGap:
      state.state = RecordState::kArchived;
      break;
    case AcknowledgeType::kReject:
      Archive(state, first, last, DlqCause::kClientReject);
      break;
    case AcknowledgeType::kAccept:
      state.state = RecordState::kAcknowledged;
      break;
    case AcknowledgeType::kRelease:
      if (state.delivery_count >= config_.delivery_count_limit) {
        Archive(state, first, last, DlqCause::kDeliveryCountExceeded);
      } else {
        state.state = RecordState::kAvailable;
      }
      break;
  }
  state.member_id.clear();
  state.lock_deadline_ms = -1;
  ++acknowledge_transitions_;
  return ShareError::None();
}

}  // namespace seglog
