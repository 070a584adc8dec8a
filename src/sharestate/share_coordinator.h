// ShareCoordinator: Kafka's share coordinator - the durable state of every share-partition
// (share group x topic partition): its state and leader epochs, its start offset, how many of
// its records are done, and the delivery state and count of the records in flight, kept in
// __share_group_state with Kafka's ShareSnapshot and ShareUpdate records
// (share_state_records.h, docs/format/share_group_state.md, docs/design/share_groups.md).
//
// A key's home is partition abs(javaHash("<group>:<topic id>:<partition>")) % N of the topic
// (N = share.coordinator.state.topic.num.partitions); each partition is a shard with its own
// mutex, replayed at open and written then applied (docs/design/coordinator_runtime.md). The
// operations are Kafka's ShareCoordinatorShard's, one share-partition each:
//
//   Initialize  a ShareSnapshot with the given state epoch and start offset (-1: the leader
//               picks it from share.auto.offset.reset), snapshot epoch +1 over what was there,
//               leader epoch 0 and no batches. FENCED_STATE_EPOCH below the recorded epoch.
//   Read        the state, for a partition leader about to serve it; a new leader epoch is
//               recorded (a record is written). INVALID_REQUEST when not initialized,
//               FENCED_LEADER_EPOCH below the recorded epoch.
//   Write       a ShareUpdate whose batches are merged into the state, or, after
//               share.coordinator.snapshot.update.records.per.snapshot updates, a whole new
//               ShareSnapshot. The start offset never moves back. INVALID_REQUEST when not
//               initialized; FENCED_LEADER_EPOCH / FENCED_STATE_EPOCH below the recorded ones.
//   Delete      a tombstone (ShareSnapshot key, no value); nothing when there is no state.
//   ReadSummary start offset, delivery-complete count and epochs (DescribeShareGroupOffsets);
//               -1s for a share-partition with no state.
//
// Every operation first checks the topic exists with that partition (UNKNOWN_TOPIC_OR_PARTITION)
// through the lookup it is given. The topic is cleanup.policy=delete with retention.ms=-1, so
// nothing ages out on its own: every share.coordinator.state.topic.prune.interval.ms Prune()
// deletes each partition's records below the oldest record still needed (the latest snapshot
// of every live key, and what followed it), and every
// share.coordinator.cold.partition.snapshot.interval.ms SnapshotColdPartitions() rewrites a
// snapshot of every key not written for that long so its old records can go.
//
// Thread safety: thread-safe. Each shard's mutex guards its keys' state and its appends; the
// topic lookup is called with no shard lock held.
#ifndef SEGLOG_SHARESTATE_SHARE_COORDINATOR_H_
#define SEGLOG_SHARESTATE_SHARE_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/scheduler.h"
#include "sharestate/share_coordinator_config.h"
#include "sharestate/share_partition_key.h"
#include "sharestate/share_state_records.h"

namespace seglog {

class LogManager;

class ShareCoordinator {
 public:
  // The partition count of the topic with this id, or nullopt when there is no such topic
  // (Kafka's metadata image).
  using TopicLookup = std::function<std::optional<int32_t>(const Uuid& topic_id)>;

  // Opens the coordinator over `logs`: replays every partition of __share_group_state when
  // the topic exists (it is created on the first Initialize otherwise).
  static Result<std::unique_ptr<ShareCoordinator>> Open(const ShareCoordinatorConfig& config,
                                                        LogManager* logs, Scheduler* scheduler,
                                                        TopicLookup topics, Logger logger);
  ~ShareCoordinator();
  ShareCoordinator(const ShareCoordinator&) = delete;
  ShareCoordinator& operator=(const ShareCoordinator&) = delete;

  // Schedules the prune and the cold-partition snapshots on the scheduler.
  void Start();
  // Later operations answer COORDINATOR_NOT_AVAILABLE ("Share coordinator is not available.").
  void Shutdown();

  // Creates __share_group_state when it does not exist yet (FindCoordinator key type 2).
  Status EnsureStateTopic();

  // The partition of __share_group_state that holds `key`'s state.
  int32_t PartitionFor(const SharePartitionKey& key) const;
  int32_t PartitionFor(std::string_view coordinator_key) const;

  // What an operation answers for its share-partition.
  struct Outcome {
    int16_t error_code = 0;
    std::optional<std::string> error_message;  // set with an error
  };
  struct ReadOutcome : Outcome {
    int32_t state_epoch = 0;
    int64_t start_offset = 0;
    std::vector<PersisterStateBatch> state_batches;
  };
  struct WriteData {
    int32_t state_epoch = 0;
    int32_t leader_epoch = 0;
    int64_t start_offset = 0;
    int32_t delivery_complete_count = -1;
    std::vector<PersisterStateBatch> state_batches;
  };
  // For a share-partition with no state: start offset and count -1, epochs 0.
  struct SummaryOutcome : Outcome {
    int32_t state_epoch = 0;
    int32_t leader_epoch = 0;
    int64_t start_offset = -1;
    int32_t delivery_complete_count = -1;
  };

  Outcome Initialize(const SharePartitionKey& key, int32_t state_epoch, int64_t start_offset);
  ReadOutcome Read(const SharePartitionKey& key, int32_t leader_epoch);
  Outcome Write(const SharePartitionKey& key, const WriteData& data);
  Outcome Delete(const SharePartitionKey& key);
  SummaryOutcome ReadSummary(const SharePartitionKey& key);

  // Deletes, partition by partition, the records below the oldest one still needed.
  void Prune();
  // Rewrites the snapshot of every key not written for cold.partition.snapshot.interval.ms.
  void SnapshotColdPartitions();
  // Tombstones the state of every share-partition of these topics (deleted topics).
  void DeleteStateOfTopics(const std::set<Uuid>& topic_ids);

  // The state of `key` as the coordinator has it (tests, the console), or nullopt.
  std::optional<ShareGroupOffset> StateOf(const SharePartitionKey& key);

 private:
  class Core;
  explicit ShareCoordinator(std::shared_ptr<Core> core);
  std::shared_ptr<Core> core_;
};

}  // namespace seglog

#endif  // SEGLOG_SHARESTATE_SHARE_COORDINATOR_H_
