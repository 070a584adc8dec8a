// SharePartitionManager over a real LogManager and ShareCoordinator on the manual clock: load
// from the coordinator (share.auto.offset.reset), acquisition from the log, acknowledgements
// persisted before they are answered, rollback of a failed write, lock expiry by the one timer,
// member release, and a restart in the middle of an acquisition.
#include "share/share_partition_manager.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "sharestate/share_coordinator.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

constexpr int64_t kT0 = 1794024676000;

class SharePartitionManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { Close(); }

  void Open() {
    std::map<std::string, std::string> props;
    props["log.dirs"] = dir_.path();
    props["share.coordinator.state.topic.num.partitions"] = "1";
    config_ = TestConfig();
    std::vector<std::string> errors;
    LogManagerConfig::Parse(
        props,
        [this](const std::string& k, const std::string& v) { return config_.share.Set(k, v); },
        &config_, &errors);
    ASSERT_TRUE(config_.Finish(errors).ok());
    scheduler_ = std::make_unique<MockScheduler>(now_);
    auto m = LogManager::Open(config_, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    if (!logs_->FindTopic("data").ok()) {
      ASSERT_TRUE(logs_->CreateTopic("data", 1).ok());
    }
    auto id = Uuid::Parse(logs_->FindTopicIdentity("data")->topic_id);
    ASSERT_TRUE(id.ok());
    topic_id_ = *id;
    auto c = ShareCoordinator::Open(config_.share, logs_.get(), scheduler_.get(),
                                    [this](const Uuid& topic) -> std::optional<int32_t> {
                                      std::optional<std::string> name =
                                          logs_->TopicNameForId(topic.ToString());
                                      if (!name) return std::nullopt;
                                      return logs_->FindTopicIdentity(*name)->partitions;
                                    },
                                    {});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    coordinator_ = std::move(c).value();
    sessions_ = std::make_unique<ShareSessionCache>();
    SharePartitionManager::Options o;
    o.coordinator = coordinator_.get();
    o.logs = logs_.get();
    o.scheduler = scheduler_.get();
    o.sessions = sessions_.get();
    o.settings = [this](const std::string&) { return settings_; };
    o.on_available = [this](const std::string& g) { available_.push_back(g); };
    manager_ = std::make_unique<SharePartitionManager>(std::move(o));
    manager_->Start();
  }
  void Close() {
    manager_.reset();
    if (coordinator_) coordinator_->Shutdown();
    coordinator_.reset();
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
    if (scheduler_) now_ = scheduler_->NowMs();
    scheduler_.reset();
  }
  void Reopen() {
    Close();
    Open();
  }
  void Initialize(int64_t start = -1) {
    ASSERT_EQ(coordinator_->Initialize(Key(), 1, start).error_code, 0);
  }
  void Produce(int count) {
    auto log = logs_->GetLog({"data", 0});
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(0, count, 3, kT0)).ok());
  }
  // `count` records of a transaction of `pid`, or its COMMIT/ABORT marker.
  void TxnData(int64_t pid, int32_t seq, int count) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.base_sequence = seq;
    o.is_transactional = true;
    RecordBatchBuilder b(o);
    const std::string v = "v";
    for (int i = 0; i < count; ++i) {
      ASSERT_TRUE(
          b.Append(kT0, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()))
              .ok());
    }
    ASSERT_TRUE((*logs_->GetLog({"data", 0}))->AppendAsLeader(*b.Build()).ok());
  }
  void TxnMarker(int64_t pid, ControlRecordType type) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.is_transactional = true;
    o.is_control = true;
    RecordBatchBuilder b(o);
    ASSERT_TRUE(b.AppendEndTxnMarker(type, 0, kT0).ok());
    ASSERT_TRUE((*logs_->GetLog({"data", 0}))
                    ->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator)
                    .ok());
  }
  SharePartitionKey Key() const { return {"g", topic_id_, 0}; }
  ShareTopicIdPartition Tip() const { return {topic_id_, 0}; }
  SharePartitionManager::PartitionFetch Fetch(const std::string& member) {
    SharePartitionManager::FetchParams p;
    p.group_id = "g";
    p.member_id = member;
    return manager_->Fetch(p, Tip(), "data", 1 << 20);
  }
  ShareError Ack(const std::string& member, int64_t first, int64_t last, int8_t type) {
    std::vector<AcknowledgementBatch> b{{first, last, {type}}};
    return manager_->Acknowledge("g", member, Tip(), b);
  }
  RecordState StateAt(int64_t offset) {
    auto s = manager_->StateOf(Key(), offset);
    EXPECT_TRUE(s.has_value());
    return s ? s->state : RecordState::kArchiving;
  }

  seglog::testing::TempDir dir_;
  int64_t now_ = kT0;
  struct TestConfig : LogManagerConfig {
    ShareCoordinatorConfig share;
  };
  TestConfig config_;
  ShareGroupSettings settings_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<ShareCoordinator> coordinator_;
  std::unique_ptr<ShareSessionCache> sessions_;
  std::unique_ptr<SharePartitionManager> manager_;
  Uuid topic_id_;
  std::vector<std::string> available_;
};

TEST_F(SharePartitionManagerTest, LatestSkipsWhatIsThereEarliestDeliversIt) {
  Produce(3);
  Initialize();
  EXPECT_TRUE(Fetch("m1").acquired.empty());  // latest: starts at the high watermark
  Produce(2);
  auto f = Fetch("m1");
  ASSERT_EQ(f.acquired.size(), 1u);
  EXPECT_EQ(f.acquired[0].first_offset, 3);
  EXPECT_EQ(f.acquired[0].last_offset, 4);
  EXPECT_GT(f.records.length, 0);
}

TEST_F(SharePartitionManagerTest, EarliestAndAcknowledgementPersistedBeforeAnswer) {
  settings_.auto_offset_reset = "earliest";
  Produce(4);
  Initialize();
  auto f = Fetch("m1");
  ASSERT_EQ(f.acquired.size(), 1u);
  EXPECT_EQ(f.acquired[0].first_offset, 0);
  EXPECT_EQ(f.acquired[0].last_offset, 3);
  ASSERT_TRUE(Ack("m1", 0, 1, 1).ok());
  // Written to the coordinator before Acknowledge returned.
  auto summary = coordinator_->ReadSummary(Key());
  EXPECT_EQ(summary.start_offset, 2);
  // Another member's records: INVALID_RECORD_STATE, nothing changes.
  ShareError e = Ack("m2", 2, 3, 1);
  EXPECT_EQ(e.code(), share_error::kInvalidRecordState);
  EXPECT_EQ(StateAt(2), RecordState::kAcquired);
}

TEST_F(SharePartitionManagerTest, RestartMidAcquireMakesRecordsAvailable) {
  settings_.auto_offset_reset = "earliest";
  Produce(3);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);
  ASSERT_TRUE(Ack("m1", 0, 0, 1).ok());
  Reopen();
  auto f = Fetch("m2");
  ASSERT_EQ(f.acquired.size(), 1u);
  EXPECT_EQ(f.acquired[0].first_offset, 1);
  EXPECT_EQ(f.acquired[0].last_offset, 2);
}

TEST_F(SharePartitionManagerTest, FailedWriteRollsBack) {
  settings_.auto_offset_reset = "earliest";
  Produce(2);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);
  coordinator_->Shutdown();  // every write now fails
  ShareError e = Ack("m1", 0, 1, 1);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(StateAt(0), RecordState::kAcquired);
  EXPECT_EQ(StateAt(1), RecordState::kAcquired);
}

TEST_F(SharePartitionManagerTest, LockExpiryByTheTimerAndMemberRelease) {
  settings_.auto_offset_reset = "earliest";
  settings_.partition.record_lock_duration_ms = 1000;
  Produce(2);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);
  scheduler_->Advance(1100);
  EXPECT_EQ(StateAt(0), RecordState::kAvailable);
  EXPECT_EQ(available_, std::vector<std::string>{"g"});
  auto f = Fetch("m2");
  ASSERT_EQ(f.acquired.size(), 1u);
  EXPECT_EQ(f.acquired[0].delivery_count, 2);
  manager_->OnShareGroupMemberLeft("g", "m2");
  EXPECT_EQ(StateAt(1), RecordState::kAvailable);
  EXPECT_EQ(available_.size(), 2u);
}

TEST_F(SharePartitionManagerTest, ReadCommittedArchivesAbortedTransactions) {
  settings_.auto_offset_reset = "earliest";
  settings_.read_committed = true;
  TxnData(4000, 0, 3);                          // 0-2: aborted
  TxnMarker(4000, ControlRecordType::kAbort);   // 3
  TxnData(4001, 0, 2);                          // 4-5: committed
  TxnMarker(4001, ControlRecordType::kCommit);  // 6
  TxnData(4002, 0, 2);                          // 7-8: open, past the LSO
  Initialize();
  auto f = Fetch("m1");
  ASSERT_FALSE(f.acquired.empty());
  for (const AcquiredRecords& a : f.acquired) {
    EXPECT_GT(a.first_offset, 2) << "an aborted record was delivered";
    EXPECT_LT(a.last_offset, 7) << "a record past the last stable offset was delivered";
  }
  EXPECT_EQ(f.acquired.front().first_offset, 3);
  EXPECT_EQ(f.acquired.back().last_offset, 6);
  // The aborted records are finished: the start offset moved past them.
  EXPECT_FALSE(manager_->StateOf(Key(), 0).has_value());
}

}  // namespace
}  // namespace seglog
