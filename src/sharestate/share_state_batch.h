// PersisterStateBatch: a run of offsets of one share-partition in one delivery state with one
// delivery count, as __share_group_state stores them (ShareSnapshot/ShareUpdate StateBatches),
// and how the share coordinator merges the batches it has with the ones a write brings
// (Kafka's PersisterStateBatchCombiner, docs/format/share_group_state.md):
//
//   1. Drop every batch that ends before the start offset, and cut the one that straddles it
//      to begin at it (a start offset of -1 keeps everything).
//   2. Sweep the offsets: where batches overlap, the one with the higher delivery count wins,
//      and between equal counts the higher delivery state (4 archived > 2 acknowledged >
//      0 available). The order the batches came in does not matter.
//   3. Neighbouring runs with the same state and count join into one batch.
//
// Thread safety: value types and pure functions.
#ifndef SEGLOG_SHARESTATE_SHARE_STATE_BATCH_H_
#define SEGLOG_SHARESTATE_SHARE_STATE_BATCH_H_

#include <cstdint>
#include <span>
#include <vector>

namespace seglog {

// The delivery states __share_group_state stores (RecordState's ids; ACQUIRED and ARCHIVING
// are never written).
inline constexpr int8_t kDeliveryStateAvailable = 0;
inline constexpr int8_t kDeliveryStateAcknowledged = 2;
inline constexpr int8_t kDeliveryStateArchived = 4;

struct PersisterStateBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;  // inclusive
  int8_t delivery_state = kDeliveryStateAvailable;
  int16_t delivery_count = 0;
  bool operator==(const PersisterStateBatch&) const = default;
};

// The batches of `so_far` and `new_batches` merged as above, in offset order, disjoint.
std::vector<PersisterStateBatch> CombineStateBatches(
    std::span<const PersisterStateBatch> so_far, std::span<const PersisterStateBatch> new_batches,
    int64_t start_offset);

}  // namespace seglog

#endif  // SEGLOG_SHARESTATE_SHARE_STATE_BATCH_H_
