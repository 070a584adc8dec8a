// Tests for the GroupCoordinator over a real LogManager in a temporary directory, on the
// manual clock: the classic protocol's rebalances as Kafka's clients drive them (KIP-394's
// member ids, the initial delay, leader and followers, session timeouts, leaving, static
// members), committed offsets and their validation, and what survives a restart from
// __consumer_offsets - including a corrupt and an unknown record.
#include "group/group_coordinator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "group/coordinator_test_base.h"
#include "group/offsets_records.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using ::testing::HasSubstr;

constexpr int64_t kT0 = kCoordinatorTestT0;
constexpr int32_t kSession = 10000;
constexpr int32_t kRebalance = 20000;

std::vector<uint8_t> B(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

class GroupCoordinatorTest : public CoordinatorTestBase {
 protected:
  void SetUp() override { Open(); }

  void Advance(int64_t ms) { scheduler_->Advance(ms); }

  // A JoinGroup whose answer lands in the returned slot.
  std::shared_ptr<std::optional<p::JoinGroupResponseData>> Join(
      const std::string& group, const std::string& member_id, int16_t version = 9,
      std::optional<std::string> instance = std::nullopt, std::string protocol_type = "consumer",
      std::vector<std::string> protocols = {"range"}, int32_t session = kSession) {
    p::JoinGroupRequestData req;
    req.group_id = group;
    req.member_id = member_id;
    req.group_instance_id = instance;
    req.session_timeout_ms = session;
    req.rebalance_timeout_ms = kRebalance;
    req.protocol_type = protocol_type;
    for (const std::string& name : protocols) {
      auto& pr = req.protocols.emplace_back();
      pr.name = name;
      pr.metadata = B("meta-" + name + "-" + (instance ? *instance : member_id));
    }
    auto slot = std::make_shared<std::optional<p::JoinGroupResponseData>>();
    coordinator_->JoinGroup(version, {"client", "/127.0.0.1"}, req,
                            [slot](p::JoinGroupResponseData r) {
                              ASSERT_FALSE(slot->has_value()) << "answered twice";
                              *slot = std::move(r);
                            });
    return slot;
  }
  // A new dynamic member at v9: MEMBER_ID_REQUIRED, then the join with the id it was given.
  std::pair<std::string, std::shared_ptr<std::optional<p::JoinGroupResponseData>>> JoinNew(
      const std::string& group) {
    auto first = Join(group, "");
    EXPECT_TRUE(first->has_value());
    EXPECT_EQ((*first)->error_code, ke::kMemberIdRequired);
    const std::string id = (*first)->member_id;
    EXPECT_THAT(id, ::testing::StartsWith("client-"));
    EXPECT_EQ(id.size(), std::string("client-").size() + 36);  // a Java UUID
    return {id, Join(group, id)};
  }
  std::shared_ptr<std::optional<p::SyncGroupResponseData>> Sync(
      const std::string& group, int32_t generation, const std::string& member,
      std::vector<std::pair<std::string, std::string>> assignments = {}) {
    p::SyncGroupRequestData req;
    req.group_id = group;
    req.generation_id = generation;
    req.member_id = member;
    for (const auto& [id, a] : assignments) {
      auto& e = req.assignments.emplace_back();
      e.member_id = id;
      e.assignment = B(a);
    }
    auto slot = std::make_shared<std::optional<p::SyncGroupResponseData>>();
    coordinator_->SyncGroup(5, req, [slot](p::SyncGroupResponseData r) { *slot = std::move(r); });
    return slot;
  }
  std::string State(const std::string& group) {
    int16_t e = 0;
    auto d = coordinator_->DescribeGroup(group, &e);
    return d ? d->group_state : "none";
  }
  int16_t Commit(const std::string& group, int32_t generation, const std::string& member,
                 int64_t offset, const std::string& topic = "t", int32_t partition = 0,
                 std::string metadata = "m", int16_t version = 9) {
    std::vector<GroupCoordinator::CommitPartition> parts(1);
    parts[0].topic = topic;
    parts[0].partition = partition;
    parts[0].offset = offset;
    parts[0].metadata = metadata;
    coordinator_->CommitOffsets(version, group, generation, member, std::nullopt, -1, &parts);
    return parts[0].error_code;
  }
  int64_t Committed(const std::string& group, const std::string& topic = "t",
                    int32_t partition = 0) {
    auto r = coordinator_->FetchOffsets(
        group, std::vector<GroupCoordinator::FetchTopic>{{topic, {partition}}});
    EXPECT_EQ(r.error_code, 0);
    return r.offsets.empty() ? -2 : r.offsets[0].offset;
  }
  std::shared_ptr<Log> OffsetsLog(const std::string& group) {
    return *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor(group)});
  }
};

// Two consumers form a group: ids handed out (KIP-394), the initial delay, one leader who gets
// the member list, the follower waiting in SyncGroup for the leader's assignment.
TEST_F(GroupCoordinatorTest, TwoMembersRebalanceAndSync) {
  auto [a, ja] = JoinNew("g");
  EXPECT_FALSE(ja->has_value());  // waits: group.initial.rebalance.delay.ms
  auto [b, jb] = JoinNew("g");
  EXPECT_EQ(State("g"), "PreparingRebalance");
  Advance(2999);
  EXPECT_FALSE(ja->has_value());
  // The second member arrived during the first delay, so the join waits one delay more.
  Advance(1);
  EXPECT_FALSE(ja->has_value());
  Advance(3000);
  ASSERT_TRUE(ja->has_value() && jb->has_value());
  EXPECT_EQ((*ja)->error_code, 0);
  EXPECT_EQ((*ja)->generation_id, 1);
  EXPECT_EQ((*jb)->generation_id, 1);
  EXPECT_EQ((*ja)->protocol_name, "range");
  const std::string leader = (*ja)->leader;
  EXPECT_EQ((*jb)->leader, leader);
  auto& lead = leader == a ? *ja : *jb;
  auto& follow = leader == a ? *jb : *ja;
  const std::string follower = leader == a ? b : a;
  ASSERT_EQ(lead->members.size(), 2u);
  EXPECT_TRUE(follow->members.empty());
  EXPECT_EQ(State("g"), "CompletingRebalance");

  auto sf = Sync("g", 1, follower);
  EXPECT_FALSE(sf->has_value());
  const int64_t end_before = OffsetsLog("g")->log_end_offset();
  auto sl = Sync("g", 1, leader, {{leader, "A0"}, {follower, "A1"}});
  ASSERT_TRUE(sl->has_value() && sf->has_value());
  EXPECT_EQ((*sl)->assignment, B("A0"));
  EXPECT_EQ((*sf)->assignment, B("A1"));
  EXPECT_EQ((*sf)->protocol_name, "range");
  EXPECT_EQ(State("g"), "Stable");
  EXPECT_GT(OffsetsLog("g")->log_end_offset(), end_before);  // the GroupMetadata record

  EXPECT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kNone);
  EXPECT_EQ(coordinator_->Heartbeat("g", 0, a, std::nullopt), ke::kIllegalGeneration);
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, "nobody", std::nullopt), ke::kUnknownMemberId);
  EXPECT_EQ(coordinator_->Heartbeat("other", 1, a, std::nullopt), ke::kUnknownMemberId);
  EXPECT_EQ(coordinator_->Heartbeat("", 1, a, std::nullopt), ke::kInvalidGroupId);
  auto late = Sync("g", 1, follower);  // Stable: the stored assignment at once
  ASSERT_TRUE(late->has_value());
  EXPECT_EQ((*late)->assignment, B("A1"));
  EXPECT_EQ((*Sync("g", 0, follower))->error_code, ke::kIllegalGeneration);
}

// A member that stops heartbeating is removed after its session timeout; the group rebalances
// with the rest, and the last one leaving makes it Empty.
TEST_F(GroupCoordinatorTest, SessionTimeoutAndLeave) {
  auto [a, ja] = JoinNew("g");
  auto [b, jb] = JoinNew("g");
  Advance(6000);
  ASSERT_TRUE(ja->has_value() && jb->has_value());
  const std::string leader = (*ja)->leader;
  Sync("g", 1, leader == a ? b : a);
  Sync("g", 1, leader, {{a, "x"}, {b, "y"}});
  ASSERT_EQ(State("g"), "Stable");
  for (int i = 0; i < 3; ++i) {  // a heartbeats, b does not
    Advance(3000);
    EXPECT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kNone) << i;
  }
  EXPECT_EQ(State("g"), "Stable");
  Advance(3000);
  // 12 s since b's last sign of life > its 10 s session: b is out, the group rebalances.
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("Member " + b + " in group g has failed")));
  EXPECT_EQ(State("g"), "PreparingRebalance");
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kRebalanceInProgress);
  auto again = Join("g", a);
  ASSERT_TRUE(again->has_value());  // every remaining member rejoined: completes at once
  EXPECT_EQ((*again)->generation_id, 2);
  EXPECT_EQ((*again)->leader, a);
  ASSERT_EQ((*again)->members.size(), 1u);
  Sync("g", 2, a, {{a, "all"}});
  EXPECT_EQ(State("g"), "Stable");

  auto left = coordinator_->LeaveGroup("g", {{a, std::nullopt}, {"ghost", std::nullopt}});
  EXPECT_EQ(left.error_code, 0);
  EXPECT_EQ(left.member_errors, (std::vector<int16_t>{ke::kNone, ke::kUnknownMemberId}));
  EXPECT_EQ(State("g"), "Empty");
  int16_t e = 0;
  EXPECT_EQ(coordinator_->DescribeGroup("g", &e)->members.size(), 0u);
  auto unknown = coordinator_->LeaveGroup("nope", {{a, std::nullopt}});
  EXPECT_EQ(unknown.member_errors, (std::vector<int16_t>{ke::kUnknownMemberId}));
}

// Errors a bad JoinGroup gets, without touching the group.
TEST_F(GroupCoordinatorTest, JoinGroupRefusals) {
  EXPECT_EQ((*Join("", ""))->error_code, ke::kInvalidGroupId);
  EXPECT_EQ((*Join("g", "", 9, std::nullopt, "consumer", {"range"}, 10))->error_code,
            ke::kInvalidSessionTimeout);
  EXPECT_EQ((*Join("g", "", 9, std::nullopt, "consumer", {"range"}, 1800001))->error_code,
            ke::kInvalidSessionTimeout);
  EXPECT_EQ((*Join("g", "client-unknown"))->error_code, ke::kUnknownMemberId);
  EXPECT_EQ((*Join("g", "", 9, std::nullopt, "", {"range"}))->error_code,
            ke::kInconsistentGroupProtocol);  // an empty group needs a protocol type
  auto [a, ja] = JoinNew("g");
  // Another protocol type, or no protocol in common, cannot join a non-empty group.
  EXPECT_EQ((*Join("g", "", 9, std::nullopt, "connect", {"range"}))->error_code,
            ke::kInconsistentGroupProtocol);
  EXPECT_EQ((*Join("g", "", 9, std::nullopt, "consumer", {"sticky"}))->error_code,
            ke::kInconsistentGroupProtocol);
  // Below v4 a new member joins at once, with no MEMBER_ID_REQUIRED round.
  auto old = Join("g", "", 3);
  EXPECT_FALSE(old->has_value());
  Advance(6000);
  ASSERT_TRUE(old->has_value());
  EXPECT_EQ((*old)->error_code, 0);
  EXPECT_EQ((*old)->generation_id, 1);
}

TEST_F(GroupCoordinatorTest, GroupMaxSize) {
  Close();
  Open({{"group.max.size", "1"}});
  auto [a, ja] = JoinNew("g");
  Advance(3000);
  ASSERT_TRUE(ja->has_value());
  Sync("g", 1, a, {{a, "x"}});
  auto second = Join("g", "");
  EXPECT_EQ((*second)->error_code, ke::kGroupMaxSizeReached);
  EXPECT_EQ((*second)->member_id, "");
  EXPECT_EQ(State("g"), "Stable");
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kNone);
}

// KIP-345: a static member restarting with the same instance id takes over its slot without a
// rebalance; the old member id is fenced.
TEST_F(GroupCoordinatorTest, StaticMemberReplacement) {
  auto first = Join("g", "", 9, "instance-1");
  Advance(3000);
  ASSERT_TRUE(first->has_value());
  const std::string old_id = (*first)->member_id;
  EXPECT_THAT(old_id, ::testing::StartsWith("instance-1-"));
  Sync("g", 1, old_id, {{old_id, "mine"}});
  ASSERT_EQ(State("g"), "Stable");
  auto restarted = Join("g", "", 9, "instance-1");
  ASSERT_TRUE(restarted->has_value());
  EXPECT_EQ((*restarted)->error_code, 0);
  EXPECT_EQ((*restarted)->generation_id, 1);  // no rebalance
  EXPECT_TRUE((*restarted)->skip_assignment);
  const std::string new_id = (*restarted)->member_id;
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(State("g"), "Stable");
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, old_id, "instance-1"), ke::kFencedInstanceId);
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, new_id, "instance-1"), ke::kNone);
  auto s = Sync("g", 1, new_id);
  EXPECT_EQ((*s)->assignment, B("mine"));  // the slot's assignment carried over
}

// Offsets: group members commit in their generation, others are refused; commits from outside
// a group make a simple group; metadata has a size limit.
TEST_F(GroupCoordinatorTest, CommitAndFetchOffsets) {
  auto [a, ja] = JoinNew("g");
  Advance(3000);
  Sync("g", 1, a, {{a, "x"}});
  EXPECT_EQ(Commit("g", 1, a, 42), ke::kNone);
  EXPECT_EQ(Committed("g"), 42);
  EXPECT_EQ(Commit("g", 0, a, 7), ke::kIllegalGeneration);  // a generation that moved on
  EXPECT_EQ(Commit("g", 1, "intruder", 7), ke::kUnknownMemberId);
  EXPECT_EQ(Commit("g", -1, "", 7), ke::kUnknownMemberId);  // no identity, non-empty group
  EXPECT_EQ(Committed("g"), 42);
  EXPECT_EQ(Commit("g", 1, a, 43, "t", 0, std::string(4097, 'm')), ke::kOffsetMetadataTooLarge);
  EXPECT_EQ(Commit("g", 1, a, 43, "t", 0, std::string(4096, 'm')), ke::kNone);
  EXPECT_EQ(Committed("g"), 43);
  EXPECT_EQ(Committed("g", "t", 5), -1);       // never committed
  EXPECT_EQ(Committed("nobody", "t", 0), -1);  // an unknown group has no offsets, no error
  // Outside any group: generation -1 makes a simple group; a real generation is refused.
  EXPECT_EQ(Commit("simple", -1, "", 5), ke::kNone);
  EXPECT_EQ(Committed("simple"), 5);
  EXPECT_EQ(State("simple"), "Empty");
  EXPECT_EQ(Commit("absent", 3, "m", 5, "t", 0, "", 9), ke::kGroupIdNotFound);
  EXPECT_EQ(Commit("absent", 3, "m", 5, "t", 0, "", 8), ke::kIllegalGeneration);
  auto all = coordinator_->FetchOffsets("g", std::nullopt);
  ASSERT_EQ(all.offsets.size(), 1u);
  EXPECT_EQ(all.offsets[0].metadata, std::string(4096, 'm'));
}

// Groups, members and offsets come back after a restart, from __consumer_offsets.
TEST_F(GroupCoordinatorTest, StateSurvivesARestart) {
  auto [a, ja] = JoinNew("g");
  Advance(3000);
  Sync("g", 1, a, {{a, "assigned"}});
  ASSERT_EQ(Commit("g", 1, a, 100, "t", 0), ke::kNone);
  ASSERT_EQ(Commit("g", 1, a, 200, "t", 1), ke::kNone);
  ASSERT_EQ(Commit("simple", -1, "", 9), ke::kNone);
  ASSERT_EQ(Commit("g", 1, a, 101, "t", 0), ke::kNone);  // the later commit wins
  Reopen();
  EXPECT_EQ(Committed("g", "t", 0), 101);
  EXPECT_EQ(Committed("g", "t", 1), 200);
  EXPECT_EQ(Committed("simple"), 9);
  int16_t e = 0;
  auto d = coordinator_->DescribeGroup("g", &e);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->group_state, "Stable");
  EXPECT_EQ(d->protocol_data, "range");
  ASSERT_EQ(d->members.size(), 1u);
  EXPECT_EQ(d->members[0].member_id, a);
  EXPECT_EQ(d->members[0].client_host, "/127.0.0.1");
  EXPECT_EQ(d->members[0].member_assignment, B("assigned"));
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kNone);
  EXPECT_EQ(coordinator_->ListGroups({" Stable"}, {}).size(), 1u);  // trimmed, any case
  // The loaded member has a session timer again: silent, it is removed, and with nobody left
  // the rebalance completes at once into an Empty generation.
  Advance(kSession + 1);
  EXPECT_EQ(State("g"), "Empty");
  auto listed = coordinator_->ListGroups({}, {});
  EXPECT_EQ(listed.size(), 2u);
  EXPECT_EQ(coordinator_->ListGroups({"empty"}, {}).size(), 2u);
  EXPECT_EQ(coordinator_->ListGroups({"stable"}, {}).size(), 0u);
  EXPECT_EQ(coordinator_->ListGroups({}, {"classic"}).size(), 2u);
  EXPECT_EQ(coordinator_->ListGroups({}, {"consumer"}).size(), 0u);
}

TEST_F(GroupCoordinatorTest, DeleteGroups) {
  auto [a, ja] = JoinNew("g");
  Advance(3000);
  Sync("g", 1, a, {{a, "x"}});
  ASSERT_EQ(Commit("g", 1, a, 5), ke::kNone);
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kNonEmptyGroup);
  EXPECT_EQ(coordinator_->DeleteGroup("missing"), ke::kGroupIdNotFound);
  coordinator_->LeaveGroup("g", {{a, std::nullopt}});
  ASSERT_EQ(State("g"), "Empty");
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kNone);
  EXPECT_EQ(State("g"), "none");
  EXPECT_EQ(Committed("g"), -1);
  Reopen();  // the tombstones hold
  EXPECT_EQ(State("g"), "none");
  EXPECT_EQ(Committed("g"), -1);
}

// A corrupt record is skipped with a log line and the rest of the partition loads; an unknown
// record type too (Kafka's "left over from an aborted upgrade").
TEST_F(GroupCoordinatorTest, CorruptAndUnknownRecordsAreSkippedAtLoad) {
  ASSERT_EQ(Commit("g", -1, "", 1, "t", 0), ke::kNone);
  std::shared_ptr<Log> log = OffsetsLog("g");
  BatchOptions o;
  RecordBatchBuilder b(o);
  OffsetsRecord good =
      OffsetCommitRecord("g", "t", 1, CommittedOffset{77, -1, "", kT0, std::nullopt, Uuid{}});
  std::vector<uint8_t> bad_value = *good.value;
  bad_value.resize(bad_value.size() - 3);                 // truncated
  std::vector<uint8_t> unknown_key = {0x00, 0x63, 0x00};  // type 99
  ASSERT_TRUE(b.Append(kT0, Bytes(good.key), Bytes(bad_value)).ok());
  ASSERT_TRUE(b.Append(kT0, Bytes(unknown_key), Bytes(unknown_key)).ok());
  ASSERT_TRUE(b.Append(kT0, Bytes(good.key), Bytes(*good.value)).ok());
  ASSERT_TRUE(log->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator).ok());
  Reopen();
  EXPECT_EQ(Committed("g", "t", 0), 1);
  EXPECT_EQ(Committed("g", "t", 1), 77);
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("Skipping the corrupt record")));
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("Unknown record type 99 while loading")));
}

// Offsets of an Empty group expire offsets.retention.minutes after it became empty, then the
// group goes too; a Stable group's subscribed topics never expire.
TEST_F(GroupCoordinatorTest, OffsetsExpire) {
  Close();
  Open({{"offsets.retention.minutes", "1"}, {"offsets.retention.check.interval.ms", "1000"}});
  ASSERT_EQ(Commit("simple", -1, "", 3), ke::kNone);
  Advance(30000);
  EXPECT_EQ(Committed("simple"), 3);
  Advance(31000);
  EXPECT_EQ(Committed("simple"), -1);
  EXPECT_EQ(State("simple"), "none");
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("tombstone records while cleaning up")));
  Reopen();
  EXPECT_EQ(Committed("simple"), -1);
}

// Member metadata too big for a record of __consumer_offsets (max.message.bytes): the leader's
// SyncGroup gets UNKNOWN_SERVER_ERROR, as in Kafka, nothing of the group's assignment is
// stored, and the group rebalances.
TEST_F(GroupCoordinatorTest, OversizedMemberMetadataIsRefusedAtSync) {
  p::JoinGroupRequestData req;
  req.group_id = "big";
  req.session_timeout_ms = kSession;
  req.rebalance_timeout_ms = kRebalance;
  req.protocol_type = "consumer";
  auto& pr = req.protocols.emplace_back();
  pr.name = "range";
  pr.metadata.assign(2 << 20, 'x');  // 2 MiB > the default 1 MiB record limit
  auto first = std::make_shared<std::optional<p::JoinGroupResponseData>>();
  coordinator_->JoinGroup(9, {"client", "/127.0.0.1"}, req,
                          [first](p::JoinGroupResponseData r) { *first = std::move(r); });
  ASSERT_EQ((*first)->error_code, ke::kMemberIdRequired);
  req.member_id = (*first)->member_id;
  auto joined = std::make_shared<std::optional<p::JoinGroupResponseData>>();
  coordinator_->JoinGroup(9, {"client", "/127.0.0.1"}, req,
                          [joined](p::JoinGroupResponseData r) { *joined = std::move(r); });
  Advance(3000);
  ASSERT_TRUE(joined->has_value());
  ASSERT_EQ((*joined)->error_code, 0);
  const int64_t end = OffsetsLog("big")->log_end_offset();
  auto sync = Sync("big", 1, req.member_id, {{req.member_id, "a"}});
  ASSERT_TRUE(sync->has_value());
  EXPECT_EQ((*sync)->error_code, ke::kUnknownServerError);
  EXPECT_EQ(OffsetsLog("big")->log_end_offset(), end);  // nothing stored
  EXPECT_EQ(State("big"), "PreparingRebalance");
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("Failed to write 1 records")));
}

// Commits for unknown groups and generations leave nothing behind.
TEST_F(GroupCoordinatorTest, RefusedCommitsStoreNothing) {
  auto [a, ja] = JoinNew("g");
  Advance(3000);
  Sync("g", 1, a, {{a, "x"}});
  const int64_t end = OffsetsLog("g")->log_end_offset();
  EXPECT_EQ(Commit("g", 7, a, 1), ke::kIllegalGeneration);
  EXPECT_EQ(Commit("g", 1, "stranger", 1), ke::kUnknownMemberId);
  EXPECT_EQ(OffsetsLog("g")->log_end_offset(), end);
  EXPECT_EQ(Commit("nogroup", 3, "m", 1), ke::kGroupIdNotFound);
  EXPECT_EQ(State("nogroup"), "none");
  EXPECT_EQ(OffsetsLog("nogroup")->log_end_offset(), 0);
}

// Resetting a session timer (every heartbeat and commit) schedules nothing new: the timer's one
// task waits again when it finds the deadline moved. 10,000 heartbeats leave a handful of tasks.
TEST_F(GroupCoordinatorTest, HeartbeatsDoNotPileUpTimerTasks) {
  auto [a, ja] = JoinNew("g");
  Advance(3000);
  Sync("g", 1, a, {{a, "x"}});
  auto timer_tasks = [&] {
    auto names = scheduler_->PendingTaskNames();
    return std::count(names.begin(), names.end(), "group-coordinator-timer");
  };
  const auto before = timer_tasks();
  for (int i = 0; i < 10000; ++i) {
    ASSERT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kNone);
    if (i % 100 == 0) Advance(1);
  }
  EXPECT_LE(timer_tasks(), before + 1);
  // The session timeout still counts from the last heartbeat.
  Advance(kSession - 1);
  EXPECT_EQ(State("g"), "Stable");
  Advance(2);
  EXPECT_EQ(State("g"), "Empty");
}

// Shutdown answers the requests that wait for a rebalance.
TEST_F(GroupCoordinatorTest, ShutdownAnswersWaitingJoins) {
  auto [a, ja] = JoinNew("g");
  EXPECT_FALSE(ja->has_value());
  coordinator_->Shutdown();
  ASSERT_TRUE(ja->has_value());
  EXPECT_EQ((*ja)->error_code, ke::kNotCoordinator);
  EXPECT_EQ(coordinator_->Heartbeat("g", 1, a, std::nullopt), ke::kNotCoordinator);
}

}  // namespace
}  // namespace seglog
