// Tests for KIP-932's share groups in the GroupCoordinator, over a real LogManager in a
// temporary directory on the manual clock, with a fake ShareStateAdmin and listener: joins and
// the share-partition initialization (and its failure), leaving and the session timeout,
// group types kept apart in both directions with Kafka's answers, group.share.max.size,
// ShareGroupDescribe, ListGroups and DescribeGroups, DeleteGroups (the share state deleted
// first, then the tombstones in Kafka's order), and what survives a restart.
#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <set>

#include "coordinator/coordinator_log.h"
#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "group/share_group_records.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

// Records what it is asked; fails while `fail` is set.
class FakeShareStateAdmin : public ShareStateAdmin {
 public:
  struct Init {
    std::string group;
    int32_t state_epoch = 0;
    std::vector<InitializeTopic> topics;
  };
  Status InitializeShareState(const std::string& group, int32_t state_epoch,
                              const std::vector<InitializeTopic>& topics) override {
    std::lock_guard<std::mutex> l(mu);
    inits.push_back({group, state_epoch, topics});
    return fail ? Status::IOError("share coordinator unavailable") : Status::OK();
  }
  Status DeleteShareState(const std::string& group,
                          const std::vector<TopicPartitions>& topics) override {
    std::lock_guard<std::mutex> l(mu);
    deletes.emplace_back(group, topics);
    return fail ? Status::IOError("share coordinator unavailable") : Status::OK();
  }
  std::mutex mu;
  bool fail = false;
  std::vector<Init> inits;
  std::vector<std::pair<std::string, std::vector<TopicPartitions>>> deletes;
};

class FakeListener : public ShareGroupListener {
 public:
  void OnShareGroupMemberLeft(const std::string& group, const std::string& member) override {
    std::lock_guard<std::mutex> l(mu);
    left.push_back(group + "/" + member);
  }
  void OnShareGroupDeleted(const std::string& group) override {
    std::lock_guard<std::mutex> l(mu);
    deleted.push_back(group);
  }
  std::mutex mu;
  std::vector<std::string> left;
  std::vector<std::string> deleted;
};

class ShareGroupCoordinatorTest : public CoordinatorTestBase {
 protected:
  void SetUp() override {
    OpenShare();
    ASSERT_TRUE(logs_->CreateTopic("t", 6, {}).ok());
  }
  void OpenShare(std::map<std::string, std::string> props = {}) {
    props.emplace("group.share.assignment.interval.ms", "0");
    Open(props);
    coordinator_->SetShareStateAdmin(admin_);
    coordinator_->SetShareGroupListener(listener_);
  }
  void ReopenShare() {
    Close();
    lines_.clear();
    OpenShare();
  }

  Uuid TopicId(const std::string& name) { return *Uuid::Parse(logs_->FindTopic(name)->topic_id); }

  p::ShareGroupHeartbeatResponseData Heartbeat(
      const std::string& member, int32_t epoch,
      std::optional<std::vector<std::string>> topics = std::nullopt,
      const std::string& group = "g") {
    p::ShareGroupHeartbeatRequestData req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = epoch;
    req.subscribed_topic_names = std::move(topics);
    return coordinator_->ShareGroupHeartbeat({"client", "/127.0.0.1"}, req);
  }
  // Joins and heartbeats once more (the partitions are initialized at the join).
  p::ShareGroupHeartbeatResponseData JoinAndSettle(const std::string& member,
                                                   const std::string& group = "g") {
    p::ShareGroupHeartbeatResponseData r = Heartbeat(member, 0, {{"t"}}, group);
    EXPECT_EQ(r.error_code, ke::kNone) << r.error_message.value_or("");
    return Heartbeat(member, r.member_epoch, std::nullopt, group);
  }
  static std::set<int32_t> Partitions(const p::ShareGroupHeartbeatResponseData& r) {
    std::set<int32_t> out;
    if (!r.assignment) return out;
    for (const auto& t : r.assignment->topic_partitions) {
      out.insert(t.partitions.begin(), t.partitions.end());
    }
    return out;
  }
  // The share-group record types of `group` written from `offset` on, tombstones negated.
  std::vector<int> ShareRecordTypesSince(int64_t offset, const std::string& group = "g") {
    std::vector<int> out;
    auto log = *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor(group)});
    auto read = log->Read(offset, 1 << 20, true);
    EXPECT_TRUE(read.ok());
    if (!read.ok()) return out;
    auto bytes = read->slice.ReadAll();
    LogBatchWalker walker(*bytes);
    while (walker.Next()) {
      auto batch = RecordBatchView::Parse(walker.current_bytes());
      RecordIterator it(*batch);
      while (it.Next()) {
        const Record& r = it.record();
        if (r.offset < offset || !r.key || r.key->size() < 2) continue;
        const int16_t type = static_cast<int16_t>((*r.key)[0] << 8 | (*r.key)[1]);
        if (!IsShareGroupRecordType(type)) continue;
        out.push_back(r.value ? type : -type);
      }
    }
    return out;
  }
  int64_t OffsetsLogEnd(const std::string& group = "g") {
    return (*logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor(group)}))
        ->log_end_offset();
  }

  std::shared_ptr<FakeShareStateAdmin> admin_ = std::make_shared<FakeShareStateAdmin>();
  std::shared_ptr<FakeListener> listener_ = std::make_shared<FakeListener>();
};

TEST_F(ShareGroupCoordinatorTest, JoinInitializesThenAssigns) {
  p::ShareGroupHeartbeatResponseData r = Heartbeat("m1", 0, {{"t"}});
  ASSERT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.member_id, "m1");
  EXPECT_EQ(r.member_epoch, 1);
  EXPECT_EQ(r.heartbeat_interval_ms, 5000);
  // Nothing initialized at the join: an empty assignment.
  ASSERT_TRUE(r.assignment.has_value());
  EXPECT_TRUE(Partitions(r).empty());
  // The share state of all six partitions was asked for, from the reset policy, at epoch 1.
  ASSERT_EQ(admin_->inits.size(), 1u);
  EXPECT_EQ(admin_->inits[0].group, "g");
  EXPECT_EQ(admin_->inits[0].state_epoch, 1);
  ASSERT_EQ(admin_->inits[0].topics.size(), 1u);
  EXPECT_EQ(admin_->inits[0].topics[0].topic_id, TopicId("t"));
  EXPECT_EQ(admin_->inits[0].topics[0].partitions, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(admin_->inits[0].topics[0].start_offset, -1);
  // The next heartbeat gets them.
  r = Heartbeat("m1", 1);
  ASSERT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.member_epoch, 2);
  EXPECT_EQ(Partitions(r), (std::set<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(admin_->inits.size(), 1u);  // not asked again

  // A second member: the partitions are split three and three.
  r = Heartbeat("m2", 0, {{"t"}});
  EXPECT_EQ(r.member_epoch, 3);
  EXPECT_EQ(Partitions(r).size(), 3u);
  r = Heartbeat("m1", 2);
  EXPECT_EQ(Partitions(r).size(), 3u);
  auto d = coordinator_->DescribeShareGroup("g");
  EXPECT_EQ(d.error_code, ke::kNone);
  EXPECT_EQ(d.group_state, "Stable");
  EXPECT_EQ(d.assignor_name, "simple");
  ASSERT_EQ(d.members.size(), 2u);
  std::set<int32_t> all;
  for (const auto& m : d.members) {
    EXPECT_EQ(m.client_id, "client");
    EXPECT_EQ(m.client_host, "/127.0.0.1");
    EXPECT_EQ(m.subscribed_topic_names, (std::vector<std::string>{"t"}));
    ASSERT_EQ(m.assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(m.assignment.topic_partitions[0].topic_name, "t");
    all.insert(m.assignment.topic_partitions[0].partitions.begin(),
               m.assignment.topic_partitions[0].partitions.end());
  }
  EXPECT_EQ(all.size(), 6u);
}

TEST_F(ShareGroupCoordinatorTest, LeaveAndSessionTimeoutTellTheListener) {
  JoinAndSettle("m1");
  JoinAndSettle("m2");
  p::ShareGroupHeartbeatResponseData r = Heartbeat("m2", -1);
  ASSERT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.member_epoch, -1);
  EXPECT_EQ(listener_->left, (std::vector<std::string>{"g/m2"}));
  EXPECT_EQ(Heartbeat("m2", -1).error_code, ke::kUnknownMemberId);
  // m1 keeps heartbeating for a while, then stops: fenced after the session timeout.
  scheduler_->Advance(40000);
  r = Heartbeat("m1", coordinator_->DescribeShareGroup("g").members.at(0).member_epoch);
  ASSERT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.member_epoch, 4);
  // It kept all six (m2 never took its half from it): no assignment in the answer.
  EXPECT_FALSE(r.assignment.has_value());
  EXPECT_EQ(coordinator_->DescribeShareGroup("g")
                .members.at(0)
                .assignment.topic_partitions.at(0)
                .partitions.size(),
            6u);
  scheduler_->Advance(44999);
  EXPECT_EQ(coordinator_->DescribeShareGroup("g").members.size(), 1u);
  scheduler_->Advance(1);
  EXPECT_TRUE(coordinator_->DescribeShareGroup("g").members.empty());
  EXPECT_EQ(coordinator_->DescribeShareGroup("g").group_state, "Empty");
  EXPECT_EQ(listener_->left, (std::vector<std::string>{"g/m2", "g/m1"}));
  r = Heartbeat("m1", 3);
  EXPECT_EQ(r.error_code, ke::kUnknownMemberId);
}

TEST_F(ShareGroupCoordinatorTest, GroupTypesStayApart) {
  // A consumer group is not a share group ...
  p::ConsumerGroupHeartbeatRequestData c;
  c.group_id = "cg";
  c.member_id = "c1";
  c.member_epoch = 0;
  c.rebalance_timeout_ms = 30000;
  c.subscribed_topic_names = std::vector<std::string>{"t"};
  c.topic_partitions.emplace();
  ASSERT_EQ(coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, c).error_code,
            ke::kNone);
  p::ShareGroupHeartbeatResponseData r = Heartbeat("s1", 0, {{"t"}}, "cg");
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(r.error_message, "Group cg is not a share group.");
  auto sd = coordinator_->DescribeShareGroup("cg");
  EXPECT_EQ(sd.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(sd.error_message, "Group cg is not a share group.");
  // ... and a share group is not a consumer group, nor a classic one.
  JoinAndSettle("s1", "sg");
  c.group_id = "sg";
  auto cr = coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, c);
  EXPECT_EQ(cr.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(cr.error_message, "Group sg is not a consumer group.");
  auto cd = coordinator_->DescribeConsumerGroup("sg");
  EXPECT_EQ(cd.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(cd.error_message, "Group sg is not a consumer group.");
  p::JoinGroupRequestData j;
  j.group_id = "sg";
  j.session_timeout_ms = 10000;
  j.rebalance_timeout_ms = 10000;
  j.protocol_type = "consumer";
  j.protocols.emplace_back().name = "range";
  std::optional<p::JoinGroupResponseData> joined;
  coordinator_->JoinGroup(9, {"client", "/127.0.0.1"}, j,
                          [&joined](p::JoinGroupResponseData x) { joined = std::move(x); });
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->error_code, ke::kInconsistentGroupProtocol);
  EXPECT_EQ(joined->member_id, "");
  int16_t error = 0;
  auto described = coordinator_->DescribeGroup("sg", &error);
  ASSERT_TRUE(described.has_value());
  EXPECT_EQ(described->group_state, "Dead");
  EXPECT_EQ(described->error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(described->error_message, "Group sg is not a classic group.");
  EXPECT_EQ(coordinator_->Heartbeat("sg", 1, "s1", std::nullopt), ke::kUnknownMemberId);
  std::vector<GroupCoordinator::CommitPartition> commit(1);
  commit[0].topic.push_back('t');  // (not = "t": a GCC 12 -Wrestrict false positive)
  commit[0].offset = 5;
  coordinator_->CommitOffsets(9, "sg", -1, "", std::nullopt, -1, &commit);
  EXPECT_EQ(commit[0].error_code, ke::kGroupIdNotFound);
  // Listed with type and protocol "share".
  auto listed = coordinator_->ListGroups({}, {"share"});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].group_id, "sg");
  EXPECT_EQ(listed[0].type, "share");
  EXPECT_EQ(listed[0].protocol_type, "share");
  EXPECT_EQ(listed[0].state, "Stable");
  EXPECT_EQ(coordinator_->ListGroups({"stable"}, {"SHARE"}).size(), 1u);
  EXPECT_TRUE(coordinator_->ListGroups({"empty"}, {"share"}).empty());
  EXPECT_EQ(coordinator_->ListGroups({}, {}).size(), 2u);
  // Unknown groups.
  auto unknown = coordinator_->DescribeShareGroup("nope");
  EXPECT_EQ(unknown.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(unknown.error_message, "Group nope not found.");
  r = Heartbeat("x", 1, std::nullopt, "nope");
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(r.error_message, "Share group nope not found.");
  r = Heartbeat("x", -1, std::nullopt, "nope");
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(r.error_message, "Group nope not found.");
}

TEST_F(ShareGroupCoordinatorTest, MaxSize) {
  Close();
  OpenShare({{"group.share.max.size", "2"}});
  ASSERT_EQ(Heartbeat("a", 0, {{"t"}}).error_code, ke::kNone);
  ASSERT_EQ(Heartbeat("b", 0, {{"t"}}).error_code, ke::kNone);
  p::ShareGroupHeartbeatResponseData r = Heartbeat("c", 0, {{"t"}});
  EXPECT_EQ(r.error_code, ke::kGroupMaxSizeReached);
  EXPECT_EQ(r.error_message, "The share group has reached its maximum capacity of 2 members.");
  // A member already in the group may join again.
  EXPECT_EQ(Heartbeat("a", 0, {{"t"}}).error_code, ke::kNone);
}

TEST_F(ShareGroupCoordinatorTest, FailedInitializationIsAskedAgain) {
  admin_->fail = true;
  ASSERT_TRUE(coordinator_->EnsureOffsetsTopic().ok());
  const int64_t start = OffsetsLogEnd();
  p::ShareGroupHeartbeatResponseData r = Heartbeat("m", 0, {{"t"}});
  ASSERT_EQ(r.error_code, ke::kNone);
  ASSERT_EQ(admin_->inits.size(), 1u);
  // The partitions were written initializing, then (the failure) not any more: 10 11 13 12 14
  // 15, then 15.
  EXPECT_EQ(ShareRecordTypesSince(start), (std::vector<int>{10, 11, 13, 12, 14, 15, 15}));
  r = Heartbeat("m", 1);
  EXPECT_TRUE(Partitions(r).empty());
  EXPECT_EQ(admin_->inits.size(), 2u);  // asked again at once
  admin_->fail = false;
  r = Heartbeat("m", 1);
  EXPECT_EQ(admin_->inits.size(), 3u);
  r = Heartbeat("m", 1);
  EXPECT_EQ(r.member_epoch, 2);
  EXPECT_EQ(Partitions(r).size(), 6u);
  EXPECT_EQ(admin_->inits.size(), 3u);
}

TEST_F(ShareGroupCoordinatorTest, DeletedTopicLeavesTheShareGroup) {
  JoinAndSettle("m1");
  const int64_t start = OffsetsLogEnd();
  ASSERT_TRUE(logs_->DeleteTopic("t").ok());
  coordinator_->OnTopicDeleted("t");
  EXPECT_EQ(ShareRecordTypesSince(start), (std::vector<int>{15}));
  // The next heartbeat takes the member's partitions away.
  p::ShareGroupHeartbeatResponseData r = Heartbeat("m1", 2);
  ASSERT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.member_epoch, 3);
  ASSERT_TRUE(r.assignment.has_value());
  EXPECT_TRUE(Partitions(r).empty());
  // A topic of that name created again is initialized afresh.
  ASSERT_TRUE(logs_->CreateTopic("t", 2, {}).ok());
  const size_t inits = admin_->inits.size();
  r = Heartbeat("m1", 3);
  ASSERT_EQ(admin_->inits.size(), inits + 1);
  EXPECT_EQ(admin_->inits.back().topics.at(0).topic_id, TopicId("t"));
  r = Heartbeat("m1", r.member_epoch);
  EXPECT_EQ(Partitions(r), (std::set<int32_t>{0, 1}));
}

TEST_F(ShareGroupCoordinatorTest, RestartReplaysTheSameGroup) {
  JoinAndSettle("m1");
  JoinAndSettle("m2");
  Heartbeat("m1", 2);
  const auto before = coordinator_->DescribeShareGroup("g");
  ReopenShare();
  const auto after = coordinator_->DescribeShareGroup("g");
  EXPECT_EQ(after, before);
  // The partitions stay initialized: nothing asked again, the members go on.
  const size_t inits = admin_->inits.size();
  for (const auto& m : after.members) {
    p::ShareGroupHeartbeatResponseData r = Heartbeat(m.member_id, m.member_epoch);
    EXPECT_EQ(r.error_code, ke::kNone);
    EXPECT_EQ(r.member_epoch, m.member_epoch);
  }
  EXPECT_EQ(admin_->inits.size(), inits);
  // Session timers run again after the load.
  scheduler_->Advance(45000);
  EXPECT_TRUE(coordinator_->DescribeShareGroup("g").members.empty());
}

TEST_F(ShareGroupCoordinatorTest, InitializationLeftUnansweredIsAskedAgainAfterRestart) {
  JoinAndSettle("m1");
  ASSERT_TRUE(logs_->CreateTopic("u", 2, {}).ok());
  // As if the node stopped after writing that "u" is initializing, before the answer.
  ShareGroupStatePartitions sp;
  const std::string t = "t";
  const std::string u = "u";
  ShareStateTopic& ts = sp.initialized[TopicId(t)];
  ts.name = t;
  ts.partitions = {0, 1, 2, 3, 4, 5};
  ShareStateTopic& us = sp.initializing[TopicId(u)];
  us.name = u;
  us.partitions = {0, 1};
  ShareGroupMember m;
  m.member_id = "m1";
  m.client_id = "client";
  m.client_host = "/127.0.0.1";
  m.subscribed_topic_names.push_back(t);
  m.subscribed_topic_names.push_back(u);
  std::vector<OffsetsRecord> records = {ShareGroupMemberMetadataRecord("g", m),
                                        ShareGroupStatePartitionMetadataRecord("g", sp)};
  auto log = *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor("g")});
  ASSERT_TRUE(AppendCoordinatorRecords(*log, records, CoordinatorBatch{now_, -1, -1, -1}).ok());
  ReopenShare();
  const size_t inits = admin_->inits.size();
  const int32_t epoch = coordinator_->DescribeShareGroup("g").members.at(0).member_epoch;
  p::ShareGroupHeartbeatResponseData r = Heartbeat("m1", epoch);
  ASSERT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(admin_->inits.size(), inits);  // still within the retry interval
  scheduler_->Advance(30000);
  r = Heartbeat("m1", r.member_epoch);
  ASSERT_EQ(admin_->inits.size(), inits + 1);
  EXPECT_EQ(admin_->inits.back().topics.at(0).topic_id, TopicId("u"));
  EXPECT_EQ(admin_->inits.back().topics.at(0).partitions, (std::vector<int32_t>{0, 1}));
  r = Heartbeat("m1", r.member_epoch);
  ASSERT_TRUE(r.assignment.has_value());
  size_t assigned = 0;
  for (const auto& tp : r.assignment->topic_partitions) assigned += tp.partitions.size();
  EXPECT_EQ(r.assignment->topic_partitions.size(), 2u);
  EXPECT_EQ(assigned, 8u);  // t's six and u's two
}

TEST_F(ShareGroupCoordinatorTest, DeleteGroupDeletesTheShareStateThenTombstones) {
  JoinAndSettle("m1");
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kNonEmptyGroup);
  ASSERT_EQ(Heartbeat("m1", -1).error_code, ke::kNone);
  // A failure of the share coordinator fails the deletion; the group stays.
  admin_->fail = true;
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kUnknownServerError);
  EXPECT_EQ(coordinator_->DescribeShareGroup("g").error_code, ke::kNone);
  admin_->fail = false;
  const int64_t start = OffsetsLogEnd();
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kNone);
  ASSERT_EQ(admin_->deletes.size(), 2u);
  EXPECT_EQ(admin_->deletes[1].first, "g");
  ASSERT_EQ(admin_->deletes[1].second.size(), 1u);
  EXPECT_EQ(admin_->deletes[1].second[0].topic_id, TopicId("t"));
  EXPECT_EQ(admin_->deletes[1].second[0].partitions, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  // The share partitions go to deleting (15), then the tombstones of
  // ShareGroup.createGroupTombstoneRecords (no members left): target metadata, share-partition
  // metadata, group epoch.
  EXPECT_EQ(ShareRecordTypesSince(start), (std::vector<int>{15, -12, -15, -11}));
  EXPECT_EQ(listener_->deleted, (std::vector<std::string>{"g"}));
  EXPECT_EQ(coordinator_->DescribeShareGroup("g").error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kGroupIdNotFound);
  ReopenShare();
  EXPECT_EQ(coordinator_->DescribeShareGroup("g").error_code, ke::kGroupIdNotFound);
  EXPECT_TRUE(coordinator_->ListGroups({}, {}).empty());
  // The id is free again: a new share group starts from scratch.
  p::ShareGroupHeartbeatResponseData r = Heartbeat("m9", 0, {{"t"}});
  EXPECT_EQ(r.error_code, ke::kNone);
  EXPECT_EQ(r.member_epoch, 1);
}

}  // namespace
}  // namespace seglog
