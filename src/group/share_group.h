// ShareGroup: one share group of KIP-932 (ShareGroupHeartbeat) as Kafka 4.4.0's group
// coordinator keeps it (modern/share/ShareGroup, ShareGroupMember, and the share-partition
// metadata GroupMetadataManager keeps beside it): the group epoch, the target assignment and
// its epoch, every member with its subscription and current assignment, and which partitions
// of the subscribed topics have share state (ShareGroupStatePartitionMetadata, record type 15):
//
//   initializing  the group coordinator wrote that it asked for their share state to be
//                 created (InitializeShareGroupState) and has not heard back; members are
//                 not given them
//   initialized   their share state exists: only these are assignable
//   deleting      their share state is being deleted (a topic gone, the group deleted)
//
// Unlike a consumer group there is no revocation: a member takes its target assignment at
// once, and a partition may be assigned to several members (ShareGroupAssignmentBuilder).
//
// Group states (ShareGroup.ShareGroupState, javap of 4.4.0): "Empty" (no members), "Stable"
// (members), "Dead" (deleted); Kafka also has "Unknown", never a live group's.
//
// Thread safety: not thread-safe; its GroupCoordinator shard's mutex guards it.
#ifndef SEGLOG_GROUP_SHARE_GROUP_H_
#define SEGLOG_GROUP_SHARE_GROUP_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "group/topic_partitions.h"

namespace seglog {

struct ShareGroupMember {
  std::string member_id;  // the client's own (a Kafka base64 Uuid), kept for its life
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  // ShareGroupCurrentMemberAssignmentValue.State: always 0 (STABLE) for a share member.
  int8_t state = 0;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;                          // "/127.0.0.1"
  std::vector<std::string> subscribed_topic_names;  // sorted, no duplicates
  TopicPartitions assigned_partitions;
  bool operator==(const ShareGroupMember&) const = default;
};

// One topic of ShareGroupStatePartitionMetadata: its name (as recorded) and partitions.
struct ShareStateTopic {
  std::string name;
  std::set<int32_t> partitions;
  // initializing only, not recorded: when this coordinator asked for the state (the load
  // time after a restart), for group.share.initialize.retry.interval.ms.
  int64_t timestamp_ms = 0;
  bool operator==(const ShareStateTopic& o) const {
    return name == o.name && partitions == o.partitions;
  }
};
using ShareStateTopics = std::map<Uuid, ShareStateTopic, UuidLess>;

// What ShareGroupStatePartitionMetadata (type 15) says of a group.
struct ShareGroupStatePartitions {
  ShareStateTopics initializing;
  ShareStateTopics initialized;
  std::map<Uuid, std::string, UuidLess> deleting;  // topic id -> name
  bool operator==(const ShareGroupStatePartitions&) const = default;
};

enum class ShareGroupState { kEmpty, kStable, kDead };
// Kafka's names: "Empty", "Stable", "Dead".
std::string_view ShareGroupStateName(ShareGroupState state);

class ShareGroup {
 public:
  explicit ShareGroup(std::string group_id) : group_id_(std::move(group_id)) {}

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  void set_group_epoch(int32_t epoch) { group_epoch_ = epoch; }
  int32_t assignment_epoch() const { return assignment_epoch_; }
  void set_assignment_epoch(int32_t epoch) { assignment_epoch_ = epoch; }
  // When the target assignment was last computed (type 12's AssignmentTimestamp); 0: never.
  int64_t assignment_timestamp_ms() const { return assignment_timestamp_ms_; }
  void set_assignment_timestamp_ms(int64_t ms) { assignment_timestamp_ms_ = ms; }
  // A hash of the subscribed topics' metadata when the epoch was last bumped (type 11).
  int64_t metadata_hash() const { return metadata_hash_; }
  void set_metadata_hash(int64_t hash) { metadata_hash_ = hash; }

  ShareGroupState state() const;
  bool dead() const { return dead_; }
  void MarkDead() { dead_ = true; }

  const std::map<std::string, ShareGroupMember>& members() const { return members_; }
  const ShareGroupMember* FindMember(const std::string& member_id) const;
  // Adds or replaces a member, keeping the subscription counts current.
  void UpdateMember(ShareGroupMember member);
  // Removes the member if it exists. Its target assignment stays: see RemoveTarget.
  void RemoveMember(const std::string& member_id);

  const std::map<std::string, TopicPartitions>& target_assignment() const { return targets_; }
  const TopicPartitions& TargetOf(const std::string& member_id) const;  // empty if none
  void SetTarget(const std::string& member_id, TopicPartitions target);
  void RemoveTarget(const std::string& member_id);

  // Every topic name some member subscribes to, with how many members do.
  const std::map<std::string, int>& subscribed_topic_names() const { return subscribed_names_; }
  // Whether every member subscribes to the same topics (Kafka's HOMOGENEOUS). True without
  // members.
  bool Homogeneous() const;

  // The share-partition metadata (type 15); nullopt when no such record exists.
  const std::optional<ShareGroupStatePartitions>& state_partitions() const {
    return state_partitions_;
  }
  void set_state_partitions(std::optional<ShareGroupStatePartitions> p) {
    state_partitions_ = std::move(p);
  }
  // The partitions whose share state exists (initialized), as the assignor may use them.
  TopicPartitions InitializedPartitions() const;

 private:
  std::string group_id_;
  int32_t group_epoch_ = 0;
  int32_t assignment_epoch_ = 0;
  int64_t assignment_timestamp_ms_ = 0;
  int64_t metadata_hash_ = 0;
  bool dead_ = false;
  std::map<std::string, ShareGroupMember> members_;
  std::map<std::string, TopicPartitions> targets_;
  std::map<std::string, int> subscribed_names_;
  std::optional<ShareGroupStatePartitions> state_partitions_;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_SHARE_GROUP_H_
