// GroupCoordinator::Core: KIP-1071's streams groups wired into the shards (StreamsGroupHeartbeat
// with write-then-apply, StreamsGroupDescribe, the member session timeouts, replay at load, the
// internal topics a heartbeat asks for, the offset-commit check of streams members); see
// group_coordinator_core.h and streams_group_heartbeat.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

void GroupCoordinator::Core::StartStreamsSession(Shard& s, const std::string& group,
                                                 const std::string& member) {
  StartTimer(s, StreamsSessionKey(group, member), config_.streams.session_timeout_ms,
             Timer{Timer::Kind::kStreamsSession, group, member, 0, 0, 0});
}

void GroupCoordinator::Core::ReplayStreamsGroup(Shard& s, const LoadedStreamsGroupRecord& rec,
                                                const std::string& tp, int64_t offset) {
  StreamsGroupReplayTarget target;
  target.group = [&s](const std::string& id, bool create) -> StreamsGroup* {
    s.mu.AssertHeld();  // called by ReplayStreamsGroupRecord, under the shard's mutex
    auto it = s.streams_groups.find(id);
    if (it != s.streams_groups.end()) return it->second.get();
    if (!create) return nullptr;
    // The records say the group became a streams group.
    s.groups.erase(id);
    s.consumer_groups.erase(id);
    s.share_groups.erase(id);
    return s.streams_groups.emplace(id, std::make_unique<StreamsGroup>(id)).first->second.get();
  };
  target.remove_group = [&s](const std::string& id) {
    s.mu.AssertHeld();
    s.streams_groups.erase(id);
  };
  std::string skipped = ReplayStreamsGroupRecord(rec, target);
  if (!skipped.empty()) {
    Warn(fmt::format("Skipping the streams group record at offset {} of {}: {}", offset, tp,
                     skipped));
  }
}

TopicPartitionCounts GroupCoordinator::Core::TopicCounts() const {
  TopicPartitionCounts out;
  for (const std::string& name : logs_->ListTopics()) {
    if (std::optional<LogManager::TopicIdentity> md = logs_->FindTopicIdentity(name)) {
      out[name] = md->partitions;
    }
  }
  return out;
}

StreamsGroupHeartbeatResult GroupCoordinator::Core::StreamsGroupHeartbeat(
    int16_t version, const Client& client, const protocol::StreamsGroupHeartbeatRequestData& req) {
  StreamsGroupHeartbeatResult r;
  if (Status t = EnsureOffsetsTopic(); !t.ok()) {
    r.response.error_code = ke::kCoordinatorNotAvailable;
    return r;
  }
  // The topics are listed before the shard's mutex is taken (the LogManager's locks are not
  // needed under it).
  const TopicPartitionCounts topics = TopicCounts();
  Shard& s = ShardFor(req.group_id);
  Completions done;
  {
    MutexLock l(&s.mu);
    r = StreamsHeartbeatLocked(s, version, client, req, topics);
  }
  RunAll(&done);
  return r;
}

StreamsGroupHeartbeatResult GroupCoordinator::Core::StreamsHeartbeatLocked(
    Shard& s, int16_t version, const Client& client,
    const protocol::StreamsGroupHeartbeatRequestData& req, const TopicPartitionCounts& topics) {
  StreamsGroupHeartbeatResult r;
  auto error = [&r](int16_t code, std::optional<std::string> message = std::nullopt) {
    r.response.error_code = code;
    r.response.error_message = std::move(message);
    return std::move(r);
  };
  if (int16_t e = Unavailable(s); e != ke::kNone) return error(e);
  // Group types are exclusive (GroupMetadataManager.getOrCreateStreamsGroup), except that a
  // join replaces an empty classic group (maybeDeleteEmptyClassicGroup: its metadata is
  // tombstoned, its committed offsets stay).
  bool replaces_classic = false;
  if (OtherThanStreams(s, req.group_id)) {
    auto c = s.groups.find(req.group_id);
    replaces_classic =
        req.member_epoch == 0 && c != s.groups.end() && c->second->Is(ClassicGroupState::kEmpty);
    if (!replaces_classic) {
      return error(ke::kGroupIdNotFound, NotAStreamsGroupMessage(req.group_id));
    }
  }
  auto it = s.streams_groups.find(req.group_id);
  const bool exists = it != s.streams_groups.end() && !it->second->dead();
  StreamsGroup next = exists ? *it->second : StreamsGroup(req.group_id);
  const bool known_member = exists && next.FindMember(req.member_id) != nullptr;
  StreamsGroupHeartbeatContext ctx;
  ctx.now_ms = scheduler_->NowMs();
  ctx.config = &config_;
  ctx.client_id = client.client_id;
  ctx.client_host = client.client_host;
  ctx.topics = &topics;
  const std::string delay_key = StreamsInitialDelayKey(req.group_id);
  ctx.initial_delay_active = s.timer.IsScheduled(&s.mu, delay_key);
  StreamsGroupHeartbeatResult out = seglog::StreamsGroupHeartbeat(&next, exists, version, req, ctx);
  if (out.response.error_code != ke::kNone) {
    out.internal_topics_to_create.clear();
    return out;
  }
  if (replaces_classic)
    out.records.insert(out.records.begin(), GroupMetadataTombstone(req.group_id));
  if (Status w = Append(s, out.records); !w.ok()) return error(AppendErrorToClient(w));
  out.records.clear();
  if (replaces_classic) {
    ClassicGroup& old = *s.groups.find(req.group_id)->second;  // found above, still there
    CancelTimer(s, JoinKey(old));
    CancelTimer(s, SyncKey(old));
    s.groups.erase(req.group_id);
    Info(fmt::format("[GroupId {}] Converted the empty classic group to a streams group.",
                     req.group_id));
  }
  if (it == s.streams_groups.end()) {
    s.streams_groups.emplace(req.group_id, std::make_unique<StreamsGroup>(std::move(next)));
  } else {
    *it->second = std::move(next);
  }
  if (out.start_initial_delay_ms > 0 && !ctx.initial_delay_active) {
    // scheduleIfAbsent; not retried: a failed write leaves the target to the next heartbeat.
    StartTimer(s, delay_key, out.start_initial_delay_ms,
               Timer{Timer::Kind::kStreamsInitialDelay, req.group_id, "", 0, 0, 0});
  }
  if (out.member_removed) {
    CancelTimer(s, StreamsSessionKey(req.group_id, out.member_id));
    Info(
        fmt::format("[GroupId {}] Member {} left the streams group.", req.group_id, out.member_id));
  } else if (!out.member_id.empty()) {
    if (!known_member) {
      Info(fmt::format("[GroupId {}] Member {} joins the streams group.", req.group_id,
                       out.member_id));
    }
    StartStreamsSession(s, req.group_id, out.member_id);
  }
  return out;
}

std::map<std::string, std::string> GroupCoordinator::Core::CreateStreamsInternalTopics(
    const std::map<std::string, StreamsInternalTopic>& topics) {
  std::vector<LogManager::NewTopic> creating;
  for (const auto& [name, t] : topics) {
    if (logs_->FindTopicIdentity(name)) continue;  // made meanwhile
    // One node: the replication factor asked for is not checked.
    creating.push_back(LogManager::NewTopic{name, t.partitions, t.configs});
  }
  std::map<std::string, std::string> errors;
  if (creating.empty()) return errors;
  std::vector<Status> created = logs_->CreateTopics(creating);
  for (size_t i = 0; i < creating.size() && i < created.size(); ++i) {
    if (created[i].ok()) {
      Info(fmt::format("Created the streams internal topic {} with {} partitions.",
                       creating[i].name, creating[i].partitions));
    } else if (!logs_->FindTopicIdentity(creating[i].name)) {
      errors[creating[i].name] = created[i].message();
      Warn(fmt::format("Failed to create the streams internal topic {}: {}", creating[i].name,
                       created[i].ToString()));
    }
  }
  return errors;
}

Status GroupCoordinator::Core::FireStreams(Shard& s, const Timer& t) {
  StreamsGroup* g = FindStreamsGroup(s, t.group);
  if (g == nullptr || g->FindMember(t.member) == nullptr) return Status::OK();
  StreamsGroup next = *g;
  StreamsGroupHeartbeatContext ctx;
  ctx.now_ms = scheduler_->NowMs();
  ctx.config = &config_;
  std::vector<OffsetsRecord> records = FenceStreamsGroupMember(&next, t.member, ctx);
  // A failure is tried again after kConsumerFenceRetryBackoffMs (the timer's retry).
  SEGLOG_RETURN_IF_ERROR(Append(s, records));
  *g = std::move(next);
  Info(
      fmt::format("[GroupId {}] Streams member {} fenced from the group because its session "
                  "expired.",
                  t.group, t.member));
  return Status::OK();
}

Status GroupCoordinator::Core::FireStreamsInitialDelay(Shard& s, const Timer& t) {
  StreamsGroup* g = FindStreamsGroup(s, t.group);
  if (g == nullptr || g->dead()) return Status::OK();
  StreamsGroup next = *g;
  StreamsGroupHeartbeatContext ctx;
  ctx.now_ms = scheduler_->NowMs();
  ctx.config = &config_;
  Result<std::vector<OffsetsRecord>> records = StreamsDelayedTargetAssignment(&next, ctx);
  if (!records.ok()) {
    Warn(fmt::format("[GroupId {}] {}", t.group, records.status().message()));
    return Status::OK();
  }
  if (records->empty()) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(Append(s, *records));
  *g = std::move(next);
  Info(
      fmt::format("[GroupId {}] Computed the target assignment for epoch {} after the initial "
                  "rebalance delay.",
                  t.group, g->assignment_epoch()));
  return Status::OK();
}

StreamsDescribedGroup GroupCoordinator::Core::DescribeStreams(const std::string& group_id) {
  StreamsDescribedGroup d;
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
  StreamsGroup* g = FindStreamsGroup(s, group_id);
  if (g == nullptr || g->dead())
    return StreamsGroupNotFound(group_id, OtherThanStreams(s, group_id));
  return seglog::DescribeStreamsGroup(*g, config_.streams.assignor);
}

protocol::StreamsGroupTopologyDescriptionUpdateResponseData
GroupCoordinator::Core::StreamsTopologyDescriptionUpdate(
    const protocol::StreamsGroupTopologyDescriptionUpdateRequestData& req) {
  (void)req;
  // GroupCoordinatorService.throwIfStreamsGroupTopologyDescriptionUpdateInvalid: with no
  // topology description plugin configured (Kafka's default, and seglog has none) every
  // request is refused before the group is looked at.
  protocol::StreamsGroupTopologyDescriptionUpdateResponseData r;
  if (shut_down_) {
    r.error_code = ke::kCoordinatorNotAvailable;
    return r;
  }
  r.error_code = ke::kUnsupportedVersion;
  r.error_message = "The broker has no streams group topology description plugin configured.";
  return r;
}

int16_t GroupCoordinator::Core::ValidateStreamsCommit(const StreamsGroup& g, int16_t version,
                                                      bool transactional, int32_t epoch,
                                                      const std::string& member_id,
                                                      const std::optional<std::string>& instance_id,
                                                      std::vector<CommitPartition>* partitions) {
  if (epoch < 0 && g.members().empty()) return ke::kNone;  // an admin's commit
  if (transactional && epoch == -1 && member_id.empty() && !instance_id) return ke::kNone;
  const StreamsGroupMember* m = g.FindMember(member_id);
  if (m == nullptr) return ke::kUnknownMemberId;
  if (!transactional && version < 9) return ke::kUnsupportedVersion;
  if (epoch == m->member_epoch) return ke::kNone;
  if (epoch > m->member_epoch) return ke::kStaleMemberEpoch;
  // An older epoch: each partition's task must be the member's (assigned or pending
  // revocation) since at most that epoch (StreamsGroup.createAssignmentEpochValidator).
  if (!g.topology()) return ke::kStaleMemberEpoch;
  for (CommitPartition& p : *partitions) {
    std::optional<std::string> subtopology;
    for (const auto& [id, st] : g.topology()->subtopologies) {
      bool source = std::find(st.source_topics.begin(), st.source_topics.end(), p.topic) !=
                    st.source_topics.end();
      for (const auto& rt : st.repartition_source_topics) source = source || rt.name == p.topic;
      if (source) {
        subtopology = id;
        break;
      }
    }
    std::optional<int32_t> assigned_at;
    if (subtopology) {
      for (const StreamsEpochTasks* tasks :
           {&m->assigned_tasks.active, &m->tasks_pending_revocation.active}) {
        auto st = tasks->find(*subtopology);
        if (st == tasks->end()) continue;
        if (auto e = st->second.find(p.partition); e != st->second.end()) {
          assigned_at = e->second;
          break;
        }
      }
    }
    if (!assigned_at || epoch < *assigned_at) p.error_code = ke::kStaleMemberEpoch;
  }
  return ke::kNone;
}

}  // namespace seglog
