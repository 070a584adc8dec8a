// Tests for ShareGroupHeartbeat as a function (share_group_heartbeat.h): the request checks
// with Kafka's messages, members given only initialized partitions, the epoch bump when
// partitions become initialized, the initialization asked again once
// group.share.initialize.retry.interval.ms passed, the epoch fencing, the assignment
// interval, and the tombstones of a deleted group in Kafka's order.
#include "group/share_group_heartbeat.h"

#include <gtest/gtest.h>

#include "base/coding.h"
#include "group/share_group_records.h"
#include "protocol/kafka_error.h"
#include "tests/support/bytes.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
using Req = protocol::ShareGroupHeartbeatRequestData;

class ShareGroupHeartbeatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.group_share_assignment_interval_ms = 0;
    ctx_.now_ms = 1000000;
    ctx_.config = &config_;
    ctx_.client_id = "client";
    ctx_.client_host = "/127.0.0.1";
    ctx_.topic_by_name = [this](const std::string& name) -> std::optional<ConsumerGroupTopic> {
      if (name == "t") return ConsumerGroupTopic{t_, "t", 2};
      return std::nullopt;
    };
  }
  Req Request(const std::string& member, int32_t epoch,
              std::optional<std::vector<std::string>> topics = std::nullopt) {
    Req r;
    r.group_id = "g";
    r.member_id = member;
    r.member_epoch = epoch;
    r.subscribed_topic_names = std::move(topics);
    return r;
  }
  ShareGroupHeartbeatResult Beat(const Req& req) {
    ShareGroupHeartbeatResult r = ShareGroupHeartbeat(&group_, exists_, req, ctx_);
    if (r.response.error_code == ke::kNone) exists_ = true;
    return r;
  }
  void MarkInitialized(const std::set<int32_t>& partitions) {
    ShareGroupStatePartitions sp = group_.state_partitions().value_or(ShareGroupStatePartitions{});
    sp.initializing.erase(t_);
    sp.initialized[t_] = ShareStateTopic{"t", partitions, 0};
    group_.set_state_partitions(sp);
  }

  Uuid t_ = testing::TestUuid(7);
  GroupCoordinatorConfig config_;
  ShareGroupHeartbeatContext ctx_;
  ShareGroup group_{"g"};
  bool exists_ = false;
};

TEST_F(ShareGroupHeartbeatTest, RequestChecksAnswerKafkasMessages) {
  auto message = [](const Req& r) {
    std::optional<protocol::ShareGroupHeartbeatResponseData> e = ValidateShareGroupHeartbeat(r);
    EXPECT_TRUE(e.has_value());
    if (!e) return std::string();
    EXPECT_EQ(e->error_code, ke::kInvalidRequest);
    return e->error_message.value_or("");
  };
  EXPECT_EQ(message(Request("", 0, {{"t"}})), "MemberId can't be empty.");
  Req no_group = Request("m", 0, {{"t"}});
  no_group.group_id = " ";
  EXPECT_EQ(message(no_group), "GroupId can't be empty.");
  Req rack = Request("m", 0, {{"t"}});
  rack.rack_id = "";
  EXPECT_EQ(message(rack), "RackId can't be empty.");
  EXPECT_EQ(message(Request("m", 0)), "SubscribedTopicNames must be set in first request.");
  EXPECT_EQ(message(Request("m", 0, std::vector<std::string>{})),
            "SubscribedTopicNames must be set in first request.");
  EXPECT_EQ(message(Request("m", -2)), "MemberEpoch is invalid.");
  EXPECT_FALSE(ValidateShareGroupHeartbeat(Request("m", 3)).has_value());
  EXPECT_FALSE(ValidateShareGroupHeartbeat(Request("m", -1)).has_value());
}

TEST_F(ShareGroupHeartbeatTest, OnlyInitializedPartitionsAreAssigned) {
  ShareGroupHeartbeatResult r = Beat(Request("m", 0, {{"t"}}));
  ASSERT_EQ(r.response.error_code, ke::kNone);
  EXPECT_EQ(r.response.member_epoch, 1);
  ASSERT_TRUE(r.response.assignment.has_value());
  EXPECT_TRUE(r.response.assignment->topic_partitions.empty());  // nothing initialized yet
  // Both partitions are to be initialized, recorded as initializing at the group epoch.
  ASSERT_EQ(r.to_initialize.size(), 1u);
  EXPECT_EQ(r.to_initialize.begin()->second.partitions, (std::set<int32_t>{0, 1}));
  EXPECT_EQ(r.state_epoch, 1);
  ASSERT_TRUE(group_.state_partitions().has_value());
  EXPECT_EQ(group_.state_partitions()->initializing.at(t_).partitions, (std::set<int32_t>{0, 1}));
  // Records: 10, 11, 13, 12, 14, 15.
  std::vector<int16_t> types;
  for (const OffsetsRecord& rec : r.records) types.push_back(LoadBEInt16(rec.key.data()));
  EXPECT_EQ(types, (std::vector<int16_t>{10, 11, 13, 12, 14, 15}));

  // Still initializing: a heartbeat asks nothing again and assigns nothing.
  r = Beat(Request("m", 1));
  EXPECT_TRUE(r.to_initialize.empty());
  EXPECT_EQ(r.response.member_epoch, 1);

  // Initialized: the next heartbeat bumps the epoch and gives the member both partitions.
  MarkInitialized({0, 1});
  r = Beat(Request("m", 1));
  ASSERT_EQ(r.response.error_code, ke::kNone);
  EXPECT_EQ(r.response.member_epoch, 2);
  ASSERT_TRUE(r.response.assignment.has_value());
  ASSERT_EQ(r.response.assignment->topic_partitions.size(), 1u);
  EXPECT_EQ(r.response.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
  // Nothing changed: no assignment in the answer, no records.
  r = Beat(Request("m", 2));
  EXPECT_FALSE(r.response.assignment.has_value());
  EXPECT_TRUE(r.records.empty());
}

TEST_F(ShareGroupHeartbeatTest, InitializationIsAskedAgainAfterTheRetryInterval) {
  ASSERT_EQ(Beat(Request("m", 0, {{"t"}})).to_initialize.size(), 1u);
  ctx_.now_ms += config_.group_share_initialize_retry_interval_ms - 1;
  EXPECT_TRUE(Beat(Request("m", 1)).to_initialize.empty());
  ctx_.now_ms += 1;
  ShareGroupHeartbeatResult r = Beat(Request("m", 1));
  ASSERT_EQ(r.to_initialize.size(), 1u);
  EXPECT_EQ(r.to_initialize.begin()->second.partitions, (std::set<int32_t>{0, 1}));
  EXPECT_EQ(group_.state_partitions()->initializing.at(t_).timestamp_ms, ctx_.now_ms);
}

TEST_F(ShareGroupHeartbeatTest, CompletionMovesOrDropsInitializingPartitions) {
  ShareGroupHeartbeatResult r = Beat(Request("m", 0, {{"t"}}));
  ShareGroup failed = group_;
  ASSERT_TRUE(CompleteShareStateInitialization(&failed, r.to_initialize, false).has_value());
  EXPECT_TRUE(failed.state_partitions()->initializing.empty());
  EXPECT_TRUE(failed.state_partitions()->initialized.empty());
  ASSERT_TRUE(CompleteShareStateInitialization(&group_, r.to_initialize, true).has_value());
  EXPECT_TRUE(group_.state_partitions()->initializing.empty());
  EXPECT_EQ(group_.state_partitions()->initialized.at(t_).partitions, (std::set<int32_t>{0, 1}));
  // Done already: nothing to record.
  EXPECT_FALSE(CompleteShareStateInitialization(&group_, r.to_initialize, true).has_value());
}

TEST_F(ShareGroupHeartbeatTest, EpochsAreFencedWithKafkasMessages) {
  MarkInitialized({0, 1});
  ASSERT_EQ(Beat(Request("m", 0, {{"t"}})).response.member_epoch, 1);
  ShareGroupHeartbeatResult r = Beat(Request("m", 5));
  EXPECT_EQ(r.response.error_code, ke::kFencedMemberEpoch);
  EXPECT_EQ(r.response.error_message,
            "The share group member has a greater member epoch (5) than the one known by the "
            "group coordinator (1). The member must abandon all its partitions and rejoin.");
  ASSERT_EQ(Beat(Request("n", 0, {{"t"}})).response.error_code, ke::kNone);
  ASSERT_EQ(Beat(Request("m", 1)).response.member_epoch, 2);
  // The previous epoch is still accepted (a lost answer).
  ShareGroup copy = group_;
  r = ShareGroupHeartbeat(&copy, true, Request("m", 1), ctx_);
  EXPECT_EQ(r.response.error_code, ke::kNone);
  // An older one is not.
  ShareGroupMember old = *group_.FindMember("m");
  old.member_epoch = 5;
  old.previous_member_epoch = 4;
  copy = group_;
  copy.UpdateMember(old);
  r = ShareGroupHeartbeat(&copy, true, Request("m", 3), ctx_);
  EXPECT_EQ(r.response.error_code, ke::kFencedMemberEpoch);
  EXPECT_EQ(r.response.error_message,
            "The share group member has a smaller member epoch (3) than the one known by the "
            "group coordinator (5), and it does not match the previous member epoch (4).");
  r = ShareGroupHeartbeat(&copy, true, Request("x", 1), ctx_);
  EXPECT_EQ(r.response.error_code, ke::kUnknownMemberId);
  EXPECT_EQ(r.response.error_message, "Member x is not a member of group g.");
}

TEST_F(ShareGroupHeartbeatTest, AssignmentWaitsForTheInterval) {
  config_.group_share_assignment_interval_ms = 1000;
  MarkInitialized({0, 1});
  ASSERT_EQ(Beat(Request("a", 0, {{"t"}})).response.member_epoch, 1);
  // A second member within the interval: the epoch moves, the target does not yet.
  ShareGroupHeartbeatResult r = Beat(Request("b", 0, {{"t"}}));
  EXPECT_EQ(group_.group_epoch(), 2);
  EXPECT_EQ(group_.assignment_epoch(), 1);
  EXPECT_EQ(r.response.member_epoch, 1);
  ctx_.now_ms += 1000;
  r = Beat(Request("b", 1));
  EXPECT_EQ(group_.assignment_epoch(), 2);
  EXPECT_EQ(r.response.member_epoch, 2);
  ASSERT_TRUE(r.response.assignment.has_value());
  EXPECT_EQ(r.response.assignment->topic_partitions.at(0).partitions.size(), 1u);
}

TEST_F(ShareGroupHeartbeatTest, AssignmentGoesWithANamedSubscriptionAndLastLeaveResetsTarget) {
  MarkInitialized({0, 1});
  ASSERT_EQ(Beat(Request("a", 0, {{"t"}})).response.member_epoch, 1);
  EXPECT_FALSE(Beat(Request("a", 1)).response.assignment.has_value());
  // The same subscription named again: the assignment is sent, though unchanged.
  ShareGroupHeartbeatResult r = Beat(Request("a", 1, {{"t"}}));
  ASSERT_TRUE(r.response.assignment.has_value());
  EXPECT_TRUE(r.records.empty());
  // The last member leaves: the target metadata is at the new epoch, timestamp 0.
  config_.group_share_assignment_interval_ms = 1000;
  r = Beat(Request("a", -1));
  ASSERT_EQ(r.response.error_code, ke::kNone);
  EXPECT_EQ(group_.group_epoch(), 2);
  EXPECT_EQ(group_.assignment_epoch(), 2);
  EXPECT_EQ(group_.assignment_timestamp_ms(), 0);
  std::vector<int16_t> types;
  for (const OffsetsRecord& rec : r.records) {
    types.push_back(static_cast<int16_t>(rec.value ? LoadBEInt16(rec.key.data())
                                                   : -LoadBEInt16(rec.key.data())));
  }
  EXPECT_EQ(types, (std::vector<int16_t>{-14, -13, -10, 11, 12}));
  // So a new member gets a target at once, within the interval.
  r = Beat(Request("b", 0, {{"t"}}));
  EXPECT_EQ(r.response.member_epoch, 3);
  EXPECT_EQ(r.response.assignment->topic_partitions.at(0).partitions.size(), 2u);
}

TEST_F(ShareGroupHeartbeatTest, AnUnsubscribedTopicLeavesAtOnceBeforeTheNewTarget) {
  config_.group_share_assignment_interval_ms = 1000;
  MarkInitialized({0, 1});
  ASSERT_EQ(Beat(Request("a", 0, {{"t"}})).response.member_epoch, 1);
  ctx_.now_ms += 10;
  // A subscription to another topic only, within the assignment interval: the target stays,
  // but the member no longer has t's partitions.
  ShareGroupHeartbeatResult r = Beat(Request("a", 1, {{"v"}}));
  ASSERT_EQ(r.response.error_code, ke::kNone);
  EXPECT_EQ(group_.assignment_epoch(), 1);
  EXPECT_EQ(r.response.member_epoch, 1);
  ASSERT_TRUE(r.response.assignment.has_value());
  EXPECT_TRUE(r.response.assignment->topic_partitions.empty());
  EXPECT_TRUE(group_.FindMember("a")->assigned_partitions.empty());
}

TEST_F(ShareGroupHeartbeatTest, TombstonesFollowKafkasOrder) {
  MarkInitialized({0, 1});
  ASSERT_EQ(Beat(Request("a", 0, {{"t"}})).response.error_code, ke::kNone);
  std::vector<int16_t> types;
  for (const OffsetsRecord& rec : ShareGroupTombstones(group_)) {
    EXPECT_FALSE(rec.value.has_value());
    types.push_back(LoadBEInt16(rec.key.data()));
  }
  EXPECT_EQ(types, (std::vector<int16_t>{14, 13, 12, 10, 15, 11}));
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

TEST(ShareGroupConfigTest, KafkasNamesDefaultsAndChecks) {
  GroupCoordinatorConfig c;
  EXPECT_EQ(c.group_share_session_timeout_ms, 45000);
  EXPECT_EQ(c.group_share_heartbeat_interval_ms, 5000);
  EXPECT_EQ(c.group_share_max_size, 200);
  EXPECT_EQ(c.group_share_assignment_interval_ms, 1000);
  EXPECT_EQ(c.group_share_initialize_retry_interval_ms, 30000);
  std::vector<std::string> errors;
  c.Validate(&errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_TRUE(c.Set("group.share.session.timeout.ms", "30000")->ok());
  ASSERT_TRUE(c.Set("group.share.max.size", "3")->ok());
  EXPECT_EQ(c.group_share_max_size, 3);
  ASSERT_TRUE(
      c.Set("group.share.assignors", "org.apache.kafka.coordinator.group.assignor.SimpleAssignor")
          ->ok());
  EXPECT_FALSE(c.Set("group.share.assignors", "uniform")->ok());
  EXPECT_FALSE(c.Set("group.share.max.size", "0")->ok());
  c.Validate(&errors);
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "group.share.session.timeout.ms must be greater than or equal to "
                        "group.share.min.session.timeout.ms"}));
  errors.clear();
  ASSERT_TRUE(c.Set("group.share.session.timeout.ms", "45000")->ok());
  ASSERT_TRUE(c.Set("group.share.assignment.interval.ms", "20000")->ok());
  c.Validate(&errors);
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "group.share.assignment.interval.ms must be less than or equal to "
                        "group.share.max.assignment.interval.ms"}));
}

}  // namespace
}  // namespace seglog
