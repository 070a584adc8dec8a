// The online migration between the group protocols; see group_conversion.h.
#include "group/group_conversion.h"

#include <fmt/format.h>

#include <algorithm>

#include "group/consumer_group_records.h"
#include "group/consumer_protocol.h"

namespace seglog {

Result<ConsumerGroup> ConsumerGroupFromClassicGroup(
    const ClassicGroup& classic,
    const std::function<std::optional<ConsumerGroupTopic>(const std::string&)>& topic_by_name) {
  ConsumerGroup group(classic.group_id());
  const int32_t generation = classic.generation();
  group.set_group_epoch(generation);
  group.set_assignment_epoch(generation);
  const std::string protocol = classic.protocol_name().value_or("");
  for (const auto& [id, cm] : classic.members()) {
    const std::vector<uint8_t>* metadata = cm.MetadataFor(protocol);
    if (metadata == nullptr && !cm.protocols.empty()) metadata = &cm.protocols.front().metadata;
    if (metadata == nullptr) {
      return Status::InvalidArgument("the embedded consumer protocol is malformed");
    }
    Result<protocol::ConsumerProtocolSubscription> sub =
        DecodeConsumerProtocolSubscription(*metadata);
    if (!sub.ok()) return Status::InvalidArgument("the embedded consumer protocol is malformed");
    ConsumerGroupMember m;
    m.member_id = id;
    m.member_epoch = generation;
    m.previous_member_epoch = generation;
    m.state = ConsumerMemberState::kStable;
    m.instance_id = cm.group_instance_id;
    m.rack_id = sub->rack_id;
    m.client_id = cm.client_id;
    m.client_host = cm.client_host;
    m.subscribed_topic_names = sub->topics;
    std::sort(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
    m.subscribed_topic_names.erase(
        std::unique(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end()),
        m.subscribed_topic_names.end());
    m.rebalance_timeout_ms = cm.rebalance_timeout_ms;
    TopicPartitions assigned;
    if (!cm.assignment.empty()) {  // empty: joined, never synced
      Result<protocol::ConsumerProtocolAssignment> a =
          DecodeConsumerProtocolAssignment(cm.assignment);
      if (!a.ok()) return Status::InvalidArgument("the embedded consumer protocol is malformed");
      if (a->user_data && !a->user_data->empty()) {
        return Status::InvalidArgument(
            "an unsupported custom assignor is in use (its userData would be lost). Please "
            "refer to the documentation or switch to a default assignor before re-attempting "
            "the upgrade");
      }
      for (const auto& t : a->assigned_partitions) {
        std::optional<ConsumerGroupTopic> topic = topic_by_name(t.topic);
        if (!topic) continue;
        for (int32_t p : t.partitions) {
          if (p < 0 || p >= topic->partitions) continue;
          if (group.CurrentPartitionEpoch(topic->id, p) != -1) {
            return Status::InvalidArgument(
                fmt::format("partition {}-{} is assigned to two members", t.topic, p));
          }
          assigned[topic->id].insert(p);
          m.assigned_partitions[topic->id][p] = generation;
        }
      }
    }
    ClassicMemberMetadata& c = m.classic.emplace();
    c.session_timeout_ms = cm.session_timeout_ms;
    for (const auto& p : cm.protocols) c.supported_protocols.push_back({p.name, p.metadata});
    group.UpdateMember(std::move(m));
    group.SetTarget(id, std::move(assigned));
  }
  return group;
}

std::vector<OffsetsRecord> ConsumerGroupRecords(const ConsumerGroup& group, int64_t now_ms) {
  std::vector<OffsetsRecord> records;
  const std::string& id = group.group_id();
  for (const auto& [m, member] : group.members()) {
    records.push_back(ConsumerGroupMemberMetadataRecord(id, member));
  }
  records.push_back(ConsumerGroupMetadataRecord(id, group.group_epoch(), group.metadata_hash()));
  for (const auto& [m, member] : group.members()) {
    (void)member;
    records.push_back(ConsumerGroupTargetAssignmentMemberRecord(id, m, group.TargetOf(m)));
  }
  records.push_back(
      ConsumerGroupTargetAssignmentMetadataRecord(id, group.assignment_epoch(), now_ms));
  for (const auto& [m, member] : group.members()) {
    records.push_back(ConsumerGroupCurrentMemberAssignmentRecord(id, member));
  }
  return records;
}

Result<std::unique_ptr<ClassicGroup>> ClassicGroupFromConsumerGroup(
    const ConsumerGroup& group, const std::set<std::string>& leaving,
    const std::function<std::optional<std::string>(const Uuid&)>& topic_name, int64_t now_ms) {
  std::vector<ClassicGroupMember> members;
  std::optional<std::string> leader;
  for (const auto& [id, m] : group.members()) {
    if (leaving.count(id)) continue;
    if (!m.classic) {
      return Status::InvalidArgument(
          fmt::format("member {} does not use the classic protocol", id));
    }
    ClassicGroupMember cm;
    cm.member_id = id;
    cm.group_instance_id = m.instance_id;
    cm.client_id = m.client_id;
    cm.client_host = m.client_host;
    cm.rebalance_timeout_ms = m.rebalance_timeout_ms;
    cm.session_timeout_ms = m.classic->session_timeout_ms;
    cm.protocol_type = "consumer";
    for (const auto& p : m.classic->supported_protocols)
      cm.protocols.push_back({p.name, p.metadata});
    if (!leader) leader = id;
    members.push_back(std::move(cm));
  }
  auto classic = std::make_unique<ClassicGroup>(group.group_id(), now_ms);
  classic->RestoreFromRecord(group.group_epoch(), "consumer", std::nullopt, leader, now_ms,
                             members);
  const std::string protocol = classic->SelectProtocol();
  for (ClassicGroupMember& cm : members) {
    const std::vector<uint8_t>* metadata = cm.MetadataFor(protocol);
    if (metadata == nullptr) {
      return Status::InvalidArgument(
          fmt::format("member {} does not support the protocol {}", cm.member_id, protocol));
    }
    Result<int16_t> version = ConsumerProtocolVersion(*metadata);
    if (!version.ok()) {
      return Status::InvalidArgument(
          fmt::format("the embedded consumer protocol of member {} is malformed", cm.member_id));
    }
    std::map<std::string, std::set<int32_t>> named;
    for (const auto& [topic, partitions] : group.TargetOf(cm.member_id)) {
      std::optional<std::string> name = topic_name(topic);
      if (name) named[*name].insert(partitions.begin(), partitions.end());
    }
    cm.assignment = EncodeConsumerProtocolAssignment(named, *version);
  }
  classic->RestoreFromRecord(group.group_epoch(), "consumer", protocol, leader, now_ms,
                             std::move(members));
  return classic;
}

std::vector<OffsetsRecord> ConsumerGroupDowngradeRecords(const ConsumerGroup& group,
                                                         const ClassicGroup& classic) {
  std::vector<OffsetsRecord> records = ConsumerGroupTombstones(group);
  records.push_back(GroupMetadataRecord(classic));
  return records;
}

bool ShouldDowngrade(const ConsumerGroup& group, const std::set<std::string>& leaving,
                     const GroupCoordinatorConfig& config) {
  size_t remaining = 0;
  for (const auto& [id, m] : group.members()) {
    if (leaving.count(id)) continue;
    if (!m.uses_classic_protocol()) return false;
    ++remaining;
  }
  return remaining > 0 && config.group_consumer_migration_downgrade &&
         remaining <= static_cast<size_t>(config.group_max_size);
}

}  // namespace seglog
