// GroupCoordinator::Core: KIP-932's share groups (ShareGroupHeartbeat, ShareGroupDescribe, the
// share-partition initialization, the member session timeouts, DeleteGroups of a share group);
// see group_coordinator_core.h and share_group_heartbeat.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
using Resp = protocol::ShareGroupHeartbeatResponseData;
}  // namespace

void GroupCoordinator::Core::StartShareSession(Shard& s, const std::string& group,
                                               const std::string& member) {
  StartTimer(s, ShareSessionKey(group, member), config_.group_share_session_timeout_ms,
             Timer{Timer::Kind::kShareSession, group, member, 0, 0, 0});
}

auto GroupCoordinator::Core::ShareContext(const Client& client) -> ShareGroupHeartbeatContext {
  ShareGroupHeartbeatContext ctx;
  ctx.now_ms = scheduler_->NowMs();
  ctx.config = &config_;
  ctx.client_id = client.client_id;
  ctx.client_host = client.client_host;
  ctx.topic_by_name = [this](const std::string& name) { return TopicByName(name); };
  return ctx;
}

void GroupCoordinator::Core::NotifyShareMemberLeft(const std::string& group,
                                                   const std::string& member, Completions* done) {
  std::shared_ptr<ShareGroupListener> listener = ShareListener();
  if (listener == nullptr) return;
  done->push_back([listener, group, member] { listener->OnShareGroupMemberLeft(group, member); });
}

ShareGroup& GroupCoordinator::Core::LoadedShareGroup(Shard& s, const std::string& id) {
  auto& g = s.share_groups[id];
  if (g == nullptr) g = std::make_unique<ShareGroup>(id);
  s.groups.erase(id);
  s.consumer_groups.erase(id);
  s.streams_groups.erase(id);
  return *g;
}

void GroupCoordinator::Core::ReplayShareGroup(Shard& s, const LoadedShareGroupRecord& rec) {
  const int64_t now = scheduler_->NowMs();
  if (const auto* mm = std::get_if<LoadedShareGroupMemberMetadata>(&rec)) {
    if (!mm->value) {
      if (ShareGroup* g = FindShareGroup(s, mm->group)) g->RemoveMember(mm->member_id);
      return;
    }
    ShareGroup& g = LoadedShareGroup(s, mm->group);
    ShareGroupMember m = *mm->value;
    if (const ShareGroupMember* old = g.FindMember(mm->member_id)) {
      m.member_epoch = old->member_epoch;
      m.previous_member_epoch = old->previous_member_epoch;
      m.state = old->state;
      m.assigned_partitions = old->assigned_partitions;
    }
    g.UpdateMember(std::move(m));
  } else if (const auto* md = std::get_if<LoadedShareGroupMetadata>(&rec)) {
    if (!md->value) {
      s.share_groups.erase(md->group);
      return;
    }
    ShareGroup& g = LoadedShareGroup(s, md->group);
    g.set_group_epoch(md->value->epoch);
    g.set_metadata_hash(md->value->metadata_hash);
  } else if (const auto* tm = std::get_if<LoadedShareGroupTargetAssignmentMetadata>(&rec)) {
    if (!tm->value) return;  // the group's tombstones follow
    ShareGroup& g = LoadedShareGroup(s, tm->group);
    g.set_assignment_epoch(tm->value->assignment_epoch);
    g.set_assignment_timestamp_ms(tm->value->timestamp_ms);
  } else if (const auto* tmm = std::get_if<LoadedShareGroupTargetAssignmentMember>(&rec)) {
    if (!tmm->value) {
      if (ShareGroup* g = FindShareGroup(s, tmm->group)) g->RemoveTarget(tmm->member_id);
      return;
    }
    LoadedShareGroup(s, tmm->group).SetTarget(tmm->member_id, *tmm->value);
  } else if (const auto* ca = std::get_if<LoadedShareGroupCurrentMemberAssignment>(&rec)) {
    ShareGroup* g = ca->value ? &LoadedShareGroup(s, ca->group) : FindShareGroup(s, ca->group);
    if (g == nullptr) return;
    ShareGroupMember m;
    if (const ShareGroupMember* old = g->FindMember(ca->member_id)) {
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
    } else {
      // On its way out (its metadata tombstone follows): nothing assigned.
      m.member_epoch = -1;
      m.previous_member_epoch = -1;
      m.assigned_partitions.clear();
    }
    g->UpdateMember(std::move(m));
  } else if (const auto* sp = std::get_if<LoadedShareGroupStatePartitionMetadata>(&rec)) {
    if (!sp->value) {
      if (ShareGroup* g = FindShareGroup(s, sp->group)) g->set_state_partitions(std::nullopt);
      return;
    }
    ShareGroupStatePartitions p = *sp->value;
    // Asked before the restart, not answered since: a heartbeat asks again once
    // group.share.initialize.retry.interval.ms passed from now.
    for (auto& [id, t] : p.initializing) t.timestamp_ms = now;
    LoadedShareGroup(s, sp->group).set_state_partitions(std::move(p));
  }
}

Resp GroupCoordinator::Core::ShareGroupHeartbeat(
    const Client& client, const protocol::ShareGroupHeartbeatRequestData& req) {
  Resp r;
  if (Status t = EnsureOffsetsTopic(); !t.ok()) {
    r.error_code = ke::kCoordinatorNotAvailable;
    return r;
  }
  if (std::optional<Resp> invalid = ValidateShareGroupHeartbeat(req)) return *invalid;
  Completions done;
  PendingShareInitialization init;
  Shard& s = ShardFor(req.group_id);
  {
    MutexLock l(&s.mu);
    r = ShareHeartbeatLocked(s, client, req, &done, &init);
  }
  RunAll(&done);
  if (!init.topics.empty()) InitializeShareState(s, init);
  return r;
}

Resp GroupCoordinator::Core::ShareHeartbeatLocked(
    Shard& s, const Client& client, const protocol::ShareGroupHeartbeatRequestData& req,
    Completions* done, PendingShareInitialization* init) {
  auto error = [](int16_t code, std::optional<std::string> message = std::nullopt) {
    Resp r;
    r.error_code = code;
    r.error_message = std::move(message);
    return r;
  };
  if (int16_t e = Unavailable(s); e != ke::kNone) return error(e);
  // Group types are exclusive (GroupMetadataManager.getOrMaybeCreateShareGroup, shareGroup).
  if (s.groups.count(req.group_id) || s.consumer_groups.count(req.group_id) ||
      s.streams_groups.count(req.group_id)) {
    return error(ke::kGroupIdNotFound, fmt::format("Group {} is not a share group.", req.group_id));
  }
  auto it = s.share_groups.find(req.group_id);
  const bool exists = it != s.share_groups.end() && !it->second->dead();
  ShareGroup next = exists ? *it->second : ShareGroup(req.group_id);
  const bool known_member = exists && next.FindMember(req.member_id) != nullptr;
  ShareGroupHeartbeatResult r =
      seglog::ShareGroupHeartbeat(&next, exists, req, ShareContext(client));
  if (r.response.error_code != ke::kNone) return r.response;
  if (Status w = Append(s, r.records); !w.ok()) return error(AppendErrorToClient(w));
  if (it == s.share_groups.end()) {
    s.share_groups.emplace(req.group_id, std::make_unique<ShareGroup>(std::move(next)));
  } else {
    *it->second = std::move(next);
  }
  if (r.member_removed) {
    CancelTimer(s, ShareSessionKey(req.group_id, r.member_id));
    Info(fmt::format("[GroupId {}] Member {} left the share group.", req.group_id, r.member_id));
    NotifyShareMemberLeft(req.group_id, r.member_id, done);
  } else {
    if (!known_member) {
      Info(fmt::format("[GroupId {}] Member {} joins the share group using the share protocol.",
                       req.group_id, r.member_id));
    }
    StartShareSession(s, req.group_id, r.member_id);
  }
  if (!r.to_initialize.empty()) {
    *init = PendingShareInitialization{req.group_id, r.state_epoch, std::move(r.to_initialize)};
  }
  return r.response;
}

void GroupCoordinator::Core::InitializeShareState(Shard& s,
                                                  const PendingShareInitialization& init) {
  Status done = Status::OK();
  if (std::shared_ptr<ShareStateAdmin> admin = ShareAdmin()) {
    std::vector<ShareStateAdmin::InitializeTopic> topics;
    for (const auto& [id, t] : init.topics) {
      topics.push_back(ShareStateAdmin::InitializeTopic{
          id, std::vector<int32_t>(t.partitions.begin(), t.partitions.end()),
          ShareStateAdmin::kStartOffsetFromResetPolicy});
    }
    done = admin->InitializeShareState(init.group, init.state_epoch, topics);
  }
  MutexLock l(&s.mu);
  if (Unavailable(s) != ke::kNone) return;
  ShareGroup* g = FindShareGroup(s, init.group);
  if (g == nullptr) return;
  if (!done.ok()) {
    Warn(fmt::format("[GroupId {}] Failed to initialize the share state of {} topics: {}",
                     init.group, init.topics.size(), done.ToString()));
  }
  ShareGroup next = *g;
  std::optional<OffsetsRecord> record =
      CompleteShareStateInitialization(&next, init.topics, done.ok());
  if (!record) return;
  if (Status w = Append(s, {*record}); !w.ok()) {
    // The partitions stay initializing: a heartbeat asks again after
    // group.share.initialize.retry.interval.ms.
    return;
  }
  *g = std::move(next);
}

Status GroupCoordinator::Core::FireShare(Shard& s, const Timer& t, Completions* done) {
  ShareGroup* g = FindShareGroup(s, t.group);
  if (g == nullptr || g->FindMember(t.member) == nullptr) return Status::OK();
  ShareGroup next = *g;
  std::vector<OffsetsRecord> records = FenceShareGroupMember(&next, t.member, ShareContext({}));
  // A failure is tried again after kConsumerFenceRetryBackoffMs (the timer's retry).
  SEGLOG_RETURN_IF_ERROR(Append(s, records));
  *g = std::move(next);
  Info(fmt::format("[GroupId {}] Member {} fenced from the group because its session expired.",
                   t.group, t.member));
  NotifyShareMemberLeft(t.group, t.member, done);
  return Status::OK();
}

auto GroupCoordinator::Core::DescribeShareGroup(const std::string& group_id)
    -> protocol::ShareGroupDescribeResponseData::DescribedGroup {
  protocol::ShareGroupDescribeResponseData::DescribedGroup d;
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
  ShareGroup* g = FindShareGroup(s, group_id);
  if (g == nullptr || g->dead()) {
    d.error_code = ke::kGroupIdNotFound;
    d.error_message = s.groups.count(group_id) || s.consumer_groups.count(group_id) ||
                              s.streams_groups.count(group_id)
                          ? fmt::format("Group {} is not a share group.", group_id)
                          : fmt::format("Group {} not found.", group_id);
    return d;
  }
  return DescribeShareGroupData(
      *g, [this](const Uuid& id) { return logs_->TopicNameForId(id.ToString()).value_or(""); });
}

int16_t GroupCoordinator::Core::DeleteShareGroup(Shard& s, const std::string& group_id) {
  auto topic_by_id = [this](const Uuid& id) -> std::optional<ConsumerGroupTopic> {
    std::optional<std::string> name = TopicName(id);
    if (!name) return std::nullopt;
    return TopicByName(*name);
  };
  ShareStateTopics topics;
  {
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return e;
    ShareGroup* g = FindShareGroup(s, group_id);
    if (g == nullptr || g->dead()) return ke::kGroupIdNotFound;
    if (!g->members().empty()) return ke::kNonEmptyGroup;
    // First the share partitions go to deleting (type 15), then their state is deleted.
    ShareGroup next = *g;
    ShareStateDeletion deletion = PrepareShareStateDeletion(&next, topic_by_id);
    if (deletion.record) {
      if (Status w = Append(s, {*deletion.record}); !w.ok()) return AppendErrorToClient(w);
      *g = std::move(next);
    }
    topics = std::move(deletion.topics);
  }
  if (!topics.empty()) {
    if (std::shared_ptr<ShareStateAdmin> admin = ShareAdmin()) {
      std::vector<ShareStateAdmin::TopicPartitions> parts;
      for (const auto& [id, t] : topics) {
        parts.push_back(ShareStateAdmin::TopicPartitions{
            id, std::vector<int32_t>(t.partitions.begin(), t.partitions.end())});
      }
      if (Status d = admin->DeleteShareState(group_id, parts); !d.ok()) {
        Warn(fmt::format("[GroupId {}] Failed to delete the share state: {}", group_id,
                         d.ToString()));
        return ke::kUnknownServerError;
      }
    }
  }
  std::shared_ptr<ShareGroupListener> listener;
  {
    MutexLock l(&s.mu);
    if (int16_t e = Unavailable(s); e != ke::kNone) return e;
    auto it = s.share_groups.find(group_id);
    if (it == s.share_groups.end() || it->second->dead()) return ke::kGroupIdNotFound;
    if (!it->second->members().empty()) return ke::kNonEmptyGroup;  // joined meanwhile
    size_t offsets = 0;
    std::vector<OffsetsRecord> records = GroupOffsetTombstones(s, group_id, &offsets);
    for (OffsetsRecord& r : ShareGroupTombstones(*it->second)) records.push_back(std::move(r));
    if (Status w = Append(s, records); !w.ok()) return AppendErrorToClient(w);
    DropGroupOffsets(s, group_id);
    it->second->MarkDead();
    s.share_groups.erase(it);
    Info(fmt::format("The following groups were deleted: {}. A total of {} offsets were removed.",
                     group_id, offsets));
    listener = ShareListener();
  }
  if (listener) listener->OnShareGroupDeleted(group_id);
  return ke::kNone;
}

}  // namespace seglog
