// The topology of a streams group and its validation; see streams_topology.h.
#include "group/streams_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace seglog {

namespace {

using Subtopology = StreamsTopology::Subtopology;

// A failure of the validation that Kafka reports as a heartbeat status
// (TopicConfigurationException).
struct StatusFailure {
  StreamsGroupStatus status;
  std::string message;
};

// Kafka's TreeMap<String, Integer>.toString(): "{a=1, b=2}".
std::string JavaMapString(const std::map<std::string, int32_t>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ", ";
    first = false;
    out += fmt::format("{}={}", k, v);
  }
  return out + "}";
}

// The state of one validation: the snapshot, the partition counts decided for internal
// topics, and the first failure (the validation stops at it, as Kafka's exceptions do).
class Configurer {
 public:
  Configurer(const StreamsTopology& topology, const TopicPartitionCounts& topics)
      : topology_(topology), topics_(topics) {}

  // Kafka's getPartitionCount: the topic's partition count if it exists, else the count
  // decided for it, else nullopt.
  std::optional<int32_t> PartitionCount(const std::string& topic) const {
    auto it = topics_.find(topic);
    if (it != topics_.end()) return it->second;
    auto d = decided_.find(topic);
    if (d != decided_.end()) return d->second;
    return std::nullopt;
  }

  // RepartitionTopics.setup.
  Status DecideRepartitionTopics() {
    std::map<std::string, int32_t> counts;
    for (const auto& [id, s] : topology_.subtopologies) {
      for (const auto& t : s.repartition_source_topics) {
        if (t.partitions != 0) counts[t.name] = t.partitions;
      }
    }
    bool needed = false;
    do {
      needed = false;
      bool progress = false;
      for (const auto& [id, s] : topology_.subtopologies) {
        for (const auto& sink : s.repartition_sink_topics) {
          if (counts.contains(sink)) continue;
          std::optional<int32_t> count;
          for (const auto& t : s.repartition_source_topics) {
            auto c = counts.find(t.name);
            if (c != counts.end() && (!count || c->second > *count)) count = c->second;
          }
          for (const auto& t : s.source_topics) {
            auto it = topics_.find(t);
            if (it != topics_.end() && (!count || it->second > *count)) count = it->second;
          }
          if (!count) {
            needed = true;
          } else {
            counts[sink] = *count;
            progress = true;
          }
        }
      }
      if (!progress && needed) {
        return Status::InvalidArgument(
            "Failed to compute number of partitions for all repartition topics. There may be "
            "loops in the topology that cannot be resolved.");
      }
    } while (needed);
    for (const auto& [id, s] : topology_.subtopologies) {
      for (const auto& t : s.repartition_source_topics) {
        if (!counts.contains(t.name)) {
          return Status::InvalidArgument(
              "Failed to compute number of partitions for all repartition topics, because a "
              "repartition source topic is never used as a sink topic.");
        }
      }
    }
    for (auto& [k, v] : counts) decided_[k] = v;
    return Status::OK();
  }

  // The topics of each copartition group, by subtopology (copartitionGroupsFromPersisted
  // Subtopology); regular-expression indexes are not resolved, as in Kafka.
  Result<std::vector<std::set<std::string>>> CopartitionGroups(const Subtopology& s) const {
    std::vector<std::set<std::string>> out;
    for (const auto& g : s.copartition_groups) {
      std::set<std::string> topics;
      for (int16_t i : g.source_topics) {
        if (i < 0 || static_cast<size_t>(i) >= s.source_topics.size()) {
          return Status::FailedPrecondition(
              fmt::format("Index {} out of bounds for length {}", i, s.source_topics.size()));
        }
        topics.insert(s.source_topics[i]);
      }
      for (int16_t i : g.repartition_source_topics) {
        if (i < 0 || static_cast<size_t>(i) >= s.repartition_source_topics.size()) {
          return Status::FailedPrecondition(fmt::format("Index {} out of bounds for length {}", i,
                                                        s.repartition_source_topics.size()));
        }
        topics.insert(s.repartition_source_topics[i].name);
      }
      out.push_back(std::move(topics));
    }
    return out;
  }

  // CopartitionedTopicsEnforcer.enforce for one group. A status failure goes to `failure`.
  Status Enforce(const std::set<std::string>& group, const std::set<std::string>& fixed,
                 const std::set<std::string>& flexible, std::optional<StatusFailure>* failure) {
    if (group.empty()) return Status::OK();
    std::map<std::string, int32_t> repartition;
    std::map<std::string, int32_t> external;
    for (const auto& t : group) {
      auto c = PartitionCount(t);
      if (!c) {
        return Status::FailedPrecondition("Number of partitions is not set for topic: " + t);
      }
      if (fixed.contains(t) || flexible.contains(t)) {
        repartition[t] = *c;
      } else {
        external[t] = *c;
      }
    }
    int32_t use = 0;
    if (external.empty()) {
      if (!fixed.empty()) {
        // Kafka compares every fixed repartition topic of the topology here, not only those of
        // this group.
        auto first = PartitionCount(*fixed.begin());
        if (!first) {
          return Status::FailedPrecondition("Number of partitions is not set for topic: " +
                                            *fixed.begin());
        }
        for (const auto& t : fixed) {
          auto c = PartitionCount(t);
          if (!c) {
            return Status::FailedPrecondition("Number of partitions is not set for topic: " + t);
          }
          if (*c != *first) {
            *failure = StatusFailure{
                StreamsGroupStatus::kIncorrectlyPartitionedTopics,
                fmt::format("Following topics do not have the same number of partitions: [{}]",
                            JavaMapString(repartition))};
            return Status::OK();
          }
        }
        use = *first;
      } else {
        for (const auto& [t, c] : repartition) use = std::max(use, c);
        if (use == 0) {
          std::string names;
          for (const auto& [t, c] : repartition) names += (names.empty() ? "" : ", ") + t;
          return Status::InvalidArgument(
              "All topics in the copartition group had undefined partition number: [" + names +
              "]");
        }
      }
    } else {
      use = external.begin()->second;
      for (const auto& [t, c] : external) {
        if (c != use) {
          *failure = StatusFailure{
              StreamsGroupStatus::kIncorrectlyPartitionedTopics,
              fmt::format("Following topics do not have the same number of partitions: [{}]",
                          JavaMapString(external))};
          return Status::OK();
        }
      }
    }
    for (const auto& [t, c] : repartition) {
      if (fixed.contains(t) && c != use) {
        *failure = StatusFailure{
            StreamsGroupStatus::kIncorrectlyPartitionedTopics,
            fmt::format("Number of partitions [{}] of repartition topic [{}] doesn't match "
                        "number of partitions [{}] of the source topic.",
                        c, t, use)};
        return Status::OK();
      }
      decided_[t] = use;
    }
    return Status::OK();
  }

  // ChangelogTopics.setup.
  Status DecideChangelogTopics() {
    std::map<std::string, int32_t> out;
    for (const auto& [id, s] : topology_.subtopologies) {
      std::optional<int32_t> max;
      auto consider = [&](const std::string& t) -> Status {
        auto c = PartitionCount(t);
        if (!c) return Status::FailedPrecondition("No partition count for source topic " + t);
        if (!max || *c > *max) max = *c;
        return Status::OK();
      };
      for (const auto& t : s.source_topics) SEGLOG_RETURN_IF_ERROR(consider(t));
      for (const auto& t : s.repartition_source_topics) SEGLOG_RETURN_IF_ERROR(consider(t.name));
      if (!max) {
        return Status::InvalidArgument("No source topics found for subtopology " + id);
      }
      for (const auto& t : s.state_changelog_topics) out[t.name] = *max;
    }
    for (auto& [k, v] : out) decided_[k] = v;
    return Status::OK();
  }

  Result<StreamsInternalTopic> Internal(const protocol::StreamsGroupTopologyValue::TopicInfo& t) {
    StreamsInternalTopic out;
    out.name = t.name;
    if (t.partitions != 0) {
      out.partitions = t.partitions;
    } else {
      auto d = decided_.find(t.name);
      if (d == decided_.end()) {
        return Status::FailedPrecondition("Number of partitions must be set for topic " + t.name);
      }
      out.partitions = d->second;
    }
    out.replication_factor = t.replication_factor == 0 ? int16_t{-1} : t.replication_factor;
    for (const auto& c : t.topic_configs) out.configs[c.key] = c.value;
    return out;
  }

  Result<ConfiguredStreamsSubtopology> Configure(const Subtopology& s) {
    ConfiguredStreamsSubtopology out;
    std::optional<int32_t> tasks;
    auto consider = [&](const std::string& t) -> Status {
      auto c = PartitionCount(t);
      if (!c) return Status::FailedPrecondition("Number of partitions must be set for topic " + t);
      if (!tasks || *c > *tasks) tasks = *c;
      return Status::OK();
    };
    for (const auto& t : s.source_topics) SEGLOG_RETURN_IF_ERROR(consider(t));
    for (const auto& t : s.repartition_source_topics) SEGLOG_RETURN_IF_ERROR(consider(t.name));
    if (!tasks) return Status::FailedPrecondition("Subtopology does not contain any source topics");
    out.number_of_tasks = *tasks;
    out.source_topics.insert(s.source_topics.begin(), s.source_topics.end());
    out.repartition_sink_topics.insert(s.repartition_sink_topics.begin(),
                                       s.repartition_sink_topics.end());
    for (const auto& t : s.repartition_source_topics) {
      auto i = Internal(t);
      if (!i.ok()) return i.status();
      out.repartition_source_topics[t.name] = std::move(*i);
    }
    for (const auto& t : s.state_changelog_topics) {
      auto i = Internal(t);
      if (!i.ok()) return i.status();
      out.state_changelog_topics[t.name] = std::move(*i);
    }
    return out;
  }

 private:
  const StreamsTopology& topology_;
  const TopicPartitionCounts& topics_;
  std::map<std::string, int32_t> decided_;
};

}  // namespace

std::set<std::string> StreamsTopology::RequiredTopics() const {
  std::set<std::string> out;
  for (const auto& [id, s] : subtopologies) {
    out.insert(s.source_topics.begin(), s.source_topics.end());
    for (const auto& t : s.repartition_source_topics) out.insert(t.name);
    for (const auto& t : s.state_changelog_topics) out.insert(t.name);
  }
  return out;
}

protocol::StreamsGroupTopologyValue StreamsTopology::ToRecord() const {
  protocol::StreamsGroupTopologyValue v;
  v.epoch = epoch;
  for (const auto& [id, s] : subtopologies) v.subtopologies.push_back(s);
  return v;
}

StreamsTopology StreamsTopology::FromRecord(const protocol::StreamsGroupTopologyValue& value) {
  StreamsTopology t;
  t.epoch = value.epoch;
  for (const auto& s : value.subtopologies) t.subtopologies[s.subtopology_id] = s;
  return t;
}

StreamsTopology StreamsTopology::FromHeartbeat(
    const protocol::streams_group_heartbeat_request_data::Topology& topology) {
  StreamsTopology t;
  t.epoch = topology.epoch;
  auto info = [](const protocol::streams_group_heartbeat_request_data::TopicInfo& in) {
    protocol::StreamsGroupTopologyValue::TopicInfo out;
    out.name = in.name;
    out.partitions = in.partitions;
    out.replication_factor = in.replication_factor;
    for (const auto& kv : in.topic_configs) {
      auto& c = out.topic_configs.emplace_back();
      c.key = kv.key;
      c.value = kv.value;
    }
    return out;
  };
  for (const auto& in : topology.subtopologies) {
    Subtopology s;
    s.subtopology_id = in.subtopology_id;
    s.source_topics = in.source_topics;
    s.source_topic_regex = in.source_topic_regex;
    for (const auto& x : in.state_changelog_topics) s.state_changelog_topics.push_back(info(x));
    s.repartition_sink_topics = in.repartition_sink_topics;
    for (const auto& x : in.repartition_source_topics) {
      s.repartition_source_topics.push_back(info(x));
    }
    for (const auto& g : in.copartition_groups) {
      auto& c = s.copartition_groups.emplace_back();
      c.source_topics = g.source_topics;
      c.source_topic_regex = g.source_topic_regex;
      c.repartition_source_topics = g.repartition_source_topics;
    }
    t.subtopologies[s.subtopology_id] = std::move(s);
  }
  return t;
}

std::string SummarizeTopics(const std::vector<std::string>& topics) {
  if (topics.empty()) return "<none>";
  std::string out;
  for (size_t i = 0; i < topics.size() && i < 3; ++i) {
    if (i > 0) out += ", ";
    out += topics[i];
  }
  if (topics.size() > 3) out += fmt::format(" and {} additional topics", topics.size() - 3);
  return out;
}

Result<ConfiguredStreamsTopology> ConfigureStreamsTopology(const StreamsTopology& topology,
                                                           int64_t metadata_hash,
                                                           const TopicPartitionCounts& topics) {
  ConfiguredStreamsTopology out;
  out.topology_epoch = topology.epoch;
  out.metadata_hash = metadata_hash;
  auto fail = [&](StreamsGroupStatus status, std::string message) {
    out.subtopologies.reset();
    out.internal_topics_to_create.clear();
    out.status = status;
    out.status_detail = std::move(message);
    return out;
  };

  // Copartition groups first, as Kafka computes them before its try block.
  std::vector<std::vector<std::set<std::string>>> copartition_groups;
  for (const auto& [id, s] : topology.subtopologies) {
    Configurer c(topology, topics);
    auto groups = c.CopartitionGroups(s);
    if (!groups.ok()) return groups.status();
    copartition_groups.push_back(std::move(*groups));
  }

  // 1. Missing external source topics (sorted, as Kafka's TreeSet).
  std::set<std::string> missing;
  for (const auto& [id, s] : topology.subtopologies) {
    for (const auto& t : s.source_topics) {
      if (!topics.contains(t)) missing.insert(t);
    }
  }
  if (!missing.empty()) {
    return fail(StreamsGroupStatus::kMissingSourceTopics,
                "Source topics " +
                    SummarizeTopics(std::vector<std::string>(missing.begin(), missing.end())) +
                    " are missing.");
  }

  // 2-4. Partition counts of the internal topics.
  Configurer c(topology, topics);
  SEGLOG_RETURN_IF_ERROR(c.DecideRepartitionTopics());
  std::set<std::string> fixed;
  std::set<std::string> flexible;
  for (const auto& [id, s] : topology.subtopologies) {
    for (const auto& t : s.repartition_source_topics) {
      (t.partitions != 0 ? fixed : flexible).insert(t.name);
    }
  }
  for (const auto& groups : copartition_groups) {
    for (const auto& g : groups) {
      std::optional<StatusFailure> failure;
      SEGLOG_RETURN_IF_ERROR(c.Enforce(g, fixed, flexible, &failure));
      if (failure) return fail(failure->status, std::move(failure->message));
    }
  }
  SEGLOG_RETURN_IF_ERROR(c.DecideChangelogTopics());

  // 5. The subtopologies with their number of tasks.
  std::map<std::string, ConfiguredStreamsSubtopology> configured;
  for (const auto& [id, s] : topology.subtopologies) {
    auto cs = c.Configure(s);
    if (!cs.ok()) return cs.status();
    configured[id] = std::move(*cs);
  }

  // 6. Internal topics to create; existing ones must have the decided partition count.
  std::map<std::string, StreamsInternalTopic> to_create;
  for (const auto& [id, s] : configured) {
    for (const auto& [name, t] : s.repartition_source_topics) to_create[name] = t;
    for (const auto& [name, t] : s.state_changelog_topics) to_create[name] = t;
  }
  for (const auto& t : topology.RequiredTopics()) {
    auto existing = topics.find(t);
    if (existing == topics.end()) continue;
    auto expected = to_create.find(t);
    if (expected == to_create.end()) continue;
    if (existing->second != expected->second.partitions) {
      return fail(StreamsGroupStatus::kIncorrectlyPartitionedTopics,
                  fmt::format("Existing topic {} has different number of partitions: expected "
                              "{}, found {}",
                              t, expected->second.partitions, existing->second));
    }
    to_create.erase(expected);
  }
  out.subtopologies = std::move(configured);
  if (!to_create.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, t] : to_create) names.push_back(name);
    out.status = StreamsGroupStatus::kMissingInternalTopics;
    out.status_detail = "Internal topics are missing: " + SummarizeTopics(names);
  }
  out.internal_topics_to_create = std::move(to_create);
  return out;
}

}  // namespace seglog
