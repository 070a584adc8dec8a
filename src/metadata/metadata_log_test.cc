#include "metadata/metadata_log.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "metadata/bootstrap.h"
#include "protocol/generated/partition_record.h"
#include "protocol/generated/topic_record.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;

class MetadataLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        WriteBootstrapSnapshot(Env::Default(), tmp_.path(), DefaultBootstrapFeatures(), 1000).ok());
  }
  std::unique_ptr<MetadataLog> OpenLog(MetadataLogOptions o = {}) {
    if (!o.clock) o.clock = [this] { return now_; };
    auto ml = MetadataLog::Open(tmp_.path(), o);
    EXPECT_TRUE(ml.ok()) << ml.status().message();
    return ml.ok() ? std::move(ml).value() : nullptr;
  }
  static std::vector<MetadataRecordValue> CreateTopic(const std::string& name, Uuid id, int n) {
    std::vector<MetadataRecordValue> out;
    protocol::TopicRecord t;
    t.name = name;
    t.topic_id = id;
    out.push_back(EncodeMetadataRecord(t).value());
    for (int p = 0; p < n; ++p) {
      protocol::PartitionRecord r;
      r.partition_id = p;
      r.topic_id = id;
      r.replicas = {1};
      r.isr = {1};
      r.leader = 1;
      r.leader_epoch = 0;
      r.partition_epoch = 0;
      out.push_back(EncodeMetadataRecord(r).value());
    }
    return out;
  }
  std::string Dir() const { return tmp_.path() + "/__cluster_metadata-0"; }
  TempDir tmp_;
  int64_t now_ = 5000;
};

TEST_F(MetadataLogTest, AnUnformattedDirectoryIsNotFound) {
  TempDir empty;
  auto ml = MetadataLog::Open(empty.path(), {});
  ASSERT_FALSE(ml.ok());
  EXPECT_TRUE(ml.status().IsNotFound());
  EXPECT_NE(ml.status().message().find("not formatted"), std::string::npos);
}

TEST_F(MetadataLogTest, FirstLeaderAppendsLeaderChangeAndTheBootstrapRecords) {
  auto ml = OpenLog();
  ASSERT_NE(ml, nullptr);
  EXPECT_EQ(ml->end_offset(), 0);
  ASSERT_TRUE(ml->BecomeLeader().ok());
  EXPECT_EQ(ml->epoch(), 1);
  // Offset 0: LeaderChange; 1..: Begin, the 6 features, the cluster's min.insync.replicas, End.
  EXPECT_EQ(ml->end_offset(), 1 + 1 + 6 + 1 + 1);
  EXPECT_EQ(ml->image().FeatureLevel("metadata.version"), 33);
  EXPECT_EQ(ml->image().FeatureLevel("share.version"), 2);
  EXPECT_EQ(ml->image().FeatureLevel("streams.version"), 1);
  const auto* cluster = ml->image().Configs(kConfigResourceBroker, "");
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(cluster->at("min.insync.replicas"), "1");
  auto qs = ReadQuorumState(Env::Default(), Dir());
  ASSERT_TRUE(qs.ok());
  EXPECT_EQ(qs.value().leader_id, 1);
  EXPECT_EQ(qs.value().leader_epoch, 1);
  EXPECT_TRUE(std::filesystem::exists(Dir() + "/partition.metadata"));
}

// A directory formatted before seglog finalized share.version and streams.version has no
// FeatureLevelRecords for them, and opening it does not add any: Kafka 4.4.0's controller
// appends the bootstrap records only to an empty metadata log and, to a non-empty one, at most
// an AbortTransactionRecord (ActivationRecordsGenerator.recordsForNonEmptyLog); upgrading a
// feature is the operator's (kafka-features.sh upgrade).
TEST_F(MetadataLogTest, AnOldDirectoryIsNotUpgradedToShareAndStreamsGroupsAtOpen) {
  TempDir old;
  std::map<std::string, int16_t> features = DefaultBootstrapFeatures();
  ASSERT_EQ(features.erase("share.version"), 1u);
  ASSERT_EQ(features.erase("streams.version"), 1u);
  ASSERT_TRUE(WriteBootstrapSnapshot(Env::Default(), old.path(), features, 1000).ok());
  MetadataLogOptions o;
  o.clock = [this] { return now_; };
  int64_t end = 0;
  {
    auto ml = MetadataLog::Open(old.path(), o);
    ASSERT_TRUE(ml.ok()) << ml.status().message();
    ASSERT_TRUE((*ml)->BecomeLeader().ok());
    end = (*ml)->end_offset();
    EXPECT_EQ((*ml)->image().FeatureLevel("metadata.version"), kLatestMetadataVersion);
    ASSERT_TRUE((*ml)->Close().ok());
  }
  auto ml = MetadataLog::Open(old.path(), o);
  ASSERT_TRUE(ml.ok()) << ml.status().message();
  ASSERT_TRUE((*ml)->BecomeLeader().ok());
  EXPECT_EQ((*ml)->end_offset(), end + 1);  // the new leader's LeaderChange, nothing else
  EXPECT_EQ((*ml)->image().features().count("share.version"), 0u);
  EXPECT_EQ((*ml)->image().features().count("streams.version"), 0u);
  EXPECT_EQ((*ml)->image().FeatureLevel("group.version"), 1);
}

TEST_F(MetadataLogTest, RecordsSurviveReopenAndEachLeaderTakesANewEpoch) {
  const Uuid id = Uuid::Random();
  {
    auto ml = OpenLog();
    ASSERT_TRUE(ml->BecomeLeader().ok());
    ASSERT_TRUE(ml->Append(CreateTopic("orders", id, 3)).ok());
    EXPECT_EQ(ml->image().FindTopic("orders")->partitions.size(), 3u);
    ASSERT_TRUE(ml->Close().ok());
  }
  auto ml = OpenLog();
  const TopicImage* t = ml->image().FindTopic("orders");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->id, id);
  EXPECT_EQ(t->partitions.size(), 3u);
  EXPECT_EQ(ml->epoch(), 1);
  ASSERT_TRUE(ml->BecomeLeader().ok());
  EXPECT_EQ(ml->epoch(), 2);
  // Appends before BecomeLeader are refused.
  auto follower = OpenLog();
  EXPECT_FALSE(follower->Append(CreateTopic("x", Uuid::Random(), 1)).ok());
}

TEST_F(MetadataLogTest, AQuorumStateEpochAboveTheLogsWins) {
  {
    auto ml = OpenLog();
    ASSERT_TRUE(ml->BecomeLeader().ok());
  }
  QuorumState qs;
  qs.leader_id = 1;
  qs.leader_epoch = 7;
  qs.voters = {1};
  ASSERT_TRUE(WriteQuorumState(Env::Default(), Dir(), qs).ok());
  auto ml = OpenLog();
  ASSERT_TRUE(ml->BecomeLeader().ok());
  EXPECT_EQ(ml->epoch(), 8);
}

TEST_F(MetadataLogTest, ATornTailIsCutAndTheRestKept) {
  const Uuid id = Uuid::Random();
  int64_t end = 0;
  {
    auto ml = OpenLog();
    ASSERT_TRUE(ml->BecomeLeader().ok());
    ASSERT_TRUE(ml->Append(CreateTopic("kept", id, 1)).ok());
    end = ml->end_offset();
    ASSERT_TRUE(ml->Append(CreateTopic("torn", Uuid::Random(), 1)).ok());
    ASSERT_TRUE(ml->Close().ok());
  }
  const std::string seg = Dir() + "/00000000000000000000.log";
  const int64_t size = testing::FileSize(seg);
  std::filesystem::resize_file(seg, static_cast<uintmax_t>(size - 7));
  auto ml = OpenLog();
  ASSERT_NE(ml, nullptr);
  EXPECT_EQ(ml->end_offset(), end);
  EXPECT_NE(ml->image().FindTopic("kept"), nullptr);
  EXPECT_EQ(ml->image().FindTopic("torn"), nullptr);
}

TEST_F(MetadataLogTest, ARecordThatCannotBeReplayedStopsTheOpenNamingItsOffset) {
  {
    auto ml = OpenLog();
    ASSERT_TRUE(ml->BecomeLeader().ok());
    // A partition of a topic id nobody created: appended (the log does not judge), refused by
    // the image.
    auto records = CreateTopic("t", Uuid::Random(), 1);
    records.erase(records.begin());
    EXPECT_FALSE(ml->Append(records).ok());
  }
  auto ml = MetadataLog::Open(tmp_.path(), {});
  ASSERT_FALSE(ml.ok());
  EXPECT_NE(ml.status().message().find("at offset 10"), std::string::npos)
      << ml.status().ToString();
}

TEST_F(MetadataLogTest, SnapshotsAreTakenByBytesAndUsedAtOpenAndACorruptOneIsPassedOver) {
  MetadataLogOptions o;
  o.max_record_bytes_between_snapshots = 100;
  o.max_snapshot_interval_ms = 0;
  {
    auto ml = OpenLog(o);
    ASSERT_TRUE(ml->BecomeLeader().ok());
    ASSERT_TRUE(ml->Append(CreateTopic("a", Uuid::Random(), 2)).ok());
    ASSERT_TRUE(ml->MaybeSnapshot().ok());
    ASSERT_EQ(ml->snapshots().size(), 2u);  // 0-0 and the new one
    EXPECT_EQ(ml->snapshots().back().end_offset, ml->end_offset());
    EXPECT_EQ(ml->snapshots().back().epoch, 1);
    ASSERT_TRUE(ml->Append(CreateTopic("b", Uuid::Random(), 1)).ok());
    ASSERT_TRUE(ml->Close().ok());
  }
  {
    auto ml = OpenLog(o);
    EXPECT_NE(ml->image().FindTopic("a"), nullptr);
    EXPECT_NE(ml->image().FindTopic("b"), nullptr);
    EXPECT_EQ(ml->image().FeatureLevel("group.version"), 1);
  }
  // Corrupt the newest snapshot: the open falls back to 0-0 and the whole log.
  std::string newest;
  for (const auto& e : std::filesystem::directory_iterator(Dir())) {
    const std::string n = e.path().filename();
    if (n.ends_with(".checkpoint") && !n.starts_with("00000000000000000000-")) newest = e.path();
  }
  ASSERT_FALSE(newest.empty());
  testing::FlipBits(newest, 80, 0x01);
  auto ml = OpenLog(o);
  ASSERT_NE(ml, nullptr);
  EXPECT_NE(ml->image().FindTopic("a"), nullptr);
  EXPECT_NE(ml->image().FindTopic("b"), nullptr);
}

TEST_F(MetadataLogTest, RetentionDeletesOldSnapshotsAndTheSegmentsBelow) {
  MetadataLogOptions o;
  o.max_record_bytes_between_snapshots = 1;
  o.max_retention_bytes = 0;  // always over: keep only the newest snapshot
  o.segment_bytes = 400;      // a few batches a segment
  auto ml = OpenLog(o);
  Status leader = ml->BecomeLeader();
  ASSERT_TRUE(leader.ok()) << leader.message();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ml->Append(CreateTopic(fmt::format("t{}", i), Uuid::Random(), 1)).ok());
    ASSERT_TRUE(ml->MaybeSnapshot().ok());
  }
  ASSERT_EQ(ml->snapshots().size(), 1u);
  EXPECT_EQ(ml->start_offset(), ml->snapshots().back().end_offset);
  ASSERT_TRUE(ml->Close().ok());
  auto again = OpenLog(o);
  ASSERT_NE(again, nullptr);
  for (int i = 0; i < 4; ++i) EXPECT_NE(again->image().FindTopic(fmt::format("t{}", i)), nullptr);
}

}  // namespace
}  // namespace seglog
