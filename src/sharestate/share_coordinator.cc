// ShareCoordinator; see share_coordinator.h. The rules are Kafka 4.4.0's ShareCoordinatorShard
// and ShareCoordinatorService (docs/design/share_groups.md §1.6).
#include "sharestate/share_coordinator.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <map>

#include "base/java_string.h"
#include "base/mutex.h"
#include "coordinator/append_error.h"
#include "coordinator/coordinator_log.h"
#include "coordinator/coordinator_shard.h"
#include "coordinator/internal_topic.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

namespace ke = kafka_error;

constexpr int16_t kFencedStateEpoch = 124;

constexpr const char* kNotAvailable = "Share coordinator is not available.";
constexpr const char* kNegativePartition = "The partition id cannot be a negative number.";
constexpr const char* kNegativeLeaderEpoch = "The leader epoch cannot be a negative number.";
constexpr const char* kNegativeStateEpoch = "The state epoch cannot be a negative number.";
constexpr const char* kWriteUninitialized =
    "Write operation on uninitialized share partition not allowed.";
constexpr const char* kReadUninitialized =
    "Read operation on uninitialized share partition not allowed.";
constexpr const char* kFencedLeaderEpochMessage =
    "The leader epoch in the request is older than the epoch on the broker.";
constexpr const char* kFencedStateEpochMessage =
    "The coordinator rejected the request because the state epoch did not match.";
constexpr const char* kUnknownTopicMessage = "This server does not host this topic-partition.";

ShareCoordinator::Outcome Fail(int16_t code, std::string message) {
  ShareCoordinator::Outcome o;
  o.error_code = code;
  o.error_message = std::move(message);
  return o;
}

template <typename T>
T FailAs(const ShareCoordinator::Outcome& o) {
  T t;
  t.error_code = o.error_code;
  t.error_message = o.error_message;
  return t;
}

}  // namespace

// The coordinator's state behind the facade.
//
// Thread safety: thread-safe; see the header.
class ShareCoordinator::Core : public std::enable_shared_from_this<Core> {
 public:
  // A partition of __share_group_state: the share-partitions it holds (Kafka's shareStateMap,
  // leaderEpochMap, stateEpochMap, snapshotUpdateCount) and where their latest snapshots are
  // (ShareCoordinatorOffsetsManager).
  struct Shard : CoordinatorShard {
    std::map<SharePartitionKey, ShareGroupOffset> states GUARDED_BY(mu);
    std::map<SharePartitionKey, int32_t> leader_epochs GUARDED_BY(mu);
    std::map<SharePartitionKey, int32_t> state_epochs GUARDED_BY(mu);
    std::map<SharePartitionKey, int32_t> update_counts GUARDED_BY(mu);
    std::map<SharePartitionKey, int64_t> snapshot_offsets GUARDED_BY(mu);
    int64_t last_redundant_offset GUARDED_BY(mu) = INT64_MAX;
    int64_t pruned_to GUARDED_BY(mu) = 0;  // the offset the last prune deleted below
  };

  Core(const ShareCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
       TopicLookup topics, const Logger& logger)
      : config_(config),
        logs_(logs),
        scheduler_(scheduler),
        topics_(std::move(topics)),
        logger_(logger.WithPrefix("[ShareCoordinator id=1] ")),
        topic_(logs,
               {kShareGroupStateTopic,
                config_.state_topic_num_partitions,
                {{"cleanup.policy", "delete"},
                 {"compression.type", "producer"},
                 {"retention.ms", "-1"},
                 {"segment.bytes", std::to_string(config_.state_topic_segment_bytes)}}},
               logger_) {}

  Status Open() {
    for (int32_t p = 0; p < topic_.partitions(); ++p) {
      shards_.push_back(std::make_unique<Shard>());
      shards_.back()->partition = p;
    }
    if (topic_.ready()) {
      for (auto& s : shards_) LoadShard(*s);
    }
    return Status::OK();
  }

  void Start() {
    std::weak_ptr<Core> weak = weak_from_this();
    scheduler_->Schedule(
        "share-coordinator-prune",
        [weak] {
          if (auto c = weak.lock()) c->Prune();
        },
        config_.state_topic_prune_interval_ms, config_.state_topic_prune_interval_ms);
    scheduler_->Schedule(
        "share-coordinator-cold-snapshot",
        [weak] {
          if (auto c = weak.lock()) c->SnapshotColdPartitions();
        },
        config_.cold_partition_snapshot_interval_ms, config_.cold_partition_snapshot_interval_ms);
  }

  void Shutdown() { shut_down_.store(true); }

  int32_t PartitionFor(std::string_view coordinator_key) const {
    return topic_.PartitionFor(coordinator_key);
  }

  Status EnsureStateTopic() {
    return topic_.Ensure([this](int32_t p, std::shared_ptr<Log> log) {
      Shard& s = *shards_[p];
      MutexLock l(&s.mu);
      s.log = std::move(log);
    });
  }

  // ---- the operations ----

  Outcome Initialize(const SharePartitionKey& key, int32_t state_epoch, int64_t start_offset) {
    if (key.partition < 0) return Fail(ke::kInvalidRequest, kNegativePartition);
    if (state_epoch < 0) return Fail(ke::kInvalidRequest, kNegativeStateEpoch);
    Shard* s = nullptr;
    if (Outcome o = Enter(key, /*create=*/true, &s); o.error_code != 0) return o;
    const bool known = TopicHas(key);
    MutexLock l(&s->mu);
    if (Outcome o = Usable(*s); o.error_code != 0) return o;
    if (auto it = s->state_epochs.find(key);
        it != s->state_epochs.end() && it->second > state_epoch) {
      logger_.Info(
          fmt::format("Initialize request state epoch is smaller than last recorded current: {}, "
                      "requested: {}.",
                      it->second, state_epoch));
      return Fail(kFencedStateEpoch, kFencedStateEpochMessage);
    }
    if (!known) return Fail(ke::kUnknownTopicOrPartition, kUnknownTopicMessage);
    auto it = s->states.find(key);
    ShareGroupOffset v;
    v.snapshot_epoch = it == s->states.end() ? 0 : it->second.snapshot_epoch + 1;
    v.state_epoch = state_epoch;
    v.leader_epoch = 0;
    v.start_offset = start_offset;
    v.delivery_complete_count = start_offset == -1 ? -1 : 0;
    v.create_timestamp = v.write_timestamp = scheduler_->NowMs();
    return Append(*s, {ShareSnapshotRecord(key, v)});
  }

  ReadOutcome Read(const SharePartitionKey& key, int32_t leader_epoch) {
    if (key.partition < 0)
      return FailAs<ReadOutcome>(Fail(ke::kInvalidRequest, kNegativePartition));
    if (leader_epoch < 0) {
      return FailAs<ReadOutcome>(Fail(ke::kInvalidRequest, kNegativeLeaderEpoch));
    }
    Shard* s = nullptr;
    if (Outcome o = Enter(key, false, &s); o.error_code != 0) return FailAs<ReadOutcome>(o);
    const bool known = TopicHas(key);
    MutexLock l(&s->mu);
    if (Outcome o = Usable(*s); o.error_code != 0) return FailAs<ReadOutcome>(o);
    auto it = s->states.find(key);
    if (it == s->states.end()) {
      logger_.Error(fmt::format("Read on uninitialized share partition {}", key.CoordinatorKey()));
      return FailAs<ReadOutcome>(Fail(ke::kInvalidRequest, kReadUninitialized));
    }
    auto le = s->leader_epochs.find(key);
    if (le != s->leader_epochs.end() && le->second > leader_epoch) {
      return FailAs<ReadOutcome>(Fail(ke::kFencedLeaderEpoch, kFencedLeaderEpochMessage));
    }
    if (!known)
      return FailAs<ReadOutcome>(Fail(ke::kUnknownTopicOrPartition, kUnknownTopicMessage));
    ReadOutcome out;
    out.state_epoch = it->second.state_epoch;
    out.start_offset = it->second.start_offset;
    out.state_batches = it->second.state_batches;
    if (le != s->leader_epochs.end() && le->second == leader_epoch) return out;
    // A new leader: its epoch is recorded, so an older leader's writes are fenced.
    logger_.Info(
        fmt::format("Read with leader epoch update call for key {} having new leader epoch {}.",
                    key.CoordinatorKey(), leader_epoch));
    WriteData w;
    w.state_epoch = it->second.state_epoch;
    w.leader_epoch = leader_epoch;
    w.start_offset = it->second.start_offset;
    w.delivery_complete_count = it->second.delivery_complete_count;
    Outcome o = Append(*s, {StateRecord(*s, key, w, /*update_leader_epoch=*/true)});
    if (o.error_code != 0) return FailAs<ReadOutcome>(o);
    return out;
  }

  Outcome Write(const SharePartitionKey& key, const WriteData& data) {
    if (key.partition < 0) return Fail(ke::kInvalidRequest, kNegativePartition);
    if (data.leader_epoch < 0) return Fail(ke::kInvalidRequest, kNegativeLeaderEpoch);
    if (data.state_epoch < 0) return Fail(ke::kInvalidRequest, kNegativeStateEpoch);
    Shard* s = nullptr;
    if (Outcome o = Enter(key, false, &s); o.error_code != 0) return o;
    const bool known = TopicHas(key);
    MutexLock l(&s->mu);
    if (Outcome o = Usable(*s); o.error_code != 0) return o;
    if (!s->states.contains(key)) return Fail(ke::kInvalidRequest, kWriteUninitialized);
    if (auto le = s->leader_epochs.find(key);
        le != s->leader_epochs.end() && le->second > data.leader_epoch) {
      logger_.Error(fmt::format(
          "Write request leader epoch is smaller than last recorded current: {}, requested: {}.",
          le->second, data.leader_epoch));
      return Fail(ke::kFencedLeaderEpoch, kFencedLeaderEpochMessage);
    }
    if (auto se = s->state_epochs.find(key);
        se != s->state_epochs.end() && se->second > data.state_epoch) {
      logger_.Info(fmt::format(
          "Write request state epoch is smaller than last recorded current: {}, requested: {}.",
          se->second, data.state_epoch));
      return Fail(kFencedStateEpoch, kFencedStateEpochMessage);
    }
    if (!known) return Fail(ke::kUnknownTopicOrPartition, kUnknownTopicMessage);
    return Append(*s, {StateRecord(*s, key, data, /*update_leader_epoch=*/false)});
  }

  Outcome Delete(const SharePartitionKey& key) {
    if (key.partition < 0) return Fail(ke::kInvalidRequest, kNegativePartition);
    Shard* s = nullptr;
    if (Outcome o = Enter(key, false, &s); o.error_code != 0) return o;
    const bool known = TopicHas(key);
    MutexLock l(&s->mu);
    if (Outcome o = Usable(*s); o.error_code != 0) return o;
    if (!known) return Fail(ke::kUnknownTopicOrPartition, kUnknownTopicMessage);
    if (!s->states.contains(key)) {
      logger_.Warn(fmt::format("Attempted to delete non-existent share partition {}.",
                               key.CoordinatorKey()));
      return {};
    }
    return Append(*s, {ShareStateTombstone(key)});
  }

  SummaryOutcome ReadSummary(const SharePartitionKey& key) {
    if (shut_down_.load()) {
      return FailAs<SummaryOutcome>(Fail(ke::kCoordinatorNotAvailable, kNotAvailable));
    }
    if (key.partition < 0) {
      return FailAs<SummaryOutcome>(Fail(ke::kInvalidRequest, kNegativePartition));
    }
    Shard* s = nullptr;
    if (Outcome o = Enter(key, false, &s); o.error_code != 0) return FailAs<SummaryOutcome>(o);
    const bool known = TopicHas(key);
    MutexLock l(&s->mu);
    if (Outcome o = Usable(*s); o.error_code != 0) return FailAs<SummaryOutcome>(o);
    if (!known) {
      return FailAs<SummaryOutcome>(Fail(ke::kUnknownTopicOrPartition, kUnknownTopicMessage));
    }
    SummaryOutcome out;
    if (auto it = s->states.find(key); it != s->states.end()) {
      out.start_offset = it->second.start_offset;
      out.delivery_complete_count = it->second.delivery_complete_count;
      out.leader_epoch = it->second.leader_epoch;
      out.state_epoch = it->second.state_epoch;
    }
    return out;
  }

  // ---- housekeeping ----

  void Prune() {
    for (auto& sp : shards_) {
      Shard& s = *sp;
      std::shared_ptr<Log> log;
      int64_t offset = 0;
      {
        MutexLock l(&s.mu);
        if (s.log == nullptr || s.failed) continue;
        offset = s.last_redundant_offset;
        if (offset <= 0 || offset == INT64_MAX || offset <= s.pruned_to) continue;
        log = s.log;
      }
      Result<int64_t> r = log->DeleteRecords(offset);
      if (!r.ok()) {
        logger_.Error(fmt::format("Received error in share-group state topic prune of {}-{}: {}",
                                  kShareGroupStateTopic, s.partition, r.status().ToString()));
        continue;
      }
      logger_.Debug(
          fmt::format("Pruned {}-{} till offset {}", kShareGroupStateTopic, s.partition, offset));
      MutexLock l(&s.mu);
      if (offset > s.pruned_to) s.pruned_to = offset;
    }
  }

  void SnapshotColdPartitions() {
    if (shut_down_.load()) return;
    for (auto& sp : shards_) {
      Shard& s = *sp;
      MutexLock l(&s.mu);
      if (s.log == nullptr || s.failed || s.states.empty()) continue;
      size_t already = 0;
      for (const auto& [key, v] : s.states) {
        if (v.create_timestamp != v.write_timestamp) ++already;
      }
      if (already == s.states.size()) continue;  // all cold-snapshotted already
      const int64_t now = scheduler_->NowMs();
      std::vector<CoordinatorRecord> records;
      for (const auto& [key, v] : s.states) {
        if (now - v.write_timestamp < config_.cold_partition_snapshot_interval_ms) continue;
        ShareGroupOffset again = v;
        again.snapshot_epoch = v.snapshot_epoch + 1;
        again.write_timestamp = now;
        records.push_back(ShareSnapshotRecord(key, again));
      }
      if (!records.empty()) Append(s, records);
    }
  }

  void DeleteStateOfTopics(const std::set<Uuid>& topic_ids) {
    if (topic_ids.empty()) return;
    for (auto& sp : shards_) {
      Shard& s = *sp;
      MutexLock l(&s.mu);
      if (s.log == nullptr || s.failed) continue;
      std::vector<CoordinatorRecord> records;
      for (const auto& [key, v] : s.states) {
        if (topic_ids.contains(key.topic_id)) records.push_back(ShareStateTombstone(key));
      }
      if (!records.empty()) Append(s, records);
    }
  }

  std::optional<ShareGroupOffset> StateOf(const SharePartitionKey& key) {
    Shard& s = *shards_[PartitionFor(key.CoordinatorKey())];
    MutexLock l(&s.mu);
    auto it = s.states.find(key);
    if (it == s.states.end()) return std::nullopt;
    return it->second;
  }

 private:
  // The shard of `key`, creating the topic first when `create` (an Initialize); an error when
  // the coordinator is shut down or the topic cannot be made.
  Outcome Enter(const SharePartitionKey& key, bool create, Shard** shard) {
    if (shut_down_.load()) return Fail(ke::kCoordinatorNotAvailable, kNotAvailable);
    if (create || !topic_.ready()) {
      if (Status st = EnsureStateTopic(); !st.ok()) {
        logger_.Error("Failed to create " + std::string(kShareGroupStateTopic) + ": " +
                      st.ToString());
        return Fail(ke::kCoordinatorNotAvailable, kNotAvailable);
      }
    }
    *shard = shards_[PartitionFor(key.CoordinatorKey())].get();
    return {};
  }

  Outcome Usable(const Shard& s) const REQUIRES(s.mu) {
    const int16_t code = s.Unavailable(shut_down_.load());
    if (code == ke::kNone) return {};
    return Fail(code, code == ke::kCoordinatorNotAvailable ? kNotAvailable : "");
  }

  bool TopicHas(const SharePartitionKey& key) const {
    std::optional<int32_t> partitions = topics_(key.topic_id);
    return partitions.has_value() && key.partition < *partitions;
  }

  // The record a write (or a read by a new leader) makes: a ShareUpdate, or a whole
  // ShareSnapshot once the key has had snapshot.update.records.per.snapshot updates
  // (generateShareStateRecord).
  CoordinatorRecord StateRecord(Shard& s, const SharePartitionKey& key, const WriteData& data,
                                bool update_leader_epoch) REQUIRES(s.mu) {
    const ShareGroupOffset& current = s.states.at(key);
    const int64_t now = scheduler_->NowMs();
    ShareGroupOffset v;
    v.leader_epoch = update_leader_epoch ? data.leader_epoch : current.leader_epoch;
    v.start_offset = std::max(data.start_offset, current.start_offset);
    v.delivery_complete_count = data.delivery_complete_count;
    if (data.start_offset == current.start_offset) {
      v.delivery_complete_count =
          std::max(data.delivery_complete_count, current.delivery_complete_count);
    } else if (data.start_offset < current.start_offset) {
      v.delivery_complete_count = current.delivery_complete_count;
    }
    auto count = s.update_counts.find(key);
    if (count != s.update_counts.end() &&
        count->second >= config_.snapshot_update_records_per_snapshot) {
      v.snapshot_epoch = current.snapshot_epoch + 1;
      v.state_epoch = current.state_epoch;
      v.state_batches =
          CombineStateBatches(current.state_batches, data.state_batches, v.start_offset);
      v.create_timestamp = v.write_timestamp = now;
      return ShareSnapshotRecord(key, v);
    }
    v.snapshot_epoch = current.snapshot_epoch;
    v.state_batches = CombineStateBatches({}, data.state_batches, v.start_offset);
    return ShareUpdateRecord(key, v);
  }

  // Appends `records` as one batch, then applies them (write-then-apply).
  Outcome Append(Shard& s, const std::vector<CoordinatorRecord>& records) REQUIRES(s.mu) {
    if (s.log == nullptr) return Fail(ke::kCoordinatorNotAvailable, kNotAvailable);
    CoordinatorBatch batch;
    batch.now_ms = scheduler_->NowMs();
    Result<LogAppendInfo> info = AppendCoordinatorRecords(*s.log, records, batch);
    if (!info.ok()) {
      logger_.Warn(fmt::format("Failed to write to {}-{}: {}", kShareGroupStateTopic, s.partition,
                               info.status().ToString()));
      const int16_t code = GroupCoordinatorAppendError(info.status());
      return Fail(code, "Unable to write share group state: " + info.status().ToString());
    }
    int64_t offset = info->first_offset;
    for (const CoordinatorRecord& r : records) {
      std::optional<std::span<const uint8_t>> value;
      if (r.value) value = *r.value;
      Result<LoadedShareStateRecord> rec = DecodeShareStateRecord(r.key, value);
      if (rec.ok()) Replay(s, *rec, offset);
      ++offset;
    }
    return {};
  }

  // Applies one record (ShareCoordinatorShard.replay).
  void Replay(Shard& s, const LoadedShareStateRecord& r, int64_t offset) REQUIRES(s.mu) {
    if (!r.skipped.empty()) return;
    const SharePartitionKey& key = r.key;
    if (r.type == LoadedShareStateRecord::Type::kSnapshot) {
      if (!r.value) {
        s.states.erase(key);
        s.leader_epochs.erase(key);
        s.state_epochs.erase(key);
        s.update_counts.erase(key);
      } else {
        RaiseTo(s.leader_epochs, key, r.value->leader_epoch);
        RaiseTo(s.state_epochs, key, r.value->state_epoch);
        s.states[key] = *r.value;
        if (auto c = s.update_counts.find(key);
            c != s.update_counts.end() &&
            c->second >= config_.snapshot_update_records_per_snapshot) {
          c->second = 0;
        }
      }
      // Where the latest snapshots are: everything below the oldest of them is redundant.
      s.snapshot_offsets[key] = offset;
      int64_t oldest = INT64_MAX;
      for (const auto& [k, o] : s.snapshot_offsets) oldest = std::min(oldest, o);
      s.last_redundant_offset = oldest;
      if (!r.value) s.snapshot_offsets.erase(key);
      return;
    }
    if (!r.value) return;  // Kafka never writes an update tombstone
    const ShareGroupOffset& u = *r.value;
    RaiseTo(s.leader_epochs, key, u.leader_epoch);
    auto it = s.states.find(key);
    if (it == s.states.end()) {
      s.states[key] = u;
    } else {
      ShareGroupOffset& v = it->second;
      const int64_t start = u.start_offset == -1 ? v.start_offset : u.start_offset;
      v.state_batches = CombineStateBatches(v.state_batches, u.state_batches, start);
      v.start_offset = start;
      v.delivery_complete_count = u.delivery_complete_count;
      if (u.leader_epoch != -1) v.leader_epoch = u.leader_epoch;
    }
    ++s.update_counts[key];
  }

  static void RaiseTo(std::map<SharePartitionKey, int32_t>& epochs, const SharePartitionKey& key,
                      int32_t epoch) {
    auto [it, inserted] = epochs.emplace(key, epoch);
    if (!inserted && it->second < epoch) it->second = epoch;
  }

  void LoadShard(Shard& s) {
    const std::string tp = fmt::format("{}-{}", kShareGroupStateTopic, s.partition);
    Result<std::shared_ptr<seglog::Log>> log = logs_->GetLog({kShareGroupStateTopic, s.partition});
    MutexLock l(&s.mu);
    if (!log.ok()) {
      s.failed = true;
      logger_.Error(
          fmt::format("Failed to load share group state from {}: {}", tp, log.status().ToString()));
      return;
    }
    s.log = *log;
    const auto start = std::chrono::steady_clock::now();
    ReplayHandler h;
    h.record = [&](const RecordBatchView&, const Record& r) REQUIRES(s.mu) {
      if (!r.key) {
        logger_.Warn(
            fmt::format("Skipping a record without a key at offset {} of {}", r.offset, tp));
        return;
      }
      std::optional<std::span<const uint8_t>> value;
      if (r.value) value = *r.value;
      Result<LoadedShareStateRecord> rec = DecodeShareStateRecord(*r.key, value);
      if (!rec.ok()) {
        logger_.Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                                 rec.status().ToString()));
        return;
      }
      if (!rec->skipped.empty()) {
        logger_.Warn(fmt::format("{} (offset {} of {})", rec->skipped, r.offset, tp));
        return;
      }
      Replay(s, *rec, r.offset);
    };
    h.logger = logger_;
    Result<ReplayStats> loaded = ReplayCoordinatorLog(*s.log, tp, ReplayPolicy::kLenient, h);
    if (!loaded.ok()) {
      s.failed = true;
      logger_.Error(fmt::format("Failed to load share group state from {}: {}", tp,
                                loaded.status().ToString()));
      return;
    }
    s.pruned_to = s.log->log_start_offset();
    if (loaded->records == 0) return;
    logger_.Info(fmt::format(
        "Finished loading {} share-partition states from {} in {} ms: {} records", s.states.size(),
        tp,
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                              start)
            .count(),
        loaded->records));
  }

  const ShareCoordinatorConfig config_;
  LogManager* const logs_;
  Scheduler* const scheduler_;
  const TopicLookup topics_;
  const Logger logger_;
  InternalTopic topic_;
  std::vector<std::unique_ptr<Shard>> shards_;  // fixed once open
  std::atomic<bool> shut_down_{false};
};

Result<std::unique_ptr<ShareCoordinator>> ShareCoordinator::Open(
    const ShareCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
    TopicLookup topics, Logger logger) {
  auto core = std::make_shared<Core>(config, logs, scheduler, std::move(topics), logger);
  SEGLOG_RETURN_IF_ERROR(core->Open());
  return std::unique_ptr<ShareCoordinator>(new ShareCoordinator(std::move(core)));
}

ShareCoordinator::ShareCoordinator(std::shared_ptr<Core> core) : core_(std::move(core)) {}
ShareCoordinator::~ShareCoordinator() { Shutdown(); }
void ShareCoordinator::Start() { core_->Start(); }
void ShareCoordinator::Shutdown() { core_->Shutdown(); }
Status ShareCoordinator::EnsureStateTopic() { return core_->EnsureStateTopic(); }
int32_t ShareCoordinator::PartitionFor(const SharePartitionKey& key) const {
  return core_->PartitionFor(key.CoordinatorKey());
}
int32_t ShareCoordinator::PartitionFor(std::string_view coordinator_key) const {
  return core_->PartitionFor(coordinator_key);
}
ShareCoordinator::Outcome ShareCoordinator::Initialize(const SharePartitionKey& key,
                                                       int32_t state_epoch, int64_t start_offset) {
  return core_->Initialize(key, state_epoch, start_offset);
}
ShareCoordinator::ReadOutcome ShareCoordinator::Read(const SharePartitionKey& key,
                                                     int32_t leader_epoch) {
  return core_->Read(key, leader_epoch);
}
ShareCoordinator::Outcome ShareCoordinator::Write(const SharePartitionKey& key,
                                                  const WriteData& data) {
  return core_->Write(key, data);
}
ShareCoordinator::Outcome ShareCoordinator::Delete(const SharePartitionKey& key) {
  return core_->Delete(key);
}
ShareCoordinator::SummaryOutcome ShareCoordinator::ReadSummary(const SharePartitionKey& key) {
  return core_->ReadSummary(key);
}
void ShareCoordinator::Prune() { core_->Prune(); }
void ShareCoordinator::SnapshotColdPartitions() { core_->SnapshotColdPartitions(); }
void ShareCoordinator::DeleteStateOfTopics(const std::set<Uuid>& topic_ids) {
  core_->DeleteStateOfTopics(topic_ids);
}
std::optional<ShareGroupOffset> ShareCoordinator::StateOf(const SharePartitionKey& key) {
  return core_->StateOf(key);
}

}  // namespace seglog
