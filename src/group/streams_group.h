// StreamsGroup: one group of KIP-1071's streams protocol (StreamsGroupHeartbeat) as Kafka
// 4.4.0's group coordinator keeps it (streams/StreamsGroup, StreamsGroupMember,
// CurrentAssignmentBuilder): the group epoch, the topology and its validation, the target
// assignment and its epoch, and every member with its process, endpoint, client tags, its
// current tasks (active tasks with the epoch each was assigned at; standby and warm-up tasks)
// and the tasks it still has to revoke.
//
// A task is (subtopology id, partition). The reconciliation moves one member from its current
// tasks to its target, one safe step at a time, as for consumer groups:
//
//   STABLE            the member has its target at the target's epoch
//   UNREVOKED_TASKS   it owns tasks the target moved elsewhere: it stays at its epoch, with
//                     them pending revocation, until a heartbeat no longer lists them
//   UNRELEASED_TASKS  it is at the target epoch, but some of its new tasks are still held: an
//                     active task by any member, a standby or warm-up task by a member of the
//                     same process (as active, standby or warm-up)
//
// Group states (StreamsGroup.StreamsGroupState, printed "Empty", "NotReady", "Assigning",
// "Reconciling", "Stable", "Dead"): Empty (no members), NotReady (no topology, or its epoch is
// not the validated topology epoch: its validation failed or left internal topics missing),
// Assigning (group epoch ahead of the assignment epoch), Reconciling (a member not yet at the
// assignment epoch or not stable), Stable.
//
// Thread safety: not thread-safe; its GroupCoordinator shard's mutex guards it.
#ifndef SEGLOG_GROUP_STREAMS_GROUP_H_
#define SEGLOG_GROUP_STREAMS_GROUP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "group/streams_topology.h"
#include "seglog/result.h"

namespace seglog {

// subtopology id -> partitions (Kafka's Map<String, Set<Integer>>).
using StreamsTaskSet = std::map<std::string, std::set<int32_t>>;
// subtopology id -> partition -> the epoch the member was assigned the active task at.
using StreamsEpochTasks = std::map<std::string, std::map<int32_t, int32_t>>;

// Kafka's TasksTuple: the active, standby and warm-up tasks of a member.
struct StreamsTasks {
  StreamsTaskSet active;
  StreamsTaskSet standby;
  StreamsTaskSet warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  bool operator==(const StreamsTasks&) const = default;
};

// Kafka's TasksTupleWithEpochs: as StreamsTasks, with the active tasks' assignment epochs.
struct StreamsTasksWithEpochs {
  StreamsEpochTasks active;
  StreamsTaskSet standby;
  StreamsTaskSet warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  StreamsTasks Tasks() const;  // without the epochs
  bool operator==(const StreamsTasksWithEpochs&) const = default;
};

// The member states as StreamsGroupCurrentMemberAssignmentValue.State stores them.
enum class StreamsMemberState : int8_t {
  kStable = 0,
  kUnrevokedTasks = 1,
  kUnreleasedTasks = 2,
  kUnknown = 127,  // a value this build does not know (read from a record)
};
// "STABLE", "UNREVOKED_TASKS", "UNRELEASED_TASKS", "UNKNOWN".
std::string_view StreamsMemberStateName(StreamsMemberState state);
StreamsMemberState StreamsMemberStateFromValue(int8_t value);

struct StreamsEndpoint {
  std::string host;
  uint16_t port = 0;
  bool operator==(const StreamsEndpoint&) const = default;
};

struct StreamsGroupMember {
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  StreamsMemberState state = StreamsMemberState::kStable;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;  // "/127.0.0.1"
  int32_t rebalance_timeout_ms = -1;
  int32_t topology_epoch = 0;
  std::string process_id;
  std::optional<StreamsEndpoint> user_endpoint;
  std::map<std::string, std::string> client_tags;  // written sorted by key, as Kafka's
  StreamsTasksWithEpochs assigned_tasks;
  StreamsTasksWithEpochs tasks_pending_revocation;
  bool operator==(const StreamsGroupMember&) const = default;
};

enum class StreamsGroupState { kEmpty, kNotReady, kAssigning, kReconciling, kStable, kDead };
// Kafka's names: "Empty", "NotReady", "Assigning", "Reconciling", "Stable", "Dead".
std::string_view StreamsGroupStateName(StreamsGroupState state);

// The offsets a member last reported for its tasks' state (TaskOffsets: the changelog offset
// sums it has locally; TaskEndOffsets: the end offsets of its active tasks), by subtopology
// and partition. Kept in memory only, as Kafka's MemberTaskOffsets.
struct StreamsMemberTaskOffsets {
  std::map<std::string, std::map<int32_t, int64_t>> task_offsets;
  std::map<std::string, std::map<int32_t, int64_t>> task_end_offsets;
  bool operator==(const StreamsMemberTaskOffsets&) const = default;
};

// Who holds a task now (assigned or pending revocation), for the reconciliation: Kafka's
// currentActiveTaskProcessId / currentStandbyTaskProcessIds / currentWarmupTaskProcessIds.
struct StreamsTaskOwners {
  // The process of the member holding the active task; nullopt when free.
  std::function<std::optional<std::string>(const std::string&, int32_t)> active_process;
  // The processes of the members holding the standby (warm-up) task; empty when none.
  std::function<std::set<std::string>(const std::string&, int32_t)> standby_processes;
  std::function<std::set<std::string>(const std::string&, int32_t)> warmup_processes;
};

// One reconciliation step of `member` towards `target` at `target_epoch` (Kafka's streams
// CurrentAssignmentBuilder.build). `owned` is what the heartbeat says the member owns;
// nullopt when it did not say. A member in the UNKNOWN state that owns tasks (or did not say)
// fails with InvalidArgument("FENCED_MEMBER_EPOCH: The streams group member is in a unknown
// state. The member must abandon all its tasks and rejoin.").
Result<StreamsGroupMember> ReconcileStreamsMember(const StreamsGroupMember& member,
                                                  int32_t target_epoch, const StreamsTasks& target,
                                                  const std::optional<StreamsTasks>& owned,
                                                  const StreamsTaskOwners& owners);

class StreamsGroup {
 public:
  explicit StreamsGroup(std::string group_id) : group_id_(std::move(group_id)) {}

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  void set_group_epoch(int32_t epoch) { group_epoch_ = epoch; }
  int32_t assignment_epoch() const { return assignment_epoch_; }
  void set_assignment_epoch(int32_t epoch) { assignment_epoch_ = epoch; }
  int64_t assignment_timestamp_ms() const { return assignment_timestamp_ms_; }
  void set_assignment_timestamp_ms(int64_t ms) { assignment_timestamp_ms_ = ms; }
  int64_t metadata_hash() const { return metadata_hash_; }
  void set_metadata_hash(int64_t hash) { metadata_hash_ = hash; }
  // StreamsGroupMetadataValue's tagged fields (-1: none).
  int32_t validated_topology_epoch() const { return validated_topology_epoch_; }
  void set_validated_topology_epoch(int32_t epoch) { validated_topology_epoch_ = epoch; }
  const std::map<std::string, std::string>& last_assignment_configs() const {
    return last_assignment_configs_;
  }
  void set_last_assignment_configs(std::map<std::string, std::string> c) {
    last_assignment_configs_ = std::move(c);
  }

  // The topology the members run (record 23); nullopt before the first member sent one.
  const std::optional<StreamsTopology>& topology() const { return topology_; }
  void SetTopology(std::optional<StreamsTopology> topology) { topology_ = std::move(topology); }
  // The topology validated against the topic metadata (ConfigureStreamsTopology).
  const std::optional<ConfiguredStreamsTopology>& configured_topology() const {
    return configured_topology_;
  }
  void SetConfiguredTopology(std::optional<ConfiguredStreamsTopology> c) {
    configured_topology_ = std::move(c);
  }

  // The member that asked the whole application to shut down (ShutdownApplication), if any:
  // every member then gets the SHUTDOWN_APPLICATION status. Not persisted, as in Kafka;
  // forgotten when the group becomes empty.
  const std::optional<std::string>& shutdown_request_member_id() const {
    return shutdown_request_member_id_;
  }
  void set_shutdown_request_member_id(std::string id) { shutdown_request_member_id_ = id; }
  // Moves when a member with a user endpoint gets new tasks (Kafka's endpoint information
  // epoch; not persisted).
  int32_t endpoint_information_epoch() const { return endpoint_information_epoch_; }
  void set_endpoint_information_epoch(int32_t e) { endpoint_information_epoch_ = e; }

  StreamsGroupState state() const;
  bool dead() const { return dead_; }
  void MarkDead() { dead_ = true; }

  const std::map<std::string, StreamsGroupMember>& members() const { return members_; }
  const StreamsGroupMember* FindMember(const std::string& member_id) const;
  std::optional<std::string> StaticMemberId(const std::string& instance_id) const;
  // Adds or replaces a member, keeping the task-owner indexes and the static index current.
  // REQUIRES: no other member holds any of `member`'s active tasks (ReconcileStreamsMember
  // keeps that true); a breach is a programming error and aborts, as Kafka's
  // addTaskProcessId throws IllegalStateException.
  void UpdateMember(StreamsGroupMember member);
  // Removes the member if it exists. Its target stays: the caller removes it with RemoveTarget.
  void RemoveMember(const std::string& member_id);

  // The task offsets a member last reported (empty if none); forgotten with the member.
  const StreamsMemberTaskOffsets& TaskOffsetsOf(const std::string& member_id) const;
  void SetTaskOffsets(const std::string& member_id, StreamsMemberTaskOffsets offsets);

  const std::map<std::string, StreamsTasks>& target_assignment() const { return targets_; }
  const StreamsTasks& TargetOf(const std::string& member_id) const;  // empty if none
  void SetTarget(const std::string& member_id, StreamsTasks target);
  void RemoveTarget(const std::string& member_id);

  // The current owners of every task, for ReconcileStreamsMember. The functions refer to this
  // group: valid while it lives and is not changed.
  StreamsTaskOwners Owners() const;

 private:
  void AddOwners(const StreamsGroupMember& m);
  void RemoveOwners(const StreamsGroupMember& m);

  std::string group_id_;
  // Kafka 4.4.0's StreamsGroup starts at group epoch 1 and target assignment epoch 1
  // (TargetAssignmentMetadata.INITIAL): the first join bumps the group to 2, and a member held
  // back by the initial rebalance delay reconciles to epoch 1, not 0 (which a client would
  // take as "join again").
  int32_t group_epoch_ = 1;
  int32_t assignment_epoch_ = 1;
  int64_t assignment_timestamp_ms_ = 0;
  int64_t metadata_hash_ = 0;
  int32_t validated_topology_epoch_ = -1;
  std::map<std::string, std::string> last_assignment_configs_;
  bool dead_ = false;
  std::optional<std::string> shutdown_request_member_id_;
  int32_t endpoint_information_epoch_ = 0;
  std::optional<StreamsTopology> topology_;
  std::optional<ConfiguredStreamsTopology> configured_topology_;
  std::map<std::string, StreamsGroupMember> members_;
  std::map<std::string, StreamsTasks> targets_;
  std::map<std::string, StreamsMemberTaskOffsets> task_offsets_;
  std::map<std::string, std::string> static_members_;  // instance id -> member id
  // (subtopology, partition) -> the process of the active owner.
  std::map<std::pair<std::string, int32_t>, std::string> active_owner_;
  // (subtopology, partition) -> process -> how many members of it hold the task.
  std::map<std::pair<std::string, int32_t>, std::map<std::string, int>> standby_owners_;
  std::map<std::pair<std::string, int32_t>, std::map<std::string, int>> warmup_owners_;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_GROUP_H_
