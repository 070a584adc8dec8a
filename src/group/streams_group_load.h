// Replaying the streams-group records of __consumer_offsets (types 17-23) into streams groups
// at load, as Kafka's GroupMetadataManager.replay does for them. Pure over the groups the
// caller owns: the group coordinator's load (group_coordinator_load.cc) decodes a record with
// DecodeStreamsGroupRecord and hands it here with its own group lookup, so the shard keeps
// its maps (and the rule that a group id lives in one of them).
//
// After a load a group has no configured topology: its first heartbeat validates the topology
// against the topics of that moment (StreamsGroupHeartbeat does it when none is configured).
//
// Thread safety: functions; the groups are the caller's (under its shard's mutex).
#ifndef SEGLOG_GROUP_STREAMS_GROUP_LOAD_H_
#define SEGLOG_GROUP_STREAMS_GROUP_LOAD_H_

#include <functional>
#include <string>

#include "group/streams_group.h"
#include "group/streams_group_records.h"

namespace seglog {

struct StreamsGroupReplayTarget {
  // The streams group `id`; with `create`, made (empty) when missing, after the caller drops
  // any group of another type with that id. nullptr when missing and not `create`.
  std::function<StreamsGroup*(const std::string& id, bool create)> group;
  // Removes the streams group `id` (its metadata tombstone), if it exists.
  std::function<void(const std::string& id)> remove_group;
};

// Applies one record. Returns an empty string, or the reason the record was skipped (records
// that disagree, such as a current assignment naming an active task another member holds,
// where Kafka fails the load with IllegalStateException): the caller logs it and goes on.
std::string ReplayStreamsGroupRecord(const LoadedStreamsGroupRecord& record,
                                     const StreamsGroupReplayTarget& target);

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_GROUP_LOAD_H_
