// RangeAssignor: KIP-848's server-side `range` assignor (Kafka's RangeAssignor in
// group-coordinator). For each topic with P partitions and the M members that subscribe to it,
// taken in order - static members (with an instance id) first by instance id, then the others
// by member id - each member gets the next contiguous range of P / M partitions, one more for
// the first P % M of them; a topic with fewer partitions than subscribers leaves the last
// ones without any of it. When every member subscribes to the same topics and they have the same
// partition count, each member gets the same partition numbers of every topic
// (co-partitioning, for joins).
//
// It is not sticky: the current assignment (AssignmentMemberSpec::assigned) plays no part, and
// the result depends only on the members' order and subscriptions and the partition counts.
// Kafka 4.4's rack-aware pass needs the partitions' replica racks, which AssignmentTopic does
// not carry; without them Kafka skips that pass too, so the results are the same.
//
// Thread safety: stateless; Assign may be called from any thread at once.
#ifndef SEGLOG_GROUP_RANGE_ASSIGNOR_H_
#define SEGLOG_GROUP_RANGE_ASSIGNOR_H_

#include <string_view>

#include "group/server_assignor.h"

namespace seglog {

class RangeAssignor final : public ServerAssignor {
 public:
  static constexpr std::string_view kName = "range";

  std::string_view name() const override { return kName; }
  Result<GroupAssignment> Assign(const AssignmentSpec& spec) const override;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_RANGE_ASSIGNOR_H_
