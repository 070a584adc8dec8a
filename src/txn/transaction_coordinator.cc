// TransactionCoordinator: the facade, and the Core's opening, loading, appends, start and
// shutdown; see transaction_coordinator.h, transaction_coordinator_core.h (which file holds
// what) and docs/design/transactions.md. The rules are Kafka 4.4.0's TransactionCoordinator /
// TransactionMetadata (docs/design/transaction_coordinator_facts.md names the sections).
#include "txn/transaction_coordinator.h"

#include <fmt/format.h>

#include <chrono>

#include "coordinator/append_error.h"
#include "coordinator/coordinator_log.h"
#include "protocol/kafka_error.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "txn/transaction_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

Status TransactionCoordinator::Core::Open() {
  for (int32_t p = 0; p < topic_.partitions(); ++p) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->partition = p;
  }
  if (topic_.ready()) {
    for (auto& s : shards_) LoadShard(*s);
  }
  return Status::OK();
}

void TransactionCoordinator::Core::Start(MarkerWriter writer) {
  {
    MutexLock l(&writer_mu_);
    writer_ = std::make_shared<MarkerWriter>(std::move(writer));
  }
  std::weak_ptr<Core> weak = weak_from_this();
  scheduler_->Schedule(
      "transaction-abort",
      [weak] {
        if (auto c = weak.lock()) {
          c->AbortTimedOutTransactions();
          c->RetryPendingMarkers();
        }
      },
      config_.abort_timed_out_transaction_cleanup_interval_ms,
      config_.abort_timed_out_transaction_cleanup_interval_ms);
  scheduler_->Schedule(
      "transactionalId-expiration",
      [weak] {
        if (auto c = weak.lock()) c->RemoveExpiredTransactionalIds();
      },
      config_.remove_expired_transaction_cleanup_interval_ms,
      config_.remove_expired_transaction_cleanup_interval_ms);
  RetryPendingMarkers();  // the transactions the load found half-completed
}

Status TransactionCoordinator::Core::EnsureStateTopic() {
  return topic_.Ensure([this](int32_t p, std::shared_ptr<Log> log) {
    Shard& s = *shards_[p];
    MutexLock l(&s.mu);
    s.log = std::move(log);
  });
}

int16_t TransactionCoordinator::Core::Write(Shard& s, const TransactionMetadata& m) {
  return AppendRecord(s, TransactionRecord(m, config_.transaction_version >= 1 ? 1 : 0));
}

int16_t TransactionCoordinator::Core::AppendRecord(Shard& s, const TransactionLogRecord& r) {
  if (s.log == nullptr) return ke::kCoordinatorNotAvailable;
  CoordinatorBatch batch;
  batch.now_ms = scheduler_->NowMs();
  Result<LogAppendInfo> info = AppendCoordinatorRecords(*s.log, {&r, 1}, batch);
  if (!info.ok()) {
    Warn(fmt::format("Failed to write a record to {}-{}: {}", kTransactionStateTopic, s.partition,
                     info.status().ToString()));
    return TransactionCoordinatorAppendError(info.status());
  }
  return ke::kNone;
}

void TransactionCoordinator::Core::LoadShard(Shard& s) {
  const std::string tp = fmt::format("{}-{}", kTransactionStateTopic, s.partition);
  Result<std::shared_ptr<seglog::Log>> log = logs_->GetLog({kTransactionStateTopic, s.partition});
  MutexLock l(&s.mu);
  if (!log.ok()) {
    s.failed = true;
    Error(fmt::format("Failed to load transaction metadata from {}: {}", tp,
                      log.status().ToString()));
    return;
  }
  s.log = *log;
  const auto start = std::chrono::steady_clock::now();
  ReplayHandler h;
  h.record = [&](const RecordBatchView&, const Record& r) REQUIRES(s.mu) {
    if (!r.key) {
      Warn(fmt::format("Skipping a record without a key at offset {} of {}", r.offset, tp));
      return;
    }
    std::optional<std::span<const uint8_t>> value;
    if (r.value) value = *r.value;
    Result<LoadedTransactionRecord> rec = DecodeTransactionRecord(*r.key, value);
    if (!rec.ok()) {
      Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                       rec.status().ToString()));
      return;
    }
    if (!rec->skipped.empty()) {
      Warn(fmt::format("{} (offset {} of {})", rec->skipped, r.offset, tp));
      return;
    }
    if (rec->metadata) {
      s.txns[rec->transactional_id] = std::move(*rec->metadata);
    } else {
      s.txns.erase(rec->transactional_id);
    }
  };
  h.logger = logger_;
  Result<ReplayStats> loaded = ReplayCoordinatorLog(*s.log, tp, ReplayPolicy::kLenient, h);
  if (!loaded.ok()) {
    s.failed = true;
    Error(fmt::format("Failed to load transaction metadata from {}: {}", tp,
                      loaded.status().ToString()));
    return;
  }
  int prepared = 0;
  for (const auto& [id, m] : s.txns) {
    if (m.IsPrepare()) {
      // Its markers may not all be written: all of them again (a repeated marker is
      // harmless), then its Complete record.
      s.pending_markers[id] = m.partitions;
      ++prepared;
    }
  }
  if (loaded->records == 0) return;  // an empty partition: nothing worth a line
  Info(fmt::format(
      "Finished loading {} transaction metadata from {} in {} ms: {} records, {} "
      "transactions to complete",
      s.txns.size(), tp,
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                            start)
          .count(),
      loaded->records, prepared));
}

Result<std::unique_ptr<TransactionCoordinator>> TransactionCoordinator::Open(
    const TransactionCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
    Logger logger) {
  auto core = std::make_shared<Core>(config, logs, scheduler, logger);
  SEGLOG_RETURN_IF_ERROR(core->Open());
  return std::unique_ptr<TransactionCoordinator>(new TransactionCoordinator(std::move(core)));
}

TransactionCoordinator::TransactionCoordinator(std::shared_ptr<Core> core)
    : core_(std::move(core)) {}
TransactionCoordinator::~TransactionCoordinator() { Shutdown(); }
void TransactionCoordinator::Start(MarkerWriter writer) { core_->Start(std::move(writer)); }
void TransactionCoordinator::Shutdown() { core_->Shutdown(); }
Status TransactionCoordinator::EnsureStateTopic() { return core_->EnsureStateTopic(); }
int32_t TransactionCoordinator::PartitionFor(std::string_view id) const {
  return core_->PartitionFor(id);
}
TransactionCoordinator::ProducerIdAndEpoch TransactionCoordinator::InitProducerId(
    const std::string& id, int32_t timeout_ms, int64_t expected_producer_id,
    int16_t expected_epoch) {
  return core_->InitProducerId(id, timeout_ms, expected_producer_id, expected_epoch);
}
int16_t TransactionCoordinator::AddPartitions(const std::string& id, int64_t producer_id,
                                              int16_t producer_epoch,
                                              const std::vector<TopicPartition>& partitions,
                                              int16_t client_transaction_version) {
  return core_->AddPartitions(id, producer_id, producer_epoch, partitions,
                              client_transaction_version);
}
TransactionCoordinator::Verification TransactionCoordinator::VerifyPartitions(
    const std::string& id, int64_t producer_id, int16_t producer_epoch,
    const std::vector<TopicPartition>& partitions) {
  return core_->VerifyPartitions(id, producer_id, producer_epoch, partitions);
}
TransactionCoordinator::ProducerIdAndEpoch TransactionCoordinator::EndTxn(
    const std::string& id, int64_t producer_id, int16_t producer_epoch, bool commit,
    int16_t client_transaction_version) {
  return core_->EndTxn(id, producer_id, producer_epoch, commit, client_transaction_version);
}
protocol::DescribeTransactionsResponseData::TransactionState TransactionCoordinator::Describe(
    const std::string& id) {
  return core_->Describe(id);
}
protocol::ListTransactionsResponseData TransactionCoordinator::List(
    const protocol::ListTransactionsRequestData& req) {
  return core_->List(req);
}
void TransactionCoordinator::AbortTimedOutTransactions() { core_->AbortTimedOutTransactions(); }
void TransactionCoordinator::RemoveExpiredTransactionalIds() {
  core_->RemoveExpiredTransactionalIds();
}
void TransactionCoordinator::RetryPendingMarkers() { core_->RetryPendingMarkers(); }

}  // namespace seglog
