// GroupCoordinator::Core: OffsetCommit, TxnOffsetCommit and its markers, OffsetFetch; see
// group_coordinator_core.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

void GroupCoordinator::Core::CommitOffsets(int16_t version, const std::string& group_id,
                                           int32_t generation, const std::string& member_id,
                                           const std::optional<std::string>& instance_id,
                                           int64_t retention_ms,
                                           std::vector<CommitPartition>* partitions) {
  auto fail_all = [&](int16_t e) {
    for (CommitPartition& p : *partitions) p.error_code = e;
  };
  if (partitions->empty()) return;
  if (Status t = EnsureOffsetsTopic(); !t.ok()) return fail_all(ke::kCoordinatorNotAvailable);
  Shard& s = ShardFor(group_id);
  MutexLock l(&s.mu);
  if (int16_t e = Unavailable(s); e != ke::kNone) return fail_all(e);
  const int64_t now = scheduler_->NowMs();
  // ShareGroup.validateOffsetCommit: share groups have no committed offsets.
  if (s.share_groups.count(group_id)) return fail_all(ke::kGroupIdNotFound);
  auto it = s.groups.find(group_id);
  ClassicGroup* g = nullptr;
  if (auto sg = s.streams_groups.find(group_id); sg != s.streams_groups.end()) {
    if (int16_t e = ValidateStreamsCommit(*sg->second, version, /*transactional=*/false, generation,
                                          member_id, instance_id, partitions);
        e != ke::kNone) {
      return fail_all(e);
    }
  } else if (auto cg = s.consumer_groups.find(group_id); cg != s.consumer_groups.end()) {
    if (int16_t e = ValidateConsumerCommit(*cg->second, version, generation, member_id, partitions);
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

int16_t GroupCoordinator::Core::ValidateTransactionalCommit(
    Shard& s, int16_t version, const std::string& group_id, int32_t generation,
    const std::string& member_id, const std::optional<std::string>& instance_id,
    const std::vector<CommitPartition>& partitions) {
  if (s.share_groups.count(group_id)) return ke::kGroupIdNotFound;
  if (auto sg = s.streams_groups.find(group_id); sg != s.streams_groups.end()) {
    std::vector<CommitPartition> checked = partitions;
    if (int16_t e = ValidateStreamsCommit(*sg->second, version, /*transactional=*/true, generation,
                                          member_id, instance_id, &checked);
        e != ke::kNone) {
      return e;
    }
    // As for consumer groups: STALE_MEMBER_EPOCH from v6 on, ILLEGAL_GENERATION before.
    for (const CommitPartition& p : checked) {
      if (p.error_code != ke::kNone) return version >= 6 ? p.error_code : ke::kIllegalGeneration;
    }
    return ke::kNone;
  }
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

bool GroupCoordinator::Core::AssignedSince(const ConsumerGroupMember& m, const CommitPartition& p,
                                           int32_t epoch) {
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

void GroupCoordinator::Core::CommitTransactionalOffsets(
    int16_t version, const std::string& group_id, int64_t producer_id, int16_t producer_epoch,
    int32_t generation, const std::string& member_id, const std::optional<std::string>& instance_id,
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

int16_t GroupCoordinator::Core::CompleteTransaction(int32_t partition, int64_t producer_id,
                                                    int16_t producer_epoch,
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
  Result<LogAppendInfo> info =
      s.log->AppendAsLeader(*batch, Log::kCurrentLeaderEpoch, AppendOrigin::kCoordinator);
  if (!info.ok()) {
    Warn(fmt::format("Failed to write the {} marker of producer {} to {}-{}: {}",
                     commit ? "COMMIT" : "ABORT", producer_id, kConsumerOffsetsTopic, s.partition,
                     info.status().ToString()));
    const int16_t e = ke::FromStatus(info.status());
    return e == ke::kNone ? ke::kUnknownServerError : to_marker_error(e);
  }
  ReplayEndTransaction(s, producer_id, commit);
  return ke::kNone;
}

auto GroupCoordinator::Core::FetchOffsets(const std::string& group_id,
                                          const std::optional<std::vector<FetchTopic>>& topics,
                                          const std::optional<std::string>& member_id,
                                          int32_t member_epoch, bool require_stable)
    -> FetchResult {
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
  if (s.share_groups.count(group_id)) {
    out.error_code = ke::kGroupIdNotFound;  // ShareGroup.validateOffsetFetch
    return out;
  }
  if (auto sg = s.streams_groups.find(group_id);
      sg != s.streams_groups.end() && (member_id || member_epoch >= 0)) {
    // Kafka's StreamsGroup.validateOffsetFetch.
    const StreamsGroupMember* m = sg->second->FindMember(member_id.value_or(""));
    if (m == nullptr) {
      out.error_code = ke::kUnknownMemberId;
      return out;
    }
    if (member_epoch != m->member_epoch) {
      out.error_code = ke::kStaleMemberEpoch;
      return out;
    }
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

}  // namespace seglog
