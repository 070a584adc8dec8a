// Tests for the Broker's dispatch without sockets: frames in, Responses out. What it refuses
// (and how: a closed connection, KIP-511's v0 answer), the produce and fetch paths with real
// logs, long polling, and every served API answering at every version it advertises with a
// response that decodes at that version.
#include "server/broker.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>

#include "base/coding.h"
#include "base/scheduler.h"
#include "group/group_coordinator.h"
#include "protocol/generated/add_raft_voter_request.h"
#include "protocol/generated/add_raft_voter_response.h"
#include "protocol/generated/alter_partition_reassignments_request.h"
#include "protocol/generated/alter_partition_reassignments_response.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/consumer_group_heartbeat_request.h"
#include "protocol/generated/consumer_group_heartbeat_response.h"
#include "protocol/generated/create_acls_request.h"
#include "protocol/generated/create_acls_response.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/delete_acls_request.h"
#include "protocol/generated/delete_acls_response.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"
#include "protocol/generated/describe_acls_request.h"
#include "protocol/generated/describe_acls_response.h"
#include "protocol/generated/describe_cluster_request.h"
#include "protocol/generated/describe_cluster_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "protocol/generated/describe_quorum_request.h"
#include "protocol/generated/describe_quorum_response.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/find_coordinator_request.h"
#include "protocol/generated/find_coordinator_response.h"
#include "protocol/generated/get_telemetry_subscriptions_request.h"
#include "protocol/generated/heartbeat_request.h"
#include "protocol/generated/heartbeat_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"
#include "protocol/generated/join_group_request.h"
#include "protocol/generated/join_group_response.h"
#include "protocol/generated/leave_group_request.h"
#include "protocol/generated/leave_group_response.h"
#include "protocol/generated/list_config_resources_request.h"
#include "protocol/generated/list_config_resources_response.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"
#include "protocol/generated/list_offsets_request.h"
#include "protocol/generated/list_offsets_response.h"
#include "protocol/generated/list_partition_reassignments_request.h"
#include "protocol/generated/list_partition_reassignments_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_delete_request.h"
#include "protocol/generated/offset_delete_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "protocol/generated/push_telemetry_request.h"
#include "protocol/generated/remove_raft_voter_request.h"
#include "protocol/generated/remove_raft_voter_response.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/generated/sync_group_request.h"
#include "protocol/generated/sync_group_response.h"
#include "protocol/generated/unregister_broker_request.h"
#include "protocol/generated/unregister_broker_response.h"
#include "protocol/generated/unregister_controller_request.h"
#include "protocol/generated/unregister_controller_response.h"
#include "protocol/generated/update_features_request.h"
#include "protocol/generated/update_features_response.h"
#include "protocol/generated/write_txn_markers_request.h"
#include "protocol/generated/write_txn_markers_response.h"
#include "protocol/kafka_error.h"
#include "record/batch_walker.h"
#include "seglog/record_batch.h"
#include "server/handlers.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"
#include "txn/transaction_coordinator.h"
#include "txn/transaction_marker.h"

namespace seglog {
namespace {

using namespace protocol;
constexpr int64_t kT0 = 1794024676000;

// A request frame: header at the version the API's schema asks for, then the body.
template <typename Body>
std::vector<uint8_t> Frame(int16_t api_key, int16_t version, const Body& body,
                           int32_t correlation_id = 42) {
  RequestHeaderData h;
  h.request_api_key = api_key;
  h.request_api_version = version;
  h.correlation_id = correlation_id;
  h.client_id = "test-client";
  ProtocolWriter w;
  EXPECT_TRUE(h.Encode(&w, RequestHeaderVersion(api_key, version)).ok());
  EXPECT_TRUE(body.Encode(&w, version).ok()) << Body::kApiKey << " v" << version;
  return w.bytes();
}

struct Answer {
  Response::Action action = Response::Action::kAbandoned;
  std::vector<uint8_t> bytes;  // flattened
};

// Decodes a response frame: its header (the right version for the API) and body.
template <typename Body>
Body Decode(const Answer& a, int16_t api_key, int16_t version, int32_t correlation_id = 42) {
  EXPECT_EQ(a.action, Response::Action::kSend);
  ProtocolReader r(a.bytes);
  ResponseHeaderData h;
  EXPECT_TRUE(h.Decode(&r, ResponseHeaderVersion(api_key, version)).ok());
  EXPECT_EQ(h.correlation_id, correlation_id);
  auto body = Body::Parse(std::span<const uint8_t>(a.bytes).subspan(r.position()), version);
  EXPECT_TRUE(body.ok()) << body.status().ToString();
  return body.ok() ? std::move(body).value() : Body{};
}

class BrokerDispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
    ASSERT_TRUE(config.ok());
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto m = LogManager::Open(*config, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    auto groups =
        GroupCoordinator::Open(GroupCoordinatorConfig(), logs_.get(), scheduler_.get(), {});
    ASSERT_TRUE(groups.ok()) << groups.status().ToString();
    groups_ = std::move(groups).value();
    auto txns = TransactionCoordinator::Open(TransactionCoordinatorConfig(), logs_.get(),
                                             scheduler_.get(), [this](const std::string& l) {
                                               std::lock_guard<std::mutex> g(lines_mu_);
                                               lines_.push_back(l);
                                             });
    ASSERT_TRUE(txns.ok()) << txns.status().ToString();
    txns_ = std::move(txns).value();
    BrokerContext ctx;
    ctx.logs = logs_.get();
    ctx.groups = groups_.get();
    ctx.txns = txns_.get();
    ctx.transaction_version = TransactionCoordinatorConfig().transaction_version;
    ctx.cluster_id = "cluster-x";
    ctx.advertised_host = "127.0.0.1";
    ctx.advertised_port->store(19092);
    ctx.next_producer_id = [this]() -> Result<int64_t> { return next_id_++; };
    ctx.logger = [this](const std::string& l) {
      std::lock_guard<std::mutex> g(lines_mu_);
      lines_.push_back(l);
    };
    broker_ = std::make_unique<Broker>(ctx);
    txns_->Start(broker_->MarkerWriter());
  }
  void TearDown() override {
    txns_->Shutdown();
    broker_->Shutdown();
    groups_->Shutdown();
    ASSERT_TRUE(logs_->Shutdown().ok());
  }

  // Handles `frame` and waits (bounded) for the answer. With check_body_rules_, first checks
  // Kafka's two rules for a request's body on it: cut short by one byte, it closes the
  // connection (unless the body is empty); then `frame` is handled with three bytes after its
  // last field, which are ignored.
  Answer Call(std::vector<uint8_t> frame, int64_t wait_ms = 10000) {
    if (check_body_rules_) {
      ProtocolReader r(frame);
      RequestHeaderData h;
      const int16_t key = static_cast<int16_t>(LoadBEInt16(frame.data()));
      const int16_t version = static_cast<int16_t>(LoadBEInt16(frame.data() + 2));
      EXPECT_TRUE(h.Decode(&r, RequestHeaderVersion(key, version)).ok());
      if (r.remaining() > 0) {
        std::vector<uint8_t> cut(frame.begin(), frame.end() - 1);
        check_body_rules_ = false;
        EXPECT_EQ(Call(std::move(cut), wait_ms).action, Response::Action::kCloseConnection)
            << "a body cut short must be refused: api " << key << " v" << version;
        check_body_rules_ = true;
      }
      frame.insert(frame.end(), {0x01, 0x00, 0x00});
    }
    auto promise = std::make_shared<std::promise<Answer>>();
    auto future = promise->get_future();
    Responder respond([promise](Response r) {
      Answer a;
      a.action = r.action;
      a.bytes = r.buffer.Flatten();
      promise->set_value(std::move(a));
    });
    RequestContext rc;
    rc.connection_id = 7;
    rc.client_address = "127.0.0.1:5555";
    rc.client_host = "127.0.0.1";
    rc.listener = "PLAINTEXT";
    rc.principal = principal_;
    (target_ != nullptr ? target_ : broker_.get())
        ->Handle(rc, std::move(frame), std::move(respond));
    if (future.wait_for(std::chrono::milliseconds(wait_ms)) != std::future_status::ready) {
      ADD_FAILURE() << "no answer within " << wait_ms << " ms";
      return {};
    }
    return future.get();
  }

  bool Logged(const std::string& part) {
    std::lock_guard<std::mutex> g(lines_mu_);
    for (const auto& l : lines_) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }

  ProduceRequestData ProduceOne(const std::string& topic, std::span<const uint8_t> batch,
                                int16_t acks = -1) {
    ProduceRequestData req;
    req.acks = acks;
    req.timeout_ms = 30000;
    req.transactional_id = std::nullopt;
    auto& t = req.topic_data.emplace_back();
    t.name = topic;
    auto& p = t.partition_data.emplace_back();
    p.index = 0;
    p.records = Records::View(batch);
    return req;
  }

  FetchRequestData FetchOne(const std::string& topic, int64_t offset, int32_t max_wait = 0,
                            int32_t min_bytes = 0) {
    FetchRequestData req;
    req.max_wait_ms = max_wait;
    req.min_bytes = min_bytes;
    auto& t = req.topics.emplace_back();
    t.topic = topic;  // v4-12; v13+ name topics by id
    if (auto md = logs_->FindTopic(topic); md.ok()) t.topic_id = Uuid::Parse(md->topic_id).value();
    auto& p = t.partitions.emplace_back();
    p.partition = 0;
    p.fetch_offset = offset;
    p.partition_max_bytes = 1 << 20;
    return req;
  }

  testing::TempDir dir_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<GroupCoordinator> groups_;
  std::unique_ptr<TransactionCoordinator> txns_;
  std::unique_ptr<Broker> broker_;
  int64_t next_id_ = 1000;
  bool check_body_rules_ = false;
  // Who Call's requests come from, and the broker they go to (null: broker_).
  std::string principal_ = "User:ANONYMOUS";
  Broker* target_ = nullptr;
  std::mutex lines_mu_;
  std::vector<std::string> lines_;
};

TEST_F(BrokerDispatchTest, ApiVersionsListsServedApisWithAV0Header) {
  ApiVersionsRequestData req;
  req.client_software_name = "librdkafka";
  req.client_software_version = "2.16.0";
  Answer a = Call(Frame(18, 3, req));
  // The ApiVersions response header is v0 even at flexible v3: correlation id only.
  ASSERT_GE(a.bytes.size(), 4u);
  EXPECT_EQ(LoadBEInt32(a.bytes.data()), 42);
  auto resp = Decode<ApiVersionsResponseData>(a, 18, 3);
  EXPECT_EQ(resp.error_code, 0);
  bool produce = false;
  for (const auto& k : resp.api_keys) {
    if (k.api_key == 0) {
      produce = true;
      EXPECT_EQ(k.min_version, 0);  // KAFKA-18659
      EXPECT_EQ(k.max_version, 13);
    }
  }
  EXPECT_TRUE(produce);
}

// Group requests Kafka cannot parse or refuses: a group id longer than a protocol string may
// be (32767 bytes) closes the connection; a JoinGroup with an unknown protocol type for an
// existing group, or an OffsetCommit for a topic that does not exist, gets Kafka's error code;
// nothing is stored for any of them.
TEST_F(BrokerDispatchTest, BadGroupRequests) {
  JoinGroupRequestData join;
  join.group_id = std::string(100 * 1024, 'g');
  join.session_timeout_ms = 30000;
  join.protocol_type = "consumer";
  join.protocols.emplace_back().name = "range";
  // The generated encoder refuses such a string too, so the frame is written by hand: the
  // header, then a compact string length of 100 KB + 1 and the bytes.
  RequestHeaderData h;
  h.request_api_key = 11;
  h.request_api_version = 9;
  h.correlation_id = 1;
  h.client_id = "c";
  ProtocolWriter w;
  ASSERT_TRUE(h.Encode(&w, RequestHeaderVersion(11, 9)).ok());
  w.WriteUnsignedVarint(static_cast<uint32_t>(join.group_id.size() + 1));
  std::vector<uint8_t> frame = w.bytes();
  frame.insert(frame.end(), join.group_id.begin(), join.group_id.end());
  frame.resize(frame.size() + 64, 0);
  Answer a = Call(frame);
  EXPECT_EQ(a.action, Response::Action::kCloseConnection);
  EXPECT_FALSE(logs_->FindTopic("__consumer_offsets").ok());  // nothing stored, not even that

  // An OffsetCommit for a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION, no group.
  OffsetCommitRequestData commit;
  commit.group_id = "g";
  auto& t = commit.topics.emplace_back();
  t.name = "no-such-topic";
  t.partitions.emplace_back().committed_offset = 5;
  auto resp = Decode<OffsetCommitResponseData>(Call(Frame(8, 9, commit)), 8, 9);
  EXPECT_EQ(resp.topics.at(0).partitions.at(0).error_code, kafka_error::kUnknownTopicOrPartition);
  ListGroupsRequestData list;
  EXPECT_TRUE(Decode<ListGroupsResponseData>(Call(Frame(16, 5, list)), 16, 5).groups.empty());

  // A member of protocol type "consumer" joins; one of "connect" is refused.
  join.group_id = "g";
  auto first = Decode<JoinGroupResponseData>(Call(Frame(11, 9, join)), 11, 9);
  ASSERT_EQ(first.error_code, kafka_error::kMemberIdRequired);
  join.member_id = first.member_id;  // now a member, waiting for the initial delay
  groups_->JoinGroup(9, {"c", "/127.0.0.1"}, join, [](JoinGroupResponseData) {});
  JoinGroupRequestData other = join;
  other.member_id = "";
  other.protocol_type = "connect";
  auto refused = Decode<JoinGroupResponseData>(Call(Frame(11, 9, other)), 11, 9);
  EXPECT_EQ(refused.error_code, kafka_error::kInconsistentGroupProtocol);
  EXPECT_EQ(refused.member_id, "");
}

// The light APIs run on the network thread; Produce only while no append may fsync.
TEST_F(BrokerDispatchTest, InlineHandlingOnlyForBoundedWork) {
  auto frame_of = [](ApiKey key) {
    std::vector<uint8_t> f(8, 0);
    StoreBE16(f.data(), static_cast<uint16_t>(key));
    return f;
  };
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kProduce)));
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kFetch)));
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kListOffsets)));
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kApiVersions)));
  EXPECT_TRUE(broker_->HandlesInline({}));  // refused by closing: nothing to wait for
  EXPECT_FALSE(broker_->HandlesInline(frame_of(ApiKey::kMetadata)));  // may create topics
  EXPECT_FALSE(broker_->HandlesInline(frame_of(ApiKey::kCreateTopics)));
  EXPECT_FALSE(broker_->HandlesInline(frame_of(ApiKey::kInitProducerId)));
  ASSERT_TRUE(logs_->CreateTopic("flushing", 1).ok());
  ASSERT_TRUE(logs_->AlterTopicConfig("flushing", {{"flush.messages", "1"}}, {}).ok());
  EXPECT_FALSE(broker_->HandlesInline(frame_of(ApiKey::kProduce)));
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kFetch)));
  ASSERT_TRUE(logs_->AlterTopicConfig("flushing", {}, {"flush.messages"}).ok());
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kProduce)));
  ASSERT_TRUE(logs_->CreateTopic("flushing2", 1, {{"flush.messages", "10"}}).ok());
  EXPECT_FALSE(broker_->HandlesInline(frame_of(ApiKey::kProduce)));
  ASSERT_TRUE(logs_->DeleteTopic("flushing2").ok());
  EXPECT_TRUE(broker_->HandlesInline(frame_of(ApiKey::kProduce)));
}

// librdkafka 2.16.0's Metadata v13 for all topics, byte for byte as it is on the wire: three
// bytes follow the body's fields (topics null, no auto creation, no authorized operations, no
// tagged fields). Kafka 4.4.0 answers it; so must seglog.
TEST_F(BrokerDispatchTest, Librdkafka216MetadataWithTrailingBytesIsAnswered) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  std::vector<uint8_t> frame = {0x00, 0x03, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x2a, 0x00,
                                0x07, 'r',  'd',  'k',  'a',  'f',  'k',  'a',  0x00,
                                0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00};
  Answer a = Call(frame);
  ASSERT_EQ(a.action, Response::Action::kSend);
  auto resp = Decode<MetadataResponseData>(a, 3, 13);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].name, "t");
  // The same body cut inside its fields is refused.
  frame.resize(frame.size() - 5);
  EXPECT_EQ(Call(frame).action, Response::Action::kCloseConnection);
  EXPECT_TRUE(Logged("Error getting request for apiKey: Metadata, apiVersion: 13"));
}

// Without a telemetry manager (no http.listener) KIP-714's APIs are not enabled, as on a Kafka
// broker without a telemetry reporter: the connection is closed.
TEST_F(BrokerDispatchTest, TelemetryApisAreNotEnabledWithoutAManager) {
  EXPECT_EQ(Call(Frame(71, 0, GetTelemetrySubscriptionsRequestData{})).action,
            Response::Action::kCloseConnection);
  EXPECT_TRUE(Logged("GetTelemetrySubscriptions with version 0 which is not enabled"));
  EXPECT_EQ(Call(Frame(72, 0, PushTelemetryRequestData{})).action,
            Response::Action::kCloseConnection);
  EXPECT_TRUE(Logged("PushTelemetry with version 0 which is not enabled"));
}

// Kafka's DescribeAclsRequest refuses a filter with an UNKNOWN (0) element by closing the
// connection; with every element ANY (1) it is answered (SECURITY_DISABLED: no authorizer).
TEST_F(BrokerDispatchTest, DescribeAclsWithAnUnknownFilterElementClosesTheConnection) {
  DescribeAclsRequestData any;
  any.resource_type_filter = 1;
  any.pattern_type_filter = 1;
  any.operation = 1;
  any.permission_type = 1;
  EXPECT_EQ(Decode<DescribeAclsResponseData>(Call(Frame(29, 3, any)), 29, 3).error_code, 54);
  for (int field = 0; field < 4; ++field) {
    DescribeAclsRequestData unknown = any;
    int8_t* elements[] = {&unknown.resource_type_filter, &unknown.pattern_type_filter,
                          &unknown.operation, &unknown.permission_type};
    *elements[field] = 0;
    EXPECT_EQ(Call(Frame(29, 3, unknown)).action, Response::Action::kCloseConnection) << field;
  }
  EXPECT_TRUE(Logged("Filter contain UNKNOWN elements"));
}

// The same for CreateAcls and DeleteAcls (Kafka's CreateAclsRequest / DeleteAclsRequest).
TEST_F(BrokerDispatchTest, CreateOrDeleteAclsWithAnUnknownElementClosesTheConnection) {
  CreateAclsRequestData create;
  auto& c = create.creations.emplace_back();
  c.resource_type = 2;
  c.resource_name = "t";
  c.principal = "User:a";
  c.host = "*";
  c.operation = 3;
  c.permission_type = 3;
  EXPECT_EQ(Call(Frame(30, 3, create)).action, Response::Action::kSend);
  for (int field = 0; field < 4; ++field) {
    CreateAclsRequestData unknown = create;
    auto& u = unknown.creations[0];
    int8_t* elements[] = {&u.resource_type, &u.resource_pattern_type, &u.operation,
                          &u.permission_type};
    *elements[field] = 0;
    EXPECT_EQ(Call(Frame(30, 3, unknown)).action, Response::Action::kCloseConnection) << field;
  }
  EXPECT_TRUE(Logged("CreatableAcls contain unknown elements"));
  DeleteAclsRequestData del;
  auto& f = del.filters.emplace_back();
  f.resource_type_filter = 1;
  f.operation = 1;
  f.permission_type = 1;
  EXPECT_EQ(Call(Frame(31, 3, del)).action, Response::Action::kSend);
  f.pattern_type_filter = 0;
  EXPECT_EQ(Call(Frame(31, 3, del)).action, Response::Action::kCloseConnection);
  EXPECT_TRUE(Logged("Filters contain UNKNOWN elements"));
}

TEST_F(BrokerDispatchTest, ApiVersionsTooNewGetsKip511Answer) {
  ApiVersionsRequestData req;
  std::vector<uint8_t> frame = Frame(18, 3, req);
  frame[3] = 99;  // version 99
  Answer a = Call(frame);
  auto resp = Decode<ApiVersionsResponseData>(a, 18, 0);
  EXPECT_EQ(resp.error_code, kafka_error::kUnsupportedVersion);
  ASSERT_EQ(resp.api_keys.size(), 1u);
  EXPECT_EQ(resp.api_keys[0].api_key, 18);
  EXPECT_EQ(resp.api_keys[0].max_version, 5);
}

TEST_F(BrokerDispatchTest, ApiVersionsWithBadSoftwareNameIsInvalid) {
  ApiVersionsRequestData req;
  req.client_software_name = "-bad name";
  req.client_software_version = "1";
  auto resp = Decode<ApiVersionsResponseData>(Call(Frame(18, 3, req)), 18, 3);
  EXPECT_EQ(resp.error_code, kafka_error::kInvalidRequest);
}

TEST_F(BrokerDispatchTest, RefusedRequestsCloseTheConnectionAndAreLogged) {
  // Produce v2: advertised (min 0) but refused, as Kafka 4 does.
  ProduceRequestData produce;
  std::vector<uint8_t> v3 = Frame(0, 3, produce);
  std::vector<uint8_t> v2 = v3;
  v2[3] = 2;
  EXPECT_EQ(Call(v2).action, Response::Action::kCloseConnection);
  EXPECT_TRUE(Logged("127.0.0.1:5555"));
  EXPECT_TRUE(Logged("Received request api key Produce with version 2 which is not enabled"));
  // An unknown API key, and a known one seglog does not serve (JoinGroup).
  std::vector<uint8_t> unknown = v3;
  StoreBE16(unknown.data(), 9999);
  EXPECT_EQ(Call(unknown).action, Response::Action::kCloseConnection);
  StoreBE16(unknown.data(), 0xFFFF);  // -1: below every key
  EXPECT_EQ(Call(unknown).action, Response::Action::kCloseConnection);
  EXPECT_FALSE(broker_->HandlesInline(unknown));
  StoreBE16(unknown.data(), 48);  // DescribeClientQuotas: between served keys, not served
  EXPECT_EQ(Call(unknown).action, Response::Action::kCloseConnection);
  std::vector<uint8_t> join = v3;
  StoreBE16(join.data(), 11);
  EXPECT_EQ(Call(join).action, Response::Action::kCloseConnection);
  // Too short for a header; a header whose client id runs past the frame; a body that lies.
  EXPECT_EQ(Call({0, 18, 0}).action, Response::Action::kCloseConnection);
  std::vector<uint8_t> cut(v3.begin(), v3.begin() + 11);
  EXPECT_EQ(Call(cut).action, Response::Action::kCloseConnection);
  std::vector<uint8_t> lying = v3;
  lying.resize(lying.size() - 2);
  EXPECT_EQ(Call(lying).action, Response::Action::kCloseConnection);
  EXPECT_TRUE(Logged("Error getting request for apiKey: Produce"));
  EXPECT_TRUE(logs_->ListTopics().empty());  // nothing was written
}

TEST_F(BrokerDispatchTest, ProduceThenFetchSendsFileRegions) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  std::vector<uint8_t> b1 = testing::ProducerBatch(0, 10, 20, kT0);
  std::vector<uint8_t> b2 = testing::ProducerBatch(10, 5, 20, kT0, CompressionType::kZstd);
  for (int16_t v : {3, 7, 9, 12}) {
    SCOPED_TRACE(v);
    auto resp = Decode<ProduceResponseData>(Call(Frame(0, v, ProduceOne("t", b1))), 0, v);
    ASSERT_EQ(resp.responses.size(), 1u);
    const auto& pr = resp.responses[0].partition_responses[0];
    EXPECT_EQ(pr.error_code, v < 7 ? 0 : 0);
  }
  // ZStandard needs Produce v7 (Kafka's ProduceRequest.validateRecords).
  auto zstd_v6 = Decode<ProduceResponseData>(Call(Frame(0, 6, ProduceOne("t", b2))), 0, 6);
  EXPECT_EQ(zstd_v6.responses[0].partition_responses[0].error_code,
            kafka_error::kUnsupportedCompressionType);
  auto zstd_v9 = Decode<ProduceResponseData>(Call(Frame(0, 9, ProduceOne("t", b2))), 0, 9);
  EXPECT_EQ(zstd_v9.responses[0].partition_responses[0].error_code, 0);
  EXPECT_EQ(zstd_v9.responses[0].partition_responses[0].base_offset, 40);
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->log_end_offset(), 45);

  // Fetch from offset 35 - inside the fourth batch (30..39): that whole batch comes back.
  for (int16_t v : {4, 11, 12, 16}) {
    SCOPED_TRACE(v);
    Answer a = Call(Frame(1, v, FetchOne("t", 35)));
    auto resp = Decode<FetchResponseData>(a, 1, v);
    ASSERT_EQ(resp.responses.size(), 1u);
    const auto& p = resp.responses[0].partitions[0];
    EXPECT_EQ(p.error_code, 0);
    EXPECT_EQ(p.high_watermark, 45);
    ASSERT_TRUE(p.records.has_value());
    std::span<const uint8_t> got = p.records->contiguous();
    ASSERT_GE(got.size(), b1.size());
    EXPECT_EQ(LoadBEInt64(got.data()), 30);  // base offset of the batch holding 35
  }
  // The records travel as a file region (sendfile), not copied into the buffer.
  Responder respond([](Response r) {
    bool region = false;
    for (const auto& c : r.buffer.chunks())
      region |= std::holds_alternative<::seglog::FileSlice>(c);
    EXPECT_TRUE(region);
  });
  broker_->Handle(RequestContext{}, Frame(1, 11, FetchOne("t", 0)), std::move(respond));
}

TEST_F(BrokerDispatchTest, ProduceErrors) {
  std::vector<uint8_t> batch = testing::ProducerBatch(0, 3, 10, kT0);
  auto unknown = Decode<ProduceResponseData>(Call(Frame(0, 9, ProduceOne("nope", batch))), 0, 9);
  EXPECT_EQ(unknown.responses[0].partition_responses[0].error_code,
            kafka_error::kUnknownTopicOrPartition);
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  auto bad_acks = Decode<ProduceResponseData>(Call(Frame(0, 9, ProduceOne("t", batch, 2))), 0, 9);
  EXPECT_EQ(bad_acks.responses[0].partition_responses[0].error_code,
            kafka_error::kInvalidRequiredAcks);
  // A flipped CRC byte: CORRUPT_MESSAGE, nothing appended.
  std::vector<uint8_t> corrupt = batch;
  corrupt[20] ^= 0xff;
  auto crc = Decode<ProduceResponseData>(Call(Frame(0, 9, ProduceOne("t", corrupt))), 0, 9);
  EXPECT_EQ(crc.responses[0].partition_responses[0].error_code, kafka_error::kCorruptMessage);
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->log_end_offset(), 0);
  // acks=0: no answer; a failed acks=0 produce closes the connection.
  EXPECT_EQ(Call(Frame(0, 9, ProduceOne("t", batch, 0))).action, Response::Action::kNoResponse);
  EXPECT_EQ(Call(Frame(0, 9, ProduceOne("t", corrupt, 0))).action,
            Response::Action::kCloseConnection);
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->log_end_offset(), 3);
}

// read_committed (isolation_level 1): the fetch stops at the last stable offset and lists the
// aborted transactions its records hold; read_uncommitted reads to the high watermark; both
// report the LSO, and ListOffsets' latest follows the isolation level.
TEST_F(BrokerDispatchTest, ReadCommittedFetchStopsAtTheLastStableOffset) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  std::shared_ptr<Log> log = logs_->GetLog({"t", 0}).value();
  auto txn = [&](int64_t pid, int32_t seq, int count, bool transactional) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.base_sequence = seq;
    o.is_transactional = transactional;
    RecordBatchBuilder b(o);
    for (int i = 0; i < count; ++i) EXPECT_TRUE(b.Append(kT0, std::nullopt, Bytes()).ok());
    return log->AppendAsLeader(*b.Build()).status();
  };
  ASSERT_TRUE(txn(9000, 0, 3, true).ok());   // 0..2: aborted below
  ASSERT_TRUE(txn(9001, 0, 1, false).ok());  // 3
  BatchOptions mo;
  mo.producer_id = 9000;
  mo.producer_epoch = 0;
  mo.is_transactional = true;
  mo.is_control = true;
  RecordBatchBuilder marker(mo);
  ASSERT_TRUE(marker.AppendEndTxnMarker(ControlRecordType::kAbort, 0, kT0).ok());
  ASSERT_TRUE(log->AppendAsLeader(*marker.Build(), 0, AppendOrigin::kCoordinator).ok());  // 4
  ASSERT_TRUE(txn(9002, 0, 2, true).ok());  // 5..6: still open
  ASSERT_EQ(log->last_stable_offset(), 5);

  // The offsets of the batches a fetch returned.
  auto batch_offsets = [](const FetchResponseData::PartitionData& p) {
    std::vector<int64_t> out;
    std::span<const uint8_t> got = p.records->contiguous();
    for (LogBatchWalker w(got); w.Next();) out.push_back(w.current().base_offset);
    return out;
  };
  for (int16_t v : {4, 12, 16}) {
    SCOPED_TRACE(v);
    FetchRequestData committed = FetchOne("t", 0);
    committed.isolation_level = 1;
    // (The answers are kept: the decoded records are views of their bytes.)
    const Answer ca = Call(Frame(1, v, committed));
    auto resp = Decode<FetchResponseData>(ca, 1, v);
    const auto& p = resp.responses[0].partitions[0];
    EXPECT_EQ(p.error_code, 0);
    EXPECT_EQ(p.high_watermark, 7);
    EXPECT_EQ(p.last_stable_offset, 5);
    ASSERT_TRUE(p.aborted_transactions.has_value());
    ASSERT_EQ(p.aborted_transactions->size(), 1u);
    EXPECT_EQ((*p.aborted_transactions)[0].producer_id, 9000);
    EXPECT_EQ((*p.aborted_transactions)[0].first_offset, 0);
    EXPECT_EQ(batch_offsets(p), (std::vector<int64_t>{0, 3, 4}));  // nothing at or past 5

    const Answer ua = Call(Frame(1, v, FetchOne("t", 0)));
    auto uncommitted = Decode<FetchResponseData>(ua, 1, v);
    const auto& u = uncommitted.responses[0].partitions[0];
    EXPECT_EQ(u.last_stable_offset, 5);
    EXPECT_EQ(batch_offsets(u), (std::vector<int64_t>{0, 3, 4, 5}));
    // read_committed from the LSO: nothing yet.
    FetchRequestData at_lso = FetchOne("t", 5);
    at_lso.isolation_level = 1;
    const Answer ea = Call(Frame(1, v, at_lso));
    auto empty = Decode<FetchResponseData>(ea, 1, v);
    EXPECT_EQ(empty.responses[0].partitions[0].error_code, 0);
    EXPECT_TRUE(batch_offsets(empty.responses[0].partitions[0]).empty());
  }
  for (int8_t isolation : {0, 1}) {
    ListOffsetsRequestData req;
    req.isolation_level = isolation;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.emplace_back().timestamp = -1;
    auto resp = Decode<ListOffsetsResponseData>(Call(Frame(2, 7, req)), 2, 7);
    EXPECT_EQ(resp.topics[0].partitions[0].offset, isolation == 1 ? 5 : 7);
  }
}

TEST_F(BrokerDispatchTest, FetchOutOfRangeAndSessions) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  auto resp = Decode<FetchResponseData>(Call(Frame(1, 12, FetchOne("t", 5))), 1, 12);
  EXPECT_EQ(resp.responses[0].partitions[0].error_code, kafka_error::kOffsetOutOfRange);
  FetchRequestData with_session = FetchOne("t", 0);
  with_session.session_id = 77;
  resp = Decode<FetchResponseData>(Call(Frame(1, 12, with_session)), 1, 12);
  EXPECT_EQ(resp.error_code, kafka_error::kFetchSessionIdNotFound);
  FetchRequestData new_session = FetchOne("t", 0);
  new_session.session_epoch = 0;  // asks for a session: answered in full, with none made
  resp = Decode<FetchResponseData>(Call(Frame(1, 12, new_session)), 1, 12);
  EXPECT_EQ(resp.error_code, 0);
  EXPECT_EQ(resp.session_id, 0);
}

TEST_F(BrokerDispatchTest, LongPollingFetchIsWokenByAnAppend) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  auto promise = std::make_shared<std::promise<Answer>>();
  auto future = promise->get_future();
  Responder respond([promise](Response r) {
    promise->set_value(Answer{r.action, r.buffer.Flatten()});
  });
  broker_->Handle(RequestContext{}, Frame(1, 12, FetchOne("t", 0, 30000, 1)), std::move(respond));
  // Parked: nothing to read, and 30 s to wait.
  EXPECT_EQ(future.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  EXPECT_EQ(broker_->parked_fetches(), 1u);
  std::vector<uint8_t> batch = testing::ProducerBatch(0, 4, 10, kT0);
  Call(Frame(0, 9, ProduceOne("t", batch)));
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto resp = Decode<FetchResponseData>(future.get(), 1, 12);
  EXPECT_EQ(resp.responses[0].partitions[0].records->size_bytes(),
            static_cast<int64_t>(batch.size()));
}

TEST_F(BrokerDispatchTest, LongPollingFetchAnswersEmptyAtItsDeadline) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  Answer a = Call(Frame(1, 12, FetchOne("t", 0, 50, 1)));
  auto resp = Decode<FetchResponseData>(a, 1, 12);
  EXPECT_EQ(resp.responses[0].partitions[0].error_code, 0);
  EXPECT_EQ(resp.responses[0].partitions[0].records->size_bytes(), 0);
}

TEST_F(BrokerDispatchTest, MetadataAutoCreatesAndDescribesTopics) {
  MetadataRequestData req;
  req.topics.emplace().emplace_back().name = "auto";
  auto resp = Decode<MetadataResponseData>(Call(Frame(3, 12, req)), 3, 12);
  ASSERT_EQ(resp.topics.size(), 1u);
  EXPECT_EQ(resp.topics[0].error_code, 0);
  EXPECT_FALSE(resp.topics[0].topic_id.IsZero());
  ASSERT_EQ(resp.topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp.topics[0].partitions[0].leader_id, 1);
  EXPECT_EQ(resp.brokers[0].port, 19092);
  EXPECT_EQ(*resp.cluster_id, "cluster-x");
  req.allow_auto_topic_creation = false;
  (*req.topics)[0].name = "not-created";
  resp = Decode<MetadataResponseData>(Call(Frame(3, 12, req)), 3, 12);
  EXPECT_EQ(resp.topics[0].error_code, kafka_error::kUnknownTopicOrPartition);
  (*req.topics)[0].name = "bad name!";
  req.allow_auto_topic_creation = true;
  resp = Decode<MetadataResponseData>(Call(Frame(3, 12, req)), 3, 12);
  EXPECT_EQ(resp.topics[0].error_code, kafka_error::kInvalidTopic);
  EXPECT_EQ(logs_->ListTopics(), std::vector<std::string>{"auto"});
}

// With an authorizer every API judges the request's own principal, as the socket server names
// it: the dispatch hands each handler the request context.
TEST_F(BrokerDispatchTest, WithAnAuthorizerEveryApiJudgesTheRequestsPrincipal) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  BrokerContext ctx = broker_->context();
  ctx.authorizer = std::make_shared<StandardAuthorizer>(AuthorizerOptions{{"User:admin"}, false});
  RefreshAuthorizer(ctx);
  Broker secured(ctx);
  target_ = &secured;
  MetadataRequestData all;
  all.topics = std::nullopt;
  principal_ = "User:bob";
  EXPECT_TRUE(Decode<MetadataResponseData>(Call(Frame(3, 12, all)), 3, 12).topics.empty());
  CreateTopicsRequestData create;
  auto& ct = create.topics.emplace_back();
  ct.name = "bobs";
  ct.num_partitions = 1;
  ct.replication_factor = 1;
  EXPECT_EQ(
      Decode<CreateTopicsResponseData>(Call(Frame(19, 7, create)), 19, 7).topics.at(0).error_code,
      kafka_error::kTopicAuthorizationFailed);
  EXPECT_FALSE(logs_->FindTopic("bobs").ok());
  // ApiVersions needs nothing.
  ApiVersionsRequestData versions;
  versions.client_software_name = "x";
  versions.client_software_version = "1";
  EXPECT_EQ(Decode<ApiVersionsResponseData>(Call(Frame(18, 3, versions)), 18, 3).error_code, 0);
  principal_ = "User:admin";
  auto seen = Decode<MetadataResponseData>(Call(Frame(3, 12, all)), 3, 12);
  ASSERT_EQ(seen.topics.size(), 1u);
  EXPECT_EQ(seen.topics[0].name, "t");
  target_ = nullptr;
  secured.Shutdown();
}

// By topic id (v10+): Java clients send the id with an empty, not a null, name; an unknown id
// is UNKNOWN_TOPIC_ID, never a topic called "".
TEST_F(BrokerDispatchTest, MetadataByTopicIdIgnoresTheEmptyName) {
  ASSERT_TRUE(logs_->CreateTopic("t", 3).ok());
  const Uuid id = *Uuid::Parse(logs_->FindTopic("t")->topic_id);
  for (int16_t v : {10, 11, 12, 13}) {
    MetadataRequestData req;
    req.allow_auto_topic_creation = false;
    auto& by_id = req.topics.emplace().emplace_back();
    by_id.topic_id = id;
    by_id.name = "";
    auto& unknown = req.topics->emplace_back();
    unknown.topic_id = Uuid::Random();
    unknown.name = std::nullopt;
    if (v < 12) unknown.name = "";
    auto resp = Decode<MetadataResponseData>(Call(Frame(3, v, req)), 3, v);
    ASSERT_EQ(resp.topics.size(), 2u);
    if (v < 12) {  // ids are v12+: Kafka's INVALID_REQUEST, per topic here
      EXPECT_EQ(resp.topics[0].error_code, kafka_error::kInvalidRequest);
      EXPECT_EQ(resp.topics[1].error_code, kafka_error::kInvalidRequest);
      continue;
    }
    EXPECT_EQ(resp.topics[0].error_code, 0) << "v" << v;
    EXPECT_EQ(resp.topics[0].name, "t");
    EXPECT_EQ(resp.topics[0].topic_id, id);
    EXPECT_EQ(resp.topics[0].partitions.size(), 3u);
    EXPECT_EQ(resp.topics[1].error_code, kafka_error::kUnknownTopicId);
  }
}

// An idempotent producer's batch as it would send it.
std::vector<uint8_t> IdempotentBatch(int64_t pid, int32_t base_seq, int count) {
  BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_sequence = base_seq;
  RecordBatchBuilder b(o);
  for (int i = 0; i < count; ++i) {
    const std::string v = fmt::format("v{}", base_seq + i);
    EXPECT_TRUE(
        b.Append(kT0, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()))
            .ok());
  }
  auto built = b.Build();
  EXPECT_TRUE(built.ok());
  return built.ok() ? std::move(built).value() : std::vector<uint8_t>{};
}

TEST_F(BrokerDispatchTest, IdempotentProducerRetriesAndGaps) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  auto init = Decode<InitProducerIdResponseData>(Call(Frame(22, 4,
                                                            [] {
                                                              InitProducerIdRequestData r;
                                                              r.transactional_id = std::nullopt;
                                                              return r;
                                                            }())),
                                                 22, 4);
  ASSERT_EQ(init.error_code, 0);
  const int64_t pid = init.producer_id;
  std::vector<uint8_t> first = IdempotentBatch(pid, 0, 5);
  std::vector<uint8_t> second = IdempotentBatch(pid, 5, 5);
  auto base_of = [&](const std::vector<uint8_t>& batch) {
    auto r = Decode<ProduceResponseData>(Call(Frame(0, 9, ProduceOne("t", batch))), 0, 9);
    const auto& p = r.responses[0].partition_responses[0];
    return std::make_pair(p.error_code, p.base_offset);
  };
  EXPECT_EQ(base_of(first), std::make_pair(int16_t{0}, int64_t{0}));
  EXPECT_EQ(base_of(second), std::make_pair(int16_t{0}, int64_t{5}));
  // A retry of either is answered with its original offsets and writes nothing.
  EXPECT_EQ(base_of(first), std::make_pair(int16_t{0}, int64_t{0}));
  EXPECT_EQ(base_of(second), std::make_pair(int16_t{0}, int64_t{5}));
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->log_end_offset(), 10);
  // A gap in the sequence: OUT_OF_ORDER_SEQUENCE_NUMBER, nothing written.
  EXPECT_EQ(base_of(IdempotentBatch(pid, 12, 1)).first, kafka_error::kOutOfOrderSequenceNumber);
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->log_end_offset(), 10);
}

// Every served API at every version it advertises: a plausible request gets a response that
// encodes (a handler that fills a field the version lacks would fail here) and decodes.
// Every served API at every version answers, with three bytes after the request's last field
// (Kafka reads a body's fields and ignores what follows them), and refuses the same request
// cut short by one byte (check_body_rules_).
TEST_F(BrokerDispatchTest, EveryServedApiAnswersAtEveryVersion) {
  check_body_rules_ = true;
  ASSERT_TRUE(logs_->CreateTopic("t", 2).ok());
  std::vector<uint8_t> batch = testing::ProducerBatch(0, 3, 10, kT0);
  int answered = 0;
  for (const ServedVersions& api : ServedApis()) {
    for (int16_t v = api.min_accepted_version; v <= api.max_version; ++v) {
      SCOPED_TRACE(fmt::format("{} v{}", api.api_key, v));
      Answer a;
      const std::string name = fmt::format("x{}v{}", api.api_key, v);
      switch (static_cast<ApiKey>(api.api_key)) {
        case ApiKey::kProduce:
          a = Call(Frame(0, v, ProduceOne("t", batch)));
          Decode<ProduceResponseData>(a, 0, v);
          break;
        case ApiKey::kFetch:
          a = Call(Frame(1, v, FetchOne("t", 0)));
          Decode<FetchResponseData>(a, 1, v);
          break;
        case ApiKey::kListOffsets: {
          ListOffsetsRequestData req;
          auto& t = req.topics.emplace_back();
          t.name = "t";
          for (int64_t ts : {int64_t{-1}, int64_t{-2}, kT0})
            t.partitions.emplace_back().timestamp = ts;
          a = Call(Frame(2, v, req));
          auto resp = Decode<ListOffsetsResponseData>(a, 2, v);
          EXPECT_EQ(resp.topics[0].partitions.size(), 3u);
          break;
        }
        case ApiKey::kMetadata: {
          MetadataRequestData req;
          if (v >= 1) req.topics = std::nullopt;  // all topics
          a = Call(Frame(3, v, req));
          auto resp = Decode<MetadataResponseData>(a, 3, v);
          EXPECT_FALSE(resp.topics.empty());
          break;
        }
        case ApiKey::kApiVersions: {
          ApiVersionsRequestData req;
          req.client_software_name = "t";
          req.client_software_version = "1";
          if (v < 3) req = ApiVersionsRequestData{};
          a = Call(Frame(18, v, req));
          Decode<ApiVersionsResponseData>(a, 18, v);
          break;
        }
        case ApiKey::kCreateTopics: {
          CreateTopicsRequestData req;
          auto& t = req.topics.emplace_back();
          t.name = name;
          t.num_partitions = 1;
          t.replication_factor = 1;
          a = Call(Frame(19, v, req));
          auto resp = Decode<CreateTopicsResponseData>(a, 19, v);
          EXPECT_EQ(resp.topics[0].error_code, 0);
          break;
        }
        case ApiKey::kDeleteTopics: {
          ASSERT_TRUE(logs_->CreateTopic(name, 1).ok());
          DeleteTopicsRequestData req;
          if (v >= 6) {
            req.topics.emplace_back().name = name;
          } else {
            req.topic_names.push_back(name);
          }
          a = Call(Frame(20, v, req));
          auto resp = Decode<DeleteTopicsResponseData>(a, 20, v);
          EXPECT_EQ(resp.responses[0].error_code, 0);
          break;
        }
        case ApiKey::kInitProducerId: {
          InitProducerIdRequestData req;
          req.transactional_id = std::nullopt;
          a = Call(Frame(22, v, req));
          auto resp = Decode<InitProducerIdResponseData>(a, 22, v);
          EXPECT_GE(resp.producer_id, 1000);
          break;
        }
        case ApiKey::kDescribeCluster: {
          a = Call(Frame(60, v, DescribeClusterRequestData{}));
          auto resp = Decode<DescribeClusterResponseData>(a, 60, v);
          EXPECT_EQ(resp.brokers.size(), 1u);
          break;
        }
        case ApiKey::kDescribeAcls: {
          DescribeAclsRequestData req;
          req.resource_type_filter = 1;  // ANY; UNKNOWN (0) closes the connection
          req.pattern_type_filter = 1;
          req.operation = 1;
          req.permission_type = 1;
          a = Call(Frame(29, v, req));
          auto resp = Decode<DescribeAclsResponseData>(a, 29, v);
          EXPECT_EQ(resp.error_code, 54);  // SECURITY_DISABLED: no authorizer
          EXPECT_EQ(resp.error_message, "No Authorizer is configured on the broker");
          break;
        }
        case ApiKey::kCreateAcls: {
          CreateAclsRequestData req;
          req.creations.resize(2);
          for (auto& c : req.creations) {  // UNKNOWN (0) elements close the connection
            c.resource_type = 2;
            c.resource_name = "t";
            c.principal = "User:a";
            c.host = "*";
            c.operation = 3;
            c.permission_type = 3;
          }
          a = Call(Frame(30, v, req));
          auto resp = Decode<CreateAclsResponseData>(a, 30, v);
          ASSERT_EQ(resp.results.size(), 2u);
          EXPECT_EQ(resp.results[1].error_code, 54);
          break;
        }
        case ApiKey::kDeleteAcls: {
          DeleteAclsRequestData req;
          req.filters.resize(1);
          req.filters[0].resource_type_filter = 1;  // ANY: UNKNOWN (0) closes the connection
          req.filters[0].operation = 1;
          req.filters[0].permission_type = 1;
          a = Call(Frame(31, v, req));
          auto resp = Decode<DeleteAclsResponseData>(a, 31, v);
          ASSERT_EQ(resp.filter_results.size(), 1u);
          EXPECT_EQ(resp.filter_results[0].error_code, 54);
          break;
        }
        case ApiKey::kFindCoordinator: {
          FindCoordinatorRequestData req;
          if (v < 4) {
            req.key = "grp";
          } else {
            req.coordinator_keys = {"grp", "other"};
          }
          a = Call(Frame(10, v, req));
          auto resp = Decode<FindCoordinatorResponseData>(a, 10, v);
          if (v < 4) {
            EXPECT_EQ(resp.error_code, 0);
            EXPECT_EQ(resp.port, 19092);
          } else {
            ASSERT_EQ(resp.coordinators.size(), 2u);
            EXPECT_EQ(resp.coordinators[1].key, "other");
            EXPECT_EQ(resp.coordinators[1].node_id, 1);
          }
          break;
        }
        case ApiKey::kJoinGroup: {
          JoinGroupRequestData req;
          req.group_id = name;
          req.session_timeout_ms = v == 0 ? 10 : 30000;  // v0: refused at once
          req.protocol_type = "consumer";
          req.protocols.emplace_back().name = "range";
          if (v >= 1 && v < 4) continue;  // would wait for the initial rebalance delay
          a = Call(Frame(11, v, req));
          auto resp = Decode<JoinGroupResponseData>(a, 11, v);
          EXPECT_EQ(resp.error_code,
                    v == 0 ? kafka_error::kInvalidSessionTimeout : kafka_error::kMemberIdRequired);
          if (v >= 4) {
            EXPECT_THAT(resp.member_id, ::testing::StartsWith("test-client-"));
          }
          break;
        }
        case ApiKey::kSyncGroup: {
          SyncGroupRequestData req;
          req.group_id = name;
          req.member_id = "m";
          req.protocol_type = "consumer";
          req.protocol_name = "range";
          a = Call(Frame(14, v, req));
          EXPECT_EQ(Decode<SyncGroupResponseData>(a, 14, v).error_code,
                    kafka_error::kUnknownMemberId);
          break;
        }
        case ApiKey::kHeartbeat: {
          HeartbeatRequestData req;
          req.group_id = name;
          req.member_id = "m";
          a = Call(Frame(12, v, req));
          EXPECT_EQ(Decode<HeartbeatResponseData>(a, 12, v).error_code,
                    kafka_error::kUnknownMemberId);
          break;
        }
        case ApiKey::kLeaveGroup: {
          LeaveGroupRequestData req;
          req.group_id = name;
          if (v < 3) {
            req.member_id = "m";
          } else {
            req.members.emplace_back().member_id = "m";
          }
          a = Call(Frame(13, v, req));
          auto resp = Decode<LeaveGroupResponseData>(a, 13, v);
          if (v < 3) {
            EXPECT_EQ(resp.error_code, kafka_error::kUnknownMemberId);
          } else {
            ASSERT_EQ(resp.members.size(), 1u);
            EXPECT_EQ(resp.members[0].error_code, kafka_error::kUnknownMemberId);
          }
          break;
        }
        case ApiKey::kOffsetCommit: {
          OffsetCommitRequestData req;
          req.group_id = "committer";
          auto& t = req.topics.emplace_back();
          t.name = "t";
          t.topic_id = Uuid::Parse(logs_->FindTopic("t")->topic_id).value();
          auto& p = t.partitions.emplace_back();
          p.partition_index = 1;
          p.committed_offset = 100 + v;
          auto& bad = t.partitions.emplace_back();
          bad.partition_index = 9;  // no such partition
          a = Call(Frame(8, v, req));
          auto resp = Decode<OffsetCommitResponseData>(a, 8, v);
          ASSERT_EQ(resp.topics.size(), 1u);
          ASSERT_EQ(resp.topics[0].partitions.size(), 2u);
          EXPECT_EQ(resp.topics[0].partitions[0].error_code, 0);
          EXPECT_EQ(resp.topics[0].partitions[1].error_code, kafka_error::kUnknownTopicOrPartition);
          break;
        }
        case ApiKey::kOffsetFetch: {
          OffsetFetchRequestData req;
          const Uuid id = Uuid::Parse(logs_->FindTopic("t")->topic_id).value();
          if (v < 8) {
            req.group_id = "committer";
            req.topics.emplace();
            auto& t = req.topics->emplace_back();
            t.name = "t";
            t.partition_indexes = {0, 1};
          } else {
            auto& g = req.groups.emplace_back();
            g.group_id = "committer";
            g.topics.emplace();
            auto& t = g.topics->emplace_back();
            t.name = "t";
            t.topic_id = id;
            t.partition_indexes = {0, 1};
          }
          a = Call(Frame(9, v, req));
          auto resp = Decode<OffsetFetchResponseData>(a, 9, v);
          const auto committed = [&](size_t i) {
            return v < 8 ? resp.topics.at(0).partitions.at(i).committed_offset
                         : resp.groups.at(0).topics.at(0).partitions.at(i).committed_offset;
          };
          EXPECT_EQ(committed(0), -1);
          EXPECT_EQ(committed(1), 110);  // the last OffsetCommit above was v10
          break;
        }
        case ApiKey::kListGroups: {
          a = Call(Frame(16, v, ListGroupsRequestData{}));
          auto resp = Decode<ListGroupsResponseData>(a, 16, v);
          EXPECT_FALSE(resp.groups.empty());
          break;
        }
        case ApiKey::kDescribeGroups: {
          DescribeGroupsRequestData req;
          req.groups = {"committer", "nobody"};
          a = Call(Frame(15, v, req));
          auto resp = Decode<DescribeGroupsResponseData>(a, 15, v);
          ASSERT_EQ(resp.groups.size(), 2u);
          EXPECT_EQ(resp.groups[0].group_state, "Empty");
          EXPECT_EQ(resp.groups[1].group_state, "Dead");
          EXPECT_EQ(resp.groups[1].error_code, v >= 6 ? kafka_error::kGroupIdNotFound : 0);
          break;
        }
        case ApiKey::kDeleteGroups: {
          DeleteGroupsRequestData req;
          req.groups_names = {"nobody", "nobody"};
          a = Call(Frame(42, v, req));
          auto resp = Decode<DeleteGroupsResponseData>(a, 42, v);
          ASSERT_EQ(resp.results.size(), 1u);  // de-duplicated
          EXPECT_EQ(resp.results[0].error_code, kafka_error::kGroupIdNotFound);
          break;
        }
        case ApiKey::kOffsetDelete: {
          OffsetDeleteRequestData req;
          req.group_id = "committer";
          auto& t = req.topics.emplace_back();
          t.name = "t";
          t.partitions.emplace_back().partition_index = 0;
          a = Call(Frame(47, v, req));
          auto resp = Decode<OffsetDeleteResponseData>(a, 47, v);
          EXPECT_EQ(resp.error_code, 0);
          EXPECT_EQ(resp.topics.at(0).partitions.at(0).error_code, 0);
          break;
        }
        case ApiKey::kConsumerGroupHeartbeat: {
          ConsumerGroupHeartbeatRequestData req;
          req.group_id = name;
          req.member_id = "member-" + name;
          req.member_epoch = 0;
          req.rebalance_timeout_ms = 30000;
          req.subscribed_topic_names = std::vector<std::string>{"t"};
          req.topic_partitions.emplace();
          a = Call(Frame(68, v, req));
          auto resp = Decode<ConsumerGroupHeartbeatResponseData>(a, 68, v);
          EXPECT_EQ(resp.error_code, 0) << resp.error_message.value_or("");
          EXPECT_EQ(resp.member_epoch, 1);
          ASSERT_TRUE(resp.assignment.has_value());
          ASSERT_EQ(resp.assignment->topic_partitions.size(), 1u);
          EXPECT_EQ(resp.assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
          break;
        }
        case ApiKey::kConsumerGroupDescribe: {
          ConsumerGroupDescribeRequestData req;
          req.group_ids = {"x68v1", "nobody", ""};
          req.include_authorized_operations = true;
          a = Call(Frame(69, v, req));
          auto resp = Decode<ConsumerGroupDescribeResponseData>(a, 69, v);
          ASSERT_EQ(resp.groups.size(), 3u);
          EXPECT_EQ(resp.groups[0].error_code, 0);
          EXPECT_EQ(resp.groups[0].group_state, "Stable");
          ASSERT_EQ(resp.groups[0].members.size(), 1u);
          EXPECT_EQ(resp.groups[0].members[0].member_type, v >= 1 ? 1 : -1);
          EXPECT_EQ(resp.groups[0].members[0].assignment.topic_partitions.at(0).topic_name, "t");
          EXPECT_EQ(resp.groups[1].error_code, kafka_error::kGroupIdNotFound);
          EXPECT_EQ(resp.groups[2].error_code, kafka_error::kInvalidGroupId);
          break;
        }
        case ApiKey::kAddPartitionsToTxn: {
          AddPartitionsToTxnRequestData req;
          req.v3_and_below_transactional_id = name;
          auto& t = req.v3_and_below_topics.emplace_back();
          t.name = "t";
          t.partitions = {0};
          if (v >= 4) {
            auto& x = req.transactions.emplace_back();
            x.transactional_id = name;
            x.topics = req.v3_and_below_topics;
            req.v3_and_below_transactional_id.clear();
            req.v3_and_below_topics.clear();
          }
          a = Call(Frame(24, v, req));
          auto resp = Decode<AddPartitionsToTxnResponseData>(a, 24, v);
          // No such transactional id.
          const auto& topics = v >= 4 ? resp.results_by_transaction.at(0).topic_results
                                      : resp.results_by_topic_v3_and_below;
          EXPECT_EQ(topics.at(0).results_by_partition.at(0).partition_error_code,
                    kafka_error::kInvalidProducerIdMapping);
          break;
        }
        case ApiKey::kAddOffsetsToTxn: {
          AddOffsetsToTxnRequestData req;
          req.transactional_id = name;
          req.group_id = "g";
          a = Call(Frame(25, v, req));
          EXPECT_EQ(Decode<AddOffsetsToTxnResponseData>(a, 25, v).error_code,
                    kafka_error::kInvalidProducerIdMapping);
          break;
        }
        case ApiKey::kEndTxn: {
          EndTxnRequestData req;
          req.transactional_id = name;
          a = Call(Frame(26, v, req));
          EXPECT_EQ(Decode<EndTxnResponseData>(a, 26, v).error_code,
                    kafka_error::kInvalidProducerIdMapping);
          break;
        }
        case ApiKey::kTxnOffsetCommit: {
          TxnOffsetCommitRequestData req;
          req.transactional_id = name;
          req.group_id = "g";
          auto& t = req.topics.emplace_back();
          t.name = "t";
          t.topic_id = Uuid::Parse(logs_->FindTopic("t")->topic_id).value();
          t.partitions.emplace_back().committed_offset = 1;
          a = Call(Frame(28, v, req));
          auto resp = Decode<TxnOffsetCommitResponseData>(a, 28, v);
          // The group's offsets partition is not in any transaction of this id.
          EXPECT_EQ(resp.topics.at(0).partitions.at(0).error_code,
                    kafka_error::kInvalidProducerIdMapping);
          break;
        }
        case ApiKey::kDescribeTransactions: {
          DescribeTransactionsRequestData req;
          req.transactional_ids = {name};
          a = Call(Frame(65, v, req));
          auto resp = Decode<DescribeTransactionsResponseData>(a, 65, v);
          EXPECT_EQ(resp.transaction_states.at(0).error_code,
                    kafka_error::kTransactionalIdNotFound);
          break;
        }
        case ApiKey::kListTransactions: {
          ListTransactionsRequestData req;
          a = Call(Frame(66, v, req));
          EXPECT_EQ(Decode<ListTransactionsResponseData>(a, 66, v).error_code, 0);
          break;
        }
        case ApiKey::kElectLeaders:
          a = Call(Frame(43, v, ElectLeadersRequestData{}));
          Decode<ElectLeadersResponseData>(a, 43, v);
          break;
        case ApiKey::kAlterPartitionReassignments:
          a = Call(Frame(45, v, AlterPartitionReassignmentsRequestData{}));
          Decode<AlterPartitionReassignmentsResponseData>(a, 45, v);
          break;
        case ApiKey::kListPartitionReassignments:
          a = Call(Frame(46, v, ListPartitionReassignmentsRequestData{}));
          Decode<ListPartitionReassignmentsResponseData>(a, 46, v);
          break;
        case ApiKey::kDescribeQuorum:
          a = Call(Frame(55, v, DescribeQuorumRequestData{}));
          Decode<DescribeQuorumResponseData>(a, 55, v);
          break;
        case ApiKey::kDescribeProducers:
          a = Call(Frame(61, v, DescribeProducersRequestData{}));
          Decode<DescribeProducersResponseData>(a, 61, v);
          break;
        case ApiKey::kUpdateFeatures:
          a = Call(Frame(57, v, UpdateFeaturesRequestData{}));
          Decode<UpdateFeaturesResponseData>(a, 57, v);
          break;
        case ApiKey::kListConfigResources:
          a = Call(Frame(74, v, ListConfigResourcesRequestData{}));
          Decode<ListConfigResourcesResponseData>(a, 74, v);
          break;
        case ApiKey::kWriteTxnMarkers:
          a = Call(Frame(27, v, WriteTxnMarkersRequestData{}));
          Decode<WriteTxnMarkersResponseData>(a, 27, v);
          break;
        case ApiKey::kUnregisterBroker:
          a = Call(Frame(64, v, UnregisterBrokerRequestData{}));
          Decode<UnregisterBrokerResponseData>(a, 64, v);
          break;
        case ApiKey::kUnregisterController:
          a = Call(Frame(94, v, UnregisterControllerRequestData{}));
          Decode<UnregisterControllerResponseData>(a, 94, v);
          break;
        case ApiKey::kAddRaftVoter:
          a = Call(Frame(80, v, AddRaftVoterRequestData{}));
          Decode<AddRaftVoterResponseData>(a, 80, v);
          break;
        case ApiKey::kRemoveRaftVoter:
          a = Call(Frame(81, v, RemoveRaftVoterRequestData{}));
          Decode<RemoveRaftVoterResponseData>(a, 81, v);
          break;
        case ApiKey::kDescribeUserScramCredentials: {
          a = Call(Frame(50, v, DescribeUserScramCredentialsRequestData{}));
          auto resp = Decode<DescribeUserScramCredentialsResponseData>(a, 50, v);
          EXPECT_EQ(resp.error_code, 0);
          EXPECT_TRUE(resp.results.empty());
          break;
        }
        case ApiKey::kAlterUserScramCredentials: {
          AlterUserScramCredentialsRequestData req;
          auto& d = req.deletions.emplace_back();
          d.name = "nobody";
          d.mechanism = 1;
          a = Call(Frame(51, v, req));
          auto resp = Decode<AlterUserScramCredentialsResponseData>(a, 51, v);
          ASSERT_EQ(resp.results.size(), 1u);
          EXPECT_EQ(resp.results[0].error_code, 91);  // RESOURCE_NOT_FOUND
          break;
        }
        default:
          continue;  // handlers added later have their own tests
      }
      EXPECT_EQ(a.action, Response::Action::kSend);
      ++answered;
    }
  }
  EXPECT_GT(answered, 60);
}

// A transactional batch of `count` records as a Java producer sends it.
std::vector<uint8_t> TxnBatch(int64_t pid, int16_t epoch, int32_t seq, int count) {
  BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  o.is_transactional = true;
  RecordBatchBuilder b(o);
  for (int i = 0; i < count; ++i) EXPECT_TRUE(b.Append(kT0, std::nullopt, Bytes()).ok());
  return *b.Build();
}

TEST_F(BrokerDispatchTest, TransactionsOverTheWireProtocol) {
  ASSERT_TRUE(logs_->CreateTopic("t", 2).ok());
  // FindCoordinator for a transactional id creates __transaction_state.
  FindCoordinatorRequestData fc;
  fc.key_type = 1;
  fc.coordinator_keys = {"tx"};
  const Answer fa = Call(Frame(10, 4, fc));
  auto found = Decode<FindCoordinatorResponseData>(fa, 10, 4);
  ASSERT_EQ(found.coordinators.size(), 1u);
  EXPECT_EQ(found.coordinators[0].error_code, 0);
  EXPECT_TRUE(logs_->FindTopic("__transaction_state").ok());

  InitProducerIdRequestData init;
  init.transactional_id = "tx";
  init.transaction_timeout_ms = 60000;
  auto ip = Decode<InitProducerIdResponseData>(Call(Frame(22, 4, init)), 22, 4);
  ASSERT_EQ(ip.error_code, 0);
  EXPECT_EQ(ip.producer_epoch, 0);
  const int64_t pid = ip.producer_id;
  init.transaction_timeout_ms = 900001;
  EXPECT_EQ(Decode<InitProducerIdResponseData>(Call(Frame(22, 4, init)), 22, 4).error_code,
            kafka_error::kInvalidTransactionTimeout);

  // A transactional batch for a partition not in the transaction: refused, not appended, with
  // the error each Produce version can carry.
  std::vector<uint8_t> batch = TxnBatch(pid, 0, 0, 2);
  auto produce = [&](int16_t v, std::optional<std::string> id) {
    ProduceRequestData req = ProduceOne("t", batch);
    req.transactional_id = std::move(id);
    return Decode<ProduceResponseData>(Call(Frame(0, v, req)), 0, v)
        .responses[0]
        .partition_responses[0]
        .error_code;
  };
  EXPECT_EQ(produce(9, "tx"), kafka_error::kInvalidTxnState);
  EXPECT_EQ(produce(11, "tx"), kafka_error::kTransactionAbortable);
  EXPECT_EQ(produce(9, std::nullopt), kafka_error::kTransactionalIdAuthorizationFailed);
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->log_end_offset(), 0);

  // AddPartitionsToTxn v3: unknown partitions and internal topics spoil the whole request.
  auto add = [&](int16_t v, std::vector<std::pair<std::string, int32_t>> parts) {
    AddPartitionsToTxnRequestData req;
    req.v3_and_below_transactional_id = "tx";
    req.v3_and_below_producer_id = pid;
    req.v3_and_below_producer_epoch = 0;
    for (const auto& [topic, partition] : parts) {
      auto& t = req.v3_and_below_topics.emplace_back();
      t.name = topic;
      t.partitions = {partition};
    }
    auto resp = Decode<AddPartitionsToTxnResponseData>(Call(Frame(24, v, req)), 24, v);
    std::vector<int16_t> out;
    for (const auto& t : resp.results_by_topic_v3_and_below) {
      for (const auto& p : t.results_by_partition) out.push_back(p.partition_error_code);
    }
    return out;
  };
  EXPECT_EQ(add(3, {{"t", 0}, {"t", 7}}),
            (std::vector<int16_t>{kafka_error::kOperationNotAttempted,
                                  kafka_error::kUnknownTopicOrPartition}));
  EXPECT_EQ(add(3, {{"t", 0}, {"__consumer_offsets", 0}}),
            (std::vector<int16_t>{kafka_error::kOperationNotAttempted,
                                  kafka_error::kTopicAuthorizationFailed}));
  EXPECT_EQ(add(3, {{"t", 0}}), (std::vector<int16_t>{0}));
  EXPECT_EQ(produce(9, "tx"), 0);
  EXPECT_EQ(logs_->GetLog({"t", 0}).value()->last_stable_offset(), 0);

  // A control batch from a client is refused.
  std::vector<uint8_t> forged = *BuildTransactionMarkerBatch(pid, 0, 0, true, kT0);
  ProduceRequestData fake = ProduceOne("t", forged);
  fake.transactional_id = "tx";
  EXPECT_NE(Decode<ProduceResponseData>(Call(Frame(0, 9, fake)), 0, 9)
                .responses[0]
                .partition_responses[0]
                .error_code,
            0);

  // Brokers' v4 VerifyOnly sees the partition in the transaction.
  AddPartitionsToTxnRequestData verify;
  auto& vt = verify.transactions.emplace_back();
  vt.transactional_id = "tx";
  vt.producer_id = pid;
  vt.producer_epoch = 0;
  vt.verify_only = true;
  auto& vtt = vt.topics.emplace_back();
  vtt.name = "t";
  vtt.partitions = {0, 1};
  auto vr = Decode<AddPartitionsToTxnResponseData>(Call(Frame(24, 4, verify)), 24, 4);
  ASSERT_EQ(vr.results_by_transaction.size(), 1u);
  const auto& vp = vr.results_by_transaction[0].topic_results[0].results_by_partition;
  EXPECT_EQ(vp[0].partition_error_code, 0);
  EXPECT_EQ(vp[1].partition_error_code, kafka_error::kTransactionAbortable);

  DescribeTransactionsRequestData dreq;
  dreq.transactional_ids = {"tx", "nobody"};
  auto dr = Decode<DescribeTransactionsResponseData>(Call(Frame(65, 0, dreq)), 65, 0);
  ASSERT_EQ(dr.transaction_states.size(), 2u);
  EXPECT_EQ(dr.transaction_states[0].transaction_state, "Ongoing");
  EXPECT_EQ(dr.transaction_states[1].error_code, kafka_error::kTransactionalIdNotFound);

  // EndTxn: a fenced epoch at v1 is INVALID_PRODUCER_EPOCH; the commit writes the marker and the
  // records become readable read_committed.
  EndTxnRequestData end;
  end.transactional_id = "tx";
  end.producer_id = pid;
  end.producer_epoch = 5;
  end.committed = true;
  EXPECT_EQ(Decode<EndTxnResponseData>(Call(Frame(26, 1, end)), 26, 1).error_code,
            kafka_error::kInvalidProducerEpoch);
  EXPECT_EQ(Decode<EndTxnResponseData>(Call(Frame(26, 3, end)), 26, 3).error_code,
            kafka_error::kProducerFenced);
  end.producer_epoch = 0;
  EXPECT_EQ(Decode<EndTxnResponseData>(Call(Frame(26, 3, end)), 26, 3).error_code, 0);
  std::shared_ptr<Log> log = logs_->GetLog({"t", 0}).value();
  EXPECT_EQ(log->log_end_offset(), 3) << [&] {
    std::lock_guard<std::mutex> g(lines_mu_);
    std::string all;
    for (const auto& l : lines_) all += l + "\n";
    return all;
  }();  // two records and the COMMIT marker
  EXPECT_EQ(log->last_stable_offset(), 3);
  // The same batch again (the transaction is over): refused by verification.
  batch = TxnBatch(pid, 0, 2, 1);
  EXPECT_EQ(produce(11, "tx"), kafka_error::kTransactionAbortable);

  ListTransactionsRequestData lreq;
  lreq.state_filters = {"CompleteCommit"};
  auto lr = Decode<ListTransactionsResponseData>(Call(Frame(66, 1, lreq)), 66, 1);
  ASSERT_EQ(lr.transaction_states.size(), 1u);
  EXPECT_EQ(lr.transaction_states[0].transactional_id, "tx");
}

TEST_F(BrokerDispatchTest, ListOffsetsByTimestampStopsAtTheLastStableOffset) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
  std::shared_ptr<Log> log = logs_->GetLog({"t", 0}).value();
  auto append = [&](int64_t pid, int64_t ts, bool transactional) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.base_sequence = 0;
    o.is_transactional = transactional;
    RecordBatchBuilder b(o);
    EXPECT_TRUE(b.Append(ts, std::nullopt, Bytes()).ok());
    return log->AppendAsLeader(*b.Build()).status();
  };
  ASSERT_TRUE(append(7000, kT0, false).ok());         // 0
  ASSERT_TRUE(append(7001, kT0 + 1000, true).ok());   // 1: an open transaction
  ASSERT_TRUE(append(7002, kT0 + 2000, false).ok());  // 2
  ASSERT_EQ(log->last_stable_offset(), 1);
  auto lookup = [&](int64_t ts, int8_t isolation) {
    ListOffsetsRequestData req;
    req.isolation_level = isolation;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.emplace_back().timestamp = ts;
    auto resp = Decode<ListOffsetsResponseData>(Call(Frame(2, 7, req)), 2, 7);
    const auto& p = resp.topics.at(0).partitions.at(0);
    EXPECT_EQ(p.error_code, 0);
    return std::make_pair(p.offset, p.timestamp);
  };
  EXPECT_EQ(lookup(kT0, 1), std::make_pair(int64_t{0}, kT0));
  EXPECT_EQ(lookup(kT0 + 1000, 0), std::make_pair(int64_t{1}, kT0 + 1000));
  EXPECT_EQ(lookup(kT0 + 2000, 0), std::make_pair(int64_t{2}, kT0 + 2000));
  // read_committed: nothing at or past the open transaction's first offset.
  EXPECT_EQ(lookup(kT0 + 1000, 1), std::make_pair(int64_t{-1}, int64_t{-1}));
  EXPECT_EQ(lookup(kT0 + 2000, 1), std::make_pair(int64_t{-1}, int64_t{-1}));
  EXPECT_EQ(lookup(-3, 1), std::make_pair(int64_t{-1}, int64_t{-1}));  // the max timestamp: 2
  EXPECT_EQ(lookup(-1, 1).first, 1);
}

}  // namespace
}  // namespace seglog
