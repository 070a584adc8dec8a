// The offsets of one __consumer_offsets partition's groups as the coordinator keeps them in
// memory: the committed ones with the log offset of the record that committed each, and the
// transactional ones still waiting for their transaction's end marker (Kafka's
// OffsetMetadataManager: `offsets`, `pendingTransactionalOffsets`, `openTransactions`).
//
// A TxnOffsetCommit writes ordinary OffsetCommit records in a transactional batch of the
// producer; replaying one (`Add`) keeps it here, invisible to OffsetFetch, until the COMMIT or
// ABORT control batch of that producer id (`Take`, then `CommitPendingOffsets` for a COMMIT).
// An OffsetCommit tombstone drops every producer's pending offset of its partition
// (`RemovePartition`).
//
// Thread safety: not thread-safe (the shard's mutex guards it).
#ifndef SEGLOG_GROUP_TRANSACTIONAL_OFFSETS_H_
#define SEGLOG_GROUP_TRANSACTIONAL_OFFSETS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "group/offsets_records.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

// A committed (or pending) offset and the log offset of its OffsetCommit record (Kafka's
// OffsetAndMetadata.recordOffset): a COMMIT marker only replaces a committed offset written
// before the pending one, so a transaction never undoes a later plain commit.
struct StoredOffset : CommittedOffset {
  int64_t record_offset = -1;
};

using OffsetPartitionKey = std::pair<std::string, int32_t>;  // (topic, partition)
using GroupOffsets = std::map<OffsetPartitionKey, StoredOffset>;
using OffsetsByGroup = std::map<std::string, GroupOffsets>;

class PendingTransactionalOffsets {
 public:
  // A transactional OffsetCommit record of `producer_id` (written or loaded): it replaces that
  // producer's earlier pending offset of the partition.
  void Add(int64_t producer_id, const std::string& group, const OffsetPartitionKey& partition,
           StoredOffset offset);
  // An OffsetCommit tombstone of the partition: every producer's pending offset of it goes.
  void RemovePartition(const std::string& group, const OffsetPartitionKey& partition);
  // The producer's transaction ended: its pending offsets, removed from here.
  OffsetsByGroup Take(int64_t producer_id);

  // Whether a transaction has a pending offset of the group (of the partition).
  bool Contains(const std::string& group) const { return open_.count(group) != 0; }
  bool Contains(const std::string& group, const OffsetPartitionKey& partition) const;
  // The partitions of `group` with a pending offset, in order.
  std::vector<OffsetPartitionKey> PartitionsOf(const std::string& group) const;
  // The groups with a pending offset, in order.
  std::vector<std::string> Groups() const;
  // The producer ids with pending offsets (for inspection).
  std::vector<int64_t> ProducerIds() const;

 private:
  // producer id -> group -> partition -> offset
  std::map<int64_t, OffsetsByGroup> by_producer_;
  // group -> partition -> the producers with a pending offset of it.
  // Invariant: no empty set or map at any level; a producer is in open_[g][p] exactly when
  // by_producer_[producer][g][p] exists.
  std::map<std::string, std::map<OffsetPartitionKey, std::set<int64_t>>> open_;
};

// A COMMIT marker's rule (Kafka's replayEndTransactionMarker): each pending offset becomes the
// committed one of its partition unless the committed one's record is later in the log.
void CommitPendingOffsets(OffsetsByGroup pending, OffsetsByGroup* committed);

// What a control batch of __consumer_offsets says (Kafka's CoordinatorLoaderImpl): true for a
// COMMIT marker, false for an ABORT, nullopt for another control record or an empty batch (the
// cleaner removed its marker). Corruption for a record or key that does not parse.
Result<std::optional<bool>> ReadEndTransactionMarker(const RecordBatchView& batch);

}  // namespace seglog

#endif  // SEGLOG_GROUP_TRANSACTIONAL_OFFSETS_H_
