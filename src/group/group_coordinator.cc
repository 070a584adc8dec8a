// GroupCoordinator: the facade over GroupCoordinator::Core, opening, appends, timers, offsets
// expiry and shutdown; see group_coordinator.h and docs/design/group_coordinator.md.
#include "group/group_coordinator.h"

#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

Status GroupCoordinator::Core::Open() {
  for (int32_t p = 0; p < topic_.partitions(); ++p) {
    shards_.push_back(std::make_unique<Shard>(p, scheduler_, weak_from_this()));
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

Status GroupCoordinator::Core::EnsureOffsetsTopic() {
  return topic_.Ensure([this](int32_t p, std::shared_ptr<Log> log) {
    Shard& s = *shards_[p];
    MutexLock l(&s.mu);
    s.log = std::move(log);
  });
}

Status GroupCoordinator::Core::Append(Shard& s, const std::vector<OffsetsRecord>& records,
                                      int64_t* first_offset, int64_t producer_id,
                                      int16_t producer_epoch) {
  if (records.empty()) return Status::OK();
  if (s.log == nullptr) return Status::NotFound("The __consumer_offsets topic does not exist yet.");
  CoordinatorBatch batch;
  batch.now_ms = scheduler_->NowMs();
  batch.base_sequence = 0;  // what Kafka's coordinator runtime gives its batch builder
  batch.producer_id = producer_id;
  batch.producer_epoch = producer_epoch;
  Result<LogAppendInfo> info = AppendCoordinatorRecords(*s.log, records, batch);
  if (!info.ok()) {
    Warn(fmt::format("Failed to write {} records to {}-{}: {}", records.size(),
                     kConsumerOffsetsTopic, s.partition, info.status().ToString()));
    return info.status();
  }
  if (first_offset != nullptr) *first_offset = info->first_offset;
  return Status::OK();
}

void GroupCoordinator::Core::StartTimer(Shard& s, const std::string& key, int64_t delay_ms,
                                        Timer t) {
  const bool retry = IsRetriedTimer(t.kind);
  Shard* sp = &s;
  // The timer's task pins this Core while it runs.
  s.timer.Schedule(&s.mu, key, delay_ms, retry, kConsumerFenceRetryBackoffMs,
                   [this, sp, t = std::move(t)](Completions* done) {
                     sp->mu.AssertHeld();  // a timer fires under its shard's mutex
                     if (shut_down_) return Status::OK();
                     return Fire(*sp, t, done);
                   });
}

Status GroupCoordinator::Core::Fire(Shard& s, const Timer& t, Completions* done) {
  if (IsConsumerTimer(t.kind)) return FireConsumer(s, t, done);
  if (t.kind == Timer::Kind::kShareSession) return FireShare(s, t, done);
  if (t.kind == Timer::Kind::kStreamsSession) return FireStreams(s, t);
  if (t.kind == Timer::Kind::kStreamsInitialDelay) return FireStreamsInitialDelay(s, t);
  auto it = s.groups.find(t.group);
  if (it == s.groups.end()) return Status::OK();
  ClassicGroup& g = *it->second;
  switch (t.kind) {
    case Timer::Kind::kConsumerSession:
    case Timer::Kind::kConsumerRevocation:
    case Timer::Kind::kConsumerClassicJoin:
    case Timer::Kind::kConsumerClassicSync:
    case Timer::Kind::kShareSession:
    case Timer::Kind::kStreamsSession:
    case Timer::Kind::kStreamsInitialDelay:
      break;  // handled above
    case Timer::Kind::kInitialJoin:
      if (!g.Is(ClassicGroupState::kPreparingRebalance)) break;
      if (g.new_member_added() && t.remaining_ms != 0) {
        g.set_new_member_added(false);
        const int64_t wait = std::min(t.delay_ms, t.remaining_ms);
        const int64_t remaining = std::max<int64_t>(t.remaining_ms - t.delay_ms, 0);
        StartTimer(s, JoinKey(g), wait,
                   Timer{Timer::Kind::kInitialJoin, g.group_id(), "", 0, t.delay_ms, remaining});
        break;
      }
      CompleteJoin(s, g, done);
      break;
    case Timer::Kind::kJoin:
      CompleteJoin(s, g, done);
      break;
    case Timer::Kind::kHeartbeat:
      ExpireMember(s, g, t.member, done);
      break;
    case Timer::Kind::kPendingSync:
      ExpirePendingSync(s, g, t.generation, done);
      break;
  }
  return Status::OK();  // the classic protocol's writes handle their own failures
}

void GroupCoordinator::Core::ExpireOffsets() {
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

void GroupCoordinator::Core::OnTopicDeleted(const std::string& topic) {
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
    // Share groups forget the topic's share partitions (its share state goes with it).
    for (auto& [group_id, g] : s.share_groups) {
      if (std::optional<OffsetsRecord> r = ForgetDeletedShareTopic(g.get(), topic)) {
        records.push_back(std::move(*r));
      }
    }
    (void)Append(s, records);
  }
}

void GroupCoordinator::Core::Shutdown() {
  if (shut_down_.exchange(true)) return;
  for (auto& sp : shards_) {
    Completions done;
    {
      MutexLock l(&sp->mu);
      sp->timer.Shutdown(&sp->mu);
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

// ---- The facade ----

Result<std::unique_ptr<GroupCoordinator>> GroupCoordinator::Open(
    const GroupCoordinatorConfig& config, LogManager* logs, Scheduler* scheduler, Logger logger) {
  auto core = std::make_shared<Core>(config, logs, scheduler, logger);
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
protocol::ShareGroupHeartbeatResponseData GroupCoordinator::ShareGroupHeartbeat(
    const Client& client, const protocol::ShareGroupHeartbeatRequestData& req) {
  return core_->ShareGroupHeartbeat(client, req);
}
protocol::ShareGroupDescribeResponseData::DescribedGroup GroupCoordinator::DescribeShareGroup(
    const std::string& group_id) {
  return core_->DescribeShareGroup(group_id);
}
auto GroupCoordinator::DescribeShareGroupOffsets(
    const protocol::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestGroup&
        req)
    -> protocol::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup {
  return core_->DescribeShareGroupOffsets(req);
}
protocol::AlterShareGroupOffsetsResponseData GroupCoordinator::AlterShareGroupOffsets(
    const protocol::AlterShareGroupOffsetsRequestData& req) {
  return core_->AlterShareGroupOffsets(req);
}
protocol::DeleteShareGroupOffsetsResponseData GroupCoordinator::DeleteShareGroupOffsets(
    const protocol::DeleteShareGroupOffsetsRequestData& req) {
  return core_->DeleteShareGroupOffsets(req);
}
StreamsGroupHeartbeatResult GroupCoordinator::StreamsGroupHeartbeat(
    int16_t version, const Client& client, const protocol::StreamsGroupHeartbeatRequestData& req) {
  return core_->StreamsGroupHeartbeat(version, client, req);
}
std::map<std::string, std::string> GroupCoordinator::CreateStreamsInternalTopics(
    const std::map<std::string, StreamsInternalTopic>& topics) {
  return core_->CreateStreamsInternalTopics(topics);
}
StreamsDescribedGroup GroupCoordinator::DescribeStreamsGroup(const std::string& group_id) {
  return core_->DescribeStreams(group_id);
}
protocol::StreamsGroupTopologyDescriptionUpdateResponseData
GroupCoordinator::StreamsGroupTopologyDescriptionUpdate(
    const protocol::StreamsGroupTopologyDescriptionUpdateRequestData& req) {
  return core_->StreamsTopologyDescriptionUpdate(req);
}
void GroupCoordinator::SetShareStateAdmin(std::shared_ptr<ShareStateAdmin> admin) {
  core_->SetShareStateAdmin(std::move(admin));
}
void GroupCoordinator::SetShareGroupListener(std::shared_ptr<ShareGroupListener> listener) {
  core_->SetShareGroupListener(std::move(listener));
}
std::vector<GroupCoordinator::ListedGroup> GroupCoordinator::ListGroups(
    const std::vector<std::string>& states_filter, const std::vector<std::string>& types_filter) {
  return core_->ListGroups(states_filter, types_filter);
}
int64_t GroupCoordinator::NumOffsets() { return core_->NumOffsets(); }
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
