#include "share/share_partition.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace seglog {
namespace {

constexpr char kM1[] = "member-1";
constexpr char kM2[] = "member-2";
constexpr int64_t kLock = 30000;

SharePartitionConfig Config(int32_t delivery_limit = 5, int32_t max_locks = 2000) {
  SharePartitionConfig config;
  config.record_lock_duration_ms = kLock;
  config.delivery_count_limit = delivery_limit;
  config.max_record_locks = max_locks;
  return config;
}

SharePartition Load(const PersistedShareState& state,
                    const SharePartitionConfig& config = Config()) {
  Result<SharePartition> partition = SharePartition::Create(config, state);
  EXPECT_TRUE(partition.ok()) << partition.status().ToString();
  return std::move(partition).value();
}

SharePartition Fresh(int64_t start = 0, const SharePartitionConfig& config = Config()) {
  return Load(PersistedShareState{0, start, {}}, config);
}

// Acquires from the partition's next fetch offset, as the fetch path will.
ShareAcquiredRecords Acquire(SharePartition& sp, const std::string& member,
                             std::vector<FetchedBatch> batches, int64_t now = 0,
                             int32_t max_records = 500,
                             ShareAcquireMode mode = ShareAcquireMode::kBatchOptimized,
                             int32_t batch_size = 500) {
  AcquireRequest request;
  request.member_id = member;
  request.mode = mode;
  request.batch_size = batch_size;
  request.max_fetch_records = max_records;
  request.fetch_offset = sp.NextFetchOffset();
  request.batches = std::move(batches);
  return sp.Acquire(request, now);
}

AcknowledgementBatch Ack(int64_t first, int64_t last, AcknowledgeType type) {
  return {first, last, {static_cast<int8_t>(type)}};
}

ShareError Acknowledge(SharePartition& sp, const std::string& member,
                       std::vector<AcknowledgementBatch> batches, int64_t now = 0) {
  return sp.Acknowledge(member, batches, now);
}

OffsetSnapshot At(const SharePartition& sp, int64_t offset) {
  std::optional<OffsetSnapshot> state = sp.StateOf(offset);
  EXPECT_TRUE(state.has_value()) << "offset " << offset << " is not cached";
  return state.value_or(OffsetSnapshot{});
}

void ExpectStates(const SharePartition& sp, int64_t first, int64_t last, RecordState state,
                  int32_t count, const std::string& member = "") {
  Status invariants = sp.CheckInvariants();
  EXPECT_TRUE(invariants.ok()) << invariants.ToString();
  for (int64_t offset = first; offset <= last; ++offset) {
    OffsetSnapshot snapshot = At(sp, offset);
    EXPECT_EQ(snapshot.state, state) << "offset " << offset;
    EXPECT_EQ(snapshot.delivery_count, count) << "offset " << offset;
    EXPECT_EQ(snapshot.member_id, member) << "offset " << offset;
  }
}

void ExpectError(const ShareError& error, int16_t code, const std::string& message) {
  EXPECT_EQ(error.code(), code) << error.message();
  EXPECT_EQ(error.message(), message);
}

constexpr AcknowledgeType kAccept = AcknowledgeType::kAccept;
constexpr AcknowledgeType kRelease = AcknowledgeType::kRelease;
constexpr AcknowledgeType kReject = AcknowledgeType::kReject;
constexpr AcknowledgeType kGap = AcknowledgeType::kGap;
constexpr AcknowledgeType kRenew = AcknowledgeType::kRenew;

// --- acquisition -------------------------------------------------------------------------------

TEST(SharePartitionTest, AcquiresNewBatchWithLock) {
  SharePartition sp = Fresh();
  EXPECT_EQ(sp.NextFetchOffset(), 0);
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{0, 9}}, 1000);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 9, 1}}));
  EXPECT_EQ(acquired.count, 10);
  EXPECT_EQ(sp.StartOffset(), 0);
  EXPECT_EQ(sp.EndOffset(), 9);
  EXPECT_EQ(sp.NextFetchOffset(), 10);
  EXPECT_EQ(sp.InFlightRecords(), 10);
  ExpectStates(sp, 0, 9, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(At(sp, 5).lock_deadline_ms, 1000 + kLock);
  EXPECT_EQ(sp.NextLockDeadline(), 1000 + kLock);
  EXPECT_EQ(sp.CachedBatchCount(), 1u);
}

TEST(SharePartitionTest, NothingToAcquire) {
  SharePartition sp = Fresh(10);
  EXPECT_EQ(Acquire(sp, kM1, {}).count, 0);
  EXPECT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 0);          // all below the start offset
  EXPECT_EQ(Acquire(sp, kM1, {{10, 19}}, 0, 0).count, 0);  // MaxRecords 0
  EXPECT_EQ(sp.CachedBatchCount(), 0u);
  EXPECT_EQ(sp.NextFetchOffset(), 10);
}

TEST(SharePartitionTest, FetchStartingBelowStartOffsetIsClipped) {
  SharePartition sp = Fresh(10);
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{8, 12}, {13, 15}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{10, 15, 1}}));
  EXPECT_EQ(acquired.count, 6);
  EXPECT_FALSE(sp.StateOf(9).has_value());
}

TEST(SharePartitionTest, BatchOptimizedSplitsAtLogBatchBoundaries) {
  SharePartition sp = Fresh();
  ShareAcquiredRecords acquired =
      Acquire(sp, kM1, {{0, 4}, {5, 9}, {10, 14}}, 0, 500, ShareAcquireMode::kBatchOptimized, 7);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 9, 1}, {10, 14, 1}}));
  EXPECT_EQ(acquired.count, 15);
  EXPECT_EQ(sp.CachedBatchCount(), 2u);

  SharePartition exact = Fresh();
  acquired =
      Acquire(exact, kM1, {{0, 4}, {5, 9}, {10, 14}}, 0, 500, ShareAcquireMode::kBatchOptimized, 5);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 1}, {5, 9, 1}, {10, 14, 1}}));
}

TEST(SharePartitionTest, BatchOptimizedKeepsWholeLogBatchesPastMaxRecords) {
  SharePartition sp = Fresh();
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{0, 9}, {10, 19}}, 0, 5);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 9, 1}}));
  EXPECT_EQ(acquired.count, 10);
  EXPECT_EQ(sp.NextFetchOffset(), 10);
}

TEST(SharePartitionTest, RecordLimitAcquiresExactlyMaxRecords) {
  SharePartition sp = Fresh();
  ShareAcquiredRecords acquired =
      Acquire(sp, kM1, {{0, 9}, {10, 19}}, 0, 5, ShareAcquireMode::kRecordLimit);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 1}}));
  EXPECT_EQ(acquired.count, 5);
  ExpectStates(sp, 5, 9, RecordState::kAvailable, 0);
  EXPECT_EQ(sp.EndOffset(), 9);
  EXPECT_EQ(sp.NextFetchOffset(), 5);

  // The rest of the log batch goes to the next fetch, offset by offset.
  acquired = Acquire(sp, kM2, {{0, 9}, {10, 19}}, 0, 3, ShareAcquireMode::kRecordLimit);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{5, 7, 1}}));
  EXPECT_EQ(acquired.count, 3);
  ExpectStates(sp, 5, 7, RecordState::kAcquired, 1, kM2);
  EXPECT_EQ(sp.NextFetchOffset(), 8);

  acquired = Acquire(sp, kM2, {{0, 9}, {10, 19}}, 0, 500, ShareAcquireMode::kRecordLimit);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{8, 9, 1}, {10, 19, 1}}));
  EXPECT_EQ(acquired.count, 12);
}

TEST(SharePartitionTest, RecordLimitWithinWholeCachedBatch) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kRelease)}).ok());
  ShareAcquiredRecords acquired = Acquire(sp, kM2, {{0, 9}}, 0, 4, ShareAcquireMode::kRecordLimit);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 3, 2}}));
  EXPECT_EQ(acquired.count, 4);
  ExpectStates(sp, 4, 9, RecordState::kAvailable, 1);
}

TEST(SharePartitionTest, ReacquiresReleasedWholeBatchThenNewRecords) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kRelease)}).ok());
  EXPECT_EQ(sp.NextFetchOffset(), 0);
  ShareAcquiredRecords acquired = Acquire(sp, kM2, {{0, 9}, {10, 14}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 9, 2}, {10, 14, 1}}));
  EXPECT_EQ(acquired.count, 15);
  EXPECT_EQ(sp.CachedBatchCount(), 2u);
}

TEST(SharePartitionTest, ReacquiresReleasedOffsetsOfSplitBatch) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(3, 4, kRelease), Ack(7, 7, kRelease)}).ok());
  EXPECT_EQ(sp.NextFetchOffset(), 3);
  ShareAcquiredRecords acquired = Acquire(sp, kM2, {{0, 9}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{3, 4, 2}, {7, 7, 2}}));
  EXPECT_EQ(acquired.count, 3);
  ExpectStates(sp, 3, 4, RecordState::kAcquired, 2, kM2);
  ExpectStates(sp, 5, 6, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(sp.NextFetchOffset(), 10);
}

TEST(SharePartitionTest, MaxRecordLocksBoundsAcquisition) {
  SharePartition sp = Fresh(0, Config(5, 10));
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{0, 4}, {5, 9}, {10, 14}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 9, 1}}));
  EXPECT_EQ(sp.InFlightRecords(), 10);
  // At the limit nothing past the in-flight records is acquired.
  EXPECT_EQ(Acquire(sp, kM2, {{10, 14}}).count, 0);
  EXPECT_EQ(sp.EndOffset(), 9);

  // Inside the in-flight range released records are acquired again at the limit.
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(5, 9, kRelease)}).ok());
  acquired = Acquire(sp, kM2, {{5, 9}, {10, 14}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{5, 9, 2}}));
  EXPECT_EQ(sp.EndOffset(), 9);

  // Finishing records moves the start offset and frees locks.
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kAccept)}).ok());
  EXPECT_EQ(sp.StartOffset(), 5);
  acquired = Acquire(sp, kM1, {{10, 14}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{10, 14, 1}}));
}

TEST(SharePartitionTest, MaxRecordLocksPartialRoom) {
  SharePartition sp = Fresh(0, Config(5, 12));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  // Two locks left: the log batch holding offset 11 is taken whole (batch-optimized).
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{10, 14}, {15, 19}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{10, 14, 1}}));
  SharePartition limited = Fresh(0, Config(5, 12));
  ASSERT_EQ(Acquire(limited, kM1, {{0, 9}}).count, 10);
  acquired = Acquire(limited, kM1, {{10, 14}, {15, 19}}, 0, 500, ShareAcquireMode::kRecordLimit);
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{10, 11, 1}}));
}

TEST(SharePartitionTest, StaleAvailableRecordsMissingFromTheLogAreArchived) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kRelease)}).ok());
  // Compaction removed 0-4: the read from offset 0 returns the batch at 5.
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{5, 9}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{5, 9, 2}}));
  EXPECT_EQ(sp.StartOffset(), 5);
  EXPECT_FALSE(sp.StateOf(4).has_value());
}

TEST(SharePartitionTest, HoleInTheLogBetweenFetches) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  // 10-14 were compacted away: the read from 10 returns the batch at 15.
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{15, 19}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{15, 19, 1}}));
  EXPECT_EQ(sp.EndOffset(), 19);
  EXPECT_EQ(sp.InFlightRecords(), 20);
  EXPECT_FALSE(sp.StateOf(12).has_value());
  // An acknowledgement inside the hole alone is past the records before it.
  ExpectError(Acknowledge(sp, kM1, {Ack(10, 12, kAccept)}), share_error::kInvalidRequest,
              "Batch record not found. The first offset in request is past acquired records.");
  // Across it, the hole is skipped.
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(5, 17, kAccept)}).ok());
  ExpectStates(sp, 15, 17, RecordState::kAcknowledged, 1);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kAccept), Ack(18, 19, kRelease)}).ok());
  EXPECT_EQ(sp.StartOffset(), 18);
  EXPECT_EQ(sp.NextFetchOffset(), 18);
}

// --- throttling of records delivered many times --------------------------------------------------

TEST(SharePartitionTest, ThrottlesRecordsPastHalfTheDeliveryLimit) {
  SharePartition sp = Fresh(0, Config(5));
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
    ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kRelease)}).ok());
  }
  ExpectStates(sp, 0, 9, RecordState::kAvailable, 3);
  // Count 3 reached the throttle limit max(2, ceil(5/2)) = 3: half the batch per fetch.
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{0, 9}, {10, 19}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 4}}));
  acquired = Acquire(sp, kM2, {{0, 9}, {10, 19}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{5, 9, 4}}));
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRelease)}).ok());
  ASSERT_TRUE(Acknowledge(sp, kM2, {Ack(5, 9, kRelease)}).ok());
  // Count 4: the last delivery attempt goes out alone.
  acquired = Acquire(sp, kM1, {{0, 9}, {10, 19}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 0, 5}}));
  acquired = Acquire(sp, kM1, {{0, 9}, {10, 19}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{1, 1, 5}}));
}

TEST(SharePartitionTest, ThrottledBatchAfterOthersEndsTheFetch) {
  SharePartition sp = Fresh(0, Config(5));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_EQ(Acquire(sp, kM1, {{5, 9}}).count, 5);
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(5, 9, kRelease)}).ok());
    ASSERT_EQ(Acquire(sp, kM1, {{5, 9}}).count, 5);
  }
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kRelease)}).ok());
  ExpectStates(sp, 0, 4, RecordState::kAvailable, 1);
  ExpectStates(sp, 5, 9, RecordState::kAvailable, 3);
  ShareAcquiredRecords acquired = Acquire(sp, kM2, {{0, 4}, {5, 9}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 2}}));
}

// --- acknowledgement -----------------------------------------------------------------------------

TEST(SharePartitionTest, AcceptWholeBatchMovesStartOffset) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kAccept)}).ok());
  EXPECT_EQ(sp.StartOffset(), 10);
  EXPECT_EQ(sp.EndOffset(), 10);
  EXPECT_EQ(sp.NextFetchOffset(), 10);
  EXPECT_EQ(sp.CachedBatchCount(), 0u);
  EXPECT_EQ(sp.InFlightRecords(), 0);
  EXPECT_FALSE(sp.NextLockDeadline().has_value());
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{10, 12}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{10, 12, 1}}));
}

TEST(SharePartitionTest, RejectWholeBatchArchives) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_EQ(Acquire(sp, kM1, {{5, 9}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(5, 9, kReject)}).ok());
  ExpectStates(sp, 5, 9, RecordState::kArchived, 1);
  EXPECT_EQ(sp.StartOffset(), 0);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kReject)}).ok());
  EXPECT_EQ(sp.StartOffset(), 10);
}

TEST(SharePartitionTest, OneTypePerOffset) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  AcknowledgementBatch batch{0, 4, {1, 2, 3, 0, 1}};
  ASSERT_TRUE(sp.Acknowledge(kM1, {&batch, 1}, 0).ok());
  EXPECT_EQ(sp.StartOffset(), 1);
  ExpectStates(sp, 1, 1, RecordState::kAvailable, 1);
  ExpectStates(sp, 2, 3, RecordState::kArchived, 1);
  ExpectStates(sp, 4, 4, RecordState::kAcknowledged, 1);
  EXPECT_EQ(sp.NextFetchOffset(), 1);
}

TEST(SharePartitionTest, SubsetOfBatchSplitsIt) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(3, 5, kAccept)}).ok());
  ExpectStates(sp, 0, 2, RecordState::kAcquired, 1, kM1);
  ExpectStates(sp, 3, 5, RecordState::kAcknowledged, 1);
  ExpectStates(sp, 6, 9, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(sp.StartOffset(), 0);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 2, kAccept)}).ok());
  EXPECT_EQ(sp.StartOffset(), 6);
  EXPECT_FALSE(sp.StateOf(5).has_value());
}

TEST(SharePartitionTest, AcknowledgementAcrossBatches) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_EQ(Acquire(sp, kM1, {{5, 9}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(2, 7, kAccept)}).ok());
  ExpectStates(sp, 0, 1, RecordState::kAcquired, 1, kM1);
  ExpectStates(sp, 2, 7, RecordState::kAcknowledged, 1);
  ExpectStates(sp, 8, 9, RecordState::kAcquired, 1, kM1);
}

TEST(SharePartitionTest, GapsFinishOffsetsAbsentFromTheLog) {
  SharePartition sp = Fresh();
  // Offsets 3 and 4 were compacted away (or are transaction markers).
  ASSERT_EQ(Acquire(sp, kM1, {{0, 2}, {5, 9}}).count, 10);
  AcknowledgementBatch batch{0, 5, {1, 1, 1, 0, 0, 1}};
  ASSERT_TRUE(sp.Acknowledge(kM1, {&batch, 1}, 0).ok());
  EXPECT_EQ(sp.StartOffset(), 6);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(6, 9, kGap)}).ok());
  EXPECT_EQ(sp.StartOffset(), 10);
}

TEST(SharePartitionTest, GapArchives) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(2, 3, kGap)}).ok());
  ExpectStates(sp, 2, 3, RecordState::kArchived, 1);
}

TEST(SharePartitionTest, ReleaseRedeliversWithTheCount) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRelease)}).ok());
  ExpectStates(sp, 0, 4, RecordState::kAvailable, 1);
  EXPECT_FALSE(sp.NextLockDeadline().has_value());
  EXPECT_EQ(sp.NextFetchOffset(), 0);
  ShareAcquiredRecords acquired = Acquire(sp, kM2, {{0, 4}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 2}}));
}

TEST(SharePartitionTest, ReleaseAtDeliveryLimitArchives) {
  SharePartition sp = Fresh(0, Config(2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRelease)}).ok());
  ExpectStates(sp, 0, 4, RecordState::kAvailable, 1);
  ShareAcquiredRecords acquired = Acquire(sp, kM1, {{0, 4}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 2}}));
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRelease)}).ok());
  EXPECT_EQ(sp.StartOffset(), 5);  // archived, so finished
  EXPECT_EQ(sp.CachedBatchCount(), 0u);
  EXPECT_EQ(sp.NextFetchOffset(), 5);
}

TEST(SharePartitionTest, ReleasePerOffsetAtDeliveryLimit) {
  SharePartition sp = Fresh(0, Config(2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(1, 1, kRelease)}).ok());
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 1);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 2, kRelease)}).ok());
  ExpectStates(sp, 0, 0, RecordState::kAvailable, 1);
  ExpectStates(sp, 1, 1, RecordState::kArchived, 2);
  ExpectStates(sp, 2, 2, RecordState::kAvailable, 1);
}

TEST(SharePartitionTest, AcknowledgementBelowStartOffsetIsIgnored) {
  SharePartition sp = Fresh(10);
  ASSERT_EQ(Acquire(sp, kM1, {{10, 19}}).count, 10);
  EXPECT_TRUE(Acknowledge(sp, kM1, {Ack(0, 5, kAccept)}).ok());
  EXPECT_TRUE(Acknowledge(sp, kM1, {Ack(5, 12, kAccept)}).ok());
  EXPECT_EQ(sp.StartOffset(), 13);
  ExpectStates(sp, 13, 19, RecordState::kAcquired, 1, kM1);
}

// --- acknowledgement errors: Kafka's codes and messages, nothing changed
// --------------------------

class SharePartitionErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(Acquire(sp_, kM1, {{0, 4}}).count, 5);
    ASSERT_EQ(Acquire(sp_, kM1, {{5, 9}}).count, 5);
    ASSERT_TRUE(Acknowledge(sp_, kM1, {Ack(7, 7, kAccept)}).ok());  // 5-9 split
    before_ = sp_.PersistableState();
    deadline_ = sp_.NextLockDeadline();
  }
  // Nothing changed: same states, same owners, same locks.
  void ExpectUnchanged() {
    EXPECT_EQ(sp_.PersistableState(), before_);
    EXPECT_EQ(sp_.NextLockDeadline(), deadline_);
    ExpectStates(sp_, 0, 6, RecordState::kAcquired, 1, kM1);
    ExpectStates(sp_, 7, 7, RecordState::kAcknowledged, 1);
    ExpectStates(sp_, 8, 9, RecordState::kAcquired, 1, kM1);
    EXPECT_EQ(sp_.StartOffset(), 0);
    EXPECT_EQ(sp_.CachedBatchCount(), 2u);
  }

  SharePartition sp_ = Fresh();
  PersistedShareState before_;
  std::optional<int64_t> deadline_;
};

TEST_F(SharePartitionErrorTest, OtherMemberOnWholeBatch) {
  ExpectError(Acknowledge(sp_, kM2, {Ack(0, 4, kAccept)}), share_error::kInvalidRecordState,
              "Member is not the owner of batch record");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, OtherMemberOnOffsets) {
  ExpectError(Acknowledge(sp_, kM2, {Ack(8, 9, kAccept)}), share_error::kInvalidRecordState,
              "Member is not the owner of offset");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, OffsetNotAcquired) {
  ExpectError(Acknowledge(sp_, kM1, {Ack(6, 8, kAccept)}), share_error::kInvalidRecordState,
              "The offset cannot be acknowledged. The offset is not acquired.");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, WholeBatchNotAcquired) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRelease)}).ok());
  ExpectError(Acknowledge(sp, kM1, {Ack(0, 4, kAccept)}), share_error::kInvalidRecordState,
              "The batch cannot be acknowledged. The batch is not in the acquired state.");
  ExpectError(Acknowledge(sp, kM1, {Ack(1, 2, kAccept)}), share_error::kInvalidRecordState,
              "The batch cannot be acknowledged. The batch is not in the acquired state.");
  ExpectStates(sp, 0, 4, RecordState::kAvailable, 1);
  EXPECT_EQ(sp.CachedBatchCount(), 1u);
}

TEST_F(SharePartitionErrorTest, FirstOffsetPastAcquiredRecords) {
  ExpectError(Acknowledge(sp_, kM1, {Ack(20, 25, kAccept)}), share_error::kInvalidRequest,
              "Batch record not found. The first offset in request is past acquired records.");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, LastOffsetPastAcquiredRecords) {
  ExpectError(Acknowledge(sp_, kM1, {Ack(8, 12, kAccept)}), share_error::kInvalidRequest,
              "Batch record not found. The last offset in request is past acquired records.");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, NothingCached) {
  SharePartition sp = Fresh(5);
  ExpectError(Acknowledge(sp, kM1, {Ack(5, 9, kAccept)}), share_error::kInvalidRecordState,
              "Batch record not found. The request batch offsets are not found in the cache.");
  ExpectError(Acknowledge(sp, kM1, {Ack(0, 9, kAccept)}), share_error::kInvalidRecordState,
              "Batch record not found. The request batch offsets are not found in the cache.");
}

TEST_F(SharePartitionErrorTest, InvalidAcknowledgeType) {
  ExpectError(Acknowledge(sp_, kM1, {{0, 4, {5}}}), share_error::kInvalidRequest,
              "Invalid acknowledge type: [5]");
  ExpectError(Acknowledge(sp_, kM1, {{0, 4, {1, 1, -1, 1, 1}}}), share_error::kInvalidRequest,
              "Invalid acknowledge type: [1, 1, -1, 1, 1]");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, BadRanges) {
  EXPECT_EQ(Acknowledge(sp_, kM1, {{4, 3, {1}}}).code(), share_error::kInvalidRequest);
  EXPECT_EQ(Acknowledge(sp_, kM1, {{0, 4, {}}}).code(), share_error::kInvalidRequest);
  EXPECT_EQ(Acknowledge(sp_, kM1, {{0, 4, {1, 1}}}).code(), share_error::kInvalidRequest);
  // A bad batch anywhere in the request: nothing of it is applied.
  EXPECT_EQ(Acknowledge(sp_, kM1, {Ack(0, 4, kAccept), {9, 8, {1}}}).code(),
            share_error::kInvalidRequest);
  ExpectUnchanged();
}

// Below the start offset is finished already: Kafka skips such a batch (no error, no change),
// and a first offset of -1 (KafkaApis lets it through) acknowledges from the start offset on.
TEST_F(SharePartitionErrorTest, BelowTheStartOffset) {
  SharePartition sp = Fresh(5);
  ASSERT_EQ(Acquire(sp, kM1, {{5, 9}}).count, 5);
  const PersistedShareState before = sp.PersistableState();
  EXPECT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kAccept)}).ok());
  EXPECT_TRUE(Acknowledge(sp, kM2, {Ack(-1, 4, kReject)}).ok());
  EXPECT_EQ(sp.PersistableState(), before);
  ExpectStates(sp, 5, 9, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(sp.StartOffset(), 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(-1, 6, kAccept)}).ok());
  EXPECT_EQ(sp.StartOffset(), 7);
  ExpectStates(sp, 7, 9, RecordState::kAcquired, 1, kM1);
}

TEST_F(SharePartitionErrorTest, LaterBatchFailsEarlierRolledBack) {
  ExpectError(Acknowledge(sp_, kM1,
                          {Ack(0, 4, kAccept), Ack(5, 6, kRelease), Ack(9, 9, kReject),
                           Ack(20, 21, kAccept)}),
              share_error::kInvalidRequest,
              "Batch record not found. The first offset in request is past acquired records.");
  ExpectUnchanged();
  ExpectError(Acknowledge(sp_, kM1, {Ack(1, 2, kAccept), Ack(8, 9, kAccept), Ack(9, 9, kReject)}),
              share_error::kInvalidRecordState,
              "The offset cannot be acknowledged. The offset is not acquired.");
  ExpectUnchanged();
  // The same whole batch twice: the second finds it no longer acquired.
  ExpectError(Acknowledge(sp_, kM1, {Ack(0, 4, kRelease), Ack(0, 4, kAccept)}),
              share_error::kInvalidRecordState,
              "The batch cannot be acknowledged. The batch is not in the acquired state.");
  ExpectUnchanged();
}

TEST_F(SharePartitionErrorTest, RenewDisabled) {
  SharePartitionConfig config = Config();
  config.renew_acknowledge_enabled = false;
  SharePartition sp = Fresh(0, config);
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ExpectError(Acknowledge(sp, kM1, {Ack(0, 4, kRenew)}, 100), share_error::kInvalidRecordState,
              "Renewing acquisition locks is not enabled for the group.");
  ExpectError(Acknowledge(sp, kM1, {{0, 4, {1, 1, 4, 1, 1}}}, 100),
              share_error::kInvalidRecordState,
              "Renewing acquisition locks is not enabled for the group.");
  ExpectStates(sp, 0, 4, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(sp.NextLockDeadline(), kLock);
}

// --- renew, lock expiry, session release
// ----------------------------------------------------------

TEST(SharePartitionTest, RenewRestartsTheLock) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}, 0).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRenew)}, 20000).ok());
  ExpectStates(sp, 0, 4, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(sp.NextLockDeadline(), 20000 + kLock);
  EXPECT_EQ(sp.ExpireLocks(kLock).released, 0);
  ReleaseResult expired = sp.ExpireLocks(20000 + kLock);
  EXPECT_EQ(expired.released, 5);
  EXPECT_TRUE(expired.became_available);
}

TEST(SharePartitionTest, RenewSomeOffsets) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}, 0).count, 5);
  AcknowledgementBatch batch{0, 2, {4, 1, 4}};
  ASSERT_TRUE(sp.Acknowledge(kM1, {&batch, 1}, 1000).ok());
  EXPECT_EQ(At(sp, 0).lock_deadline_ms, 1000 + kLock);
  ExpectStates(sp, 1, 1, RecordState::kAcknowledged, 1);
  EXPECT_EQ(At(sp, 2).lock_deadline_ms, 1000 + kLock);
  EXPECT_EQ(At(sp, 3).lock_deadline_ms, kLock);
  EXPECT_EQ(sp.NextLockDeadline(), kLock);
  EXPECT_EQ(sp.ExpireLocks(kLock).released, 2);  // 3 and 4
  ExpectStates(sp, 3, 4, RecordState::kAvailable, 1);
  EXPECT_EQ(sp.NextLockDeadline(), 1000 + kLock);
}

TEST(SharePartitionTest, LockExpiryReleases) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}, 1000).count, 5);
  ASSERT_EQ(Acquire(sp, kM2, {{5, 9}}, 2000).count, 5);
  EXPECT_EQ(sp.NextLockDeadline(), 1000 + kLock);
  ReleaseResult nothing = sp.ExpireLocks(1000 + kLock - 1);
  EXPECT_EQ(nothing.released, 0);
  EXPECT_FALSE(nothing.became_available);
  ReleaseResult expired = sp.ExpireLocks(1000 + kLock);
  EXPECT_EQ(expired.released, 5);
  EXPECT_TRUE(expired.became_available);
  ExpectStates(sp, 0, 4, RecordState::kAvailable, 1);
  ExpectStates(sp, 5, 9, RecordState::kAcquired, 1, kM2);
  EXPECT_EQ(sp.NextLockDeadline(), 2000 + kLock);
  EXPECT_EQ(sp.NextFetchOffset(), 0);
  // The member whose lock expired can no longer acknowledge.
  ExpectError(Acknowledge(sp, kM1, {Ack(0, 4, kAccept)}), share_error::kInvalidRecordState,
              "The batch cannot be acknowledged. The batch is not in the acquired state.");
}

TEST(SharePartitionTest, LockExpiryAtDeliveryLimitArchives) {
  SharePartition sp = Fresh(0, Config(2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}, 0).count, 5);
  ASSERT_EQ(sp.ExpireLocks(kLock).released, 5);
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}, kLock).count, 5);
  ReleaseResult expired = sp.ExpireLocks(2 * kLock);
  EXPECT_EQ(expired.released, 5);
  EXPECT_FALSE(expired.became_available);
  EXPECT_EQ(sp.StartOffset(), 5);
  EXPECT_EQ(sp.CachedBatchCount(), 0u);
}

TEST(SharePartitionTest, LockExpiryPerOffset) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}, 0).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(2, 3, kRelease)}).ok());
  ASSERT_EQ(Acquire(sp, kM2, {{0, 9}}, 5000).count, 2);
  EXPECT_EQ(sp.ExpireLocks(kLock).released, 8);
  ExpectStates(sp, 2, 3, RecordState::kAcquired, 2, kM2);
  ExpectStates(sp, 4, 9, RecordState::kAvailable, 1);
  EXPECT_EQ(sp.NextLockDeadline(), 5000 + kLock);
}

TEST(SharePartitionTest, ReleaseMemberKeepsCountsAndOthers) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_EQ(Acquire(sp, kM2, {{5, 9}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM2, {Ack(6, 6, kAccept)}).ok());
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 0, kAccept)}).ok());
  ReleaseResult released = sp.ReleaseMember(kM1);
  EXPECT_EQ(released.released, 4);
  EXPECT_TRUE(released.became_available);
  // Kafka 4.4.0 releases a closed session's records with DeliveryCountOps.NO_OP.
  ExpectStates(sp, 1, 4, RecordState::kAvailable, 1);
  ExpectStates(sp, 5, 5, RecordState::kAcquired, 1, kM2);
  ExpectStates(sp, 7, 9, RecordState::kAcquired, 1, kM2);
  EXPECT_EQ(sp.StartOffset(), 1);
  EXPECT_EQ(sp.NextFetchOffset(), 1);
  EXPECT_EQ(sp.ReleaseMember(kM1).released, 0);
  EXPECT_EQ(sp.ReleaseMember("nobody").released, 0);
  released = sp.ReleaseMember(kM2);
  EXPECT_EQ(released.released, 4);
  ExpectStates(sp, 5, 5, RecordState::kAvailable, 1);
}

TEST(SharePartitionTest, ReleaseMemberAtDeliveryLimitArchives) {
  SharePartition sp = Fresh(0, Config(2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_EQ(sp.ReleaseMember(kM1).released, 5);
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ReleaseResult released = sp.ReleaseMember(kM1);
  EXPECT_EQ(released.released, 5);
  EXPECT_FALSE(released.became_available);
  EXPECT_EQ(sp.StartOffset(), 5);
}

// --- start offset and the log start
// ---------------------------------------------------------------

TEST(SharePartitionTest, UpdateLogStartDropsOffsetsBelow) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  sp.UpdateLogStart(5);
  EXPECT_EQ(sp.StartOffset(), 5);
  EXPECT_FALSE(sp.StateOf(4).has_value());
  ExpectStates(sp, 5, 9, RecordState::kAcquired, 1, kM1);
  EXPECT_EQ(sp.InFlightRecords(), 5);
  EXPECT_TRUE(Acknowledge(sp, kM1, {Ack(0, 9, kAccept)}).ok());
  EXPECT_EQ(sp.StartOffset(), 10);
  sp.UpdateLogStart(3);  // not above the start offset: nothing
  EXPECT_EQ(sp.StartOffset(), 10);
}

TEST(SharePartitionTest, UpdateLogStartPastEverything) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  sp.UpdateLogStart(20);
  EXPECT_EQ(sp.StartOffset(), 20);
  EXPECT_EQ(sp.EndOffset(), 20);
  EXPECT_EQ(sp.NextFetchOffset(), 20);
  EXPECT_EQ(sp.CachedBatchCount(), 0u);
  EXPECT_FALSE(sp.NextLockDeadline().has_value());
  SharePartition empty = Fresh();
  empty.UpdateLogStart(7);
  EXPECT_EQ(empty.NextFetchOffset(), 7);
}

TEST(SharePartitionTest, UpdateLogStartInsideSplitBatchThenFinishedPrefix) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(4, 6, kAccept)}).ok());
  sp.UpdateLogStart(4);
  EXPECT_EQ(sp.StartOffset(), 7);  // 4-6 were finished too
  ExpectStates(sp, 7, 9, RecordState::kAcquired, 1, kM1);
}

// --- size ----------------------------------------------------------------------------------------

TEST(SharePartitionTest, TwoThousandLocksOffsetByOffset) {
  // The default in-flight limit, as single-record batches acknowledged out of order one by one.
  SharePartition sp = Fresh();
  std::vector<FetchedBatch> log;
  for (int64_t offset = 0; offset < 2100; ++offset) log.push_back({offset, offset});
  int32_t acquired = 0;
  for (int round = 0; round < 30 && acquired < 2000; ++round) {
    std::vector<FetchedBatch> read(log.begin() + sp.NextFetchOffset(), log.end());
    acquired += Acquire(sp, kM1, read, 0, 100, ShareAcquireMode::kBatchOptimized, 1).count;
  }
  EXPECT_EQ(acquired, 2000);
  EXPECT_EQ(sp.CachedBatchCount(), 2000u);
  EXPECT_EQ(Acquire(sp, kM1, {{2000, 2000}}).count, 0);  // at the limit
  for (int64_t i = 0; i < 2000; ++i) {
    int64_t offset = (i * 7919) % 2000;  // every offset once, out of order
    ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(offset, offset, kAccept)}).ok()) << offset;
  }
  EXPECT_EQ(sp.StartOffset(), 2000);
  EXPECT_EQ(sp.CachedBatchCount(), 0u);
}

TEST(SharePartitionTest, TwoThousandLocksInOneBatch) {
  SharePartition sp = Fresh();
  const std::string member(22, 'm');  // as long as a Kafka member id: no small-string storage
  ASSERT_EQ(Acquire(sp, member, {{0, 1999}}).count, 2000);
  for (int64_t i = 0; i < 2000; ++i) {
    int64_t offset = (i * 7919) % 2000;
    ASSERT_TRUE(Acknowledge(sp, member, {Ack(offset, offset, i % 2 ? kAccept : kReject)}).ok());
  }
  EXPECT_EQ(sp.StartOffset(), 2000);
}

// --- persisted state and restart
// ------------------------------------------------------------------

TEST(SharePartitionTest, LoadsPersistedState) {
  PersistedShareState state{3,
                            5,
                            {{5, 9, RecordState::kAvailable, 2},
                             {10, 14, RecordState::kAcknowledged, 1},
                             {20, 24, RecordState::kArchived, 1}}};
  SharePartition sp = Load(state);
  EXPECT_EQ(sp.StateEpoch(), 3);
  EXPECT_EQ(sp.StartOffset(), 5);
  EXPECT_EQ(sp.EndOffset(), 24);
  EXPECT_EQ(sp.NextFetchOffset(), 5);
  ExpectStates(sp, 15, 19, RecordState::kAvailable, 0);  // the gap was never delivered
  EXPECT_EQ(sp.PersistableState(), state);

  ShareAcquiredRecords acquired =
      Acquire(sp, kM1, {{5, 9}, {10, 14}, {15, 19}, {20, 24}, {25, 29}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{5, 9, 3}, {15, 19, 1}, {25, 29, 1}}));
  EXPECT_EQ(acquired.count, 15);
}

TEST(SharePartitionTest, LoadTrimsAndAdvances) {
  SharePartition sp = Load({0,
                            10,
                            {{0, 12, RecordState::kAcknowledged, 1},
                             {13, 14, RecordState::kArchived, 5},
                             {15, 19, RecordState::kAvailable, 1}}});
  EXPECT_EQ(sp.StartOffset(), 15);
  EXPECT_EQ(sp.PersistableState(),
            (PersistedShareState{0, 15, {{15, 19, RecordState::kAvailable, 1}}}));
  SharePartition done = Load({0, 0, {{0, 9, RecordState::kAcknowledged, 1}}});
  EXPECT_EQ(done.StartOffset(), 10);
  EXPECT_EQ(done.NextFetchOffset(), 10);
  EXPECT_EQ(done.CachedBatchCount(), 0u);
  SharePartition gap_first = Load({0, 0, {{5, 9, RecordState::kAcknowledged, 1}}});
  EXPECT_EQ(gap_first.StartOffset(), 0);
  EXPECT_EQ(gap_first.NextFetchOffset(), 0);
  ExpectStates(gap_first, 0, 4, RecordState::kAvailable, 0);
}

TEST(SharePartitionTest, RefusesBadPersistedState) {
  auto create = [](PersistedShareState state) {
    return SharePartition::Create(Config(), state).status().code();
  };
  EXPECT_EQ(create({0, -1, {}}), Status::Code::kInvalidArgument);
  EXPECT_EQ(create({0, 0, {{5, 4, RecordState::kAvailable, 1}}}), Status::Code::kInvalidArgument);
  EXPECT_EQ(create({0, 0, {{0, 4, RecordState::kAvailable, 1}, {4, 6, RecordState::kArchived, 1}}}),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(create({0, 0, {{5, 6, RecordState::kAvailable, 1}, {0, 1, RecordState::kArchived, 1}}}),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(create({0, 0, {{0, 4, RecordState::kAcquired, 1}}}), Status::Code::kInvalidArgument);
  EXPECT_EQ(create({0, 0, {{0, 4, RecordState::kAvailable, -1}}}), Status::Code::kInvalidArgument);
}

TEST(SharePartitionTest, RestartMidAcquireComesBackAvailableWithPersistedCounts) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 4, kRelease)}).ok());
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(9, 9, kAccept)}).ok());
  ASSERT_EQ(Acquire(sp, kM2, {{0, 9}}).count, 5);  // 0-4 for the second time
  PersistedShareState persisted = sp.PersistableState();
  // Acquisitions are never written: 0-4 as after the release, 5-8 as never delivered.
  EXPECT_EQ(
      persisted,
      (PersistedShareState{
          0, 0, {{0, 4, RecordState::kAvailable, 1}, {9, 9, RecordState::kAcknowledged, 1}}}));

  SharePartition restarted = Load(persisted);
  ExpectStates(restarted, 0, 4, RecordState::kAvailable, 1);
  ExpectStates(restarted, 5, 8, RecordState::kAvailable, 0);
  EXPECT_EQ(restarted.NextFetchOffset(), 0);
  ShareAcquiredRecords acquired = Acquire(restarted, kM1, {{0, 9}, {10, 12}});
  EXPECT_EQ(acquired.records, (std::vector<AcquiredRecords>{{0, 4, 2}, {5, 8, 1}, {10, 12, 1}}));
}

TEST(SharePartitionTest, PersistableStateMergesRuns) {
  SharePartition sp = Fresh();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 4}}).count, 5);
  ASSERT_EQ(Acquire(sp, kM1, {{5, 9}}).count, 5);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(1, 7, kAccept)}).ok());
  EXPECT_EQ(sp.PersistableState(),
            (PersistedShareState{0, 0, {{1, 7, RecordState::kAcknowledged, 1}}}));
}

// --- dead-letter queue hand-off (KIP-1191) ---------------------------------------------------

std::vector<DlqArchive> Take(SharePartition& sp) { return sp.TakeDlqArchives(); }

SharePartition WithDlq(const SharePartitionConfig& config = Config()) {
  SharePartition sp = Fresh(0, config);
  sp.SetDeadLetterQueue(true);
  return sp;
}

TEST(SharePartitionDlqTest, WithoutADlqRejectAndLimitArchiveAtOnce) {
  SharePartition sp = Fresh(0, Config(/*delivery_limit=*/2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 3}}).count, 4);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 1, kReject), Ack(2, 3, kRelease)}).ok());
  ASSERT_EQ(Acquire(sp, kM1, {{2, 3}}).count, 2);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(2, 3, kRelease)}).ok());
  EXPECT_TRUE(Take(sp).empty());
  EXPECT_EQ(sp.StartOffset(), 4);  // all ARCHIVED
}

TEST(SharePartitionDlqTest, RejectGoesArchivingUntilItsWriteEnds) {
  SharePartition sp = WithDlq();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  EXPECT_TRUE(Take(sp).empty());
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 2, kReject), Ack(3, 4, kAccept)}).ok());
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{0, 2, 1, DlqCause::kClientReject}}));
  EXPECT_TRUE(Take(sp).empty());  // taken once
  ExpectStates(sp, 0, 2, RecordState::kArchiving, 1);
  EXPECT_EQ(sp.StartOffset(), 0);  // ARCHIVING is not finished
  // Persisted as 3, not counted as complete.
  PersistedShareState persisted = sp.PersistableState();
  ASSERT_FALSE(persisted.batches.empty());
  EXPECT_EQ(persisted.batches[0], (PersistedStateBatch{0, 2, RecordState::kArchiving, 1}));
  // Neither acknowledged again nor acquired again.
  EXPECT_FALSE(Acknowledge(sp, kM1, {Ack(1, 1, kAccept)}).ok());
  EXPECT_EQ(sp.NextFetchOffset(), 10);
  EXPECT_TRUE(sp.CompleteArchiving(0, 2));
  EXPECT_FALSE(sp.CompleteArchiving(0, 2));
  EXPECT_EQ(sp.StartOffset(), 5);
  EXPECT_TRUE(sp.CheckInvariants().ok());
}

TEST(SharePartitionDlqTest, PerOffsetTypesListOnlyRejectedOffsetsMerged) {
  SharePartition sp = WithDlq();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 5}}).count, 6);
  const auto R = static_cast<int8_t>(kReject);
  const auto A = static_cast<int8_t>(kAccept);
  const auto G = static_cast<int8_t>(kGap);
  std::vector<AcknowledgementBatch> acks{{0, 5, {R, R, A, G, R, R}}};
  ASSERT_TRUE(sp.Acknowledge(kM1, acks, 0).ok());
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{0, 1, 1, DlqCause::kClientReject},
                                               {4, 5, 1, DlqCause::kClientReject}}));
  // A completion of part of a range: offset 0 finished, 1 still ARCHIVING.
  EXPECT_TRUE(sp.CompleteArchiving(0, 0));
  EXPECT_EQ(sp.StartOffset(), 1);
  EXPECT_TRUE(sp.CompleteArchiving(1, 5));
  EXPECT_EQ(sp.StartOffset(), 6);
}

TEST(SharePartitionDlqTest, GapAndRefusedAcknowledgementsListNothing) {
  SharePartition sp = WithDlq();
  ASSERT_EQ(Acquire(sp, kM1, {{0, 9}}).count, 10);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 1, kGap)}).ok());
  EXPECT_TRUE(Take(sp).empty());
  // Another member's records, or a later batch past the cache: refused, the Reject undone.
  EXPECT_FALSE(Acknowledge(sp, kM2, {Ack(2, 3, kReject)}).ok());
  EXPECT_FALSE(Acknowledge(sp, kM1, {Ack(2, 3, kReject), Ack(20, 21, kReject)}).ok());
  EXPECT_TRUE(Take(sp).empty());
  ExpectStates(sp, 2, 3, RecordState::kAcquired, 1, kM1);
}

TEST(SharePartitionDlqTest, ReleaseAtTheLimitListsDeliveryCountExceeded) {
  SharePartition sp = WithDlq(Config(/*delivery_limit=*/2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 3}}).count, 4);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 3, kRelease)}).ok());
  EXPECT_TRUE(Take(sp).empty());  // count 1 < 2: AVAILABLE again
  ASSERT_EQ(Acquire(sp, kM1, {{0, 3}}).count, 4);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 3, kRelease)}).ok());
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{0, 3, 2, DlqCause::kDeliveryCountExceeded}}));
  ExpectStates(sp, 0, 3, RecordState::kArchiving, 2);
  EXPECT_TRUE(sp.CompleteArchiving(0, 3));
  EXPECT_EQ(sp.StartOffset(), 4);
}

TEST(SharePartitionDlqTest, RejectAtTheLimitIsStillAClientReject) {
  SharePartition sp = WithDlq(Config(/*delivery_limit=*/2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 0}}).count, 1);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 0, kRelease)}).ok());
  ASSERT_EQ(Acquire(sp, kM1, {{0, 0}}).count, 1);
  ASSERT_TRUE(Acknowledge(sp, kM1, {Ack(0, 0, kReject)}).ok());
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{0, 0, 2, DlqCause::kClientReject}}));
}

TEST(SharePartitionDlqTest, LockExpiryAndMemberReleaseAtTheLimit) {
  SharePartition sp = WithDlq(Config(/*delivery_limit=*/2));
  ASSERT_EQ(Acquire(sp, kM1, {{0, 1}}, 0).count, 2);
  EXPECT_EQ(sp.ExpireLocks(kLock).released, 2);
  EXPECT_TRUE(Take(sp).empty());
  ASSERT_EQ(Acquire(sp, kM1, {{0, 1}}, kLock).count, 2);
  EXPECT_EQ(sp.ExpireLocks(2 * kLock).released, 2);
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{0, 1, 2, DlqCause::kDeliveryCountExceeded}}));
  // A member's release at the limit, for a split batch: offset by offset, merged.
  ASSERT_EQ(Acquire(sp, kM2, {{2, 5}}, 0).count, 4);
  ASSERT_TRUE(Acknowledge(sp, kM2, {Ack(2, 5, kRelease)}).ok());
  ASSERT_EQ(Acquire(sp, kM2, {{2, 5}}, 0).count, 4);
  ASSERT_TRUE(Acknowledge(sp, kM2, {Ack(3, 3, kAccept)}).ok());
  sp.ReleaseMember(kM2);
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{2, 2, 2, DlqCause::kDeliveryCountExceeded},
                                               {4, 5, 2, DlqCause::kDeliveryCountExceeded}}));
  EXPECT_TRUE(sp.CheckInvariants().ok());
}

TEST(SharePartitionDlqTest, ArchivingStateLoadsArchivingAndListed) {
  SharePartitionConfig config = Config(/*delivery_limit=*/3);
  SharePartition sp = Load({0,
                            0,
                            {{0, 1, RecordState::kArchiving, 3},
                             {2, 2, RecordState::kArchiving, 1},
                             {3, 4, RecordState::kAvailable, 1}}},
                           config);
  ExpectStates(sp, 0, 1, RecordState::kArchiving, 3);
  ExpectStates(sp, 3, 4, RecordState::kAvailable, 1);
  EXPECT_EQ(sp.StartOffset(), 0);
  EXPECT_EQ(sp.NextFetchOffset(), 3);
  EXPECT_EQ(Take(sp), (std::vector<DlqArchive>{{0, 1, 3, DlqCause::kDeliveryCountExceeded},
                                               {2, 2, 1, DlqCause::kClientReject}}));
  EXPECT_TRUE(sp.CompleteArchiving(0, 2));
  EXPECT_EQ(sp.StartOffset(), 3);
}

}  // namespace
}  // namespace seglog
