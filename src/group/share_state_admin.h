// What the group coordinator needs from outside src/group for share groups:
//
// ShareStateAdmin creates, summarizes and deletes the share state of share partitions (Kafka's
// Persister: InitializeShareGroupState, ReadShareGroupStateSummary, DeleteShareGroupState on the
// share coordinator and __share_group_state). The node gives the GroupCoordinator one
// (SetShareStateAdmin); without one every call succeeds at once (Kafka's NoOpStatePersister).
//
// ShareGroupListener hears of members that leave or are fenced, and of groups deleted, so the
// broker can release what those members hold (their share sessions and acquired records:
// Kafka's ShareGroupListener / SharePartitionManager).
//
// The GroupCoordinator calls both without holding any shard mutex (the lock order of
// docs/design/share_groups.md 3.2: a shard's mutex is never held while calling the share
// coordinator), from the thread of the request or timer that caused the call.
//
// Thread safety: implementations must be thread-safe.
#ifndef SEGLOG_GROUP_SHARE_STATE_ADMIN_H_
#define SEGLOG_GROUP_SHARE_STATE_ADMIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog {

class ShareStateAdmin {
 public:
  // The start offset InitializeShareGroupState is given for partitions of a new subscription:
  // -1 = "none yet", the partition leader applies share.auto.offset.reset when it first loads
  // the share partition (GroupMetadataManager.buildInitializeShareGroupStateRequest, 4.4.0).
  static constexpr int64_t kStartOffsetFromResetPolicy = -1;

  struct TopicPartitions {
    Uuid topic_id;
    std::vector<int32_t> partitions;
  };
  struct InitializeTopic {
    Uuid topic_id;
    std::vector<int32_t> partitions;
    int64_t start_offset = kStartOffsetFromResetPolicy;
  };

  // What ReadShareGroupStateSummary answers for one share-partition. A partition without state
  // has start offset and delivery-complete count -1 (no lag can be computed from it).
  struct PartitionSummary {
    int32_t partition = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int64_t start_offset = -1;
    int32_t leader_epoch = 0;
    int32_t state_epoch = 0;
    int32_t delivery_complete_count = -1;
  };
  struct TopicSummary {
    Uuid topic_id;
    std::vector<PartitionSummary> partitions;
  };

  virtual ~ShareStateAdmin() = default;

  // Creates (or resets) the share state of the partitions at `state_epoch` (the group epoch
  // of the heartbeat that asked). OK only if every partition succeeded; else the partitions
  // stay uninitialized and are asked again later.
  virtual Status InitializeShareState(const std::string& group_id, int32_t state_epoch,
                                      const std::vector<InitializeTopic>& topics) = 0;
  // Deletes the share state of the partitions. OK only if every partition succeeded.
  virtual Status DeleteShareState(const std::string& group_id,
                                  const std::vector<TopicPartitions>& topics) = 0;
  // The state summary of each partition, in the order asked (DescribeShareGroupOffsets). An
  // error of one partition is in its summary; a failed call is the Status. The default, for
  // admins that keep no state (Kafka's NoOpStatePersister): every partition without state.
  virtual Result<std::vector<TopicSummary>> ReadShareStateSummary(
      const std::string& /*group_id*/, const std::vector<TopicPartitions>& topics) {
    return NoStateSummary(topics);
  }
  // Every partition of `topics` without state.
  static std::vector<TopicSummary> NoStateSummary(const std::vector<TopicPartitions>& topics);
};

inline std::vector<ShareStateAdmin::TopicSummary> ShareStateAdmin::NoStateSummary(
    const std::vector<TopicPartitions>& topics) {
  std::vector<TopicSummary> out;
  for (const TopicPartitions& t : topics) {
    TopicSummary& s = out.emplace_back();
    s.topic_id = t.topic_id;
    for (int32_t p : t.partitions) {
      PartitionSummary& ps = s.partitions.emplace_back();
      ps.partition = p;
    }
  }
  return out;
}

class ShareGroupListener {
 public:
  virtual ~ShareGroupListener() = default;
  // The member left (epoch -1) or was fenced (its session timed out).
  virtual void OnShareGroupMemberLeft(const std::string& group_id,
                                      const std::string& member_id) = 0;
  // The group was deleted (DeleteGroups).
  virtual void OnShareGroupDeleted(const std::string& group_id) = 0;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_SHARE_STATE_ADMIN_H_
