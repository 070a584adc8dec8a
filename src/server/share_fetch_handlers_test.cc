// ShareFetch and ShareAcknowledge handlers over a real LogManager, ShareCoordinator and
// SharePartitionManager: the top-level checks and session errors, acknowledgement errors in
// AcknowledgeErrorCode that never stop the fetch, the IsRenewAck rules, bad ranges, and another
// member's records refused with INVALID_RECORD_STATE and no change.
#include "server/share_fetch_handlers.h"

#include <gtest/gtest.h>

#include <tuple>
#include <utility>

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
  // Everything a refused request must leave as it was: each offset's state, delivery count,
  // owner and lock, SPSO/SPEO, and the records written to __share_group_state.
  struct Snapshot {
    std::vector<std::optional<OffsetSnapshot>> offsets;
    std::optional<std::pair<int64_t, int64_t>> start_end;
    int64_t state_log_end = -1;
    int64_t summary_start = -1;
    bool operator==(const Snapshot&) const = default;
  };
  Snapshot Take() {
    Snapshot s;
    for (int64_t o = 0; o < 10; ++o) s.offsets.push_back(manager_->StateOf({"g", topic_id_, 0}, o));
    s.start_end = manager_->StartAndEndOffsets({"g", topic_id_, 0});
    auto log = logs_->GetLog({"__share_group_state", 0});
    EXPECT_TRUE(log.ok());
    if (log.ok()) s.state_log_end = (*log)->log_end_offset();
    s.summary_start = coordinator_->ReadSummary({"g", topic_id_, 0}).start_offset;
    return s;
  }
  // ShareAcknowledge of one partition; its error code and message.
  std::pair<int16_t, std::optional<std::string>> AckError(const AckReq& r, int16_t version = 2) {
    auto resp = HandleShareAcknowledge(ctx_, rc_, r, version);
    EXPECT_EQ(resp.error_code, 0);
    if (resp.responses.size() != 1 || resp.responses[0].partitions.size() != 1) {
      ADD_FAILURE() << "expected one partition in the response";
      return {-1, std::nullopt};
    }
    const auto& p = resp.responses[0].partitions[0];
    return {p.error_code, p.error_message};
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
  // The top-level answer carries the code only (Kafka's getErrorResponse).
  EXPECT_FALSE(resp.error_message.has_value());
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
  EXPECT_FALSE(resp.error_message.has_value());
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

// Issue 31, bad input: acknowledgements Kafka refuses. Each answer is Kafka 4.4.0's code and
// message (KafkaApis.validateAcknowledgementBatches: INVALID_REQUEST without a message;
// SharePartition.acknowledge: its exception's message), and none changes the share partition
// or writes to __share_group_state.
TEST_F(ShareFetchHandlersTest, RefusedAcknowledgementsChangeNothing) {
  ASSERT_TRUE(logs_->CreateTopic("u", 1).ok());
  Append("u", 0, 3);
  auto u_id = Uuid::Parse(logs_->FindTopicIdentity("u")->topic_id);
  ASSERT_TRUE(u_id.ok());
  auto opened = HandleShareFetch(ctx_, rc_, Fetch("m1", 0), 2);
  ASSERT_EQ(opened.error_code, 0);
  ASSERT_EQ(opened.responses.size(), 1u);
  ASSERT_EQ(opened.responses[0].partitions[0].acquired_records.size(), 1u);  // 0-4
  ASSERT_EQ(HandleShareFetch(ctx_, rc_, Fetch("m2", 0), 2).error_code, 0);   // acquires nothing
  const Snapshot before = Take();
  ASSERT_EQ(before.start_end, std::make_pair(int64_t{0}, int64_t{4}));
  int32_t e1 = 1;
  int32_t e2 = 1;
  using Error = std::pair<int16_t, std::optional<std::string>>;
  const Error invalid{ke::kInvalidRequest, std::nullopt};
  auto batches = [&](const std::string& member, int32_t epoch,
                     std::vector<std::tuple<int64_t, int64_t, std::vector<int8_t>>> bs) {
    AckReq r = Ack(member, epoch, 0, 0, {1});
    auto& list = r.topics[0].partitions[0].acknowledgement_batches;
    list.clear();
    for (auto& [first, last, types] : bs) {
      auto& b = list.emplace_back();
      b.first_offset = first;
      b.last_offset = last;
      b.acknowledge_types = types;
    }
    return r;
  };

  // Beyond the end offset, and past what was acquired.
  EXPECT_EQ(AckError(Ack("m1", e1++, 3, 8, {1})),
            Error(ke::kInvalidRequest,
                  "Batch record not found. The last offset in request is past acquired records."));
  EXPECT_EQ(Take(), before);
  EXPECT_EQ(AckError(Ack("m1", e1++, 10, 12, {1})),
            Error(ke::kInvalidRequest,
                  "Batch record not found. The first offset in request is past acquired records."));
  EXPECT_EQ(Take(), before);
  // Acquired by another member: the whole batch, and some of its offsets.
  EXPECT_EQ(AckError(Ack("m2", e2++, 0, 4, {1})),
            Error(share_error::kInvalidRecordState, "Member is not the owner of batch record"));
  EXPECT_EQ(AckError(Ack("m2", e2++, 1, 2, {3})),
            Error(share_error::kInvalidRecordState, "Member is not the owner of batch record"));
  EXPECT_EQ(Take(), before);
  // Overlapping or out-of-order batches, a reversed range, a first offset below -1.
  EXPECT_EQ(AckError(batches("m1", e1++, {{0, 2, {1}}, {1, 3, {1}}})), invalid);
  EXPECT_EQ(AckError(batches("m1", e1++, {{3, 4, {1}}, {0, 1, {1}}})), invalid);
  EXPECT_EQ(AckError(batches("m1", e1++, {{3, 1, {1}}})), invalid);
  EXPECT_EQ(AckError(batches("m1", e1++, {{-2, 1, {1}}})), invalid);
  // A good batch before a bad one: nothing of the partition is applied.
  EXPECT_EQ(AckError(batches("m1", e1++, {{0, 1, {1}}, {1, 0, {1}}})), invalid);
  EXPECT_EQ(Take(), before);
  // Acknowledge types out of range, Renew without IsRenewAck, counts that do not match.
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 4, {5})), invalid);
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 4, {-1})), invalid);
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 1, {1, 7})), invalid);
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 4, {4})), invalid);
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 4, {4}), 1), invalid);  // v1 knows only 0-3
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 4, {1, 1})), invalid);
  EXPECT_EQ(AckError(Ack("m1", e1++, 0, 4, {})), invalid);
  EXPECT_EQ(Take(), before);
  // A partition no fetch ever opened (not in any session): no share partition is created or
  // read for it.
  AckReq other = Ack("m1", e1++, 0, 2, {1});
  other.topics[0].topic_id = *u_id;
  EXPECT_EQ(AckError(other),
            Error(ke::kUnknownTopicOrPartition, "This server does not host this topic-partition."));
  EXPECT_FALSE(manager_->IsLoaded({"g", *u_id, 0}));
  // A partition the topic does not have, and a topic id nobody knows.
  AckReq missing = Ack("m1", e1++, 0, 2, {1});
  missing.topics[0].partitions[0].partition_index = 7;
  EXPECT_EQ(AckError(missing), Error(ke::kUnknownTopicOrPartition, std::nullopt));
  AckReq unknown = Ack("m1", e1++, 0, 2, {1});
  unknown.topics[0].topic_id = Uuid::Random();
  EXPECT_EQ(AckError(unknown), Error(ke::kUnknownTopicId, std::nullopt));
  EXPECT_EQ(Take(), before);
  EXPECT_EQ(sessions_.SessionEpoch("g", "m1"), e1);

  // The same refusals piggy-backed on a ShareFetch land in AcknowledgeErrorCode/Message.
  FetchReq piggy = Fetch("m1", e1++);
  AddAck(&piggy, 0, 4, {1});
  AddAck(&piggy, 2, 2, {1});  // overlaps
  auto resp = HandleShareFetch(ctx_, rc_, piggy, 2);
  ASSERT_EQ(resp.error_code, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].partitions[0].acknowledge_error_code, ke::kInvalidRequest);
  EXPECT_FALSE(resp.responses[0].partitions[0].acknowledge_error_message.has_value());
  FetchReq piggy2 = Fetch("m2", e2++);
  AddAck(&piggy2, 0, 4, {3});
  resp = HandleShareFetch(ctx_, rc_, piggy2, 2);
  ASSERT_EQ(resp.error_code, 0);
  ASSERT_EQ(resp.responses.size(), 1u);
  EXPECT_EQ(resp.responses[0].partitions[0].acknowledge_error_code,
            share_error::kInvalidRecordState);
  EXPECT_EQ(resp.responses[0].partitions[0].acknowledge_error_message,
            "Member is not the owner of batch record");
  EXPECT_EQ(Take(), before);
}

TEST_F(ShareFetchHandlersTest, NotAcquiredAndBelowStartOffset) {
  ASSERT_EQ(HandleShareFetch(ctx_, rc_, Fetch("m1", 0), 2).error_code, 0);  // 0-4
  // Release everything through a ShareAcknowledge: the batch is AVAILABLE again, no owner.
  ASSERT_EQ(AckError(Ack("m1", 1, 0, 4, {2})),
            std::make_pair(int16_t{0}, std::optional<std::string>()));
  const Snapshot available = Take();
  ASSERT_TRUE(available.offsets[2].has_value());
  EXPECT_EQ(available.offsets[2]->state, RecordState::kAvailable);
  EXPECT_EQ(available.offsets[2]->delivery_count, 1);
  EXPECT_EQ(AckError(Ack("m1", 2, 0, 4, {1})),
            std::make_pair(share_error::kInvalidRecordState,
                           std::optional<std::string>(
                               "The batch cannot be acknowledged. The batch is not in the acquired "
                               "state.")));
  EXPECT_EQ(Take(), available);

  // Acquired again (delivery 2), then 0-1 accepted: SPSO is 2.
  auto again = HandleShareFetch(ctx_, rc_, Fetch("m1", 3), 2);
  ASSERT_EQ(again.error_code, 0);
  ASSERT_EQ(AckError(Ack("m1", 4, 0, 1, {1})).first, 0);
  const Snapshot moved = Take();
  ASSERT_EQ(moved.start_end, std::make_pair(int64_t{2}, int64_t{4}));
  // Below the start offset: finished already, so Kafka answers NONE and changes nothing, for
  // the owner and for anyone else.
  EXPECT_EQ(AckError(Ack("m1", 5, 0, 1, {3})).first, 0);
  ASSERT_EQ(HandleShareFetch(ctx_, rc_, Fetch("m2", 0), 2).error_code, 0);
  EXPECT_EQ(AckError(Ack("m2", 1, 0, 1, {2})).first, 0);
  EXPECT_EQ(Take(), moved);
  // Straddling the start offset: offset 1 is skipped, offset 2 is m1's.
  EXPECT_EQ(AckError(Ack("m2", 2, 1, 2, {1})),
            std::make_pair(share_error::kInvalidRecordState,
                           std::optional<std::string>("Member is not the owner of offset")));
  // Accepted offsets are not acquired any more.
  EXPECT_EQ(Take(), moved);
}

// Issue 31, bad input: share-session epochs. A stale, future or unknown session is refused at
// the top level with the code only, and neither the session nor the share partition moves.
TEST_F(ShareFetchHandlersTest, SessionErrorsChangeNothing) {
  ASSERT_EQ(HandleShareFetch(ctx_, rc_, Fetch("m1", 0), 2).error_code, 0);  // epoch now 1
  ASSERT_EQ(AckError(Ack("m1", 1, 0, 0, {1})).first, 0);                    // epoch now 2
  const Snapshot before = Take();
  ASSERT_EQ(sessions_.SessionEpoch("g", "m1"), 2);
  struct Case {
    std::string member;
    int32_t epoch;
    int16_t code;
  };
  const std::vector<Case> fetch_cases = {
      {"m1", 1, share_error::kInvalidShareSessionEpoch},  // stale
      {"m1", 3, share_error::kInvalidShareSessionEpoch},  // future
      {"m1", -7, share_error::kInvalidShareSessionEpoch},
      {"m9", 2, share_error::kShareSessionNotFound},  // no session for this member
      {"m9", -1, share_error::kShareSessionNotFound},
  };
  for (const Case& c : fetch_cases) {
    SCOPED_TRACE(c.member + "@" + std::to_string(c.epoch));
    FetchReq r = Fetch(c.member, c.epoch);
    AddAck(&r, 1, 1, {1});
    auto resp = HandleShareFetch(ctx_, rc_, r, 2);
    EXPECT_EQ(resp.error_code, c.code);
    EXPECT_FALSE(resp.error_message.has_value());
    EXPECT_TRUE(resp.responses.empty());
    EXPECT_EQ(Take(), before);
    EXPECT_EQ(sessions_.SessionEpoch("g", "m1"), 2);
    auto ack = HandleShareAcknowledge(ctx_, rc_, Ack(c.member, c.epoch, 1, 1, {1}), 2);
    if (c.epoch == -1) {
      EXPECT_EQ(ack.error_code, share_error::kShareSessionNotFound);
    } else {
      EXPECT_EQ(ack.error_code, c.code);
    }
    EXPECT_FALSE(ack.error_message.has_value());
    EXPECT_TRUE(ack.responses.empty());
    EXPECT_EQ(Take(), before);
    EXPECT_EQ(sessions_.SessionEpoch("g", "m1"), 2);
  }
  // The same member in another group has no session there.
  FetchReq elsewhere = Fetch("m1", 2);
  elsewhere.group_id = "h";
  EXPECT_EQ(HandleShareFetch(ctx_, rc_, elsewhere, 2).error_code,
            share_error::kShareSessionNotFound);
  // ShareAcknowledge never opens a session; ShareFetch opening one may not acknowledge, and
  // the refusal keeps the member's current session.
  EXPECT_EQ(HandleShareAcknowledge(ctx_, rc_, Ack("m1", 0, 1, 1, {1}), 2).error_code,
            share_error::kInvalidShareSessionEpoch);
  FetchReq reopen = Fetch("m1", 0);
  AddAck(&reopen, 1, 1, {1});
  EXPECT_EQ(HandleShareFetch(ctx_, rc_, reopen, 2).error_code, ke::kInvalidRequest);
  EXPECT_EQ(sessions_.SessionEpoch("g", "m1"), 2);
  // A member id Kafka refuses (longer than 36) and a null group id.
  FetchReq long_id = Fetch(std::string(37, 'x'), 0);
  auto refused = HandleShareFetch(ctx_, rc_, long_id, 2);
  EXPECT_EQ(refused.error_code, ke::kInvalidRequest);
  EXPECT_FALSE(refused.error_message.has_value());
  AckReq no_group = Ack("m1", 2, 1, 1, {1});
  no_group.group_id.reset();
  auto ack = HandleShareAcknowledge(ctx_, rc_, no_group, 2);
  EXPECT_EQ(ack.error_code, ke::kInvalidRequest);
  EXPECT_FALSE(ack.error_message.has_value());
  EXPECT_EQ(Take(), before);
  EXPECT_EQ(sessions_.SessionEpoch("g", "m1"), 2);
  // A member the group has never heard of (no ShareGroupHeartbeat): Kafka's share fetch path
  // does not ask the group coordinator, so its session opens.
  EXPECT_EQ(HandleShareFetch(ctx_, rc_, Fetch("stranger", 0), 2).error_code, 0);
  EXPECT_EQ(sessions_.SessionEpoch("g", "stranger"), 1);
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
