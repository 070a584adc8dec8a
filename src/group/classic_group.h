// ClassicGroup: one consumer group of the classic protocol (JoinGroup/SyncGroup/Heartbeat/
// LeaveGroup) as Kafka's group coordinator keeps it: its state, generation, members with their
// protocols and assignments, the chosen protocol and the leader, static members by instance
// id, the members the coordinator told to rejoin with a new id (KIP-394) and the members whose
// SyncGroup is still due. The GroupCoordinator drives it; this class keeps the bookkeeping
// (who has joined, who leads, which protocol all members support) consistent.
//
// States (Kafka's ClassicGroupState; each may be entered only from the ones listed):
//
//   Empty               <- PreparingRebalance                       no members (offsets may remain)
//   PreparingRebalance  <- Empty, Stable, CompletingRebalance       waiting for members to (re)join
//   CompletingRebalance <- PreparingRebalance                       waiting for the leader's
//   assignment Stable              <- CompletingRebalance                      assignments handed
//   out Dead                <- any                                      removed; answers "not here"
//
// Thread safety: not thread-safe; its GroupCoordinator shard's mutex guards it.
#ifndef SEGLOG_GROUP_CLASSIC_GROUP_H_
#define SEGLOG_GROUP_CLASSIC_GROUP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/generated/join_group_response.h"
#include "protocol/generated/sync_group_response.h"

namespace seglog {

enum class ClassicGroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };

// Kafka's names: "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead".
std::string_view ClassicGroupStateName(ClassicGroupState state);

struct ClassicGroupMember {
  // A protocol the member supports (JoinGroup's protocols, in its order of preference).
  struct Protocol {
    std::string name;
    std::vector<uint8_t> metadata;
  };

  std::string member_id;
  std::optional<std::string> group_instance_id;  // static membership (KIP-345)
  std::string client_id;
  std::string client_host;  // "/127.0.0.1", as Java's InetAddress.toString prints it
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::string protocol_type;
  std::vector<Protocol> protocols;
  std::vector<uint8_t> assignment;
  // Set while the member's JoinGroup / SyncGroup waits for the rebalance to move on.
  std::function<void(protocol::JoinGroupResponseData)> awaiting_join;
  std::function<void(protocol::SyncGroupResponseData)> awaiting_sync;
  // Joined during this rebalance and not yet through a completed join: its session timer is
  // the long new-member timeout, and an initial rebalance waits again for more like it.
  bool is_new = false;

  // The metadata of `protocol`, or null if the member does not support it.
  const std::vector<uint8_t>* MetadataFor(std::string_view protocol) const;
  bool awaiting_join_response() const { return static_cast<bool>(awaiting_join); }
};

class ClassicGroup {
 public:
  ClassicGroup(std::string group_id, int64_t now_ms);

  const std::string& group_id() const { return group_id_; }
  ClassicGroupState state() const { return state_; }
  ClassicGroupState previous_state() const { return previous_state_; }
  bool Is(ClassicGroupState s) const { return state_ == s; }
  // When the group last changed state (-1: unknown, e.g. loaded from an old record).
  int64_t current_state_timestamp() const { return state_timestamp_; }
  int32_t generation() const { return generation_; }
  const std::optional<std::string>& protocol_type() const { return protocol_type_; }
  const std::optional<std::string>& protocol_name() const { return protocol_name_; }
  const std::optional<std::string>& leader_id() const { return leader_id_; }

  // Kafka's transition rules (above); false (nothing changes) for a transition they forbid.
  bool CanTransitionTo(ClassicGroupState next) const;
  bool TransitionTo(ClassicGroupState next, int64_t now_ms);

  // Members.
  const std::map<std::string, ClassicGroupMember>& members() const { return members_; }
  ClassicGroupMember* FindMember(std::string_view member_id);
  bool HasMember(std::string_view member_id) const {
    return members_.count(std::string(member_id));
  }
  bool empty() const { return members_.empty(); }
  size_t size() const { return members_.size(); }
  // Adds a member (replacing none: REQUIRES it is not a member). The first member of a group
  // without a leader becomes its leader; the first member of a memberless group sets the
  // protocol type. A member added awaiting its join response counts as joined.
  void Add(ClassicGroupMember member);
  // Removes a member (and its static mapping, pending-sync entry); a leader that leaves is
  // replaced by the first remaining member. Returns the removed member, if it was one.
  std::optional<ClassicGroupMember> Remove(std::string_view member_id);
  // Static membership: the member id an instance id maps to.
  std::optional<std::string> StaticMemberId(std::string_view instance_id) const;
  // Gives an existing static member a new member id (a restarted static consumer, KIP-345),
  // keeping its assignment, protocols and timeouts; the leader follows it. The old member's
  // callbacks are returned (to be answered FENCED_INSTANCE_ID) and cleared.
  struct Replaced {
    std::function<void(protocol::JoinGroupResponseData)> awaiting_join;
    std::function<void(protocol::SyncGroupResponseData)> awaiting_sync;
  };
  Replaced ReplaceStaticMember(std::string_view instance_id, std::string_view old_member_id,
                               const std::string& new_member_id);

  // KIP-394: dynamic members told MEMBER_ID_REQUIRED, expected to rejoin with that id.
  bool IsPendingMember(std::string_view member_id) const {
    return pending_members_.count(std::string(member_id));
  }
  void AddPendingMember(const std::string& member_id) { pending_members_.insert(member_id); }
  bool RemovePendingMember(std::string_view member_id) {
    return pending_members_.erase(std::string(member_id)) > 0;
  }
  size_t pending_members() const { return pending_members_.size(); }
  const std::set<std::string>& pending_member_ids() const { return pending_members_; }

  // The join phase.
  int NumAwaitingJoinResponse() const;
  // Every member has rejoined and nobody was asked to come back with a new id.
  bool AllMembersJoined() const {
    return members_.size() == static_cast<size_t>(NumAwaitingJoinResponse()) &&
           pending_members_.empty();
  }
  // The largest rebalance timeout of the members (0 with none).
  int32_t RebalanceTimeoutMs() const;
  // Whether a member of `protocol_type` offering `protocols` may join: an empty group takes
  // any non-empty type with at least one protocol; otherwise the type must match and one of
  // the protocols must be supported by every member.
  bool SupportsProtocols(std::string_view protocol_type,
                         const std::vector<std::string>& protocol_names) const;
  // The protocol every member supports that most members prefer (Kafka's vote).
  std::string SelectProtocol() const;
  // Generation + 1; the chosen protocol (members left) and CompletingRebalance, or no protocol
  // and Empty.
  void InitNextGeneration(int64_t now_ms);
  // Sets the leader to the first member awaiting its join response, if the leader has not
  // rejoined; false if there is none.
  bool MaybeElectNewJoinedLeader();
  // The newMemberAdded flag of an initial rebalance.
  bool new_member_added() const { return new_member_added_; }
  void set_new_member_added(bool v) { new_member_added_ = v; }

  // The members whose SyncGroup is due after a completed join.
  std::set<std::string>& pending_sync() { return pending_sync_; }

  // For the coordinator's load path: a group as a GroupMetadata record described it.
  void RestoreFromRecord(int32_t generation, std::optional<std::string> protocol_type,
                         std::optional<std::string> protocol_name,
                         std::optional<std::string> leader_id, int64_t state_timestamp,
                         std::vector<ClassicGroupMember> members);
  // For the coordinator: group-level fields set outside a rebalance.
  void set_protocol_type(std::optional<std::string> t) { protocol_type_ = std::move(t); }

 private:
  const std::string group_id_;
  ClassicGroupState state_ = ClassicGroupState::kEmpty;
  ClassicGroupState previous_state_ = ClassicGroupState::kEmpty;
  int64_t state_timestamp_;
  int32_t generation_ = 0;
  std::optional<std::string> protocol_type_;
  std::optional<std::string> protocol_name_;
  std::optional<std::string> leader_id_;
  std::map<std::string, ClassicGroupMember> members_;  // by member id
  std::map<std::string, std::string> static_members_;  // instance id -> member id
  std::set<std::string> pending_members_;
  std::set<std::string> pending_sync_;
  bool new_member_added_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_CLASSIC_GROUP_H_
