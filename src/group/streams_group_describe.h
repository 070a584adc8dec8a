// StreamsGroupDescribe (KIP-1071, API 89) for one group, as Kafka 4.4.0's
// StreamsGroup.asDescribedGroup builds it: the state by Kafka's name, the epochs, the assignor,
// the topology (the validated one with its decided partition counts when the topology is
// ready, else the one the members sent), and every member with its current and target tasks
// and the task offsets it last reported.
//
// Not done: KIP-1331's topology descriptions, authorized operations (the caller sets them).
//
// Thread safety: functions; the group passed is the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_STREAMS_GROUP_DESCRIBE_H_
#define SEGLOG_GROUP_STREAMS_GROUP_DESCRIBE_H_

#include <string>

#include "group/streams_group.h"
#include "protocol/generated/streams_group_describe_response.h"

namespace seglog {

using StreamsDescribedGroup = protocol::streams_group_describe_response_data::DescribedGroup;

// The description of `group`, computed with the assignor `assignor_name` ("sticky").
StreamsDescribedGroup DescribeStreamsGroup(const StreamsGroup& group,
                                           const std::string& assignor_name);

// The answer for a group id with no group (GROUP_ID_NOT_FOUND "Group <id> not found.") or a
// group of another type (GROUP_ID_NOT_FOUND "Group <id> is not a streams group.").
StreamsDescribedGroup StreamsGroupNotFound(const std::string& group_id, bool other_type);

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_GROUP_DESCRIBE_H_
