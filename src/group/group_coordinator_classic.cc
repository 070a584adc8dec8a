// GroupCoordinator::Core: the classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup);
// see group_coordinator_core.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

int16_t GroupCoordinator::Core::ValidateMember(ClassicGroup& g, const std::string& member_id,
                                               const std::optional<std::string>& instance_id) {
  if (instance_id) {
    std::optional<std::string> mapped = g.StaticMemberId(*instance_id);
    if (!mapped) return ke::kUnknownMemberId;
    if (*mapped != member_id) return ke::kFencedInstanceId;
  }
  return g.HasMember(member_id) ? ke::kNone : ke::kUnknownMemberId;
}

bool GroupCoordinator::Core::AcceptJoiningMember(ClassicGroup& g, const std::string& member_id) {
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

void GroupCoordinator::Core::ResetHeartbeat(Shard& s, ClassicGroup& g,
                                            const ClassicGroupMember& m) {
  StartTimer(s, HeartbeatKey(g, m.member_id),
             m.is_new ? kNewMemberJoinTimeoutMs : m.session_timeout_ms,
             Timer{Timer::Kind::kHeartbeat, g.group_id(), m.member_id, 0, 0, 0});
}

void GroupCoordinator::Core::PrepareRebalance(Shard& s, ClassicGroup& g, const std::string& reason,
                                              Completions* done) {
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

void GroupCoordinator::Core::MaybeCompleteJoin(Shard& s, ClassicGroup& g, Completions* done) {
  if (g.Is(ClassicGroupState::kPreparingRebalance) && g.AllMembersJoined() &&
      g.previous_state() != ClassicGroupState::kEmpty) {
    CompleteJoin(s, g, done);
  }
}

void GroupCoordinator::Core::CompleteJoin(Shard& s, ClassicGroup& g, Completions* done) {
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

auto GroupCoordinator::Core::MemberList(const ClassicGroup& g)
    -> std::vector<protocol::JoinGroupResponseData::JoinGroupResponseMember> {
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

void GroupCoordinator::Core::ExpirePendingSync(Shard& s, ClassicGroup& g, int32_t generation,
                                               Completions* done) {
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

void GroupCoordinator::Core::RemoveMemberAndUpdate(Shard& s, ClassicGroup& g,
                                                   const std::string& member_id,
                                                   const std::string& reason, Completions* done) {
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

void GroupCoordinator::Core::ExpireMember(Shard& s, ClassicGroup& g, const std::string& member_id,
                                          Completions* done) {
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
                        fmt::format("removing member {} on heartbeat expiration", member_id), done);
}

void GroupCoordinator::Core::AddMemberThenRebalanceOrCompleteJoin(Shard& s, ClassicGroup& g,
                                                                  ClassicGroupMember member,
                                                                  Completions* done) {
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

void GroupCoordinator::Core::UpdateMemberThenRebalanceOrCompleteJoin(
    Shard& s, ClassicGroup& g, ClassicGroupMember& m, const protocol::JoinGroupRequestData& req,
    int32_t rebalance_timeout, JoinGroupDone cb, const std::string& reason, Completions* done) {
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

bool GroupCoordinator::Core::SameProtocols(const ClassicGroupMember& m,
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

auto GroupCoordinator::Core::CurrentGeneration(const ClassicGroup& g, const std::string& member_id,
                                               bool with_members) -> JoinGroupResponseData {
  JoinGroupResponseData r;
  r.generation_id = g.generation();
  r.protocol_type = g.protocol_type();
  r.protocol_name = g.protocol_name();
  r.leader = g.leader_id().value_or("");
  r.member_id = member_id;
  if (with_members) r.members = MemberList(g);
  return r;
}

void GroupCoordinator::Core::JoinGroup(int16_t version, const Client& client,
                                       const protocol::JoinGroupRequestData& req,
                                       JoinGroupDone cb) {
  Completions done;
  auto reply = [&](JoinGroupResponseData r) { done.push_back([cb, r = std::move(r)] { cb(r); }); };
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

void GroupCoordinator::Core::JoinLocked(Shard& s, int16_t version, const Client& client,
                                        const protocol::JoinGroupRequestData& req,
                                        const JoinGroupDone& cb,
                                        const std::function<void(JoinGroupResponseData)>& reply,
                                        Completions* done) {
  if (int16_t e = Unavailable(s); e != ke::kNone) return reply(JoinError(e, req.member_id));
  if (s.share_groups.count(req.group_id) || s.streams_groups.count(req.group_id)) {
    // GroupMetadataManager.classicGroupJoin: a share or streams group is of another protocol.
    return reply(JoinError(ke::kInconsistentGroupProtocol, ""));
  }
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
  const std::string reason = fmt::format("Updating metadata for member {} during {}", req.member_id,
                                         ClassicGroupStateName(g.state()));
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

void GroupCoordinator::Core::ReplaceStaticMember(
    Shard& s, ClassicGroup& g, const std::string& old_id, const std::string& new_id,
    const protocol::JoinGroupRequestData& req, int32_t rebalance_timeout, const JoinGroupDone& cb,
    const std::function<void(JoinGroupResponseData)>& reply, Completions* done) {
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

std::string GroupCoordinator::Core::SelectWith(const ClassicGroup& g, const std::string& member_id,
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

void GroupCoordinator::Core::SyncGroup(int16_t version, const protocol::SyncGroupRequestData& req,
                                       SyncGroupDone cb) {
  (void)version;
  Completions done;
  auto reply = [&](SyncGroupResponseData r) { done.push_back([cb, r = std::move(r)] { cb(r); }); };
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

void GroupCoordinator::Core::SyncLocked(Shard& s, const protocol::SyncGroupRequestData& req,
                                        const SyncGroupDone& cb,
                                        const std::function<void(SyncGroupResponseData)>& reply,
                                        Completions* done) {
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
      Warn(fmt::format("Setting empty assignments for member {} of {} for generation {}.", id,
                       g.group_id(), g.generation()));
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

int16_t GroupCoordinator::Core::Heartbeat(const std::string& group_id, int32_t generation,
                                          const std::string& member_id,
                                          const std::optional<std::string>& instance_id) {
  if (group_id.empty()) return ke::kInvalidGroupId;
  if (Status t = EnsureOffsetsTopic(); !t.ok()) return ke::kCoordinatorNotAvailable;
  Shard& s = ShardFor(group_id);
  MutexLock l(&s.mu);
  if (int16_t e = Unavailable(s); e != ke::kNone) return e;
  if (ConsumerGroup* cg = FindConsumerGroup(s, group_id)) {
    bool valid = false, rebalancing = false;
    const int16_t e = ClassicGroupHeartbeatToConsumerGroup(*cg, generation, member_id, instance_id,
                                                           &valid, &rebalancing);
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

auto GroupCoordinator::Core::LeaveGroup(const std::string& group_id,
                                        const std::vector<LeavingMember>& members) -> LeaveResult {
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

void GroupCoordinator::Core::LeaveLocked(Shard& s, const std::string& group_id,
                                         const std::vector<LeavingMember>& members,
                                         LeaveResult* out, Completions* done) {
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

}  // namespace seglog
