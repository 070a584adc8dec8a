// Tests for the online migration between the classic and the consumer group protocols
// (group.consumer.migration.policy, Kafka's default bidirectional), driven the way Kafka's
// clients drive it: classic KafkaConsumers (JoinGroup/SyncGroup/Heartbeat with real
// ConsumerProtocol bytes) in a group that a group.protocol=consumer member joins (upgrade), the
// classic members living on inside the consumer group, and the group going back to the classic
// protocol when its last consumer-protocol member leaves (downgrade) - with the records that
// make each step survive a restart, and the refusals (policy, protocol type, custom assignor).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "group/classic_group.h"
#include "group/consumer_group_records.h"
#include "group/consumer_protocol.h"
#include "group/coordinator_test_base.h"
#include "group/group_conversion.h"
#include "group/group_coordinator.h"
#include "group/offsets_records.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using ::testing::HasSubstr;

using Named = std::map<std::string, std::set<int32_t>>;  // topic name -> partitions

constexpr int32_t kSession = 10000;
constexpr int32_t kRebalance = 20000;

// A ConsumerProtocolSubscription v3 of `topics`, owning `owned`.
std::vector<uint8_t> Subscription(const std::vector<std::string>& topics, const Named& owned = {},
                                  std::optional<std::vector<uint8_t>> user_data = std::nullopt) {
  p::ConsumerProtocolSubscription s;
  s.topics = topics;
  s.user_data = std::move(user_data);
  for (const auto& [t, ps] : owned) {
    auto& o = s.owned_partitions.emplace_back();
    o.topic = t;
    o.partitions.assign(ps.begin(), ps.end());
  }
  p::ProtocolWriter w;
  w.WriteInt16(3);
  EXPECT_TRUE(s.Encode(&w, 3).ok());
  return w.bytes();
}

Named Decoded(const std::vector<uint8_t>& assignment) {
  Named out;
  if (assignment.empty()) return out;
  auto a = DecodeConsumerProtocolAssignment(assignment);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return out;
  for (const auto& t : a->assigned_partitions)
    out[t.topic].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

class GroupMigrationTest : public CoordinatorTestBase {
 protected:
  void SetUp() override { OpenWith({}); }
  void OpenWith(std::map<std::string, std::string> props) {
    props.emplace("group.initial.rebalance.delay.ms", "0");
    Open(props);
    if (!logs_->FindTopic("t").ok()) {
      ASSERT_TRUE(logs_->CreateTopic("t", 6, {}).ok());
    }
  }
  void Advance(int64_t ms) { scheduler_->Advance(ms); }
  Uuid TopicId(const std::string& name) { return *Uuid::Parse(logs_->FindTopic(name)->topic_id); }

  // A classic KafkaConsumer of topic "t" (the Java client's default protocols, range first).
  struct Classic {
    std::string id;
    int32_t generation = -1;
    Named owned;
    std::optional<std::string> instance;  // group.instance.id
  };

  std::shared_ptr<std::optional<p::JoinGroupResponseData>> JoinRaw(
      const std::string& member_id, const Named& owned, std::string protocol_type = "consumer",
      std::optional<std::vector<uint8_t>> user_data = std::nullopt, int16_t version = 9,
      std::optional<std::string> instance = std::nullopt) {
    p::JoinGroupRequestData req;
    req.group_id = "g";
    req.member_id = member_id;
    req.group_instance_id = instance;
    req.session_timeout_ms = kSession;
    req.rebalance_timeout_ms = kRebalance;
    req.protocol_type = protocol_type;
    for (const char* name : {"range", "cooperative-sticky"}) {
      auto& pr = req.protocols.emplace_back();
      pr.name = name;
      pr.metadata = Subscription({"t"}, owned, user_data);
    }
    auto slot = std::make_shared<std::optional<p::JoinGroupResponseData>>();
    coordinator_->JoinGroup(version, {"client", "/127.0.0.1"}, req,
                            [slot](p::JoinGroupResponseData r) { *slot = std::move(r); });
    return slot;
  }
  std::shared_ptr<std::optional<p::SyncGroupResponseData>> SyncRaw(
      const Classic& c, std::vector<std::pair<std::string, Named>> assignments = {}) {
    p::SyncGroupRequestData req;
    req.group_id = "g";
    req.generation_id = c.generation;
    req.member_id = c.id;
    req.protocol_type = "consumer";
    req.protocol_name = "range";
    for (const auto& [id, a] : assignments) {
      auto& e = req.assignments.emplace_back();
      e.member_id = id;
      e.assignment = EncodeConsumerProtocolAssignment(a, 3);
    }
    auto slot = std::make_shared<std::optional<p::SyncGroupResponseData>>();
    coordinator_->SyncGroup(5, req, [slot](p::SyncGroupResponseData r) { *slot = std::move(r); });
    return slot;
  }
  int16_t ClassicHeartbeat(const Classic& c) {
    return coordinator_->Heartbeat("g", c.generation, c.id, c.instance);
  }

  // A classic group of two members: a gets t-0..2, b t-3..5 (the leader's range assignment).
  void FormClassicGroup(Classic* a, Classic* b) {
    for (Classic* c : {a, b}) {
      auto first = JoinRaw("", {});
      ASSERT_TRUE(first->has_value());
      ASSERT_EQ((*first)->error_code, ke::kMemberIdRequired);
      c->id = (*first)->member_id;
    }
    auto ja = JoinRaw(a->id, {});
    auto jb = JoinRaw(b->id, {});
    Advance(1);  // the initial rebalance delay (0 here) runs on the scheduler
    ASSERT_TRUE(ja->has_value() && jb->has_value());
    ASSERT_EQ((*ja)->error_code, 0);
    a->generation = (*ja)->generation_id;
    b->generation = (*jb)->generation_id;
    const std::string leader = (*ja)->leader;
    Classic& lead = leader == a->id ? *a : *b;
    Classic& follow = leader == a->id ? *b : *a;
    auto sf = SyncRaw(follow);
    auto sl = SyncRaw(lead, {{a->id, Named{{"t", {0, 1, 2}}}}, {b->id, Named{{"t", {3, 4, 5}}}}});
    ASSERT_TRUE(sf->has_value() && sl->has_value());
    a->owned = a->id == lead.id ? Decoded((*sl)->assignment) : Decoded((*sf)->assignment);
    b->owned = b->id == lead.id ? Decoded((*sl)->assignment) : Decoded((*sf)->assignment);
    ASSERT_EQ(a->owned, (Named{{"t", {0, 1, 2}}}));
    ASSERT_EQ(b->owned, (Named{{"t", {3, 4, 5}}}));
  }

  // What the Java client does after a heartbeat: on REBALANCE_IN_PROGRESS (or
  // ILLEGAL_GENERATION) an eager member gives up everything and joins again, then syncs.
  // Returns the heartbeat's error.
  int16_t Step(Classic* c) {
    const int16_t e = ClassicHeartbeat(*c);
    if (e != ke::kRebalanceInProgress && e != ke::kIllegalGeneration) return e;
    c->owned.clear();  // eager: onPartitionsRevoked(all) before the join
    auto j = JoinRaw(c->id, {}, "consumer", std::nullopt, 9, c->instance);
    EXPECT_TRUE(j->has_value()) << "a join into a consumer group is answered at once";
    if (!j->has_value() || (*j)->error_code != 0) return e;
    EXPECT_EQ((*j)->leader, "");
    EXPECT_EQ((*j)->protocol_name, "range");
    EXPECT_TRUE((*j)->members.empty());
    c->generation = (*j)->generation_id;
    auto s = SyncRaw(*c);
    EXPECT_TRUE(s->has_value());
    if (s->has_value() && (*s)->error_code == 0) c->owned = Decoded((*s)->assignment);
    return e;
  }

  // A consumer-protocol member's heartbeat (epoch 0: join).
  p::ConsumerGroupHeartbeatResponseData Consumer(
      const std::string& id, int32_t epoch, std::optional<Named> owned,
      std::optional<std::string> instance = std::nullopt) {
    p::ConsumerGroupHeartbeatRequestData req;
    req.group_id = "g";
    req.member_id = id;
    req.member_epoch = epoch;
    req.instance_id = instance;
    if (epoch == 0) {
      req.rebalance_timeout_ms = kRebalance;
      req.subscribed_topic_names = std::vector<std::string>{"t"};
    }
    if (owned) {
      req.topic_partitions.emplace();
      for (const auto& [name, ps] : *owned) {
        auto& t = req.topic_partitions->emplace_back();
        t.topic_id = TopicId(name);
        t.partitions.assign(ps.begin(), ps.end());
      }
    }
    return coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, req);
  }
  struct ConsumerMember {
    std::string id;
    int32_t epoch = 0;
    Named owned;
  };
  void Step(ConsumerMember* m) {
    auto r = Consumer(m->id, m->epoch, m->owned);
    ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
    m->epoch = r.member_epoch;
    if (r.assignment) {
      m->owned.clear();
      for (const auto& t : r.assignment->topic_partitions) {
        ASSERT_EQ(t.topic_id, TopicId("t"));
        m->owned["t"].insert(t.partitions.begin(), t.partitions.end());
      }
    }
  }

  // A commit of t-`partition` (the topic moved in: g++ 12's -Wrestrict misfires on assigning
  // a literal to the field).
  static GroupCoordinator::CommitPartition CommitOf(int32_t partition, int64_t offset,
                                                    std::string topic = "t") {
    GroupCoordinator::CommitPartition c;
    c.topic = std::move(topic);
    c.partition = partition;
    c.offset = offset;
    return c;
  }
  static std::set<int32_t> Of(const Named& n) {
    auto it = n.find("t");
    return it == n.end() ? std::set<int32_t>{} : it->second;
  }
  // Whether the owned partitions are disjoint (always checked) and cover t, 2 each.
  static bool Settled(const std::vector<std::set<int32_t>>& owned) {
    std::set<int32_t> all;
    size_t n = 0;
    for (const auto& o : owned) {
      n += o.size();
      all.insert(o.begin(), o.end());
      EXPECT_LE(o.size(), 6u);
    }
    EXPECT_EQ(n, all.size()) << "two members own one partition";
    if (all.size() != 6) return false;
    for (const auto& o : owned) {
      if (o.size() != 6 / owned.size()) return false;
    }
    return true;
  }

  std::vector<int16_t> RecordTypesSince(int64_t offset) {
    std::vector<int16_t> types;
    auto log = *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor("g")});
    auto read = log->Read(offset, 1 << 20, true);
    EXPECT_TRUE(read.ok());
    auto bytes = read->slice.ReadAll();
    LogBatchWalker walker(*bytes);
    while (walker.Next()) {
      auto batch = RecordBatchView::Parse(walker.current_bytes());
      RecordIterator it(*batch);
      while (it.Next()) {
        const Record& r = it.record();
        types.push_back(static_cast<int16_t>((*r.key)[0] << 8 | (*r.key)[1]));
        if (!r.value) types.back() = static_cast<int16_t>(-types.back());  // tombstone: negative
      }
    }
    return types;
  }
  int64_t OffsetsEnd() {
    return (*logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor("g")}))
        ->log_end_offset();
  }
  std::string ListedType() {
    for (const auto& g : coordinator_->ListGroups({}, {})) {
      if (g.group_id == "g") return g.type + "/" + g.state;
    }
    return "none";
  }
};

// The upgrade: two classic members, then a consumer-protocol member joins. The group becomes a
// consumer group at once (GroupMetadata tombstone, then the converted group's records), the
// classic members are told to rejoin and are served inside it, and after a few heartbeats the
// three own disjoint partitions, two each, from the server-side assignor.
TEST_F(GroupMigrationTest, LiveClassicGroupUpgradesWhenAConsumerMemberJoins) {
  Classic a, b;
  FormClassicGroup(&a, &b);
  ASSERT_EQ(a.generation, 1);
  EXPECT_EQ(ListedType(), "classic/Stable");
  const int64_t before = OffsetsEnd();

  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  EXPECT_EQ(c.epoch, 2);             // the generation, bumped by c's subscription
  EXPECT_TRUE(Of(c.owned).empty());  // everything is still the classic members'
  std::vector<int16_t> types = RecordTypesSince(before);
  ASSERT_GE(types.size(), 9u);
  // GroupMetadata tombstone; the converted group: 5 5 3 7 7 6 8 8; then c's heartbeat.
  EXPECT_EQ(std::vector<int16_t>(types.begin(), types.begin() + 9),
            (std::vector<int16_t>{-2, 5, 5, 3, 7, 7, 6, 8, 8}));
  EXPECT_EQ(ListedType().substr(0, 9), "consumer/");
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.error_code, 0);
  ASSERT_EQ(d.members.size(), 3u);
  std::map<std::string, int8_t> kinds;
  for (const auto& m : d.members) kinds[m.member_id] = m.member_type;
  EXPECT_EQ(kinds[a.id], 0);
  EXPECT_EQ(kinds[b.id], 0);
  EXPECT_EQ(kinds[c.id], 1);
  int16_t dg = 0;
  EXPECT_EQ(coordinator_->DescribeGroup("g", &dg)->error_code, ke::kGroupIdNotFound);

  // The classic members learn of it from their heartbeats.
  EXPECT_EQ(ClassicHeartbeat(a), ke::kRebalanceInProgress);
  bool settled = false;
  for (int round = 0; round < 10 && !settled; ++round) {
    Step(&a);
    Step(&b);
    Step(&c);
    settled = Settled({Of(a.owned), Of(b.owned), Of(c.owned)}) && ClassicHeartbeat(a) == 0 &&
              ClassicHeartbeat(b) == 0;
  }
  EXPECT_TRUE(settled) << "a " << Of(a.owned).size() << ", b " << Of(b.owned).size() << ", c "
                       << Of(c.owned).size();
  // Classic members commit with their generation (= member epoch), at any version.
  std::vector<GroupCoordinator::CommitPartition> parts{CommitOf(*Of(a.owned).begin(), 7)};
  coordinator_->CommitOffsets(8, "g", a.generation, a.id, std::nullopt, -1, &parts);
  EXPECT_EQ(parts[0].error_code, 0);
  parts[0].error_code = 0;
  coordinator_->CommitOffsets(8, "g", a.generation - 1, a.id, std::nullopt, -1, &parts);
  EXPECT_EQ(parts[0].error_code, ke::kIllegalGeneration);

  // And it all survives a restart: the classic members keep their generation.
  Close();
  OpenWith({});
  EXPECT_EQ(ClassicHeartbeat(a), 0);
  d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.members.size(), 3u);
}

// The downgrade: when the last consumer-protocol member leaves, the classic members are a
// classic group again (consumer-group tombstones, then a GroupMetadata record), which
// rebalances: they rejoin, a leader assigns, and the group is Stable at the next generation.
TEST_F(GroupMigrationTest, LastConsumerMemberLeavingDowngrades) {
  Classic a, b;
  FormClassicGroup(&a, &b);
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  for (int round = 0; round < 10; ++round) {
    Step(&a);
    Step(&b);
    Step(&c);
  }
  ASSERT_TRUE(Settled({Of(a.owned), Of(b.owned), Of(c.owned)}));
  const int64_t before = OffsetsEnd();
  const int32_t epoch = coordinator_->DescribeConsumerGroup("g").group_epoch;

  auto left = Consumer(c.id, -1, std::nullopt);
  ASSERT_EQ(left.error_code, 0);
  EXPECT_EQ(left.member_epoch, -1);
  // 8 8 8 7 7 7 6 5 5 5 4 3 tombstones, then the classic group.
  std::vector<int16_t> types = RecordTypesSince(before);
  EXPECT_EQ(types, (std::vector<int16_t>{-8, -8, -8, -7, -7, -7, -6, -5, -5, -5, -4, -3, 2}));
  EXPECT_EQ(ListedType(), "classic/PreparingRebalance");
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").error_code, ke::kGroupIdNotFound);

  // The members rejoin the classic way.
  EXPECT_EQ(ClassicHeartbeat(a), ke::kRebalanceInProgress);
  auto ja = JoinRaw(a.id, {});
  EXPECT_FALSE(ja->has_value());  // waits for b
  EXPECT_EQ(ClassicHeartbeat(b), ke::kRebalanceInProgress);
  auto jb = JoinRaw(b.id, {});
  ASSERT_TRUE(ja->has_value() && jb->has_value());
  ASSERT_EQ((*ja)->error_code, 0);
  EXPECT_EQ((*ja)->generation_id, epoch + 1);
  EXPECT_EQ((*ja)->protocol_name, "range");
  EXPECT_FALSE((*ja)->leader.empty());
  const bool a_leads = (*ja)->leader == a.id;
  EXPECT_EQ((a_leads ? *ja : *jb)->members.size(), 2u);
  a.generation = b.generation = epoch + 1;
  auto sa = SyncRaw(
      a, a_leads ? std::vector<std::pair<std::string, Named>>{{a.id, Named{{"t", {0, 1, 2}}}},
                                                              {b.id, Named{{"t", {3, 4, 5}}}}}
                 : std::vector<std::pair<std::string, Named>>{});
  auto sb =
      SyncRaw(b, a_leads ? std::vector<std::pair<std::string, Named>>{}
                         : std::vector<std::pair<std::string, Named>>{
                               {a.id, Named{{"t", {0, 1, 2}}}}, {b.id, Named{{"t", {3, 4, 5}}}}});
  ASSERT_TRUE(sa->has_value() && sb->has_value());
  EXPECT_EQ(Decoded((*sa)->assignment), (Named{{"t", {0, 1, 2}}}));
  EXPECT_EQ(ListedType(), "classic/Stable");

  Close();
  OpenWith({});
  EXPECT_EQ(ListedType(), "classic/Stable");
  EXPECT_EQ(ClassicHeartbeat(a), 0);
}

// Right after the downgrade, the classic group's GroupMetadata record carries each member's
// target assignment of the consumer group (what it would have got next, without the leaver's
// share: the rebalance hands that out), and a restart at that point loads it.
TEST_F(GroupMigrationTest, DowngradedGroupCarriesTheTargetAssignment) {
  Classic a, b;
  FormClassicGroup(&a, &b);
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  std::map<std::string, std::set<int32_t>> targets;
  for (const auto& m : coordinator_->DescribeConsumerGroup("g").members) {
    for (const auto& t : m.target_assignment.topic_partitions) {
      targets[m.member_id].insert(t.partitions.begin(), t.partitions.end());
    }
  }
  ASSERT_EQ(targets[a.id].size(), 2u);
  ASSERT_EQ(targets[c.id].size(), 2u);
  ASSERT_EQ(Consumer(c.id, -1, std::nullopt).error_code, 0);
  Close();
  OpenWith({});
  int16_t e = 0;
  auto d = coordinator_->DescribeGroup("g", &e);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->group_state, "Stable");  // as written; the rebalance was not
  ASSERT_EQ(d->members.size(), 2u);
  for (const auto& m : d->members) {
    EXPECT_EQ(Of(Decoded(m.member_assignment)), targets[m.member_id]) << m.member_id;
  }
}

// A classic member joining a consumer group: MEMBER_ID_REQUIRED with a Kafka Uuid, then it is
// served at once (no leader; generation = its member epoch); its own session timeout fences it.
TEST_F(GroupMigrationTest, ClassicMemberJoinsAConsumerGroup) {
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  ASSERT_EQ(Of(c.owned).size(), 6u);
  auto first = JoinRaw("", {});
  ASSERT_TRUE(first->has_value());
  ASSERT_EQ((*first)->error_code, ke::kMemberIdRequired);
  Classic a{(*first)->member_id, -1, {}, std::nullopt};
  EXPECT_EQ(a.id.size(), 22u);  // Kafka's Uuid, base64
  auto j = JoinRaw(a.id, {});
  ASSERT_TRUE(j->has_value());
  ASSERT_EQ((*j)->error_code, 0);
  a.generation = (*j)->generation_id;
  EXPECT_EQ(a.generation, 2);
  auto s = SyncRaw(a);
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->error_code, 0);
  EXPECT_TRUE(Decoded((*s)->assignment).empty());  // c has not released anything yet
  for (int round = 0; round < 6; ++round) {
    Step(&c);
    Step(&a);
  }
  EXPECT_TRUE(Settled({Of(a.owned), Of(c.owned)}));
  EXPECT_EQ(Step(&a), 0);

  // Wrong generation, other protocol type: Kafka's errors.
  Classic stale = a;
  stale.generation = a.generation - 1;
  EXPECT_EQ(ClassicHeartbeat(stale), ke::kIllegalGeneration);
  auto bad = JoinRaw(a.id, {}, "connect");
  ASSERT_TRUE(bad->has_value());
  EXPECT_EQ((*bad)->error_code, ke::kInconsistentGroupProtocol);

  // a stops heartbeating; c keeps going: a is fenced at its own session timeout.
  for (int i = 0; i < 12; ++i) {
    Advance(1000);
    Step(&c);
  }
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(ClassicHeartbeat(a), ke::kUnknownMemberId);
  bool logged = false;
  for (const auto& l : lines_)
    logged = logged || l.find("its session expired") != std::string::npos;
  EXPECT_TRUE(logged);
}

// The refusals (each GROUP_ID_NOT_FOUND with Kafka's reason, nothing written): the policy, a
// custom assignor whose userData would be lost, a group of another protocol type.
TEST_F(GroupMigrationTest, UpgradeRefusedByThePolicy) {
  Close();
  OpenWith({{"group.consumer.migration.policy", "Downgrade"}});
  Classic a, b;
  FormClassicGroup(&a, &b);
  int64_t end = OffsetsEnd();
  auto r = Consumer("c-member-0000000000001", 0, Named{});
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_THAT(r.error_message.value_or(""), HasSubstr("online upgrade is disabled"));
  EXPECT_EQ(OffsetsEnd(), end);
  EXPECT_EQ(ClassicHeartbeat(a), 0);  // still the classic group it was
}

TEST_F(GroupMigrationTest, CustomAssignorUserDataIsNotUpgraded) {
  // One member whose metadata carries a custom assignor's userData in its assignment.
  auto first = JoinRaw("", {});
  Classic m{(*first)->member_id, -1, {}, std::nullopt};
  auto j = JoinRaw(m.id, {});
  Advance(1);
  ASSERT_TRUE(j->has_value());
  m.generation = (*j)->generation_id;
  p::ConsumerProtocolAssignment custom;
  custom.assigned_partitions.emplace_back().topic = "t";
  custom.assigned_partitions.back().partitions = {0, 1, 2, 3, 4, 5};
  custom.user_data = std::vector<uint8_t>{1, 2, 3};
  p::ProtocolWriter w;
  w.WriteInt16(3);
  ASSERT_TRUE(custom.Encode(&w, 3).ok());
  p::SyncGroupRequestData req;
  req.group_id = "g";
  req.generation_id = m.generation;
  req.member_id = m.id;
  req.assignments.emplace_back().member_id = m.id;
  req.assignments.back().assignment = w.bytes();
  bool synced = false;
  coordinator_->SyncGroup(5, req, [&](p::SyncGroupResponseData s) { synced = s.error_code == 0; });
  ASSERT_TRUE(synced);
  const int64_t end = OffsetsEnd();
  auto r = Consumer("c-member-0000000000001", 0, Named{});
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_THAT(r.error_message.value_or(""), HasSubstr("unsupported custom assignor"));
  EXPECT_EQ(OffsetsEnd(), end);
  // A heartbeat that is not a join never converts.
  r = Consumer("c-member-0000000000001", 3, Named{});
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_THAT(r.error_message.value_or(""), HasSubstr("is not a consumer group"));
}

TEST_F(GroupMigrationTest, GroupOfAnotherProtocolTypeIsNotUpgraded) {
  auto first = JoinRaw("", {}, "connect");
  auto j = JoinRaw((*first)->member_id, {}, "connect");
  Advance(1);
  ASSERT_TRUE(j->has_value());
  ASSERT_EQ((*j)->error_code, 0);
  auto r = Consumer("c-member-0000000000001", 0, Named{});
  EXPECT_EQ(r.error_code, ke::kGroupIdNotFound);
  EXPECT_THAT(r.error_message.value_or(""),
              HasSubstr("does not use the consumer embedded protocol"));
}

// A classic LeaveGroup of every classic member leaves the consumer member alone in a consumer
// group (no downgrade: a consumer-protocol member remains); the classic members' partitions go
// to it.
TEST_F(GroupMigrationTest, ClassicMembersLeaveAConsumerGroup) {
  Classic a, b;
  FormClassicGroup(&a, &b);
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  auto out = coordinator_->LeaveGroup(
      "g", {{a.id, std::nullopt}, {b.id, std::nullopt}, {"nobody", std::nullopt}});
  EXPECT_EQ(out.error_code, 0);
  EXPECT_EQ(out.member_errors, (std::vector<int16_t>{0, 0, ke::kUnknownMemberId}));
  for (int i = 0; i < 3; ++i) Step(&c);
  EXPECT_EQ(Of(c.owned).size(), 6u);
  EXPECT_EQ(ListedType().substr(0, 9), "consumer/");
}

// The conversion functions on their own: the converted group's epochs, targets and classic
// metadata; two members given one partition are refused.
TEST(GroupConversionTest, ClassicGroupToConsumerGroupAndBack) {
  const Uuid t = *Uuid::Parse("AAAAAAAAAAAAAAAAAAAAAQ");
  auto topic = [&](const std::string& name) -> std::optional<ConsumerGroupTopic> {
    if (name != "t") return std::nullopt;
    return ConsumerGroupTopic{t, "t", 4};
  };
  auto make = [](const std::string& id, Named assigned) {
    ClassicGroupMember m;
    m.member_id = id;
    m.client_id = "client";
    m.client_host = "/127.0.0.1";
    m.rebalance_timeout_ms = kRebalance;
    m.session_timeout_ms = kSession;
    m.protocol_type = "consumer";
    m.protocols.push_back({"range", Subscription({"t", "gone"})});
    m.assignment = EncodeConsumerProtocolAssignment(assigned, 3);
    return m;
  };
  ClassicGroup g("g", 0);
  g.RestoreFromRecord(5, "consumer", "range", "a", 0,
                      {make("a", {{"t", {0, 1}}, {"gone", {0}}}), make("b", {{"t", {2, 3}}})});
  auto cg = ConsumerGroupFromClassicGroup(g, topic);
  ASSERT_TRUE(cg.ok()) << cg.status().ToString();
  EXPECT_EQ(cg->group_epoch(), 5);
  EXPECT_EQ(cg->assignment_epoch(), 5);
  const ConsumerGroupMember& a = *cg->FindMember("a");
  EXPECT_EQ(a.member_epoch, 5);
  EXPECT_EQ(a.subscribed_topic_names, (std::vector<std::string>{"gone", "t"}));
  ASSERT_TRUE(a.classic.has_value());
  EXPECT_EQ(a.classic->session_timeout_ms, kSession);
  EXPECT_EQ(PartitionsOf(a.assigned_partitions), (TopicPartitions{{t, {0, 1}}}));
  EXPECT_EQ(cg->TargetOf("b"), (TopicPartitions{{t, {2, 3}}}));
  std::vector<int16_t> types;
  for (const OffsetsRecord& r : ConsumerGroupRecords(*cg, 0)) {
    types.push_back(static_cast<int16_t>(r.key[0] << 8 | r.key[1]));
  }
  EXPECT_EQ(types, (std::vector<int16_t>{5, 5, 3, 7, 7, 6, 8, 8}));

  // Back: Stable at the group epoch, a leads, each member assigned its target.
  auto back = ClassicGroupFromConsumerGroup(
      *cg, {},
      [&](const Uuid& id) { return id == t ? std::optional<std::string>("t") : std::nullopt; }, 0);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE((*back)->Is(ClassicGroupState::kStable));
  EXPECT_EQ((*back)->generation(), 5);
  EXPECT_EQ((*back)->protocol_name(), "range");
  EXPECT_EQ((*back)->leader_id(), "a");
  EXPECT_EQ(Decoded((*back)->FindMember("b")->assignment), (Named{{"t", {2, 3}}}));

  // One partition in two assignments.
  ClassicGroup bad("g", 0);
  bad.RestoreFromRecord(5, "consumer", "range", "a", 0,
                        {make("a", {{"t", {0, 1}}}), make("b", {{"t", {1, 2}}})});
  auto refused = ConsumerGroupFromClassicGroup(bad, topic);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("assigned to two members"));
  // Malformed embedded protocol bytes.
  ClassicGroupMember junk = make("a", {});
  junk.protocols[0].metadata = {0x00};
  ClassicGroup bad2("g", 0);
  bad2.RestoreFromRecord(5, "consumer", "range", "a", 0, {junk});
  EXPECT_THAT(ConsumerGroupFromClassicGroup(bad2, topic).status().message(),
              HasSubstr("malformed"));
}

// An upgrade in the middle of a classic rebalance: the parked JoinGroup is answered
// REBALANCE_IN_PROGRESS (with its member id) and joins again into the consumer group; a member
// that joined but never synced is converted with nothing assigned.
TEST_F(GroupMigrationTest, UpgradeDuringAClassicRebalance) {
  Classic a, b;
  FormClassicGroup(&a, &b);
  auto first = JoinRaw("", {});
  Classic x{(*first)->member_id, -1, {}, std::nullopt};
  auto parked = JoinRaw(x.id, {});
  EXPECT_FALSE(parked->has_value());  // the group rebalances and waits for a and b
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  ASSERT_TRUE(parked->has_value());
  EXPECT_EQ((*parked)->error_code, ke::kRebalanceInProgress);
  EXPECT_EQ((*parked)->member_id, x.id);
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.members.size(), 4u);
  for (const auto& m : d.members) {
    if (m.member_id == x.id) {
      EXPECT_TRUE(m.assignment.topic_partitions.empty());
    }
  }
  for (int round = 0; round < 10; ++round) {
    Step(&a);
    Step(&b);
    Step(&x);
    Step(&c);
  }
  (void)Settled({Of(a.owned), Of(b.owned), Of(x.owned), Of(c.owned)});  // checks disjoint
  size_t total = 0;
  for (const Named* o : {&a.owned, &b.owned, &x.owned, &c.owned}) {
    EXPECT_GE(Of(*o).size(), 1u);  // 6 over 4: one or two each
    EXPECT_LE(Of(*o).size(), 2u);
    total += Of(*o).size();
  }
  EXPECT_EQ(total, 6u);
}

// A classic group as large as group.consumer.max.size cannot take one more member: the join is
// GROUP_MAX_SIZE_REACHED and nothing is written; the classic group carries on.
TEST_F(GroupMigrationTest, UpgradeThatWouldOverfillTheGroupIsRefused) {
  Close();
  OpenWith({{"group.consumer.max.size", "2"}});
  Classic a, b;
  FormClassicGroup(&a, &b);
  const int64_t end = OffsetsEnd();
  auto r = Consumer("c-member-0000000000001", 0, Named{});
  EXPECT_EQ(r.error_code, ke::kGroupMaxSizeReached);
  EXPECT_EQ(OffsetsEnd(), end);
  EXPECT_EQ(ClassicHeartbeat(a), 0);
  EXPECT_EQ(ListedType(), "classic/Stable");
}

// A classic member in a consumer group that joins and never syncs is fenced at its rebalance
// timeout; one told to join again that does not, likewise.
TEST_F(GroupMigrationTest, ClassicMemberThatDoesNotSyncIsFenced) {
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  auto first = JoinRaw("", {});
  Classic a{(*first)->member_id, -1, {}, std::nullopt};
  auto j = JoinRaw(a.id, {});
  ASSERT_EQ((*j)->error_code, 0);
  a.generation = (*j)->generation_id;
  for (int i = 0; i < 21; ++i) {  // heartbeats keep its session; no SyncGroup
    Advance(1000);
    Step(&c);
    ClassicHeartbeat(a);
  }
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").members.size(), 1u);
  bool logged = false;
  for (const auto& l : lines_) logged = logged || l.find("failed to sync") != std::string::npos;
  EXPECT_TRUE(logged);
}

// The downgrade also follows a consumer member's session timeout.
TEST_F(GroupMigrationTest, DowngradeOnASessionTimeout) {
  Classic a, b;
  FormClassicGroup(&a, &b);
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  for (int round = 0; round < 10; ++round) {
    Step(&a);
    Step(&b);
    Step(&c);
  }
  ASSERT_TRUE(Settled({Of(a.owned), Of(b.owned), Of(c.owned)}));
  for (int i = 0; i < 46; ++i) {  // c goes silent; the classic members heartbeat
    Advance(1000);
    EXPECT_EQ(ClassicHeartbeat(a),
              ListedType().substr(0, 8) == "classic/" ? ke::kRebalanceInProgress : 0);
    ClassicHeartbeat(b);
  }
  EXPECT_EQ(ListedType(), "classic/PreparingRebalance");
}

// The policy `upgrade` keeps the group a consumer group (of classic members only) when the
// last consumer-protocol member leaves.
TEST_F(GroupMigrationTest, NoDowngradeUnderTheUpgradePolicy) {
  Close();
  OpenWith({{"group.consumer.migration.policy", "UPGRADE"}});
  Classic a, b;
  FormClassicGroup(&a, &b);
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  const int64_t before = OffsetsEnd();
  ASSERT_EQ(Consumer(c.id, -1, std::nullopt).error_code, 0);
  EXPECT_EQ(RecordTypesSince(before), (std::vector<int16_t>{-8, -7, -5, 3}));
  EXPECT_EQ(ListedType().substr(0, 9), "consumer/");
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").members.size(), 2u);
}

// Static members across protocols: a consumer-protocol member takes over a classic static
// member's instance id at once (no UNRELEASED_INSTANCE_ID: the classic one sends no leave of
// its own); a classic static member restarting under a new id keeps its place without moving
// the group epoch.
TEST_F(GroupMigrationTest, StaticMembersAcrossProtocols) {
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  auto j = JoinRaw("", {}, "consumer", std::nullopt, 9, "static-1");
  ASSERT_EQ((*j)->error_code, 0);
  Classic s1{(*j)->member_id, (*j)->generation_id, {}, "static-1"};
  for (int round = 0; round < 6; ++round) {
    Step(&c);
    Step(&s1);
  }
  const int32_t epoch = coordinator_->DescribeConsumerGroup("g").group_epoch;
  const int64_t before = OffsetsEnd();
  auto j2 = JoinRaw("", {}, "consumer", std::nullopt, 9, "static-1");  // restarted
  ASSERT_EQ((*j2)->error_code, 0);
  EXPECT_NE((*j2)->member_id, s1.id);
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").group_epoch, epoch);
  std::vector<int16_t> types = RecordTypesSince(before);
  ASSERT_GE(types.size(), 6u);
  EXPECT_EQ(std::vector<int16_t>(types.begin(), types.begin() + 6),
            (std::vector<int16_t>{-8, -7, -5, 5, 7, 8}));
  EXPECT_EQ(ClassicHeartbeat(s1), ke::kFencedInstanceId);  // the old id is fenced

  auto k = Consumer("k-member-0000000000001", 0, Named{}, "static-1");
  EXPECT_EQ(k.error_code, 0) << k.error_message.value_or("");
  auto d = coordinator_->DescribeConsumerGroup("g");
  ASSERT_EQ(d.members.size(), 2u);
  for (const auto& m : d.members) EXPECT_EQ(m.member_type, 1) << m.member_id;
}

// LeaveGroup of several classic members of a consumer group: each one's tombstones, then one
// epoch bump; a member named by its instance id alone.
TEST_F(GroupMigrationTest, LeaveGroupOfSeveralMembersBumpsTheEpochOnce) {
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  auto ja = JoinRaw("", {}, "consumer", std::nullopt, 9, "static-a");
  auto first = JoinRaw("", {});
  auto jb = JoinRaw((*first)->member_id, {});
  ASSERT_EQ((*ja)->error_code, 0);
  ASSERT_EQ((*jb)->error_code, 0);
  const int32_t epoch = coordinator_->DescribeConsumerGroup("g").group_epoch;
  const int64_t before = OffsetsEnd();
  auto out = coordinator_->LeaveGroup("g", {{"", "static-a"}, {(*jb)->member_id, std::nullopt}});
  EXPECT_EQ(out.member_errors, (std::vector<int16_t>{0, 0}));
  EXPECT_EQ(RecordTypesSince(before), (std::vector<int16_t>{-8, -7, -5, -8, -7, -5, 3}));
  EXPECT_EQ(coordinator_->DescribeConsumerGroup("g").group_epoch, epoch + 1);
}

// JoinGroup to an Empty consumer group: one that cannot create a classic group (a member id
// the group never gave) is refused and the consumer group stays; a new member's join turns it
// into a classic group (the consumer group's tombstones, 4 included).
TEST_F(GroupMigrationTest, JoinGroupToAnEmptyConsumerGroup) {
  ConsumerMember c{"c-member-0000000000001", 0, {}};
  Step(&c);
  ASSERT_EQ(Consumer(c.id, -1, std::nullopt).error_code, 0);
  EXPECT_EQ(ListedType(), "consumer/Empty");
  auto stale = JoinRaw("someone", {});
  ASSERT_TRUE(stale->has_value());
  EXPECT_EQ((*stale)->error_code, ke::kUnknownMemberId);
  EXPECT_EQ(ListedType(), "consumer/Empty");
  const int64_t before = OffsetsEnd();
  auto first = JoinRaw("", {});
  ASSERT_EQ((*first)->error_code, ke::kMemberIdRequired);
  std::vector<int16_t> types = RecordTypesSince(before);
  ASSERT_GE(types.size(), 4u);
  EXPECT_EQ(std::vector<int16_t>(types.begin(), types.begin() + 4),
            (std::vector<int16_t>{-6, -4, -3, 2}));
  EXPECT_EQ(ListedType(), "classic/Empty");
}

}  // namespace
}  // namespace seglog
