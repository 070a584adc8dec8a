// The admin APIs a single Kafka node answers about replicas, the quorum and producers:
// ElectLeaders, AlterPartitionReassignments, ListPartitionReassignments, DescribeQuorum,
// DescribeProducers, WriteTxnMarkers and ListConfigResources. On one node every partition has
// one replica, this node, which leads it: there is never an election or a reassignment to
// make, and Kafka 4.4.0's controller answers each request with the codes and words below
// (checked against a running 4.4.0 node).
//
// ACLs (Kafka's ControllerApis and KafkaApis), CLUSTER_AUTHORIZATION_FAILED on the cluster:
// ALTER for ElectLeaders, AlterPartitionReassignments, AlterReplicaLogDirs, UnregisterBroker,
// UnregisterController and Add/RemoveRaftVoter; DESCRIBE for ListPartitionReassignments and
// DescribeQuorum; DESCRIBE_CONFIGS for ListConfigResources; ALTER or CLUSTER_ACTION for
// WriteTxnMarkers. DescribeProducers needs READ on each topic (TOPIC_AUTHORIZATION_FAILED).
// Where Kafka throws the failure, its message names Kafka's own request object; seglog's
// answers carry none there (clients then show Errors.message(), "Cluster authorization
// failed.").
#include <fmt/format.h>

#include <map>
#include <set>

#include "io/file_names.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"

namespace seglog {

namespace ke = kafka_error;

namespace {

// The partitions a topic has, or nullopt when there is no such topic.
std::optional<int32_t> PartitionCount(const BrokerContext& ctx, const std::string& topic) {
  Result<TopicMetadata> md = ctx.logs->FindTopic(topic);
  if (!md.ok()) return std::nullopt;
  return md->partitions;
}

constexpr const char* kNotHosted = "This server does not host this topic-partition.";

bool ClusterAlter(const BrokerContext& ctx, const RequestContext& rc) {
  return ClusterAuthorized(ctx, rc, AclOperation::kAlter);
}

}  // namespace

protocol::ElectLeadersResponseData HandleElectLeaders(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::ElectLeadersRequestData& req,
                                                      int16_t version) {
  using Resp = protocol::ElectLeadersResponseData;
  Resp resp;
  if (!ClusterAlter(ctx, rc)) {
    // Kafka's ElectLeadersRequest.getErrorResponse: the error on every partition named.
    if (version >= 1) resp.error_code = ke::kClusterAuthorizationFailed;
    if (req.topic_partitions.has_value()) {
      for (const auto& t : *req.topic_partitions) {
        auto& result = resp.replica_election_results.emplace_back();
        result.topic = t.topic;
        for (int32_t p : t.partitions) {
          auto& pr = result.partition_result.emplace_back();
          pr.partition_id = p;
          pr.error_code = ke::kClusterAuthorizationFailed;
          pr.error_message = std::nullopt;
        }
      }
    }
    return resp;
  }
  // v0 has no election type: preferred. 0 is preferred, 1 unclean.
  const int8_t type = version >= 1 ? req.election_type : 0;
  if (!req.topic_partitions.has_value()) {
    // Every topic, internal ones too; a partition whose election is not needed is left out.
    for (const std::string& topic : ctx.logs->ListTopics()) {
      resp.replica_election_results.emplace_back().topic = topic;
    }
    return resp;
  }
  const bool bad_type = type != 0 && type != 1;
  if (bad_type) resp.error_code = ke::kInvalidRequest;
  for (const auto& t : *req.topic_partitions) {
    auto& result = resp.replica_election_results.emplace_back();
    result.topic = t.topic;
    const std::optional<int32_t> count = PartitionCount(ctx, t.topic);
    for (int32_t p : t.partitions) {
      auto& pr = result.partition_result.emplace_back();
      pr.partition_id = p;
      if (bad_type) {
        pr.error_code = ke::kInvalidRequest;
        pr.error_message = fmt::format("Unknown election type {}", type);
      } else if (!count.has_value()) {
        pr.error_code = ke::kUnknownTopicOrPartition;
        pr.error_message = "No such topic as " + t.topic;
      } else if (p < 0 || p >= *count) {
        pr.error_code = ke::kUnknownTopicOrPartition;
        pr.error_message = fmt::format("No such partition as {}-{}", t.topic, p);
      } else {
        // The only replica already leads: Errors.ELECTION_NOT_NEEDED's own words.
        pr.error_code = ke::kElectionNotNeeded;
        pr.error_message = "Leader election not needed for topic partition.";
      }
    }
  }
  return resp;
}

protocol::AlterPartitionReassignmentsResponseData HandleAlterPartitionReassignments(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterPartitionReassignmentsRequestData& req, int16_t version) {
  protocol::AlterPartitionReassignmentsResponseData resp;
  if (version >= 1) resp.allow_replication_factor_change = req.allow_replication_factor_change;
  if (!ClusterAlter(ctx, rc)) {
    // The error at the top and on every partition named.
    resp.error_code = ke::kClusterAuthorizationFailed;
    resp.error_message = std::nullopt;
    for (const auto& t : req.topics) {
      auto& tr = resp.responses.emplace_back();
      tr.name = t.name;
      for (const auto& p : t.partitions) {
        auto& pr = tr.partitions.emplace_back();
        pr.partition_index = p.partition_index;
        pr.error_code = ke::kClusterAuthorizationFailed;
        pr.error_message = std::nullopt;
      }
    }
    return resp;
  }
  // An empty request is answered untouched (an empty message); otherwise the message is null.
  if (req.topics.empty()) return resp;
  resp.error_message = std::nullopt;
  for (const auto& t : req.topics) {
    auto& tr = resp.responses.emplace_back();
    tr.name = t.name;
    const std::optional<int32_t> count = PartitionCount(ctx, t.name);
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.error_message = std::nullopt;
      if (!count.has_value()) {
        pr.error_code = ke::kUnknownTopicOrPartition;
        pr.error_message = fmt::format("Unable to find a topic named {}.", t.name);
        continue;
      }
      if (p.partition_index < 0 || p.partition_index >= *count) {
        pr.error_code = ke::kUnknownTopicOrPartition;
        pr.error_message =
            fmt::format("Unable to find partition {}:{}.", t.name, p.partition_index);
        continue;
      }
      if (!p.replicas.has_value()) {
        pr.error_code = ke::kNoReassignmentInProgress;  // a cancel, with nothing to cancel
        continue;
      }
      if (p.replicas->empty()) {
        pr.error_code = ke::kInvalidReplicaAssignment;
        pr.error_message = "The manual partition assignment includes an empty replica list.";
        continue;
      }
      std::set<int32_t> seen;
      for (int32_t broker : *p.replicas) {
        if (broker != ctx.node_id) {
          pr.error_code = ke::kInvalidReplicaAssignment;
          pr.error_message = fmt::format(
              "The manual partition assignment includes broker {}, but no such broker is "
              "registered.",
              broker);
          break;
        }
        if (!seen.insert(broker).second) {
          pr.error_code = ke::kInvalidReplicaAssignment;
          pr.error_message = fmt::format(
              "The manual partition assignment includes the broker {} more than once.", broker);
          break;
        }
      }
      // Otherwise the target is the current assignment ([this node]): nothing to move.
    }
  }
  return resp;
}

protocol::ListPartitionReassignmentsResponseData HandleListPartitionReassignments(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ListPartitionReassignmentsRequestData& req, int16_t version) {
  (void)version;
  protocol::ListPartitionReassignmentsResponseData resp;
  resp.error_message = std::nullopt;
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribe)) {
    // The error at the top, and the partitions named without replicas.
    resp.error_code = ke::kClusterAuthorizationFailed;
    if (req.topics.has_value()) {
      for (const auto& t : *req.topics) {
        auto& tr = resp.topics.emplace_back();
        tr.name = t.name;
        for (int32_t p : t.partition_indexes) tr.partitions.emplace_back().partition_index = p;
      }
    }
    return resp;
  }
  // No reassignment is ever in progress; unknown topics are skipped, as Kafka does.
  return resp;
}

protocol::DescribeQuorumResponseData HandleDescribeQuorum(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeQuorumRequestData& req, int16_t version) {
  protocol::DescribeQuorumResponseData resp;
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribe)) {
    // Kafka's top-level error answer, with Errors.message().
    resp.error_code = ke::kClusterAuthorizationFailed;
    if (version >= 2) resp.error_message = AuthorizationErrorMessage(resp.error_code);
    return resp;
  }
  const bool valid = req.topics.size() == 1 && req.topics[0].topic_name == "__cluster_metadata" &&
                     req.topics[0].partitions.size() == 1 &&
                     req.topics[0].partitions[0].partition_index == 0;
  if (!valid) {
    // Kafka's partition-level error answer: every requested partition, with nothing known.
    for (const auto& t : req.topics) {
      auto& tr = resp.topics.emplace_back();
      tr.topic_name = t.topic_name;
      for (const auto& p : t.partitions) {
        auto& pr = tr.partitions.emplace_back();
        pr.partition_index = p.partition_index;
        pr.error_code = ke::kUnknownTopicOrPartition;
        if (version >= 2) pr.error_message = kNotHosted;
      }
    }
    return resp;
  }
  // One voter, this node, leading epoch 1. seglog keeps no metadata log yet (its topics are
  // in seglog-topics.json), so the log's offsets are those of an empty log: 0.
  const int64_t now = ctx.NowMs();
  auto& tr = resp.topics.emplace_back();
  tr.topic_name = "__cluster_metadata";
  auto& pr = tr.partitions.emplace_back();
  pr.partition_index = 0;
  pr.leader_id = ctx.node_id;
  pr.leader_epoch = 1;
  pr.high_watermark = 0;
  auto& voter = pr.current_voters.emplace_back();
  voter.replica_id = ctx.node_id;
  voter.log_end_offset = 0;
  if (version >= 1) {
    voter.last_fetch_timestamp = now;
    voter.last_caught_up_timestamp = now;
  }
  if (version >= 2) {
    auto& node = resp.nodes.emplace_back();
    node.node_id = ctx.node_id;
    auto& l = node.listeners.emplace_back();
    l.name = ctx.listener_name;
    l.host = ctx.advertised_host;
    l.port = static_cast<uint16_t>(ctx.advertised_port->load());
  }
  return resp;
}

protocol::DescribeProducersResponseData HandleDescribeProducers(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::DescribeProducersRequestData& req, int16_t version) {
  (void)version;
  protocol::DescribeProducersResponseData resp;
  for (const auto& t : req.topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    Status valid = ValidateTopicNameForClient(t.name);
    // READ on the topic, after its name is checked and before whether it exists.
    const bool may_read =
        valid.ok() && Authorized(ctx, rc, AclOperation::kRead, ResourceType::kTopic, t.name);
    const std::optional<int32_t> count =
        may_read ? PartitionCount(ctx, t.name) : std::optional<int32_t>();
    for (int32_t p : t.partition_indexes) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p;
      if (!valid.ok()) {
        pr.error_code = ke::kInvalidTopic;
        pr.error_message = kafka_error::MessageOf(valid);
        continue;
      }
      if (!may_read) {
        pr.error_code = ke::kTopicAuthorizationFailed;
        pr.error_message = AuthorizationErrorMessage(pr.error_code);
        continue;
      }
      if (!count.has_value()) {
        pr.error_code = ke::kUnknownTopicOrPartition;
        pr.error_message = kNotHosted;
        continue;
      }
      Result<std::shared_ptr<Log>> log = ctx.logs->GetLog(TopicPartition{t.name, p});
      if (!log.ok()) {
        pr.error_code = ke::kUnknownTopicOrPartition;  // no such partition: no message
        continue;
      }
      for (const ActiveProducer& a : (*log)->active_producers()) {
        auto& s = pr.active_producers.emplace_back();
        s.producer_id = a.producer_id;
        s.producer_epoch = a.producer_epoch;
        s.last_sequence = a.last_sequence;
        s.last_timestamp = a.last_timestamp;
        s.coordinator_epoch = a.coordinator_epoch;
        s.current_txn_start_offset = a.current_txn_first_offset;
      }
    }
  }
  return resp;
}

protocol::WriteTxnMarkersResponseData HandleWriteTxnMarkers(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::WriteTxnMarkersRequestData& req, int16_t version,
    const TransactionCoordinator::MarkerWriter& write) {
  (void)version;
  protocol::WriteTxnMarkersResponseData resp;
  // Markers come from a transaction coordinator (CLUSTER_ACTION) or an admin (ALTER); anyone
  // else's fail on every partition, and nothing is written.
  const bool allowed =
      ClusterAlter(ctx, rc) || ClusterAuthorized(ctx, rc, AclOperation::kClusterAction);
  // One result per producer id, as Kafka groups them.
  std::map<int64_t, size_t> by_producer;
  const int64_t now = ctx.NowMs();
  for (const auto& m : req.markers) {
    auto [it, added] = by_producer.emplace(m.producer_id, resp.markers.size());
    if (added) resp.markers.emplace_back().producer_id = m.producer_id;
    auto& result = resp.markers[it->second];
    for (const auto& t : m.topics) {
      auto& tr = result.topics.emplace_back();
      tr.name = t.name;
      for (int32_t p : t.partition_indexes) {
        auto& pr = tr.partitions.emplace_back();
        pr.partition_index = p;
        pr.error_code = allowed ? write(TopicPartition{t.name, p}, m.producer_id, m.producer_epoch,
                                        m.coordinator_epoch, m.transaction_result, now)
                                : ke::kClusterAuthorizationFailed;
      }
    }
  }
  return resp;
}

protocol::ListConfigResourcesResponseData HandleListConfigResources(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::ListConfigResourcesRequestData& req, int16_t version) {
  constexpr int8_t kTopic = 2, kBroker = 4, kBrokerLogger = 8, kClientMetrics = 16, kGroup = 32;
  protocol::ListConfigResourcesResponseData resp;
  if (!ClusterAuthorized(ctx, rc, AclOperation::kDescribeConfigs)) {
    resp.error_code = ke::kClusterAuthorizationFailed;
    return resp;
  }
  // v0 was ListClientMetricsResources: client metrics only.
  const std::set<int8_t> supported =
      version >= 1 ? std::set<int8_t>{kTopic, kBroker, kBrokerLogger, kClientMetrics, kGroup}
                   : std::set<int8_t>{kClientMetrics};
  std::set<int8_t> wanted(req.resource_types.begin(), req.resource_types.end());
  if (wanted.empty()) wanted = supported;
  for (int8_t type : wanted) {
    if (!supported.count(type)) {
      resp.error_code = ke::kUnsupportedVersion;
      return resp;
    }
  }
  // Kafka's order: groups with configs, client metrics subscriptions,
  // this node's loggers, this node, then every topic.
  auto add = [&](int8_t type, const std::string& name) {
    if (!wanted.count(type)) return;
    auto& r = resp.config_resources.emplace_back();
    r.resource_name = name;
    r.resource_type = type;
  };
  if (ctx.logs->metadata() != nullptr) {
    for (const auto& [name, configs] : ctx.logs->metadata()->AllGroupConfigs()) {
      add(kGroup, name);
    }
    for (const auto& [name, configs] : ctx.logs->metadata()->ClientMetricsConfigs()) {
      add(kClientMetrics, name);
    }
  }
  add(kBrokerLogger, std::to_string(ctx.node_id));
  add(kBroker, std::to_string(ctx.node_id));
  for (const std::string& topic : ctx.logs->ListTopics()) add(kTopic, topic);
  return resp;
}

}  // namespace seglog

// ---- The cluster's membership: one node, registered for as long as it runs ----

namespace seglog {

namespace {
constexpr int16_t kBrokerIdNotRegistered = 102;
constexpr int16_t kInconsistentClusterId = 104;
constexpr int16_t kControllerIdNotRegistered = 136;

// AddRaftVoter's and RemoveRaftVoter's checks before the quorum is asked: the cluster id, if
// given, is this one; the voter has an id and a directory id.
template <typename Response>
bool CheckVoterRequest(const BrokerContext& ctx, const std::optional<std::string>& cluster_id,
                       int32_t voter_id, const Uuid& directory_id, const char* verb,
                       Response* resp) {
  if (cluster_id.has_value() && *cluster_id != ctx.cluster_id) {
    resp->error_code = kInconsistentClusterId;
    resp->error_message = fmt::format("The given id \"{}\" doesn't match the cluster id \"{}\"",
                                      *cluster_id, ctx.cluster_id);
    return false;
  }
  if (voter_id < 0 || directory_id == Uuid{}) {
    resp->error_code = ke::kInvalidRequest;
    resp->error_message = fmt::format("{} voter request didn't include a valid voter", verb);
    return false;
  }
  return true;
}
}  // namespace

protocol::UnregisterBrokerResponseData HandleUnregisterBroker(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::UnregisterBrokerRequestData& req, int16_t version) {
  (void)version;
  protocol::UnregisterBrokerResponseData resp;
  if (!ClusterAlter(ctx, rc)) {
    resp.error_code = ke::kClusterAuthorizationFailed;
    resp.error_message = std::nullopt;
    return resp;
  }
  if (req.broker_id != ctx.node_id) {
    resp.error_code = kBrokerIdNotRegistered;
    resp.error_message = fmt::format("Broker ID {} is not currently registered", req.broker_id);
    return resp;
  }
  // Kafka's controller drops the registration (its broker registers again when it restarts);
  // here the node is its own controller and goes on serving, so nothing changes.
  ctx.logger.Info(
      fmt::format("UnregisterBroker for this node ({}): a single node stays registered while "
                  "it runs",
                  ctx.node_id));
  return resp;
}

protocol::UnregisterControllerResponseData HandleUnregisterController(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::UnregisterControllerRequestData& req, int16_t version) {
  (void)version;
  protocol::UnregisterControllerResponseData resp;
  if (!ClusterAlter(ctx, rc)) {
    resp.error_code = ke::kClusterAuthorizationFailed;
    resp.error_message = std::nullopt;
    return resp;
  }
  if (req.controller_id == ctx.node_id) {
    resp.error_code = ke::kInvalidRequest;
    resp.error_message = "Controller cannot unregister itself while it is active.";
  } else {
    resp.error_code = kControllerIdNotRegistered;
    resp.error_message =
        fmt::format("Controller ID {} is not currently registered.", req.controller_id);
  }
  return resp;
}

protocol::AddRaftVoterResponseData HandleAddRaftVoter(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::AddRaftVoterRequestData& req,
                                                      int16_t version) {
  (void)version;
  protocol::AddRaftVoterResponseData resp;
  if (!ClusterAlter(ctx, rc)) {  // Kafka's error answer: Errors.message()
    resp.error_code = ke::kClusterAuthorizationFailed;
    resp.error_message = AuthorizationErrorMessage(resp.error_code);
    return resp;
  }
  if (!CheckVoterRequest(ctx, req.cluster_id, req.voter_id, req.voter_directory_id, "Add", &resp)) {
    return resp;
  }
  // The voters are static (kraft.version 0), as in a Kafka node formatted without
  // --standalone: they cannot change.
  resp.error_code = ke::kUnsupportedVersion;
  resp.error_message =
      "Cluster doesn't support adding voter because the kraft.version feature is 0";
  return resp;
}

protocol::RemoveRaftVoterResponseData HandleRemoveRaftVoter(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::RemoveRaftVoterRequestData& req, int16_t version) {
  (void)version;
  protocol::RemoveRaftVoterResponseData resp;
  if (!ClusterAlter(ctx, rc)) {  // Kafka's error answer: Errors.message()
    resp.error_code = ke::kClusterAuthorizationFailed;
    resp.error_message = AuthorizationErrorMessage(resp.error_code);
    return resp;
  }
  if (!CheckVoterRequest(ctx, req.cluster_id, req.voter_id, req.voter_directory_id, "Remove",
                         &resp)) {
    return resp;
  }
  resp.error_code = ke::kUnsupportedVersion;
  resp.error_message =
      "Cluster doesn't support removing voter because the kraft.version feature is 0";
  return resp;
}

}  // namespace seglog

namespace seglog {

protocol::AlterReplicaLogDirsResponseData HandleAlterReplicaLogDirs(
    const BrokerContext& ctx, const RequestContext& rc,
    const protocol::AlterReplicaLogDirsRequestData& req, int16_t version) {
  (void)version;
  // ALTER on the cluster, else every partition fails and nothing moves.
  const bool allowed = ClusterAlter(ctx, rc);
  // Kafka flattens the request into partition -> path (a partition listed twice keeps its last
  // path), then answers by topic.
  std::map<TopicPartition, std::string, TopicPartitionLess> moves;
  for (const auto& d : req.dirs) {
    for (const auto& t : d.topics) {
      for (int32_t p : t.partitions) moves[TopicPartition{t.name, p}] = d.path;
    }
  }
  protocol::AlterReplicaLogDirsResponseData resp;
  std::map<std::string, size_t> topic_index;
  for (const auto& [tp, path] : moves) {
    auto [it, added] = topic_index.emplace(tp.topic, resp.results.size());
    if (added) resp.results.emplace_back().topic_name = tp.topic;
    auto& pr = resp.results[it->second].partitions.emplace_back();
    pr.partition_index = tp.partition;
    if (!allowed) {
      pr.error_code = ke::kClusterAuthorizationFailed;
      continue;
    }
    // Kafka's length check of the future directory's name (<topic>-<p>.<32 hex>-future).
    if (PartitionDirName(tp).size() + 40 > 255) {
      pr.error_code = ke::kInvalidTopic;
      continue;
    }
    pr.error_code = ctx.logs->AlterReplicaLogDir(tp, path);
  }
  return resp;
}

}  // namespace seglog
