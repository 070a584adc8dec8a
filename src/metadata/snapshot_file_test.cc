#include "metadata/snapshot_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "metadata/bootstrap.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_log.h"
#include "metadata/quorum_state.h"
#include "protocol/generated/no_op_record.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;

TEST(SnapshotFileTest, NamesAsKafka) {
  EXPECT_EQ(SnapshotName({142, 2}), "00000000000000000142-0000000002");
  auto id = ParseSnapshotFileName("00000000000000000142-0000000002.checkpoint");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->end_offset, 142);
  EXPECT_EQ(id->epoch, 2);
  EXPECT_FALSE(ParseSnapshotFileName("00000000000000000142-0000000002.checkpoint.part"));
  EXPECT_TRUE(ParseSnapshotFileName("00000000000000000142-0000000002.checkpoint.deleted",
                                    kDeletedSnapshotSuffix));
  EXPECT_FALSE(ParseSnapshotFileName("0000000000000000014x-0000000002.checkpoint"));
  EXPECT_FALSE(ParseSnapshotFileName("00000000000000000142_0000000002.checkpoint"));
  EXPECT_FALSE(ParseSnapshotFileName("leader-epoch-checkpoint"));
}

std::vector<MetadataRecordValue> NoOps(int n) {
  std::vector<MetadataRecordValue> out;
  for (int i = 0; i < n; ++i) out.push_back(EncodeMetadataRecord(protocol::NoOpRecord{}).value());
  return out;
}

TEST(SnapshotFileTest, WritesAndReadsBackWithDenseOffsetsAndSmallBatches) {
  TempDir tmp;
  const auto records = NoOps(50);
  // Batches of a few records each: offsets stay dense across them.
  ASSERT_TRUE(
      WriteSnapshot(Env::Default(), tmp.path(), {10, 3}, 1234, 5678, {}, records, 200).ok());
  const std::string path = tmp.path() + "/00000000000000000010-0000000003.checkpoint";
  auto read = ReadSnapshot(Env::Default(), path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read.value().last_contained_log_timestamp, 1234);
  EXPECT_EQ(read.value().records.size(), 50u);
  EXPECT_EQ(read.value().batch_epoch, 3);
  for (const auto& r : read.value().records) EXPECT_EQ(r, records[0].bytes);
  // No .part file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(SnapshotFileTest, CorruptOrCutSnapshotsAreRefused) {
  TempDir tmp;
  ASSERT_TRUE(WriteSnapshot(Env::Default(), tmp.path(), {5, 1}, 1, 1, {}, NoOps(5)).ok());
  const std::string path = tmp.path() + "/00000000000000000005-0000000001.checkpoint";
  const auto bytes = testing::ReadFileBytes(path);
  // Every cut short of the whole file fails (no footer, or a partial batch).
  for (size_t cut : {bytes.size() - 1, bytes.size() - 20, size_t{70}, size_t{10}}) {
    TempDir t2;
    const std::string p2 = t2.path() + "/x.checkpoint";
    {
      FILE* f = fopen(p2.c_str(), "wb");
      fwrite(bytes.data(), 1, cut, f);
      fclose(f);
    }
    EXPECT_FALSE(ReadSnapshot(Env::Default(), p2).ok()) << "cut at " << cut;
  }
  // A flipped bit in a record fails the batch's CRC.
  testing::FlipBits(path, 100, 0x10);
  auto read = ReadSnapshot(Env::Default(), path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Status::Code::kCorruption);
}

TEST(BootstrapTest, FormatWritesTheZeroSnapshotWithTheFeatures) {
  TempDir tmp;
  ASSERT_TRUE(
      WriteBootstrapSnapshot(Env::Default(), tmp.path(), DefaultBootstrapFeatures(), 77).ok());
  EXPECT_EQ(
      WriteBootstrapSnapshot(Env::Default(), tmp.path(), DefaultBootstrapFeatures(), 77).code(),
      Status::Code::kAlreadyExists);
  auto read = ReadSnapshot(Env::Default(), tmp.path() +
                                               "/__cluster_metadata-0/"
                                               "00000000000000000000-0000000000.checkpoint");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  MetadataImage image;
  for (const auto& r : read.value().records) ASSERT_TRUE(image.ReplayValue(r).ok());
  EXPECT_EQ(image.features(), DefaultBootstrapFeatures());
  EXPECT_EQ(MetadataVersionForRelease("4.4").value(), 33);
  EXPECT_EQ(MetadataVersionForRelease("3.9").value(), 21);
  EXPECT_EQ(MetadataVersionForRelease("4.0-IV1").value(), 23);
  EXPECT_FALSE(MetadataVersionForRelease("2.8").ok());
  EXPECT_EQ(MetadataVersionName(33), "4.4-IV2");
}

TEST(QuorumStateTest, TextAsKafkaWritesIt) {
  QuorumState s;
  s.leader_id = 1;
  s.leader_epoch = 1;
  s.voters = {1};
  EXPECT_EQ(FormatQuorumState(s),
            "{\"clusterId\":\"\",\"leaderId\":1,\"leaderEpoch\":1,\"votedId\":-1,"
            "\"appliedOffset\":0,\"currentVoters\":[{\"voterId\":1}],\"data_version\":0}");
  QuorumState v1;
  v1.data_version = 1;
  v1.leader_id = 1;
  v1.leader_epoch = 4;
  EXPECT_EQ(FormatQuorumState(v1),
            "{\"leaderId\":1,\"leaderEpoch\":4,\"votedId\":-1,"
            "\"votedDirectoryId\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"data_version\":1}");
  EXPECT_EQ(ParseQuorumState("q", FormatQuorumState(s)).value(), s);
  EXPECT_EQ(ParseQuorumState("q", FormatQuorumState(v1)).value(), v1);
  EXPECT_FALSE(ParseQuorumState("q", "{\"leaderId\":1,\"data_version\":2}").ok());
  EXPECT_FALSE(ParseQuorumState("q", "not json").ok());
  EXPECT_FALSE(ParseQuorumState("q", "{\"leaderEpoch\":\"x\",\"data_version\":0}").ok());
  // Only the first line counts.
  EXPECT_TRUE(ParseQuorumState("q", FormatQuorumState(s) + "\ngarbage").ok());
}

}  // namespace
}  // namespace seglog
