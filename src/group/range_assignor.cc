// RangeAssignor; see range_assignor.h.
#include "group/range_assignor.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace seglog {
namespace {

// Kafka's sortMemberIds: static members first, by instance id; then the others by member id.
// Two static members with one instance id (which Kafka's coordinator never lets happen) fall
// back to member id order, where Kafka's stable sort keeps its HashMap order. std::string
// compares bytes where Java's String.compareTo compares UTF-16 units: the same order for
// every id without characters above U+FFFF.
bool MemberBefore(const AssignmentMemberSpec* a, const AssignmentMemberSpec* b) {
  if (a->instance_id.has_value() != b->instance_id.has_value()) {
    return a->instance_id.has_value();
  }
  if (a->instance_id.has_value() && *a->instance_id != *b->instance_id) {
    return *a->instance_id < *b->instance_id;
  }
  return a->member_id < b->member_id;
}

}  // namespace

Result<GroupAssignment> RangeAssignor::Assign(const AssignmentSpec& spec) const {
  SEGLOG_RETURN_IF_ERROR(CheckAssignmentSpec(spec));

  std::vector<const AssignmentMemberSpec*> members;
  for (const AssignmentMemberSpec& member : spec.members) members.push_back(&member);
  std::sort(members.begin(), members.end(), MemberBefore);

  // Each topic's subscribers, in that order.
  std::map<Uuid, std::vector<const AssignmentMemberSpec*>, UuidLess> subscribers;
  for (const AssignmentMemberSpec* member : members) {
    for (const Uuid& topic_id : member->subscribed_topic_ids) {
      subscribers[topic_id].push_back(member);
    }
  }

  GroupAssignment assignment;
  for (const AssignmentMemberSpec* member : members) assignment[member->member_id];
  for (const auto& [topic_id, topic_subscribers] : subscribers) {
    const int32_t num_partitions = spec.topics.find(topic_id)->second.num_partitions;
    const auto num_subscribers = static_cast<int32_t>(topic_subscribers.size());
    const int32_t min_quota = num_partitions / num_subscribers;
    int32_t members_with_extra = num_partitions % num_subscribers;
    int32_t next = 0;
    for (const AssignmentMemberSpec* member : topic_subscribers) {
      int32_t quota = min_quota;
      if (members_with_extra > 0) {
        ++quota;
        --members_with_extra;
      }
      if (quota == 0) continue;
      std::set<int32_t>& partitions = assignment[member->member_id][topic_id];
      for (int32_t partition = next; partition < next + quota; ++partition) {
        partitions.insert(partitions.end(), partition);
      }
      next += quota;
    }
  }
  return assignment;
}

}  // namespace seglog
