// LogManager: moving partitions between its log directories (Kafka's AlterReplicaLogDirs: a
// -future copy that follows the partition, then the swap); see log_manager.h and
// docs/design/alter_replica_log_dirs.md.
#include <fmt/format.h>

#include <algorithm>

#include "base/coding.h"
#include "base/uuid.h"
#include "io/file_names.h"
#include "manager/log_manager.h"
#include "seglog/validation_error.h"

namespace seglog {

namespace {
// The whole batches at the start of `bytes` (a read may end in a partial one).
size_t WholeBatches(const std::vector<uint8_t>& bytes) {
  size_t pos = 0;
  while (pos + 12 <= bytes.size()) {
    const uint32_t length = LoadBEInt32(bytes.data() + pos + 8);
    if (bytes.size() - pos - 12 < length) break;
    pos += 12 + length;
  }
  return pos;
}

// Copies the batches of `from` past `to`'s log end offset (and at or above `from`'s log start)
// into `to`, at most `budget` bytes (unbounded when negative); returns the bytes copied.
Result<int64_t> CopyBatches(Log& from, Log& to, int64_t budget) {
  int64_t copied = 0;
  while (budget < 0 || copied < budget) {
    const int64_t offset = std::max(to.log_end_offset(), from.log_start_offset());
    const int64_t end = from.log_end_offset();
    if (offset >= end) break;
    const int32_t max_bytes = static_cast<int32_t>(
        budget < 0 ? 1 << 20 : std::clamp<int64_t>(budget - copied, 1, 1 << 20));
    SEGLOG_ASSIGN_OR_RETURN(FetchDataInfo read, from.Read(offset, max_bytes, true, end));
    std::vector<uint8_t> bytes;
    SEGLOG_RETURN_IF_ERROR(read.slice.ReadInto(&bytes));
    bytes.resize(WholeBatches(bytes));
    if (bytes.empty()) break;
    SEGLOG_RETURN_IF_ERROR(to.AppendWithAssignedOffsets(bytes).status());
    copied += static_cast<int64_t>(bytes.size());
  }
  return copied;
}
}  // namespace

int16_t LogManager::AlterReplicaLogDir(const TopicPartition& tp, const std::string& path) {
  if (!CheckWritable("move a partition").ok()) return kafka_error::kKafkaStorageError;
  LogDirectory* dest = nullptr;
  for (const auto& d : dirs_) {
    if (AbsoluteDir(d->dir()) == path) dest = d.get();
  }
  if (dest == nullptr) return 57;  // LOG_DIR_NOT_FOUND
  if (dest->offline()) return kafka_error::kKafkaStorageError;
  MutexLock admin(&admin_mu_);
  TopicMetadata md;
  {
    MutexLock l(&mu_);
    auto it = topics_.find(tp.topic);
    if (it == topics_.end() || tp.partition < 0 || tp.partition >= it->second.partitions) {
      return 3;  // UNKNOWN_TOPIC_OR_PARTITION
    }
    md = it->second;
    auto move = moves_.find(tp);
    if (move != moves_.end() && move->second == dest) return kafka_error::kNone;
  }
  CancelMove(tp);  // a move going elsewhere
  LogDirectory* src = DirFor(tp);
  std::shared_ptr<Log> current = src ? src->FindLog(tp) : nullptr;
  if (current == nullptr) return 9;  // REPLICA_NOT_AVAILABLE: no local log
  if (src->offline()) return kafka_error::kKafkaStorageError;  // its directory failed
  if (src == dest) return kafka_error::kNone;
  if (current->remote_log_enabled()) {
    logger_.Info(fmt::format("Moving {} to {} refused: seglog does not move tiered partitions",
                             PartitionDirName(tp), dest->dir()));
    return kafka_error::kKafkaStorageError;
  }
  Result<LogConfig> config = StoredTopicConfig(md.configs);
  if (!config.ok()) return kafka_error::kKafkaStorageError;
  Result<std::shared_ptr<Log>> future =
      dest->OpenFutureLog(tp, *config, md.topic_id, current->log_start_offset());
  if (!future.ok()) {
    logger_.Info(fmt::format("Moving {} to {} failed: {}", PartitionDirName(tp), dest->dir(),
                             future.status().ToString()));
    return kafka_error::kKafkaStorageError;
  }
  logger_.Info(fmt::format("Started moving partition {} from {} to {}", PartitionDirName(tp),
                           src->dir(), dest->dir()));
  MutexLock l(&mu_);
  moves_[tp] = dest;
  return kafka_error::kNone;
}

void LogManager::CancelMove(const TopicPartition& tp, const LogDirectory* only_to) {
  LogDirectory* dest = nullptr;
  {
    MutexLock l(&mu_);
    auto it = moves_.find(tp);
    if (it == moves_.end()) return;
    if (only_to != nullptr && it->second != only_to) return;  // a newer move: not this one
    dest = it->second;
    moves_.erase(it);
  }
  Result<std::string> deleted = dest->RemoveFutureLog(tp);
  if (!deleted.ok()) {
    logger_.Info(fmt::format("Cancelling the move of {}: {}", PartitionDirName(tp),
                             deleted.status().ToString()));
    return;
  }
  logger_.Info(
      fmt::format("The move of partition {} to {} is cancelled; {} is scheduled for deletion",
                  PartitionDirName(tp), dest->dir(), *deleted));
  MutexLock l(&mu_);
  pending_deletes_.push_back({*deleted, scheduler_->NowMs()});
}

Status LogManager::MoveReplicas(int64_t budget_bytes) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("move partitions"));
  std::map<TopicPartition, LogDirectory*, TopicPartitionLess> moves;
  {
    MutexLock l(&mu_);
    moves = moves_;
  }
  for (const auto& [tp, dest] : moves) {
    std::shared_ptr<Log> future = dest->FindFutureLog(tp);
    Result<std::shared_ptr<Log>> current = GetLog(tp);
    if (future == nullptr || !current.ok()) continue;  // cancelled or deleted meanwhile
    Result<int64_t> copied = CopyBatches(**current, *future, budget_bytes);
    if (!copied.ok()) {
      logger_.Info(fmt::format("Moving {} to {} failed: {}", PartitionDirName(tp), dest->dir(),
                               copied.status().ToString()));
      CancelMove(tp, dest);  // unless a newer move replaced it meanwhile
      continue;
    }
    budget_bytes -= *copied;
    if (future->log_end_offset() >= (*current)->log_end_offset()) {
      MutexLock admin(&admin_mu_);
      {
        MutexLock l(&mu_);
        auto it = moves_.find(tp);
        if (it == moves_.end() || it->second != dest) continue;  // cancelled meanwhile
      }
      if (Status s = CompleteMove(tp, dest); !s.ok()) {
        logger_.Info(fmt::format("Moving {} to {} failed: {}", PartitionDirName(tp), dest->dir(),
                                 s.ToString()));
      }
    }
    if (budget_bytes <= 0) break;
  }
  return Status::OK();
}

Status LogManager::CompleteMove(const TopicPartition& tp, LogDirectory* dest) {
  LogDirectory* src = DirFor(tp);
  std::shared_ptr<Log> current = src ? src->FindLog(tp) : nullptr;
  std::shared_ptr<Log> future = dest->FindFutureLog(tp);
  if (current == nullptr || future == nullptr) return Status::NotFound("the move ended");
  TopicMetadata md;
  {
    MutexLock l(&mu_);
    md = topics_[tp.topic];
  }
  SEGLOG_ASSIGN_OR_RETURN(LogConfig config, StoredTopicConfig(md.configs));
  // 1. Appends held (clients get NOT_LEADER_OR_FOLLOWER and retry), the rest copied.
  current->BlockAppends(true);
  Result<int64_t> rest = CopyBatches(*current, *future, -1);
  if (!rest.ok() || future->log_end_offset() != current->log_end_offset()) {
    current->BlockAppends(false);
    return rest.ok() ? Status::Aborted("the future log did not catch up") : rest.status();
  }
  if (future->log_start_offset() < current->log_start_offset()) {
    (void)future->DeleteRecords(current->log_start_offset());  // compact-only logs refuse
  }
  // 2. The old log renamed -delete: from here a crash leaves only the future log, which the
  // next open promotes (SettleFutureLogs). PromoteFutureLog flushes it first.
  Result<std::string> deleted = src->RemoveLog(tp);
  if (!deleted.ok()) {
    current->BlockAppends(false);
    return deleted.status();
  }
  // 3. The future log renamed <topic>-<p> and opened as the partition's log.
  Result<std::shared_ptr<Log>> promoted = dest->PromoteFutureLog(tp, config, md.topic_id);
  {
    MutexLock l(&mu_);
    moves_.erase(tp);
    pending_deletes_.push_back({*deleted, scheduler_->NowMs() + config.file_delete_delay_ms});
  }
  SEGLOG_RETURN_IF_ERROR(promoted.status());
  // The metadata names the new directory (if this fails or a crash comes first, the next
  // open records it: SettleMetadataPartitions).
  if (metadata_ != nullptr) {
    Status s = metadata_->AssignDirectories({{tp.topic, tp.partition, DirectoryIdOf(dest)}});
    if (!s.ok()) logger_.Warn(fmt::format("{}: {}", PartitionDirName(tp), s.ToString()));
  }
  logger_.Info(fmt::format("Moved partition {} from {} to {} (log end offset {})",
                           PartitionDirName(tp), src->dir(), dest->dir(),
                           (*promoted)->log_end_offset()));
  return Status::OK();
}

std::vector<LogManager::FutureLogInfo> LogManager::FutureLogs() const {
  std::map<TopicPartition, LogDirectory*, TopicPartitionLess> moves;
  {
    MutexLock l(&mu_);
    moves = moves_;
  }
  std::vector<FutureLogInfo> out;
  for (const auto& [tp, dest] : moves) {
    std::shared_ptr<Log> future = dest->FindFutureLog(tp);
    Result<std::shared_ptr<Log>> current = GetLog(tp);
    if (future == nullptr || !current.ok()) continue;
    out.push_back(
        {tp, dest->dir(), future, (*current)->log_end_offset() - future->log_end_offset()});
  }
  return out;
}

Status LogManager::SettleFutureLogs() {
  // Every directory's -future directories, in log.dirs order and then by name, so a partition
  // with two (which no single move leaves) keeps the first.
  for (const auto& d : dirs_) {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDirectory(d->dir()));
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (!name.ends_with("-future")) continue;
      Result<TopicPartition> tp = ParsePartitionDirName(name);
      if (!tp.ok()) continue;
      const std::string future = d->dir() + "/" + name;
      std::string current;
      for (const auto& other : dirs_) {
        const std::string path = other->dir() + "/" + PartitionDirName(*tp);
        if (env_->FileExists(path)) current = path;
      }
      if (!current.empty()) {
        // The move did not finish: the partition stays where it is, the copy goes.
        std::string hex;
        for (uint8_t b : Uuid::Random().bytes) hex += fmt::format("{:02x}", b);
        const std::string deleted =
            fmt::format("{}/{}.{}-delete", d->dir(), PartitionDirName(*tp), hex);
        SEGLOG_RETURN_IF_ERROR(env_->RenameFile(future, deleted));
        SEGLOG_RETURN_IF_ERROR(env_->SyncDirectory(d->dir()));
        logger_.Info(
            fmt::format("The move of partition {} to {} did not finish; its log stays in {} and "
                        "the copy {} is renamed to {} for deletion",
                        PartitionDirName(*tp), d->dir(), current, future, deleted));
        continue;
      }
      // No current log: a move whose last step was cut short (the old log already renamed
      // -delete after the copy was complete and flushed), or a log directory no longer
      // configured. The copy becomes the partition's log, as Kafka promotes an abandoned
      // future log.
      const std::string promoted = d->dir() + "/" + PartitionDirName(*tp);
      SEGLOG_RETURN_IF_ERROR(env_->RenameFile(future, promoted));
      SEGLOG_RETURN_IF_ERROR(env_->SyncDirectory(d->dir()));
      logger_.Warn(
          fmt::format("Partition {} has no log but the future log {}: it becomes the "
                      "partition's log ({})",
                      PartitionDirName(*tp), future, promoted));
    }
  }
  return Status::OK();
}

}  // namespace seglog
