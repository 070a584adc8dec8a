// GroupCoordinator; see group_coordinator.h and docs/design/group_coordinator.md.
#include "group/group_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <random>
#include <set>

#include "base/coding.h"
#include "base/mutex.h"
#include "coordinator/append_error.h"
#include "coordinator/coordinator_log.h"
#include "coordinator/coordinator_shard.h"
#include "coordinator/internal_topic.h"
#include "group/classic_group.h"
#include "group/consumer_group.h"
#include "group/consumer_group_classic.h"
#include "group/consumer_group_heartbeat.h"
#include "group/consumer_group_records.h"
#include "group/group_conversion.h"
#include "group/group_partitioner.h"
#include "group/offsets_records.h"
#include "group/transactional_offsets.h"
#include "manager/log_manager.h"
#include "protocol/generated/consumer_protocol_subscription.h"
#include "protocol/kafka_error.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {

namespace {

namespace ke = kafka_error;
using protocol::JoinGroupResponseData;
using protocol::SyncGroupResponseData;

// A member that joined but has not completed a join yet is given this long to do so
// (Kafka's CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS).
constexpr int32_t kNewMemberJoinTimeoutMs = 300000;

// java.util.UUID.randomUUID().toString(): 36 characters, version 4, variant 2.
std::string RandomJavaUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & ~0xF000ull) | 0x4000ull;                  // version 4
  lo = (lo & ~(0xC000ull << 48)) | (0x8000ull << 48);  // IETF variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFull);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// What a failed append of coordinator records tells the client.
int16_t AppendErrorToClient(const Status& s) { return GroupCoordinatorAppendError(s); }

JoinGroupResponseData JoinError(int16_t error, std::string member_id) {
  JoinGroupResponseData r;
  r.error_code = error;
  r.generation_id = -1;
  r.member_id = std::move(member_id);
  return r;
}

SyncGroupResponseData SyncError(int16_t error) {
  SyncGroupResponseData r;
  r.error_code = error;
  return r;
}

}  // namespace

class GroupCoordinator::Core : public std::enable_shared_from_this<Core> {
 public:
  using Completions = std::vector<std::function<void()>>;

  // A pending timer's work; see Fire.
  struct Timer {
    // kConsumerSession: a consumer group member's session timeout; kConsumerRevocation: its
    // rebalance timeout while it has partitions to revoke; kConsumerClassicJoin/Sync: a
    // classic member of a consumer group that was told to join again, or joined, and has not
    // joined, or synced, within its rebalance timeout.
    enum class Kind {
      kInitialJoin,
      kJoin,
      kHeartbeat,
      kPendingSync,
      kConsumerSession,
      kConsumerRevocation,
      kConsumerClassicJoin,
      kConsumerClassicSync
    };
    Kind kind;
    std::string group;
    std::string member;      // kHeartbeat, kConsumer*
    int32_t generation = 0;  // kPendingSync; kConsumerRevocation: the member epoch
    int64_t delay_ms = 0;    // kInitialJoin: this wait, and what remains of the rebalance timeout
    int64_t remaining_ms = 0;
  };

  // A live timer: its work, when it is due, and the sequence number of the one scheduler task
  // that will fire it (a reset to a later time only moves `due_ms`: the task, when it runs
  // early, waits again for the rest, so resets - every heartbeat and commit - add no tasks).
  struct TimerEntry {
    Timer timer;
    int64_t due_ms = 0;
    uint64_t seq = 0;
    int64_t task_due_ms = 0;  // when that task runs
  };

  // A partition of __consumer_offsets and the groups it owns.
  struct Shard : CoordinatorShard {
    std::map<std::string, std::unique_ptr<ClassicGroup>> groups GUARDED_BY(mu);
    // KIP-848's groups; a group id is in `groups` or here, never both.
    std::map<std::string, std::unique_ptr<ConsumerGroup>> consumer_groups GUARDED_BY(mu);
    // group -> (topic, partition) -> committed offset
    OffsetsByGroup offsets GUARDED_BY(mu);
    // TxnOffsetCommit's offsets until their transaction's marker (transactional_offsets.h).
    PendingTransactionalOffsets pending GUARDED_BY(mu);
    std::map<std::string, TimerEntry> timers GUARDED_BY(mu);
    // Consumer groups whose regular expressions are being resolved (at most one at a time).
    std::set<std::string> regex_refreshes GUARDED_BY(mu);
  };

  Core(const GroupCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
       std::function<void(const std::string&)> logger)
      : config_(config),
        logs_(logs),
        scheduler_(scheduler),
        logger_(std::move(logger)),
        topic_(logs,
               {kConsumerOffsetsTopic,
                config_.offsets_topic_num_partitions,
                {{"cleanup.policy", "compact"},
                 {"compression.type", "producer"},
                 {"segment.bytes", std::to_string(config_.offsets_topic_segment_bytes)}}},
               [this](const std::string& line) { Info(line); }) {}

  void Info(const std::string& line) const {
    if (logger_) logger_("[GroupCoordinator] " + line);
  }

  static void RunAll(Completions* done) {
    for (auto& f : *done) f();
    done->clear();
  }

  Status Open() {
    for (int32_t p = 0; p < topic_.partitions(); ++p) {
      shards_.push_back(std::make_unique<Shard>());
      shards_.back()->partition = p;
    }
    if (topic_.ready()) {
      for (auto& s : shards_) LoadShard(*s);
    }
    std::weak_ptr<Core> weak = weak_from_this();
    scheduler_->Schedule(
        "group-offsets-expiration",
        [weak] {
          if (auto c = weak.lock()) c->ExpireOffsets();
        },
        config_.offsets_retention_check_interval_ms, config_.offsets_retention_check_interval_ms);
    return Status::OK();
  }

  Status EnsureOffsetsTopic() {
    return topic_.Ensure([this](int32_t p, std::shared_ptr<Log> log) {
      Shard& s = *shards_[p];
      MutexLock l(&s.mu);
      s.log = std::move(log);
    });
  }

  int32_t PartitionFor(std::string_view group) const { return topic_.PartitionFor(group); }
  Shard& ShardFor(std::string_view group) { return *shards_[PartitionFor(group)]; }

  // Whether the shard may serve requests: the topic exists, the load succeeded, not shut down.
  // Else the error to answer.
  int16_t Unavailable(Shard& s) REQUIRES(s.mu) { return s.Unavailable(shut_down_); }

  // ---- Records ----

  // Appends `records` in one batch; `*first_offset` (when given) gets the first one's offset,
  // the others follow it. With a producer id the batch is that producer's transactional batch
  // (TxnOffsetCommit), as Kafka's coordinator runtime writes it: its own batch, base sequence 0.
  Status Append(Shard& s, const std::vector<OffsetsRecord>& records,
                int64_t* first_offset = nullptr, int64_t producer_id = kNoProducerId,
                int16_t producer_epoch = kNoProducerEpoch) REQUIRES(s.mu) {
    if (records.empty()) return Status::OK();
    if (s.log == nullptr)
      return Status::NotFound("The __consumer_offsets topic does not exist yet.");
    CoordinatorBatch batch;
    batch.now_ms = scheduler_->NowMs();
    batch.base_sequence = 0;  // what Kafka's coordinator runtime gives its batch builder
    batch.producer_id = producer_id;
    batch.producer_epoch = producer_epoch;
    Result<LogAppendInfo> info = AppendCoordinatorRecords(*s.log, records, batch);
    if (!info.ok()) {
      Info(fmt::format("WARN Failed to write {} records to {}-{}: {}", records.size(),
                       kConsumerOffsetsTopic, s.partition, info.status().ToString()));
      return info.status();
    }
    if (first_offset != nullptr) *first_offset = info->first_offset;
    return Status::OK();
  }

  // ---- Loading ----

  void LoadShard(Shard& s) EXCLUDES(s.mu) {
    const std::string tp = fmt::format("{}-{}", kConsumerOffsetsTopic, s.partition);
    Result<std::shared_ptr<seglog::Log>> log = logs_->GetLog({kConsumerOffsetsTopic, s.partition});
    MutexLock l(&s.mu);
    if (!log.ok()) {
      s.failed = true;
      Info(fmt::format("ERROR Failed to load metadata from {}: {}", tp, log.status().ToString()));
      return;
    }
    s.log = *log;
    const auto start = std::chrono::steady_clock::now();
    ReplayHandler h;
    h.control = [&](const RecordBatchView& batch)
                    REQUIRES(s.mu) { ReplayControlBatch(s, batch, tp); };
    h.record = [&](const RecordBatchView& batch, const Record& r) REQUIRES(s.mu) {
      if (!r.key) {
        Info(fmt::format("WARN Skipping a record without a key at offset {} of {}", r.offset, tp));
        return;
      }
      std::optional<std::span<const uint8_t>> value;
      if (r.value) value = *r.value;
      if (r.key->size() >= 2 && IsConsumerGroupRecordType(LoadBEInt16(r.key->data()))) {
        Result<LoadedConsumerGroupRecord> cg = DecodeConsumerGroupRecord(*r.key, value);
        if (!cg.ok()) {
          Info(fmt::format("WARN Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                           cg.status().ToString()));
          return;
        }
        ReplayConsumerGroup(s, *cg);
        return;
      }
      Result<LoadedOffsetsRecord> rec = DecodeOffsetsRecord(*r.key, value);
      if (!rec.ok()) {
        // Kafka fails the whole partition here; seglog keeps the rest of the groups.
        Info(fmt::format("WARN Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                         rec.status().ToString()));
        return;
      }
      Replay(s, *rec, tp, r.offset, batch.producer_id());
    };
    h.warn = [this](const std::string& line) { Info(line); };
    Result<ReplayStats> loaded = ReplayCoordinatorLog(*s.log, tp, ReplayPolicy::kLenient, h);
    if (!loaded.ok()) {
      s.failed = true;
      Info(
          fmt::format("ERROR Failed to load metadata from {}: {}", tp, loaded.status().ToString()));
      return;
    }
    const int64_t records = loaded->records;
    // Groups that only have offsets (committed outside a group, or pending in a transaction)
    // exist as simple groups.
    std::vector<std::string> offset_groups = s.pending.Groups();
    for (const auto& [group, offsets] : s.offsets) offset_groups.push_back(group);
    for (const std::string& group : offset_groups) {
      if (!s.groups.count(group) && !s.consumer_groups.count(group)) {
        s.groups[group] = std::make_unique<ClassicGroup>(group, scheduler_->NowMs());
      }
    }
    for (auto& [id, g] : s.groups) {
      for (const auto& [member_id, m] : g->members()) {
        StartTimer(s, HeartbeatKey(*g, member_id), m.session_timeout_ms,
                   Timer{Timer::Kind::kHeartbeat, g->group_id(), member_id, 0, 0, 0});
      }
    }
    for (auto& [id, g] : s.consumer_groups) {
      for (const auto& [member_id, m] : g->members()) {
        StartConsumerTimers(s, *g, m, /*revoking_since_now=*/true);
      }
    }
    Info(fmt::format("Finished loading of metadata from {} in {} ms: {} records, {} groups", tp,
                     std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count(),
                     records, s.groups.size() + s.consumer_groups.size()));
  }

  // The consumer group `id` of a record being loaded, created if new (it replaces a classic
  // group of that id, as the records say it became one).
  ConsumerGroup& LoadedConsumerGroup(Shard& s, const std::string& id) REQUIRES(s.mu) {
    auto& g = s.consumer_groups[id];
    if (g == nullptr) g = std::make_unique<ConsumerGroup>(id);
    s.groups.erase(id);
    return *g;
  }
  ConsumerGroup* FindConsumerGroup(Shard& s, const std::string& id) REQUIRES(s.mu) {
    auto it = s.consumer_groups.find(id);
    return it == s.consumer_groups.end() ? nullptr : it->second.get();
  }

  // Whether `m` has a partition (assigned or pending revocation) that another member of `g`
  // has, or one both assigned and pending: ConsumerGroup::UpdateMember's precondition,
  // checked on records read from disk.
  static bool OwnedByAnotherMember(const ConsumerGroup& g, const ConsumerGroupMember& m) {
    for (const auto& [topic, partitions] : m.partitions_pending_revocation) {
      auto t = m.assigned_partitions.find(topic);
      if (t == m.assigned_partitions.end()) continue;
      for (const auto& [p, epoch] : partitions) {
        (void)epoch;
        if (t->second.count(p)) return true;
      }
    }
    const ConsumerGroupMember* old = g.FindMember(m.member_id);
    auto had = [old](const Uuid& topic, int32_t p) {
      if (old == nullptr) return false;
      for (const EpochPartitions* set :
           {&old->assigned_partitions, &old->partitions_pending_revocation}) {
        auto t = set->find(topic);
        if (t != set->end() && t->second.count(p)) return true;
      }
      return false;
    };
    for (const EpochPartitions* set : {&m.assigned_partitions, &m.partitions_pending_revocation}) {
      for (const auto& [topic, partitions] : *set) {
        for (const auto& [p, epoch] : partitions) {
          (void)epoch;
          if (g.CurrentPartitionEpoch(topic, p) != -1 && !had(topic, p)) return true;
        }
      }
    }
    return false;
  }

  // A consumer group record at load: applied as Kafka's replay applies it.
  void ReplayConsumerGroup(Shard& s, const LoadedConsumerGroupRecord& rec) REQUIRES(s.mu) {
    if (const auto* md = std::get_if<LoadedConsumerGroupMetadata>(&rec)) {
      if (!md->value) {
        s.consumer_groups.erase(md->group);
        return;
      }
      ConsumerGroup& g = LoadedConsumerGroup(s, md->group);
      g.set_group_epoch(md->value->epoch);
      g.set_metadata_hash(md->value->metadata_hash);
    } else if (const auto* mm = std::get_if<LoadedConsumerGroupMemberMetadata>(&rec)) {
      if (!mm->value) {
        if (ConsumerGroup* g = FindConsumerGroup(s, mm->group)) g->RemoveMember(mm->member_id);
        return;
      }
      ConsumerGroup& g = LoadedConsumerGroup(s, mm->group);
      ConsumerGroupMember m = *mm->value;
      if (const ConsumerGroupMember* old = g.FindMember(mm->member_id)) {
        m.member_epoch = old->member_epoch;
        m.previous_member_epoch = old->previous_member_epoch;
        m.state = old->state;
        m.assigned_partitions = old->assigned_partitions;
        m.partitions_pending_revocation = old->partitions_pending_revocation;
      }
      g.UpdateMember(std::move(m));
    } else if (const auto* tm = std::get_if<LoadedConsumerGroupTargetAssignmentMetadata>(&rec)) {
      if (tm->value)
        LoadedConsumerGroup(s, tm->group).set_assignment_epoch(tm->value->assignment_epoch);
    } else if (const auto* tmm = std::get_if<LoadedConsumerGroupTargetAssignmentMember>(&rec)) {
      if (!tmm->value) {
        if (ConsumerGroup* g = FindConsumerGroup(s, tmm->group)) g->RemoveTarget(tmm->member_id);
        return;
      }
      LoadedConsumerGroup(s, tmm->group).SetTarget(tmm->member_id, *tmm->value);
    } else if (const auto* ca = std::get_if<LoadedConsumerGroupCurrentMemberAssignment>(&rec)) {
      ConsumerGroup* g =
          ca->value ? &LoadedConsumerGroup(s, ca->group) : FindConsumerGroup(s, ca->group);
      if (g == nullptr) return;
      ConsumerGroupMember m;
      if (const ConsumerGroupMember* old = g->FindMember(ca->member_id)) {
        m = *old;
      } else if (!ca->value) {
        return;
      }
      m.member_id = ca->member_id;
      if (ca->value) {
        m.member_epoch = ca->value->member_epoch;
        m.previous_member_epoch = ca->value->previous_member_epoch;
        m.state = ca->value->state;
        m.assigned_partitions = ca->value->assigned_partitions;
        m.partitions_pending_revocation = ca->value->partitions_pending_revocation;
      } else {
        // The member is on its way out (its metadata tombstone follows): nothing assigned.
        m.member_epoch = -1;
        m.previous_member_epoch = -1;
        m.state = ConsumerMemberState::kStable;
        m.assigned_partitions.clear();
        m.partitions_pending_revocation.clear();
      }
      if (OwnedByAnotherMember(*g, m)) {
        // Records that disagree (Kafka fails the load with IllegalStateException): this one is
        // skipped, the member keeps what it had.
        Info(
            fmt::format("WARN Skipping the current assignment of member {} of group {}: it names "
                        "partitions another member has",
                        m.member_id, g->group_id()));
        return;
      }
      g->UpdateMember(std::move(m));
    } else if (const auto* rx = std::get_if<LoadedConsumerGroupRegularExpression>(&rec)) {
      if (!rx->value) {
        if (ConsumerGroup* g = FindConsumerGroup(s, rx->group)) {
          g->RemoveResolvedRegularExpression(rx->regex);
        }
        return;
      }
      LoadedConsumerGroup(s, rx->group).SetResolvedRegularExpression(rx->regex, *rx->value);
      // Versions restart with this process: the next is above every one on disk, so each
      // group resolves its expressions once again after a restart, as Kafka does when its
      // metadata image is newer than what a record names.
      RaiseMetadataVersionAbove(rx->value->version);
    }
  }

  // A record at load, at `record_offset` in a batch of `producer_id` (Kafka's OMM replay): an
  // offset of a producer's batch is pending until that producer's marker.
  void Replay(Shard& s, const LoadedOffsetsRecord& rec, const std::string& tp,
              int64_t record_offset, int64_t producer_id) REQUIRES(s.mu) {
    if (const auto* c = std::get_if<LoadedOffsetCommit>(&rec)) {
      OffsetPartitionKey key(c->topic, c->partition);
      if (c->offset) {
        StoredOffset stored{*c->offset, record_offset};
        if (producer_id == kNoProducerId) {
          s.offsets[c->group][key] = std::move(stored);
        } else {
          s.pending.Add(producer_id, c->group, key, std::move(stored));
        }
      } else {
        ApplyOffsetTombstone(s, c->group, key);
      }
      return;
    }
    if (const auto* g = std::get_if<LoadedGroupMetadata>(&rec)) {
      if (!g->value) {
        s.groups.erase(g->group);
        return;
      }
      auto group = std::make_unique<ClassicGroup>(g->group, scheduler_->NowMs());
      const auto& v = *g->value;
      s.consumer_groups.erase(g->group);  // a downgraded group
      group->RestoreFromRecord(
          v.generation,
          v.protocol_type.empty() ? std::nullopt : std::optional<std::string>(v.protocol_type),
          v.protocol, v.leader, v.current_state_timestamp_ms, v.members);
      s.groups[g->group] = std::move(group);
      return;
    }
    const auto& u = std::get<UnknownOffsetsRecord>(rec);
    Info(fmt::format(
        "WARN Unknown record type {} while loading offsets and group metadata from {}. Ignoring "
        "it. It could be a left over from an aborted upgrade.",
        u.type, tp));
  }

  static bool HasCommittedOffset(Shard& s, const std::string& group, const OffsetPartitionKey& key)
      REQUIRES(s.mu) {
    auto it = s.offsets.find(group);
    return it != s.offsets.end() && it->second.count(key) != 0;
  }

  // An OffsetCommit tombstone: the committed offset and every pending one of the partition go.
  void ApplyOffsetTombstone(Shard& s, const std::string& group, const OffsetPartitionKey& key)
      REQUIRES(s.mu) {
    auto it = s.offsets.find(group);
    if (it != s.offsets.end()) {
      it->second.erase(key);
      if (it->second.empty()) s.offsets.erase(it);
    }
    s.pending.RemovePartition(group, key);
  }

  // A transaction's end for `producer_id`: COMMIT makes its pending offsets committed (where
  // they are later than the committed ones), ABORT drops them.
  void ReplayEndTransaction(Shard& s, int64_t producer_id, bool commit) REQUIRES(s.mu) {
    OffsetsByGroup taken = s.pending.Take(producer_id);
    if (commit) CommitPendingOffsets(std::move(taken), &s.offsets);
  }

  // A control batch at load: a COMMIT or ABORT marker is applied; other control records (none
  // are written to this topic) are ignored.
  void ReplayControlBatch(Shard& s, const RecordBatchView& batch, const std::string& tp)
      REQUIRES(s.mu) {
    Result<std::optional<bool>> marker = ReadEndTransactionMarker(batch);
    if (!marker.ok()) {
      Info(fmt::format("WARN Skipping the control batch at offset {} of {}: {}",
                       batch.base_offset(), tp, marker.status().ToString()));
      return;
    }
    if (*marker) ReplayEndTransaction(s, batch.producer_id(), **marker);
  }

  // ---- Timers ----

  static std::string HeartbeatKey(const ClassicGroup& g, const std::string& member) {
    return "heartbeat-" + g.group_id() + "-" + member;
  }
  static std::string JoinKey(const ClassicGroup& g) { return "join-" + g.group_id(); }
  static std::string SyncKey(const ClassicGroup& g) { return "sync-" + g.group_id(); }

  void StartTimer(Shard& s, const std::string& key, int64_t delay_ms, Timer t) REQUIRES(s.mu) {
    const int64_t due = scheduler_->NowMs() + std::max<int64_t>(delay_ms, 0);
    auto it = s.timers.find(key);
    if (it != s.timers.end() && it->second.task_due_ms <= due) {
      it->second.timer = std::move(t);  // its task is due first and will wait for the rest
      it->second.due_ms = due;
      return;
    }
    TimerEntry& e = s.timers[key];
    e.timer = std::move(t);
    e.due_ms = due;
    e.seq = ++timer_seq_;
    ScheduleTimerTask(s, key, e);
  }

  void ScheduleTimerTask(Shard& s, const std::string& key, TimerEntry& e) REQUIRES(s.mu) {
    const int64_t now = scheduler_->NowMs();
    e.task_due_ms = e.due_ms;
    std::weak_ptr<Core> weak = weak_from_this();
    Shard* sp = &s;
    scheduler_->Schedule(
        "group-coordinator-timer",
        [weak, sp, key, seq = e.seq] {
          std::shared_ptr<Core> core = weak.lock();
          if (core == nullptr) return;
          Completions done;
          {
            MutexLock l(&sp->mu);
            auto it = sp->timers.find(key);
            if (it == sp->timers.end() || it->second.seq != seq) return;  // cancelled, replaced
            if (core->shut_down_) return;
            if (it->second.due_ms > core->scheduler_->NowMs()) {
              core->ScheduleTimerTask(*sp, key, it->second);  // reset meanwhile: wait again
              return;
            }
            const Timer t = std::move(it->second.timer);
            sp->timers.erase(it);
            core->Fire(*sp, t, &done);
          }
          RunAll(&done);
        },
        std::max<int64_t>(e.due_ms - now, 0));
  }
  void CancelTimer(Shard& s, const std::string& key) REQUIRES(s.mu) { s.timers.erase(key); }

  void Fire(Shard& s, const Timer& t, Completions* done) REQUIRES(s.mu) {
    if (t.kind == Timer::Kind::kConsumerSession || t.kind == Timer::Kind::kConsumerRevocation ||
        t.kind == Timer::Kind::kConsumerClassicJoin ||
        t.kind == Timer::Kind::kConsumerClassicSync) {
      FireConsumer(s, t, done);
      return;
    }
    auto it = s.groups.find(t.group);
    if (it == s.groups.end()) return;
    ClassicGroup& g = *it->second;
    switch (t.kind) {
      case Timer::Kind::kConsumerSession:
      case Timer::Kind::kConsumerRevocation:
      case Timer::Kind::kConsumerClassicJoin:
      case Timer::Kind::kConsumerClassicSync:
        return;  // handled above
      case Timer::Kind::kInitialJoin:
        if (!g.Is(ClassicGroupState::kPreparingRebalance)) return;
        if (g.new_member_added() && t.remaining_ms != 0) {
          g.set_new_member_added(false);
          const int64_t wait = std::min(t.delay_ms, t.remaining_ms);
          const int64_t remaining = std::max<int64_t>(t.remaining_ms - t.delay_ms, 0);
          StartTimer(s, JoinKey(g), wait,
                     Timer{Timer::Kind::kInitialJoin, g.group_id(), "", 0, t.delay_ms, remaining});
          return;
        }
        CompleteJoin(s, g, done);
        return;
      case Timer::Kind::kJoin:
        CompleteJoin(s, g, done);
        return;
      case Timer::Kind::kHeartbeat:
        ExpireMember(s, g, t.member, done);
        return;
      case Timer::Kind::kPendingSync:
        ExpirePendingSync(s, g, t.generation, done);
        return;
    }
  }

  // ---- The classic protocol ----

  int16_t ValidateMember(ClassicGroup& g, const std::string& member_id,
                         const std::optional<std::string>& instance_id) {
    if (instance_id) {
      std::optional<std::string> mapped = g.StaticMemberId(*instance_id);
      if (!mapped) return ke::kUnknownMemberId;
      if (*mapped != member_id) return ke::kFencedInstanceId;
    }
    return g.HasMember(member_id) ? ke::kNone : ke::kUnknownMemberId;
  }

  bool AcceptJoiningMember(ClassicGroup& g, const std::string& member_id) {
    const size_t max = static_cast<size_t>(config_.group_max_size);
    switch (g.state()) {
      case ClassicGroupState::kEmpty:
      case ClassicGroupState::kDead:
        return true;
      case ClassicGroupState::kPreparingRebalance: {
        const ClassicGroupMember* m = g.FindMember(member_id);
        return (m != nullptr && m->awaiting_join_response()) ||
               static_cast<size_t>(g.NumAwaitingJoinResponse()) < max;
      }
      default:
        return g.HasMember(member_id) || g.size() < max;
    }
  }

  void ResetHeartbeat(Shard& s, ClassicGroup& g, const ClassicGroupMember& m) REQUIRES(s.mu) {
    StartTimer(s, HeartbeatKey(g, m.member_id),
               m.is_new ? kNewMemberJoinTimeoutMs : m.session_timeout_ms,
               Timer{Timer::Kind::kHeartbeat, g.group_id(), m.member_id, 0, 0, 0});
  }

  void PrepareRebalance(Shard& s, ClassicGroup& g, const std::string& reason, Completions* done)
      REQUIRES(s.mu) {
    if (g.Is(ClassicGroupState::kCompletingRebalance)) {
      for (const auto& [id, m] : g.members()) {
        ClassicGroupMember* mm = g.FindMember(id);
        mm->assignment.clear();
        if (mm->awaiting_sync) {
          done->push_back(
              [cb = std::move(mm->awaiting_sync)] { cb(SyncError(ke::kRebalanceInProgress)); });
          mm->awaiting_sync = nullptr;
        }
      }
    }
    g.pending_sync().clear();
    CancelTimer(s, SyncKey(g));
    const bool initial = g.Is(ClassicGroupState::kEmpty);
    const int32_t old_generation = g.generation();
    if (!g.TransitionTo(ClassicGroupState::kPreparingRebalance, scheduler_->NowMs())) return;
    Info(fmt::format(
        "Preparing to rebalance group {} in state PreparingRebalance with old generation {} "
        "(reason: {}).",
        g.group_id(), old_generation, reason));
    if (initial) {
      const int64_t delay = config_.group_initial_rebalance_delay_ms;
      const int64_t remaining = std::max<int64_t>(g.RebalanceTimeoutMs() - delay, 0);
      StartTimer(s, JoinKey(g), delay,
                 Timer{Timer::Kind::kInitialJoin, g.group_id(), "", 0, delay, remaining});
      return;
    }
    if (g.AllMembersJoined()) {
      CompleteJoin(s, g, done);
      return;
    }
    StartTimer(s, JoinKey(g), g.RebalanceTimeoutMs(),
               Timer{Timer::Kind::kJoin, g.group_id(), "", 0, 0, 0});
  }

  void MaybeCompleteJoin(Shard& s, ClassicGroup& g, Completions* done) REQUIRES(s.mu) {
    if (g.Is(ClassicGroupState::kPreparingRebalance) && g.AllMembersJoined() &&
        g.previous_state() != ClassicGroupState::kEmpty) {
      CompleteJoin(s, g, done);
    }
  }

  void CompleteJoin(Shard& s, ClassicGroup& g, Completions* done) REQUIRES(s.mu) {
    CancelTimer(s, JoinKey(g));
    if (!g.Is(ClassicGroupState::kPreparingRebalance)) return;
    // Dynamic members that did not rejoin are out; static ones stay.
    std::vector<std::string> gone;
    for (const auto& [id, m] : g.members()) {
      if (!m.awaiting_join_response() && !m.group_instance_id) gone.push_back(id);
    }
    for (const std::string& id : gone) {
      g.Remove(id);
      CancelTimer(s, HeartbeatKey(g, id));
    }
    if (!g.MaybeElectNewJoinedLeader() && !g.empty()) {
      Info(fmt::format("Group {} could not complete rebalance because no members rejoined.",
                       g.group_id()));
      StartTimer(s, JoinKey(g), g.RebalanceTimeoutMs(),
                 Timer{Timer::Kind::kJoin, g.group_id(), "", 0, 0, 0});
      return;
    }
    g.InitNextGeneration(scheduler_->NowMs());
    if (g.Is(ClassicGroupState::kEmpty)) {
      Info(fmt::format("Group {} with generation {} is now empty.", g.group_id(), g.generation()));
      (void)Append(s, {GroupMetadataRecord(g)});  // a failure only loses the empty generation
      return;
    }
    Info(fmt::format("Stabilized group {} generation {} with {} members.", g.group_id(),
                     g.generation(), g.size()));
    const std::string protocol = g.protocol_name().value_or("");
    const std::string leader = g.leader_id().value_or("");
    for (const auto& [id, m] : g.members()) {
      ClassicGroupMember* mm = g.FindMember(id);
      if (mm->awaiting_join) {
        JoinGroupResponseData r;
        r.generation_id = g.generation();
        r.protocol_type = g.protocol_type();
        r.protocol_name = g.protocol_name();
        r.leader = leader;
        r.member_id = id;
        if (id == leader) r.members = MemberList(g);
        done->push_back([cb = std::move(mm->awaiting_join), r = std::move(r)] { cb(r); });
        mm->awaiting_join = nullptr;
      }
      mm->is_new = false;
      ResetHeartbeat(s, g, *mm);
      g.pending_sync().insert(id);
    }
    StartTimer(s, SyncKey(g), g.RebalanceTimeoutMs(),
               Timer{Timer::Kind::kPendingSync, g.group_id(), "", g.generation(), 0, 0});
  }

  static std::vector<protocol::JoinGroupResponseData::JoinGroupResponseMember> MemberList(
      const ClassicGroup& g) {
    std::vector<protocol::JoinGroupResponseData::JoinGroupResponseMember> out;
    const std::string protocol = g.protocol_name().value_or("");
    for (const auto& [id, m] : g.members()) {
      auto& e = out.emplace_back();
      e.member_id = id;
      e.group_instance_id = m.group_instance_id;
      if (const std::vector<uint8_t>* meta = m.MetadataFor(protocol)) e.metadata = *meta;
    }
    return out;
  }

  void ExpirePendingSync(Shard& s, ClassicGroup& g, int32_t generation, Completions* done)
      REQUIRES(s.mu) {
    if (generation != g.generation()) return;
    if (!g.Is(ClassicGroupState::kCompletingRebalance) && !g.Is(ClassicGroupState::kStable)) {
      return;
    }
    std::vector<std::string> late(g.pending_sync().begin(), g.pending_sync().end());
    if (late.empty()) return;
    for (const std::string& id : late) {
      Info(fmt::format("Member {} in group {} has not sent SyncGroup in time; removing it.", id,
                       g.group_id()));
      g.Remove(id);
      CancelTimer(s, HeartbeatKey(g, id));
    }
    PrepareRebalance(s, g, "removing members that did not sync", done);
  }

  void RemoveMemberAndUpdate(Shard& s, ClassicGroup& g, const std::string& member_id,
                             const std::string& reason, Completions* done) REQUIRES(s.mu) {
    ClassicGroupMember* m = g.FindMember(member_id);
    if (m == nullptr) return;
    if (m->awaiting_join) {
      done->push_back(
          [cb = std::move(m->awaiting_join)] { cb(JoinError(ke::kUnknownMemberId, "")); });
      m->awaiting_join = nullptr;
    }
    if (m->awaiting_sync) {
      done->push_back([cb = std::move(m->awaiting_sync)] { cb(SyncError(ke::kUnknownMemberId)); });
      m->awaiting_sync = nullptr;
    }
    g.Remove(member_id);
    CancelTimer(s, HeartbeatKey(g, member_id));
    switch (g.state()) {
      case ClassicGroupState::kStable:
      case ClassicGroupState::kCompletingRebalance:
        PrepareRebalance(s, g, reason, done);
        break;
      case ClassicGroupState::kPreparingRebalance:
        MaybeCompleteJoin(s, g, done);
        break;
      default:
        break;
    }
  }

  void ExpireMember(Shard& s, ClassicGroup& g, const std::string& member_id, Completions* done)
      REQUIRES(s.mu) {
    if (g.RemovePendingMember(member_id)) {
      Info(
          fmt::format("Pending member {} in group {} has been removed after session timeout "
                      "expiration.",
                      member_id, g.group_id()));
      MaybeCompleteJoin(s, g, done);
      return;
    }
    ClassicGroupMember* m = g.FindMember(member_id);
    if (m == nullptr) return;
    if (!m->is_new && (m->awaiting_join || m->awaiting_sync)) return;  // it is waiting on us
    Info(fmt::format("Member {} in group {} has failed, removing it from the group.", member_id,
                     g.group_id()));
    RemoveMemberAndUpdate(s, g, member_id,
                          fmt::format("removing member {} on heartbeat expiration", member_id),
                          done);
  }

  void AddMemberThenRebalanceOrCompleteJoin(Shard& s, ClassicGroup& g, ClassicGroupMember member,
                                            Completions* done) REQUIRES(s.mu) {
    if (g.Is(ClassicGroupState::kPreparingRebalance) &&
        g.previous_state() == ClassicGroupState::kEmpty) {
      g.set_new_member_added(true);
    }
    member.is_new = true;
    const std::string id = member.member_id;
    g.Add(std::move(member));
    ResetHeartbeat(s, g, *g.FindMember(id));
    if (g.CanTransitionTo(ClassicGroupState::kPreparingRebalance) &&
        !g.Is(ClassicGroupState::kPreparingRebalance)) {
      PrepareRebalance(s, g, fmt::format("Adding new member {}", id), done);
    } else {
      MaybeCompleteJoin(s, g, done);
    }
  }

  void UpdateMemberThenRebalanceOrCompleteJoin(Shard& s, ClassicGroup& g, ClassicGroupMember& m,
                                               const protocol::JoinGroupRequestData& req,
                                               int32_t rebalance_timeout, JoinGroupDone cb,
                                               const std::string& reason, Completions* done)
      REQUIRES(s.mu) {
    m.protocols.clear();
    for (const auto& p : req.protocols) m.protocols.push_back({p.name, p.metadata});
    m.session_timeout_ms = req.session_timeout_ms;
    m.rebalance_timeout_ms = rebalance_timeout;
    m.awaiting_join = std::move(cb);
    if (!g.Is(ClassicGroupState::kPreparingRebalance)) {
      PrepareRebalance(s, g, reason, done);
    } else {
      MaybeCompleteJoin(s, g, done);
    }
  }

  static bool SameProtocols(const ClassicGroupMember& m,
                            const protocol::JoinGroupRequestData& req) {
    if (m.protocols.size() != req.protocols.size()) return false;
    for (size_t i = 0; i < req.protocols.size(); ++i) {
      if (m.protocols[i].name != req.protocols[i].name ||
          m.protocols[i].metadata != req.protocols[i].metadata) {
        return false;
      }
    }
    return true;
  }

  JoinGroupResponseData CurrentGeneration(const ClassicGroup& g, const std::string& member_id,
                                          bool with_members) {
    JoinGroupResponseData r;
    r.generation_id = g.generation();
    r.protocol_type = g.protocol_type();
    r.protocol_name = g.protocol_name();
    r.leader = g.leader_id().value_or("");
    r.member_id = member_id;
    if (with_members) r.members = MemberList(g);
    return r;
  }

  void JoinGroup(int16_t version, const Client& client, const protocol::JoinGroupRequestData& req,
                 JoinGroupDone cb) {
    Completions done;
    auto reply = [&](JoinGroupResponseData r) {
      done.push_back([cb, r = std::move(r)] { cb(r); });
    };
    if (req.group_id.empty()) {
      reply(JoinError(ke::kInvalidGroupId, req.member_id));
    } else if (req.session_timeout_ms < config_.group_min_session_timeout_ms ||
               req.session_timeout_ms > config_.group_max_session_timeout_ms) {
      reply(JoinError(ke::kInvalidSessionTimeout, req.member_id));
    } else if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      reply(JoinError(ke::kCoordinatorNotAvailable, req.member_id));
    } else {
      Shard& s = ShardFor(req.group_id);
      MutexLock l(&s.mu);
      JoinLocked(s, version, client, req, cb, reply, &done);
    }
    RunAll(&done);
  }

  void JoinLocked(Shard& s, int16_t version, const Client& client,
                  const protocol::JoinGroupRequestData& req, const JoinGroupDone& cb,
                  const std::function<void(JoinGroupResponseData)>& reply, Completions* done)
      REQUIRES(s.mu) {
    if (int16_t e = Unavailable(s); e != ke::kNone) return reply(JoinError(e, req.member_id));
    const int32_t rebalance_timeout = version == 0 || req.rebalance_timeout_ms < 0
                                          ? req.session_timeout_ms
                                          : req.rebalance_timeout_ms;
    if (auto cg = s.consumer_groups.find(req.group_id); cg != s.consumer_groups.end()) {
      if (!cg->second->members().empty()) {
        // Classic members live inside a consumer group (an online upgrade or downgrade).
        return JoinToConsumerGroup(s, *cg->second, version, client, req, rebalance_timeout, reply,
                                   done);
      }
      // An empty consumer group becomes a classic group (whatever the migration policy) - if
      // the join is one that creates a classic group; else it is refused as for no group.
      if (!req.member_id.empty()) return reply(JoinError(ke::kUnknownMemberId, req.member_id));
      if (req.protocol_type.empty() || req.protocols.empty()) {
        return reply(JoinError(ke::kInconsistentGroupProtocol, ""));
      }
      if (Status w = Append(s, ConsumerGroupTombstones(*cg->second)); !w.ok()) {
        return reply(JoinError(AppendErrorToClient(w), req.member_id));
      }
      s.consumer_groups.erase(cg);
    }
    std::vector<std::string> names;
    for (const auto& p : req.protocols) names.push_back(p.name);
    auto it = s.groups.find(req.group_id);
    bool created = false;
    if (it == s.groups.end()) {
      if (!req.member_id.empty()) return reply(JoinError(ke::kUnknownMemberId, req.member_id));
      it = s.groups
               .emplace(req.group_id,
                        std::make_unique<ClassicGroup>(req.group_id, scheduler_->NowMs()))
               .first;
      created = true;
    }
    ClassicGroup& g = *it->second;
    const int64_t created_ms = g.current_state_timestamp();
    if (!AcceptJoiningMember(g, req.member_id)) {
      if (g.RemovePendingMember(req.member_id)) {
        MaybeCompleteJoin(s, g, done);
      } else if (g.HasMember(req.member_id)) {
        RemoveMemberAndUpdate(s, g, req.member_id, "the group is at its maximum size", done);
      }
      RecordCreation(s, created, g, created_ms);
      return reply(JoinError(ke::kGroupMaxSizeReached, ""));
    }
    auto make_member = [&](const std::string& id) {
      ClassicGroupMember m;
      m.member_id = id;
      m.group_instance_id = req.group_instance_id;
      m.client_id = client.client_id;
      m.client_host = client.client_host;
      m.rebalance_timeout_ms = rebalance_timeout;
      m.session_timeout_ms = req.session_timeout_ms;
      m.protocol_type = req.protocol_type;
      for (const auto& p : req.protocols) m.protocols.push_back({p.name, p.metadata});
      m.awaiting_join = cb;
      return m;
    };
    if (req.member_id.empty()) {
      // A new member.
      if (g.Is(ClassicGroupState::kDead)) return reply(JoinError(ke::kCoordinatorNotAvailable, ""));
      if (!g.SupportsProtocols(req.protocol_type, names)) {
        RecordCreation(s, created, g, created_ms);
        return reply(JoinError(ke::kInconsistentGroupProtocol, ""));
      }
      const std::string new_id =
          req.group_instance_id.value_or(client.client_id) + "-" + RandomJavaUuid();
      if (req.group_instance_id) {
        if (std::optional<std::string> old = g.StaticMemberId(*req.group_instance_id)) {
          ReplaceStaticMember(s, g, *old, new_id, req, rebalance_timeout, cb, reply, done);
          return;
        }
        AddMemberThenRebalanceOrCompleteJoin(s, g, make_member(new_id), done);
      } else if (version >= 4) {
        // KIP-394: the member must come back with the id it is given.
        g.AddPendingMember(new_id);
        StartTimer(s, HeartbeatKey(g, new_id), req.session_timeout_ms,
                   Timer{Timer::Kind::kHeartbeat, g.group_id(), new_id, 0, 0, 0});
        RecordCreation(s, created, g, created_ms);
        return reply(JoinError(ke::kMemberIdRequired, new_id));
      } else {
        AddMemberThenRebalanceOrCompleteJoin(s, g, make_member(new_id), done);
      }
      RecordCreation(s, created, g, created_ms);
      return;
    }
    // A known member.
    if (g.Is(ClassicGroupState::kDead)) {
      return reply(JoinError(ke::kCoordinatorNotAvailable, req.member_id));
    }
    if (!g.SupportsProtocols(req.protocol_type, names)) {
      return reply(JoinError(ke::kInconsistentGroupProtocol, req.member_id));
    }
    if (g.IsPendingMember(req.member_id)) {
      if (req.group_instance_id) return reply(JoinError(ke::kUnknownMemberId, req.member_id));
      g.RemovePendingMember(req.member_id);
      AddMemberThenRebalanceOrCompleteJoin(s, g, make_member(req.member_id), done);
      return;
    }
    if (int16_t e = ValidateMember(g, req.member_id, req.group_instance_id); e != ke::kNone) {
      return reply(JoinError(e, req.member_id));
    }
    ClassicGroupMember& m = *g.FindMember(req.member_id);
    const std::string reason = fmt::format("Updating metadata for member {} during {}",
                                           req.member_id, ClassicGroupStateName(g.state()));
    switch (g.state()) {
      case ClassicGroupState::kPreparingRebalance:
        UpdateMemberThenRebalanceOrCompleteJoin(s, g, m, req, rebalance_timeout, cb, reason, done);
        return;
      case ClassicGroupState::kCompletingRebalance:
        if (SameProtocols(m, req)) {
          return reply(CurrentGeneration(g, req.member_id, req.member_id == g.leader_id()));
        }
        UpdateMemberThenRebalanceOrCompleteJoin(s, g, m, req, rebalance_timeout, cb, reason, done);
        return;
      case ClassicGroupState::kStable:
        if (req.member_id == g.leader_id() || !SameProtocols(m, req)) {
          UpdateMemberThenRebalanceOrCompleteJoin(
              s, g, m, req, rebalance_timeout, cb,
              req.member_id == g.leader_id()
                  ? fmt::format("Leader {} re-joining group during Stable", req.member_id)
                  : reason,
              done);
          return;
        }
        return reply(CurrentGeneration(g, req.member_id, false));
      default:
        return reply(JoinError(ke::kUnknownMemberId, req.member_id));
    }
  }

  // The "empty" record of a group this join created (Kafka writes it when that join itself
  // writes nothing).
  void RecordCreation(Shard& s, bool created, const ClassicGroup& g, int64_t created_ms)
      REQUIRES(s.mu) {
    if (created) (void)Append(s, {EmptyGroupMetadataRecord(g.group_id(), created_ms)});
  }

  void ReplaceStaticMember(Shard& s, ClassicGroup& g, const std::string& old_id,
                           const std::string& new_id, const protocol::JoinGroupRequestData& req,
                           int32_t rebalance_timeout, const JoinGroupDone& cb,
                           const std::function<void(JoinGroupResponseData)>& reply,
                           Completions* done) REQUIRES(s.mu) {
    const std::string old_leader = g.leader_id().value_or("");
    const std::string old_protocol = g.protocol_name().value_or("");
    ClassicGroup::Replaced old = g.ReplaceStaticMember(*req.group_instance_id, old_id, new_id);
    if (old.awaiting_join) {
      done->push_back(
          [f = std::move(old.awaiting_join)] { f(JoinError(ke::kFencedInstanceId, "")); });
    }
    if (old.awaiting_sync) {
      done->push_back([f = std::move(old.awaiting_sync)] { f(SyncError(ke::kFencedInstanceId)); });
    }
    CancelTimer(s, HeartbeatKey(g, old_id));
    ClassicGroupMember& m = *g.FindMember(new_id);
    ResetHeartbeat(s, g, m);
    switch (g.state()) {
      case ClassicGroupState::kStable: {
        ClassicGroupMember probe = m;
        probe.protocols.clear();
        for (const auto& p : req.protocols) probe.protocols.push_back({p.name, p.metadata});
        if (SameProtocols(m, req) || old_protocol == SelectWith(g, new_id, probe)) {
          m.protocols = probe.protocols;
          m.session_timeout_ms = req.session_timeout_ms;
          m.rebalance_timeout_ms = rebalance_timeout;
          Status w = Append(s, {GroupMetadataRecord(g)});
          if (!w.ok()) {
            g.ReplaceStaticMember(*req.group_instance_id, new_id, old_id);
            return reply(JoinError(AppendErrorToClient(w), ""));
          }
          JoinGroupResponseData r = CurrentGeneration(g, new_id, false);
          r.leader = old_leader;
          if (new_id == g.leader_id()) {
            r.members = MemberList(g);
            r.skip_assignment = true;
          }
          return reply(std::move(r));
        }
        UpdateMemberThenRebalanceOrCompleteJoin(
            s, g, m, req, rebalance_timeout, cb,
            fmt::format("Updating metadata for static member {} with instance id {}", new_id,
                        *req.group_instance_id),
            done);
        return;
      }
      default:
        UpdateMemberThenRebalanceOrCompleteJoin(
            s, g, m, req, rebalance_timeout, cb,
            fmt::format("Updating metadata for static member {} with instance id {}", new_id,
                        *req.group_instance_id),
            done);
        return;
    }
  }

  // The protocol the group would select if `member_id` offered `probe`'s protocols.
  static std::string SelectWith(const ClassicGroup& g, const std::string& member_id,
                                const ClassicGroupMember& probe) {
    ClassicGroup copy(g.group_id(), 0);
    for (const auto& [id, m] : g.members()) {
      ClassicGroupMember c = id == member_id ? probe : m;
      c.awaiting_join = nullptr;
      c.awaiting_sync = nullptr;
      copy.Add(std::move(c));
    }
    return copy.SelectProtocol();
  }

  void SyncGroup(int16_t version, const protocol::SyncGroupRequestData& req, SyncGroupDone cb) {
    (void)version;
    Completions done;
    auto reply = [&](SyncGroupResponseData r) {
      done.push_back([cb, r = std::move(r)] { cb(r); });
    };
    if (req.group_id.empty()) {
      reply(SyncError(ke::kInvalidGroupId));
    } else if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      reply(SyncError(ke::kCoordinatorNotAvailable));
    } else {
      Shard& s = ShardFor(req.group_id);
      MutexLock l(&s.mu);
      SyncLocked(s, req, cb, reply, &done);
    }
    RunAll(&done);
  }

  void SyncLocked(Shard& s, const protocol::SyncGroupRequestData& req, const SyncGroupDone& cb,
                  const std::function<void(SyncGroupResponseData)>& reply, Completions* done)
      REQUIRES(s.mu) {
    if (int16_t e = Unavailable(s); e != ke::kNone) return reply(SyncError(e));
    if (ConsumerGroup* cg = FindConsumerGroup(s, req.group_id)) {
      bool rebalancing = false;
      SyncGroupResponseData r = ClassicGroupSyncToConsumerGroup(
          *cg, req, [this](const Uuid& id) { return TopicName(id); }, &rebalancing);
      if (const ConsumerGroupMember* m = cg->FindMember(req.member_id)) {
        if (rebalancing) StartClassicJoinTimeout(s, *cg, *m);
        if (r.error_code == ke::kNone) {
          CancelTimer(s, ConsumerClassicSyncKey(cg->group_id(), m->member_id));
          StartConsumerSession(s, *cg, *m);
        }
      }
      return reply(std::move(r));
    }
    auto it = s.groups.find(req.group_id);
    if (it == s.groups.end() || it->second->Is(ClassicGroupState::kEmpty)) {
      return reply(SyncError(ke::kUnknownMemberId));
    }
    ClassicGroup& g = *it->second;
    if (g.Is(ClassicGroupState::kDead)) return reply(SyncError(ke::kCoordinatorNotAvailable));
    if (int16_t e = ValidateMember(g, req.member_id, req.group_instance_id); e != ke::kNone) {
      return reply(SyncError(e));
    }
    if (req.generation_id != g.generation()) return reply(SyncError(ke::kIllegalGeneration));
    if ((req.protocol_type && *req.protocol_type != g.protocol_type().value_or("")) ||
        (req.protocol_name && *req.protocol_name != g.protocol_name().value_or(""))) {
      return reply(SyncError(ke::kInconsistentGroupProtocol));
    }
    ClassicGroupMember& m = *g.FindMember(req.member_id);
    auto success = [&g](const ClassicGroupMember& member) {
      SyncGroupResponseData r;
      r.protocol_type = g.protocol_type();
      r.protocol_name = g.protocol_name();
      r.assignment = member.assignment;
      return r;
    };
    switch (g.state()) {
      case ClassicGroupState::kPreparingRebalance:
        return reply(SyncError(ke::kRebalanceInProgress));
      case ClassicGroupState::kStable:
        ResetHeartbeat(s, g, m);
        return reply(success(m));
      case ClassicGroupState::kCompletingRebalance:
        break;
      default:
        return reply(SyncError(ke::kUnknownMemberId));
    }
    m.awaiting_sync = cb;
    g.pending_sync().erase(req.member_id);
    if (g.pending_sync().empty()) CancelTimer(s, SyncKey(g));
    if (req.member_id != g.leader_id()) return;  // followers wait for the leader
    std::map<std::string, const std::vector<uint8_t>*> given;
    for (const auto& a : req.assignments) given[a.member_id] = &a.assignment;
    for (const auto& [id, member] : g.members()) {
      ClassicGroupMember* mm = g.FindMember(id);
      auto a = given.find(id);
      if (a == given.end()) {
        Info(fmt::format("WARN Setting empty assignments for member {} of {} for generation {}.",
                         id, g.group_id(), g.generation()));
        mm->assignment.clear();
      } else {
        mm->assignment = *a->second;
      }
    }
    Status w = Append(s, {GroupMetadataRecord(g)});
    if (!w.ok()) {
      const int16_t e = AppendErrorToClient(w);
      for (const auto& [id, member] : g.members()) {
        ClassicGroupMember* mm = g.FindMember(id);
        mm->assignment.clear();
        if (mm->awaiting_sync) {
          done->push_back([f = std::move(mm->awaiting_sync), e] { f(SyncError(e)); });
          mm->awaiting_sync = nullptr;
        }
      }
      PrepareRebalance(s, g, "failed to write the group's assignment", done);
      return;
    }
    for (const auto& [id, member] : g.members()) {
      ClassicGroupMember* mm = g.FindMember(id);
      if (mm->awaiting_sync) {
        done->push_back([f = std::move(mm->awaiting_sync), r = success(*mm)] { f(r); });
        mm->awaiting_sync = nullptr;
      }
      ResetHeartbeat(s, g, *mm);
    }
    g.TransitionTo(ClassicGroupState::kStable, scheduler_->NowMs());
    size_t statics = 0;
    for (const auto& [id, member] : g.members()) statics += member.group_instance_id ? 1 : 0;
    Info(
        fmt::format("Assignment received from leader {} for group {} for generation {}. The group "
                    "has {} members, {} of which are static.",
                    req.member_id, g.group_id(), g.generation(), g.size(), statics));
  }

  int16_t Heartbeat(const std::string& group_id, int32_t generation, const std::string& member_id,
                    const std::optional<std::string>& instance_id) {
    if (group_id.empty()) return ke::kInvalidGroupId;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) return ke::kCoordinatorNotAvailable;
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return e;
    if (ConsumerGroup* cg = FindConsumerGroup(s, group_id)) {
      bool valid = false, rebalancing = false;
      const int16_t e = ClassicGroupHeartbeatToConsumerGroup(*cg, generation, member_id,
                                                             instance_id, &valid, &rebalancing);
      if (valid) {
        const ConsumerGroupMember& m = *cg->FindMember(member_id);
        StartConsumerSession(s, *cg, m);
        if (rebalancing) StartClassicJoinTimeout(s, *cg, m);
      }
      return e;
    }
    auto it = s.groups.find(group_id);
    if (it == s.groups.end()) return ke::kUnknownMemberId;
    ClassicGroup& g = *it->second;
    if (g.Is(ClassicGroupState::kDead)) return ke::kCoordinatorNotAvailable;
    if (int16_t e = ValidateMember(g, member_id, instance_id); e != ke::kNone) return e;
    if (generation != g.generation()) return ke::kIllegalGeneration;
    ClassicGroupMember& m = *g.FindMember(member_id);
    switch (g.state()) {
      case ClassicGroupState::kPreparingRebalance:
        ResetHeartbeat(s, g, m);
        return ke::kRebalanceInProgress;
      case ClassicGroupState::kCompletingRebalance:
      case ClassicGroupState::kStable:
        ResetHeartbeat(s, g, m);
        return ke::kNone;
      default:
        return ke::kUnknownMemberId;
    }
  }

  LeaveResult LeaveGroup(const std::string& group_id, const std::vector<LeavingMember>& members) {
    LeaveResult out;
    Completions done;
    if (group_id.empty()) {
      out.error_code = ke::kInvalidGroupId;
    } else if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      out.error_code = ke::kCoordinatorNotAvailable;
    } else {
      Shard& s = ShardFor(group_id);
      MutexLock l(&s.mu);
      LeaveLocked(s, group_id, members, &out, &done);
    }
    RunAll(&done);
    return out;
  }

  void LeaveLocked(Shard& s, const std::string& group_id, const std::vector<LeavingMember>& members,
                   LeaveResult* out, Completions* done) REQUIRES(s.mu) {
    if (int16_t e = Unavailable(s); e != ke::kNone) {
      out->error_code = e;
      return;
    }
    if (ConsumerGroup* cg = FindConsumerGroup(s, group_id)) {
      LeaveConsumerGroup(s, *cg, members, out, done);
      return;
    }
    auto it = s.groups.find(group_id);
    if (it == s.groups.end()) {
      out->member_errors.assign(members.size(), ke::kUnknownMemberId);
      return;
    }
    ClassicGroup& g = *it->second;
    if (g.Is(ClassicGroupState::kDead)) {
      out->error_code = ke::kCoordinatorNotAvailable;
      return;
    }
    bool any_left = false;
    std::vector<std::string> leaving;
    for (const LeavingMember& lm : members) {
      int16_t e = ke::kNone;
      std::string id = lm.member_id;
      if (id.empty()) {
        std::optional<std::string> mapped =
            lm.group_instance_id ? g.StaticMemberId(*lm.group_instance_id) : std::nullopt;
        if (mapped) {
          id = *mapped;
        } else {
          e = ke::kUnknownMemberId;
        }
      } else if (g.RemovePendingMember(id)) {
        CancelTimer(s, HeartbeatKey(g, id));
        any_left = true;
        out->member_errors.push_back(ke::kNone);
        continue;
      } else {
        e = ValidateMember(g, id, lm.group_instance_id);
      }
      out->member_errors.push_back(e);
      if (e != ke::kNone) continue;
      Info(fmt::format("Member {} has left group {} through explicit LeaveGroup request.", id,
                       group_id));
      ClassicGroupMember* m = g.FindMember(id);
      if (m != nullptr && m->awaiting_join) {
        done->push_back(
            [f = std::move(m->awaiting_join)] { f(JoinError(ke::kUnknownMemberId, "")); });
        m->awaiting_join = nullptr;
      }
      if (m != nullptr && m->awaiting_sync) {
        done->push_back([f = std::move(m->awaiting_sync)] { f(SyncError(ke::kUnknownMemberId)); });
        m->awaiting_sync = nullptr;
      }
      g.Remove(id);
      CancelTimer(s, HeartbeatKey(g, id));
      any_left = true;
    }
    if (!any_left) return;
    if (g.Is(ClassicGroupState::kStable) || g.Is(ClassicGroupState::kCompletingRebalance)) {
      PrepareRebalance(s, g, "removing members through LeaveGroup", done);
    } else if (g.Is(ClassicGroupState::kPreparingRebalance)) {
      MaybeCompleteJoin(s, g, done);
    }
  }

  // ---- Offsets ----

  void CommitOffsets(int16_t version, const std::string& group_id, int32_t generation,
                     const std::string& member_id, const std::optional<std::string>& instance_id,
                     int64_t retention_ms, std::vector<CommitPartition>* partitions) {
    auto fail_all = [&](int16_t e) {
      for (CommitPartition& p : *partitions) p.error_code = e;
    };
    if (partitions->empty()) return;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) return fail_all(ke::kCoordinatorNotAvailable);
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return fail_all(e);
    const int64_t now = scheduler_->NowMs();
    auto it = s.groups.find(group_id);
    ClassicGroup* g = nullptr;
    if (auto cg = s.consumer_groups.find(group_id); cg != s.consumer_groups.end()) {
      if (int16_t e =
              ValidateConsumerCommit(*cg->second, version, generation, member_id, partitions);
          e != ke::kNone) {
        return fail_all(e);
      }
    } else if (it == s.groups.end()) {
      if (generation >= 0) {
        return fail_all(version >= 9 ? ke::kGroupIdNotFound : ke::kIllegalGeneration);
      }
      Info(fmt::format("Creating a simple consumer group {} via manual offset commit.", group_id));
      g = s.groups.emplace(group_id, std::make_unique<ClassicGroup>(group_id, now))
              .first->second.get();
    } else {
      g = it->second.get();
      if (g->Is(ClassicGroupState::kDead)) return fail_all(ke::kCoordinatorNotAvailable);
      if (generation < 0 && g->Is(ClassicGroupState::kEmpty)) {
        // a commit outside the group's generations (an admin or a manual assignment)
      } else if (generation >= 0 || !member_id.empty() || instance_id) {
        if (int16_t e = ValidateMember(*g, member_id, instance_id); e != ke::kNone) {
          return fail_all(e);
        }
        if (generation != g->generation()) return fail_all(ke::kIllegalGeneration);
      } else {
        return fail_all(ke::kUnknownMemberId);
      }
      if (g->Is(ClassicGroupState::kCompletingRebalance)) {
        return fail_all(ke::kRebalanceInProgress);
      }
    }
    if (ClassicGroupMember* m = g == nullptr ? nullptr : g->FindMember(member_id);
        m != nullptr &&
        (g->Is(ClassicGroupState::kStable) || g->Is(ClassicGroupState::kPreparingRebalance))) {
      ResetHeartbeat(s, *g, *m);
    }
    std::vector<OffsetsRecord> records;
    std::vector<std::pair<CommitPartition*, CommittedOffset>> committing;
    for (CommitPartition& p : *partitions) {
      if (p.error_code != ke::kNone) continue;  // refused by the group check above
      const std::string metadata = p.metadata.value_or("");
      if (JavaStringLength(metadata) > static_cast<size_t>(config_.offset_metadata_max_bytes)) {
        p.error_code = ke::kOffsetMetadataTooLarge;
        continue;
      }
      CommittedOffset c;
      c.offset = p.offset;
      c.leader_epoch = p.leader_epoch;
      c.metadata = metadata;
      c.commit_timestamp_ms = now;
      if (retention_ms != -1 && version <= 4) c.expire_timestamp_ms = now + retention_ms;
      c.topic_id = p.topic_id;
      records.push_back(OffsetCommitRecord(group_id, p.topic, p.partition, c));
      committing.emplace_back(&p, std::move(c));
    }
    int64_t first_offset = -1;
    if (Status w = Append(s, records, &first_offset); !w.ok()) {
      const int16_t e = AppendErrorToClient(w);
      for (auto& [p, c] : committing) p->error_code = e;
      return;
    }
    if (committing.empty()) return;
    auto& offsets = s.offsets[group_id];
    int64_t record_offset = first_offset;  // the records are in `committing`'s order
    for (auto& [p, c] : committing) {
      p->error_code = ke::kNone;
      offsets[{p->topic, p->partition}] = StoredOffset{std::move(c), record_offset++};
    }
  }

  // TxnOffsetCommit's group check (Kafka's OMM validateTransactionalOffsetCommit and the
  // groups' validateOffsetCommit with isTransactional): 0, or the error of every partition.
  // An unknown group with a generation < 0 is created as a simple group.
  int16_t ValidateTransactionalCommit(Shard& s, int16_t version, const std::string& group_id,
                                      int32_t generation, const std::string& member_id,
                                      const std::optional<std::string>& instance_id,
                                      const std::vector<CommitPartition>& partitions)
      REQUIRES(s.mu) {
    if (auto cg = s.consumer_groups.find(group_id); cg != s.consumer_groups.end()) {
      const ConsumerGroup& g = *cg->second;
      if (generation < 0 && g.members().empty()) return ke::kNone;  // an admin's commit
      // TxnOffsetCommit does not need the member fields: without them nothing is checked.
      if (generation == -1 && member_id.empty() && !instance_id) return ke::kNone;
      const ConsumerGroupMember* m = g.FindMember(member_id);
      if (m == nullptr) return ke::kUnknownMemberId;
      if (m->classic) return generation == m->member_epoch ? ke::kNone : ke::kIllegalGeneration;
      if (generation == m->member_epoch) return ke::kNone;
      // Kafka 4.4 answers STALE_MEMBER_EPOCH from v6 on; before it ILLEGAL_GENERATION (the
      // request fails as a whole, also when a single partition is stale).
      const int16_t stale = version >= 6 ? ke::kStaleMemberEpoch : ke::kIllegalGeneration;
      if (generation > m->member_epoch) return stale;
      for (const CommitPartition& p : partitions) {
        if (p.error_code != ke::kNone) continue;
        if (MetadataTooLarge(p)) continue;  // answered so before the partition is validated
        if (!AssignedSince(*m, p, generation)) return stale;
      }
      return ke::kNone;
    }
    auto it = s.groups.find(group_id);
    if (it == s.groups.end()) {
      if (generation >= 0) return version >= 6 ? ke::kGroupIdNotFound : ke::kIllegalGeneration;
      s.groups.emplace(group_id, std::make_unique<ClassicGroup>(group_id, scheduler_->NowMs()));
      return ke::kNone;
    }
    ClassicGroup& g = *it->second;
    if (g.Is(ClassicGroupState::kDead)) return ke::kCoordinatorNotAvailable;
    if (generation < 0 && g.Is(ClassicGroupState::kEmpty)) return ke::kNone;
    if (generation >= 0 || !member_id.empty() || instance_id) {
      if (int16_t e = ValidateMember(g, member_id, instance_id); e != ke::kNone) return e;
      if (generation != g.generation()) return ke::kIllegalGeneration;
    }
    // Unlike OffsetCommit: no member fields is accepted in any state, and CompletingRebalance
    // is no error (the transaction's producer is not the group's member).
    return ke::kNone;
  }

  bool MetadataTooLarge(const CommitPartition& p) const {
    return JavaStringLength(p.metadata.value_or("")) >
           static_cast<size_t>(config_.offset_metadata_max_bytes);
  }

  // Whether the partition is `m`'s (assigned or being revoked) since at most `epoch`: a
  // commit at an older epoch than the member's may still commit it (Kafka's assignment epoch
  // validator).
  bool AssignedSince(const ConsumerGroupMember& m, const CommitPartition& p, int32_t epoch) {
    Uuid topic = p.topic_id;
    if (topic.IsZero()) {
      if (std::optional<ConsumerGroupTopic> t = TopicByName(p.topic)) topic = t->id;
    }
    int32_t assigned_at = -1;
    for (const EpochPartitions* set : {&m.assigned_partitions, &m.partitions_pending_revocation}) {
      auto t = set->find(topic);
      if (t == set->end()) continue;
      auto e = t->second.find(p.partition);
      if (e != t->second.end()) assigned_at = e->second;
    }
    return assigned_at >= 0 && assigned_at <= epoch;
  }

  void CommitTransactionalOffsets(int16_t version, const std::string& group_id, int64_t producer_id,
                                  int16_t producer_epoch, int32_t generation,
                                  const std::string& member_id,
                                  const std::optional<std::string>& instance_id,
                                  std::vector<CommitPartition>* partitions) {
    auto fail_all = [&](int16_t e) {
      for (CommitPartition& p : *partitions) p.error_code = e;
    };
    if (partitions->empty()) return;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) return fail_all(ke::kCoordinatorNotAvailable);
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return fail_all(e);
    if (int16_t e = ValidateTransactionalCommit(s, version, group_id, generation, member_id,
                                                instance_id, *partitions);
        e != ke::kNone) {
      return fail_all(e);
    }
    const int64_t now = scheduler_->NowMs();
    std::vector<OffsetsRecord> records;
    std::vector<std::pair<CommitPartition*, CommittedOffset>> committing;
    for (CommitPartition& p : *partitions) {
      if (p.error_code != ke::kNone) continue;  // refused by the broker
      if (MetadataTooLarge(p)) {
        p.error_code = ke::kOffsetMetadataTooLarge;
        continue;
      }
      CommittedOffset c;
      c.offset = p.offset;
      c.leader_epoch = p.leader_epoch;
      c.metadata = p.metadata.value_or("");
      c.commit_timestamp_ms = now;  // TxnOffsetCommit has no retention time
      c.topic_id = p.topic_id;
      records.push_back(OffsetCommitRecord(group_id, p.topic, p.partition, c));
      committing.emplace_back(&p, std::move(c));
    }
    int64_t first_offset = -1;
    if (Status w = Append(s, records, &first_offset, producer_id, producer_epoch); !w.ok()) {
      const int16_t e = AppendErrorToClient(w);
      for (auto& [p, c] : committing) p->error_code = e;
      return;
    }
    int64_t record_offset = first_offset;
    for (auto& [p, c] : committing) {
      p->error_code = ke::kNone;
      s.pending.Add(producer_id, group_id, {p->topic, p->partition},
                    StoredOffset{std::move(c), record_offset++});
    }
  }

  int16_t CompleteTransaction(int32_t partition, int64_t producer_id, int16_t producer_epoch,
                              int32_t coordinator_epoch, bool commit) {
    if (partition < 0 || static_cast<size_t>(partition) >= shards_.size()) {
      return ke::kUnknownTopicOrPartition;
    }
    // Kafka's KafkaApis answers a coordinator that is not there (COORDINATOR_NOT_AVAILABLE,
    // COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR) with NOT_LEADER_OR_FOLLOWER, which the
    // transaction coordinator retries.
    auto to_marker_error = [](int16_t e) {
      if (e == ke::kCoordinatorNotAvailable || e == ke::kCoordinatorLoadInProgress ||
          e == ke::kNotCoordinator) {
        return ke::kNotLeaderOrFollower;
      }
      return e;
    };
    if (Status t = EnsureOffsetsTopic(); !t.ok()) return ke::kNotLeaderOrFollower;
    Shard& s = *shards_[partition];
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return to_marker_error(e);
    // MemoryRecords.withEndTransactionMarker: a control batch of the producer, no sequence.
    BatchOptions o;
    o.producer_id = producer_id;
    o.producer_epoch = producer_epoch;
    o.base_sequence = kNoSequence;
    o.is_transactional = true;
    o.is_control = true;
    RecordBatchBuilder b(o);
    Status built =
        b.AppendEndTxnMarker(commit ? ControlRecordType::kCommit : ControlRecordType::kAbort,
                             coordinator_epoch, scheduler_->NowMs());
    if (!built.ok()) return ke::kUnknownServerError;
    Result<std::vector<uint8_t>> batch = b.Build();
    if (!batch.ok()) return ke::kUnknownServerError;
    // The log's producer state checks the marker's producer epoch and coordinator epoch.
    Result<LogAppendInfo> info = s.log->AppendAsLeader(*batch, 0, AppendOrigin::kCoordinator);
    if (!info.ok()) {
      Info(fmt::format("WARN Failed to write the {} marker of producer {} to {}-{}: {}",
                       commit ? "COMMIT" : "ABORT", producer_id, kConsumerOffsetsTopic, s.partition,
                       info.status().ToString()));
      const int16_t e = ke::FromStatus(info.status());
      return e == ke::kNone ? ke::kUnknownServerError : to_marker_error(e);
    }
    ReplayEndTransaction(s, producer_id, commit);
    return ke::kNone;
  }

  FetchResult FetchOffsets(const std::string& group_id,
                           const std::optional<std::vector<FetchTopic>>& topics,
                           const std::optional<std::string>& member_id, int32_t member_epoch,
                           bool require_stable) {
    FetchResult out;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      out.error_code = ke::kCoordinatorNotAvailable;
      return out;
    }
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) {
      out.error_code = e;
      return out;
    }
    if (auto cg = s.consumer_groups.find(group_id);
        cg != s.consumer_groups.end() && (member_id || member_epoch >= 0)) {
      // Kafka's ConsumerGroup.validateOffsetFetch.
      const ConsumerGroupMember* m = cg->second->FindMember(member_id.value_or(""));
      if (m == nullptr) {
        out.error_code = ke::kUnknownMemberId;
        return out;
      }
      if (member_epoch != m->member_epoch) {
        out.error_code = m->classic ? ke::kIllegalGeneration : ke::kStaleMemberEpoch;
        return out;
      }
    }
    const auto git = s.offsets.find(group_id);
    const PendingTransactionalOffsets* pending = &s.pending;
    auto add = [&](const std::string& topic, int32_t partition, const CommittedOffset* c) {
      FetchedOffset f;
      f.topic = topic;
      f.partition = partition;
      if (require_stable && pending->Contains(group_id, {topic, partition})) {
        f.error_code = ke::kUnstableOffsetCommit;  // offset -1, as Kafka's OMM fetchOffsets
      } else if (c != nullptr) {
        f.offset = c->offset;
        f.leader_epoch = c->leader_epoch;
        f.metadata = c->metadata;
        f.topic_id = c->topic_id;
      }
      out.offsets.push_back(std::move(f));
    };
    if (!topics) {
      if (git != s.offsets.end()) {
        for (const auto& [tp, c] : git->second) add(tp.first, tp.second, &c);
      }
      return out;
    }
    for (const FetchTopic& t : *topics) {
      for (int32_t p : t.partitions) {
        const CommittedOffset* c = nullptr;
        if (git != s.offsets.end()) {
          auto f = git->second.find({t.topic, p});
          if (f != git->second.end()) c = &f->second;
        }
        add(t.topic, p, c);
      }
    }
    return out;
  }

  // ---- KIP-848 consumer groups ----

  static std::string ConsumerSessionKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-session-{}-{}", group, member);
  }
  static std::string ConsumerRevocationKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-revocation-{}-{}", group, member);
  }
  static std::string ConsumerClassicJoinKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-join-{}-{}", group, member);
  }
  static std::string ConsumerClassicSyncKey(const std::string& group, const std::string& member) {
    return fmt::format("consumer-sync-{}-{}", group, member);
  }

  // The member's session timeout: the group's, or a classic member's own.
  int32_t SessionTimeoutMs(const ConsumerGroupMember& m) const {
    return m.classic ? m.classic->session_timeout_ms : config_.group_consumer_session_timeout_ms;
  }
  void StartConsumerSession(Shard& s, const ConsumerGroup& g, const ConsumerGroupMember& m)
      REQUIRES(s.mu) {
    StartTimer(s, ConsumerSessionKey(g.group_id(), m.member_id), SessionTimeoutMs(m),
               Timer{Timer::Kind::kConsumerSession, g.group_id(), m.member_id, 0, 0, 0});
  }
  // A classic member told REBALANCE_IN_PROGRESS must join again within its rebalance timeout
  // (started once, not moved by later answers).
  void StartClassicJoinTimeout(Shard& s, const ConsumerGroup& g, const ConsumerGroupMember& m)
      REQUIRES(s.mu) {
    const std::string key = ConsumerClassicJoinKey(g.group_id(), m.member_id);
    if (s.timers.count(key)) return;
    StartTimer(s, key, m.rebalance_timeout_ms,
               Timer{Timer::Kind::kConsumerClassicJoin, g.group_id(), m.member_id, 0, 0, 0});
  }

  // The member's session timeout and, while it has partitions to revoke, its rebalance
  // timeout (from now: after a load, or when it starts revoking).
  void StartConsumerTimers(Shard& s, const ConsumerGroup& g, const ConsumerGroupMember& m,
                           bool revoking_since_now) REQUIRES(s.mu) {
    StartConsumerSession(s, g, m);
    if (revoking_since_now && !m.classic && m.state == ConsumerMemberState::kUnrevokedPartitions) {
      StartTimer(
          s, ConsumerRevocationKey(g.group_id(), m.member_id), m.rebalance_timeout_ms,
          Timer{Timer::Kind::kConsumerRevocation, g.group_id(), m.member_id, m.member_epoch, 0, 0});
    }
  }

  void CancelConsumerTimers(Shard& s, const std::string& group, const std::string& member)
      REQUIRES(s.mu) {
    CancelTimer(s, ConsumerSessionKey(group, member));
    CancelTimer(s, ConsumerRevocationKey(group, member));
    CancelTimer(s, ConsumerClassicJoinKey(group, member));
    CancelTimer(s, ConsumerClassicSyncKey(group, member));
  }

  std::optional<std::string> TopicName(const Uuid& id) const {
    return logs_->TopicNameForId(id.ToString());
  }

  // Removes `members` from the consumer group `g` (they left or were fenced): with their
  // tombstones and a group epoch bump - or, when only classic members remain and the policy
  // allows it, by turning the group into a classic group (Downgrade). `g` changes only once
  // the records are written.
  Status RemoveConsumerMembers(Shard& s, ConsumerGroup& g, const std::set<std::string>& members,
                               const std::string& reason, Completions* done) REQUIRES(s.mu) {
    if (ShouldDowngrade(g, members, config_)) {
      Status d = Downgrade(s, g, members, reason, done);
      if (d.ok() || !d.IsInvalidArgument()) return d;
      Info(fmt::format("[GroupId {}] Cannot downgrade the consumer group to a classic group: {}",
                       g.group_id(), d.message()));
    }
    ConsumerGroup next = g;
    const ConsumerGroupHeartbeatContext ctx = HeartbeatContext(Client{});
    SEGLOG_RETURN_IF_ERROR(Append(s, FenceConsumerGroupMembers(&next, members, &ctx)));
    g = std::move(next);
    for (const std::string& id : members) CancelConsumerTimers(s, g.group_id(), id);
    return Status::OK();
  }

  // The consumer group `g` (the shard's, or a new state of it: `prefix` are the records that
  // make it so, written in the same batch) becomes a classic group of its members other than
  // `leaving` (all classic members), which then rebalances unless `rebalance` is false (Kafka's
  // convertToClassicGroup). InvalidArgument (nothing written) when a member's protocol
  // metadata cannot be read.
  Status Downgrade(Shard& s, const ConsumerGroup& g, const std::set<std::string>& leaving,
                   const std::string& reason, Completions* done,
                   std::vector<OffsetsRecord> prefix = {}, bool rebalance = true) REQUIRES(s.mu) {
    const int64_t now = scheduler_->NowMs();
    SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<ClassicGroup> classic,
                            ClassicGroupFromConsumerGroup(
                                g, leaving, [this](const Uuid& id) { return TopicName(id); }, now));
    for (OffsetsRecord& r : ConsumerGroupDowngradeRecords(g, *classic)) {
      prefix.push_back(std::move(r));
    }
    SEGLOG_RETURN_IF_ERROR(Append(s, prefix));
    const std::string id = g.group_id();
    for (const auto& [member_id, m] : g.members()) {
      (void)m;
      CancelConsumerTimers(s, id, member_id);
    }
    if (auto old = s.consumer_groups.find(id); old != s.consumer_groups.end()) {
      for (const auto& [member_id, m] : old->second->members()) {
        (void)m;
        CancelConsumerTimers(s, id, member_id);
      }
      s.consumer_groups.erase(old);  // `g` may be gone
    }
    ClassicGroup& cg = *(s.groups[id] = std::move(classic));
    Info(fmt::format("[GroupId {}] Converted the consumer group to a classic group ({}).", id,
                     reason));
    for (const auto& [member_id, m] : cg.members()) ResetHeartbeat(s, cg, m);
    if (rebalance) {
      PrepareRebalance(
          s, cg, fmt::format("Downgrade the consumer group to a classic group: {}", reason), done);
    }
    return Status::OK();
  }

  // A consumer member's session ran out, it did not revoke its partitions in time, or a
  // classic member did not join or sync in time: it is removed (the others get its partitions
  // at their next heartbeat), which may downgrade the group.
  void FireConsumer(Shard& s, const Timer& t, Completions* done) REQUIRES(s.mu) {
    ConsumerGroup* g = FindConsumerGroup(s, t.group);
    if (g == nullptr) return;
    const ConsumerGroupMember* m = g->FindMember(t.member);
    if (m == nullptr) return;
    if (t.kind == Timer::Kind::kConsumerRevocation &&
        (m->state != ConsumerMemberState::kUnrevokedPartitions ||
         m->member_epoch != t.generation)) {
      return;  // it revoked meanwhile
    }
    std::string why;
    std::string key;
    switch (t.kind) {
      case Timer::Kind::kConsumerSession:
        why = "its session expired";
        key = ConsumerSessionKey(t.group, t.member);
        break;
      case Timer::Kind::kConsumerRevocation:
        why = "it failed to revoke partitions within its rebalance timeout";
        key = ConsumerRevocationKey(t.group, t.member);
        break;
      case Timer::Kind::kConsumerClassicJoin:
        why = "it failed to join the group within its rebalance timeout";
        key = ConsumerClassicJoinKey(t.group, t.member);
        break;
      default:
        why = "it failed to sync within its rebalance timeout";
        key = ConsumerClassicSyncKey(t.group, t.member);
        break;
    }
    if (Status w = RemoveConsumerMembers(s, *g, {t.member},
                                         fmt::format("member {} fenced", t.member), done);
        !w.ok()) {
      // Try again in a while: the member stays until its removal is written.
      StartTimer(s, key, 1000, t);
      return;
    }
    Info(fmt::format("[GroupId {}] Member {} fenced from the group because {}.", t.group, t.member,
                     why));
  }

  std::optional<ConsumerGroupTopic> TopicByName(const std::string& name) const {
    std::optional<LogManager::TopicIdentity> md = logs_->FindTopicIdentity(name);
    if (!md) return std::nullopt;
    Result<Uuid> id = Uuid::Parse(md->topic_id);
    if (!id.ok()) return std::nullopt;
    return ConsumerGroupTopic{*id, name, md->partitions};
  }

  ConsumerGroupHeartbeatContext HeartbeatContext(const Client& client) {
    ConsumerGroupHeartbeatContext ctx;
    ctx.now_ms = scheduler_->NowMs();
    ctx.config = &config_;
    ctx.client_id = client.client_id;
    ctx.client_host = client.client_host;
    ctx.topic_by_name = [this](const std::string& name) { return TopicByName(name); };
    ctx.new_member_id = [] { return Uuid::Random().ToString(); };
    return ctx;
  }

  // The version of the topics' metadata the coordinator resolves regular expressions at (the
  // Version of record type 16; Kafka's metadata image offset): it moves when a topic is
  // created, and at load above every version on disk.
  int64_t MetadataVersion() const {
    return metadata_version_base_.load(std::memory_order_acquire) + logs_->topics_created();
  }
  void RaiseMetadataVersionAbove(int64_t version) {
    const int64_t base = version + 1 - logs_->topics_created();
    int64_t cur = metadata_version_base_.load(std::memory_order_acquire);
    while (cur < base && !metadata_version_base_.compare_exchange_weak(cur, base)) {
    }
  }

  // After a write that changed the consumer group `g`: starts a resolution of its regular
  // expressions when one is due (RegularExpressionRefreshDue) and none is running (Kafka's
  // executor task "<group>-regex"). It runs on the scheduler: the topics are listed and
  // matched without the shard's lock, and the result is applied to the group as it is then.
  void MaybeRefreshRegularExpressions(Shard& s, const ConsumerGroup& g, bool required)
      REQUIRES(s.mu) {
    const int64_t now = scheduler_->NowMs();
    const int64_t version = MetadataVersion();
    if (s.regex_refreshes.count(g.group_id())) return;
    if (!RegularExpressionRefreshDue(g, now, version,
                                     config_.group_consumer_regex_refresh_interval_ms, required)) {
      return;
    }
    std::set<std::string> regexes;
    for (const auto& entry : g.subscribed_regular_expressions()) regexes.insert(entry.first);
    s.regex_refreshes.insert(g.group_id());
    std::weak_ptr<Core> weak = weak_from_this();
    Shard* sp = &s;
    scheduler_->Schedule(
        "group-coordinator-regex",
        [weak, sp, group = g.group_id(), regexes = std::move(regexes)] {
          if (auto core = weak.lock()) core->RefreshRegularExpressions(*sp, group, regexes);
        },
        0);
  }

  void RefreshRegularExpressions(Shard& s, const std::string& group_id,
                                 const std::set<std::string>& regexes) EXCLUDES(s.mu) {
    const int64_t start = scheduler_->NowMs();
    const int64_t version = MetadataVersion();
    const std::map<std::string, ResolvedRegularExpression> resolved =
        ResolveRegularExpressions(regexes, logs_->ListTopics(), version, start);
    MutexLock l(&s.mu);
    s.regex_refreshes.erase(group_id);
    auto it = s.consumer_groups.find(group_id);
    if (it == s.consumer_groups.end() || Unavailable(s) != ke::kNone) return;
    ConsumerGroup next = *it->second;
    ConsumerGroupHeartbeatContext ctx = HeartbeatContext(Client{});
    std::vector<OffsetsRecord> records = ApplyRegularExpressionResolution(&next, resolved, ctx);
    if (records.empty()) return;
    if (Status w = Append(s, records); !w.ok()) {
      // Nothing is kept: a later heartbeat starts another resolution.
      Info(fmt::format("[GroupId {}] Failed to persist the resolved regular expressions: {}",
                       group_id, w.ToString()));
      return;
    }
    const int32_t before = it->second->group_epoch();
    *it->second = std::move(next);
    if (it->second->group_epoch() != before) {
      Info(
          fmt::format("[GroupId {}] Bumped group epoch to {} after resolving its regular "
                      "expressions.",
                      group_id, it->second->group_epoch()));
    }
  }

  // A classic member's JoinGroup into the non-empty consumer group `g`.
  void JoinToConsumerGroup(Shard& s, ConsumerGroup& g, int16_t version, const Client& client,
                           const protocol::JoinGroupRequestData& req, int32_t rebalance_timeout,
                           const std::function<void(JoinGroupResponseData)>& reply,
                           Completions* done) REQUIRES(s.mu) {
    ConsumerGroup next = g;
    ClassicJoinResult r = ClassicGroupJoinToConsumerGroup(&next, version, req, rebalance_timeout,
                                                          HeartbeatContext(client));
    if (r.response.error_code != ke::kNone) return reply(std::move(r.response));
    if (!r.replaced_member_id.empty()) CancelConsumerTimers(s, g.group_id(), r.replaced_member_id);
    if (r.replaced_consumer_member && ShouldDowngrade(next, {}, config_)) {
      // A static consumer-protocol member came back as a classic one, the last such: the
      // group goes back to the classic protocol in the same write, and rebalances only if
      // the member's subscription changed (else it syncs its assignment, as in Kafka).
      Status d = Downgrade(s, next, {}, fmt::format("static member {} replaced", r.member_id), done,
                           r.records, r.subscription_changed);
      if (d.ok()) {
        r.response.generation_id = s.groups[req.group_id]->generation();
        return reply(std::move(r.response));
      }
      if (!d.IsInvalidArgument()) return reply(JoinError(AppendErrorToClient(d), req.member_id));
      Info(fmt::format("[GroupId {}] Cannot downgrade the consumer group: {}", req.group_id,
                       d.message()));
    }
    if (Status w = Append(s, r.records); !w.ok()) {
      return reply(JoinError(AppendErrorToClient(w), req.member_id));
    }
    g = std::move(next);
    MaybeRefreshRegularExpressions(s, g, false);
    const ConsumerGroupMember& m = *g.FindMember(r.member_id);
    CancelTimer(s, ConsumerClassicJoinKey(g.group_id(), m.member_id));
    StartConsumerSession(s, g, m);
    StartTimer(s, ConsumerClassicSyncKey(g.group_id(), m.member_id), rebalance_timeout,
               Timer{Timer::Kind::kConsumerClassicSync, g.group_id(), m.member_id, 0, 0, 0});
    reply(std::move(r.response));
  }

  // LeaveGroup of members of a consumer group (classic members, or any by instance id).
  void LeaveConsumerGroup(Shard& s, ConsumerGroup& g, const std::vector<LeavingMember>& members,
                          LeaveResult* out, Completions* done) REQUIRES(s.mu) {
    std::set<std::string> leaving;
    for (const LeavingMember& lm : members) {
      int16_t e = ke::kNone;
      std::string id = lm.member_id;
      if (lm.group_instance_id) {
        std::optional<std::string> mapped = g.StaticMemberId(*lm.group_instance_id);
        if (!mapped) {
          e = ke::kUnknownMemberId;
        } else if (!id.empty() && id != *mapped) {
          e = ke::kFencedInstanceId;
        } else {
          id = *mapped;
        }
      } else if (g.FindMember(id) == nullptr) {
        e = ke::kUnknownMemberId;
      }
      out->member_errors.push_back(e);
      if (e != ke::kNone) continue;
      leaving.insert(id);
      Info(fmt::format("Member {} has left group {} through explicit LeaveGroup request.", id,
                       g.group_id()));
    }
    if (leaving.empty()) return;
    if (Status w = RemoveConsumerMembers(s, g, leaving, "members left through LeaveGroup", done);
        !w.ok()) {
      out->error_code = AppendErrorToClient(w);
      out->member_errors.clear();
    }
  }

  protocol::ConsumerGroupHeartbeatResponseData ConsumerGroupHeartbeat(
      int16_t version, const Client& client,
      const protocol::ConsumerGroupHeartbeatRequestData& req) {
    Completions done;
    protocol::ConsumerGroupHeartbeatResponseData r;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      r.error_code = ke::kCoordinatorNotAvailable;
    } else {
      Shard& s = ShardFor(req.group_id);
      MutexLock l(&s.mu);
      r = HeartbeatLocked(s, version, client, req, &done);
    }
    RunAll(&done);
    return r;
  }

  // Kafka's validateOnlineUpgrade: nullopt, or why the live classic group `c` cannot become a
  // consumer group.
  std::optional<std::string> CannotUpgrade(const ClassicGroup& c) const {
    if (!config_.group_consumer_migration_upgrade) return "online upgrade is disabled";
    if (c.protocol_type() != "consumer") {
      return "the group does not use the consumer embedded protocol";
    }
    if (c.size() > static_cast<size_t>(config_.group_consumer_max_size)) {
      return "the group size exceeds the consumer group maximum size";
    }
    return std::nullopt;
  }

  protocol::ConsumerGroupHeartbeatResponseData HeartbeatLocked(
      Shard& s, int16_t version, const Client& client,
      const protocol::ConsumerGroupHeartbeatRequestData& req, Completions* done) REQUIRES(s.mu) {
    auto error = [](int16_t code, std::optional<std::string> message = std::nullopt) {
      protocol::ConsumerGroupHeartbeatResponseData r;
      r.error_code = code;
      r.error_message = std::move(message);
      return r;
    };
    if (int16_t e = Unavailable(s); e != ke::kNone) return error(e);
    std::vector<OffsetsRecord> records;
    bool replaces_classic = false;
    std::optional<ConsumerGroup> upgraded;
    if (auto c = s.groups.find(req.group_id); c != s.groups.end()) {
      if (req.member_epoch != 0) {
        return error(ke::kGroupIdNotFound,
                     fmt::format("Group {} is not a consumer group.", req.group_id));
      }
      replaces_classic = true;
      records.push_back(GroupMetadataTombstone(req.group_id));
      if (!c->second->Is(ClassicGroupState::kEmpty)) {
        // A live classic group: upgraded online (its members stay, as classic members).
        const ClassicGroup& cg = *c->second;
        if (std::optional<std::string> why = CannotUpgrade(cg)) {
          return error(ke::kGroupIdNotFound,
                       fmt::format("Cannot upgrade classic group {} to consumer group because {}.",
                                   req.group_id, *why));
        }
        Result<ConsumerGroup> converted = ConsumerGroupFromClassicGroup(
            cg, [this](const std::string& name) { return TopicByName(name); });
        if (!converted.ok()) {
          return error(ke::kGroupIdNotFound,
                       fmt::format("Cannot upgrade classic group {} to consumer group because {}.",
                                   req.group_id, converted.status().message()));
        }
        for (OffsetsRecord& rec : ConsumerGroupRecords(*converted, scheduler_->NowMs())) {
          records.push_back(std::move(rec));
        }
        upgraded = std::move(*converted);
      }
    }
    auto it = s.consumer_groups.find(req.group_id);
    ConsumerGroup next = upgraded                        ? *upgraded
                         : it != s.consumer_groups.end() ? *it->second
                                                         : ConsumerGroup(req.group_id);
    ConsumerGroupHeartbeatResult r =
        seglog::ConsumerGroupHeartbeat(&next, version, req, HeartbeatContext(client));
    if (r.response.error_code != ke::kNone) return r.response;
    if (r.member_removed && req.member_epoch == -1 && it != s.consumer_groups.end() &&
        ShouldDowngrade(*it->second, {r.member_id}, config_)) {
      // The last consumer-protocol member left: the classic members go back to a classic group.
      Status d = Downgrade(s, *it->second, {r.member_id},
                           fmt::format("member {} left", r.member_id), done);
      if (d.ok()) return r.response;
      if (!d.IsInvalidArgument()) return error(AppendErrorToClient(d));
      Info(fmt::format("[GroupId {}] Cannot downgrade the consumer group to a classic group: {}",
                       req.group_id, d.message()));
    }
    records.insert(records.end(), std::make_move_iterator(r.records.begin()),
                   std::make_move_iterator(r.records.end()));
    if (Status w = Append(s, records); !w.ok()) return error(AppendErrorToClient(w));
    if (replaces_classic) {
      ClassicGroup& old = *s.groups.find(req.group_id)->second;  // found above, still there
      if (upgraded) {
        for (const std::string& id : old.pending_member_ids())
          CancelTimer(s, HeartbeatKey(old, id));
        // Parked joins and syncs join again (into the consumer group); the classic timers go.
        for (const auto& [id, m] : old.members()) {
          ClassicGroupMember* mm = old.FindMember(id);
          if (mm->awaiting_join) {
            done->push_back([f = std::move(mm->awaiting_join), member = id] {
              f(JoinError(ke::kRebalanceInProgress, member));
            });
            mm->awaiting_join = nullptr;
          }
          if (mm->awaiting_sync) {
            done->push_back(
                [f = std::move(mm->awaiting_sync)] { f(SyncError(ke::kRebalanceInProgress)); });
            mm->awaiting_sync = nullptr;
          }
          CancelTimer(s, HeartbeatKey(old, id));
        }
        CancelTimer(s, JoinKey(old));
        CancelTimer(s, SyncKey(old));
        Info(fmt::format("[GroupId {}] Converted the classic group to a consumer group.",
                         req.group_id));
      }
      s.groups.erase(req.group_id);
    }
    ConsumerGroup* live = nullptr;
    if (it == s.consumer_groups.end()) {
      live =
          s.consumer_groups.emplace(req.group_id, std::make_unique<ConsumerGroup>(std::move(next)))
              .first->second.get();
    } else {
      *it->second = std::move(next);
      live = it->second.get();
    }
    if (upgraded) {
      for (const auto& [id, m] : live->members()) {
        if (m.classic) StartConsumerSession(s, *live, m);
      }
    }
    MaybeRefreshRegularExpressions(s, *live, r.regex_refresh_required);
    if (!r.replaced_member_id.empty()) CancelConsumerTimers(s, req.group_id, r.replaced_member_id);
    if (r.member_removed) {
      CancelConsumerTimers(s, req.group_id, r.member_id);
    } else {
      StartTimer(s, ConsumerSessionKey(req.group_id, r.member_id),
                 config_.group_consumer_session_timeout_ms,
                 Timer{Timer::Kind::kConsumerSession, req.group_id, r.member_id, 0, 0, 0});
      if (r.rebalance_timeout_ms >= 0) {
        StartTimer(s, ConsumerRevocationKey(req.group_id, r.member_id), r.rebalance_timeout_ms,
                   Timer{Timer::Kind::kConsumerRevocation, req.group_id, r.member_id,
                         r.revocation_epoch, 0, 0});
      } else if (r.revocation_done) {
        CancelTimer(s, ConsumerRevocationKey(req.group_id, r.member_id));
      }
    }
    return r.response;
  }

  protocol::ConsumerGroupDescribeResponseData::DescribedGroup DescribeConsumerGroup(
      const std::string& group_id) {
    protocol::ConsumerGroupDescribeResponseData::DescribedGroup d;
    d.group_id = group_id;
    if (group_id.empty()) {
      d.error_code = ke::kInvalidGroupId;
      return d;
    }
    if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      d.error_code = ke::kCoordinatorNotAvailable;
      return d;
    }
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) {
      d.error_code = e;
      return d;
    }
    auto it = s.consumer_groups.find(group_id);
    if (it == s.consumer_groups.end()) {
      d.error_code = ke::kGroupIdNotFound;
      d.error_message = s.groups.count(group_id)
                            ? fmt::format("Group {} is not a consumer group.", group_id)
                            : fmt::format("Group {} not found.", group_id);
      return d;
    }
    const ConsumerGroup& g = *it->second;
    d.group_state = std::string(ConsumerGroupStateName(g.state()));
    d.group_epoch = g.group_epoch();
    d.assignment_epoch = g.assignment_epoch();
    d.assignor_name = ConsumerGroupAssignorName(g, config_);
    auto assignment = [this](const TopicPartitions& tps) {
      protocol::ConsumerGroupDescribeResponseData::Assignment a;
      for (const auto& [topic, partitions] : tps) {
        auto& t = a.topic_partitions.emplace_back();
        t.topic_id = topic;
        t.topic_name = logs_->TopicNameForId(topic.ToString()).value_or("");
        t.partitions.assign(partitions.begin(), partitions.end());
      }
      return a;
    };
    for (const auto& [id, m] : g.members()) {
      auto& dm = d.members.emplace_back();
      dm.member_id = id;
      dm.instance_id = m.instance_id;
      dm.rack_id = m.rack_id;
      dm.member_epoch = m.member_epoch;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      dm.subscribed_topic_names = m.subscribed_topic_names;
      dm.subscribed_topic_regex = m.subscribed_topic_regex;
      dm.assignment = assignment(PartitionsOf(m.assigned_partitions));
      dm.target_assignment = assignment(g.TargetOf(id));
      // 0: classic, 1: consumer (v1+; the broker resets it below v1)
      dm.member_type = m.classic ? 0 : 1;
    }
    return d;
  }

  // OffsetCommit's group check for a consumer group (Kafka's ConsumerGroup
  // .validateOffsetCommit): 0, or the error for every partition; per-partition errors go into
  // the partitions.
  int16_t ValidateConsumerCommit(const ConsumerGroup& g, int16_t version, int32_t epoch,
                                 const std::string& member_id,
                                 std::vector<CommitPartition>* partitions) {
    if (epoch < 0 && g.members().empty()) return ke::kNone;  // an admin's commit
    const ConsumerGroupMember* m = g.FindMember(member_id);
    if (m == nullptr) return ke::kUnknownMemberId;
    if (m->classic) {
      // A classic member commits with its JoinGroup generation (its member epoch), at any
      // OffsetCommit version.
      return epoch == m->member_epoch ? ke::kNone : ke::kIllegalGeneration;
    }
    if (version < 9) return ke::kUnsupportedVersion;
    if (epoch == m->member_epoch) return ke::kNone;
    if (epoch > m->member_epoch) return ke::kStaleMemberEpoch;
    // An older epoch: each partition must still be the member's (assigned or being revoked)
    // since at most that epoch.
    for (CommitPartition& p : *partitions) {
      if (!AssignedSince(*m, p, epoch)) p.error_code = ke::kStaleMemberEpoch;
    }
    return ke::kNone;
  }

  // ---- Listing, describing, deleting ----

  std::vector<ListedGroup> ListGroups(const std::vector<std::string>& states_filter,
                                      const std::vector<std::string>& types_filter) {
    std::set<std::string> states, types;
    for (const std::string& f : states_filter) states.insert(Lower(Trim(f)));
    for (const std::string& f : types_filter) types.insert(Lower(Trim(f)));
    std::vector<ListedGroup> out;
    const bool classic = types.empty() || types.count("classic");
    const bool consumer = types.empty() || types.count("consumer");
    for (auto& sp : shards_) {
      MutexLock l(&sp->mu);
      if (Unavailable(*sp) != ke::kNone) continue;
      for (const auto& [id, g] : sp->groups) {
        if (!classic) break;
        const std::string state(ClassicGroupStateName(g->state()));
        if (!states.empty() && !states.count(Lower(state))) continue;
        out.push_back({id, g->protocol_type().value_or(""), state, "classic"});
      }
      for (const auto& [id, g] : sp->consumer_groups) {
        if (!consumer) break;
        const std::string state(ConsumerGroupStateName(g->state()));
        if (!states.empty() && !states.count(Lower(state))) continue;
        out.push_back({id, "consumer", state, "consumer"});
      }
    }
    return out;
  }

  std::optional<protocol::DescribeGroupsResponseData::DescribedGroup> DescribeGroup(
      const std::string& group_id, int16_t* error) {
    *error = ke::kNone;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      *error = ke::kCoordinatorNotAvailable;
      return std::nullopt;
    }
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) {
      *error = e;
      return std::nullopt;
    }
    if (s.consumer_groups.count(group_id)) {
      // DescribeGroups v6+ says so; the broker leaves the error out below v6 (a Dead row).
      protocol::DescribeGroupsResponseData::DescribedGroup d;
      d.group_id = group_id;
      d.group_state = "Dead";
      d.error_code = ke::kGroupIdNotFound;
      d.error_message = fmt::format("Group {} is not a classic group.", group_id);
      return d;
    }
    auto it = s.groups.find(group_id);
    if (it == s.groups.end()) return std::nullopt;
    const ClassicGroup& g = *it->second;
    protocol::DescribeGroupsResponseData::DescribedGroup d;
    d.group_id = group_id;
    d.group_state = std::string(ClassicGroupStateName(g.state()));
    d.protocol_type = g.protocol_type().value_or("");
    const bool stable = g.Is(ClassicGroupState::kStable);
    d.protocol_data = stable ? g.protocol_name().value_or("") : "";
    for (const auto& [id, m] : g.members()) {
      auto& dm = d.members.emplace_back();
      dm.member_id = id;
      dm.group_instance_id = m.group_instance_id;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      if (stable) {
        if (const std::vector<uint8_t>* meta = m.MetadataFor(d.protocol_data)) {
          dm.member_metadata = *meta;
        }
      }
      dm.member_assignment = m.assignment;
    }
    return d;
  }

  int16_t DeleteGroup(const std::string& group_id) {
    if (Status t = EnsureOffsetsTopic(); !t.ok()) return ke::kCoordinatorNotAvailable;
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return e;
    auto cg = s.consumer_groups.find(group_id);
    auto it = s.groups.find(group_id);
    if (cg != s.consumer_groups.end()) {
      if (!cg->second->members().empty()) return ke::kNonEmptyGroup;
    } else if (it == s.groups.end() || it->second->Is(ClassicGroupState::kDead)) {
      return ke::kGroupIdNotFound;
    } else if (!it->second->Is(ClassicGroupState::kEmpty)) {
      return ke::kNonEmptyGroup;
    }
    std::vector<OffsetsRecord> records;
    size_t offsets = 0;
    if (auto o = s.offsets.find(group_id); o != s.offsets.end()) {
      for (const auto& [tp, c] : o->second) {
        records.push_back(OffsetCommitTombstone(group_id, tp.first, tp.second));
      }
      offsets = o->second.size();
    }
    // Partitions with only a pending transactional offset get a tombstone too (Kafka's
    // deleteAllOffsets), which drops the pending offsets.
    const std::vector<OffsetPartitionKey> pending = s.pending.PartitionsOf(group_id);
    for (const OffsetPartitionKey& tp : pending) {
      if (HasCommittedOffset(s, group_id, tp)) continue;
      records.push_back(OffsetCommitTombstone(group_id, tp.first, tp.second));
      ++offsets;
    }
    if (cg != s.consumer_groups.end()) {
      for (OffsetsRecord& r : ConsumerGroupTombstones(*cg->second)) records.push_back(std::move(r));
    } else {
      records.push_back(GroupMetadataTombstone(group_id));
    }
    if (Status w = Append(s, records); !w.ok()) return AppendErrorToClient(w);
    s.offsets.erase(group_id);
    for (const OffsetPartitionKey& tp : pending) s.pending.RemovePartition(group_id, tp);
    if (cg != s.consumer_groups.end()) {
      s.consumer_groups.erase(cg);
    } else {
      s.groups.erase(it);
    }
    Info(fmt::format("The following groups were deleted: {}. A total of {} offsets were removed.",
                     group_id, offsets));
    return ke::kNone;
  }

  // The topics a "consumer" group's members subscribe to, from their protocol metadata
  // (ConsumerProtocolSubscription); nullopt when some member's cannot be read (then every
  // topic counts as subscribed, as in Kafka).
  static std::optional<std::set<std::string>> SubscribedTopics(const ClassicGroup& g) {
    std::set<std::string> topics;
    const std::string protocol = g.protocol_name().value_or("");
    for (const auto& [id, m] : g.members()) {
      const std::vector<uint8_t>* meta = m.MetadataFor(protocol);
      if (meta == nullptr || meta->size() < 2) return std::nullopt;
      const int16_t version = static_cast<int16_t>((*meta)[0] << 8 | (*meta)[1]);
      const int16_t readable = std::min<int16_t>(
          version, protocol::ConsumerProtocolSubscription::kHighestSupportedVersion);
      // A newer version than ours starts with the fields we know; the rest is left unread.
      protocol::ConsumerProtocolSubscription sub;
      protocol::ProtocolReader reader(std::span<const uint8_t>(*meta).subspan(2));
      if (readable < 0 || !sub.Decode(&reader, readable).ok()) return std::nullopt;
      for (const std::string& t : sub.topics) topics.insert(t);
    }
    return topics;
  }

  DeleteOffsetsResult DeleteOffsets(const std::string& group_id,
                                    const std::vector<TopicPartition>& partitions) {
    DeleteOffsetsResult out;
    if (Status t = EnsureOffsetsTopic(); !t.ok()) {
      out.error_code = ke::kCoordinatorNotAvailable;
      return out;
    }
    Shard& s = ShardFor(group_id);
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) {
      out.error_code = e;
      return out;
    }
    auto it = s.groups.find(group_id);
    auto cg = s.consumer_groups.find(group_id);
    std::optional<std::set<std::string>> subscribed = std::set<std::string>{};
    if (cg != s.consumer_groups.end()) {
      subscribed = cg->second->SubscribedTopics();
    } else if (it == s.groups.end() || it->second->Is(ClassicGroupState::kDead)) {
      out.error_code = ke::kGroupIdNotFound;
      return out;
    } else if (const ClassicGroup& g = *it->second; !g.empty()) {
      if (g.protocol_type() != "consumer") {
        out.error_code = ke::kNonEmptyGroup;
        return out;
      }
      subscribed = SubscribedTopics(g);
    }
    std::vector<OffsetsRecord> records;
    std::vector<std::pair<std::string, int32_t>> removing;
    auto& offsets = s.offsets[group_id];
    for (const TopicPartition& tp : partitions) {
      if (!subscribed || subscribed->count(tp.topic)) {
        out.partitions.push_back({tp, ke::kGroupSubscribedToTopic});
        continue;
      }
      out.partitions.push_back({tp, ke::kNone});
      // A tombstone if an offset is committed or pending (it drops the pending ones).
      if (offsets.count({tp.topic, tp.partition}) ||
          s.pending.Contains(group_id, {tp.topic, tp.partition})) {
        records.push_back(OffsetCommitTombstone(group_id, tp.topic, tp.partition));
        removing.emplace_back(tp.topic, tp.partition);
      }
    }
    if (Status w = Append(s, records); !w.ok()) {
      const int16_t e = AppendErrorToClient(w);
      for (auto& [tp, err] : out.partitions) {
        if (err == ke::kNone) err = e;
      }
      return out;
    }
    for (const auto& k : removing) {
      offsets.erase(k);
      s.pending.RemovePartition(group_id, k);
    }
    if (offsets.empty()) s.offsets.erase(group_id);
    return out;
  }

  // ---- Expiry ----

  void ExpireOffsets() {
    const int64_t now = scheduler_->NowMs();
    const int64_t retention = config_.offsets_retention_minutes * 60000;
    for (auto& sp : shards_) {
      Shard& s = *sp;
      MutexLock l(&s.mu);
      if (Unavailable(s) != ke::kNone) continue;
      std::vector<OffsetsRecord> records;
      size_t tombstones = 0;
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::string> empty_groups;
      for (auto& [group_id, g] : s.groups) {
        // Which offsets may expire, and from when (Kafka's offsetExpirationCondition).
        std::optional<std::set<std::string>> keep_topics;  // subscribed: never expire
        bool use_state_time = false;
        if (!g->protocol_type()) {
          // a simple group: from each commit
        } else if (g->Is(ClassicGroupState::kEmpty)) {
          use_state_time = true;
        } else if (g->protocol_type() == "consumer" && g->Is(ClassicGroupState::kStable)) {
          keep_topics = SubscribedTopics(*g);
          if (!keep_topics) continue;
        } else {
          continue;
        }
        auto o = s.offsets.find(group_id);
        if (o != s.offsets.end()) {
          for (auto c = o->second.begin(); c != o->second.end();) {
            const CommittedOffset& off = c->second;
            bool expired;
            if (keep_topics && keep_topics->count(c->first.first)) {
              expired = false;
            } else if (s.pending.Contains(group_id, c->first)) {
              expired = false;  // kept while a transaction has an offset of it pending
            } else if (off.expire_timestamp_ms) {
              expired = now >= *off.expire_timestamp_ms;
            } else {
              const int64_t base = use_state_time && g->current_state_timestamp() >= 0
                                       ? g->current_state_timestamp()
                                       : off.commit_timestamp_ms;
              expired = now - base >= retention;
            }
            if (!expired) {
              ++c;
              continue;
            }
            records.push_back(OffsetCommitTombstone(group_id, c->first.first, c->first.second));
            ++tombstones;
            c = o->second.erase(c);
          }
          if (o->second.empty()) s.offsets.erase(o);
        }
        if (g->Is(ClassicGroupState::kEmpty) && !s.offsets.count(group_id) &&
            !s.pending.Contains(group_id)) {
          empty_groups.push_back(group_id);
        }
      }
      // Consumer groups: offsets of topics no member subscribes to expire from their commit;
      // an Empty group without offsets goes (Kafka's ConsumerGroup.offsetExpirationCondition,
      // cleanupGroupMetadata).
      std::vector<std::string> empty_consumer_groups;
      for (auto& [group_id, g] : s.consumer_groups) {
        auto o = s.offsets.find(group_id);
        if (o != s.offsets.end()) {
          const std::set<std::string> subscribed = g->SubscribedTopics();
          for (auto c = o->second.begin(); c != o->second.end();) {
            const CommittedOffset& off = c->second;
            const bool expired =
                !subscribed.count(c->first.first) && !s.pending.Contains(group_id, c->first) &&
                (off.expire_timestamp_ms ? now >= *off.expire_timestamp_ms
                                         : now - off.commit_timestamp_ms >= retention);
            if (!expired) {
              ++c;
              continue;
            }
            records.push_back(OffsetCommitTombstone(group_id, c->first.first, c->first.second));
            ++tombstones;
            c = o->second.erase(c);
          }
          if (o->second.empty()) s.offsets.erase(o);
        }
        if (g->members().empty() && !s.offsets.count(group_id) && !s.pending.Contains(group_id)) {
          empty_consumer_groups.push_back(group_id);
        }
      }
      for (const std::string& id : empty_consumer_groups) {
        for (OffsetsRecord& r : ConsumerGroupTombstones(*s.consumer_groups[id])) {
          records.push_back(std::move(r));
          ++tombstones;
        }
        s.consumer_groups.erase(id);
      }
      for (const std::string& id : empty_groups) {
        // A simple group was never written: no tombstone needed, but one is harmless.
        records.push_back(GroupMetadataTombstone(id));
        ++tombstones;
        s.groups.erase(id);
      }
      if (records.empty()) continue;
      (void)Append(s, records);  // a failure leaves the records to the next pass's replay
      Info(fmt::format(
          "Generated {} tombstone records while cleaning up group metadata in {} milliseconds.",
          tombstones,
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                start)
              .count()));
    }
  }

  void OnTopicDeleted(const std::string& topic) {
    for (auto& sp : shards_) {
      Shard& s = *sp;
      MutexLock l(&s.mu);
      if (Unavailable(s) != ke::kNone) continue;
      std::vector<OffsetsRecord> records;
      std::set<std::pair<std::string, OffsetPartitionKey>> tombstoned;
      for (auto& [group_id, offsets] : s.offsets) {
        for (auto c = offsets.begin(); c != offsets.end();) {
          if (c->first.first != topic) {
            ++c;
            continue;
          }
          records.push_back(OffsetCommitTombstone(group_id, c->first.first, c->first.second));
          tombstoned.insert({group_id, c->first});
          c = offsets.erase(c);
        }
      }
      // Pending transactional offsets of the topic go as well (Kafka's onTopicsDeleted).
      for (const std::string& group_id : s.pending.Groups()) {
        for (const OffsetPartitionKey& tp : s.pending.PartitionsOf(group_id)) {
          if (tp.first != topic) continue;
          if (tombstoned.insert({group_id, tp}).second) {
            records.push_back(OffsetCommitTombstone(group_id, tp.first, tp.second));
          }
          s.pending.RemovePartition(group_id, tp);
        }
      }
      (void)Append(s, records);
    }
  }

  void Shutdown() {
    if (shut_down_.exchange(true)) return;
    for (auto& sp : shards_) {
      Completions done;
      {
        MutexLock l(&sp->mu);
        sp->timers.clear();
        for (auto& [id, g] : sp->groups) {
          for (const auto& [mid, m] : g->members()) {
            ClassicGroupMember* mm = g->FindMember(mid);
            if (mm->awaiting_join) {
              done.push_back(
                  [f = std::move(mm->awaiting_join)] { f(JoinError(ke::kNotCoordinator, "")); });
              mm->awaiting_join = nullptr;
            }
            if (mm->awaiting_sync) {
              done.push_back(
                  [f = std::move(mm->awaiting_sync)] { f(SyncError(ke::kNotCoordinator)); });
              mm->awaiting_sync = nullptr;
            }
          }
        }
      }
      RunAll(&done);
    }
  }

 private:
  const GroupCoordinatorConfig config_;
  LogManager* const logs_;
  Scheduler* const scheduler_;
  // See MetadataVersion().
  std::atomic<int64_t> metadata_version_base_{0};
  const std::function<void(const std::string&)> logger_;
  // Filled by Open, then never changed (each shard guards itself).
  std::vector<std::unique_ptr<Shard>> shards_;
  InternalTopic topic_;
  std::atomic<bool> shut_down_{false};
  std::atomic<uint64_t> timer_seq_{0};
};

// ---- The facade ----

Result<std::unique_ptr<GroupCoordinator>> GroupCoordinator::Open(
    const GroupCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler,
    std::function<void(const std::string&)> logger) {
  auto core = std::make_shared<Core>(config, logs, scheduler, std::move(logger));
  SEGLOG_RETURN_IF_ERROR(core->Open());
  return std::unique_ptr<GroupCoordinator>(new GroupCoordinator(std::move(core)));
}

GroupCoordinator::GroupCoordinator(std::shared_ptr<Core> core) : core_(std::move(core)) {}
GroupCoordinator::~GroupCoordinator() { Shutdown(); }
void GroupCoordinator::Shutdown() { core_->Shutdown(); }
Status GroupCoordinator::EnsureOffsetsTopic() { return core_->EnsureOffsetsTopic(); }
int32_t GroupCoordinator::PartitionFor(std::string_view group_id) const {
  return core_->PartitionFor(group_id);
}
void GroupCoordinator::JoinGroup(int16_t version, const Client& client,
                                 const protocol::JoinGroupRequestData& req, JoinGroupDone done) {
  core_->JoinGroup(version, client, req, std::move(done));
}
void GroupCoordinator::SyncGroup(int16_t version, const protocol::SyncGroupRequestData& req,
                                 SyncGroupDone done) {
  core_->SyncGroup(version, req, std::move(done));
}
int16_t GroupCoordinator::Heartbeat(const std::string& group_id, int32_t generation,
                                    const std::string& member_id,
                                    const std::optional<std::string>& group_instance_id) {
  return core_->Heartbeat(group_id, generation, member_id, group_instance_id);
}
GroupCoordinator::LeaveResult GroupCoordinator::LeaveGroup(
    const std::string& group_id, const std::vector<LeavingMember>& members) {
  return core_->LeaveGroup(group_id, members);
}
void GroupCoordinator::CommitOffsets(int16_t version, const std::string& group_id,
                                     int32_t generation, const std::string& member_id,
                                     const std::optional<std::string>& group_instance_id,
                                     int64_t retention_ms,
                                     std::vector<CommitPartition>* partitions) {
  core_->CommitOffsets(version, group_id, generation, member_id, group_instance_id, retention_ms,
                       partitions);
}
void GroupCoordinator::CommitTransactionalOffsets(
    int16_t version, const std::string& group_id, int64_t producer_id, int16_t producer_epoch,
    int32_t generation_or_member_epoch, const std::string& member_id,
    const std::optional<std::string>& group_instance_id, std::vector<CommitPartition>* partitions) {
  core_->CommitTransactionalOffsets(version, group_id, producer_id, producer_epoch,
                                    generation_or_member_epoch, member_id, group_instance_id,
                                    partitions);
}
int16_t GroupCoordinator::CompleteTransaction(int32_t partition, int64_t producer_id,
                                              int16_t producer_epoch, int32_t coordinator_epoch,
                                              bool commit) {
  return core_->CompleteTransaction(partition, producer_id, producer_epoch, coordinator_epoch,
                                    commit);
}
GroupCoordinator::FetchResult GroupCoordinator::FetchOffsets(
    const std::string& group_id, const std::optional<std::vector<FetchTopic>>& topics,
    const std::optional<std::string>& member_id, int32_t member_epoch, bool require_stable) {
  return core_->FetchOffsets(group_id, topics, member_id, member_epoch, require_stable);
}
protocol::ConsumerGroupHeartbeatResponseData GroupCoordinator::ConsumerGroupHeartbeat(
    int16_t version, const Client& client, const protocol::ConsumerGroupHeartbeatRequestData& req) {
  return core_->ConsumerGroupHeartbeat(version, client, req);
}
protocol::ConsumerGroupDescribeResponseData::DescribedGroup GroupCoordinator::DescribeConsumerGroup(
    const std::string& group_id) {
  return core_->DescribeConsumerGroup(group_id);
}
std::vector<GroupCoordinator::ListedGroup> GroupCoordinator::ListGroups(
    const std::vector<std::string>& states_filter, const std::vector<std::string>& types_filter) {
  return core_->ListGroups(states_filter, types_filter);
}
std::optional<protocol::DescribeGroupsResponseData::DescribedGroup> GroupCoordinator::DescribeGroup(
    const std::string& group_id, int16_t* error) {
  return core_->DescribeGroup(group_id, error);
}
int16_t GroupCoordinator::DeleteGroup(const std::string& group_id) {
  return core_->DeleteGroup(group_id);
}
GroupCoordinator::DeleteOffsetsResult GroupCoordinator::DeleteOffsets(
    const std::string& group_id, const std::vector<TopicPartition>& partitions) {
  return core_->DeleteOffsets(group_id, partitions);
}
void GroupCoordinator::ExpireOffsets() { core_->ExpireOffsets(); }
void GroupCoordinator::OnTopicDeleted(const std::string& topic) { core_->OnTopicDeleted(topic); }

}  // namespace seglog
