// Test support: the first StreamsGroupHeartbeat of a Kafka Streams member, shared by the streams
// group coordinator tests. One subtopology "0" reading topic "in" with one changelog,
// `<group>-store-changelog`, topology epoch 1, member epoch 0 and empty task lists.
//
// Thread safety: a pure function.
#ifndef SEGLOG_GROUP_STREAMS_JOIN_REQUEST_TEST_UTIL_H_
#define SEGLOG_GROUP_STREAMS_JOIN_REQUEST_TEST_UTIL_H_

#include <string>
#include <utility>

#include "protocol/generated/streams_group_heartbeat_request.h"

namespace seglog {

inline protocol::StreamsGroupHeartbeatRequestData StreamsJoinRequest(
    const std::string& member, const std::string& group = "app") {
  protocol::StreamsGroupHeartbeatRequestData r;
  r.group_id = group;
  r.member_id = member;
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 30000;
  r.process_id = "process-" + member;
  protocol::StreamsGroupHeartbeatRequestData::Topology t;
  t.epoch = 1;
  auto& s = t.subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = {"in"};
  auto& cl = s.state_changelog_topics.emplace_back();
  cl.name = group + "-store-changelog";
  r.topology = std::move(t);
  r.active_tasks.emplace();
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  return r;
}

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_JOIN_REQUEST_TEST_UTIL_H_
