// ConsumerGroup: one group of KIP-848's consumer protocol (ConsumerGroupHeartbeat) as Kafka's
// group coordinator keeps it (modern/consumer/ConsumerGroup, ConsumerGroupMember,
// CurrentAssignmentBuilder): the group epoch, the target assignment and its epoch, and every
// member with its subscription, its current assignment (each partition with the epoch it was
// assigned at) and the partitions it still has to revoke. The GroupCoordinator drives it (the
// heartbeats, the assignor runs, the records, the timers); this class keeps the bookkeeping
// consistent and runs the reconciliation that moves one member from its current assignment to
// its target, one safe step at a time:
//
//   STABLE                 the member has its target (at the target's epoch) - or is at its
//                          epoch and nothing changed
//   UNREVOKED_PARTITIONS   it owns partitions the target moved elsewhere: it stays at its
//                          epoch, with them pending revocation, until a heartbeat no longer
//                          lists them
//   UNRELEASED_PARTITIONS  it is at the target epoch, but some of its new partitions are still
//                          owned (or pending revocation) by another member: they are handed
//                          over when that member lets them go
//
// Group states (Kafka's ConsumerGroupState): Empty (no members), Assigning (the group epoch is
// ahead of the assignment epoch), Reconciling (some member is not yet at the assignment
// epoch or not stable), Stable; Dead once deleted.
//
// Thread safety: not thread-safe; its GroupCoordinator shard's mutex guards it.
#ifndef SEGLOG_GROUP_CONSUMER_GROUP_H_
#define SEGLOG_GROUP_CONSUMER_GROUP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "group/server_assignor.h"
#include "group/topic_partitions.h"
#include "seglog/result.h"

namespace seglog {

// The member states as ConsumerGroupCurrentMemberAssignmentValue.State stores them.
enum class ConsumerMemberState : int8_t {
  kStable = 0,
  kUnrevokedPartitions = 1,
  kUnreleasedPartitions = 2,
  kUnknown = 127,  // a value this build does not know (read from a record)
};
// "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS", "UNKNOWN".
std::string_view ConsumerMemberStateName(ConsumerMemberState state);
ConsumerMemberState ConsumerMemberStateFromValue(int8_t value);

// topic id -> partition -> the epoch at which the member was assigned it.
using EpochPartitions = std::map<Uuid, std::map<int32_t, int32_t>, UuidLess>;
TopicPartitions PartitionsOf(const EpochPartitions& p);

// A member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat) inside a consumer
// group, as Kafka keeps one during an online upgrade or downgrade: its own session timeout and
// the protocols of its JoinGroup (name, ConsumerProtocolSubscription bytes), in its order of
// preference. ConsumerGroupMemberMetadataValue's tagged ClassicMemberMetadata.
struct ClassicMemberMetadata {
  struct Protocol {
    std::string name;
    std::vector<uint8_t> metadata;
    bool operator==(const Protocol&) const = default;
  };
  int32_t session_timeout_ms = 0;
  std::vector<Protocol> supported_protocols;
  bool operator==(const ClassicMemberMetadata&) const = default;
};

struct ConsumerGroupMember {
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  ConsumerMemberState state = ConsumerMemberState::kStable;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;                          // "/127.0.0.1"
  std::vector<std::string> subscribed_topic_names;  // sorted, no duplicates
  std::optional<std::string> subscribed_topic_regex;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;
  EpochPartitions assigned_partitions;
  EpochPartitions partitions_pending_revocation;
  // Set for a member of the classic protocol (see ClassicMemberMetadata); nullopt for one of
  // the consumer protocol.
  std::optional<ClassicMemberMetadata> classic;

  bool uses_classic_protocol() const { return classic.has_value(); }
  bool operator==(const ConsumerGroupMember&) const = default;
};

// A regular expression of the group as its last resolution found it (Kafka's
// ResolvedRegularExpression, record type 16): the topics whose whole names it matched, the
// metadata version the topics were listed at and when the resolution started.
struct ResolvedRegularExpression {
  std::set<std::string> topics;
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  bool operator==(const ResolvedRegularExpression&) const = default;
};

enum class ConsumerGroupState { kEmpty, kAssigning, kReconciling, kStable, kDead };
// Kafka's names: "Empty", "Assigning", "Reconciling", "Stable", "Dead".
std::string_view ConsumerGroupStateName(ConsumerGroupState state);

// What one reconciliation step works from (CurrentAssignmentBuilder's inputs).
struct ReconcileInput {
  int32_t target_epoch = 0;
  TopicPartitions target;           // the member's target assignment
  TopicIdSet subscribed_topic_ids;  // the member's subscription, as topic ids that exist
  // Whether partitions of topics the member no longer subscribes to must leave its current
  // assignment now (its subscription changed in this heartbeat).
  bool enforce_subscription_consistency = false;
  // The partitions the heartbeat says the member owns; nullopt when it did not say.
  std::optional<TopicPartitions> owned;
};

// One reconciliation step of `member` towards `in.target` (Kafka's
// CurrentAssignmentBuilder.build): the member's next state, which may be `member` unchanged.
// `current_partition_epoch(topic, partition)` is the epoch of the member that has the
// partition assigned or pending revocation, -1 when it is free. FencedMemberEpoch-like
// failure: InvalidArgument("FENCED_MEMBER_EPOCH: <Kafka's message>") for a member in the
// UNKNOWN state that still owns partitions (or did not say: `in.owned` is nullopt).
Result<ConsumerGroupMember> ReconcileMember(
    const ConsumerGroupMember& member, const ReconcileInput& in,
    const std::function<int32_t(const Uuid&, int32_t)>& current_partition_epoch);

// The prefix of the message of ReconcileMember's FENCED_MEMBER_EPOCH failure; the rest of the
// message is Kafka's ErrorMessage.
inline constexpr std::string_view kFencedMemberEpochPrefix = "FENCED_MEMBER_EPOCH: ";
// Whether `s` is ReconcileMember's FENCED_MEMBER_EPOCH failure.
bool IsFencedMemberEpoch(const Status& s);

class ConsumerGroup {
 public:
  explicit ConsumerGroup(std::string group_id) : group_id_(std::move(group_id)) {}

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  void set_group_epoch(int32_t epoch) { group_epoch_ = epoch; }
  int32_t assignment_epoch() const { return assignment_epoch_; }
  void set_assignment_epoch(int32_t epoch) { assignment_epoch_ = epoch; }
  // KIP-1101's hash of the subscribed topics' metadata when the epoch was last bumped.
  int64_t metadata_hash() const { return metadata_hash_; }
  void set_metadata_hash(int64_t hash) { metadata_hash_ = hash; }

  ConsumerGroupState state() const;
  bool dead() const { return dead_; }
  void MarkDead() { dead_ = true; }

  const std::map<std::string, ConsumerGroupMember>& members() const { return members_; }
  const ConsumerGroupMember* FindMember(const std::string& member_id) const;
  // The member id of the static member with `instance_id`, if any.
  std::optional<std::string> StaticMemberId(const std::string& instance_id) const;
  // Adds or replaces a member, keeping the partition-owner index, the static-member index and
  // the subscription counts current.
  // REQUIRES: no other member has any of `member`'s assigned or pending-revocation partitions
  // (ReconcileMember keeps that true); a breach is a programming error and aborts, as Kafka's
  // addPartitionEpochs throws IllegalStateException.
  void UpdateMember(ConsumerGroupMember member);
  // Removes the member if it exists (else does nothing). Its target assignment stays: the
  // caller removes it with RemoveTarget.
  void RemoveMember(const std::string& member_id);

  // The target assignment of every member that has one.
  const std::map<std::string, TopicPartitions>& target_assignment() const { return targets_; }
  const TopicPartitions& TargetOf(const std::string& member_id) const;  // empty if none
  void SetTarget(const std::string& member_id, TopicPartitions target);
  void RemoveTarget(const std::string& member_id);

  // The epoch of the member that has `partition` assigned or pending revocation; -1: free.
  int32_t CurrentPartitionEpoch(const Uuid& topic, int32_t partition) const;

  // Every topic name some member subscribes to by name, with how many members do.
  const std::map<std::string, int>& subscribed_topic_names() const { return subscribed_names_; }
  // Every regular expression some member subscribes with, with how many members do.
  const std::map<std::string, int>& subscribed_regular_expressions() const {
    return subscribed_regexes_;
  }
  int NumSubscribedMembers(const std::string& regex) const;

  // The group's regular expressions as last resolved (a subscribed one may not be yet).
  const std::map<std::string, ResolvedRegularExpression>& resolved_regular_expressions() const {
    return resolved_regexes_;
  }
  const ResolvedRegularExpression* FindResolvedRegularExpression(const std::string& regex) const;
  void SetResolvedRegularExpression(const std::string& regex, ResolvedRegularExpression r);
  void RemoveResolvedRegularExpression(const std::string& regex);
  // When the regular expressions were last resolved (they are resolved together: the latest
  // timestamp); INT64_MIN when none is.
  int64_t LastRegularExpressionRefreshMs() const;
  // The metadata version of the last resolution (the oldest of them); 0 when none is.
  int64_t LastResolvedRegularExpressionVersion() const;

  // The topics a member subscribes to: its names, and the topics its regular expression
  // resolved to (none while it is not resolved: Kafka treats it as matching nothing).
  std::set<std::string> MemberTopics(const ConsumerGroupMember& member) const;
  // Every topic some member subscribes to, by name or through a resolved expression.
  std::set<std::string> SubscribedTopics() const;
  // The assignor most members name (ties: the smaller name), else nullopt (the default).
  std::optional<std::string> PreferredServerAssignor() const;
  // Whether every member subscribes to the same topics (Kafka's HOMOGENEOUS): without regexes,
  // every subscribed name has every member; with one, every member has that same regex and no
  // member subscribes by name. True for a group without members.
  bool Homogeneous() const;

 private:
  void AddOwners(const ConsumerGroupMember& m);
  void RemoveOwners(const ConsumerGroupMember& m);

  std::string group_id_;
  int32_t group_epoch_ = 0;
  int32_t assignment_epoch_ = 0;
  int64_t metadata_hash_ = 0;
  bool dead_ = false;
  std::map<std::string, ConsumerGroupMember> members_;
  std::map<std::string, TopicPartitions> targets_;
  std::map<std::string, std::string> static_members_;  // instance id -> member id
  std::map<std::string, int> subscribed_names_;
  std::map<std::string, int> subscribed_regexes_;
  std::map<std::string, ResolvedRegularExpression> resolved_regexes_;
  // topic id -> partition -> the owner's member epoch (assigned or pending revocation).
  std::map<Uuid, std::map<int32_t, int32_t>, UuidLess> partition_epochs_;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_CONSUMER_GROUP_H_
