// GroupCoordinator::Core: KIP-848's consumer groups; see group_coordinator_core.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

void GroupCoordinator::Core::StartConsumerSession(Shard& s, const ConsumerGroup& g,
                                                  const ConsumerGroupMember& m) {
  StartTimer(s, ConsumerSessionKey(g.group_id(), m.member_id), SessionTimeoutMs(m),
             Timer{Timer::Kind::kConsumerSession, g.group_id(), m.member_id, 0, 0, 0});
}

void GroupCoordinator::Core::StartClassicJoinTimeout(Shard& s, const ConsumerGroup& g,
                                                     const ConsumerGroupMember& m) {
  const std::string key = ConsumerClassicJoinKey(g.group_id(), m.member_id);
  if (s.timer.IsScheduled(&s.mu, key)) return;
  StartTimer(s, key, m.rebalance_timeout_ms,
             Timer{Timer::Kind::kConsumerClassicJoin, g.group_id(), m.member_id, 0, 0, 0});
}

void GroupCoordinator::Core::StartConsumerTimers(Shard& s, const ConsumerGroup& g,
                                                 const ConsumerGroupMember& m,
                                                 bool revoking_since_now) {
  StartConsumerSession(s, g, m);
  if (revoking_since_now && !m.classic && m.state == ConsumerMemberState::kUnrevokedPartitions) {
    StartTimer(
        s, ConsumerRevocationKey(g.group_id(), m.member_id), m.rebalance_timeout_ms,
        Timer{Timer::Kind::kConsumerRevocation, g.group_id(), m.member_id, m.member_epoch, 0, 0});
  }
}

void GroupCoordinator::Core::CancelConsumerTimers(Shard& s, const std::string& group,
                                                  const std::string& member) {
  CancelTimer(s, ConsumerSessionKey(group, member));
  CancelTimer(s, ConsumerRevocationKey(group, member));
  CancelTimer(s, ConsumerClassicJoinKey(group, member));
  CancelTimer(s, ConsumerClassicSyncKey(group, member));
}

Status GroupCoordinator::Core::RemoveConsumerMembers(Shard& s, ConsumerGroup& g,
                                                     const std::set<std::string>& members,
                                                     const std::string& reason, Completions* done) {
  if (ShouldDowngrade(g, members, config_)) {
    Status d = Downgrade(s, g, members, reason, done);
    if (d.ok() || !d.IsInvalidArgument()) return d;
    Info(fmt::format("[GroupId {}] Cannot downgrade the consumer group to a classic group: {}",
                     g.group_id(), d.message()));
  }
  ConsumerGroup next = g;
  const ConsumerGroupHeartbeatContext ctx = HeartbeatContext(Client{});
  SEGLOG_RETURN_IF_ERROR(Append(s, FenceConsumerGroupMembers(&next, members, ctx)));
  g = std::move(next);
  for (const std::string& id : members) CancelConsumerTimers(s, g.group_id(), id);
  return Status::OK();
}

Status GroupCoordinator::Core::Downgrade(Shard& s, const ConsumerGroup& g,
                                         const std::set<std::string>& leaving,
                                         const std::string& reason, Completions* done,
                                         std::vector<OffsetsRecord> prefix, bool rebalance) {
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

Status GroupCoordinator::Core::FireConsumer(Shard& s, const Timer& t, Completions* done) {
  ConsumerGroup* g = FindConsumerGroup(s, t.group);
  if (g == nullptr) return Status::OK();
  const ConsumerGroupMember* m = g->FindMember(t.member);
  if (m == nullptr) return Status::OK();
  if (t.kind == Timer::Kind::kConsumerRevocation &&
      (m->state != ConsumerMemberState::kUnrevokedPartitions || m->member_epoch != t.generation)) {
    return Status::OK();  // it revoked meanwhile
  }
  std::string why;
  switch (t.kind) {
    case Timer::Kind::kConsumerSession:
      why = "its session expired";
      break;
    case Timer::Kind::kConsumerRevocation:
      why = "it failed to revoke partitions within its rebalance timeout";
      break;
    case Timer::Kind::kConsumerClassicJoin:
      why = "it failed to join the group within its rebalance timeout";
      break;
    default:
      why = "it failed to sync within its rebalance timeout";
      break;
  }
  // A failure is tried again after kConsumerFenceRetryBackoffMs (the timer's retry): the member
  // stays until its removal is written.
  SEGLOG_RETURN_IF_ERROR(
      RemoveConsumerMembers(s, *g, {t.member}, fmt::format("member {} fenced", t.member), done));
  Info(fmt::format("[GroupId {}] Member {} fenced from the group because {}.", t.group, t.member,
                   why));
  return Status::OK();
}

auto GroupCoordinator::Core::TopicByName(const std::string& name) const
    -> std::optional<ConsumerGroupTopic> {
  std::optional<LogManager::TopicIdentity> md = logs_->FindTopicIdentity(name);
  if (!md) return std::nullopt;
  Result<Uuid> id = Uuid::Parse(md->topic_id);
  if (!id.ok()) return std::nullopt;
  return ConsumerGroupTopic{*id, name, md->partitions};
}

auto GroupCoordinator::Core::HeartbeatContext(const Client& client)
    -> ConsumerGroupHeartbeatContext {
  ConsumerGroupHeartbeatContext ctx;
  ctx.now_ms = scheduler_->NowMs();
  ctx.config = &config_;
  ctx.client_id = client.client_id;
  ctx.client_host = client.client_host;
  ctx.topic_by_name = [this](const std::string& name) { return TopicByName(name); };
  ctx.new_member_id = [] { return Uuid::Random().ToString(); };
  return ctx;
}

void GroupCoordinator::Core::RaiseMetadataVersionAbove(int64_t version) {
  const int64_t base = version + 1 - logs_->topics_created();
  int64_t cur = metadata_version_base_.load(std::memory_order_acquire);
  while (cur < base && !metadata_version_base_.compare_exchange_weak(cur, base)) {
  }
}

void GroupCoordinator::Core::MaybeRefreshRegularExpressions(Shard& s, const ConsumerGroup& g,
                                                            bool required) {
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

void GroupCoordinator::Core::RefreshRegularExpressions(Shard& s, const std::string& group_id,
                                                       const std::set<std::string>& regexes) {
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

void GroupCoordinator::Core::JoinToConsumerGroup(
    Shard& s, ConsumerGroup& g, int16_t version, const Client& client,
    const protocol::JoinGroupRequestData& req, int32_t rebalance_timeout,
    const std::function<void(JoinGroupResponseData)>& reply, Completions* done) {
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

void GroupCoordinator::Core::LeaveConsumerGroup(Shard& s, ConsumerGroup& g,
                                                const std::vector<LeavingMember>& members,
                                                LeaveResult* out, Completions* done) {
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

auto GroupCoordinator::Core::ConsumerGroupHeartbeat(
    int16_t version, const Client& client, const protocol::ConsumerGroupHeartbeatRequestData& req)
    -> protocol::ConsumerGroupHeartbeatResponseData {
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

auto GroupCoordinator::Core::CannotUpgrade(const ClassicGroup& c) const
    -> std::optional<std::string> {
  if (!config_.group_consumer_migration_upgrade) return "online upgrade is disabled";
  if (c.protocol_type() != "consumer") {
    return "the group does not use the consumer embedded protocol";
  }
  if (c.size() > static_cast<size_t>(config_.group_consumer_max_size)) {
    return "the group size exceeds the consumer group maximum size";
  }
  return std::nullopt;
}

auto GroupCoordinator::Core::HeartbeatLocked(Shard& s, int16_t version, const Client& client,
                                             const protocol::ConsumerGroupHeartbeatRequestData& req,
                                             Completions* done)
    -> protocol::ConsumerGroupHeartbeatResponseData {
  auto error = [](int16_t code, std::optional<std::string> message = std::nullopt) {
    protocol::ConsumerGroupHeartbeatResponseData r;
    r.error_code = code;
    r.error_message = std::move(message);
    return r;
  };
  if (int16_t e = Unavailable(s); e != ke::kNone) return error(e);
  if (s.share_groups.count(req.group_id) || s.streams_groups.count(req.group_id)) {
    // GroupMetadataManager.getOrMaybeCreateConsumerGroup: no conversion from a share or
    // streams group.
    return error(ke::kGroupIdNotFound,
                 fmt::format("Group {} is not a consumer group.", req.group_id));
  }
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
    Status d =
        Downgrade(s, *it->second, {r.member_id}, fmt::format("member {} left", r.member_id), done);
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
      for (const std::string& id : old.pending_member_ids()) CancelTimer(s, HeartbeatKey(old, id));
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
    live = s.consumer_groups.emplace(req.group_id, std::make_unique<ConsumerGroup>(std::move(next)))
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

auto GroupCoordinator::Core::DescribeConsumerGroup(const std::string& group_id)
    -> protocol::ConsumerGroupDescribeResponseData::DescribedGroup {
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
    d.error_message = s.groups.count(group_id) || s.share_groups.count(group_id) ||
                              s.streams_groups.count(group_id)
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

int16_t GroupCoordinator::Core::ValidateConsumerCommit(const ConsumerGroup& g, int16_t version,
                                                       int32_t epoch, const std::string& member_id,
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

}  // namespace seglog
