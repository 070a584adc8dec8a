// SimpleAssignor: the share groups' server-side assignor ("simple", group.share.assignors'
// only value in Kafka 4.4.0), after Kafka's assignor/SimpleAssignor and its two builders:
//
//   homogeneous    (every member subscribes to the same topics) the partitions of all the
//                  subscribed topics form one pool
//   heterogeneous  each topic's partitions are shared out among the members subscribed to it
//
// Within a pool of P partitions and M members (SimpleHomogeneousAssignmentBuilder's numbers):
// every partition goes to S = ceil(M / P) members (several when members outnumber
// partitions: share groups may do that), and member i of the M (ordered by member id) gets
// ceil(S*P*(i+1)/M) - ceil(S*P*i/M) of the S*P assignments, so the counts differ by at most
// one. It is sticky: a member keeps what its previous target gave it as long as that stays
// within its count and the partition's S; the rest is handed out in order. Deterministic: the
// same input gives the same output (Kafka's iteration follows hash maps; the shape is the
// same, the choice of partitions may differ).
//
// Thread safety: pure functions.
#ifndef SEGLOG_GROUP_SIMPLE_ASSIGNOR_H_
#define SEGLOG_GROUP_SIMPLE_ASSIGNOR_H_

#include <map>
#include <string>

#include "group/topic_partitions.h"

namespace seglog {

inline constexpr const char* kSimpleAssignorName = "simple";

struct SimpleAssignorInput {
  // member id -> the ids of the topics it subscribes to (topics that exist).
  std::map<std::string, TopicIdSet> members;
  // The partitions that may be assigned (a share group: those whose share state exists).
  TopicPartitions assignable;
  // The previous target assignment, for stickiness (members not in `members` are ignored).
  std::map<std::string, TopicPartitions> previous;
};

// The new target of every member of `in.members` (an empty TopicPartitions for one that gets
// nothing). `homogeneous`: every member subscribes to the same topics.
std::map<std::string, TopicPartitions> SimpleAssign(const SimpleAssignorInput& in,
                                                    bool homogeneous);

}  // namespace seglog

#endif  // SEGLOG_GROUP_SIMPLE_ASSIGNOR_H_
