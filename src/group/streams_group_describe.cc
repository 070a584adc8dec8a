// StreamsGroupDescribe; see streams_group_describe.h.
#include "group/streams_group_describe.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "protocol/kafka_error.h"

namespace seglog {

namespace {

namespace d = protocol::streams_group_describe_response_data;

std::vector<d::TaskIds> Tasks(const StreamsTaskSet& tasks) {
  std::vector<d::TaskIds> out;
  for (const auto& [sub, parts] : tasks) {
    auto& t = out.emplace_back();
    t.subtopology_id = sub;
    t.partitions.assign(parts.begin(), parts.end());
  }
  return out;
}

d::Assignment AssignmentOf(const StreamsTasks& tasks) {
  d::Assignment a;
  a.active_tasks = Tasks(tasks.active);
  a.standby_tasks = Tasks(tasks.standby);
  a.warmup_tasks = Tasks(tasks.warmup);
  return a;
}

d::TopicInfo Info(const StreamsInternalTopic& t) {
  d::TopicInfo out;
  out.name = t.name;
  out.partitions = t.partitions;
  out.replication_factor = t.replication_factor == -1 ? int16_t{0} : t.replication_factor;
  for (const auto& [k, v] : t.configs) {
    auto& kv = out.topic_configs.emplace_back();
    kv.key = k;
    kv.value = v;
  }
  return out;
}

d::TopicInfo Info(const protocol::StreamsGroupTopologyValue::TopicInfo& t) {
  d::TopicInfo out;
  out.name = t.name;
  out.partitions = t.partitions;
  out.replication_factor = t.replication_factor;
  for (const auto& c : t.topic_configs) {
    auto& kv = out.topic_configs.emplace_back();
    kv.key = c.key;
    kv.value = c.value;
  }
  return out;
}

// ConfiguredTopology.asStreamsGroupDescribeTopology: subtopologies in id order, topic lists
// sorted, internal topics by name with their decided partition counts.
d::Topology FromConfigured(const ConfiguredStreamsTopology& c) {
  d::Topology t;
  t.epoch = c.topology_epoch;
  auto& subs = t.subtopologies.emplace();
  for (const auto& [id, s] : *c.subtopologies) {
    auto& out = subs.emplace_back();
    out.subtopology_id = id;
    out.source_topics.assign(s.source_topics.begin(), s.source_topics.end());
    out.repartition_sink_topics.assign(s.repartition_sink_topics.begin(),
                                       s.repartition_sink_topics.end());
    for (const auto& [name, topic] : s.repartition_source_topics) {
      out.repartition_source_topics.push_back(Info(topic));
    }
    for (const auto& [name, topic] : s.state_changelog_topics) {
      out.state_changelog_topics.push_back(Info(topic));
    }
  }
  return t;
}

// StreamsTopology.asStreamsGroupDescribeTopology: as the members sent it.
d::Topology FromTopology(const StreamsTopology& topology) {
  d::Topology t;
  t.epoch = topology.epoch;
  auto& subs = t.subtopologies.emplace();
  for (const auto& [id, s] : topology.subtopologies) {
    auto& out = subs.emplace_back();
    out.subtopology_id = id;
    out.source_topics = s.source_topics;
    out.repartition_sink_topics = s.repartition_sink_topics;
    for (const auto& x : s.repartition_source_topics) {
      out.repartition_source_topics.push_back(Info(x));
    }
    for (const auto& x : s.state_changelog_topics) out.state_changelog_topics.push_back(Info(x));
  }
  return t;
}

}  // namespace

StreamsDescribedGroup DescribeStreamsGroup(const StreamsGroup& group,
                                           const std::string& assignor_name) {
  StreamsDescribedGroup out;
  out.group_id = group.group_id();
  out.group_epoch = group.group_epoch();
  out.group_state = std::string(StreamsGroupStateName(group.state()));
  out.assignment_epoch = group.assignment_epoch();
  out.assignor_name = assignor_name;
  if (group.configured_topology() && group.configured_topology()->ready() &&
      group.configured_topology()->subtopologies) {
    out.topology = FromConfigured(*group.configured_topology());
  } else if (group.topology()) {
    out.topology = FromTopology(*group.topology());
  }
  for (const auto& [id, m] : group.members()) {
    auto& dm = out.members.emplace_back();
    dm.member_id = id;
    dm.member_epoch = m.member_epoch;
    dm.instance_id = m.instance_id;
    dm.rack_id = m.rack_id;
    dm.client_id = m.client_id;
    dm.client_host = m.client_host;
    dm.topology_epoch = m.topology_epoch;
    dm.process_id = m.process_id;
    if (m.user_endpoint) {
      auto& e = dm.user_endpoint.emplace();
      e.host = m.user_endpoint->host;
      e.port = m.user_endpoint->port;
    }
    for (const auto& [k, v] : m.client_tags) {
      auto& kv = dm.client_tags.emplace_back();
      kv.key = k;
      kv.value = v;
    }
    const StreamsMemberTaskOffsets& offsets = group.TaskOffsetsOf(id);
    auto fill = [](const std::map<std::string, std::map<int32_t, int64_t>>& in,
                   std::vector<d::TaskOffset>* into) {
      for (const auto& [sub, parts] : in) {
        for (const auto& [p, offset] : parts) {
          auto& t = into->emplace_back();
          t.subtopology_id = sub;
          t.partition = p;
          t.offset = offset;
        }
      }
    };
    fill(offsets.task_offsets, &dm.task_offsets);
    fill(offsets.task_end_offsets, &dm.task_end_offsets);
    dm.assignment = AssignmentOf(m.assigned_tasks.Tasks());
    dm.target_assignment = AssignmentOf(group.TargetOf(id));
  }
  return out;
}

StreamsDescribedGroup StreamsGroupNotFound(const std::string& group_id, bool other_type) {
  StreamsDescribedGroup out;
  out.group_id = group_id;
  out.error_code = kafka_error::kGroupIdNotFound;
  out.error_message = other_type ? fmt::format("Group {} is not a streams group.", group_id)
                                 : fmt::format("Group {} not found.", group_id);
  return out;
}

}  // namespace seglog
