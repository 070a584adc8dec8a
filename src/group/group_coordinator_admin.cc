// GroupCoordinator::Core: ListGroups, DescribeGroups, DeleteGroups, OffsetDelete; see
// group_coordinator_core.h.
#include "group/group_coordinator_core.h"

namespace seglog {

namespace {
namespace ke = kafka_error;
}  // namespace

auto GroupCoordinator::Core::ListGroups(const std::vector<std::string>& states_filter,
                                        const std::vector<std::string>& types_filter)
    -> std::vector<ListedGroup> {
  std::set<std::string> states, types;
  for (const std::string& f : states_filter) states.insert(Lower(Trim(f)));
  for (const std::string& f : types_filter) types.insert(Lower(Trim(f)));
  std::vector<ListedGroup> out;
  const bool classic = types.empty() || types.count("classic");
  const bool consumer = types.empty() || types.count("consumer");
  const bool share = types.empty() || types.count("share");
  const bool streams = types.empty() || types.count("streams");
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
    for (const auto& [id, g] : sp->share_groups) {
      if (!share) break;
      const std::string state(ShareGroupStateName(g->state()));
      if (!states.empty() && !states.count(Lower(state))) continue;
      out.push_back({id, "share", state, "share"});
    }
    for (const auto& [id, g] : sp->streams_groups) {
      if (!streams) break;
      const std::string state(StreamsGroupStateName(g->state()));
      if (!states.empty() && !states.count(Lower(state))) continue;
      out.push_back({id, "streams", state, "streams"});
    }
  }
  return out;
}

int64_t GroupCoordinator::Core::NumOffsets() {
  int64_t n = 0;
  for (auto& sp : shards_) {
    MutexLock l(&sp->mu);
    for (const auto& [group, offsets] : sp->offsets) n += static_cast<int64_t>(offsets.size());
  }
  return n;
}

auto GroupCoordinator::Core::DescribeGroup(const std::string& group_id, int16_t* error)
    -> std::optional<protocol::DescribeGroupsResponseData::DescribedGroup> {
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
  if (s.consumer_groups.count(group_id) || s.share_groups.count(group_id) ||
      s.streams_groups.count(group_id)) {
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

int16_t GroupCoordinator::Core::DeleteGroup(const std::string& group_id) {
  if (Status t = EnsureOffsetsTopic(); !t.ok()) return ke::kCoordinatorNotAvailable;
  Shard& s = ShardFor(group_id);
  bool share = false;
  {
    MutexLock l(&s.mu);
    share = FindShareGroup(s, group_id) != nullptr;
  }
  // A share group's share state is deleted first, without the shard's mutex.
  if (share) return DeleteShareGroup(s, group_id);
  MutexLock l(&s.mu);
  if (int16_t e = Unavailable(s); e != ke::kNone) return e;
  if (FindShareGroup(s, group_id) != nullptr) return ke::kNonEmptyGroup;  // created meanwhile
  if (auto sg = s.streams_groups.find(group_id); sg != s.streams_groups.end()) {
    // StreamsGroup.validateDeleteGroup: only an empty group; its tombstones in Kafka's order
    // (StreamsGroup.createGroupTombstoneRecords) after the offsets'.
    if (sg->second->state() != StreamsGroupState::kEmpty) return ke::kNonEmptyGroup;
    size_t offsets = 0;
    std::vector<OffsetsRecord> records = GroupOffsetTombstones(s, group_id, &offsets);
    for (OffsetsRecord& r : StreamsGroupTombstones(*sg->second)) records.push_back(std::move(r));
    if (Status w = Append(s, records); !w.ok()) return AppendErrorToClient(w);
    DropGroupOffsets(s, group_id);
    s.streams_groups.erase(sg);
    Info(fmt::format("The following groups were deleted: {}. A total of {} offsets were removed.",
                     group_id, offsets));
    return ke::kNone;
  }
  auto cg = s.consumer_groups.find(group_id);
  auto it = s.groups.find(group_id);
  if (cg != s.consumer_groups.end()) {
    if (!cg->second->members().empty()) return ke::kNonEmptyGroup;
  } else if (it == s.groups.end() || it->second->Is(ClassicGroupState::kDead)) {
    return ke::kGroupIdNotFound;
  } else if (!it->second->Is(ClassicGroupState::kEmpty)) {
    return ke::kNonEmptyGroup;
  }
  size_t offsets = 0;
  std::vector<OffsetsRecord> records = GroupOffsetTombstones(s, group_id, &offsets);
  if (cg != s.consumer_groups.end()) {
    for (OffsetsRecord& r : ConsumerGroupTombstones(*cg->second)) records.push_back(std::move(r));
  } else {
    records.push_back(GroupMetadataTombstone(group_id));
  }
  if (Status w = Append(s, records); !w.ok()) return AppendErrorToClient(w);
  DropGroupOffsets(s, group_id);
  if (cg != s.consumer_groups.end()) {
    s.consumer_groups.erase(cg);
  } else {
    s.groups.erase(it);
  }
  Info(fmt::format("The following groups were deleted: {}. A total of {} offsets were removed.",
                   group_id, offsets));
  return ke::kNone;
}

std::vector<OffsetsRecord> GroupCoordinator::Core::GroupOffsetTombstones(Shard& s,
                                                                         const std::string& group,
                                                                         size_t* count) {
  std::vector<OffsetsRecord> records;
  *count = 0;
  if (auto o = s.offsets.find(group); o != s.offsets.end()) {
    for (const auto& [tp, c] : o->second) {
      records.push_back(OffsetCommitTombstone(group, tp.first, tp.second));
    }
    *count = o->second.size();
  }
  // Partitions with only a pending transactional offset get a tombstone too (Kafka's
  // deleteAllOffsets), which drops the pending offsets.
  for (const OffsetPartitionKey& tp : s.pending.PartitionsOf(group)) {
    if (HasCommittedOffset(s, group, tp)) continue;
    records.push_back(OffsetCommitTombstone(group, tp.first, tp.second));
    ++*count;
  }
  return records;
}

void GroupCoordinator::Core::DropGroupOffsets(Shard& s, const std::string& group) {
  s.offsets.erase(group);
  for (const OffsetPartitionKey& tp : s.pending.PartitionsOf(group)) {
    s.pending.RemovePartition(group, tp);
  }
}

auto GroupCoordinator::Core::SubscribedTopics(const ClassicGroup& g)
    -> std::optional<std::set<std::string>> {
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

auto GroupCoordinator::Core::DeleteOffsets(const std::string& group_id,
                                           const std::vector<TopicPartition>& partitions)
    -> DeleteOffsetsResult {
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
  if (s.share_groups.count(group_id)) {
    out.error_code = ke::kGroupIdNotFound;  // ShareGroup.validateOffsetDelete
    return out;
  }
  auto it = s.groups.find(group_id);
  auto cg = s.consumer_groups.find(group_id);
  std::optional<std::set<std::string>> subscribed = std::set<std::string>{};
  if (auto sg = s.streams_groups.find(group_id); sg != s.streams_groups.end()) {
    // StreamsGroup.validateOffsetDelete allows it; isSubscribedToTopic: the topology's source
    // and repartition source topics, unless the group is empty.
    const StreamsGroup& g = *sg->second;
    if (g.state() != StreamsGroupState::kEmpty && g.topology()) {
      for (const auto& [id, st] : g.topology()->subtopologies) {
        subscribed->insert(st.source_topics.begin(), st.source_topics.end());
        for (const auto& t : st.repartition_source_topics) subscribed->insert(t.name);
      }
    }
  } else if (cg != s.consumer_groups.end()) {
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

}  // namespace seglog
