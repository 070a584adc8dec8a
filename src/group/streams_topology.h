// The topology of a streams group (KIP-1071) and its validation against the topic metadata,
// as Kafka 4.4.0's group coordinator does it (streams/StreamsTopology,
// streams/topics/InternalTopicManager, RepartitionTopics, CopartitionedTopicsEnforcer,
// ChangelogTopics, ConfiguredSubtopology, ConfiguredTopology).
//
// A topology is a set of subtopologies, each reading external source topics (by name; source
// topic regular expressions are kept but, as in 4.4.0's coordinator, not resolved) and
// repartition source topics, writing repartition sink topics, and keeping state in changelog
// topics. Its validation, ConfigureStreamsTopology, is a pure function of the topology and a
// topic-metadata snapshot (name -> partition count):
//
//   1. every external source topic exists, else status MISSING_SOURCE_TOPICS
//      ("Source topics a, b are missing.");
//   2. repartition topics: the ones with a partition count in the topology keep it; the others
//      take, by a fix-point iteration, the largest partition count of the sources of the
//      subtopology that writes them (STREAMS_INVALID_TOPOLOGY when there is a loop or a
//      repartition source topic nobody writes);
//   3. copartition groups: external topics of a group must have the same partition count and
//      repartition topics are coerced to it (status INCORRECTLY_PARTITIONED_TOPICS otherwise);
//   4. changelog topics get the largest partition count of their subtopology's sources;
//   5. each subtopology has max(partition counts of its sources) tasks;
//   6. internal topics that do not exist are returned to be created (status
//      MISSING_INTERNAL_TOPICS); an existing one with another partition count is
//      INCORRECTLY_PARTITIONED_TOPICS.
//
// Thread safety: pure functions and value types.
#ifndef SEGLOG_GROUP_STREAMS_TOPOLOGY_H_
#define SEGLOG_GROUP_STREAMS_TOPOLOGY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/generated/streams_group_heartbeat_request.h"
#include "protocol/generated/streams_group_topology_value.h"
#include "seglog/result.h"

namespace seglog {

// Kafka's error codes of the streams protocol (Errors.java).
inline constexpr int16_t kStreamsInvalidTopologyCode = 130;
inline constexpr int16_t kStreamsInvalidTopologyEpochCode = 131;
inline constexpr int16_t kStreamsTopologyFencedCode = 132;

// StreamsGroupHeartbeatResponse.Status codes.
enum class StreamsGroupStatus : int8_t {
  kStaleTopology = 0,
  kMissingSourceTopics = 1,
  kIncorrectlyPartitionedTopics = 2,
  kMissingInternalTopics = 3,
  kShutdownApplication = 4,
  kAssignmentDelayed = 5,
  kMissingClientTags = 6,  // v1 only
};

// Kafka's StreamsTopology: the epoch and the subtopologies by id, as record 23 stores them.
struct StreamsTopology {
  using Subtopology = protocol::StreamsGroupTopologyValue::Subtopology;
  int32_t epoch = 0;
  std::map<std::string, Subtopology> subtopologies;

  // Every topic the topology names: source, repartition source and changelog topics.
  std::set<std::string> RequiredTopics() const;
  // Record 23's value (subtopologies in id order).
  protocol::StreamsGroupTopologyValue ToRecord() const;
  static StreamsTopology FromRecord(const protocol::StreamsGroupTopologyValue& value);
  static StreamsTopology FromHeartbeat(
      const protocol::streams_group_heartbeat_request_data::Topology& topology);
  bool operator==(const StreamsTopology&) const = default;
};

// An internal topic to create (Kafka's CreatableTopic of InternalTopicManager.toCreatableTopic):
// replication factor -1 when the topology does not set one (the broker's default).
struct StreamsInternalTopic {
  std::string name;
  int32_t partitions = 0;
  int16_t replication_factor = -1;
  std::map<std::string, std::string> configs;
  bool operator==(const StreamsInternalTopic&) const = default;
};

// Kafka's ConfiguredSubtopology.
struct ConfiguredStreamsSubtopology {
  int32_t number_of_tasks = 0;
  std::set<std::string> source_topics;
  std::map<std::string, StreamsInternalTopic> repartition_source_topics;
  std::set<std::string> repartition_sink_topics;
  std::map<std::string, StreamsInternalTopic> state_changelog_topics;
  bool stateful() const { return !state_changelog_topics.empty(); }
  bool operator==(const ConfiguredStreamsSubtopology&) const = default;
};

// Kafka's ConfiguredTopology: ready when `status` is nullopt.
struct ConfiguredStreamsTopology {
  int32_t topology_epoch = 0;
  int64_t metadata_hash = 0;
  // Set unless the validation failed before the partition counts were known.
  std::optional<std::map<std::string, ConfiguredStreamsSubtopology>> subtopologies;
  std::map<std::string, StreamsInternalTopic> internal_topics_to_create;
  std::optional<StreamsGroupStatus> status;
  std::string status_detail;  // Kafka's message for `status`

  bool ready() const { return !status.has_value(); }
  bool operator==(const ConfiguredStreamsTopology&) const = default;
};

// name -> partition count of the topics that exist.
using TopicPartitionCounts = std::map<std::string, int32_t>;

// Validates `topology` against `topics` (see the file comment). Failures:
// InvalidArgument(<Kafka's message>) for STREAMS_INVALID_TOPOLOGY (130), which Kafka answers
// as the heartbeat's error; FailedPrecondition(<message>) where Kafka throws
// IllegalStateException (UNKNOWN_SERVER_ERROR). Statuses are not failures: they are in the
// result.
Result<ConfiguredStreamsTopology> ConfigureStreamsTopology(const StreamsTopology& topology,
                                                           int64_t metadata_hash,
                                                           const TopicPartitionCounts& topics);

// Kafka's InternalTopicManager.summarizeTopics: the first three names joined by ", ", then
// " and N additional topics"; "<none>" for none.
std::string SummarizeTopics(const std::vector<std::string>& topics);

}  // namespace seglog

#endif  // SEGLOG_GROUP_STREAMS_TOPOLOGY_H_
