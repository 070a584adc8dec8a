// SharePartitionManager over a real LogManager and ShareCoordinator on the manual clock: load
// from the coordinator (share.auto.offset.reset), acquisition from the log, acknowledgements
// persisted before they are answered, rollback of a failed write, lock expiry by the one timer,
// member release, and a restart in the middle of an acquisition.
#include "share/share_partition_manager.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
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
    o.write_state = [this](const SharePartitionKey& key, const ShareCoordinator::WriteData& data) {
      {
        std::unique_lock<std::mutex> lock(gate_mu_);
        ++writes_started_;
        gate_cv_.notify_all();
        // Bounded: a test that forgets to open the gate fails instead of hanging.
        gate_cv_.wait_for(lock, std::chrono::seconds(20), [this] { return gate_open_; });
      }
      if (fail_writes_) {
        ShareCoordinator::Outcome failed;
        failed.error_code = kafka_error::kCoordinatorNotAvailable;
        return failed;
      }
      return coordinator_->Write(key, data);
    };
    o.dlq_enabled = [this](const std::string&) { return dlq_on_; };
    o.on_dlq_archived = [this](const SharePartitionKey& key, std::vector<DlqArchive> archived) {
      EXPECT_EQ(key, Key());
      dlq_.insert(dlq_.end(), archived.begin(), archived.end());
    };
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
  // The persister's write waits at this gate while it is closed.
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  bool gate_open_ = true;
  int writes_started_ = 0;
  bool fail_writes_ = false;
  bool dlq_on_ = false;
  // What on_dlq_archived was given.
  std::vector<DlqArchive> dlq_;

  void CloseGate() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    gate_open_ = false;
  }
  void OpenGate() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    gate_open_ = true;
    gate_cv_.notify_all();
  }
  // Waits (at most 10 s) until `count` writes have started.
  bool WaitForWrites(int count) {
    std::unique_lock<std::mutex> lock(gate_mu_);
    return gate_cv_.wait_for(lock, std::chrono::seconds(10),
                             [&] { return writes_started_ >= count; });
  }
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

// A fetch reads the headers only of the batches it can acquire from, and the answer is what it
// was with every batch read: whole batches up to max_records, the next fetch going on from there,
// the in-flight records before EndOffset() still acquirable.
TEST_F(SharePartitionManagerTest, FetchStopsAtTheBatchesItCanAcquire) {
  settings_.auto_offset_reset = "earliest";
  for (int i = 0; i < 40; ++i) Produce(10);  // 40 batches of 10 records, offsets 0-399
  Initialize();
  auto log = logs_->GetLog({"data", 0});
  ASSERT_TRUE(log.ok());
  SharePartitionManager::FetchParams p;
  p.group_id = "g";
  p.member_id = "m1";
  p.max_records = 25;
  p.batch_size = 25;
  auto f = manager_->Fetch(p, Tip(), "data", 1 << 20);
  ASSERT_FALSE(f.acquired.empty());
  EXPECT_EQ(f.acquired.front().first_offset, 0);
  EXPECT_EQ(f.acquired.back().last_offset, 29);  // the whole batch that holds offset 24
  const int64_t all = (*log)->log_end_offset();
  ASSERT_EQ(all, 400);
  // The slice is the three batches that hold offsets 0-29.
  Result<FetchDataInfo> three = (*log)->Read(0, 1 << 20, true, 30);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(f.records.position, three->slice.position);
  EXPECT_EQ(f.records.length, three->slice.length);
  // Released records inside the in-flight range come back first, then new ones after them.
  ASSERT_TRUE(Ack("m1", 10, 19, 2).ok());  // RELEASE
  p.member_id = "m2";
  auto g = manager_->Fetch(p, Tip(), "data", 1 << 20);
  ASSERT_FALSE(g.acquired.empty());
  EXPECT_EQ(g.acquired.front().first_offset, 10);
  int64_t taken = 0;
  for (const AcquiredRecords& a : g.acquired) taken += a.last_offset - a.first_offset + 1;
  EXPECT_EQ(g.acquired.back().last_offset, 49);  // 10-19 again, then 30-49 (two whole batches)
  EXPECT_EQ(taken, 30);
  // Everything acknowledged: the end moves on, and the next fetch starts after 49.
  ASSERT_TRUE(Ack("m1", 0, 9, 1).ok());
  ASSERT_TRUE(Ack("m1", 20, 29, 1).ok());
  ASSERT_TRUE(Ack("m2", 10, 19, 1).ok());
  ASSERT_TRUE(Ack("m2", 30, 49, 1).ok());
  auto h = Fetch("m3");  // max_records 500: the rest of the log
  ASSERT_FALSE(h.acquired.empty());
  EXPECT_EQ(h.acquired.front().first_offset, 50);
  EXPECT_EQ(h.acquired.back().last_offset, 399);
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

// A lock expires at its deadline, not at the next 100 ms pass: the one-shot timer is armed by
// the acquisition.
TEST_F(SharePartitionManagerTest, LockExpiresAtItsDeadline) {
  settings_.auto_offset_reset = "earliest";
  settings_.partition.record_lock_duration_ms = 1000;
  Produce(2);
  Initialize();
  scheduler_->Advance(30);  // off the periodic pass's phase (it runs at +100, +200, ...)
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);  // deadline: +1030
  scheduler_->Advance(999);
  EXPECT_EQ(StateAt(0), RecordState::kAcquired);
  scheduler_->Advance(1);
  EXPECT_EQ(StateAt(0), RecordState::kAvailable);
  EXPECT_EQ(StateAt(1), RecordState::kAvailable);
  EXPECT_EQ(available_, std::vector<std::string>{"g"});
  // A second acquisition arms the timer again.
  Produce(1);
  scheduler_->Advance(15);
  ASSERT_FALSE(Fetch("m2").acquired.empty());  // deadline: +2045
  scheduler_->Advance(1000);
  EXPECT_EQ(StateAt(2), RecordState::kAvailable);
}

// The share coordinator's write is file I/O: it runs with the partition's mutex dropped, so a
// fetch of the same partition proceeds while an acknowledgement's write is blocked, and the
// acknowledgement applies only once its write is done.
TEST_F(SharePartitionManagerTest, FetchProceedsWhileAWriteIsBlocked) {
  settings_.auto_offset_reset = "earliest";
  Produce(2);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);  // 0-1 acquired by m1
  Produce(3);                                  // 2-4 AVAILABLE
  const int before = writes_started_;
  CloseGate();
  // m1 releases 0 and accepts 1; the write blocks at the gate.
  std::future<ShareError> ack = std::async(std::launch::async, [this] {
    std::vector<AcknowledgementBatch> b{{0, 0, {static_cast<int8_t>(AcknowledgeType::kRelease)}},
                                        {1, 1, {static_cast<int8_t>(AcknowledgeType::kAccept)}}};
    return manager_->Acknowledge("g", "m1", Tip(), b);
  });
  ASSERT_TRUE(WaitForWrites(before + 1)) << "the acknowledgement never wrote";
  // A fetch of the same partition while the write is blocked.
  std::future<SharePartitionManager::PartitionFetch> fetch =
      std::async(std::launch::async, [this] { return Fetch("m2"); });
  const bool fetched = fetch.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!fetched) OpenGate();  // let the test end; the assertion below fails it
  ASSERT_TRUE(fetched) << "the fetch waited for the share coordinator's write";
  SharePartitionManager::PartitionFetch f = fetch.get();
  // It got the AVAILABLE records only: 0 is not released before its write is done.
  ASSERT_EQ(f.acquired.size(), 1u);
  EXPECT_EQ(f.acquired[0].first_offset, 2);
  EXPECT_EQ(f.acquired[0].last_offset, 4);
  EXPECT_EQ(StateAt(0), RecordState::kAcquired);
  EXPECT_EQ(StateAt(1), RecordState::kAcquired);
  EXPECT_EQ(ack.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  OpenGate();
  ASSERT_EQ(ack.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(ack.get().ok());
  EXPECT_EQ(StateAt(0), RecordState::kAvailable);
  EXPECT_EQ(StateAt(1), RecordState::kAcknowledged);
  EXPECT_EQ(StateAt(2), RecordState::kAcquired);  // m2's acquisition survived the apply
  // The coordinator holds the acknowledged state.
  std::optional<ShareGroupOffset> stored = coordinator_->StateOf(Key());
  ASSERT_TRUE(stored.has_value());
  bool one_acknowledged = false;
  for (const PersisterStateBatch& b : stored->state_batches) {
    if (b.first_offset <= 1 && b.last_offset >= 1) {
      one_acknowledged = b.delivery_state == static_cast<int8_t>(RecordState::kAcknowledged);
    }
  }
  EXPECT_TRUE(one_acknowledged);
  EXPECT_EQ(available_, std::vector<std::string>{"g"});
  // A fetch after the write gets the released record again.
  auto again = Fetch("m3");
  ASSERT_EQ(again.acquired.size(), 1u);
  EXPECT_EQ(again.acquired[0].first_offset, 0);
  EXPECT_EQ(again.acquired[0].last_offset, 0);
  EXPECT_EQ(again.acquired[0].delivery_count, 2);
}

// A second acknowledgement waits for the first one's write (one write per partition at a time)
// and the lock timer skips a partition with a write in flight, expiring it at a later pass.
TEST_F(SharePartitionManagerTest, WritersQueueBehindAWriteInFlight) {
  settings_.auto_offset_reset = "earliest";
  settings_.partition.record_lock_duration_ms = 1000;
  Produce(2);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);  // 0-1
  const int before = writes_started_;
  CloseGate();
  std::future<ShareError> first =
      std::async(std::launch::async, [this] { return Ack("m1", 0, 0, 1); });
  ASSERT_TRUE(WaitForWrites(before + 1));
  std::future<ShareError> second =
      std::async(std::launch::async, [this] { return Ack("m1", 1, 1, 1); });
  EXPECT_EQ(second.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  {
    std::lock_guard<std::mutex> lock(gate_mu_);
    EXPECT_EQ(writes_started_, before + 1);  // the second has not started its write
  }
  // The lock of 1 passes while the write is in flight: the timer pass skips the partition,
  // so the queued acknowledgement of 1 still finds it acquired by m1.
  scheduler_->Advance(1100);
  EXPECT_EQ(StateAt(1), RecordState::kAcquired);
  OpenGate();
  ASSERT_EQ(first.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(second.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(first.get().ok());
  EXPECT_TRUE(second.get().ok());
  // Both applied: the start offset moved past them, in memory and at the coordinator.
  EXPECT_FALSE(manager_->StateOf(Key(), 1).has_value());
  EXPECT_EQ(coordinator_->ReadSummary(Key()).start_offset, 2);
}

// A failed write with the partition's mutex dropped still applies nothing.
TEST_F(SharePartitionManagerTest, FailedWriteAppliesNothingAndAFetchSawNothing) {
  settings_.auto_offset_reset = "earliest";
  Produce(2);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);
  const int before = writes_started_;
  CloseGate();
  std::future<ShareError> ack = std::async(std::launch::async, [this] {
    return Ack("m1", 0, 1, static_cast<int8_t>(AcknowledgeType::kRelease));
  });
  ASSERT_TRUE(WaitForWrites(before + 1));
  coordinator_->Shutdown();                   // the blocked write now fails
  EXPECT_TRUE(Fetch("m2").acquired.empty());  // nothing released yet
  OpenGate();
  ASSERT_EQ(ack.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(ack.get().ok());
  EXPECT_EQ(StateAt(0), RecordState::kAcquired);
  EXPECT_EQ(StateAt(1), RecordState::kAcquired);
  EXPECT_TRUE(available_.empty());
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

// The state byte of `offset` at the share coordinator; -1 when no batch holds it.
int StoredState(ShareCoordinator& coordinator, const SharePartitionKey& key, int64_t offset) {
  std::optional<ShareGroupOffset> stored = coordinator.StateOf(key);
  if (!stored) return -1;
  for (const PersisterStateBatch& b : stored->state_batches) {
    if (b.first_offset <= offset && offset <= b.last_offset) return b.delivery_state;
  }
  return -1;
}

// The dead-letter-queue hand-off (Kafka's initiateDLQAndArchive): a Reject, or a release at the
// delivery count limit, is written ARCHIVING (3) and reaches on_dlq_archived after that write;
// a failed write hands nothing over; CompleteArchiving writes ARCHIVED (4) and the start offset
// moves. Without a DLQ the records are ARCHIVED at once and nothing is handed over.
TEST_F(SharePartitionManagerTest, ArchivedRecordsHandedToTheDlqAfterTheirWrite) {
  settings_.auto_offset_reset = "earliest";
  settings_.partition.delivery_count_limit = 2;
  dlq_on_ = true;
  Produce(6);
  Initialize();
  ASSERT_EQ(Fetch("m1").acquired.size(), 1u);
  fail_writes_ = true;
  EXPECT_FALSE(Ack("m1", 0, 0, static_cast<int8_t>(AcknowledgeType::kReject)).ok());
  EXPECT_TRUE(dlq_.empty());
  EXPECT_EQ(StateAt(0), RecordState::kAcquired);
  fail_writes_ = false;
  ASSERT_TRUE(Ack("m1", 0, 1, static_cast<int8_t>(AcknowledgeType::kReject)).ok());
  EXPECT_EQ(dlq_, (std::vector<DlqArchive>{{0, 1, 1, DlqCause::kClientReject}}));
  EXPECT_EQ(StateAt(0), RecordState::kArchiving);
  EXPECT_EQ(StoredState(*coordinator_, Key(), 1), 3);
  ASSERT_TRUE(Ack("m1", 2, 3, static_cast<int8_t>(AcknowledgeType::kRelease)).ok());
  ASSERT_TRUE(Ack("m1", 4, 4, static_cast<int8_t>(AcknowledgeType::kAccept)).ok());
  ASSERT_TRUE(Ack("m1", 5, 5, static_cast<int8_t>(AcknowledgeType::kRelease)).ok());
  ASSERT_EQ(Fetch("m1").acquired.size(), 2u);  // 2-3 and 5 for the second time
  dlq_.clear();
  ASSERT_TRUE(Ack("m1", 2, 3, static_cast<int8_t>(AcknowledgeType::kRelease)).ok());
  EXPECT_EQ(dlq_, (std::vector<DlqArchive>{{2, 3, 2, DlqCause::kDeliveryCountExceeded}}));
  EXPECT_EQ(manager_->StartAndEndOffsets(Key())->first, 0);  // 0-3 ARCHIVING
  manager_->CompleteArchiving(Key(), 0, 1);
  EXPECT_EQ(StoredState(*coordinator_, Key(), 0), -1);  // below the start offset now
  EXPECT_EQ(manager_->StartAndEndOffsets(Key())->first, 2);
  EXPECT_EQ(coordinator_->ReadSummary(Key()).start_offset, 2);
  manager_->CompleteArchiving(Key(), 2, 3);
  EXPECT_EQ(coordinator_->ReadSummary(Key()).start_offset, 5);
  // The group's DLQ turned off: the last record is archived at once at the limit.
  dlq_on_ = false;
  dlq_.clear();
  ASSERT_TRUE(Ack("m1", 5, 5, static_cast<int8_t>(AcknowledgeType::kRelease)).ok());
  EXPECT_TRUE(dlq_.empty());
  EXPECT_EQ(coordinator_->ReadSummary(Key()).start_offset, 6);
}

// A state with ARCHIVING batches (a pending DLQ write, e.g. from Kafka 4.4.0) loads with them
// ARCHIVING and hands them to the DLQ once, with the cause Kafka resumes them with.
TEST_F(SharePartitionManagerTest, ArchivingStateHandedToTheDlqAtLoad) {
  settings_.partition.delivery_count_limit = 3;
  Produce(6);
  Initialize(0);
  ShareCoordinator::WriteData data;
  data.state_epoch = 1;
  data.start_offset = 0;
  data.state_batches = {PersisterStateBatch{0, 1, 3, 3}, PersisterStateBatch{2, 2, 3, 1},
                        PersisterStateBatch{3, 3, 0, 1}};
  ASSERT_EQ(coordinator_->Write(Key(), data).error_code, 0);
  auto f = Fetch("m1");
  ASSERT_FALSE(f.acquired.empty());
  EXPECT_EQ(f.acquired.front().first_offset, 3);
  EXPECT_EQ(f.acquired.back().last_offset, 5);
  EXPECT_EQ(dlq_, (std::vector<DlqArchive>{{0, 1, 3, DlqCause::kDeliveryCountExceeded},
                                           {2, 2, 1, DlqCause::kClientReject}}));
  EXPECT_EQ(StateAt(0), RecordState::kArchiving);
  dlq_.clear();
  ASSERT_TRUE(Ack("m1", 3, 5, static_cast<int8_t>(AcknowledgeType::kAccept)).ok());
  EXPECT_TRUE(dlq_.empty());  // listed once
  EXPECT_EQ(coordinator_->ReadSummary(Key()).start_offset, 0);
  manager_->CompleteArchiving(Key(), 0, 1);
  manager_->CompleteArchiving(Key(), 2, 2);
  EXPECT_EQ(coordinator_->ReadSummary(Key()).start_offset, 6);
}

}  // namespace
}  // namespace seglog
