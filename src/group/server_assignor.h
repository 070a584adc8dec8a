// ServerAssignor: the server-side partition assignors of KIP-848's consumer groups, which the
// group coordinator runs whenever a group's epoch moves past its assignment epoch: `uniform`
// (Kafka's UniformAssignor, the default, sticky: members keep what they have up to their
// share) and `range` (Kafka's RangeAssignor: contiguous ranges per topic, co-partitioned
// topics land together). Members name one with ConsumerGroupHeartbeat's ServerAssignor
// (`group.remote.assignor` on the Java client).
//
// Thread safety: the assignors are stateless and may be called from any thread at once.
#ifndef SEGLOG_GROUP_SERVER_ASSIGNOR_H_
#define SEGLOG_GROUP_SERVER_ASSIGNOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "group/topic_partitions.h"
#include "seglog/result.h"

namespace seglog {

// One member as an assignor sees it (Kafka's MemberSubscriptionAndAssignmentImpl).
struct AssignmentMemberSpec {
  std::string member_id;
  std::optional<std::string> instance_id;  // static membership
  std::optional<std::string> rack_id;
  TopicIdSet subscribed_topic_ids;  // only topics that exist
  TopicPartitions assigned;         // its current target assignment (what stickiness keeps)
};

// A subscribed topic as the metadata describes it (Kafka's SubscribedTopicDescriber).
struct AssignmentTopic {
  std::string name;
  int32_t num_partitions = 0;
};

// Everything an assignment is computed from (Kafka's GroupSpec + SubscribedTopicDescriber).
struct AssignmentSpec {
  std::vector<AssignmentMemberSpec> members;         // ordered by member id
  std::map<Uuid, AssignmentTopic, UuidLess> topics;  // every topic some member subscribes to
};

// The target assignment: member id -> partitions, one entry per member of the spec (empty
// for a member that gets nothing). Every partition of a subscribed topic goes to exactly one
// member that subscribes to it, when any does.
using GroupAssignment = std::map<std::string, TopicPartitions>;

class ServerAssignor {
 public:
  virtual ~ServerAssignor() = default;
  virtual std::string_view name() const = 0;
  // InvalidArgument (Kafka's PartitionAssignorException) when the spec names a topic that
  // `topics` lacks.
  virtual Result<GroupAssignment> Assign(const AssignmentSpec& spec) const = 0;
};

// OK, or InvalidArgument when a member subscribes to a topic id that `spec.topics` lacks
// (Kafka's PartitionAssignorException: "Members are subscribed to topic ... which doesn't exist
// in the topic metadata"), a topic has a negative partition count, or two members share a member
// id. Every assignor checks this before it assigns anything.
Status CheckAssignmentSpec(const AssignmentSpec& spec);

// "uniform" or "range"; nullptr for any other name.
const ServerAssignor* FindServerAssignor(std::string_view name);
// The default of group.consumer.assignors' first entry: "uniform".
const ServerAssignor& DefaultServerAssignor();

}  // namespace seglog

#endif  // SEGLOG_GROUP_SERVER_ASSIGNOR_H_
