// The server assignors by name, and the check of an AssignmentSpec they share; see
// server_assignor.h.
#include "group/server_assignor.h"

#include <fmt/format.h>

#include <set>

#include "group/range_assignor.h"
#include "group/uniform_assignor.h"

namespace seglog {

Status CheckAssignmentSpec(const AssignmentSpec& spec) {
  for (const auto& [topic_id, topic] : spec.topics) {
    if (topic.num_partitions < 0) {
      return Status::InvalidArgument(fmt::format("topic {} ({}) has {} partitions",
                                                 topic_id.ToString(), topic.name,
                                                 topic.num_partitions));
    }
  }
  std::set<std::string_view> member_ids;
  for (const AssignmentMemberSpec& member : spec.members) {
    if (!member_ids.insert(member.member_id).second) {
      return Status::InvalidArgument(
          fmt::format("member {} appears twice in the assignment spec", member.member_id));
    }
    for (const Uuid& topic_id : member.subscribed_topic_ids) {
      if (spec.topics.count(topic_id) == 0) {
        return Status::InvalidArgument(fmt::format(
            "Members are subscribed to topic {} which doesn't exist in the topic metadata "
            "(member {})",
            topic_id.ToString(), member.member_id));
      }
    }
  }
  return Status::OK();
}

const ServerAssignor* FindServerAssignor(std::string_view name) {
  // Never destroyed, so that no call races with static destruction at exit.
  static const ServerAssignor* const uniform = new UniformAssignor();
  static const ServerAssignor* const range = new RangeAssignor();
  if (name == UniformAssignor::kName) return uniform;
  if (name == RangeAssignor::kName) return range;
  return nullptr;
}

const ServerAssignor& DefaultServerAssignor() {
  return *FindServerAssignor(UniformAssignor::kName);
}

}  // namespace seglog
