// LogManager over the metadata log: migration of an earlier seglog's directory, stray partition
// directories, partitions named without a directory, leadership taken back after a Kafka stop,
// and a directory Kafka grew into a cluster refused.
#include "manager/metadata_store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "base/scheduler.h"
#include "io/atomic_file.h"
#include "log/checkpoint_file.h"
#include "manager/log_manager.h"
#include "manager/producer_id_manager.h"
#include "metadata/metadata_log.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/partition_change_record.h"
#include "protocol/generated/register_broker_record.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

constexpr int64_t kT0 = 1794024676000;

class MetadataStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<LogManager> Open() {
    auto c = LogManagerConfig::FromProperties({{"log.dirs", tmp_.path()}});
    EXPECT_TRUE(c.ok());
    auto m = LogManager::Open(*c, &scheduler_);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  }
  Result<std::unique_ptr<LogManager>> TryOpen() {
    auto c = LogManagerConfig::FromProperties({{"log.dirs", tmp_.path()}});
    return LogManager::Open(*c, &scheduler_);
  }
  // Appends records to the metadata log as another program (Kafka) would, in a new epoch.
  void AppendAsAnotherLeader(const std::vector<MetadataRecordValue>& records) {
    auto ml = MetadataLog::Open(tmp_.path(), {});
    ASSERT_TRUE(ml.ok()) << ml.status().ToString();
    ASSERT_TRUE((*ml)->BecomeLeader().ok());
    ASSERT_TRUE((*ml)->Append(records).ok());
    ASSERT_TRUE((*ml)->Close().ok());
  }
  int64_t MetadataEnd() {
    auto ml = MetadataLog::Open(tmp_.path(), {});
    EXPECT_TRUE(ml.ok());
    return ml.ok() ? (*ml)->end_offset() : -1;
  }
  TempDir tmp_;
  MockScheduler scheduler_{kT0};
};

TEST_F(MetadataStoreTest, AnEarlierSeglogsDirectoryIsMigratedWithItsIdsConfigsAndProducerIds) {
  // What an earlier seglog left: a topic store, a producer id block file, partition directories
  // (one with partition.metadata), and a partition directory the store does not name.
  const std::string id = "8PHy8_T19vf4-fr7_P3-_w";
  TopicMap legacy;
  legacy["orders"] = TopicMetadata{2, {{"retention.ms", "1234"}}, id};
  ASSERT_TRUE(SaveTopics(tmp_.path(), legacy).ok());
  fs::create_directories(tmp_.path() + "/orders-0");
  ASSERT_TRUE(WritePartitionMetadata(tmp_.path() + "/orders-0/partition.metadata", id).ok());
  fs::create_directories(tmp_.path() + "/loose-0");
  ASSERT_TRUE(WriteFileAtomically(tmp_.path() + "/" + kProducerIdBlockFile,
                                  EncodeLegacyProducerIdFile(7000))
                  .ok());
  {
    auto m = Open();
    ASSERT_NE(m, nullptr);
    auto md = m->FindTopic("orders");
    ASSERT_TRUE(md.ok());
    EXPECT_EQ(md->topic_id, id);
    EXPECT_EQ(md->partitions, 2);
    EXPECT_EQ(md->configs, (std::map<std::string, std::string>{{"retention.ms", "1234"}}));
    EXPECT_TRUE(m->GetLog({"orders", 1}).ok());  // created: the store named it
    EXPECT_TRUE(m->FindTopic("loose").ok());     // a directory only: migrated too
    EXPECT_EQ(*m->NextProducerId(), 7000);
    ASSERT_TRUE(m->Shutdown().ok());
  }
  EXPECT_TRUE(fs::exists(tmp_.path() + "/seglog-topics.json.migrated"));
  EXPECT_FALSE(fs::exists(tmp_.path() + "/seglog-topics.json"));
  EXPECT_TRUE(fs::exists(tmp_.path() + "/" + kProducerIdBlockFile + ".migrated"));
  // The next open reads the metadata log alone, with the same answers.
  auto m = Open();
  EXPECT_EQ(m->FindTopic("orders")->topic_id, id);
  EXPECT_GE(*m->NextProducerId(), 8000);
  // The clean-shutdown marker carries this run's broker epoch, not -1.
  ASSERT_TRUE(m->Shutdown().ok());
  EXPECT_EQ(ReadFileToString(tmp_.path() + "/.kafka_cleanshutdown")->find("-1"), std::string::npos);
}

TEST_F(MetadataStoreTest, StrayDirectoriesAreRenamedAsideAndNamedPartitionsCreated) {
  {
    auto m = Open();
    ASSERT_TRUE(m->CreateTopic("kept", 2).ok());
    ASSERT_TRUE(m->Shutdown().ok());
  }
  // A topic the metadata does not know, a partition number the topic does not have, and a
  // named partition whose directory is gone.
  fs::create_directories(tmp_.path() + "/unknown-0");
  ASSERT_TRUE(WritePartitionMetadata(tmp_.path() + "/unknown-0/partition.metadata",
                                     Uuid::Random().ToString())
                  .ok());
  fs::create_directories(tmp_.path() + "/kept-5");
  fs::remove_all(tmp_.path() + "/kept-1");
  auto m = Open();
  int strays = 0;
  for (const auto& e : fs::directory_iterator(tmp_.path())) {
    const std::string n = e.path().filename();
    if (n.ends_with("-stray")) {
      ++strays;
      EXPECT_TRUE(n.starts_with("unknown-0.") || n.starts_with("kept-5.")) << n;
    }
  }
  EXPECT_EQ(strays, 2);
  EXPECT_FALSE(m->FindTopic("unknown").ok());
  EXPECT_EQ(m->FindTopic("kept")->partitions, 2);
  EXPECT_TRUE(m->GetLog({"kept", 1}).ok());
}

TEST_F(MetadataStoreTest, LeadershipAndLeaderEpochsAfterAnotherBrokersStop) {
  Uuid id;
  {
    auto m = Open();
    ASSERT_TRUE(m->CreateTopic("t", 1).ok());
    id = *Uuid::Parse(m->FindTopic("t")->topic_id);
    ASSERT_TRUE(m->Shutdown().ok());
  }
  // Kafka's controlled shutdown: leader -1, ISR empty (leader epoch 0 -> 1).
  protocol::PartitionChangeRecord c;
  c.topic_id = id;
  c.partition_id = 0;
  c.leader = -1;
  c.isr = std::vector<int32_t>{};
  AppendAsAnotherLeader({EncodeMetadataRecord(c).value()});
  auto m = Open();
  // seglog's own clean stop left it leaderless (epoch 0 -> 1), the other broker's change made
  // it 2, and seglog took it back (3); its log appends in that epoch.
  auto log = m->GetLog({"t", 0});
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->leader_epoch(), 3);
  EXPECT_EQ((*log)->leader_epochs().back().first, 3);
}

TEST_F(MetadataStoreTest, ADirectoryKafkaGrewIntoAClusterIsRefusedUnchanged) {
  Uuid id;
  {
    auto m = Open();
    ASSERT_TRUE(m->CreateTopic("orders", 2).ok());
    id = *Uuid::Parse(m->FindTopic("orders")->topic_id);
    ASSERT_TRUE(m->Shutdown().ok());
  }
  // A second broker registered and a partition reassigned to it.
  protocol::RegisterBrokerRecord b;
  b.broker_id = 2;
  b.incarnation_id = Uuid::Random();
  b.broker_epoch = 99;
  protocol::PartitionChangeRecord c;
  c.topic_id = id;
  c.partition_id = 0;
  c.replicas = std::vector<int32_t>{2};
  c.leader = 2;
  c.isr = std::vector<int32_t>{2};
  AppendAsAnotherLeader({EncodeMetadataRecord(b).value(), EncodeMetadataRecord(c).value()});
  const int64_t end = MetadataEnd();
  auto m = TryOpen();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(m.status().message().find("broker(s) 2; partition orders-0 with replicas [2]"),
            std::string::npos)
      << m.status().message();
  EXPECT_EQ(MetadataEnd(), end);                                   // nothing appended
  EXPECT_TRUE(fs::exists(tmp_.path() + "/orders-0"));              // nothing renamed or removed
  EXPECT_TRUE(fs::exists(tmp_.path() + "/.kafka_cleanshutdown"));  // the marker kept
}

TEST_F(MetadataStoreTest, ConfigsSeglogDoesNotApplyAreKeptFromKafkaAndNotSetByClients) {
  {
    auto m = Open();
    ASSERT_TRUE(m->CreateTopic("__transaction_state", 1, {{"cleanup.policy", "compact"}}).ok());
    ASSERT_TRUE(m->Shutdown().ok());
  }
  // What Kafka writes on its own __transaction_state.
  protocol::ConfigRecord a;
  a.resource_type = kConfigResourceTopic;
  a.resource_name = "__transaction_state";
  a.name = "min.insync.replicas";
  a.value = "1";
  protocol::ConfigRecord b = a;
  b.name = "unclean.leader.election.enable";
  b.value = "false";
  AppendAsAnotherLeader({EncodeMetadataRecord(a).value(), EncodeMetadataRecord(b).value()});
  auto m = Open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->FindTopic("__transaction_state")->configs.at("min.insync.replicas"), "1");
  // Other configs still change; the kept ones stay.
  ASSERT_TRUE(m->AlterTopicConfig("__transaction_state", {{"retention.ms", "5000"}}, {}).ok());
  EXPECT_EQ(m->FindTopic("__transaction_state")->configs.size(), 4u);
  // A client cannot set one seglog does not apply; it can remove it.
  EXPECT_FALSE(m->AlterTopicConfig("__transaction_state", {{"min.insync.replicas", "2"}}, {}).ok());
  ASSERT_TRUE(m->AlterTopicConfig("__transaction_state", {}, {"min.insync.replicas"}).ok());
  EXPECT_EQ(m->FindTopic("__transaction_state")->configs.count("min.insync.replicas"), 0u);
}

// The metadata log's batches: count and records of each (base offset, length, last offset delta).
std::vector<int64_t> MetadataBatchRecordCounts(const std::string& log_dir) {
  std::vector<int64_t> counts;
  const std::vector<uint8_t> b =
      testing::ReadFileBytes(log_dir + "/__cluster_metadata-0/00000000000000000000.log");
  auto be32 = [&](size_t at) {
    return static_cast<int32_t>(uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 |
                                uint32_t{b[at + 2]} << 8 | uint32_t{b[at + 3]});
  };
  for (size_t pos = 0; pos + 61 <= b.size();) {
    const int32_t length = be32(pos + 8);
    counts.push_back(be32(pos + 23) + 1);  // last offset delta + 1
    pos += 12 + static_cast<size_t>(length);
  }
  return counts;
}

TEST_F(MetadataStoreTest, ManyTopicsAreOneBatchAndEachFailsAlone) {
  auto m = Open();
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->CreateTopic("old", 1).ok());
  const size_t batches_before = MetadataBatchRecordCounts(tmp_.path()).size();
  const std::vector<Status> got = m->CreateTopics({
      {"a", 2, {{"cleanup.policy", "compact"}}},
      {"old", 1, {}},  // exists
      {"b", 1, {}},
      {"a", 3, {}},                       // repeats an earlier topic of the request
      {"bad/name", 1, {}},                // illegal name
      {"c", 0, {}},                       // no partitions
      {"d", 1, {{"retention.ms", "x"}}},  // bad config
      {"e", 3, {}},
  });
  ASSERT_EQ(got.size(), 8u);
  EXPECT_TRUE(got[0].ok()) << got[0].ToString();
  EXPECT_EQ(got[1].code(), Status::Code::kAlreadyExists);
  EXPECT_TRUE(got[2].ok());
  EXPECT_EQ(got[3].code(), Status::Code::kAlreadyExists);
  EXPECT_FALSE(got[4].ok());
  EXPECT_FALSE(got[5].ok());
  EXPECT_FALSE(got[6].ok());
  EXPECT_TRUE(got[7].ok());
  // One batch: a, b and e (TopicRecord, a ConfigRecord, a PartitionRecord per partition).
  const std::vector<int64_t> batches = MetadataBatchRecordCounts(tmp_.path());
  ASSERT_EQ(batches.size(), batches_before + 1);
  EXPECT_EQ(batches.back(), (1 + 1 + 2) + (1 + 1) + (1 + 3));
  EXPECT_EQ(m->FindTopic("a")->partitions, 2);
  EXPECT_EQ(m->FindTopic("a")->configs.at("cleanup.policy"), "compact");
  EXPECT_EQ(m->FindTopic("e")->partitions, 3);
  EXPECT_FALSE(m->FindTopic("c").ok());
  EXPECT_FALSE(m->FindTopic("d").ok());
  std::set<std::string> ids;
  for (const char* t : {"old", "a", "b", "e"}) ids.insert(m->FindTopic(t)->topic_id);
  EXPECT_EQ(ids.size(), 4u);
  for (const char* p : {"a-0", "a-1", "b-0", "e-2"}) {
    EXPECT_TRUE(fs::exists(fs::path(tmp_.path()) / p)) << p;
  }
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->ListTopics().size(), 4u);
  EXPECT_EQ(m->FindTopic("e")->partitions, 3);
}

TEST_F(MetadataStoreTest, ClientQuotasAreRecordsThatSurviveARestart) {
  auto m = Open();
  ASSERT_NE(m, nullptr);
  MetadataStore* store = m->metadata();
  const uint64_t v0 = store->client_quotas_version();
  auto before = store->ClientQuotas();
  EXPECT_TRUE(before->quotas().empty());
  using Op = ClientQuotaAlteration::Op;
  std::vector<ClientQuotaAlteration> alter = {
      {{{"user", "alice"}, {"client-id", "app"}}, {Op{"producer_byte_rate", 1024, false}}},
      {{{"client-id", std::nullopt}}, {Op{"consumer_byte_rate", 2048, false}}},
      {{{"user", ""}}, {Op{"consumer_byte_rate", 1, false}}}};
  // validate_only: the answers, nothing written.
  const int64_t end = store->end_offset();
  auto checked = store->AlterClientQuotas(alter, true);
  ASSERT_TRUE(checked.ok());
  ASSERT_EQ(checked->size(), 3u);
  EXPECT_TRUE((*checked)[0].second.ok());
  EXPECT_EQ((*checked)[2].second.message, "Empty user not supported");
  EXPECT_EQ(store->end_offset(), end);
  EXPECT_EQ(store->client_quotas_version(), v0);
  // Applied: one batch, a new snapshot with a new version; the old one is unchanged.
  auto done = store->AlterClientQuotas(alter, false);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(store->end_offset(), end + 2);
  EXPECT_GT(store->client_quotas_version(), v0);
  EXPECT_TRUE(before->quotas().empty());
  auto snapshot = store->ClientQuotas();
  EXPECT_EQ(snapshot->version(), store->client_quotas_version());
  EXPECT_EQ(snapshot->Lookup(ClientQuotaType::kProduce, "alice", "app").limit, 1024);
  EXPECT_EQ(snapshot->Lookup(ClientQuotaType::kFetch, "bob", "x").limit, 2048);
  // Describe: every entity, then the default client id only.
  EXPECT_EQ(store->DescribeClientQuotas({}).entries.size(), 2u);
  ClientQuotaFilter f{{ClientQuotaFilterComponent{"client-id", kQuotaMatchDefault, std::nullopt}},
                      true};
  auto d = store->DescribeClientQuotas(f);
  ASSERT_EQ(d.entries.size(), 1u);
  EXPECT_EQ(d.entries[0].second.at("consumer_byte_rate"), 2048);
  // A restart reads them back from the metadata log; a removal is a record too.
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  ASSERT_NE(m, nullptr);
  store = m->metadata();
  EXPECT_EQ(store->ClientQuotas()->Lookup(ClientQuotaType::kProduce, "alice", "app").limit, 1024);
  auto removed = store->AlterClientQuotas(
      {{{{"client-id", std::nullopt}}, {Op{"consumer_byte_rate", 0, true}}}}, false);
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE((*removed)[0].second.ok());
  EXPECT_EQ(store->DescribeClientQuotas({}).entries.size(), 1u);
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->metadata()->DescribeClientQuotas({}).entries.size(), 1u);
}

// UpdateFeatures' levels are FeatureLevelRecords in one batch: a removal (level 0) and a new
// level both survive a restart.
TEST_F(MetadataStoreTest, FeatureLevelsAreRecordsThatSurviveARestart) {
  auto m = Open();
  ASSERT_NE(m, nullptr);
  MetadataStore* store = m->metadata();
  EXPECT_EQ(store->FeatureLevel("share.version"), 2);  // the bootstrap's
  EXPECT_EQ(store->FeatureLevel("streams.version"), 1);
  const int64_t end = store->end_offset();
  ASSERT_TRUE(store->SetFeatureLevels({{"share.version", 0}, {"streams.version", 0}}).ok());
  EXPECT_EQ(store->end_offset(), end + 2);
  EXPECT_EQ(store->FeatureLevel("share.version"), 0);
  EXPECT_EQ(store->FeatureLevel("streams.version"), 0);
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  ASSERT_NE(m, nullptr);
  store = m->metadata();
  EXPECT_EQ(store->FeatureLevel("share.version"), 0);
  EXPECT_EQ(store->FeatureLevel("streams.version"), 0);
  ASSERT_TRUE(store->SetFeatureLevels({{"share.version", 1}}).ok());
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->metadata()->FeatureLevel("share.version"), 1);
  EXPECT_EQ(m->metadata()->FeatureLevel("streams.version"), 0);
}

// A group's own configs are GROUP (32) ConfigRecords, as Kafka's controller keeps them: kept
// across a restart, a removed key written as a null value, a group with none left not listed.
TEST_F(MetadataStoreTest, GroupConfigsAreConfigRecordsOfType32) {
  {
    auto m = Open();
    ASSERT_NE(m->metadata(), nullptr);
    ASSERT_TRUE(m->metadata()
                    ->AlterGroupConfig("g", {{"share.auto.offset.reset", "earliest"},
                                             {"consumer.session.timeout.ms", "50000"}})
                    .ok());
    ASSERT_TRUE(
        m->metadata()->AlterGroupConfig("g", {{"share.auto.offset.reset", "earliest"}}).ok());
    ASSERT_TRUE(
        m->metadata()->AlterGroupConfig("gone", {{"share.delivery.count.limit", "3"}}).ok());
    ASSERT_TRUE(m->metadata()->AlterGroupConfig("gone", {}).ok());
    EXPECT_TRUE(m->metadata()->ClientMetricsConfigs().empty());  // not CLIENT_METRICS
    ASSERT_TRUE(m->Shutdown().ok());
  }
  auto m = Open();
  EXPECT_EQ(m->metadata()->GroupConfigs("g"),
            (std::map<std::string, std::string>{{"share.auto.offset.reset", "earliest"}}));
  EXPECT_TRUE(m->metadata()->GroupConfigs("gone").empty());
  const auto all = m->metadata()->AllGroupConfigs();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.begin()->first, "g");
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

// KIP-714 subscriptions are CLIENT_METRICS (16) ConfigRecords, kept across a restart and removed
// with null values, as Kafka's controller keeps them.
TEST_F(MetadataStoreTest, ClientMetricsSubscriptionsAreConfigRecordsOfType16) {
  {
    auto m = Open();
    ASSERT_NE(m->metadata(), nullptr);
    ASSERT_TRUE(m->metadata()
                    ->AlterClientMetricsConfig(
                        "sub", {{"metrics", "org.apache.kafka.producer."}, {"interval.ms", "1000"}})
                    .ok());
    ASSERT_TRUE(m->metadata()->AlterClientMetricsConfig("gone", {{"metrics", "*"}}).ok());
    ASSERT_TRUE(m->metadata()->AlterClientMetricsConfig("gone", {}).ok());
    EXPECT_TRUE(m->metadata()->BrokerConfigs("sub").empty());  // not a BROKER resource
    ASSERT_TRUE(m->Shutdown().ok());
  }
  auto m = Open();
  const auto subs = m->metadata()->ClientMetricsConfigs();
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs.at("sub"),
            (std::map<std::string, std::string>{{"interval.ms", "1000"},
                                                {"metrics", "org.apache.kafka.producer."}}));
}

}  // namespace
}  // namespace seglog
