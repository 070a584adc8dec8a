// UniformAssignor: KIP-848's default server-side assignor, `uniform` (Kafka's UniformAssignor
// with its UniformHomogeneousAssignmentBuilder and UniformHeterogeneousAssignmentBuilder). It
// balances first and sticks second: the partition counts of any two members differ by at most
// one where the subscriptions allow it, and a member keeps as much of its current assignment
// (AssignmentMemberSpec::assigned) as that balance leaves it.
//
// - Homogeneous groups (every member subscribes to the same topics): the T partitions of the
//   subscribed topics give each member a quota of T / M, one more for the first T % M members
//   in member id order. Each member keeps its current partitions of subscribed topics up to its
//   quota (in topic id, then partition order); the excess and the partitions nobody owns form
//   an unassigned list (the unowned ones first, in topic id and partition order, then the
//   excess in member order), from which the members below quota fill up, in member id order.
// - Heterogeneous groups: each member keeps all its current partitions of topics it subscribes
//   to; each remaining partition goes to the least-loaded subscriber of its topic (topics
//   visited by partitions per subscriber, descending; then subscriber count, ascending; then
//   topic id); then, topic by topic, partitions move from the most-loaded subscribers (their
//   highest partition numbers first) to the least-loaded ones until the topic's subscribers are
//   within one partition of each other, in passes over the topics until a whole pass moves
//   nothing, at most 16 passes. "Load" is a member's partition count over all topics.
//
// Where Kafka's order comes from a Java HashMap or HashSet (members, topics, the partitions of
// one topic), ours is member id order, topic id order (UuidLess, which is Kafka's
// Uuid.compareTo: unsigned, most significant byte first) and ascending partition order.
//
// Thread safety: stateless; Assign may be called from any thread at once.
#ifndef SEGLOG_GROUP_UNIFORM_ASSIGNOR_H_
#define SEGLOG_GROUP_UNIFORM_ASSIGNOR_H_

#include <string_view>

#include "group/server_assignor.h"

namespace seglog {

class UniformAssignor final : public ServerAssignor {
 public:
  static constexpr std::string_view kName = "uniform";

  std::string_view name() const override { return kName; }
  Result<GroupAssignment> Assign(const AssignmentSpec& spec) const override;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_UNIFORM_ASSIGNOR_H_
