// The ACL checks of the topic and data APIs (Produce, Fetch, ListOffsets, Metadata,
// CreateTopics, DeleteTopics, DescribeTopicPartitions, DeleteRecords, CreatePartitions,
// OffsetForLeaderEpoch, InitProducerId) with a StandardAuthorizer: what an allowed client gets,
// the exact codes and shapes Kafka 4.4's KafkaApis and ControllerApis answer a refused one, and
// that a refused write leaves no trace.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "seglog/record_batch.h"
#include "server/authorization_test_base.h"
#include "server/expect_encodes.h"
#include "server/fetch_handler.h"
#include "tests/support/batches.h"

namespace seglog {
namespace {

using ::testing::ElementsAre;
namespace ke = kafka_error;
namespace p = protocol;

using namespace authz_test;  // NOLINT(build/namespaces)

class TopicAuthorizationTest : public AuthorizationHandlersTest {
 protected:
  // A Produce of one batch to partition 0 of `topic` (as a Java producer's, unless
  // `transactional_id` is set: then a transactional batch of producer 7).
  p::ProduceRequestData ProduceOne(const std::string& topic,
                                   std::optional<std::string> transactional_id = std::nullopt) {
    if (transactional_id) {
      BatchOptions o;
      o.producer_id = 7;
      o.producer_epoch = 0;
      o.base_sequence = 0;
      o.is_transactional = true;
      RecordBatchBuilder b(o);
      EXPECT_TRUE(b.Append(kHandlersTestT0, std::nullopt, Bytes()).ok());
      batch_ = *b.Build();
    } else {
      batch_ = testing::ProducerBatch(0, 3, 10, kHandlersTestT0);
    }
    p::ProduceRequestData req;
    req.acks = -1;
    req.timeout_ms = 30000;
    req.transactional_id = std::move(transactional_id);
    auto& t = req.topic_data.emplace_back();
    t.name = topic;
    auto& part = t.partition_data.emplace_back();
    part.index = 0;
    part.records = p::Records::View(batch_);
    return req;
  }
  p::ProduceResponseData Produce(const RequestContext& rc, const p::ProduceRequestData& req,
                                 int16_t version = 11) {
    std::vector<TopicPartition> appended;
    bool any_error = false;
    return HandleProduce(ctx_, rc, req, version, &appended, &any_error);
  }
  static p::FetchRequestData FetchOne(const std::string& topic, int32_t replica_id = -1) {
    p::FetchRequestData req;
    req.replica_id = replica_id;
    req.max_bytes = 1 << 20;
    auto& t = req.topics.emplace_back();
    t.topic = topic;
    auto& part = t.partitions.emplace_back();
    part.partition = 0;
    part.fetch_offset = 0;
    part.partition_max_bytes = 1 << 20;
    return req;
  }
  static p::MetadataRequestData MetadataOf(std::vector<std::string> names) {
    p::MetadataRequestData req;
    req.topics.emplace();
    for (auto& n : names) req.topics->emplace_back().name = std::move(n);
    req.allow_auto_topic_creation = false;
    return req;
  }
  std::vector<std::string> Names(const p::MetadataResponseData& resp) {
    std::vector<std::string> out;
    for (const auto& t : resp.topics) out.push_back(t.name.value_or("<null>"));
    return out;
  }

  std::vector<uint8_t> batch_;
};

// ---- Produce

TEST_F(TopicAuthorizationTest, ProduceNeedsWriteOnTheTopic) {
  CreateTopic("orders");
  Grant({AllowAlice(kTopic, "orders", AclOperation::kWrite)});
  auto ok = Produce(alice_, ProduceOne("orders"));
  EXPECT_EQ(ok.responses[0].partition_responses[0].error_code, ke::kNone);
  EXPECT_EQ(LogEndOffset("orders"), 3);

  auto refused = Produce(bob_, ProduceOne("orders"));
  const auto& pr = refused.responses[0].partition_responses[0];
  EXPECT_EQ(pr.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(pr.base_offset, -1);
  EXPECT_EQ(LogEndOffset("orders"), 3);  // nothing appended
  testing::ExpectEncodes(refused, p::ApiKey::kProduce);
  // A topic that does not exist: refused the same way, so bob learns nothing of it; alice,
  // who may write it, is told it does not exist.
  EXPECT_EQ(Produce(bob_, ProduceOne("nope")).responses[0].partition_responses[0].error_code,
            ke::kTopicAuthorizationFailed);
  Grant({AllowAlice(kTopic, "nope", AclOperation::kWrite)});
  EXPECT_EQ(Produce(alice_, ProduceOne("nope")).responses[0].partition_responses[0].error_code,
            ke::kUnknownTopicOrPartition);
  // Super users may do anything.
  EXPECT_EQ(Produce(admin_, ProduceOne("orders")).responses[0].partition_responses[0].error_code,
            ke::kNone);
  EXPECT_EQ(LogEndOffset("orders"), 6);
}

TEST_F(TopicAuthorizationTest, ATransactionalProduceNeedsWriteOnItsTransactionalId) {
  CreateTopic("orders");
  CreateTopic("other");
  Grant({AllowAlice(kTopic, "orders", AclOperation::kWrite)});
  // WRITE on the topic is not enough: the whole request fails, every partition (also one of a
  // topic alice may not write) with TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
  p::ProduceRequestData req = ProduceOne("orders", "tx");
  auto& other = req.topic_data.emplace_back();
  other.name = "other";
  other.partition_data.push_back(req.topic_data[0].partition_data[0]);
  auto refused = Produce(alice_, req);
  ASSERT_EQ(refused.responses.size(), 2u);
  for (const auto& t : refused.responses) {
    ASSERT_EQ(t.partition_responses.size(), 1u);
    EXPECT_EQ(t.partition_responses[0].error_code, ke::kTransactionalIdAuthorizationFailed);
    EXPECT_EQ(t.partition_responses[0].base_offset, -1);
  }
  EXPECT_EQ(LogEndOffset("orders"), 0);
  EXPECT_EQ(LogEndOffset("other"), 0);
  testing::ExpectEncodes(refused, p::ApiKey::kProduce);
  // Without a transactional id a transactional batch is refused even for a super user.
  p::ProduceRequestData no_id = ProduceOne("orders", "tx");
  no_id.transactional_id = std::nullopt;
  EXPECT_EQ(Produce(admin_, no_id).responses[0].partition_responses[0].error_code,
            ke::kTransactionalIdAuthorizationFailed);
  // With WRITE on the id the request goes on to the topic checks and the transaction's
  // verification (here: the partition was never added, so it is still not appended).
  Grant({AllowAlice(kTxn, "tx", AclOperation::kWrite)});
  auto verified = Produce(alice_, ProduceOne("orders", "tx"));
  EXPECT_NE(verified.responses[0].partition_responses[0].error_code,
            ke::kTransactionalIdAuthorizationFailed);
  EXPECT_NE(verified.responses[0].partition_responses[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(LogEndOffset("orders"), 0);
}

// ---- Fetch and ListOffsets

TEST_F(TopicAuthorizationTest, FetchNeedsReadAndAFollowerClusterAction) {
  CreateTopic("orders");
  Append("orders", 0, 5);
  Grant({AllowAlice(kTopic, "orders", AclOperation::kRead)});
  FetchRead ok = ReadFetch(ctx_, alice_, FetchOne("orders"), 12);
  EXPECT_EQ(ok.response.responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_GT(ok.bytes, 0);

  FetchRead refused = ReadFetch(ctx_, bob_, FetchOne("orders"), 12);
  const auto& pr = refused.response.responses[0].partitions[0];
  EXPECT_EQ(pr.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(pr.high_watermark, -1);
  EXPECT_EQ(refused.bytes, 0);
  EXPECT_TRUE(refused.has_error);
  testing::ExpectEncodes(refused.response, p::ApiKey::kFetch);
  // A follower (replica id 1) needs CLUSTER_ACTION: READ on the topic does not do.
  FetchRead follower = ReadFetch(ctx_, alice_, FetchOne("orders", 1), 12);
  EXPECT_EQ(follower.response.responses[0].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(follower.bytes, 0);
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kClusterAction)});
  EXPECT_EQ(ReadFetch(ctx_, alice_, FetchOne("orders", 1), 12)
                .response.responses[0]
                .partitions[0]
                .error_code,
            ke::kNone);
}

TEST_F(TopicAuthorizationTest, ListOffsetsNeedsDescribe) {
  CreateTopic("orders");
  Append("orders", 0, 5);
  p::ListOffsetsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "orders";
  t.partitions.emplace_back().timestamp = -1;
  auto refused = HandleListOffsets(ctx_, bob_, req, 7);
  const auto& pr = refused.topics[0].partitions[0];
  EXPECT_EQ(pr.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(pr.offset, -1);
  EXPECT_EQ(pr.timestamp, -1);
  testing::ExpectEncodes(refused, p::ApiKey::kListOffsets);
  // WRITE implies DESCRIBE.
  Grant({AllowAlice(kTopic, "orders", AclOperation::kWrite)});
  auto ok = HandleListOffsets(ctx_, alice_, req, 7);
  EXPECT_EQ(ok.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(ok.topics[0].partitions[0].offset, 5);
}

// ---- Metadata

TEST_F(TopicAuthorizationTest, MetadataShowsOnlyTheTopicsTheClientMayDescribe) {
  CreateTopic("orders");
  CreateTopic("payments");
  CreateTopic("secret");
  Grant({AllowAlice(kTopic, "orders", AclOperation::kRead),
         AllowAlice(kTopic, "pay", AclOperation::kDescribe, PatternType::kPrefixed)});
  p::MetadataRequestData all;
  all.topics = std::nullopt;
  EXPECT_THAT(Names(HandleMetadata(ctx_, alice_, all, 12)), ElementsAre("orders", "payments"));
  EXPECT_TRUE(HandleMetadata(ctx_, bob_, all, 12).topics.empty());
  EXPECT_THAT(Names(HandleMetadata(ctx_, admin_, all, 12)),
              ElementsAre("orders", "payments", "secret"));
  // v0's empty list is every topic too.
  EXPECT_THAT(Names(HandleMetadata(ctx_, alice_, MetadataOf({}), 0)),
              ElementsAre("orders", "payments"));

  // Named: a topic the client may not describe is TOPIC_AUTHORIZATION_FAILED whether it exists
  // or not, with a zero id and not internal.
  auto named = HandleMetadata(ctx_, alice_, MetadataOf({"orders", "secret", "nope"}), 12);
  ASSERT_EQ(named.topics.size(), 3u);
  EXPECT_EQ(named.topics[0].error_code, ke::kNone);
  EXPECT_EQ(named.topics[0].topic_id, TopicId("orders"));
  for (size_t i : {1, 2}) {
    EXPECT_EQ(named.topics[i].error_code, ke::kTopicAuthorizationFailed) << i;
    EXPECT_TRUE(named.topics[i].topic_id.IsZero()) << i;
    EXPECT_FALSE(named.topics[i].is_internal) << i;
    EXPECT_TRUE(named.topics[i].partitions.empty()) << i;
  }
  EXPECT_EQ(named.topics[1].name, "secret");
  EXPECT_EQ(named.topics[2].name, "nope");
  testing::ExpectEncodes(named, p::ApiKey::kMetadata);
  // By topic id (v12): the id, and no name.
  p::MetadataRequestData by_id;
  by_id.topics.emplace();
  auto& want = by_id.topics->emplace_back();
  want.topic_id = TopicId("secret");
  want.name = std::nullopt;
  auto refused = HandleMetadata(ctx_, alice_, by_id, 12);
  ASSERT_EQ(refused.topics.size(), 1u);
  EXPECT_EQ(refused.topics[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.topics[0].name, std::nullopt);
  EXPECT_EQ(refused.topics[0].topic_id, TopicId("secret"));
}

TEST_F(TopicAuthorizationTest, MetadataAutoCreationNeedsCreate) {
  // bob may describe any topic but create none: no topic is made.
  Grant({Allow(kTopic, "*", "User:bob", AclOperation::kDescribe),
         AllowAlice(kTopic, "auto-", AclOperation::kCreate, PatternType::kPrefixed),
         AllowAlice(kTopic, "auto-", AclOperation::kDescribe, PatternType::kPrefixed)});
  ctx_.auto_create_topics = true;
  p::MetadataRequestData req = MetadataOf({"auto-1", "__consumer_offsets"});
  req.allow_auto_topic_creation = true;
  auto refused = HandleMetadata(ctx_, bob_, req, 12);
  ASSERT_EQ(refused.topics.size(), 2u);
  for (const auto& t : refused.topics) {
    EXPECT_EQ(t.error_code, ke::kTopicAuthorizationFailed);
    EXPECT_TRUE(t.topic_id.IsZero());
  }
  EXPECT_FALSE(refused.topics[0].is_internal);
  EXPECT_TRUE(refused.topics[1].is_internal);  // as Kafka's Topic.isInternal says
  EXPECT_FALSE(logs_->FindTopic("auto-1").ok());
  EXPECT_FALSE(logs_->FindTopic("__consumer_offsets").ok());
  // CREATE on the topic (alice), or on the cluster, lets it be made.
  auto created = HandleMetadata(ctx_, alice_, MetadataOf({"auto-1"}), 3);  // v3: broker setting
  EXPECT_EQ(created.topics[0].error_code, ke::kNone);
  EXPECT_TRUE(logs_->FindTopic("auto-1").ok());
  Grant({Allow(kCluster, kClusterName, "User:bob", AclOperation::kCreate)});
  p::MetadataRequestData other = MetadataOf({"other"});
  other.allow_auto_topic_creation = true;
  EXPECT_EQ(HandleMetadata(ctx_, bob_, other, 12).topics[0].error_code, ke::kNone);
  EXPECT_TRUE(logs_->FindTopic("other").ok());
}

TEST_F(TopicAuthorizationTest, MetadataAuthorizedOperationsAreTheClients) {
  CreateTopic("orders");
  Grant({AllowAlice(kTopic, "orders", AclOperation::kRead),
         AllowAlice(kTopic, "orders", AclOperation::kWrite)});
  p::MetadataRequestData req = MetadataOf({"orders", "nope"});
  req.include_topic_authorized_operations = true;
  req.include_cluster_authorized_operations = true;
  Grant({AllowAlice(kTopic, "nope", AclOperation::kDescribe)});
  auto resp = HandleMetadata(ctx_, alice_, req, 10);
  // READ 8 + WRITE 16 + the DESCRIBE they imply 256.
  EXPECT_EQ(resp.topics[0].topic_authorized_operations, 8 | 16 | 256);
  EXPECT_EQ(resp.topics[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.topics[1].topic_authorized_operations, 256);
  // No DESCRIBE on the cluster: 0 (v8-10 only).
  EXPECT_EQ(resp.cluster_authorized_operations, 0);
  EXPECT_EQ(HandleMetadata(ctx_, admin_, req, 10).cluster_authorized_operations, 8096);
  EXPECT_EQ(HandleMetadata(ctx_, admin_, req, 10).topics[0].topic_authorized_operations, 3576);
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kDescribe)});
  EXPECT_EQ(HandleMetadata(ctx_, alice_, req, 10).cluster_authorized_operations, 256);
  EXPECT_EQ(HandleMetadata(ctx_, alice_, req, 11).cluster_authorized_operations, INT32_MIN);
  // Not asked for: Kafka's default. A refused topic keeps it too.
  auto refused = HandleMetadata(ctx_, bob_, req, 10);
  EXPECT_EQ(refused.topics[0].topic_authorized_operations, INT32_MIN);
  req.include_topic_authorized_operations = false;
  req.include_cluster_authorized_operations = false;
  auto plain = HandleMetadata(ctx_, alice_, req, 10);
  EXPECT_EQ(plain.topics[0].topic_authorized_operations, INT32_MIN);
  EXPECT_EQ(plain.cluster_authorized_operations, INT32_MIN);
  ExpectEncodesAt(resp, 10);
}

TEST_F(TopicAuthorizationTest, WithoutAnAuthorizerEveryOperationIsReported) {
  ctx_.authorizer = nullptr;
  CreateTopic("orders");
  p::MetadataRequestData req = MetadataOf({"orders"});
  req.include_topic_authorized_operations = true;
  req.include_cluster_authorized_operations = true;
  auto resp = HandleMetadata(ctx_, bob_, req, 10);
  EXPECT_EQ(resp.topics[0].topic_authorized_operations, 3576);
  EXPECT_EQ(resp.cluster_authorized_operations, 8096);
}

// ---- CreateTopics and DeleteTopics

p::CreateTopicsRequestData::CreatableTopic NewTopic(const std::string& name) {
  p::CreateTopicsRequestData::CreatableTopic t;
  t.name = name;
  t.num_partitions = 2;
  t.replication_factor = 1;
  return t;
}

TEST_F(TopicAuthorizationTest, CreateTopicsNeedsCreateOnTheClusterOrTheTopic) {
  CreateTopic("exists");
  Grant({AllowAlice(kTopic, "a-", AclOperation::kCreate, PatternType::kPrefixed)});
  p::CreateTopicsRequestData req;
  req.topics = {NewTopic("a-1"), NewTopic("b-1"), NewTopic("exists")};
  auto resp = HandleCreateTopics(ctx_, alice_, req, 7);
  ASSERT_EQ(resp.topics.size(), 3u);
  // Created, but alice may not describe its configs: no partitions or replication factor.
  EXPECT_EQ(resp.topics[0].error_code, ke::kNone);
  EXPECT_EQ(resp.topics[0].topic_config_error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(resp.topics[0].num_partitions, -1);
  EXPECT_EQ(resp.topics[0].replication_factor, -1);
  EXPECT_FALSE(resp.topics[0].topic_id.IsZero());
  EXPECT_EQ(logs_->FindTopic("a-1")->partitions, 2);
  // Refused, existing or not, with Kafka's words.
  for (size_t i : {1, 2}) {
    EXPECT_EQ(resp.topics[i].error_code, ke::kTopicAuthorizationFailed) << i;
    EXPECT_EQ(resp.topics[i].error_message, "Authorization failed.") << i;
    EXPECT_EQ(resp.topics[i].num_partitions, -1) << i;
  }
  EXPECT_FALSE(logs_->FindTopic("b-1").ok());
  testing::ExpectEncodes(resp, p::ApiKey::kCreateTopics);
  // CREATE on the cluster allows any topic; DESCRIBE_CONFIGS shows what it was made with.
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kCreate),
         AllowAlice(kTopic, "b-1", AclOperation::kDescribeConfigs)});
  req.topics = {NewTopic("b-1")};
  auto created = HandleCreateTopics(ctx_, alice_, req, 7);
  EXPECT_EQ(created.topics[0].error_code, ke::kNone);
  EXPECT_EQ(created.topics[0].topic_config_error_code, ke::kNone);
  EXPECT_EQ(created.topics[0].num_partitions, 2);
  EXPECT_TRUE(logs_->FindTopic("b-1").ok());
}

TEST_F(TopicAuthorizationTest, DeleteTopicsNeedsDescribeAndDelete) {
  CreateTopic("orders");
  CreateTopic("seen");
  CreateTopic("secret");
  Grant({AllowAlice(kTopic, "seen", AclOperation::kRead),
         AllowAlice(kTopic, "nope", AclOperation::kDescribe),
         AllowAlice(kTopic, "orders", AclOperation::kDelete)});
  // By name (v5): DESCRIBE first (even for a topic that does not exist), then DELETE.
  p::DeleteTopicsRequestData by_name;
  by_name.topic_names = {"seen", "secret", "nope", "ghost", "orders"};
  auto resp = HandleDeleteTopics(ctx_, alice_, by_name, 5);
  ASSERT_EQ(resp.responses.size(), 5u);
  EXPECT_EQ(resp.responses[0].error_code, ke::kTopicAuthorizationFailed);  // no DELETE
  EXPECT_EQ(resp.responses[0].error_message, "Topic authorization failed.");
  EXPECT_EQ(resp.responses[1].error_code, ke::kTopicAuthorizationFailed);  // no DESCRIBE
  EXPECT_EQ(resp.responses[2].error_code, ke::kUnknownTopicOrPartition);   // describable
  EXPECT_EQ(resp.responses[3].error_code, ke::kTopicAuthorizationFailed);  // not describable
  EXPECT_EQ(resp.responses[4].error_code, ke::kNone);
  EXPECT_TRUE(logs_->FindTopic("seen").ok());
  EXPECT_TRUE(logs_->FindTopic("secret").ok());
  EXPECT_FALSE(logs_->FindTopic("orders").ok());
  testing::ExpectEncodes(resp, p::ApiKey::kDeleteTopics);
  // By id (v6): the name only to a client that may describe the topic.
  p::DeleteTopicsRequestData by_id;
  for (const char* name : {"seen", "secret"}) {
    auto& t = by_id.topics.emplace_back();
    t.name = std::nullopt;
    t.topic_id = TopicId(name);
  }
  auto ids = HandleDeleteTopics(ctx_, alice_, by_id, 6);
  ASSERT_EQ(ids.responses.size(), 2u);
  EXPECT_EQ(ids.responses[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(ids.responses[0].name, "seen");
  EXPECT_EQ(ids.responses[0].topic_id, TopicId("seen"));
  EXPECT_EQ(ids.responses[1].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(ids.responses[1].name, std::nullopt);
  EXPECT_EQ(ids.responses[1].topic_id, TopicId("secret"));
  EXPECT_TRUE(logs_->FindTopic("secret").ok());
  // DELETE on the cluster allows every topic.
  Grant({AllowAlice(kCluster, kClusterName, AclOperation::kDelete)});
  EXPECT_EQ(HandleDeleteTopics(ctx_, alice_, by_id, 6).responses[1].error_code, ke::kNone);
  EXPECT_FALSE(logs_->FindTopic("secret").ok());
}

// ---- DescribeTopicPartitions, DeleteRecords, CreatePartitions, OffsetForLeaderEpoch

TEST_F(TopicAuthorizationTest, DescribeTopicPartitionsNeedsDescribe) {
  CreateTopic("a", 2);
  CreateTopic("b", 1);
  CreateTopic("c", 1);
  Grant({AllowAlice(kTopic, "a", AclOperation::kRead),
         AllowAlice(kTopic, "c", AclOperation::kDescribe)});
  p::DescribeTopicPartitionsRequestData all;
  auto every = HandleDescribeTopicPartitions(ctx_, alice_, all, 0);
  ASSERT_EQ(every.topics.size(), 2u);
  EXPECT_EQ(every.topics[0].name, "a");
  EXPECT_EQ(every.topics[0].topic_authorized_operations, 8 | 256);
  EXPECT_EQ(every.topics[1].name, "c");
  EXPECT_EQ(every.topics[1].topic_authorized_operations, 256);
  // Named: the refused ones after the described ones, however the limit cut these.
  p::DescribeTopicPartitionsRequestData named;
  for (const char* n : {"b", "a", "c", "zz"}) named.topics.emplace_back().name = n;
  named.response_partition_limit = 1;
  auto resp = HandleDescribeTopicPartitions(ctx_, alice_, named, 0);
  ASSERT_EQ(resp.topics.size(), 3u);
  EXPECT_EQ(resp.topics[0].name, "a");
  ASSERT_TRUE(resp.next_cursor.has_value());
  EXPECT_EQ(resp.next_cursor->topic_name, "a");
  EXPECT_EQ(resp.next_cursor->partition_index, 1);
  for (size_t i : {1, 2}) {
    EXPECT_EQ(resp.topics[i].error_code, ke::kTopicAuthorizationFailed);
    EXPECT_TRUE(resp.topics[i].topic_id.IsZero());
    EXPECT_EQ(resp.topics[i].topic_authorized_operations, INT32_MIN);
  }
  EXPECT_EQ(resp.topics[1].name, "b");
  EXPECT_EQ(resp.topics[2].name, "zz");
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeTopicPartitions);
}

TEST_F(TopicAuthorizationTest, DeleteRecordsNeedsDeleteAndChangesNothingWithout) {
  CreateTopic("orders");
  Append("orders", 0, 5);
  p::DeleteRecordsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "orders";
  auto& part = t.partitions.emplace_back();
  part.partition_index = 0;
  part.offset = 3;
  Grant({AllowAlice(kTopic, "orders", AclOperation::kWrite)});
  auto refused = HandleDeleteRecords(ctx_, alice_, req, 2);
  EXPECT_EQ(refused.topics[0].partitions[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.topics[0].partitions[0].low_watermark, -1);
  EXPECT_EQ(GetLog("orders", 0)->log_start_offset(), 0);
  testing::ExpectEncodes(refused, p::ApiKey::kDeleteRecords);
  Grant({AllowAlice(kTopic, "orders", AclOperation::kDelete)});
  auto ok = HandleDeleteRecords(ctx_, alice_, req, 2);
  EXPECT_EQ(ok.topics[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(GetLog("orders", 0)->log_start_offset(), 3);
}

TEST_F(TopicAuthorizationTest, CreatePartitionsNeedsAlter) {
  CreateTopic("orders");
  p::CreatePartitionsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "orders";
  t.count = 3;
  t.assignments = std::nullopt;
  auto refused = HandleCreatePartitions(ctx_, bob_, req, 3);
  EXPECT_EQ(refused.results[0].error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(refused.results[0].error_message, std::nullopt);
  EXPECT_EQ(logs_->FindTopic("orders")->partitions, 1);
  testing::ExpectEncodes(refused, p::ApiKey::kCreatePartitions);
  Grant({AllowAlice(kTopic, "orders", AclOperation::kAlter)});
  EXPECT_EQ(HandleCreatePartitions(ctx_, alice_, req, 3).results[0].error_code, ke::kNone);
  EXPECT_EQ(logs_->FindTopic("orders")->partitions, 3);
}

TEST_F(TopicAuthorizationTest, OffsetForLeaderEpochNeedsDescribeOrClusterAction) {
  CreateTopic("orders");
  p::OffsetForLeaderEpochRequestData req;
  auto& t = req.topics.emplace_back();
  t.topic = "orders";
  auto& part = t.partitions.emplace_back();
  part.partition = 0;
  part.leader_epoch = 0;
  auto refused = HandleOffsetForLeaderEpoch(ctx_, bob_, req, 4);
  const auto& pr = refused.topics[0].partitions[0];
  EXPECT_EQ(pr.error_code, ke::kTopicAuthorizationFailed);
  EXPECT_EQ(pr.leader_epoch, -1);
  EXPECT_EQ(pr.end_offset, -1);
  Grant({Allow(kCluster, kClusterName, "User:bob", AclOperation::kClusterAction)});
  EXPECT_EQ(HandleOffsetForLeaderEpoch(ctx_, bob_, req, 4).topics[0].partitions[0].error_code,
            ke::kNone);
  Grant({AllowAlice(kTopic, "orders", AclOperation::kDescribe)});
  EXPECT_EQ(HandleOffsetForLeaderEpoch(ctx_, alice_, req, 4).topics[0].partitions[0].error_code,
            ke::kNone);
}

// ---- InitProducerId without a transactional id

TEST_F(TopicAuthorizationTest, AnIdempotentProducerNeedsIdempotentWriteOrWriteOnSomeTopic) {
  p::InitProducerIdRequestData req;
  req.transactional_id = std::nullopt;
  auto refused = HandleInitProducerId(ctx_, alice_, req, 4);
  EXPECT_EQ(refused.error_code, ke::kClusterAuthorizationFailed);
  EXPECT_EQ(refused.producer_id, -1);
  EXPECT_EQ(refused.producer_epoch, -1);
  EXPECT_EQ(next_producer_id_, 1000);  // no id handed out
  testing::ExpectEncodes(refused, p::ApiKey::kInitProducerId);
  // WRITE on any topic (a prefix will do), as Kafka's authorizeByResourceType.
  Grant({AllowAlice(kTopic, "logs-", AclOperation::kWrite, PatternType::kPrefixed)});
  auto ok = HandleInitProducerId(ctx_, alice_, req, 4);
  EXPECT_EQ(ok.error_code, ke::kNone);
  EXPECT_EQ(ok.producer_id, 1000);
  // Or IDEMPOTENT_WRITE on the cluster.
  Grant({Allow(kCluster, kClusterName, "User:bob", AclOperation::kIdempotentWrite)});
  EXPECT_EQ(HandleInitProducerId(ctx_, bob_, req, 4).error_code, ke::kNone);
}

}  // namespace
}  // namespace seglog
