// The single-node answers to the replica, quorum, producer and membership APIs
// (admin_handlers.cc), called directly over a LogManager in a temporary directory:
// each in Kafka 4.4.0's codes and words, and each response encodable at every served version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/scheduler.h"
#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "seglog/record_batch.h"
#include "server/expect_encodes.h"
#include "server/features.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"
#include "txn/transaction_marker.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
constexpr int64_t kT0 = kHandlersTestT0;

// A node with cluster id "cluster-x" at transaction.version 2 on the manual clock, and a topic
// "t" of 2 partitions.
class AdminHandlersTest : public HandlersTest {
 protected:
  void SetUp() override {
    HandlersTest::SetUp();
    ctx_.cluster_id = "cluster-x";
    ctx_.transaction_version = 2;
    ctx_.clock = [this] { return scheduler_->NowMs(); };
    ASSERT_TRUE(logs_->CreateTopic("t", 2).ok());
  }
};

TEST_F(AdminHandlersTest, ElectLeadersIsNeverNeeded) {
  p::ElectLeadersRequestData req;
  req.election_type = 1;  // unclean: the same answer
  auto& t = req.topic_partitions->emplace_back();
  t.topic = "t";
  t.partitions = {0, 1, 7};
  auto& u = req.topic_partitions->emplace_back();
  u.topic = "nope";
  u.partitions = {0};
  auto resp = HandleElectLeaders(ctx_, rc_, req, 2);
  ASSERT_EQ(resp.replica_election_results.size(), 2u);
  const auto& r = resp.replica_election_results[0].partition_result;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].error_code, ke::kElectionNotNeeded);
  EXPECT_EQ(r[0].error_message, "Leader election not needed for topic partition.");
  EXPECT_EQ(r[1].error_code, ke::kElectionNotNeeded);
  EXPECT_EQ(r[2].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(r[2].error_message, "No such partition as t-7");
  EXPECT_EQ(resp.replica_election_results[1].partition_result[0].error_message,
            "No such topic as nope");
  testing::ExpectEncodes(resp, p::ApiKey::kElectLeaders);

  // All partitions (null): every topic listed, no partition needs an election.
  req.topic_partitions = std::nullopt;
  resp = HandleElectLeaders(ctx_, rc_, req, 2);
  ASSERT_EQ(resp.replica_election_results.size(), 1u);
  EXPECT_EQ(resp.replica_election_results[0].topic, "t");
  EXPECT_TRUE(resp.replica_election_results[0].partition_result.empty());

  // An election type Kafka does not know: INVALID_REQUEST everywhere.
  req.topic_partitions.emplace().emplace_back().topic = "t";
  (*req.topic_partitions)[0].partitions = {0};
  req.election_type = 3;
  resp = HandleElectLeaders(ctx_, rc_, req, 1);
  EXPECT_EQ(resp.error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.replica_election_results[0].partition_result[0].error_message,
            "Unknown election type 3");
}

TEST_F(AdminHandlersTest, ReassignmentsOnlyToThisNode) {
  p::AlterPartitionReassignmentsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "t";
  auto add = [&](int32_t partition, std::optional<std::vector<int32_t>> replicas) {
    auto& pr = t.partitions.emplace_back();
    pr.partition_index = partition;
    pr.replicas = std::move(replicas);
  };
  add(0, std::vector<int32_t>{1});     // the current assignment: nothing to do
  add(1, std::vector<int32_t>{1, 2});  // a broker that does not exist
  add(0, std::nullopt);                // cancel, with nothing in progress
  add(0, std::vector<int32_t>{});
  add(0, std::vector<int32_t>{1, 1});
  add(9, std::vector<int32_t>{1});
  req.topics.emplace_back().name = "nope";
  req.topics.back().partitions.emplace_back().replicas = std::vector<int32_t>{1};
  auto resp = HandleAlterPartitionReassignments(ctx_, rc_, req, 1);
  EXPECT_EQ(resp.error_message, std::nullopt);
  const auto& r = resp.responses[0].partitions;
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].error_code, 0);
  EXPECT_EQ(r[0].error_message, std::nullopt);
  EXPECT_EQ(r[1].error_code, ke::kInvalidReplicaAssignment);
  EXPECT_EQ(r[1].error_message,
            "The manual partition assignment includes broker 2, but no such broker is "
            "registered.");
  EXPECT_EQ(r[2].error_code, ke::kNoReassignmentInProgress);
  EXPECT_EQ(r[2].error_message, std::nullopt);
  EXPECT_EQ(r[3].error_message, "The manual partition assignment includes an empty replica list.");
  EXPECT_EQ(r[4].error_message,
            "The manual partition assignment includes the broker 1 more than once.");
  EXPECT_EQ(r[5].error_message, "Unable to find partition t:9.");
  EXPECT_EQ(resp.responses[1].partitions[0].error_message, "Unable to find a topic named nope.");
  testing::ExpectEncodes(resp, p::ApiKey::kAlterPartitionReassignments);

  // Nothing ever in progress.
  p::ListPartitionReassignmentsRequestData list;
  auto listed = HandleListPartitionReassignments(ctx_, rc_, list, 0);
  EXPECT_EQ(listed.error_code, 0);
  EXPECT_TRUE(listed.topics.empty());
}

TEST_F(AdminHandlersTest, DescribeQuorumHasThisNodeAsItsOnlyVoter) {
  ctx_.advertised_host = "127.0.0.1";
  ctx_.advertised_port->store(19092);
  p::DescribeQuorumRequestData req;
  auto& t = req.topics.emplace_back();
  t.topic_name = "__cluster_metadata";
  t.partitions.emplace_back().partition_index = 0;
  auto resp = HandleDescribeQuorum(ctx_, rc_, req, 2);
  ASSERT_EQ(resp.topics.size(), 1u);
  const auto& part = resp.topics[0].partitions.at(0);
  EXPECT_EQ(part.error_code, 0);
  EXPECT_EQ(part.leader_id, 1);
  ASSERT_EQ(part.current_voters.size(), 1u);
  EXPECT_EQ(part.current_voters[0].replica_id, 1);
  EXPECT_EQ(part.current_voters[0].last_fetch_timestamp, kT0);
  EXPECT_TRUE(part.observers.empty());
  ASSERT_EQ(resp.nodes.size(), 1u);
  EXPECT_EQ(resp.nodes[0].listeners.at(0).port, 19092);
  for (int16_t v = 0; v <= 2; ++v) {
    p::ProtocolWriter w;
    EXPECT_TRUE(HandleDescribeQuorum(ctx_, rc_, req, v).Encode(&w, v).ok()) << v;
  }

  // Any other partition: UNKNOWN_TOPIC_OR_PARTITION, nothing else known.
  t.partitions[0].partition_index = 1;
  resp = HandleDescribeQuorum(ctx_, rc_, req, 2);
  EXPECT_EQ(resp.topics[0].partitions[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.topics[0].partitions[0].error_message,
            "This server does not host this topic-partition.");
  EXPECT_TRUE(resp.nodes.empty());
}

TEST_F(AdminHandlersTest, DescribeProducersAndWriteTxnMarkers) {
  auto log = logs_->GetLog(TopicPartition{"t", 0});
  ASSERT_TRUE(log.ok());
  // An open transaction of producer 7 (epoch 3) from offset 0.
  BatchOptions o;
  o.producer_id = 7;
  o.producer_epoch = 3;
  o.base_sequence = 0;
  o.is_transactional = true;
  RecordBatchBuilder b(o);
  const std::string v = "v";
  const Bytes value(reinterpret_cast<const uint8_t*>(v.data()), v.size());
  ASSERT_TRUE(b.Append(kT0, std::nullopt, value).ok());
  ASSERT_TRUE(b.Append(kT0, std::nullopt, value).ok());
  ASSERT_TRUE((*log)->AppendAsLeader(*b.Build()).ok());
  p::DescribeProducersRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "t";
  t.partition_indexes = {0, 5};
  req.topics.emplace_back().name = "nope";
  req.topics.back().partition_indexes = {0};
  auto resp = HandleDescribeProducers(ctx_, rc_, req, 0);
  const auto& p0 = resp.topics[0].partitions[0];
  ASSERT_EQ(p0.active_producers.size(), 1u);
  EXPECT_EQ(p0.active_producers[0].producer_id, 7);
  EXPECT_EQ(p0.active_producers[0].producer_epoch, 3);
  EXPECT_EQ(p0.active_producers[0].last_sequence, 1);
  EXPECT_EQ(p0.active_producers[0].current_txn_start_offset, 0);
  EXPECT_EQ(resp.topics[0].partitions[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(resp.topics[0].partitions[1].error_message, std::nullopt);
  EXPECT_EQ(resp.topics[1].partitions[0].error_message,
            "This server does not host this topic-partition.");
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeProducers);

  // kafka-transactions.sh abort: an ABORT marker for the hanging transaction.
  TransactionCoordinator::MarkerWriter write = [&](const TopicPartition& tp, int64_t pid,
                                                   int16_t epoch, int32_t coordinator_epoch,
                                                   bool commit, int64_t ts) -> int16_t {
    auto l = logs_->GetLog(tp);
    if (!l.ok()) return ke::kUnknownTopicOrPartition;
    return WriteTransactionMarker(**l, pid, epoch, coordinator_epoch, commit, ts);
  };
  p::WriteTxnMarkersRequestData markers;
  auto& m = markers.markers.emplace_back();
  m.producer_id = 7;
  m.producer_epoch = 3;
  m.transaction_result = false;
  auto& mt = m.topics.emplace_back();
  mt.name = "t";
  mt.partition_indexes = {0};
  const auto abort = m;  // copied before the vector grows
  auto stale = abort;
  stale.producer_epoch = 2;  // older than the producer's: refused
  markers.markers.push_back(stale);
  auto unknown = abort;
  unknown.topics[0].name = "nope";
  markers.markers.push_back(unknown);
  auto written = HandleWriteTxnMarkers(ctx_, rc_, markers, 2, write);
  ASSERT_EQ(written.markers.size(), 1u);  // one producer id
  ASSERT_EQ(written.markers[0].topics.size(), 3u);
  EXPECT_EQ(written.markers[0].topics[0].partitions[0].error_code, 0);
  EXPECT_EQ(written.markers[0].topics[1].partitions[0].error_code, ke::kInvalidProducerEpoch);
  EXPECT_EQ(written.markers[0].topics[2].partitions[0].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ((*log)->active_producers().at(0).current_txn_first_offset, -1);  // no longer open
  EXPECT_EQ((*log)->last_stable_offset(), (*log)->log_end_offset());
}

TEST_F(AdminHandlersTest, ListConfigResourcesAndMembership) {
  p::ListConfigResourcesRequestData req;
  auto all = HandleListConfigResources(ctx_, rc_, req, 1);
  ASSERT_EQ(all.config_resources.size(), 3u);
  EXPECT_EQ(all.config_resources[0].resource_type, 8);
  EXPECT_EQ(all.config_resources[1].resource_type, 4);
  EXPECT_EQ(all.config_resources[2].resource_name, "t");
  req.resource_types = {2};
  EXPECT_EQ(HandleListConfigResources(ctx_, rc_, req, 1).config_resources.size(), 1u);
  req.resource_types = {3};
  EXPECT_EQ(HandleListConfigResources(ctx_, rc_, req, 1).error_code, ke::kUnsupportedVersion);
  EXPECT_TRUE(HandleListConfigResources(ctx_, rc_, {}, 0).config_resources.empty());  // v0: metrics

  p::UnregisterBrokerRequestData unregister;
  unregister.broker_id = 2;
  EXPECT_EQ(HandleUnregisterBroker(ctx_, rc_, unregister, 0).error_message,
            "Broker ID 2 is not currently registered");
  p::UnregisterControllerRequestData controller;
  controller.controller_id = 1;
  EXPECT_EQ(HandleUnregisterController(ctx_, rc_, controller, 0).error_message,
            "Controller cannot unregister itself while it is active.");
  p::AddRaftVoterRequestData voter;
  voter.cluster_id = std::nullopt;
  voter.voter_id = 2;
  EXPECT_EQ(HandleAddRaftVoter(ctx_, rc_, voter, 1).error_code,
            ke::kInvalidRequest);  // no dir id
  voter.voter_directory_id = Uuid::Random();
  EXPECT_EQ(HandleAddRaftVoter(ctx_, rc_, voter, 1).error_code, ke::kUnsupportedVersion);
  voter.cluster_id = "other";
  EXPECT_EQ(HandleAddRaftVoter(ctx_, rc_, voter, 1).error_code, 104);
}

}  // namespace
}  // namespace seglog
