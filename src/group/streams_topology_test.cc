// Tests for the validation of streams topologies against topic metadata: statuses (missing
// source topics, incorrectly partitioned topics, missing internal topics) with Kafka 4.4.0's
// messages, repartition partition counts, copartitioning, STREAMS_INVALID_TOPOLOGY failures,
// task counts, and the conversion from a heartbeat's topology.
#include "group/streams_topology.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

using TopicInfo = protocol::StreamsGroupTopologyValue::TopicInfo;

TopicInfo Info(std::string name, int32_t partitions = 0) {
  TopicInfo t;
  t.name = std::move(name);
  t.partitions = partitions;
  return t;
}

StreamsTopology::Subtopology& Sub(StreamsTopology* t, const std::string& id) {
  auto& s = t->subtopologies[id];
  s.subtopology_id = id;
  return s;
}

void Copartition(StreamsTopology::Subtopology* s, std::vector<int16_t> sources,
                 std::vector<int16_t> repartition_sources) {
  auto& g = s->copartition_groups.emplace_back();
  g.source_topics = std::move(sources);
  g.repartition_source_topics = std::move(repartition_sources);
}

TEST(StreamsTopologyTest, ChangelogTopicsAreCreatedWithTheSourcePartitions) {
  StreamsTopology t;
  t.epoch = 3;
  auto& s = Sub(&t, "0");
  s.source_topics = {"in", "in2"};
  TopicInfo cl = Info("app-store-changelog");
  auto& c = cl.topic_configs.emplace_back();
  c.key = "cleanup.policy";
  c.value = "compact";
  s.state_changelog_topics.push_back(cl);

  auto r = ConfigureStreamsTopology(t, 42, {{"in", 4}, {"in2", 6}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->topology_epoch, 3);
  EXPECT_EQ(r->metadata_hash, 42);
  EXPECT_FALSE(r->ready());
  EXPECT_EQ(r->status, StreamsGroupStatus::kMissingInternalTopics);
  EXPECT_EQ(r->status_detail, "Internal topics are missing: app-store-changelog");
  ASSERT_EQ(r->internal_topics_to_create.size(), 1u);
  const StreamsInternalTopic& created = r->internal_topics_to_create.at("app-store-changelog");
  EXPECT_EQ(created.partitions, 6);
  EXPECT_EQ(created.replication_factor, -1);  // the broker's default
  EXPECT_EQ(created.configs.at("cleanup.policy"), "compact");
  ASSERT_TRUE(r->subtopologies.has_value());
  EXPECT_EQ(r->subtopologies->at("0").number_of_tasks, 6);
  EXPECT_TRUE(r->subtopologies->at("0").stateful());

  // Once it exists, the topology is ready.
  r = ConfigureStreamsTopology(t, 42, {{"in", 4}, {"in2", 6}, {"app-store-changelog", 6}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ready());
  EXPECT_TRUE(r->internal_topics_to_create.empty());

  // With another partition count it is incorrectly partitioned.
  r = ConfigureStreamsTopology(t, 42, {{"in", 4}, {"in2", 6}, {"app-store-changelog", 2}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, StreamsGroupStatus::kIncorrectlyPartitionedTopics);
  EXPECT_EQ(r->status_detail,
            "Existing topic app-store-changelog has different number of partitions: expected 6, "
            "found 2");
  EXPECT_FALSE(r->subtopologies.has_value());
}

TEST(StreamsTopologyTest, MissingSourceTopicsAreSummarized) {
  StreamsTopology t;
  Sub(&t, "0").source_topics = {"d", "b"};
  Sub(&t, "1").source_topics = {"a", "c", "e"};
  auto r = ConfigureStreamsTopology(t, 0, {{"e", 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, StreamsGroupStatus::kMissingSourceTopics);
  EXPECT_EQ(r->status_detail, "Source topics a, b, c and 1 additional topics are missing.");
  EXPECT_FALSE(r->subtopologies.has_value());
  EXPECT_TRUE(r->internal_topics_to_create.empty());
  EXPECT_EQ(SummarizeTopics({}), "<none>");
  EXPECT_EQ(SummarizeTopics({"x"}), "x");
}

TEST(StreamsTopologyTest, RepartitionTopicsTakeTheWritersSourcePartitions) {
  StreamsTopology t;
  auto& s0 = Sub(&t, "0");
  s0.source_topics = {"in"};
  s0.repartition_sink_topics = {"app-rep"};
  auto& s1 = Sub(&t, "1");
  s1.repartition_source_topics = {Info("app-rep")};
  s1.repartition_sink_topics = {"app-rep2"};
  auto& s2 = Sub(&t, "2");
  s2.repartition_source_topics = {Info("app-rep2")};
  s2.state_changelog_topics = {Info("app-agg-changelog")};

  auto r = ConfigureStreamsTopology(t, 0, {{"in", 5}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, StreamsGroupStatus::kMissingInternalTopics);
  EXPECT_EQ(r->status_detail, "Internal topics are missing: app-agg-changelog, app-rep, app-rep2");
  EXPECT_EQ(r->internal_topics_to_create.at("app-rep").partitions, 5);
  EXPECT_EQ(r->internal_topics_to_create.at("app-rep2").partitions, 5);
  EXPECT_EQ(r->internal_topics_to_create.at("app-agg-changelog").partitions, 5);
  for (const char* id : {"0", "1", "2"}) EXPECT_EQ(r->subtopologies->at(id).number_of_tasks, 5);
  EXPECT_FALSE(r->subtopologies->at("1").stateful());
}

TEST(StreamsTopologyTest, ExplicitRepartitionPartitionsAreKept) {
  StreamsTopology t;
  auto& s0 = Sub(&t, "0");
  s0.source_topics = {"in"};
  s0.repartition_sink_topics = {"app-rep"};
  Sub(&t, "1").repartition_source_topics = {Info("app-rep", 7)};
  auto r = ConfigureStreamsTopology(t, 0, {{"in", 2}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->internal_topics_to_create.at("app-rep").partitions, 7);
  EXPECT_EQ(r->subtopologies->at("1").number_of_tasks, 7);
  EXPECT_EQ(r->subtopologies->at("0").number_of_tasks, 2);
}

TEST(StreamsTopologyTest, LoopsAndUnwrittenRepartitionTopicsAreInvalid) {
  StreamsTopology loop;
  auto& a = Sub(&loop, "0");
  a.repartition_source_topics = {Info("r1")};
  a.repartition_sink_topics = {"r2"};
  auto& b = Sub(&loop, "1");
  b.repartition_source_topics = {Info("r2")};
  b.repartition_sink_topics = {"r1"};
  auto r = ConfigureStreamsTopology(loop, 0, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_EQ(r.status().message(),
            "Failed to compute number of partitions for all repartition topics. There may be "
            "loops in the topology that cannot be resolved.");

  StreamsTopology unwritten;
  Sub(&unwritten, "0").source_topics = {"in"};
  Sub(&unwritten, "1").repartition_source_topics = {Info("nobody-writes-me")};
  r = ConfigureStreamsTopology(unwritten, 0, {{"in", 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Failed to compute number of partitions for all repartition topics, because a "
            "repartition source topic is never used as a sink topic.");
}

TEST(StreamsTopologyTest, CopartitionedSourceTopicsMustMatch) {
  StreamsTopology t;
  auto& s = Sub(&t, "0");
  s.source_topics = {"b", "a"};
  Copartition(&s, {0, 1}, {});
  auto r = ConfigureStreamsTopology(t, 0, {{"a", 2}, {"b", 3}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, StreamsGroupStatus::kIncorrectlyPartitionedTopics);
  EXPECT_EQ(r->status_detail,
            "Following topics do not have the same number of partitions: [{a=2, b=3}]");
  r = ConfigureStreamsTopology(t, 0, {{"a", 3}, {"b", 3}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ready());
  EXPECT_EQ(r->subtopologies->at("0").number_of_tasks, 3);
}

TEST(StreamsTopologyTest, CopartitioningCoercesFlexibleRepartitionTopics) {
  StreamsTopology t;
  auto& s0 = Sub(&t, "0");
  s0.source_topics = {"a"};
  s0.repartition_sink_topics = {"app-rep"};
  auto& s1 = Sub(&t, "1");
  s1.source_topics = {"b"};
  s1.repartition_source_topics = {Info("app-rep")};
  Copartition(&s1, {0}, {0});
  auto r = ConfigureStreamsTopology(t, 0, {{"a", 4}, {"b", 2}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->internal_topics_to_create.at("app-rep").partitions, 2);
  EXPECT_EQ(r->subtopologies->at("1").number_of_tasks, 2);

  // A fixed count that disagrees is refused.
  s1.repartition_source_topics = {Info("app-rep", 4)};
  r = ConfigureStreamsTopology(t, 0, {{"a", 4}, {"b", 2}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, StreamsGroupStatus::kIncorrectlyPartitionedTopics);
  EXPECT_EQ(r->status_detail,
            "Number of partitions [4] of repartition topic [app-rep] doesn't match number of "
            "partitions [2] of the source topic.");
}

TEST(StreamsTopologyTest, RegexOnlySubtopologiesHaveNoSourcesIn440) {
  // 4.4.0's coordinator does not resolve SourceTopicRegex: a subtopology reading only through
  // a pattern has no source topic to size its tasks.
  StreamsTopology t;
  Sub(&t, "0").source_topic_regex = {"in-.*"};
  auto r = ConfigureStreamsTopology(t, 0, {{"in-1", 3}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_EQ(r.status().message(), "No source topics found for subtopology 0");
}

TEST(StreamsTopologyTest, FromHeartbeatKeepsEverything) {
  protocol::streams_group_heartbeat_request_data::Topology in;
  in.epoch = 2;
  auto& s = in.subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = {"in"};
  s.source_topic_regex = {"x.*"};
  auto& cl = s.state_changelog_topics.emplace_back();
  cl.name = "cl";
  cl.partitions = 0;
  cl.replication_factor = 2;
  auto& kv = cl.topic_configs.emplace_back();
  kv.key = "k";
  kv.value = "v";
  s.repartition_sink_topics = {"r"};
  auto& g = s.copartition_groups.emplace_back();
  g.source_topics = {0};
  g.source_topic_regex = {0};
  const StreamsTopology t = StreamsTopology::FromHeartbeat(in);
  EXPECT_EQ(t.epoch, 2);
  const auto& out = t.subtopologies.at("0");
  EXPECT_EQ(out.source_topic_regex, std::vector<std::string>{"x.*"});
  ASSERT_EQ(out.state_changelog_topics.size(), 1u);
  EXPECT_EQ(out.state_changelog_topics[0].replication_factor, 2);
  EXPECT_EQ(out.state_changelog_topics[0].topic_configs[0].value, "v");
  EXPECT_EQ(out.copartition_groups[0].source_topic_regex, std::vector<int16_t>{0});
  EXPECT_EQ(StreamsTopology::FromRecord(t.ToRecord()), t);
  EXPECT_EQ(t.RequiredTopics(), (std::set<std::string>{"cl", "in"}));
}

}  // namespace
}  // namespace seglog
