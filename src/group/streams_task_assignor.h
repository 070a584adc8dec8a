// `sticky`, the task assignor of Kafka 4.4.0's streams groups
// (streams/assignor/StickyTaskAssignor, ProcessState), the default of
// group.streams.assignors.
//
// Active tasks (one per subtopology partition):
//   1. each stays with the member that had it, while that member is under its quota
//      (ceil(remaining tasks / remaining members), recomputed as members fill up);
//   2. else goes to a member that had it as a standby (or reported offsets for it), the least
//      loaded first, while under its quota;
//   3. the rest, in subtopology then partition order, go to the least-loaded process (load =
//      tasks / members of the process) and, inside it, to its least-loaded member.
// Standby tasks (group.streams.num.standby.replicas per task of a stateful subtopology): never
// on a process that already has the task; first to the previous active owner, then to a
// previous standby (ranked: standbys of the target first, then members that reported offsets,
// most caught-up first), both under the total quota; the rest to the least-loaded processes
// without the task. When no process is left, fewer standbys are assigned (Kafka logs a
// warning). 4.4.0's sticky assigns no warm-up tasks.
//
// Kafka breaks ties between equally loaded processes and members in hash order; here they
// are broken by process id and member id, so assignments can differ from Kafka's where the
// choice is a tie, never in the counts.
//
// Thread safety: pure functions and value types.
#ifndef SEGLOG_GROUP_STREAMS_TASK_ASSIGNOR_H_
#define SEGLOG_GROUP_STREAMS_TASK_ASSIGNOR_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "group/streams_group.h"
#include "seglog/result.h"

namespace seglog {

inline constexpr char kStickyTaskAssignorName[] = "sticky";

// One member as the assignor sees it (Kafka's AssignmentMemberSpec / MemberAssignmentState).
struct StreamsAssignmentMember {
  std::string process_id;
  // The member's tasks in the current target assignment (its warm-ups are ignored).
  StreamsTasks tasks;
  // subtopology -> partition -> offset sum the member reported for the task's state.
  std::map<std::string, std::map<int32_t, int64_t>> task_offsets;
};

struct StreamsAssignmentSpec {
  std::map<std::string, StreamsAssignmentMember> members;  // by member id
  // subtopology -> number of tasks (ConfiguredStreamsSubtopology::number_of_tasks).
  std::map<std::string, int32_t> subtopology_tasks;
  // The subtopologies with state (they get standby tasks).
  std::set<std::string> stateful_subtopologies;
  int32_t num_standby_replicas = 0;  // group.streams.num.standby.replicas
};

// The assignment of every member of the spec (members without tasks included, empty).
using StreamsGroupAssignment = std::map<std::string, StreamsTasks>;

// Runs `sticky` over `spec`. Fails (FailedPrecondition, Kafka's TaskAssignorException
// message "No process available to assign active task ...") only when there are tasks and no
// members.
Result<StreamsGroupAssignment> AssignStreamsTasksSticky(const StreamsAssignmentSpec& spec);

// The spec of a configured topology: its subtopologies' task counts and which are stateful.
void SetStreamsAssignmentTopology(const ConfiguredStreamsTopology& topology,
                                  StreamsAssignmentSpec* spec);

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_TASK_ASSIGNOR_H_
