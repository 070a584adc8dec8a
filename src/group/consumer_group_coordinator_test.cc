// Tests for KIP-848's consumer groups in the GroupCoordinator, over a real LogManager in a
// temporary directory on the manual clock, driven the way Kafka's consumer (group.protocol=
// consumer) drives them: ConsumerGroupHeartbeat joins, revocation before assignment, leaving,
// session and rebalance timeouts, static members, commits and fetches checked against member
// epochs, listing, describing, deleting, bad requests (answered with Kafka's errors, nothing
// written) and what survives a restart from __consumer_offsets - including a corrupt record.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "group/consumer_group_records.h"
#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using ::testing::HasSubstr;

constexpr int64_t kT0 = kCoordinatorTestT0;
constexpr int64_t kTenMinutes = 600000;  // group.consumer.regex.refresh.interval.ms

using Owned = std::map<std::string, std::set<int32_t>>;  // topic name -> partitions

class ConsumerGroupCoordinatorTest : public CoordinatorTestBase {
 protected:
  void SetUp() override {
    Open();
    ASSERT_TRUE(logs_->CreateTopic("t", 6, {}).ok());
    ASSERT_TRUE(logs_->CreateTopic("u", 2, {}).ok());
  }

  Uuid TopicId(const std::string& name) { return *Uuid::Parse(logs_->FindTopic(name)->topic_id); }
  std::string TopicName(const Uuid& id) {
    for (const char* n : {"t", "u"}) {
      if (TopicId(n) == id) return n;
    }
    return "?";
  }

  // A heartbeat; `topics` and `owned` nullopt: not sent (unchanged).
  p::ConsumerGroupHeartbeatResponseData Heartbeat(
      const std::string& member, int32_t epoch,
      std::optional<std::vector<std::string>> topics = std::nullopt,
      std::optional<Owned> owned = std::nullopt, std::optional<std::string> instance = std::nullopt,
      const std::string& group = "g") {
    p::ConsumerGroupHeartbeatRequestData req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = epoch;
    req.instance_id = instance;
    req.subscribed_topic_names = topics;
    if (epoch == 0) req.rebalance_timeout_ms = 30000;
    if (owned) {
      req.topic_partitions.emplace();
      for (const auto& [name, parts] : *owned) {
        auto& t = req.topic_partitions->emplace_back();
        t.topic_id = TopicId(name);
        t.partitions.assign(parts.begin(), parts.end());
      }
    }
    return coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, req);
  }
  p::ConsumerGroupHeartbeatResponseData Join(const std::string& member,
                                             std::vector<std::string> topics = {"t"},
                                             std::optional<std::string> instance = std::nullopt) {
    return Heartbeat(member, 0, topics, Owned{}, instance);
  }
  Owned AssignmentOf(const p::ConsumerGroupHeartbeatResponseData& r) {
    Owned out;
    if (!r.assignment) return out;
    for (const auto& t : r.assignment->topic_partitions) {
      out[TopicName(t.topic_id)].insert(t.partitions.begin(), t.partitions.end());
    }
    return out;
  }
  // A heartbeat of `member` subscribing with `regex` (a join at epoch 0).
  p::ConsumerGroupHeartbeatResponseData RegexHeartbeat(const std::string& member, int32_t epoch,
                                                       std::optional<std::string> regex,
                                                       std::optional<Owned> owned = std::nullopt) {
    p::ConsumerGroupHeartbeatRequestData req;
    req.group_id = "g";
    req.member_id = member;
    req.member_epoch = epoch;
    req.subscribed_topic_regex = std::move(regex);
    if (epoch == 0) req.rebalance_timeout_ms = 30000;
    if (owned) {
      req.topic_partitions.emplace();
      for (const auto& [name, parts] : *owned) {
        auto& t = req.topic_partitions->emplace_back();
        t.topic_id = TopicId(name);
        t.partitions.assign(parts.begin(), parts.end());
      }
    }
    return coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, req);
  }
  int32_t GroupEpoch() { return coordinator_->DescribeConsumerGroup("g").group_epoch; }
  // The regular expression records (type 16) of group "g" written from `offset` on, in order.
  std::vector<LoadedConsumerGroupRegularExpression> RegexRecordsSince(int64_t offset) {
    std::vector<LoadedConsumerGroupRegularExpression> out;
    auto log = *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor("g")});
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
        if (static_cast<int16_t>((*r.key)[0] << 8 | (*r.key)[1]) !=
            kConsumerGroupRegularExpressionRecordType) {
          continue;
        }
        std::optional<std::span<const uint8_t>> value;
        if (r.value) value = *r.value;
        auto rec = DecodeConsumerGroupRecord(*r.key, value);
        EXPECT_TRUE(rec.ok());
        if (!rec.ok()) continue;
        auto rx = std::get<LoadedConsumerGroupRegularExpression>(*rec);
        if (rx.group == "g") out.push_back(std::move(rx));
      }
    }
    return out;
  }
  int64_t OffsetsLogEnd(const std::string& group = "g") {
    return (*logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor(group)}))
        ->log_end_offset();
  }
};

// Two members over a 6-partition topic: the first gets everything; when the second joins, the
// first revokes half (its epoch waits until it reports them gone) and only then does the second
// get them - never one partition owned twice - and the group ends Stable with disjoint,
// complete assignments.
TEST_F(ConsumerGroupCoordinatorTest, SecondMemberGetsPartitionsOnlyAfterTheFirstRevokes) {
  auto a = Join("A");
  ASSERT_EQ(a.error_code, 0) << a.error_message.value_or("");
  EXPECT_EQ(a.member_id, "A");
  EXPECT_EQ(a.member_epoch, 1);
  EXPECT_EQ(a.heartbeat_interval_ms, 5000);
  EXPECT_EQ(AssignmentOf(a), (Owned{{"t", {0, 1, 2, 3, 4, 5}}}));

  auto b = Join("B");
  ASSERT_EQ(b.error_code, 0);
  EXPECT_EQ(b.member_epoch, 2);
  EXPECT_EQ(AssignmentOf(b), Owned{});  // A still owns them

  // A heartbeats owning everything: it must revoke three, and stays at epoch 1 meanwhile.
  auto a2 = Heartbeat("A", 1, std::nullopt, Owned{{"t", {0, 1, 2, 3, 4, 5}}});
  ASSERT_EQ(a2.error_code, 0);
  EXPECT_EQ(a2.member_epoch, 1);
  const Owned a_keeps = AssignmentOf(a2);
  ASSERT_EQ(a_keeps.at("t").size(), 3u);
  // B still gets nothing while A has not let go.
  auto b2 = Heartbeat("B", 2, std::nullopt, Owned{});
  EXPECT_FALSE(b2.assignment.has_value() && !b2.assignment->topic_partitions.empty());

  // A reports the three gone: it moves to epoch 2; then B gets the other three.
  auto a3 = Heartbeat("A", 1, std::nullopt, a_keeps);
  ASSERT_EQ(a3.error_code, 0);
  EXPECT_EQ(a3.member_epoch, 2);
  auto b3 = Heartbeat("B", 2, std::nullopt, Owned{});
  ASSERT_EQ(b3.error_code, 0);
  const Owned b_gets = AssignmentOf(b3);
  ASSERT_EQ(b_gets.at("t").size(), 3u);
  std::set<int32_t> all = a_keeps.at("t");
  for (int32_t partition : b_gets.at("t")) EXPECT_TRUE(all.insert(partition).second);
  EXPECT_EQ(all, (std::set<int32_t>{0, 1, 2, 3, 4, 5}));

  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.error_code, 0);
  EXPECT_EQ(d.group_state, "Stable");
  EXPECT_EQ(d.group_epoch, 2);
  EXPECT_EQ(d.assignment_epoch, 2);
  EXPECT_EQ(d.assignor_name, "uniform");
  ASSERT_EQ(d.members.size(), 2u);
  for (const auto& m : d.members) {
    EXPECT_EQ(m.member_epoch, 2);
    EXPECT_EQ(m.client_host, "/127.0.0.1");
    EXPECT_EQ(m.subscribed_topic_names, std::vector<std::string>{"t"});
    ASSERT_EQ(m.assignment.topic_partitions.size(), 1u);
    EXPECT_EQ(m.assignment.topic_partitions[0].topic_name, "t");
    EXPECT_EQ(m.assignment.topic_partitions[0].partitions.size(), 3u);
    EXPECT_EQ(m.assignment.topic_partitions[0].partitions,
              m.target_assignment.topic_partitions[0].partitions);
  }
}

// Kafka's answers to bad heartbeats, and nothing written for any of them.
TEST_F(ConsumerGroupCoordinatorTest, BadHeartbeatsGetKafkasErrorsAndWriteNothing) {
  ASSERT_EQ(Join("A").error_code, 0);
  const int64_t end = OffsetsLogEnd();
  p::ConsumerGroupHeartbeatRequestData req;
  req.group_id = "g";
  req.member_id = "N";
  req.member_epoch = 0;
  req.subscribed_topic_names = std::vector<std::string>{"t"};
  req.topic_partitions.emplace();
  auto hb = [&](int16_t version = 1) {
    return coordinator_->ConsumerGroupHeartbeat(version, {"c", "/h"}, req);
  };
  auto r = hb();  // no rebalance timeout in a join
  EXPECT_EQ(r.error_code, ke::kInvalidRequest);
  EXPECT_THAT(r.error_message.value_or(""), HasSubstr("RebalanceTimeoutMs"));
  req.rebalance_timeout_ms = 1000;
  req.server_assignor = "sticky";
  EXPECT_EQ(hb().error_code, ke::kUnsupportedAssignor);
  req.server_assignor.reset();
  req.subscribed_topic_regex = "t(";
  r = hb();
  EXPECT_EQ(r.error_code, ke::kInvalidRegularExpression);
  EXPECT_THAT(r.error_message.value_or(""), HasSubstr("is not a valid regular expression"));
  req.subscribed_topic_regex.reset();
  req.topic_partitions->emplace_back().topic_id = TopicId("t");  // owned partitions in a join
  EXPECT_EQ(hb().error_code, ke::kInvalidRequest);
  req.topic_partitions->clear();
  req.member_id = "";  // v1 needs the client's member id
  EXPECT_EQ(hb(1).error_code, ke::kInvalidRequest);
  req.member_id = "N";
  req.group_id = " ";
  EXPECT_EQ(hb().error_code, ke::kInvalidRequest);
  req.group_id = "g";
  req.member_epoch = -3;
  EXPECT_EQ(hb().error_code, ke::kInvalidRequest);
  // Epochs: an unknown member, a future epoch, an old one that is not the previous epoch.
  EXPECT_EQ(Heartbeat("nobody", 1).error_code, ke::kUnknownMemberId);
  EXPECT_EQ(Heartbeat("A", 7).error_code, ke::kFencedMemberEpoch);
  EXPECT_EQ(Heartbeat("nobody", 1, std::nullopt, std::nullopt, std::nullopt, "other").error_code,
            ke::kGroupIdNotFound);
  EXPECT_EQ(OffsetsLogEnd(), end);
}

// A regular expression subscription (RE2 syntax, whole names, internal topics too), resolved
// as Kafka 4.4.0 resolves it: the join sees it match nothing (no assignment, and the group
// epoch moves only because the group is new); the resolution runs apart from the heartbeat,
// writes its record (type 16) and moves the group epoch; the next heartbeat gets the topics.
TEST_F(ConsumerGroupCoordinatorTest, RegularExpressionIsAssignedOnceResolved) {
  ASSERT_TRUE(logs_->CreateTopic("tx", 1, {}).ok());
  const int64_t start = 0;  // __consumer_offsets is made by the first heartbeat
  auto a = RegexHeartbeat("A", 0, "t.*|__consumer_offsets", Owned{});
  ASSERT_EQ(a.error_code, 0) << a.error_message.value_or("");
  EXPECT_EQ(a.member_epoch, 1);
  EXPECT_EQ(AssignmentOf(a), Owned{});  // unresolved: matches nothing yet
  EXPECT_TRUE(RegexRecordsSince(start).empty());
  EXPECT_EQ(GroupEpoch(), 1);

  scheduler_->Advance(0);  // the resolution runs
  EXPECT_EQ(GroupEpoch(), 2);
  auto records = RegexRecordsSince(start);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].regex, "t.*|__consumer_offsets");
  ASSERT_TRUE(records[0].value.has_value());
  std::set<std::string> want_topics = {"__consumer_offsets", "t", "tx"};  // not "u"
  EXPECT_EQ(records[0].value->topics, want_topics);
  EXPECT_EQ(records[0].value->timestamp_ms, scheduler_->NowMs());

  auto a2 = RegexHeartbeat("A", 1, std::nullopt);
  ASSERT_EQ(a2.error_code, 0);
  EXPECT_EQ(a2.member_epoch, 2);
  Owned got;
  for (const auto& t : a2.assignment->topic_partitions) {
    const std::string name = t.topic_id == TopicId("tx")                   ? "tx"
                             : t.topic_id == TopicId("__consumer_offsets") ? "__consumer_offsets"
                                                                           : TopicName(t.topic_id);
    got[name].insert(t.partitions.begin(), t.partitions.end());
  }
  Owned want = {{"t", {0, 1, 2, 3, 4, 5}}, {"tx", {0}}};
  // An internal topic is matched as any other, as Kafka 4.4.0 does.
  const int32_t offsets_partitions = logs_->FindTopic("__consumer_offsets")->partitions;
  for (int32_t p = 0; p < offsets_partitions; ++p) want["__consumer_offsets"].insert(p);
  EXPECT_EQ(got, want);
  auto d = coordinator_->DescribeConsumerGroup("g");
  EXPECT_EQ(d.members.at(0).subscribed_topic_regex, "t.*|__consumer_offsets");
}

// A topic created later is found by the next resolution, which waits for 10 s after the last
// one (Kafka's REGEX_BATCH_REFRESH_MIN_INTERVAL_MS) and starts at a heartbeat; with nothing
// new, no resolution runs until group.consumer.regex.refresh.interval.ms passed, and one that
// finds the same topics writes its record but leaves the group epoch alone.
TEST_F(ConsumerGroupCoordinatorTest, RegularExpressionRefreshTiming) {
  auto a = RegexHeartbeat("A", 0, "t.*", Owned{});
  ASSERT_EQ(a.error_code, 0);
  scheduler_->Advance(0);
  const int64_t resolved_at = scheduler_->NowMs();
  a = RegexHeartbeat("A", 1, std::nullopt, Owned{});
  ASSERT_EQ(a.member_epoch, 2);
  EXPECT_EQ(AssignmentOf(a), (Owned{{"t", {0, 1, 2, 3, 4, 5}}}));
  const Owned owned = AssignmentOf(a);

  ASSERT_TRUE(logs_->CreateTopic("t9", 2, {}).ok());
  // Within 10 s of the last resolution: heartbeats change nothing.
  scheduler_->Advance(5000);
  int64_t end = OffsetsLogEnd();
  a = RegexHeartbeat("A", 2, std::nullopt, owned);
  scheduler_->Advance(0);
  EXPECT_EQ(a.member_epoch, 2);
  EXPECT_EQ(GroupEpoch(), 2);
  EXPECT_EQ(OffsetsLogEnd(), end);
  // Exactly 10 s after is still too early (Kafka: now <= last + 10 s).
  scheduler_->Advance(resolved_at + 10000 - scheduler_->NowMs());
  RegexHeartbeat("A", 2, std::nullopt, owned);
  scheduler_->Advance(0);
  EXPECT_EQ(GroupEpoch(), 2);
  // Past it: the heartbeat starts a resolution, which finds t9 and moves the group epoch.
  scheduler_->Advance(1);
  a = RegexHeartbeat("A", 2, std::nullopt, owned);
  EXPECT_EQ(a.member_epoch, 2);  // the resolution runs after this heartbeat
  scheduler_->Advance(0);
  EXPECT_EQ(GroupEpoch(), 3);
  a = RegexHeartbeat("A", 2, std::nullopt, owned);
  ASSERT_EQ(a.error_code, 0);
  EXPECT_EQ(a.member_epoch, 3);
  ASSERT_TRUE(a.assignment.has_value());
  size_t partitions = 0;
  for (const auto& t : a.assignment->topic_partitions) partitions += t.partitions.size();
  EXPECT_EQ(partitions, 8u);
  Owned owned3;
  for (const auto& t : a.assignment->topic_partitions) {
    std::string name = TopicName(t.topic_id);
    if (t.topic_id == TopicId("t9")) name = "t9";
    owned3[name].insert(t.partitions.begin(), t.partitions.end());
  }

  // Nothing new: no resolution for 10 minutes, whatever the heartbeats (every 40 s, inside
  // the session timeout).
  const int64_t last = resolved_at + 10001;
  end = OffsetsLogEnd();
  while (scheduler_->NowMs() + 40000 <= last + kTenMinutes) {
    scheduler_->Advance(40000);
    auto r = RegexHeartbeat("A", 3, std::nullopt);
    ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
    scheduler_->Advance(0);
  }
  EXPECT_TRUE(RegexRecordsSince(end).empty());
  // Then one: its record is written (new time), the group epoch stays.
  scheduler_->Advance(last + kTenMinutes + 1 - scheduler_->NowMs());
  ASSERT_EQ(RegexHeartbeat("A", 3, std::nullopt).error_code, 0);
  scheduler_->Advance(0);
  auto records = RegexRecordsSince(end);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].value->timestamp_ms, scheduler_->NowMs());
  EXPECT_EQ(GroupEpoch(), 3);
}

// A second member with an expression already resolved gets the group epoch moved in its own
// heartbeat (no wait); one with a new expression waits for its resolution while the others
// keep theirs; the last member to give up an expression writes its tombstone, and so does the
// last one to leave.
TEST_F(ConsumerGroupCoordinatorTest, RegularExpressionsSharedAndGivenUp) {
  ASSERT_EQ(RegexHeartbeat("A", 0, "t", Owned{}).error_code, 0);
  scheduler_->Advance(0);
  auto a = RegexHeartbeat("A", 1, std::nullopt, Owned{});
  ASSERT_EQ(AssignmentOf(a), (Owned{{"t", {0, 1, 2, 3, 4, 5}}}));
  ASSERT_EQ(GroupEpoch(), 2);

  const int64_t start = OffsetsLogEnd();
  auto b = RegexHeartbeat("B", 0, "t", Owned{});
  ASSERT_EQ(b.error_code, 0);
  EXPECT_EQ(b.member_epoch, 3);  // resolved already: the group epoch moved at once
  EXPECT_EQ(GroupEpoch(), 3);
  auto d = coordinator_->DescribeConsumerGroup("g");
  size_t targeted = 0;
  for (const auto& m : d.members) {
    for (const auto& t : m.target_assignment.topic_partitions) targeted += t.partitions.size();
  }
  EXPECT_EQ(targeted, 6u);  // the target spreads t over both

  // C takes up a new expression: no epoch move, nothing for it until the resolution (which
  // waits 10 s after the last one).
  auto c = RegexHeartbeat("C", 0, "u", Owned{});
  ASSERT_EQ(c.error_code, 0);
  EXPECT_EQ(c.member_epoch, 3);
  EXPECT_EQ(AssignmentOf(c), Owned{});
  scheduler_->Advance(0);
  EXPECT_EQ(GroupEpoch(), 3);
  scheduler_->Advance(10001);
  c = RegexHeartbeat("C", 3, std::nullopt, Owned{});
  scheduler_->Advance(0);
  EXPECT_EQ(GroupEpoch(), 4);
  c = RegexHeartbeat("C", 3, std::nullopt, Owned{});
  EXPECT_EQ(c.member_epoch, 4);
  EXPECT_EQ(AssignmentOf(c), (Owned{{"u", {0, 1}}}));
  auto records = RegexRecordsSince(start);
  ASSERT_EQ(records.size(), 2u);  // the batch resolves every expression of the group
  EXPECT_EQ(records[0].regex, "t");
  EXPECT_EQ(records[1].regex, "u");

  // C gives "u" up for names: its tombstone; the epoch moves (giving one up does).
  int64_t end = OffsetsLogEnd();
  c = Heartbeat("C", 4, std::vector<std::string>{"u"}, Owned{{"u", {0, 1}}});
  ASSERT_EQ(c.error_code, 0);
  p::ConsumerGroupHeartbeatRequestData drop;
  drop.group_id = "g";
  drop.member_id = "C";
  drop.member_epoch = c.member_epoch;
  drop.subscribed_topic_regex = "";  // no expression any more
  auto c2 = coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, drop);
  ASSERT_EQ(c2.error_code, 0);
  records = RegexRecordsSince(end);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].regex, "u");
  EXPECT_FALSE(records[0].value.has_value());
  EXPECT_GT(GroupEpoch(), 4);

  // A leaves: "t" still has B, no tombstone; B leaves: its tombstone.
  end = OffsetsLogEnd();
  ASSERT_EQ(Heartbeat("A", -1).error_code, 0);
  EXPECT_TRUE(RegexRecordsSince(end).empty());
  ASSERT_EQ(Heartbeat("B", -1).error_code, 0);
  records = RegexRecordsSince(end);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].regex, "t");
  EXPECT_FALSE(records[0].value.has_value());
}

// Resolutions are records: after a restart a member keeps its partitions without a revocation
// (the expression comes back resolved), and the group resolves again once (its metadata
// version is new) without moving the epoch when the topics are the same.
TEST_F(ConsumerGroupCoordinatorTest, ResolvedRegularExpressionsSurviveARestart) {
  ASSERT_EQ(RegexHeartbeat("A", 0, "t|u", Owned{}).error_code, 0);
  scheduler_->Advance(0);
  auto a = RegexHeartbeat("A", 1, std::nullopt, Owned{});
  const Owned owned = AssignmentOf(a);
  ASSERT_EQ(owned, (Owned{{"t", {0, 1, 2, 3, 4, 5}}, {"u", {0, 1}}}));
  ASSERT_EQ(a.member_epoch, 2);

  Reopen();
  scheduler_->Advance(20000);
  const int64_t end = OffsetsLogEnd();
  a = RegexHeartbeat("A", 2, std::nullopt, owned);
  ASSERT_EQ(a.error_code, 0) << a.error_message.value_or("");
  EXPECT_EQ(a.member_epoch, 2);
  EXPECT_FALSE(a.assignment.has_value());  // unchanged: nothing to revoke
  scheduler_->Advance(0);                  // the one resolution after the restart
  auto records = RegexRecordsSince(end);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].value->topics, (std::set<std::string>{"t", "u"}));
  EXPECT_EQ(GroupEpoch(), 2);
  a = RegexHeartbeat("A", 2, std::nullopt, owned);
  EXPECT_EQ(a.member_epoch, 2);
  EXPECT_FALSE(a.assignment.has_value());

  // Deleting the group (once empty) writes the expression's tombstone with the rest.
  ASSERT_EQ(Heartbeat("A", -1).error_code, 0);
  const int64_t before_delete = OffsetsLogEnd();
  EXPECT_EQ(coordinator_->DeleteGroup("g"), 0);
  EXPECT_TRUE(RegexRecordsSince(before_delete).empty());  // A's leave wrote it already
}

// A member that leaves (epoch -1) is gone at once and its partitions go to the others; one that
// stops heartbeating is fenced after group.consumer.session.timeout.ms.
TEST_F(ConsumerGroupCoordinatorTest, LeavingAndSessionTimeoutsHandPartitionsOn) {
  ASSERT_EQ(Join("A").error_code, 0);
  ASSERT_EQ(Join("B").error_code, 0);
  auto a = Heartbeat("A", 1, std::nullopt, Owned{{"t", {0, 1, 2, 3, 4, 5}}});
  a = Heartbeat("A", a.member_epoch, std::nullopt, AssignmentOf(a));
  ASSERT_EQ(a.member_epoch, 2);
  auto leave = Heartbeat("B", -1);
  ASSERT_EQ(leave.error_code, 0);
  EXPECT_EQ(leave.member_epoch, -1);
  auto a2 = Heartbeat("A", 2, std::nullopt, Owned{{"t", {0, 1, 2}}});
  ASSERT_EQ(a2.error_code, 0);
  EXPECT_EQ(a2.member_epoch, 3);
  EXPECT_EQ(AssignmentOf(a2), (Owned{{"t", {0, 1, 2, 3, 4, 5}}}));

  // C joins, then stays silent past its session timeout while A heartbeats as a client does
  // (reporting what it owns): A gives C half, and gets it back once C is fenced.
  ASSERT_EQ(Join("C").error_code, 0);
  Owned a_owned = AssignmentOf(a2);
  int32_t a_epoch = a2.member_epoch;
  for (int i = 0; i < 10; ++i) {
    scheduler_->Advance(5000);
    auto r = Heartbeat("A", a_epoch, std::nullopt, a_owned);
    ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
    a_epoch = r.member_epoch;
    if (r.assignment) a_owned = AssignmentOf(r);
  }
  EXPECT_EQ(a_owned, (Owned{{"t", {0, 1, 2, 3, 4, 5}}}));
  EXPECT_EQ(Heartbeat("C", 4).error_code, ke::kUnknownMemberId);
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("Member C fenced from the group because "
                                                    "its session expired")));
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].member_id, "A");
}

// A member that does not revoke within its rebalance timeout is fenced.
TEST_F(ConsumerGroupCoordinatorTest, MemberThatDoesNotRevokeIsFenced) {
  ASSERT_EQ(Join("A").error_code, 0);
  ASSERT_EQ(Join("B").error_code, 0);
  auto a = Heartbeat("A", 1, std::nullopt, Owned{{"t", {0, 1, 2, 3, 4, 5}}});
  ASSERT_EQ(a.member_epoch, 1);  // must revoke
  Owned b_owned;
  int32_t b_epoch = 2;
  for (int i = 0; i < 7; ++i) {
    scheduler_->Advance(5000);
    auto b = Heartbeat("B", b_epoch, std::nullopt, b_owned);
    ASSERT_EQ(b.error_code, 0);
    b_epoch = b.member_epoch;
    if (b.assignment) b_owned = AssignmentOf(b);
  }
  EXPECT_EQ(Heartbeat("A", 1).error_code, ke::kUnknownMemberId);
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("failed to revoke partitions")));
  EXPECT_EQ(b_owned, (Owned{{"t", {0, 1, 2, 3, 4, 5}}}));
  EXPECT_EQ(b_epoch, 3);
}

// The group, its members' epochs and assignments come back after a restart; the members go on
// heartbeating with their epochs.
TEST_F(ConsumerGroupCoordinatorTest, GroupSurvivesARestart) {
  ASSERT_EQ(Join("A", {"t", "u"}).error_code, 0);
  ASSERT_EQ(Join("B", {"t", "u"}).error_code, 0);
  auto a = Heartbeat("A", 1, std::nullopt, Owned{{"t", {0, 1, 2, 3, 4, 5}}, {"u", {0, 1}}});
  a = Heartbeat("A", 1, std::nullopt, AssignmentOf(a));
  auto b = Heartbeat("B", 2, std::nullopt, Owned{});
  ASSERT_EQ(a.member_epoch, 2);
  auto before = coordinator_->DescribeConsumerGroup("g");
  Reopen();
  auto after = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(after.error_code, 0);
  EXPECT_EQ(after.group_epoch, before.group_epoch);
  EXPECT_EQ(after.assignment_epoch, before.assignment_epoch);
  EXPECT_EQ(after.group_state, before.group_state);
  ASSERT_EQ(after.members.size(), before.members.size());
  for (size_t i = 0; i < after.members.size(); ++i) {
    EXPECT_EQ(after.members[i].member_id, before.members[i].member_id);
    EXPECT_EQ(after.members[i].member_epoch, before.members[i].member_epoch);
    EXPECT_EQ(after.members[i].assignment, before.members[i].assignment);
    EXPECT_EQ(after.members[i].target_assignment, before.members[i].target_assignment);
    EXPECT_EQ(after.members[i].subscribed_topic_names, before.members[i].subscribed_topic_names);
  }
  EXPECT_EQ(Heartbeat("A", 2).error_code, 0);
  EXPECT_EQ(Heartbeat("B", b.member_epoch).error_code, 0);
}

// OffsetCommit v9+ and OffsetFetch v9+ carry the member epoch: checked as Kafka checks it.
TEST_F(ConsumerGroupCoordinatorTest, CommitsAndFetchesAreCheckedAgainstMemberEpochs) {
  auto a = Join("A");
  ASSERT_EQ(a.member_epoch, 1);
  auto commit = [&](int16_t version, int32_t epoch, const std::string& member) {
    std::vector<GroupCoordinator::CommitPartition> parts(1);
    parts[0].topic = std::string(1, 't');  // (a literal trips g++ 12's -Wrestrict)
    parts[0].topic_id = TopicId("t");
    parts[0].partition = 2;
    parts[0].offset = 42;
    coordinator_->CommitOffsets(version, "g", epoch, member, std::nullopt, -1, &parts);
    return parts[0].error_code;
  };
  EXPECT_EQ(commit(9, 1, "A"), 0);
  EXPECT_EQ(commit(9, 2, "A"), ke::kStaleMemberEpoch);
  EXPECT_EQ(commit(9, 1, "nobody"), ke::kUnknownMemberId);
  EXPECT_EQ(commit(8, 1, "A"), ke::kUnsupportedVersion);
  auto fetch = [&](std::optional<std::string> member, int32_t epoch) {
    return coordinator_->FetchOffsets("g", std::vector<GroupCoordinator::FetchTopic>{{"t", {2}}},
                                      member, epoch);
  };
  auto f = fetch(std::string("A"), 1);
  ASSERT_EQ(f.error_code, 0);
  ASSERT_EQ(f.offsets.size(), 1u);
  EXPECT_EQ(f.offsets[0].offset, 42);
  EXPECT_EQ(fetch(std::string("A"), 5).error_code, ke::kStaleMemberEpoch);
  EXPECT_EQ(fetch(std::string("nobody"), 1).error_code, ke::kUnknownMemberId);
  EXPECT_EQ(fetch(std::nullopt, -1).error_code, 0);  // an admin's fetch
  // An older epoch may still commit the partitions the member has had since then: B joins,
  // A gives up half and moves to epoch 2; an epoch-1 commit (in flight from before) is taken
  // for a partition A kept and refused for one it gave away.
  ASSERT_EQ(Join("B").error_code, 0);
  auto a2 = Heartbeat("A", 1, std::nullopt, Owned{{"t", {0, 1, 2, 3, 4, 5}}});
  auto a3 = Heartbeat("A", 1, std::nullopt, AssignmentOf(a2));
  ASSERT_EQ(a3.member_epoch, 2);
  const std::set<int32_t> kept = AssignmentOf(a2).at("t");
  int32_t kept_partition = *kept.begin(), gone_partition = -1;
  for (int32_t partition = 0; partition < 6; ++partition) {
    if (!kept.count(partition)) gone_partition = partition;
  }
  auto commit_at = [&](int32_t partition) {
    std::vector<GroupCoordinator::CommitPartition> parts(1);
    parts[0].topic = std::string(1, 't');  // (a literal trips g++ 12's -Wrestrict)
    parts[0].topic_id = TopicId("t");
    parts[0].partition = partition;
    parts[0].offset = 7;
    coordinator_->CommitOffsets(9, "g", 1, "A", std::nullopt, -1, &parts);
    return parts[0].error_code;
  };
  EXPECT_EQ(commit_at(kept_partition), 0);
  EXPECT_EQ(commit_at(gone_partition), ke::kStaleMemberEpoch);
  Reopen();
  EXPECT_EQ(fetch(std::nullopt, -1).offsets[0].offset, 42);
}

// ListGroups shows consumer groups with their type and state; DeleteGroups refuses one with
// members and deletes an empty one with tombstones (gone after a restart too).
TEST_F(ConsumerGroupCoordinatorTest, ListAndDelete) {
  ASSERT_EQ(Join("A").error_code, 0);
  auto listed = coordinator_->ListGroups({}, {"consumer"});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].group_id, "g");
  EXPECT_EQ(listed[0].type, "consumer");
  EXPECT_EQ(listed[0].protocol_type, "consumer");
  EXPECT_EQ(listed[0].state, "Stable");
  EXPECT_TRUE(coordinator_->ListGroups({}, {"classic"}).empty());
  EXPECT_TRUE(coordinator_->ListGroups({"Empty"}, {}).empty());
  EXPECT_EQ(coordinator_->DeleteGroup("g"), ke::kNonEmptyGroup);
  // The classic APIs do not see it as theirs.
  int16_t error = 0;
  auto classic = coordinator_->DescribeGroup("g", &error);
  ASSERT_TRUE(classic.has_value());
  EXPECT_EQ(classic->error_code, ke::kGroupIdNotFound);
  ASSERT_EQ(Heartbeat("A", -1).error_code, 0);
  EXPECT_EQ(coordinator_->ListGroups({"empty"}, {})[0].state, "Empty");
  EXPECT_EQ(coordinator_->DeleteGroup("g"), 0);
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").error_code, ke::kGroupIdNotFound);
  Reopen();
  EXPECT_TRUE(coordinator_->ListGroups({}, {}).empty());
}

// A static member that leaves with epoch -2 keeps its partitions for its instance; the instance
// comes back under a new member id and takes them over. Another member id for an instance that
// was not let go is refused.
TEST_F(ConsumerGroupCoordinatorTest, StaticMemberComesBackUnderANewId) {
  auto a = Join("A", {"t"}, "instance-1");
  ASSERT_EQ(a.error_code, 0);
  const Owned had = AssignmentOf(a);
  EXPECT_EQ(Join("A2", {"t"}, "instance-1").error_code, ke::kUnreleasedInstanceId);
  auto left = Heartbeat("A", -2, std::nullopt, std::nullopt, "instance-1");
  ASSERT_EQ(left.error_code, 0);
  EXPECT_EQ(left.member_epoch, -2);
  auto back = Join("A2", {"t"}, "instance-1");
  ASSERT_EQ(back.error_code, 0) << back.error_message.value_or("");
  EXPECT_EQ(AssignmentOf(back), had);
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].member_id, "A2");
  EXPECT_EQ(d.members[0].instance_id, "instance-1");
  EXPECT_EQ(Heartbeat("A", 1, std::nullopt, std::nullopt, "instance-1").error_code,
            ke::kFencedInstanceId);
}

// A corrupt consumer group record is skipped at load with a log line; the rest loads.
TEST_F(ConsumerGroupCoordinatorTest, CorruptRecordIsSkippedAtLoad) {
  ASSERT_EQ(Join("A").error_code, 0);
  std::shared_ptr<Log> log =
      *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor("g")});
  ConsumerGroupMember bogus;
  bogus.member_id = "Z";
  bogus.member_epoch = 1;
  bogus.assigned_partitions[TopicId("t")] = {{0, 1}};  // A has partition 0
  OffsetsRecord rec = ConsumerGroupCurrentMemberAssignmentRecord("g", bogus);
  std::vector<uint8_t> truncated = *rec.value;
  truncated.resize(truncated.size() - 4);
  BatchOptions o;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(kT0, Bytes(rec.key), Bytes(truncated)).ok());
  ASSERT_TRUE(b.Append(kT0, Bytes(rec.key), Bytes(*rec.value)).ok());  // contradicts A
  ASSERT_TRUE(log->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator).ok());
  Reopen();
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("Skipping the corrupt record")));
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("another member has")));
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.error_code, 0);
  bool found_a = false;
  for (const auto& m : d.members) {
    if (m.member_id == "A") {
      found_a = true;
      EXPECT_EQ(m.assignment.topic_partitions[0].partitions.size(), 6u);
    }
  }
  EXPECT_TRUE(found_a);
  EXPECT_EQ(Heartbeat("A", 1).error_code, 0);
}

}  // namespace
}  // namespace seglog
