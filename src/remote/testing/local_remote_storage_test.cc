// LocalRemoteStorage: real rolled segments copied into a directory and fetched back byte for
// byte, the interface's contract (NotFound, Corruption, OutOfRange, idempotent delete, no
// overwrite), and the fault injection hooks the remote tests rely on.
#include "remote/testing/local_remote_storage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "remote/testing/tiered_segments.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileBytes;
using testing::TempDir;
using testing::TieredSegment;

class LocalRemoteStorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TieredLogSpec spec;
    spec.abort_every = 7;
    auto segments = testing::WriteTieredLog(tmp_.path() + "/orders-0", spec);
    ASSERT_TRUE(segments.ok()) << segments.status().ToString();
    segments_ = std::move(*segments);
    ASSERT_GE(segments_.size(), 3u);
    ASSERT_TRUE(testing::CopyAll(&store_, &segments_).ok());
  }
  const RemoteLogSegmentMetadata& m(size_t i) const { return segments_[i].metadata; }

  TempDir tmp_;
  LocalRemoteStorage store_{tmp_.path() + "/remote"};
  std::vector<TieredSegment> segments_;
};

TEST_F(LocalRemoteStorageTest, FetchesBackWhatWasCopiedByteForByte) {
  int with_txn = 0;
  for (const TieredSegment& s : segments_) {
    ASSERT_TRUE(s.metadata.custom_metadata.has_value());
    EXPECT_TRUE(std::filesystem::exists(store_.ObjectPath(s.metadata, RemoteObjectKind::kLog)));
    auto offset = store_.FetchIndex(s.metadata, IndexType::kOffset);
    ASSERT_TRUE(offset.ok()) << offset.status().ToString();
    EXPECT_EQ(*offset, ReadFileBytes(s.data.offset_index));
    auto time = store_.FetchIndex(s.metadata, IndexType::kTimestamp);
    ASSERT_TRUE(time.ok()) << time.status().ToString();
    EXPECT_EQ(*time, ReadFileBytes(s.data.time_index));
    auto epochs = store_.FetchIndex(s.metadata, IndexType::kLeaderEpoch);
    ASSERT_TRUE(epochs.ok());
    EXPECT_EQ(*epochs, s.data.leader_epoch_index);
    auto txn = store_.FetchIndex(s.metadata, IndexType::kTransaction);
    if (s.data.transaction_index.has_value()) {
      ++with_txn;
      ASSERT_TRUE(txn.ok()) << txn.status().ToString();
      EXPECT_EQ(*txn, ReadFileBytes(*s.data.transaction_index));
    } else {
      EXPECT_TRUE(txn.status().IsNotFound()) << txn.status().ToString();
    }
    const std::vector<uint8_t> log = ReadFileBytes(s.data.log_segment);
    auto whole = store_.FetchLogSegment(s.metadata, 0, 1 << 30);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_EQ(*whole, log);
    auto middle = store_.FetchLogSegment(s.metadata, 100, 50);
    ASSERT_TRUE(middle.ok());
    EXPECT_EQ(*middle, std::vector<uint8_t>(log.begin() + 100, log.begin() + 150));
    auto at_end = store_.FetchLogSegment(s.metadata, static_cast<int64_t>(log.size()), 10);
    ASSERT_TRUE(at_end.ok());
    EXPECT_TRUE(at_end->empty());
  }
  EXPECT_GT(with_txn, 0);  // the spec aborts a transaction every seventh batch
  const LocalRemoteStorage::Counts c = store_.counts();
  EXPECT_EQ(c.copies, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(c.offset_index_fetches, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(c.txn_index_fetches, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(c.index_fetches, 4 * static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(c.log_fetches, 3 * static_cast<int64_t>(segments_.size()));
}

TEST_F(LocalRemoteStorageTest, PastTheEndIsOutOfRangeAndBadArgumentsAreRefused) {
  const int64_t size = m(0).segment_size_in_bytes;
  auto past = store_.FetchLogSegment(m(0), size + 1, 10);
  EXPECT_TRUE(past.status().IsOutOfRange()) << past.status().ToString();
  EXPECT_THAT(past.status().ToString(), HasSubstr(m(0).segment_id.id.ToString()));
  EXPECT_TRUE(store_.FetchLogSegment(m(0), -1, 10).status().IsInvalidArgument());
  RemoteLogSegmentMetadata no_custom = m(0);
  no_custom.custom_metadata.reset();
  EXPECT_EQ(store_.FetchIndex(no_custom, IndexType::kOffset).status().code(),
            Status::Code::kFailedPrecondition);
}

TEST_F(LocalRemoteStorageTest, MissingObjectsAreNotFound) {
  ASSERT_TRUE(store_.DeleteObject(m(0), RemoteObjectKind::kTimeIndex).ok());
  auto time = store_.FetchIndex(m(0), IndexType::kTimestamp);
  EXPECT_TRUE(time.status().IsNotFound()) << time.status().ToString();
  EXPECT_THAT(time.status().ToString(),
              HasSubstr(store_.ObjectPath(m(0), RemoteObjectKind::kTimeIndex)));
  ASSERT_TRUE(store_.DeleteLogSegmentData(m(1)).ok());
  EXPECT_FALSE(std::filesystem::exists(store_.SegmentDir(m(1))));
  EXPECT_TRUE(store_.FetchIndex(m(1), IndexType::kOffset).status().IsNotFound());
  EXPECT_TRUE(store_.FetchLogSegment(m(1), 0, 10).status().IsNotFound());
  EXPECT_TRUE(store_.DeleteLogSegmentData(m(1)).ok());  // a retried delete
}

TEST_F(LocalRemoteStorageTest, TruncatedOrCorruptObjectsAreCorruption) {
  ASSERT_TRUE(store_.TruncateObject(m(0), RemoteObjectKind::kOffsetIndex, 12).ok());
  auto truncated = store_.FetchIndex(m(0), IndexType::kOffset);
  EXPECT_TRUE(truncated.status().IsCorruption()) << truncated.status().ToString();
  EXPECT_THAT(truncated.status().ToString(), HasSubstr("12 bytes, the copy recorded"));

  ASSERT_TRUE(store_.CorruptObject(m(1), RemoteObjectKind::kLog, 70).ok());
  auto corrupt = store_.FetchLogSegment(m(1), 0, 100);  // not even the damaged range
  EXPECT_TRUE(corrupt.status().IsCorruption()) << corrupt.status().ToString();
  EXPECT_THAT(corrupt.status().ToString(), HasSubstr("CRC-32C"));

  const std::vector<uint8_t> same_size(ReadFileBytes(segments_[2].data.time_index).size(), 0);
  ASSERT_TRUE(store_.OverwriteObject(m(2), RemoteObjectKind::kTimeIndex, same_size).ok());
  EXPECT_TRUE(store_.FetchIndex(m(2), IndexType::kTimestamp).status().IsCorruption());
}

TEST_F(LocalRemoteStorageTest, ASegmentWithoutProducerSnapshotHasNoSnapshotObject) {
  TieredSegment s = segments_[0];
  s.metadata.segment_id.id = Uuid::Random();
  s.data.producer_snapshot.clear();
  auto custom = store_.CopyLogSegmentData(s.metadata, s.data);
  ASSERT_TRUE(custom.ok()) << custom.status().ToString();
  s.metadata.custom_metadata = *custom;
  EXPECT_TRUE(store_.FetchIndex(s.metadata, IndexType::kProducerSnapshot).status().IsNotFound());
  EXPECT_TRUE(store_.FetchIndex(s.metadata, IndexType::kOffset).ok());
}

TEST_F(LocalRemoteStorageTest, ObjectsAreNeverOverwritten) {
  auto again = store_.CopyLogSegmentData(m(0), segments_[0].data);
  EXPECT_EQ(again.status().code(), Status::Code::kAlreadyExists) << again.status().ToString();
}

TEST_F(LocalRemoteStorageTest, InjectedCopyFailureLeavesPartialObjectsForTheCallerToDelete) {
  RemoteLogSegmentMetadata retry = m(0);
  retry.segment_id.id = Uuid::Random();
  store_.FailNextCopies(1);
  auto failed = store_.CopyLogSegmentData(retry, segments_[0].data);
  EXPECT_TRUE(failed.status().IsIOError()) << failed.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(store_.ObjectPath(retry, RemoteObjectKind::kLog)));
  EXPECT_FALSE(std::filesystem::exists(store_.ObjectPath(retry, RemoteObjectKind::kOffsetIndex)));
  ASSERT_TRUE(store_.DeleteLogSegmentData(retry).ok());
  retry.segment_id.id = Uuid::Random();
  EXPECT_TRUE(store_.CopyLogSegmentData(retry, segments_[0].data).ok());
}

TEST_F(LocalRemoteStorageTest, InjectedFetchFailuresCountDownAndCanTargetOneIndexType) {
  store_.FailNextFetches(2);
  EXPECT_TRUE(store_.FetchLogSegment(m(0), 0, 10).status().IsIOError());
  EXPECT_TRUE(store_.FetchIndex(m(0), IndexType::kOffset).status().IsIOError());
  EXPECT_TRUE(store_.FetchIndex(m(0), IndexType::kOffset).ok());

  store_.FailNextFetches(1, IndexType::kTimestamp);
  EXPECT_TRUE(store_.FetchIndex(m(0), IndexType::kOffset).ok());
  EXPECT_TRUE(store_.FetchLogSegment(m(0), 0, 10).ok());
  auto time = store_.FetchIndex(m(0), IndexType::kTimestamp);
  EXPECT_TRUE(time.status().IsIOError());
  EXPECT_THAT(time.status().ToString(), HasSubstr("TIMESTAMP"));
  EXPECT_TRUE(store_.FetchIndex(m(0), IndexType::kTimestamp).ok());
}

TEST_F(LocalRemoteStorageTest, InjectedDeleteFailureDeletesNothing) {
  store_.FailNextDeletes(1);
  EXPECT_TRUE(store_.DeleteLogSegmentData(m(0)).IsIOError());
  EXPECT_TRUE(std::filesystem::exists(store_.SegmentDir(m(0))));
  EXPECT_TRUE(store_.DeleteLogSegmentData(m(0)).ok());
  EXPECT_FALSE(std::filesystem::exists(store_.SegmentDir(m(0))));
  EXPECT_EQ(store_.counts().deletes, 2);
}

}  // namespace
}  // namespace seglog
