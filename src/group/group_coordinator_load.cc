// GroupCoordinator::Core: loading a shard (replaying a partition of __consumer_offsets); see
// group_coordinator_core.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

void GroupCoordinator::Core::LoadShard(Shard& s) {
  const std::string tp = fmt::format("{}-{}", kConsumerOffsetsTopic, s.partition);
  Result<std::shared_ptr<seglog::Log>> log = logs_->GetLog({kConsumerOffsetsTopic, s.partition});
  MutexLock l(&s.mu);
  if (!log.ok()) {
    s.failed = true;
    Error(fmt::format("Failed to load metadata from {}: {}", tp, log.status().ToString()));
    return;
  }
  s.log = *log;
  const auto start = std::chrono::steady_clock::now();
  ReplayHandler h;
  h.control = [&](const RecordBatchView& batch)
                  REQUIRES(s.mu) { ReplayControlBatch(s, batch, tp); };
  h.record = [&](const RecordBatchView& batch, const Record& r) REQUIRES(s.mu) {
    if (!r.key) {
      Warn(fmt::format("Skipping a record without a key at offset {} of {}", r.offset, tp));
      return;
    }
    std::optional<std::span<const uint8_t>> value;
    if (r.value) value = *r.value;
    if (r.key->size() >= 2 && IsShareGroupRecordType(LoadBEInt16(r.key->data()))) {
      Result<LoadedShareGroupRecord> sg = DecodeShareGroupRecord(*r.key, value);
      if (!sg.ok()) {
        Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                         sg.status().ToString()));
        return;
      }
      ReplayShareGroup(s, *sg);
      return;
    }
    if (r.key->size() >= 2 && IsStreamsGroupRecordType(LoadBEInt16(r.key->data()))) {
      Result<LoadedStreamsGroupRecord> sg = DecodeStreamsGroupRecord(*r.key, value);
      if (!sg.ok()) {
        Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                         sg.status().ToString()));
        return;
      }
      ReplayStreamsGroup(s, *sg, tp, r.offset);
      return;
    }
    if (r.key->size() >= 2 && IsConsumerGroupRecordType(LoadBEInt16(r.key->data()))) {
      Result<LoadedConsumerGroupRecord> cg = DecodeConsumerGroupRecord(*r.key, value);
      if (!cg.ok()) {
        Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                         cg.status().ToString()));
        return;
      }
      ReplayConsumerGroup(s, *cg);
      return;
    }
    Result<LoadedOffsetsRecord> rec = DecodeOffsetsRecord(*r.key, value);
    if (!rec.ok()) {
      // Kafka fails the whole partition here; seglog keeps the rest of the groups.
      Warn(fmt::format("Skipping the corrupt record at offset {} of {}: {}", r.offset, tp,
                       rec.status().ToString()));
      return;
    }
    Replay(s, *rec, tp, r.offset, batch.producer_id());
  };
  h.logger = logger_;
  Result<ReplayStats> loaded = ReplayCoordinatorLog(*s.log, tp, ReplayPolicy::kLenient, h);
  if (!loaded.ok()) {
    s.failed = true;
    Error(fmt::format("Failed to load metadata from {}: {}", tp, loaded.status().ToString()));
    return;
  }
  const int64_t records = loaded->records;
  // Groups that only have offsets (committed outside a group, or pending in a transaction)
  // exist as simple groups.
  std::vector<std::string> offset_groups = s.pending.Groups();
  for (const auto& [group, offsets] : s.offsets) offset_groups.push_back(group);
  for (const std::string& group : offset_groups) {
    if (!s.groups.count(group) && !s.consumer_groups.count(group) && !s.share_groups.count(group) &&
        !s.streams_groups.count(group)) {
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
  for (auto& [id, g] : s.share_groups) {
    for (const auto& [member_id, m] : g->members()) StartShareSession(s, id, member_id);
  }
  for (auto& [id, g] : s.streams_groups) {
    for (const auto& [member_id, m] : g->members()) StartStreamsSession(s, id, member_id);
  }
  Info(fmt::format("Finished loading of metadata from {} in {} ms: {} records, {} groups", tp,
                   std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count(),
                   records,
                   s.groups.size() + s.consumer_groups.size() + s.share_groups.size() +
                       s.streams_groups.size()));
}

auto GroupCoordinator::Core::LoadedConsumerGroup(Shard& s, const std::string& id)
    -> ConsumerGroup& {
  auto& g = s.consumer_groups[id];
  if (g == nullptr) g = std::make_unique<ConsumerGroup>(id);
  s.groups.erase(id);
  s.share_groups.erase(id);
  s.streams_groups.erase(id);
  return *g;
}

bool GroupCoordinator::Core::OwnedByAnotherMember(const ConsumerGroup& g,
                                                  const ConsumerGroupMember& m) {
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

void GroupCoordinator::Core::ReplayConsumerGroup(Shard& s, const LoadedConsumerGroupRecord& rec) {
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
      Warn(
          fmt::format("Skipping the current assignment of member {} of group {}: it names "
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

void GroupCoordinator::Core::Replay(Shard& s, const LoadedOffsetsRecord& rec, const std::string& tp,
                                    int64_t record_offset, int64_t producer_id) {
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
    s.share_groups.erase(g->group);
    s.streams_groups.erase(g->group);
    group->RestoreFromRecord(
        v.generation,
        v.protocol_type.empty() ? std::nullopt : std::optional<std::string>(v.protocol_type),
        v.protocol, v.leader, v.current_state_timestamp_ms, v.members);
    s.groups[g->group] = std::move(group);
    return;
  }
  const auto& u = std::get<UnknownOffsetsRecord>(rec);
  Warn(fmt::format(
      "Unknown record type {} while loading offsets and group metadata from {}. Ignoring "
      "it. It could be a left over from an aborted upgrade.",
      u.type, tp));
}

bool GroupCoordinator::Core::HasCommittedOffset(Shard& s, const std::string& group,
                                                const OffsetPartitionKey& key) {
  auto it = s.offsets.find(group);
  return it != s.offsets.end() && it->second.count(key) != 0;
}

void GroupCoordinator::Core::ApplyOffsetTombstone(Shard& s, const std::string& group,
                                                  const OffsetPartitionKey& key) {
  auto it = s.offsets.find(group);
  if (it != s.offsets.end()) {
    it->second.erase(key);
    if (it->second.empty()) s.offsets.erase(it);
  }
  s.pending.RemovePartition(group, key);
}

void GroupCoordinator::Core::ReplayControlBatch(Shard& s, const RecordBatchView& batch,
                                                const std::string& tp) {
  Result<std::optional<bool>> marker = ReadEndTransactionMarker(batch);
  if (!marker.ok()) {
    Warn(fmt::format("Skipping the control batch at offset {} of {}: {}", batch.base_offset(), tp,
                     marker.status().ToString()));
    return;
  }
  if (*marker) ReplayEndTransaction(s, batch.producer_id(), **marker);
}

}  // namespace seglog
