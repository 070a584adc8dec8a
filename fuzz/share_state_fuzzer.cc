// libFuzzer target for the records of __share_group_state read back at load
// (sharestate/share_state_records.h): the input as a whole key with no value (a tombstone), as a
// key and a value split at its first byte, and as the value of a well-formed snapshot key and
// update key (so the value decoders are reached without the fuzzer having to find a key). A
// value that decodes must survive a round trip, and its state batches merged with themselves
// (CombineStateBatches) must come out in order, disjoint, with neighbours of one state joined.
// Build with the `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sharestate/share_state_batch.h"
#include "sharestate/share_state_records.h"

using namespace seglog;

namespace {

const SharePartitionKey kKey{.group_id = "g", .topic_id = Uuid::FromHalves(1, 2), .partition = 0};

void CheckBatches(const std::vector<PersisterStateBatch>& in, int64_t start) {
  if (in.size() > 64) return;  // the merge is quadratic-free, but keep inputs small
  for (const PersisterStateBatch& b : in) {
    // Kafka's combiner assumes first <= last and offsets that do not overflow.
    if (b.first_offset > b.last_offset || b.last_offset == INT64_MAX || b.first_offset < 0) return;
  }
  const std::vector<PersisterStateBatch> out = CombineStateBatches(in, in, start);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].first_offset > out[i].last_offset) __builtin_trap();
    if (start != -1 && out[i].first_offset < start) __builtin_trap();
    if (i > 0) {
      if (out[i].first_offset <= out[i - 1].last_offset) __builtin_trap();
      if (out[i].first_offset == out[i - 1].last_offset + 1 &&
          out[i].delivery_state == out[i - 1].delivery_state &&
          out[i].delivery_count == out[i - 1].delivery_count) {
        __builtin_trap();
      }
    }
  }
}

void RoundTrip(std::span<const uint8_t> key, std::span<const uint8_t> value) {
  Result<LoadedShareStateRecord> r = DecodeShareStateRecord(key, value);
  if (!r.ok() || !r->skipped.empty() || !r->value) return;
  const bool snapshot = r->type == LoadedShareStateRecord::Type::kSnapshot;
  CoordinatorRecord again =
      snapshot ? ShareSnapshotRecord(r->key, *r->value) : ShareUpdateRecord(r->key, *r->value);
  Result<LoadedShareStateRecord> back =
      DecodeShareStateRecord(again.key, std::span<const uint8_t>(*again.value));
  if (!back.ok() || !back->value || !(*back->value == *r->value) || !(back->key == r->key)) {
    __builtin_trap();
  }
  CheckBatches(r->value->state_batches, r->value->start_offset < -1 ? -1 : r->value->start_offset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> snapshot_key = ShareSnapshotRecord(kKey, {}).key;
  static const std::vector<uint8_t> update_key = ShareUpdateRecord(kKey, {}).key;
  const std::span<const uint8_t> in(data, size);
  (void)DecodeShareStateRecord(in, std::nullopt);
  if (size > 0) {
    const size_t split = std::min<size_t>(data[0], size - 1);
    RoundTrip(in.subspan(1, split), in.subspan(1 + split));
  }
  std::vector<uint8_t> value = {0, 0};
  value.insert(value.end(), data, data + size);
  RoundTrip(snapshot_key, value);
  RoundTrip(update_key, value);
  return 0;
}
