// Tests for the GroupCoordinator's transactional offsets (TxnOffsetCommit and the markers of
// __consumer_offsets) over a real LogManager in a temporary directory, on the manual clock:
// what the log holds (the producer's transactional batch, the control batch), what OffsetFetch
// sees before and after each marker (require_stable's UNSTABLE_OFFSET_COMMIT), the log's
// producer-state refusals of a marker, Kafka's group checks for TxnOffsetCommit, and what a
// load rebuilds - pending offsets whose marker is not in the log stay pending.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

constexpr int16_t kTxnVersion = 5;  // TxnOffsetCommit v5 (below v6's errors)
constexpr int64_t kPid = 4000;
const std::string kTopic = "t";  // assigned from a string: g++ 12's -Wrestrict trips on "t"

class GroupTransactionTest : public CoordinatorTestBase {
 protected:
  void SetUp() override { Open(); }

  // A TxnOffsetCommit of one partition; its error code.
  int16_t TxnCommit(const std::string& group, int64_t pid, int16_t epoch, int64_t offset,
                    int32_t partition = 0, int32_t generation = -1, const std::string& member = "",
                    int16_t version = kTxnVersion, std::string metadata = "") {
    std::vector<GroupCoordinator::CommitPartition> parts(1);
    parts[0].topic = kTopic;
    parts[0].partition = partition;
    parts[0].offset = offset;
    parts[0].metadata = std::move(metadata);
    coordinator_->CommitTransactionalOffsets(version, group, pid, epoch, generation, member,
                                             std::nullopt, &parts);
    return parts[0].error_code;
  }
  int16_t Commit(const std::string& group, int64_t offset, int32_t partition = 0) {
    std::vector<GroupCoordinator::CommitPartition> parts(1);
    parts[0].topic = kTopic;
    parts[0].partition = partition;
    parts[0].offset = offset;
    coordinator_->CommitOffsets(9, group, -1, "", std::nullopt, -1, &parts);
    return parts[0].error_code;
  }
  int16_t Marker(const std::string& group, int64_t pid, int16_t epoch, bool commit,
                 int32_t coordinator_epoch = 0) {
    return coordinator_->CompleteTransaction(coordinator_->PartitionFor(group), pid, epoch,
                                             coordinator_epoch, commit);
  }
  // OffsetFetch of one partition: (error code, offset).
  std::pair<int16_t, int64_t> Fetch(const std::string& group, int32_t partition = 0,
                                    bool require_stable = false) {
    auto r = coordinator_->FetchOffsets(
        group, std::vector<GroupCoordinator::FetchTopic>{{"t", {partition}}}, std::nullopt, -1,
        require_stable);
    EXPECT_EQ(r.error_code, 0);
    if (r.offsets.size() != 1) return {-2, -2};
    return {r.offsets[0].error_code, r.offsets[0].offset};
  }
  int64_t Committed(const std::string& group, int32_t partition = 0) {
    return Fetch(group, partition).second;
  }
  bool Unstable(const std::string& group, int32_t partition = 0) {
    return Fetch(group, partition, true) == std::make_pair(ke::kUnstableOffsetCommit, int64_t{-1});
  }
  std::string State(const std::string& group) {
    int16_t e = 0;
    auto d = coordinator_->DescribeGroup(group, &e);
    return d ? d->group_state : "none";
  }
  std::shared_ptr<Log> OffsetsLog(const std::string& group) {
    return *logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor(group)});
  }
  // The batches of the group's __consumer_offsets partition, as read back.
  struct BatchSummary {
    int64_t base_offset;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    bool transactional;
    bool control;
    int32_t records;
  };
  std::vector<BatchSummary> Batches(const std::string& group) {
    std::shared_ptr<Log> log = OffsetsLog(group);
    std::vector<BatchSummary> out;
    auto read = log->Read(log->log_start_offset(), 1 << 20);
    EXPECT_TRUE(read.ok());
    if (!read.ok()) return out;
    auto bytes = read->slice.ReadAll();
    EXPECT_TRUE(bytes.ok());
    if (!bytes.ok()) return out;
    LogBatchWalker walker(*bytes);
    while (walker.Next()) {
      auto b = RecordBatchView::Parse(walker.current_bytes());
      EXPECT_TRUE(b.ok());
      if (!b.ok()) break;
      out.push_back({b->base_offset(), b->producer_id(), b->producer_epoch(), b->base_sequence(),
                     b->is_transactional(), b->is_control(), b->records_count()});
    }
    return out;
  }
  // A second coordinator over the same LogManager (the first is shut down and closed): the
  // load alone, without the logs reopening.
  void ReloadCoordinatorOnly() {
    coordinator_->Shutdown();
    coordinator_.reset();
    auto c = GroupCoordinator::Open(config_.group, logs_.get(), scheduler_.get(),
                                    [this](const std::string& l) { lines_.push_back(l); });
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    coordinator_ = std::move(c).value();
  }
};

// A TxnOffsetCommit writes the producer's transactional batch (its id and epoch, base sequence
// 0); the offset is invisible until the COMMIT marker - a control batch of the producer - and
// then committed.
TEST_F(GroupTransactionTest, CommitMarkerMakesOffsetsVisible) {
  ASSERT_EQ(TxnCommit("g", kPid, 3, 10), ke::kNone);
  EXPECT_EQ(Committed("g"), -1);
  EXPECT_TRUE(Unstable("g"));
  EXPECT_EQ(Fetch("g", 1, true), std::make_pair(ke::kNone, int64_t{-1}));  // nothing pending
  EXPECT_EQ(State("g"), "Empty");  // a simple group was created
  ASSERT_EQ(Marker("g", kPid, 3, /*commit=*/true), ke::kNone);
  EXPECT_EQ(Committed("g"), 10);
  EXPECT_EQ(Fetch("g", 0, true), std::make_pair(ke::kNone, int64_t{10}));

  const std::vector<BatchSummary> batches = Batches("g");
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].producer_id, kPid);
  EXPECT_EQ(batches[0].producer_epoch, 3);
  EXPECT_EQ(batches[0].base_sequence, 0);
  EXPECT_TRUE(batches[0].transactional);
  EXPECT_FALSE(batches[0].control);
  EXPECT_EQ(batches[0].records, 1);
  EXPECT_EQ(batches[1].producer_id, kPid);
  EXPECT_EQ(batches[1].producer_epoch, 3);
  EXPECT_EQ(batches[1].base_sequence, kNoSequence);
  EXPECT_TRUE(batches[1].transactional);
  EXPECT_TRUE(batches[1].control);
  // The transaction is closed: nothing holds the last stable offset back.
  EXPECT_EQ(OffsetsLog("g")->last_stable_offset(), OffsetsLog("g")->log_end_offset());
}

// ABORT drops the pending offsets; the committed one before the transaction stays.
TEST_F(GroupTransactionTest, AbortDropsPendingOffsets) {
  ASSERT_EQ(Commit("g", 5), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10), ke::kNone);
  EXPECT_EQ(Committed("g"), 5);  // without require_stable: the last committed one
  EXPECT_TRUE(Unstable("g"));
  ASSERT_EQ(Marker("g", kPid, 0, /*commit=*/false), ke::kNone);
  EXPECT_EQ(Fetch("g", 0, true), std::make_pair(ke::kNone, int64_t{5}));
  // A marker with nothing pending is still written and answered 0.
  EXPECT_EQ(Marker("g", kPid, 0, /*commit=*/true), ke::kNone);
  EXPECT_EQ(Committed("g"), 5);
}

// require_stable over "all partitions": the committed partitions are listed, the one with a
// pending offset as UNSTABLE_OFFSET_COMMIT; a partition with only a pending offset is not.
TEST_F(GroupTransactionTest, RequireStableListsEveryCommittedPartition) {
  ASSERT_EQ(Commit("g", 1, 0), ke::kNone);
  ASSERT_EQ(Commit("g", 2, 1), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 11, 1), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 12, 2), ke::kNone);
  auto r = coordinator_->FetchOffsets("g", std::nullopt, std::nullopt, -1, true);
  ASSERT_EQ(r.offsets.size(), 2u);
  EXPECT_EQ(r.offsets[0].partition, 0);
  EXPECT_EQ(r.offsets[0].error_code, 0);
  EXPECT_EQ(r.offsets[0].offset, 1);
  EXPECT_EQ(r.offsets[1].partition, 1);
  EXPECT_EQ(r.offsets[1].error_code, ke::kUnstableOffsetCommit);
  EXPECT_EQ(r.offsets[1].offset, -1);
  auto plain = coordinator_->FetchOffsets("g", std::nullopt);
  ASSERT_EQ(plain.offsets.size(), 2u);
  EXPECT_EQ(plain.offsets[1].error_code, 0);
  EXPECT_EQ(plain.offsets[1].offset, 2);
}

// A marker from an older transaction coordinator epoch than the last one the partition saw is
// refused (TRANSACTION_COORDINATOR_FENCED) and changes nothing.
TEST_F(GroupTransactionTest, MarkerOfAnOlderCoordinatorEpochIsFenced) {
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10), ke::kNone);
  ASSERT_EQ(Marker("g", kPid, 0, true, /*coordinator_epoch=*/5), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 20), ke::kNone);
  const int64_t end = OffsetsLog("g")->log_end_offset();
  EXPECT_EQ(Marker("g", kPid, 0, true, /*coordinator_epoch=*/4), ke::kTransactionCoordinatorFenced);
  EXPECT_EQ(OffsetsLog("g")->log_end_offset(), end);  // nothing written
  EXPECT_EQ(Committed("g"), 10);
  EXPECT_TRUE(Unstable("g"));
  EXPECT_EQ(Marker("g", kPid, 0, true, 5), ke::kNone);
  EXPECT_EQ(Committed("g"), 20);
}

// A marker, or a TxnOffsetCommit, with a producer epoch older than the partition's is refused
// (INVALID_PRODUCER_EPOCH) by the log's producer state.
TEST_F(GroupTransactionTest, OlderProducerEpochIsRefused) {
  ASSERT_EQ(TxnCommit("g", kPid, 3, 10), ke::kNone);
  EXPECT_EQ(Marker("g", kPid, 2, true), ke::kInvalidProducerEpoch);
  EXPECT_TRUE(Unstable("g"));
  EXPECT_EQ(TxnCommit("g", kPid, 2, 11), ke::kInvalidProducerEpoch);
  EXPECT_EQ(Marker("g", kPid, 3, true), ke::kNone);
  EXPECT_EQ(Committed("g"), 10);
}

// The plain commit written after the transactional one wins, whatever the order of the marker;
// an aborted transaction never touches the committed offset - both live and after a load.
TEST_F(GroupTransactionTest, LaterPlainCommitWinsOverAnOlderTransactionalOne) {
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10), ke::kNone);
  ASSERT_EQ(Commit("g", 20), ke::kNone);
  ASSERT_EQ(Marker("g", kPid, 0, true), ke::kNone);
  EXPECT_EQ(Committed("g"), 20);
  // The other way round the transactional one is later and wins.
  ASSERT_EQ(Commit("g", 30, 1), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid + 1, 0, 40, 1), ke::kNone);
  ASSERT_EQ(Marker("g", kPid + 1, 0, true), ke::kNone);
  EXPECT_EQ(Committed("g", 1), 40);
  // Aborted: the committed offset stays.
  ASSERT_EQ(TxnCommit("g", kPid + 2, 0, 99, 0), ke::kNone);
  ASSERT_EQ(Marker("g", kPid + 2, 0, false), ke::kNone);
  EXPECT_EQ(Committed("g"), 20);
  Reopen();
  EXPECT_EQ(Committed("g"), 20);
  EXPECT_EQ(Committed("g", 1), 40);
  EXPECT_EQ(Fetch("g", 0, true), std::make_pair(ke::kNone, int64_t{20}));
}

// A load replays the transactional batches into the pending set and applies the markers found
// in the log: committed, aborted, and one still open (it stays pending, and its marker after
// the load commits it). Both a new coordinator over the same logs and a full restart.
TEST_F(GroupTransactionTest, LoadKeepsPendingOffsetsAndAppliesMarkers) {
  ASSERT_EQ(Commit("g", 1, 1), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10, 0), ke::kNone);      // committed below
  ASSERT_EQ(TxnCommit("g", kPid + 1, 0, 11, 1), ke::kNone);  // aborted below
  ASSERT_EQ(TxnCommit("g", kPid + 2, 0, 12, 2), ke::kNone);  // left open
  ASSERT_EQ(TxnCommit("only-pending", kPid + 2, 0, 13, 0), ke::kNone);
  ASSERT_EQ(Marker("g", kPid, 0, true), ke::kNone);
  ASSERT_EQ(Marker("g", kPid + 1, 0, false), ke::kNone);
  auto check = [&] {
    EXPECT_EQ(Fetch("g", 0, true), std::make_pair(ke::kNone, int64_t{10}));
    EXPECT_EQ(Fetch("g", 1, true), std::make_pair(ke::kNone, int64_t{1}));
    EXPECT_TRUE(Unstable("g", 2));
    EXPECT_EQ(Committed("g", 2), -1);
    EXPECT_TRUE(Unstable("only-pending"));
    EXPECT_EQ(State("only-pending"), "Empty");  // the group exists (a simple group)
  };
  check();
  ReloadCoordinatorOnly();
  check();
  Reopen();
  check();
  // The open transaction's marker arrives after the restart: the log's producer state (from
  // its snapshot or its rebuild) accepts it, and the offsets become committed.
  const std::string other = "only-pending";
  ASSERT_EQ(Marker("g", kPid + 2, 0, true), ke::kNone);
  EXPECT_EQ(Committed("g", 2), 12);
  if (coordinator_->PartitionFor(other) != coordinator_->PartitionFor("g")) {
    EXPECT_TRUE(Unstable(other));  // another partition's marker is still to come
    ASSERT_EQ(Marker(other, kPid + 2, 0, true), ke::kNone);
  }
  EXPECT_EQ(Committed(other), 13);
  Reopen();
  EXPECT_EQ(Committed("g", 2), 12);
  EXPECT_EQ(Committed(other), 13);
}

// An offset tombstone (OffsetDelete here) drops the partition's pending offsets, so its marker
// commits nothing - live and at a load.
TEST_F(GroupTransactionTest, TombstoneDropsPendingOffsets) {
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10, 0), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 11, 1), ke::kNone);
  auto d = coordinator_->DeleteOffsets("g", {{"t", 0}});
  ASSERT_EQ(d.error_code, 0);
  EXPECT_FALSE(Unstable("g", 0));
  EXPECT_TRUE(Unstable("g", 1));
  ReloadCoordinatorOnly();
  EXPECT_FALSE(Unstable("g", 0));
  EXPECT_TRUE(Unstable("g", 1));
  ASSERT_EQ(Marker("g", kPid, 0, true), ke::kNone);
  EXPECT_EQ(Committed("g", 0), -1);
  EXPECT_EQ(Committed("g", 1), 11);
}

// Deleting a group tombstones the partitions with only pending offsets too.
TEST_F(GroupTransactionTest, DeleteGroupDropsPendingOffsets) {
  ASSERT_EQ(Commit("g", 1, 0), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10, 1), ke::kNone);
  ASSERT_EQ(coordinator_->DeleteGroup("g"), ke::kNone);
  EXPECT_FALSE(Unstable("g", 1));
  ASSERT_EQ(Marker("g", kPid, 0, true), ke::kNone);
  EXPECT_EQ(Committed("g", 1), -1);
  Reopen();
  EXPECT_EQ(Committed("g", 1), -1);
  EXPECT_EQ(State("g"), "none");
}

// Offsets with a pending transaction are not expired, and their group is not removed.
TEST_F(GroupTransactionTest, PendingOffsetsAreNotExpired) {
  ASSERT_EQ(Commit("g", 1, 0), ke::kNone);
  ASSERT_EQ(Commit("g", 2, 1), ke::kNone);
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10, 0), ke::kNone);
  ASSERT_EQ(TxnCommit("h", kPid, 0, 10, 0), ke::kNone);  // only pending
  scheduler_->Advance(int64_t{8} * 24 * 3600 * 1000);    // past the 7 days' retention
  coordinator_->ExpireOffsets();
  EXPECT_EQ(Committed("g", 0), 1);  // kept: a transaction has it pending
  EXPECT_EQ(Committed("g", 1), -1);
  EXPECT_EQ(State("h"), "Empty");
  ASSERT_EQ(Marker("g", kPid, 0, true), ke::kNone);
  if (coordinator_->PartitionFor("h") != coordinator_->PartitionFor("g")) {
    ASSERT_EQ(Marker("h", kPid, 0, true), ke::kNone);
  }
  EXPECT_EQ(Committed("g", 0), 10);
  EXPECT_EQ(Committed("h", 0), 10);
}

// Kafka's group checks of TxnOffsetCommit for classic groups: an unknown group is created at
// generation -1 and refused otherwise (ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v6); a
// member's generation and id are checked when given; no member fields is accepted even in a
// group with members; metadata too long is refused per partition.
TEST_F(GroupTransactionTest, ClassicGroupChecks) {
  EXPECT_EQ(TxnCommit("absent", kPid, 0, 1, 0, 3, "m", 5), ke::kIllegalGeneration);
  EXPECT_EQ(TxnCommit("absent", kPid, 0, 1, 0, 3, "m", 6), ke::kGroupIdNotFound);
  EXPECT_EQ(State("absent"), "none");

  p::JoinGroupRequestData req;
  req.group_id = "g";
  req.member_id = "";
  req.session_timeout_ms = 10000;
  req.rebalance_timeout_ms = 20000;
  req.protocol_type = "consumer";
  req.protocols.emplace_back().name = "range";
  std::optional<p::JoinGroupResponseData> joined;
  coordinator_->JoinGroup(3, {"client", "/127.0.0.1"}, req,
                          [&](p::JoinGroupResponseData r) { joined = std::move(r); });
  scheduler_->Advance(3000);  // the initial rebalance delay
  ASSERT_TRUE(joined.has_value());
  ASSERT_EQ(joined->error_code, 0);
  const std::string member = joined->member_id;
  const int32_t generation = joined->generation_id;
  // CompletingRebalance (no SyncGroup yet) is no error for a transactional commit.
  EXPECT_EQ(TxnCommit("g", kPid, 0, 1, 0, generation, member), ke::kNone);
  EXPECT_EQ(TxnCommit("g", kPid, 0, 1, 0, generation + 1, member), ke::kIllegalGeneration);
  EXPECT_EQ(TxnCommit("g", kPid, 0, 1, 0, generation, "intruder"), ke::kUnknownMemberId);
  EXPECT_EQ(TxnCommit("g", kPid, 0, 1, 0, -1, ""), ke::kNone);
  EXPECT_EQ(TxnCommit("g", kPid, 0, 1, 0, -1, "", kTxnVersion, std::string(4097, 'm')),
            ke::kOffsetMetadataTooLarge);
}

// Shard errors of a marker are NOT_LEADER_OR_FOLLOWER, as Kafka's KafkaApis maps them; a
// partition the topic does not have is UNKNOWN_TOPIC_OR_PARTITION.
TEST_F(GroupTransactionTest, MarkerErrorsOfAnUnavailableCoordinator) {
  ASSERT_EQ(TxnCommit("g", kPid, 0, 10), ke::kNone);
  EXPECT_EQ(coordinator_->CompleteTransaction(3, kPid, 0, 0, true), ke::kUnknownTopicOrPartition);
  coordinator_->Shutdown();
  EXPECT_EQ(Marker("g", kPid, 0, true), ke::kNotLeaderOrFollower);
  std::vector<GroupCoordinator::CommitPartition> parts(1);
  parts[0].topic = kTopic;
  coordinator_->CommitTransactionalOffsets(kTxnVersion, "g", kPid, 0, -1, "", std::nullopt, &parts);
  EXPECT_EQ(parts[0].error_code, ke::kNotCoordinator);
}

// Consumer groups (KIP-848) check the member epoch: the member's epoch passes, a newer one is
// stale (ILLEGAL_GENERATION below v6, STALE_MEMBER_EPOCH from v6), an unknown member is
// UNKNOWN_MEMBER_ID, and no member fields at all is accepted.
TEST_F(GroupTransactionTest, ConsumerGroupChecksTheMemberEpoch) {
  ASSERT_TRUE(logs_->CreateTopic("t", 2, {}).ok());
  p::ConsumerGroupHeartbeatRequestData hb;
  hb.group_id = "cg";
  hb.member_id = "A";
  hb.member_epoch = 0;
  hb.rebalance_timeout_ms = 30000;
  hb.subscribed_topic_names = std::vector<std::string>{"t"};
  hb.topic_partitions.emplace();
  auto joined = coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, hb);
  ASSERT_EQ(joined.error_code, 0);
  const int32_t epoch = joined.member_epoch;
  ASSERT_GE(epoch, 1);
  EXPECT_EQ(TxnCommit("cg", kPid, 0, 1, 0, epoch, "A"), ke::kNone);
  EXPECT_EQ(TxnCommit("cg", kPid, 0, 1, 0, epoch + 1, "A", 5), ke::kIllegalGeneration);
  EXPECT_EQ(TxnCommit("cg", kPid, 0, 1, 0, epoch + 1, "A", 6), ke::kStaleMemberEpoch);
  EXPECT_EQ(TxnCommit("cg", kPid, 0, 1, 0, epoch, "nobody"), ke::kUnknownMemberId);
  EXPECT_EQ(TxnCommit("cg", kPid, 0, 2, 0, -1, ""), ke::kNone);
  EXPECT_TRUE(Unstable("cg"));
  ASSERT_EQ(Marker("cg", kPid, 0, true), ke::kNone);
  EXPECT_EQ(Committed("cg"), 2);
}

}  // namespace
}  // namespace seglog
