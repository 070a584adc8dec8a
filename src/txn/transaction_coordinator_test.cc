// TransactionCoordinator over a real LogManager on the manual clock: transactional ids and
// their epochs, transactions committed and aborted with their markers in real data partitions,
// fencing, timeouts, restarts in the middle of a commit, expiry, Describe/List, and the
// errors Kafka answers to requests out of order.
#include "txn/transaction_coordinator.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"
#include "txn/transaction_log.h"
#include "txn/transaction_marker.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
constexpr int64_t kT0 = 1794024676000;

struct Marker {
  TopicPartition tp;
  int64_t producer_id;
  int16_t producer_epoch;
  bool commit;
};

class TransactionCoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { Close(); }

  void Open(std::map<std::string, std::string> props = {}) {
    props["log.dirs"] = dir_.path();
    props.emplace("transaction.state.log.num.partitions", "3");
    props.emplace("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
    // The original protocol unless a test asks for KIP-890 part 2 (Kafka's default, 2).
    props.emplace("transaction.version", "1");
    config_ = TestConfig();
    std::vector<std::string> errors;
    LogManagerConfig::Parse(
        props, [this](const std::string& k, const std::string& v) { return config_.txn.Set(k, v); },
        &config_, &errors);
    Status parsed = config_.Finish(errors);
    ASSERT_TRUE(parsed.ok()) << parsed.ToString();
    scheduler_ = std::make_unique<MockScheduler>(now_);
    auto m = LogManager::Open(config_, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    if (!logs_->FindTopic("data").ok()) {
      ASSERT_TRUE(logs_->CreateTopic("data", 2).ok());
    }
    auto c = TransactionCoordinator::Open(config_.txn, logs_.get(), scheduler_.get(),
                                          [this](const std::string& l) { lines_.push_back(l); });
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    txn_ = std::move(c).value();
    txn_->Start([this](const TopicPartition& tp, int64_t pid, int16_t epoch, int32_t ce,
                       bool commit, int64_t) { return WriteMarker(tp, pid, epoch, ce, commit); });
  }
  void Close() {
    if (txn_) txn_->Shutdown();
    txn_.reset();
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
    if (scheduler_) now_ = scheduler_->NowMs();
  }
  void Reopen() {
    Close();
    Open();
  }

  int16_t WriteMarker(const TopicPartition& tp, int64_t pid, int16_t epoch, int32_t ce,
                      bool commit) {
    if (fail_markers_) return ke::kNotLeaderOrFollower;
    markers_.push_back({tp, pid, epoch, commit});
    Result<std::shared_ptr<Log>> log = logs_->GetLog(tp);
    if (!log.ok()) return ke::kUnknownTopicOrPartition;
    return WriteTransactionMarker(**log, pid, epoch, ce, commit, scheduler_->NowMs());
  }

  // A transactional batch of one record from (pid, epoch) at `seq`; the partition's error code.
  int16_t Produce(int32_t partition, int64_t pid, int16_t epoch, int32_t seq) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = epoch;
    o.base_sequence = seq;
    o.is_transactional = true;
    RecordBatchBuilder b(o);
    const std::string v = "v" + std::to_string(seq);
    EXPECT_TRUE(b.Append(scheduler_->NowMs(), std::nullopt,
                         Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()))
                    .ok());
    auto batch = b.Build();
    EXPECT_TRUE(batch.ok());
    auto log = logs_->GetLog({"data", partition});
    EXPECT_TRUE(log.ok());
    auto info = (*log)->AppendAsLeader(*batch, 0, AppendOrigin::kClient);
    return info.ok() ? ke::kNone : ke::FromStatus(info.status());
  }

  std::shared_ptr<Log> Data(int32_t partition) { return *logs_->GetLog({"data", partition}); }

  TransactionCoordinator::ProducerIdAndEpoch Init(const std::string& id, int32_t timeout = 60000) {
    return txn_->InitProducerId(id, timeout, -1, -1);
  }

  bool Logged(const std::string& part) const {
    for (const auto& l : lines_) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }

  testing::TempDir dir_;
  int64_t now_ = kT0;
  // The node's settings this test reads: storage's and the transaction coordinator's.
  struct TestConfig : LogManagerConfig {
    TransactionCoordinatorConfig txn;
  };
  TestConfig config_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<TransactionCoordinator> txn_;
  std::vector<std::string> lines_;
  std::vector<Marker> markers_;
  bool fail_markers_ = false;
};

const TopicPartition kP0{"data", 0};
const TopicPartition kP1{"data", 1};

TEST_F(TransactionCoordinatorTest, InitProducerIdBumpsTheEpochOfOneProducerId) {
  auto a = Init("t");
  ASSERT_EQ(a.error_code, ke::kNone);
  EXPECT_GE(a.producer_id, 0);
  EXPECT_EQ(a.producer_epoch, 0);
  auto b = Init("t");
  ASSERT_EQ(b.error_code, ke::kNone);
  EXPECT_EQ(b.producer_id, a.producer_id);
  EXPECT_EQ(b.producer_epoch, 1);
  auto other = Init("u");
  EXPECT_NE(other.producer_id, a.producer_id);
  // KIP-360: a client that names its current pid and epoch gets the next epoch; a retry with the
  // epoch it had before gets the same answer again; anything else is fenced.
  auto c = txn_->InitProducerId("t", 60000, a.producer_id, 1);
  ASSERT_EQ(c.error_code, ke::kNone);
  EXPECT_EQ(c.producer_epoch, 2);
  auto retry = txn_->InitProducerId("t", 60000, a.producer_id, 1);
  EXPECT_EQ(retry.error_code, ke::kNone);
  EXPECT_EQ(retry.producer_epoch, 2);
  EXPECT_EQ(txn_->InitProducerId("t", 60000, a.producer_id, 0).error_code, ke::kProducerFenced);
  EXPECT_EQ(txn_->InitProducerId("t", 60000, a.producer_id + 100, 2).error_code,
            ke::kProducerFenced);
  // Survives a restart: the same producer id, the next epoch.
  Reopen();
  auto d = Init("t");
  ASSERT_EQ(d.error_code, ke::kNone);
  EXPECT_EQ(d.producer_id, a.producer_id);
  EXPECT_EQ(d.producer_epoch, 3);
}

TEST_F(TransactionCoordinatorTest, InitProducerIdRefusesBadArguments) {
  EXPECT_EQ(Init("", 1000).error_code, ke::kInvalidRequest);
  EXPECT_EQ(Init("t", 0).error_code, ke::kInvalidTransactionTimeout);
  EXPECT_EQ(Init("t", -5).error_code, ke::kInvalidTransactionTimeout);
  EXPECT_EQ(Init("t", 900001).error_code, ke::kInvalidTransactionTimeout);
  EXPECT_EQ(Init("t", 900000).error_code, ke::kNone);
  EXPECT_EQ(txn_->InitProducerId("t", 1000, 5, -1).error_code, ke::kInvalidRequest);
  EXPECT_EQ(txn_->InitProducerId("t", 1000, -1, 5).error_code, ke::kInvalidRequest);
}

TEST_F(TransactionCoordinatorTest, CommitWritesAMarkerToEveryPartitionThenCompletes) {
  auto p = Init("t");
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0, kP1}), ke::kNone);
  ASSERT_EQ(Produce(0, p.producer_id, p.producer_epoch, 0), ke::kNone);
  ASSERT_EQ(Produce(1, p.producer_id, p.producer_epoch, 0), ke::kNone);
  EXPECT_EQ(Data(0)->last_stable_offset(), 0);
  auto d = txn_->Describe("t");
  EXPECT_EQ(d.transaction_state, "Ongoing");
  EXPECT_EQ(d.transaction_start_time_ms, kT0);
  ASSERT_EQ(d.topics.size(), 1u);
  EXPECT_EQ(d.topics[0].partitions, (std::vector<int32_t>{0, 1}));

  ASSERT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code, ke::kNone);
  ASSERT_EQ(markers_.size(), 2u);
  for (const Marker& m : markers_) {
    EXPECT_TRUE(m.commit);
    EXPECT_EQ(m.producer_epoch, p.producer_epoch);
  }
  EXPECT_EQ(Data(0)->last_stable_offset(), 2);  // the record and its marker
  EXPECT_EQ(Data(1)->last_stable_offset(), 2);
  auto aborted = Data(0)->CollectAbortedTransactions(0, 2);
  ASSERT_TRUE(aborted.ok());
  EXPECT_TRUE(aborted->empty());
  d = txn_->Describe("t");
  EXPECT_EQ(d.transaction_state, "CompleteCommit");
  EXPECT_TRUE(d.topics.empty());
  // A retried commit is answered as done; an abort of it is not a valid transition; neither
  // writes anything.
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code, ke::kNone);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, false).error_code,
            ke::kInvalidTxnState);
  EXPECT_EQ(markers_.size(), 2u);
  // The next transaction of the same producer, in the same epoch.
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0}), ke::kNone);
  ASSERT_EQ(Produce(0, p.producer_id, p.producer_epoch, 1), ke::kNone);
  ASSERT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, false).error_code, ke::kNone);
  ASSERT_EQ(markers_.size(), 3u);
  EXPECT_FALSE(markers_[2].commit);
  aborted = Data(0)->CollectAbortedTransactions(0, Data(0)->last_stable_offset());
  ASSERT_TRUE(aborted.ok());
  EXPECT_EQ(*aborted, (std::vector<AbortedTransaction>{AbortedTransaction{p.producer_id, 2}}));
  EXPECT_EQ(txn_->Describe("t").transaction_state, "CompleteAbort");
}

TEST_F(TransactionCoordinatorTest, RequestsOutOfOrderGetKafkasErrors) {
  EXPECT_EQ(txn_->EndTxn("nobody", 1, 0, true).error_code, ke::kInvalidProducerIdMapping);
  EXPECT_EQ(txn_->AddPartitions("nobody", 1, 0, {kP0}), ke::kInvalidProducerIdMapping);
  auto p = Init("t");
  // EndTxn of a transaction that was never begun.
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code,
            ke::kInvalidTxnState);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, false).error_code,
            ke::kInvalidTxnState);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id + 1, p.producer_epoch, true).error_code,
            ke::kInvalidProducerIdMapping);
  EXPECT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch + 1, {kP0}),
            ke::kProducerFenced);
  EXPECT_EQ(txn_->AddPartitions("t", p.producer_id + 1, p.producer_epoch, {kP0}),
            ke::kInvalidProducerIdMapping);
  EXPECT_EQ(txn_->AddPartitions("", p.producer_id, p.producer_epoch, {kP0}), ke::kInvalidRequest);
  // A transactional batch the coordinator was not told about fails verification.
  auto v = txn_->VerifyPartitions("t", p.producer_id, p.producer_epoch, {kP0});
  EXPECT_EQ(v.error_code, ke::kNone);
  EXPECT_EQ(v.partition_errors, (std::vector<int16_t>{ke::kTransactionAbortable}));
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0}), ke::kNone);
  v = txn_->VerifyPartitions("t", p.producer_id, p.producer_epoch, {kP0, kP1});
  EXPECT_EQ(v.partition_errors, (std::vector<int16_t>{ke::kNone, ke::kTransactionAbortable}));
  EXPECT_EQ(txn_->VerifyPartitions("t", p.producer_id, p.producer_epoch - 1, {kP0}).error_code,
            ke::kProducerFenced);
  EXPECT_EQ(txn_->VerifyPartitions("t", 999999, p.producer_epoch, {kP0}).error_code,
            ke::kInvalidProducerIdMapping);
  EXPECT_TRUE(markers_.empty());
}

TEST_F(TransactionCoordinatorTest, ASecondProducerFencesTheFirstAndAbortsItsTransaction) {
  auto zombie = Init("t");
  ASSERT_EQ(txn_->AddPartitions("t", zombie.producer_id, zombie.producer_epoch, {kP0}), ke::kNone);
  ASSERT_EQ(Produce(0, zombie.producer_id, zombie.producer_epoch, 0), ke::kNone);
  // The new instance's InitProducerId fences and aborts, and is told to retry.
  EXPECT_EQ(Init("t").error_code, ke::kConcurrentTransactions);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_FALSE(markers_[0].commit);
  EXPECT_EQ(markers_[0].producer_epoch, zombie.producer_epoch + 1);
  EXPECT_EQ(txn_->Describe("t").transaction_state, "CompleteAbort");
  auto fresh = Init("t");
  ASSERT_EQ(fresh.error_code, ke::kNone);
  EXPECT_EQ(fresh.producer_id, zombie.producer_id);
  EXPECT_EQ(fresh.producer_epoch, zombie.producer_epoch + 2);
  // The zombie can do nothing more: not at the coordinator, not at the partition.
  EXPECT_EQ(txn_->AddPartitions("t", zombie.producer_id, zombie.producer_epoch, {kP1}),
            ke::kProducerFenced);
  EXPECT_EQ(txn_->EndTxn("t", zombie.producer_id, zombie.producer_epoch, true).error_code,
            ke::kProducerFenced);
  EXPECT_EQ(Produce(0, zombie.producer_id, zombie.producer_epoch, 1), ke::kInvalidProducerEpoch);
  EXPECT_EQ(Data(0)->last_stable_offset(), 2);
  auto aborted = Data(0)->CollectAbortedTransactions(0, 2);
  ASSERT_TRUE(aborted.ok());
  EXPECT_EQ(aborted->size(), 1u);
}

TEST_F(TransactionCoordinatorTest, ATransactionOpenPastItsTimeoutIsAborted) {
  auto p = Init("t", 5000);
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0, kP1}), ke::kNone);
  ASSERT_EQ(Produce(1, p.producer_id, p.producer_epoch, 0), ke::kNone);
  scheduler_->Advance(4000);  // the periodic task runs at 1 s, 2 s, ...: not yet
  EXPECT_TRUE(markers_.empty());
  EXPECT_EQ(txn_->Describe("t").transaction_state, "Ongoing");
  scheduler_->Advance(2000);
  ASSERT_EQ(markers_.size(), 2u);
  EXPECT_FALSE(markers_[0].commit);
  EXPECT_EQ(markers_[0].producer_epoch, p.producer_epoch + 1);
  auto d = txn_->Describe("t");
  EXPECT_EQ(d.transaction_state, "CompleteAbort");
  EXPECT_EQ(d.producer_epoch, p.producer_epoch + 1);
  EXPECT_TRUE(Logged("longer than its timeout of 5000 ms"));
  EXPECT_EQ(Data(1)->last_stable_offset(), Data(1)->log_end_offset());
  // The timed-out producer is fenced.
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code,
            ke::kProducerFenced);
  EXPECT_EQ(Produce(1, p.producer_id, p.producer_epoch, 1), ke::kInvalidProducerEpoch);
}

TEST_F(TransactionCoordinatorTest, MarkersThatFailAreRetriedAndSurviveARestart) {
  auto p = Init("t");
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0, kP1}), ke::kNone);
  ASSERT_EQ(Produce(0, p.producer_id, p.producer_epoch, 0), ke::kNone);
  fail_markers_ = true;
  // The commit decision is durable once PrepareCommit is written: the answer is NONE.
  ASSERT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code, ke::kNone);
  auto d = txn_->Describe("t");
  EXPECT_EQ(d.transaction_state, "PrepareCommit");
  ASSERT_EQ(d.topics.size(), 1u);
  EXPECT_EQ(d.topics[0].partitions.size(), 2u);
  // Meanwhile the producer is told to wait.
  EXPECT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0}),
            ke::kConcurrentTransactions);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code,
            ke::kConcurrentTransactions);
  EXPECT_EQ(Init("t").error_code, ke::kConcurrentTransactions);
  EXPECT_EQ(Data(0)->last_stable_offset(), 0);
  // A crash before the markers: the load finds PrepareCommit and writes them all.
  Reopen();
  fail_markers_ = false;
  EXPECT_EQ(txn_->Describe("t").transaction_state, "PrepareCommit");
  txn_->RetryPendingMarkers();
  ASSERT_EQ(markers_.size(), 2u);
  EXPECT_TRUE(markers_[0].commit);
  EXPECT_EQ(txn_->Describe("t").transaction_state, "CompleteCommit");
  EXPECT_EQ(Data(0)->last_stable_offset(), 2);
  auto next = Init("t");
  EXPECT_EQ(next.error_code, ke::kNone);
  EXPECT_EQ(next.producer_epoch, p.producer_epoch + 1);
}

TEST_F(TransactionCoordinatorTest, ARestartFindsPreparedTransactionsAtStart) {
  auto p = Init("t");
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP1}), ke::kNone);
  ASSERT_EQ(Produce(1, p.producer_id, p.producer_epoch, 0), ke::kNone);
  fail_markers_ = true;
  ASSERT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, false).error_code, ke::kNone);
  Close();
  fail_markers_ = false;
  Open();  // Start() completes what the load found prepared
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_FALSE(markers_[0].commit);
  EXPECT_EQ(txn_->Describe("t").transaction_state, "CompleteAbort");
  auto aborted = Data(1)->CollectAbortedTransactions(0, Data(1)->last_stable_offset());
  ASSERT_TRUE(aborted.ok());
  EXPECT_EQ(aborted->size(), 1u);
}

TEST_F(TransactionCoordinatorTest, AMarkerAPartitionRefusesStallsTheTransaction) {
  auto p = Init("t");
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0}), ke::kNone);
  ASSERT_EQ(Produce(0, p.producer_id, p.producer_epoch, 0), ke::kNone);
  // The partition already saw a newer epoch of this producer (written behind the coordinator's
  // back): the marker is refused, and the transaction stays prepared without retries.
  ASSERT_EQ(WriteTransactionMarker(*Data(0), p.producer_id, p.producer_epoch + 5, 0, false, kT0),
            ke::kNone);
  markers_.clear();
  ASSERT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, true).error_code, ke::kNone);
  EXPECT_EQ(txn_->Describe("t").transaction_state, "PrepareCommit");
  EXPECT_TRUE(Logged("was refused by data-0"));
  markers_.clear();
  txn_->RetryPendingMarkers();
  EXPECT_TRUE(markers_.empty());
}

TEST_F(TransactionCoordinatorTest, AnExhaustedEpochGetsANewProducerId) {
  auto p = Init("t");
  ASSERT_TRUE(txn_->EnsureStateTopic().ok());
  // The id's record as a long-lived producer leaves it: epoch 32766.
  TransactionMetadata m;
  m.transactional_id = "t";
  m.producer_id = p.producer_id;
  m.previous_producer_id = p.producer_id;
  m.producer_epoch = kExhaustedProducerEpoch;
  m.txn_timeout_ms = 60000;
  m.state = TransactionState::kCompleteCommit;
  m.txn_last_update_timestamp_ms = kT0;
  TransactionLogRecord r = TransactionRecord(m, 0);
  RecordBatchBuilder b{BatchOptions{}};
  ASSERT_TRUE(b.Append(kT0, Bytes(r.key), Bytes(*r.value)).ok());
  auto batch = b.Build();
  ASSERT_TRUE(batch.ok());
  auto log = logs_->GetLog({kTransactionStateTopic, txn_->PartitionFor("t")});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->AppendAsLeader(*batch, 0, AppendOrigin::kCoordinator).ok());
  Reopen();
  auto rotated = Init("t");
  ASSERT_EQ(rotated.error_code, ke::kNone);
  EXPECT_NE(rotated.producer_id, p.producer_id);
  EXPECT_EQ(rotated.producer_epoch, 0);
}

TEST_F(TransactionCoordinatorTest, IdleIdsExpireAndStayGoneAfterARestart) {
  Close();
  Open({{"transactional.id.expiration.ms", "60000"},
        {"transaction.remove.expired.transaction.cleanup.interval.ms", "10000"}});
  auto idle = Init("idle");
  scheduler_->Advance(30000);
  auto busy = Init("busy");
  ASSERT_EQ(txn_->AddPartitions("busy", busy.producer_id, busy.producer_epoch, {kP0}), ke::kNone);
  scheduler_->Advance(40000);  // idle: 70 s unused; busy: its transaction is open
  EXPECT_EQ(txn_->Describe("idle").error_code, ke::kTransactionalIdNotFound);
  EXPECT_EQ(txn_->Describe("busy").error_code, ke::kNone);
  Close();
  Open({{"transactional.id.expiration.ms", "60000"}});
  EXPECT_EQ(txn_->Describe("idle").error_code, ke::kTransactionalIdNotFound);
  EXPECT_EQ(txn_->Describe("busy").error_code, ke::kNone);
  // A new InitProducerId for the expired id starts over with a new producer id.
  auto again = Init("idle");
  EXPECT_NE(again.producer_id, idle.producer_id);
  EXPECT_EQ(again.producer_epoch, 0);
}

TEST_F(TransactionCoordinatorTest, ListFiltersByStateProducerIdDurationAndPattern) {
  auto a = Init("app-1");
  auto b = Init("app-2");
  Init("other");
  ASSERT_EQ(txn_->AddPartitions("app-1", a.producer_id, a.producer_epoch, {kP0}), ke::kNone);
  scheduler_->Advance(500);
  auto names = [](const protocol::ListTransactionsResponseData& r) {
    std::set<std::string> out;
    for (const auto& t : r.transaction_states) out.insert(t.transactional_id);
    return out;
  };
  protocol::ListTransactionsRequestData req;
  EXPECT_EQ(names(txn_->List(req)), (std::set<std::string>{"app-1", "app-2", "other"}));
  req.state_filters = {"Ongoing", "Nonsense"};
  auto r = txn_->List(req);
  EXPECT_EQ(names(r), (std::set<std::string>{"app-1"}));
  EXPECT_EQ(r.unknown_state_filters, (std::vector<std::string>{"Nonsense"}));
  req.state_filters = {"Nonsense"};
  EXPECT_TRUE(txn_->List(req).transaction_states.empty());
  req.state_filters.clear();
  req.producer_id_filters = {b.producer_id};
  EXPECT_EQ(names(txn_->List(req)), (std::set<std::string>{"app-2"}));
  req.producer_id_filters.clear();
  req.duration_filter = 1000;  // open longer than 1 s: none (Empty ids always pass)
  EXPECT_EQ(names(txn_->List(req)), (std::set<std::string>{"app-2", "other"}));
  req.duration_filter = 100;
  EXPECT_EQ(names(txn_->List(req)), (std::set<std::string>{"app-1", "app-2", "other"}));
  req.duration_filter = -1;
  req.transactional_id_pattern = "app-.";
  EXPECT_EQ(names(txn_->List(req)), (std::set<std::string>{"app-1", "app-2"}));
  req.transactional_id_pattern = "app";  // the whole id must match
  EXPECT_TRUE(txn_->List(req).transaction_states.empty());
  req.transactional_id_pattern = "app-(";
  EXPECT_EQ(txn_->List(req).error_code, ke::kInvalidRegularExpression);
  EXPECT_EQ(txn_->Describe("").error_code, ke::kInvalidRequest);
  EXPECT_EQ(txn_->Describe("missing").error_code, ke::kTransactionalIdNotFound);
}

TEST_F(TransactionCoordinatorTest, CorruptRecordsAreSkippedAtLoad) {
  auto p = Init("t");
  const int32_t partition = txn_->PartitionFor("t");
  RecordBatchBuilder b{BatchOptions{}};
  TransactionMetadata named;
  named.transactional_id = "t";
  const std::vector<uint8_t> key = TransactionRecord(named, 0).key;
  const std::vector<uint8_t> junk = {0, 0, 1, 2, 3};
  ASSERT_TRUE(b.Append(kT0, Bytes(key), Bytes(junk)).ok());
  auto batch = b.Build();
  ASSERT_TRUE(batch.ok());
  auto log = logs_->GetLog({kTransactionStateTopic, partition});
  ASSERT_TRUE((*log)->AppendAsLeader(*batch, 0, AppendOrigin::kCoordinator).ok());
  Reopen();
  EXPECT_TRUE(Logged("Skipping the corrupt record"));
  // The record before it still holds.
  auto again = Init("t");
  EXPECT_EQ(again.producer_id, p.producer_id);
  EXPECT_EQ(again.producer_epoch, p.producer_epoch + 1);
}

// ---- transaction.version 2 (KIP-890 part 2) ----

class TransactionCoordinatorTv2Test : public TransactionCoordinatorTest {
 protected:
  void SetUp() override { Open({{"transaction.version", "2"}}); }
  void Reopen() {
    Close();
    Open({{"transaction.version", "2"}});
  }
};

TEST_F(TransactionCoordinatorTv2Test, EveryEndTxnBumpsTheEpochAndAnswersIt) {
  auto p = Init("t");
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, p.producer_epoch, {kP0}, 2), ke::kNone);
  ASSERT_EQ(Produce(0, p.producer_id, p.producer_epoch, 0), ke::kNone);
  auto c = txn_->EndTxn("t", p.producer_id, p.producer_epoch, true, 2);
  ASSERT_EQ(c.error_code, ke::kNone);
  EXPECT_EQ(c.producer_id, p.producer_id);
  EXPECT_EQ(c.producer_epoch, p.producer_epoch + 1);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_EQ(markers_[0].producer_epoch, p.producer_epoch + 1);  // the marker fences the old epoch
  EXPECT_EQ(Data(0)->last_stable_offset(), 2);
  // A retry with the old epoch (the answer was lost) is answered as done, with the new epoch.
  auto retry = txn_->EndTxn("t", p.producer_id, p.producer_epoch, true, 2);
  EXPECT_EQ(retry.error_code, ke::kNone);
  EXPECT_EQ(retry.producer_epoch, p.producer_epoch + 1);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch, false, 2).error_code,
            ke::kInvalidTxnState);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, p.producer_epoch - 1, true, 2).error_code,
            ke::kProducerFenced);
  // The old epoch can write nothing more to the partition.
  EXPECT_EQ(Produce(0, p.producer_id, p.producer_epoch, 1), ke::kInvalidProducerEpoch);
  // The next transaction at the new epoch; an abort with nothing begun is allowed and bumps.
  const int16_t e1 = c.producer_epoch;
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, e1, {kP1}, 2), ke::kNone);
  ASSERT_EQ(Produce(1, p.producer_id, e1, 0), ke::kNone);
  auto a = txn_->EndTxn("t", p.producer_id, e1, false, 2);
  ASSERT_EQ(a.error_code, ke::kNone);
  EXPECT_EQ(a.producer_epoch, e1 + 1);
  auto empty_abort = txn_->EndTxn("t", p.producer_id, a.producer_epoch, false, 2);
  ASSERT_EQ(empty_abort.error_code, ke::kNone);
  EXPECT_EQ(empty_abort.producer_epoch, e1 + 2);
  EXPECT_EQ(txn_->EndTxn("t", p.producer_id, empty_abort.producer_epoch, true, 2).error_code,
            ke::kInvalidTxnState);  // a commit of nothing
  EXPECT_EQ(txn_->Describe("t").transaction_state, "CompleteAbort");
  // Written at value version 1 with the client's transaction version, and read back.
  Reopen();
  auto d = txn_->Describe("t");
  EXPECT_EQ(d.producer_epoch, e1 + 2);
  auto again = Init("t");
  EXPECT_EQ(again.producer_id, p.producer_id);
  EXPECT_EQ(again.producer_epoch, e1 + 3);
}

TEST_F(TransactionCoordinatorTv2Test, AnExhaustedEpochMovesToANewProducerIdAtTheEndOfATransaction) {
  auto p = Init("t");
  ASSERT_TRUE(txn_->EnsureStateTopic().ok());
  TransactionMetadata m;
  m.transactional_id = "t";
  m.producer_id = p.producer_id;
  m.previous_producer_id = p.producer_id;
  m.producer_epoch = kExhaustedProducerEpoch;
  m.txn_timeout_ms = 60000;
  m.state = TransactionState::kCompleteCommit;
  m.txn_last_update_timestamp_ms = kT0;
  TransactionLogRecord r = TransactionRecord(m, 1);
  RecordBatchBuilder b{BatchOptions{}};
  ASSERT_TRUE(b.Append(kT0, Bytes(r.key), Bytes(*r.value)).ok());
  auto log = logs_->GetLog({kTransactionStateTopic, txn_->PartitionFor("t")});
  ASSERT_TRUE((*log)->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator).ok());
  Reopen();
  const int16_t e = kExhaustedProducerEpoch;
  ASSERT_EQ(txn_->AddPartitions("t", p.producer_id, e, {kP0}, 2), ke::kNone);
  ASSERT_EQ(Produce(0, p.producer_id, e, 0), ke::kNone);
  auto c = txn_->EndTxn("t", p.producer_id, e, true, 2);
  ASSERT_EQ(c.error_code, ke::kNone);
  EXPECT_NE(c.producer_id, p.producer_id);
  EXPECT_EQ(c.producer_epoch, 0);
  ASSERT_EQ(markers_.size(), 1u);
  EXPECT_EQ(markers_[0].producer_id, p.producer_id);  // the old id, at the last epoch
  EXPECT_EQ(markers_[0].producer_epoch, 32767);
  // The client's retry with the id and epoch it had is recognised.
  auto retry = txn_->EndTxn("t", p.producer_id, e, true, 2);
  EXPECT_EQ(retry.error_code, ke::kNone);
  EXPECT_EQ(retry.producer_id, c.producer_id);
  ASSERT_EQ(txn_->AddPartitions("t", c.producer_id, 0, {kP0}, 2), ke::kNone);
}

TEST_F(TransactionCoordinatorTv2Test, FencingAndTimeoutsBumpTwice) {
  auto zombie = Init("t", 5000);
  ASSERT_EQ(txn_->AddPartitions("t", zombie.producer_id, zombie.producer_epoch, {kP0}, 2),
            ke::kNone);
  ASSERT_EQ(Produce(0, zombie.producer_id, zombie.producer_epoch, 0), ke::kNone);
  scheduler_->Advance(6000);
  ASSERT_EQ(markers_.size(), 1u);
  // Kafka's fence (+1) then its own TV2 abort (+1).
  EXPECT_EQ(markers_[0].producer_epoch, zombie.producer_epoch + 2);
  EXPECT_EQ(txn_->EndTxn("t", zombie.producer_id, zombie.producer_epoch, true, 2).error_code,
            ke::kProducerFenced);
  auto next = Init("t");
  ASSERT_EQ(next.error_code, ke::kNone);
  EXPECT_EQ(next.producer_epoch, zombie.producer_epoch + 3);
}

}  // namespace
}  // namespace seglog
