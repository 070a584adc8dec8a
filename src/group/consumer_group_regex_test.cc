// Tests for the resolution of regular expression subscriptions as functions of a consumer
// group (consumer_group_heartbeat.h): when a resolution is due, what it matches, what applying
// it writes and when it moves the group epoch, and the tombstones of expressions nobody uses.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/coding.h"
#include "group/consumer_group.h"
#include "group/consumer_group_heartbeat.h"
#include "group/consumer_group_records.h"

namespace seglog {
namespace {

constexpr int64_t kNow = 1794024676000;
constexpr int64_t kTenMinutes = 600000;

ConsumerGroupMember RegexMember(const std::string& id, const std::string& regex) {
  ConsumerGroupMember m;
  m.member_id = id;
  m.subscribed_topic_regex = regex;
  return m;
}

// The record type of a record's key; negative for a tombstone.
int16_t TypeOf(const OffsetsRecord& r) {
  const int16_t type = LoadBEInt16(r.key.data());
  return r.value ? type : static_cast<int16_t>(-type);
}

class ConsumerGroupRegexTest : public ::testing::Test {
 protected:
  ConsumerGroupRegexTest() {
    topics_["t1"] = {Uuid::Random(), "t1", 3};
    topics_["t2"] = {Uuid::Random(), "t2", 1};
    topics_["x"] = {Uuid::Random(), "x", 2};
    ctx_.now_ms = kNow;
    ctx_.config = &config_;
    ctx_.topic_by_name = [this](const std::string& name) -> std::optional<ConsumerGroupTopic> {
      auto it = topics_.find(name);
      if (it == topics_.end()) return std::nullopt;
      return it->second;
    };
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : topics_) names.push_back(entry.first);
    return names;
  }

  std::map<std::string, ConsumerGroupTopic> topics_;
  GroupCoordinatorConfig config_;
  ConsumerGroupHeartbeatContext ctx_;
};

TEST_F(ConsumerGroupRegexTest, ResolutionMatchesWholeNamesOfEveryTopic) {
  std::vector<std::string> names = Names();
  names.push_back("__consumer_offsets");
  auto r = ResolveRegularExpressions({"t.", "t", "__.*", "x|t2", "(", "1"}, names, 7, kNow);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r["t."].topics, (std::set<std::string>{"t1", "t2"}));
  EXPECT_TRUE(r["t"].topics.empty());  // a prefix is no match: whole names only
  EXPECT_EQ(r["__.*"].topics, std::set<std::string>{"__consumer_offsets"});  // internal too
  EXPECT_EQ(r["x|t2"].topics, (std::set<std::string>{"t2", "x"}));
  EXPECT_TRUE(r["("].topics.empty());  // does not compile: nothing
  EXPECT_TRUE(r["1"].topics.empty());
  for (const auto& [regex, resolved] : r) {
    EXPECT_EQ(resolved.version, 7) << regex;
    EXPECT_EQ(resolved.timestamp_ms, kNow) << regex;
  }
}

TEST_F(ConsumerGroupRegexTest, RefreshIsDueAsKafkaDecidesIt) {
  ConsumerGroup g("g");
  // No expressions: never.
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow, 5, kTenMinutes, true));
  g.UpdateMember(RegexMember("A", "t."));
  // Unresolved, none ever resolved: at once.
  EXPECT_TRUE(RegularExpressionRefreshDue(g, kNow, 0, kTenMinutes, false));
  g.SetResolvedRegularExpression("t.", {{"t1", "t2"}, 5, kNow});
  // Resolved, nothing new: not for ten minutes; the 10 s gap holds even when required.
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + 5000, 5, kTenMinutes, true));
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + 10000, 5, kTenMinutes, true));
  EXPECT_TRUE(RegularExpressionRefreshDue(g, kNow + 10001, 5, kTenMinutes, true));
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + 10001, 5, kTenMinutes, false));
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + kTenMinutes, 5, kTenMinutes, false));
  EXPECT_TRUE(RegularExpressionRefreshDue(g, kNow + kTenMinutes + 1, 5, kTenMinutes, false));
  // Topics created since (a newer version): after the 10 s gap.
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + 10000, 6, kTenMinutes, false));
  EXPECT_TRUE(RegularExpressionRefreshDue(g, kNow + 10001, 6, kTenMinutes, false));
  // A second expression, unresolved: after the gap.
  g.UpdateMember(RegexMember("B", "x"));
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + 10000, 5, kTenMinutes, false));
  EXPECT_TRUE(RegularExpressionRefreshDue(g, kNow + 10001, 5, kTenMinutes, false));
  // The same expression for two members counts once.
  g.SetResolvedRegularExpression("x", {{"x"}, 5, kNow});
  g.UpdateMember(RegexMember("C", "x"));
  EXPECT_EQ(g.NumSubscribedMembers("x"), 2);
  EXPECT_FALSE(RegularExpressionRefreshDue(g, kNow + 10001, 5, kTenMinutes, false));
  EXPECT_EQ(g.LastResolvedRegularExpressionVersion(), 5);
  EXPECT_EQ(g.LastRegularExpressionRefreshMs(), kNow);
  g.RemoveResolvedRegularExpression("x");
  g.RemoveResolvedRegularExpression("t.");
  EXPECT_EQ(g.LastResolvedRegularExpressionVersion(), 0);
  EXPECT_EQ(g.LastRegularExpressionRefreshMs(), std::numeric_limits<int64_t>::min());
}

TEST_F(ConsumerGroupRegexTest, ApplyingAResolutionMovesTheEpochOnlyWhenTopicsChanged) {
  ConsumerGroup g("g");
  g.set_group_epoch(1);
  g.set_assignment_epoch(1);
  g.UpdateMember(RegexMember("A", "t."));
  g.UpdateMember(RegexMember("B", "none"));

  // "none" matches nothing the first time: as before (empty), no epoch move for it; "t."
  // found topics: one epoch move, records 16, 16, 3.
  auto records = ApplyRegularExpressionResolution(
      &g, ResolveRegularExpressions({"t.", "none", "gone"}, Names(), 1, kNow), ctx_);
  ASSERT_EQ(records.size(), 3u);  // "gone" has no member: skipped
  EXPECT_EQ(TypeOf(records[0]), 16);
  EXPECT_EQ(TypeOf(records[1]), 16);
  EXPECT_EQ(TypeOf(records[2]), 3);
  EXPECT_EQ(g.group_epoch(), 2);
  EXPECT_NE(g.metadata_hash(), 0);
  EXPECT_EQ(g.SubscribedTopics(), (std::set<std::string>{"t1", "t2"}));
  EXPECT_EQ(g.MemberTopics(*g.FindMember("A")), (std::set<std::string>{"t1", "t2"}));
  EXPECT_TRUE(g.MemberTopics(*g.FindMember("B")).empty());
  EXPECT_EQ(g.FindResolvedRegularExpression("gone"), nullptr);

  // The same topics again: the records (new time), no epoch move.
  records = ApplyRegularExpressionResolution(
      &g, ResolveRegularExpressions({"t.", "none"}, Names(), 2, kNow + 20000), ctx_);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(g.group_epoch(), 2);
  EXPECT_EQ(g.LastRegularExpressionRefreshMs(), kNow + 20000);

  // A new topic: the epoch moves.
  topics_["t3"] = {Uuid::Random(), "t3", 1};
  records = ApplyRegularExpressionResolution(
      &g, ResolveRegularExpressions({"t.", "none"}, Names(), 3, kNow + 40000), ctx_);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(g.group_epoch(), 3);

  // Same names, but a topic got partitions (the hash): the epoch moves too.
  topics_["t3"].partitions = 4;
  records = ApplyRegularExpressionResolution(
      &g, ResolveRegularExpressions({"t.", "none"}, Names(), 3, kNow + 60000), ctx_);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(g.group_epoch(), 4);
}

TEST_F(ConsumerGroupRegexTest, TombstonesOfExpressionsNobodyUses) {
  ConsumerGroup g("g");
  g.set_group_epoch(3);
  g.set_assignment_epoch(3);
  g.UpdateMember(RegexMember("A", "t."));
  g.UpdateMember(RegexMember("B", "t."));
  g.UpdateMember(RegexMember("C", "x"));
  ApplyRegularExpressionResolution(&g, ResolveRegularExpressions({"t.", "x"}, Names(), 1, kNow),
                                   ctx_);
  const int64_t hash = g.metadata_hash();

  // A leaves: "t." still has B - member tombstones (8, 7, 5) and the epoch (3) only.
  auto records = FenceConsumerGroupMember(&g, "A", ctx_);
  std::vector<int16_t> types;
  for (const auto& r : records) types.push_back(TypeOf(r));
  EXPECT_EQ(types, (std::vector<int16_t>{-8, -7, -5, 3}));
  EXPECT_EQ(g.metadata_hash(), hash);
  // C leaves: "x" has nobody - its tombstone before the epoch, whose hash no longer has x.
  records = FenceConsumerGroupMember(&g, "C", ctx_);
  types.clear();
  for (const auto& r : records) types.push_back(TypeOf(r));
  EXPECT_EQ(types, (std::vector<int16_t>{-8, -7, -5, -16, 3}));
  EXPECT_EQ(g.FindResolvedRegularExpression("x"), nullptr);
  EXPECT_NE(g.metadata_hash(), hash);
  EXPECT_EQ(g.SubscribedTopics(), (std::set<std::string>{"t1", "t2"}));

  // Deleting the group: the resolved expression's tombstone after the members' metadata and
  // before the partition metadata and the epoch (Kafka's createGroupTombstoneRecords).
  records = ConsumerGroupTombstones(g);
  types.clear();
  for (const auto& r : records) types.push_back(TypeOf(r));
  EXPECT_EQ(types, (std::vector<int16_t>{-8, -7, -6, -5, -16, -4, -3}));
}

TEST_F(ConsumerGroupRegexTest, RecordRoundTrips) {
  ResolvedRegularExpression r{{"b", "a", "__consumer_offsets"}, 42, kNow};
  OffsetsRecord rec = ConsumerGroupRegularExpressionRecord("g", "a|b|__.*", r);
  auto loaded = DecodeConsumerGroupRecord(rec.key, std::span<const uint8_t>(*rec.value));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const auto& rx = std::get<LoadedConsumerGroupRegularExpression>(*loaded);
  EXPECT_EQ(rx.group, "g");
  EXPECT_EQ(rx.regex, "a|b|__.*");
  ASSERT_TRUE(rx.value.has_value());
  EXPECT_EQ(*rx.value, r);
  OffsetsRecord tomb = ConsumerGroupRegularExpressionTombstone("g", "a|b|__.*");
  auto gone = DecodeConsumerGroupRecord(tomb.key, std::nullopt);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(std::get<LoadedConsumerGroupRegularExpression>(*gone).value.has_value());
  // A value cut short is corrupt.
  std::vector<uint8_t> cut(rec.value->begin(), rec.value->end() - 3);
  EXPECT_TRUE(
      DecodeConsumerGroupRecord(rec.key, std::span<const uint8_t>(cut)).status().IsCorruption());
}

}  // namespace
}  // namespace seglog
