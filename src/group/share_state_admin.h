// What the group coordinator needs from outside src/group for share groups:
//
// ShareStateAdmin creates and deletes the share state of share partitions (Kafka's Persister:
// InitializeShareGroupState, DeleteShareGroupState on the share coordinator and
// __share_group_state). The node gives the GroupCoordinator one (SetShareStateAdmin); without
// one every call succeeds at once (Kafka's NoOpStatePersister).
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
#include <string>
#include <vector>

#include "base/uuid.h"
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

  virtual ~ShareStateAdmin() = default;

  // Creates (or resets) the share state of the partitions at `state_epoch` (the group epoch
  // of the heartbeat that asked). OK only if every partition succeeded; else the partitions
  // stay uninitialized and are asked again later.
  virtual Status InitializeShareState(const std::string& group_id, int32_t state_epoch,
                                      const std::vector<InitializeTopic>& topics) = 0;
  // Deletes the share state of the partitions. OK only if every partition succeeded.
  virtual Status DeleteShareState(const std::string& group_id,
                                  const std::vector<TopicPartitions>& topics) = 0;
};

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
