#include "metadata/metadata_image.h"

#include <gtest/gtest.h>

#include "protocol/generated/abort_transaction_record.h"
#include "protocol/generated/begin_transaction_record.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/end_transaction_record.h"
#include "protocol/generated/feature_level_record.h"
#include "protocol/generated/partition_change_record.h"
#include "protocol/generated/producer_ids_record.h"
#include "protocol/generated/remove_topic_record.h"
#include "protocol/generated/topic_record.h"

namespace seglog {
namespace {

template <typename T>
std::vector<uint8_t> Value(const T& r, int16_t version = T::kHighestSupportedVersion) {
  auto v = EncodeMetadataRecord(r, version);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.value().bytes;
}

protocol::TopicRecord Topic(const std::string& name, Uuid id) {
  protocol::TopicRecord t;
  t.name = name;
  t.topic_id = id;
  return t;
}

protocol::PartitionRecord Partition(Uuid id, int32_t p) {
  protocol::PartitionRecord r;
  r.partition_id = p;
  r.topic_id = id;
  r.replicas = {1};
  r.isr = {1};
  r.leader = 1;
  r.leader_epoch = 0;
  r.partition_epoch = 0;
  r.directories = {Uuid::FromHalves(7, 9)};
  return r;
}

protocol::ConfigRecord Config(int8_t type, const std::string& name, const std::string& key,
                              std::optional<std::string> value) {
  protocol::ConfigRecord c;
  c.resource_type = type;
  c.resource_name = name;
  c.name = key;
  c.value = value;
  return c;
}

TEST(MetadataRecordSerdeTest, FramesAsKafkaDoes) {
  protocol::FeatureLevelRecord f;
  f.name = "metadata.version";
  f.feature_level = 33;
  // 01 0c 00 | 11 "metadata.version" | 0021 | 00 (the fact sheet's bytes, from a Kafka run).
  std::vector<uint8_t> want = {0x01, 0x0c, 0x00, 0x11};
  for (char c : std::string("metadata.version")) want.push_back(static_cast<uint8_t>(c));
  want.insert(want.end(), {0x00, 0x21, 0x00});
  EXPECT_EQ(Value(f), want);
  auto frame = ParseMetadataRecordFrame(want);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame.value().api_key, 12);
  EXPECT_EQ(frame.value().version, 0);
  EXPECT_EQ(frame.value().body.size(), want.size() - 3);
}

TEST(MetadataRecordSerdeTest, RefusesWhatKafkaRefuses) {
  const std::vector<uint8_t> frame0 = {0x00, 0x14, 0x00};
  auto s = ParseMetadataRecordFrame(frame0);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("preview release of KRaft"), std::string::npos);
  const std::vector<uint8_t> frame2 = {0x02, 0x14, 0x00};
  EXPECT_FALSE(ParseMetadataRecordFrame(frame2).ok());
  // apiKey 32768 (uvarint 80 80 02) does not fit a short.
  const std::vector<uint8_t> big = {0x01, 0x80, 0x80, 0x02, 0x00};
  s = ParseMetadataRecordFrame(big);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("larger than 32767"), std::string::npos);
  const std::vector<uint8_t> cut = {0x01, 0x80};
  EXPECT_FALSE(ParseMetadataRecordFrame(cut).ok());
  // Garbage after a NoOp record's body.
  MetadataImage image;
  const std::vector<uint8_t> noop_garbage = {0x01, 0x14, 0x00, 0x00, 0x33};
  EXPECT_FALSE(image.ReplayValue(noop_garbage).ok());
  // An unknown record type and a version above the schema's.
  const std::vector<uint8_t> unknown = {0x01, 0x63, 0x00, 0x00};
  s = image.ReplayValue(unknown);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("unknown metadata record type 99"), std::string::npos);
  const std::vector<uint8_t> future = {0x01, 0x02, 0x05, 0x00};
  s = image.ReplayValue(future);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("TOPIC_RECORD version 5"), std::string::npos);
}

TEST(MetadataImageTest, TopicsPartitionsAndConfigs) {
  MetadataImage image;
  const Uuid id = Uuid::Random();
  ASSERT_TRUE(image.ReplayValue(Value(Topic("orders", id))).ok());
  ASSERT_TRUE(image.ReplayValue(Value(Partition(id, 0))).ok());
  ASSERT_TRUE(image.ReplayValue(Value(Partition(id, 1))).ok());
  ASSERT_TRUE(
      image.ReplayValue(Value(Config(kConfigResourceTopic, "orders", "retention.ms", "5"))).ok());
  ASSERT_TRUE(
      image.ReplayValue(Value(Config(kConfigResourceTopic, "orders", "segment.bytes", "99"))).ok());
  ASSERT_TRUE(
      image
          .ReplayValue(Value(Config(kConfigResourceTopic, "orders", "segment.bytes", std::nullopt)))
          .ok());
  const TopicImage* t = image.FindTopic("orders");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->id, id);
  EXPECT_EQ(t->partitions.size(), 2u);
  EXPECT_EQ(image.FindTopicById(id), t);
  auto* configs = image.Configs(kConfigResourceTopic, "orders");
  ASSERT_NE(configs, nullptr);
  EXPECT_EQ(*configs, (std::map<std::string, std::string>{{"retention.ms", "5"}}));

  // A second TopicRecord for the name with another id is refused, and changes nothing.
  EXPECT_FALSE(image.ReplayValue(Value(Topic("orders", Uuid::Random()))).ok());
  EXPECT_EQ(image.FindTopic("orders")->id, id);
  // Another name with the id of an existing topic is refused too.
  EXPECT_FALSE(image.ReplayValue(Value(Topic("other", id))).ok());
  // A partition of an unknown topic id.
  EXPECT_FALSE(image.ReplayValue(Value(Partition(Uuid::Random(), 0))).ok());

  protocol::RemoveTopicRecord rm;
  rm.topic_id = id;
  ASSERT_TRUE(image.ReplayValue(Value(rm)).ok());
  EXPECT_EQ(image.FindTopic("orders"), nullptr);
  EXPECT_EQ(image.FindTopicById(id), nullptr);
  EXPECT_EQ(image.Configs(kConfigResourceTopic, "orders"), nullptr);
  // The name can be used again, with a new id.
  EXPECT_TRUE(image.ReplayValue(Value(Topic("orders", Uuid::Random()))).ok());
}

TEST(MetadataImageTest, PartitionChangesMergeAsKafkaDoes) {
  MetadataImage image;
  const Uuid id = Uuid::Random();
  ASSERT_TRUE(image.ReplayValue(Value(Topic("t", id))).ok());
  ASSERT_TRUE(image.ReplayValue(Value(Partition(id, 0))).ok());
  // A controlled shutdown: no leader, empty ISR, ELR [1].
  protocol::PartitionChangeRecord down;
  down.topic_id = id;
  down.partition_id = 0;
  down.leader = -1;
  down.isr = std::vector<int32_t>{};
  down.eligible_leader_replicas = std::vector<int32_t>{1};
  down.last_known_elr = std::vector<int32_t>{1};
  ASSERT_TRUE(image.ReplayValue(Value(down)).ok());
  const auto& p = image.FindTopic("t")->partitions.at(0);
  EXPECT_EQ(p.leader, -1);
  EXPECT_TRUE(p.isr.empty());
  EXPECT_EQ(p.leader_epoch, 1);
  EXPECT_EQ(p.partition_epoch, 1);
  EXPECT_EQ(p.eligible_leader_replicas, (std::vector<int32_t>{1}));
  EXPECT_EQ(p.directories, (std::vector<Uuid>{Uuid::FromHalves(7, 9)}));
  // Only the ISR changes: the leader epoch stays, the partition epoch moves.
  protocol::PartitionChangeRecord isr;
  isr.topic_id = id;
  isr.partition_id = 0;
  isr.isr = std::vector<int32_t>{1};
  ASSERT_TRUE(image.ReplayValue(Value(isr)).ok());
  const auto& q = image.FindTopic("t")->partitions.at(0);
  EXPECT_EQ(q.leader, -1);
  EXPECT_EQ(q.leader_epoch, 1);
  EXPECT_EQ(q.partition_epoch, 2);
  // A partition that does not exist.
  protocol::PartitionChangeRecord bad = isr;
  bad.partition_id = 4;
  EXPECT_FALSE(image.ReplayValue(Value(bad)).ok());
}

TEST(MetadataImageTest, TransactionsApplyAtTheEndOrNotAtAll) {
  MetadataImage image;
  const Uuid a = Uuid::Random();
  protocol::BeginTransactionRecord begin;
  begin.name = "Bootstrap records";
  ASSERT_TRUE(image.ReplayValue(Value(begin)).ok());
  ASSERT_TRUE(image.ReplayValue(Value(Topic("a", a))).ok());
  EXPECT_EQ(image.FindTopic("a"), nullptr);
  EXPECT_TRUE(image.in_transaction());
  EXPECT_FALSE(image.ReplayValue(Value(begin)).ok());
  ASSERT_TRUE(image.ReplayValue(Value(protocol::EndTransactionRecord{})).ok());
  EXPECT_NE(image.FindTopic("a"), nullptr);

  const Uuid b = Uuid::Random();
  ASSERT_TRUE(image.ReplayValue(Value(begin)).ok());
  ASSERT_TRUE(image.ReplayValue(Value(Topic("b", b))).ok());
  ASSERT_TRUE(image.ReplayValue(Value(protocol::AbortTransactionRecord{})).ok());
  EXPECT_EQ(image.FindTopic("b"), nullptr);
  EXPECT_FALSE(image.ReplayValue(Value(protocol::EndTransactionRecord{})).ok());
}

TEST(MetadataImageTest, SnapshotRecordsRebuildTheSameImage) {
  MetadataImage image;
  protocol::FeatureLevelRecord group;
  group.name = "group.version";
  group.feature_level = 1;
  protocol::FeatureLevelRecord mv;
  mv.name = "metadata.version";
  mv.feature_level = 33;
  ASSERT_TRUE(image.ReplayValue(Value(group)).ok());
  ASSERT_TRUE(image.ReplayValue(Value(mv)).ok());
  const Uuid id = Uuid::Random();
  ASSERT_TRUE(image.ReplayValue(Value(Topic("t", id))).ok());
  ASSERT_TRUE(image.ReplayValue(Value(Partition(id, 0))).ok());
  ASSERT_TRUE(
      image.ReplayValue(Value(Config(kConfigResourceBroker, "", "min.insync.replicas", "1"))).ok());
  protocol::ProducerIdsRecord pids;
  pids.broker_id = 1;
  pids.broker_epoch = 12;
  pids.next_producer_id = 2000;
  ASSERT_TRUE(image.ReplayValue(Value(pids)).ok());
  auto records = image.SnapshotRecords();
  ASSERT_TRUE(records.ok());
  // metadata.version first, whatever the names' order.
  ASSERT_GE(records.value().size(), 2u);
  EXPECT_EQ(records.value()[0].api_key, protocol::FeatureLevelRecord::kApiKey);
  auto first = ParseMetadataRecordFrame(records.value()[0].bytes);
  auto f = protocol::FeatureLevelRecord::Parse(first.value().body, 0);
  EXPECT_EQ(f.value().name, "metadata.version");
  MetadataImage again;
  for (const auto& r : records.value()) ASSERT_TRUE(again.ReplayValue(r.bytes).ok());
  EXPECT_EQ(again.features(), image.features());
  EXPECT_EQ(again.FindTopic("t")->partitions, image.FindTopic("t")->partitions);
  EXPECT_EQ(again.configs(), image.configs());
  // Snapshots record the next block without the broker that asked (as Kafka's do).
  EXPECT_EQ(again.producer_ids().next_producer_id, 2000);
  EXPECT_EQ(again.producer_ids().broker_id, -1);
}

}  // namespace
}  // namespace seglog
