// Tests for replaying streams-group records: the records a run of heartbeats writes, decoded
// and replayed into an empty shard, give back the same groups (epochs, topology, members,
// targets, state); tombstones delete; a current assignment that names another member's active
// task is skipped.
#include "group/streams_group_load.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "group/streams_group_describe.h"
#include "group/streams_group_heartbeat.h"
#include "protocol/protocol_writer.h"

namespace seglog {
namespace {

using Request = protocol::StreamsGroupHeartbeatRequestData;

class Shard {
 public:
  StreamsGroupReplayTarget Target() {
    StreamsGroupReplayTarget t;
    t.group = [this](const std::string& id, bool create) -> StreamsGroup* {
      auto it = groups.find(id);
      if (it != groups.end()) return it->second.get();
      if (!create) return nullptr;
      return groups.emplace(id, std::make_unique<StreamsGroup>(id)).first->second.get();
    };
    t.remove_group = [this](const std::string& id) { groups.erase(id); };
    return t;
  }

  std::string Replay(const std::vector<OffsetsRecord>& records) {
    std::string warnings;
    for (const auto& r : records) {
      std::optional<std::span<const uint8_t>> value;
      if (r.value) value = *r.value;
      auto decoded = DecodeStreamsGroupRecord(r.key, value);
      EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
      if (!decoded.ok()) continue;
      warnings += ReplayStreamsGroupRecord(*decoded, Target());
    }
    return warnings;
  }

  std::map<std::string, std::unique_ptr<StreamsGroup>> groups;
};

Request Join(const std::string& member, const std::string& process) {
  Request r;
  r.group_id = "app";
  r.member_id = member;
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 30000;
  r.process_id = process;
  r.user_endpoint.emplace();
  r.user_endpoint->host = "h-" + process;
  r.user_endpoint->port = 8080;
  r.client_tags.emplace();
  r.client_tags->push_back({});
  r.client_tags->back().key = "zone";
  r.client_tags->back().value = "a";
  r.topology.emplace();
  r.topology->epoch = 1;
  auto& s = r.topology->subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = {"in"};
  s.state_changelog_topics.emplace_back().name = "app-store-changelog";
  r.active_tasks.emplace();
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  return r;
}

Request Beat(const std::string& member, int32_t epoch, std::vector<int32_t> active) {
  Request r;
  r.group_id = "app";
  r.member_id = member;
  r.member_epoch = epoch;
  r.active_tasks.emplace();
  if (!active.empty()) {
    auto& t = r.active_tasks->emplace_back();
    t.subtopology_id = "0";
    t.partitions = std::move(active);
  }
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  return r;
}

void ExpectSameGroup(const StreamsGroup& a, const StreamsGroup& b) {
  EXPECT_EQ(a.group_epoch(), b.group_epoch());
  EXPECT_EQ(a.assignment_epoch(), b.assignment_epoch());
  EXPECT_EQ(a.assignment_timestamp_ms(), b.assignment_timestamp_ms());
  EXPECT_EQ(a.metadata_hash(), b.metadata_hash());
  EXPECT_EQ(a.validated_topology_epoch(), b.validated_topology_epoch());
  EXPECT_EQ(a.last_assignment_configs(), b.last_assignment_configs());
  EXPECT_EQ(a.topology(), b.topology());
  EXPECT_EQ(a.members(), b.members());
  EXPECT_EQ(a.target_assignment(), b.target_assignment());
  EXPECT_EQ(a.state(), b.state());
}

TEST(StreamsGroupLoadTest, RecordsOfHeartbeatsReplayToTheSameGroup) {
  GroupCoordinatorConfig config;
  config.streams.initial_rebalance_delay_ms = 0;  // every target at once
  config.streams.assignment_interval_ms = 0;
  config.streams.num_standby_replicas = 1;
  TopicPartitionCounts topics{{"in", 4}, {"app-store-changelog", 4}};
  StreamsGroupHeartbeatContext ctx;
  ctx.config = &config;
  ctx.client_id = "c";
  ctx.client_host = "/10.0.0.1";
  ctx.topics = &topics;
  ctx.now_ms = 1000;

  StreamsGroup live("app");
  std::vector<OffsetsRecord> log;
  bool exists = false;
  auto run = [&](const Request& r) {
    auto result = StreamsGroupHeartbeat(&live, exists, 1, r, ctx);
    EXPECT_EQ(result.response.error_code, 0) << result.response.error_message.value_or("");
    exists = true;
    log.insert(log.end(), result.records.begin(), result.records.end());
    ctx.now_ms += 100;
    return result.response;
  };
  run(Join("m1", "p1"));
  run(Join("m2", "p2"));
  auto r = run(Beat("m1", 2, {0, 1, 2, 3}));  // told to revoke some
  std::vector<int32_t> kept;
  for (const auto& t : *r.active_tasks) kept = t.partitions;
  run(Beat("m1", 2, kept));
  // A few rounds more, each member reporting what it has, until everything is released.
  for (int round = 0; round < 3; ++round) {
    for (const char* id : {"m1", "m2"}) {
      const StreamsGroupMember* m = live.FindMember(id);
      std::vector<int32_t> active;
      auto it = m->assigned_tasks.active.find("0");
      if (it != m->assigned_tasks.active.end()) {
        for (const auto& [p, epoch] : it->second) active.push_back(p);
      }
      run(Beat(id, m->member_epoch, active));
    }
  }

  Shard shard;
  EXPECT_EQ(shard.Replay(log), "");
  ASSERT_EQ(shard.groups.size(), 1u);
  ExpectSameGroup(*shard.groups.at("app"), live);
  EXPECT_EQ(live.state(), StreamsGroupState::kStable);

  // The description: state, epochs, the validated topology, members with their tasks.
  const StreamsDescribedGroup d = DescribeStreamsGroup(live, "sticky");
  EXPECT_EQ(d.group_state, "Stable");
  EXPECT_EQ(d.group_epoch, live.group_epoch());
  EXPECT_EQ(d.assignor_name, "sticky");
  ASSERT_TRUE(d.topology.has_value());
  ASSERT_EQ(d.topology->subtopologies->size(), 1u);
  ASSERT_EQ((*d.topology->subtopologies)[0].state_changelog_topics.size(), 1u);
  EXPECT_EQ((*d.topology->subtopologies)[0].state_changelog_topics[0].partitions, 4);
  ASSERT_EQ(d.members.size(), 2u);
  EXPECT_EQ(d.members[0].member_id, "m1");
  EXPECT_EQ(d.members[0].user_endpoint->host, "h-p1");
  EXPECT_EQ(d.members[0].client_tags[0].value, "a");
  int active = 0;
  int standby = 0;
  for (const auto& m : d.members) {
    for (const auto& t : m.assignment.active_tasks) active += static_cast<int>(t.partitions.size());
    for (const auto& t : m.assignment.standby_tasks) {
      standby += static_cast<int>(t.partitions.size());
    }
    EXPECT_EQ(m.assignment.active_tasks.size(), m.target_assignment.active_tasks.size());
  }
  EXPECT_EQ(active, 4);
  EXPECT_EQ(standby, 4);  // one standby per task, on the other process
  protocol::ProtocolWriter w;
  protocol::StreamsGroupDescribeResponseData response;
  response.groups.push_back(d);
  response.groups.push_back(StreamsGroupNotFound("x", true));
  EXPECT_TRUE(response.Encode(&w, 0).ok());
  EXPECT_EQ(response.groups[1].error_message, "Group x is not a streams group.");
  EXPECT_EQ(StreamsGroupNotFound("x", false).error_message, "Group x not found.");

  // The member leaves: its tombstones replay too.
  std::vector<OffsetsRecord> leave = FenceStreamsGroupMember(&live, "m2", ctx);
  EXPECT_EQ(shard.Replay(leave), "");
  ExpectSameGroup(*shard.groups.at("app"), live);

  // The group's deletion.
  EXPECT_EQ(shard.Replay(StreamsGroupTombstones(live)), "");
  EXPECT_TRUE(shard.groups.empty());
}

TEST(StreamsGroupLoadTest, ConflictingCurrentAssignmentIsSkipped) {
  StreamsGroupMember a;
  a.member_id = "a";
  a.process_id = "p1";
  a.member_epoch = 1;
  a.assigned_tasks.active["0"] = {{0, 1}};
  StreamsGroupMember b = a;
  b.member_id = "b";
  b.process_id = "p2";
  Shard shard;
  EXPECT_EQ(shard.Replay({StreamsGroupCurrentMemberAssignmentRecord("g", a)}), "");
  EXPECT_EQ(shard.Replay({StreamsGroupCurrentMemberAssignmentRecord("g", b)}),
            "Skipping the current assignment of member b of streams group g: it names active "
            "tasks another member has");
  EXPECT_EQ(shard.groups.at("g")->FindMember("b"), nullptr);
  // a moving its own task keeps working.
  a.member_epoch = 2;
  EXPECT_EQ(shard.Replay({StreamsGroupCurrentMemberAssignmentRecord("g", a)}), "");
  EXPECT_EQ(shard.groups.at("g")->FindMember("a")->member_epoch, 2);
}

}  // namespace
}  // namespace seglog
