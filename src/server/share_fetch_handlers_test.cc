// ShareFetch and ShareAcknowledge handlers over a real LogManager, ShareCoordinator and
// SharePartitionManager: the top-level checks and session errors, acknowledgement errors in
// AcknowledgeErrorCode that never stop the fetch, the IsRenewAck rules, bad ranges, and another
// member's records refused with INVALID_RECORD_STATE and no change.
#include "server/share_fetch_handlers.h"

#include <gtest/gtest.h>

#include "protocol/kafka_error.h"
#include "server/handlers_test_base.h"
#include "share/share_partition_manager.h"
#include "sharestate/share_coordinator.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
using FetchReq = protocol::ShareFetchRequestData;
using AckReq = protocol::ShareAcknowledgeRequestData;

class ShareFetchHandlersTest : public HandlersTest {
 protected:
  void SetUp() override {
    HandlersTest::SetUp();
    ASSERT_TRUE(logs_->CreateTopic("t", 1).ok());
    auto id = Uuid::Parse(logs_->FindTopicIdentity("t")->topic_id);
    ASSERT_TRUE(id.ok());
    topic_id_ = *id;
    ShareCoordinatorConfig config;
    std::optional<Status> set = config.Set("share.coordinator.state.topic.num.partitions", "1");
    ASSERT_TRUE(set && set->ok());
    auto c = ShareCoordinator::Open(config, logs_.get(), scheduler_.get(),
                                    [this](const Uuid& topic) -> std::optional<int32_t> {
                                      if (topic == topic_id_) return 1;
                                      return std::nullopt;
                                    },
                                    {});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    coordinator_ = std::move(c).value();
    ASSERT_EQ(coordinator_->Initialize({"g", topic_id_, 0}, 1, -1).error_code, 0);
    SharePartitionManager::Options o;
    o.coordinator = coordinator_.get();
    o.logs = logs_.get();
    o.scheduler = scheduler_.get();
    o.sessions = &sessions_;
    o.settings = [](const std::string&) {
      ShareGroupSettings s;
      s.auto_offset_reset = "earliest";
      return s;
    };
    manager_ = std::make_unique<SharePartitionManager>(std::move(o));
    ctx_.features->share_version = 2;
    ctx_.share_sessions = &sessions_;
    ctx_.share_partitions = manager_.get();
    Append("t", 0, 5);
  }
  void TearDown() override {
    manager_.reset();
    if (coordinator_) coordinator_->Shutdown();
    HandlersTest::TearDown();
  }
  FetchReq Fetch(const std::string& member, int32_t epoch) {
    FetchReq r;
    r.group_id = "g";
    r.member_id = member;
    r.share_session_epoch = epoch;
    r.max_records = 500;
    r.batch_size = 500;
    auto& t = r.topics.emplace_back();
    t.topic_id = topic_id_;
    t.partitions.emplace_back().partition_index = 0;
    return r;
  }
  static void AddAck(FetchReq* r, int64_t first, int64_t last, std::vector<int8_t> types) {
    auto& b = r->topics[0].partitions[0].acknowledgement_batches.emplace_back();
    b.first_offset = first;
    b.last_offset = last;
    b.acknowledge_types = std::move(types);
  }
  AckReq Ack(const std::string& member, int32_t epoch, int64_t first, int64_t last,
             std::vector<int8_t> types) {
    AckReq r;
    r.group_id = "g";
    r.member_id = member;
    r.share_session_epoch = epoch;
    auto& t = r.topics.emplace_back();
    t.topic_id = topic_id_;
    auto& p = t.partitions.emplace_back();
    p.partition_index = 0;
    auto& b = p.acknowledgement_batches.emplace_back();
    b.first_offset = first;
    b.last_offset = last;
    b.acknowledge_types = std::move(types);
    return r;
  }
  RecordState StateAt(int64_t offset) {
    auto s = manager_->StateOf({"g", topic_id_, 0}, offset);
    return s ? s->state : RecordState::kArchiving;
  }

  Uuid topic_id_;
  std::unique_ptr<ShareCoordinator> coordinator_;
  ShareSessionCache sessions_;
  std::unique_ptr<SharePartitionManager> manager_;
};

TEST_F(ShareFetchHandlersTest, TopLevelChecks) {
  FetchReq r = Fetch("m1", 0);
  r.member_id = "";
  auto resp = HandleShareFetch(ctx_, rc_, r, 2);
  EXPECT_EQ(resp.error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.error_message, "Invalid member id in the request.");
  ctx_.features->share_version = 0;
  EXPECT_EQ(HandleShareFetch(ctx_, rc_, Fetch("m1", 0), 2).error_code, ke::kUnsupportedVersion);
  ctx_.features->share_version = 2;
  // A session that does not exist.
  resp = HandleShareFetch(ctx_, rc_, Fetch("m1", 3), 2);
  EXPECT_EQ(resp.error_code, share_error::kShareSessionNotFound);
  EXPECT_TRUE(resp.responses.empty());
  // ShareAcknowledge never opens a session.
  auto ack = HandleShareAcknowledge(ctx_, rc_, Ack("m1", 0, 0, 0, {1}), 2);
  EXPECT_EQ(ack.error_code, share_error::kInvalidShareSessionEpoch);
  // Acknowledgements in the request that opens a session.
  FetchReq open = Fetch("m1", 0);
  AddAck(&open, 0, 0, {1});
  EXPECT_EQ(HandleShareFetch(ctx_, rc_, open, 2).error_code, ke::kInvalidRequest);
}

TEST_F(ShareFetchHandlersTest, RenewRules) {
  FetchReq r = Fetch("m1", 0);
  r.is_renew_ack = true;
  r.max_records = 5;
  auto resp = HandleShareFetch(ctx_, rc_, r, 2);
  EXPECT_EQ(resp.error_code, ke::kInvalidRequest);
  EXPECT_EQ(resp.error_message,
            "maxBytes must be set to 0, maxRecords must be set to 0, if isRenewAck is true.");
}

TEST_F(ShareFetchHandlersTest, FetchAcknowledgeAndTheirErrors) {
  auto resp = HandleShareFetch(ctx_, rc_, Fetch("m1", 0), 2);
  ASSERT_EQ(resp.error_code, 0);
  EXPECT_EQ(resp.acquisition_lock_timeout_ms, 30000);
  ASSERT_EQ(resp.responses.size(), 1u);
  ASSERT_EQ(resp.responses[0].partitions.size(), 1u);
  const auto& p = resp.responses[0].partitions[0];
  ASSERT_EQ(p.acquired_records.size(), 1u);
  EXPECT_EQ(p.acquired_records[0].first_offset, 0);
  EXPECT_EQ(p.acquired_records[0].last_offset, 4);
  EXPECT_GT(p.records.size_bytes(), 0);

  // A bad range: INVALID_REQUEST in AcknowledgeErrorCode, nothing changes.
  FetchReq bad = Fetch("m1", 1);
  AddAck(&bad, 3, 1, {1});
  resp = HandleShareFetch(ctx_, rc_, bad, 2);
  ASSERT_EQ(resp.error_code, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].partitions[0].acknowledge_error_code, ke::kInvalidRequest);
  EXPECT_EQ(StateAt(1), RecordState::kAcquired);

  // Renew (4) without IsRenewAck, and in v1: INVALID_REQUEST.
  auto ack = HandleShareAcknowledge(ctx_, rc_, Ack("m1", 2, 0, 0, {4}), 2);
  ASSERT_EQ(ack.error_code, 0);
  EXPECT_EQ(ack.responses[0].partitions[0].error_code, ke::kInvalidRequest);
  ack = HandleShareAcknowledge(ctx_, rc_, Ack("m1", 3, 0, 0, {4}), 1);
  EXPECT_EQ(ack.responses[0].partitions[0].error_code, ke::kInvalidRequest);

  // Another member's records: INVALID_RECORD_STATE, no state change.
  auto other = HandleShareFetch(ctx_, rc_, Fetch("m2", 0), 2);
  ASSERT_EQ(other.error_code, 0);
  ack = HandleShareAcknowledge(ctx_, rc_, Ack("m2", 1, 0, 1, {1}), 2);
  EXPECT_EQ(ack.responses[0].partitions[0].error_code, share_error::kInvalidRecordState);
  EXPECT_EQ(StateAt(0), RecordState::kAcquired);

  // The owner accepts 0-1 and releases 2 in a fetch: the fetch goes on and gets 2 again.
  FetchReq good = Fetch("m1", 4);
  AddAck(&good, 0, 2, {1, 1, 2});
  resp = HandleShareFetch(ctx_, rc_, good, 2);
  ASSERT_EQ(resp.error_code, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  const auto& q = resp.responses[0].partitions[0];
  EXPECT_EQ(q.acknowledge_error_code, 0);
  ASSERT_EQ(q.acquired_records.size(), 1u);
  EXPECT_EQ(q.acquired_records[0].first_offset, 2);
  EXPECT_EQ(q.acquired_records[0].last_offset, 2);
  EXPECT_EQ(q.acquired_records[0].delivery_count, 2);
  // 0-1 are finished: the share-partition start offset moved past them.
  EXPECT_FALSE(manager_->StateOf({"g", topic_id_, 0}, 0).has_value());
  EXPECT_EQ(coordinator_->ReadSummary({"g", topic_id_, 0}).start_offset, 2);

  // A final ShareAcknowledge ends the session and releases what the member holds.
  ack = HandleShareAcknowledge(ctx_, rc_, Ack("m1", -1, 3, 3, {1}), 2);
  EXPECT_EQ(ack.responses[0].partitions[0].error_code, 0);
  EXPECT_EQ(StateAt(2), RecordState::kAvailable);
  EXPECT_FALSE(sessions_.SessionEpoch("g", "m1").has_value());
}

TEST_F(ShareFetchHandlersTest, UnknownTopicId) {
  FetchReq r = Fetch("m1", 0);
  r.topics[0].topic_id = Uuid::Random();
  auto resp = HandleShareFetch(ctx_, rc_, r, 2);
  ASSERT_EQ(resp.error_code, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].partitions[0].error_code, ke::kUnknownTopicId);
}

}  // namespace
}  // namespace seglog
