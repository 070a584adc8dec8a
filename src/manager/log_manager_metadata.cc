// LogManager and the metadata log: opening it, migrating an earlier seglog's directories into
// it, stray partition directories, and the partitions it names (see log_manager.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "io/atomic_file.h"
#include "io/file_names.h"
#include "manager/log_manager.h"

namespace seglog {

namespace {

// <dir>.<32 hex digits>-stray, as Kafka's LogManager renames a stray log.
std::string StrayName(const std::string& name) {
  std::string hex;
  for (uint8_t b : Uuid::Random().bytes) hex += fmt::format("{:02x}", b);
  return fmt::format("{}.{}-stray", name, hex);
}

}  // namespace

Uuid LogManager::DirectoryIdOf(const LogDirectory* dir) {
  Result<Uuid> id = Uuid::Parse(dir->meta().directory_id);
  return id.ok() ? id.value() : Uuid{};
}

std::vector<LogDirectory*> LogManager::AssignDirs(int n) const {
  std::vector<std::pair<size_t, LogDirectory*>> load;
  for (const auto& d : dirs_) {
    if (!d->offline()) load.emplace_back(d->num_logs(), d.get());
  }
  std::vector<LogDirectory*> out;
  if (load.empty()) return out;
  for (int i = 0; i < n; ++i) {
    auto best = std::min_element(load.begin(), load.end(),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
    out.push_back(best->second);
    ++best->first;
  }
  return out;
}

Status LogManager::OpenMetadata(const TopicMap& found) {
  if (dirs_.empty()) return Status::InvalidArgument("no log directory");
  LogDirectory* first = dirs_.front().get();
  MetadataStoreOptions o;
  o.node_id = config_.node_id;
  o.read_only = read_only_;
  o.env = env_;
  o.clock = [s = scheduler_] { return s->NowMs(); };
  o.logger = logger_;
  o.log.segment_bytes = config_.metadata_log_segment_bytes;
  o.log.segment_ms = config_.metadata_log_segment_ms;
  o.log.max_record_bytes_between_snapshots =
      config_.metadata_log_max_record_bytes_between_snapshots;
  o.log.max_snapshot_interval_ms = config_.metadata_log_max_snapshot_interval_ms;
  o.log.max_retention_bytes = config_.metadata_max_retention_bytes;
  o.log.max_retention_ms = config_.metadata_max_retention_ms;
  Result<std::unique_ptr<MetadataStore>> store = MetadataStore::Open(first->dir(), o);
  if (!store.ok()) {
    if (read_only_ && store.status().IsNotFound()) {
      // A read-only view of a directory without a metadata log (a copy of partition
      // directories, a directory of an earlier seglog): what the directories hold.
      topics_ = found;
      return Status::OK();
    }
    return store.status();
  }
  metadata_ = std::move(store).value();
  if (read_only_) {
    topics_ = metadata_->Topics();
    // Partition directories the metadata does not name are shown too (a read-only view
    // renames nothing).
    for (const auto& [name, md] : found) {
      if (!topics_.count(name)) topics_[name] = md;
    }
    return Status::OK();
  }
  SEGLOG_RETURN_IF_ERROR(metadata_->BecomeLeader());
  if (metadata_->formatted()) {
    // A directory without a metadata log: what an earlier seglog kept beside it becomes
    // records, and the old files are kept as .migrated.
    int migrated = 0;
    for (const auto& [name, md] : found) {
      if (name == kMetadataTopic) continue;
      Uuid id = Uuid::Random();
      if (!md.topic_id.empty()) {
        Result<Uuid> parsed = Uuid::Parse(md.topic_id);
        if (parsed.ok()) id = parsed.value();
      }
      std::vector<Uuid> dir_ids;
      for (int32_t p = 0; p < md.partitions; ++p) {
        Uuid dir_id = DirectoryIdOf(first);
        for (const auto& d : dirs_) {
          if (env_->FileExists(d->dir() + "/" + PartitionDirName({name, p}))) {
            dir_id = DirectoryIdOf(d.get());
            break;
          }
        }
        dir_ids.push_back(dir_id);
      }
      SEGLOG_RETURN_IF_ERROR(metadata_->CreateTopic(name, id, md.configs, dir_ids));
      ++migrated;
    }
    const std::string pid_file = first->dir() + "/" + kProducerIdBlockFile;
    if (env_->FileExists(pid_file)) {
      SEGLOG_ASSIGN_OR_RETURN(const int64_t next, ReadLegacyProducerIdFile(env_, pid_file));
      SEGLOG_RETURN_IF_ERROR(metadata_->MigrateProducerIds(next));
      SEGLOG_RETURN_IF_ERROR(env_->RenameFile(pid_file, pid_file + ".migrated"));
    }
    for (const auto& d : dirs_) {
      const std::string store_file = d->dir() + "/" + kTopicStoreFile;
      if (env_->FileExists(store_file)) {
        SEGLOG_RETURN_IF_ERROR(env_->RenameFile(store_file, store_file + ".migrated"));
        SEGLOG_RETURN_IF_ERROR(env_->SyncDirectory(d->dir()));
      }
    }
    if (migrated > 0) {
      logger_.Info(
          fmt::format("Migrated {} topic(s) into the metadata log of {}", migrated, first->dir()));
    }
  }
  std::vector<Uuid> dir_ids;
  for (const auto& d : dirs_) dir_ids.push_back(DirectoryIdOf(d.get()));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t broker_epoch, metadata_->RegisterBroker(dir_ids));
  for (const auto& d : dirs_) d->set_broker_epoch(broker_epoch);
  topics_ = metadata_->Topics();
  // Stray partition directories (Kafka's LogManager.isStrayReplica): no partition.metadata, a
  // topic id the metadata does not know, or a partition number the topic does not have. They
  // are renamed aside, never deleted.
  for (const auto& d : dirs_) {
    SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDirectory(d->dir()));
    for (const std::string& name : names) {
      if (!IsLoadablePartitionDir(name)) continue;
      const TopicPartition tp = *ParsePartitionDirName(name);
      auto id = ReadPartitionMetadata(env_, d->dir() + "/" + name + "/" + kPartitionMetadataFile);
      auto it = topics_.find(tp.topic);
      std::string why;
      if (!id.ok()) {
        // A directory without partition.metadata that the metadata names is the partition's
        // (an earlier seglog wrote it before its first append); only an unknown one is stray.
        if (it == topics_.end()) why = "it has no partition.metadata and its topic is unknown";
      } else if (it == topics_.end() || it->second.topic_id != *id) {
        why = fmt::format("the topicId {} does not exist in the metadata image", *id);
      }
      if (why.empty() && it != topics_.end() && tp.partition >= it->second.partitions) {
        why = fmt::format("partition {} is not in the metadata image", tp.partition);
      }
      if (why.empty()) continue;
      const std::string stray = StrayName(name);
      SEGLOG_RETURN_IF_ERROR(env_->RenameFile(d->dir() + "/" + name, d->dir() + "/" + stray));
      SEGLOG_RETURN_IF_ERROR(env_->SyncDirectory(d->dir()));
      logger_.Warn(fmt::format("Log in {}/{} marked stray and renamed to {}/{}: {}", d->dir(), name,
                               d->dir(), stray, why));
    }
  }
  return Status::OK();
}

std::map<Uuid, AclBinding> LogManager::Acls() const {
  return metadata_ != nullptr ? metadata_->Acls() : std::map<Uuid, AclBinding>{};
}

std::vector<Status> LogManager::CreateAcls(const std::vector<AclBinding>& acls) {
  Status refused = CheckWritable("create ACLs");
  if (refused.ok() && metadata_ == nullptr) {
    refused = Status::FailedPrecondition("there is no metadata log");
  }
  if (!refused.ok()) return std::vector<Status>(acls.size(), refused);
  return metadata_->CreateAcls(acls);
}

Result<std::vector<std::vector<std::pair<Uuid, AclBinding>>>> LogManager::DeleteAcls(
    const std::vector<AclBindingFilter>& filters) {
  SEGLOG_RETURN_IF_ERROR(CheckWritable("delete ACLs"));
  if (metadata_ == nullptr) return Status::FailedPrecondition("there is no metadata log");
  return metadata_->DeleteAcls(filters);
}

int16_t LogManager::KRaftVersion() const {
  return metadata_ != nullptr ? metadata_->KRaftVersion() : 0;
}

Status LogManager::SettleMetadataPartitions() {
  MutexLock admin(&admin_mu_);
  // Partitions the metadata names without a directory (a crash after the record, or a
  // directory Kafka had not created yet): created now, as Kafka creates a new partition.
  for (const auto& [name, md] : AllTopicMetadata()) {
    for (int32_t p = 0; p < md.partitions; ++p) {
      if (DirFor({name, p}) != nullptr) continue;
      const std::vector<LogDirectory*> dirs = AssignDirs(1);
      if (dirs.empty()) return Status::IOError("KafkaStorageException: no log directory is online");
      logger_.Info(fmt::format("Creating new partition {}", PartitionDirName({name, p})));
      SEGLOG_RETURN_IF_ERROR(CreatePartitions(name, md, p, dirs));
    }
  }
  // Each partition's directory as the logs are placed (a move the metadata did not record
  // yet, or one Kafka's broker made), as a Kafka broker reports it at start.
  std::vector<MetadataStore::PartitionDir> where;
  for (const LogRef& ref : AllLogs()) {
    where.push_back({ref.tp.topic, ref.tp.partition, DirectoryIdOf(ref.dir)});
  }
  SEGLOG_RETURN_IF_ERROR(metadata_->AssignDirectories(where));
  SEGLOG_RETURN_IF_ERROR(metadata_->TakeLeadership());
  // Every log appends in its partition's leader epoch from now on.
  const auto epochs = metadata_->LeaderEpochs();
  for (const LogRef& ref : AllLogs()) {
    auto it = epochs.find(ref.tp.topic);
    if (it == epochs.end() || ref.tp.partition >= static_cast<int32_t>(it->second.size())) continue;
    SEGLOG_RETURN_IF_ERROR(
        ref.log->BecomeLeader(it->second[static_cast<size_t>(ref.tp.partition)]));
  }
  return Status::OK();
}

}  // namespace seglog
