// Metadata, CreateTopics and DeleteTopics: the topics a client sees and manages.
//
// ACLs (Kafka's KafkaApis.handleTopicMetadataRequest and ControllerApis):
// - Metadata shows a topic only to a client that may DESCRIBE it: one asking for every topic is
//   not told of the others; one naming it gets TOPIC_AUTHORIZATION_FAILED (its name and a zero
//   id, or by id the id and a null name). Auto-creation needs CREATE on the cluster or on the
//   topic. authorized_operations, when asked for, are the client's.
// - CreateTopics needs CREATE on the cluster or on each topic ("Authorization failed."); the
//   created topic's configs, partitions and replication factor are returned only with
//   DESCRIBE_CONFIGS on it.
// - DeleteTopics needs DELETE on the cluster, or DESCRIBE and DELETE on each topic; a topic
//   the client may not describe is not told to exist.
#include <fmt/format.h>

#include <set>

#include "group/group_coordinator.h"
#include "protocol/kafka_error.h"
#include "server/authorization.h"
#include "server/handlers.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

namespace {

// Kafka's Topic.validate (its words).
constexpr size_t kMaxTopicNameLength = 249;

Uuid TopicIdOf(const TopicMetadata& md) {
  Result<Uuid> id = Uuid::Parse(md.topic_id);
  return id.ok() ? id.value() : Uuid{};
}

void FillTopic(const BrokerContext& ctx, const std::string& name, const TopicMetadata& md,
               protocol::MetadataResponseData::MetadataResponseTopic* t) {
  t->error_code = kafka_error::kNone;
  t->name = name;
  t->topic_id = TopicIdOf(md);
  t->is_internal = IsInternalTopic(name);
  for (int32_t p = 0; p < md.partitions; ++p) {
    auto& part = t->partitions.emplace_back();
    part.partition_index = p;
    part.leader_id = ctx.node_id;
    // The epoch of the metadata log's PartitionRecord, which the log appends with.
    Result<std::shared_ptr<Log>> log = ctx.logs->GetLog({name, p});
    part.leader_epoch = log.ok() ? log.value()->leader_epoch() : 0;
    part.replica_nodes = {ctx.node_id};
    part.isr_nodes = {ctx.node_id};
  }
}

}  // namespace

bool IsInternalTopic(const std::string& name) {
  return name == "__consumer_offsets" || name == "__transaction_state" ||
         name == "__share_group_state";
}

Status ValidateTopicNameForClient(const std::string& name) {
  if (name.empty()) return Status::InvalidArgument("Topic name is illegal, it can't be empty");
  if (name == "." || name == "..") {
    return Status::InvalidArgument("Topic name cannot be \".\" or \"..\"");
  }
  if (name.size() > kMaxTopicNameLength) {
    return Status::InvalidArgument(
        fmt::format("Topic name is illegal, it can't be longer than {} characters, topic name: {}",
                    kMaxTopicNameLength, name));
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::InvalidArgument(fmt::format(
          "Topic name {} is illegal, it contains a character other than ASCII alphanumerics, "
          "'.', '_' and '-'",
          name));
    }
  }
  return Status::OK();
}

std::optional<std::string> TopicNameForId(const BrokerContext& ctx, const Uuid& id) {
  if (id.IsZero()) return std::nullopt;
  return ctx.logs->TopicNameForId(id.ToString());
}

AdvertisedEndpoint EndpointFor(const BrokerContext& ctx, std::string_view listener) {
  if (auto it = ctx.other_listeners.find(std::string(listener)); it != ctx.other_listeners.end()) {
    return AdvertisedEndpoint{it->second.host, it->second.port->load()};
  }
  return AdvertisedEndpoint{ctx.advertised_host, ctx.advertised_port->load()};
}

protocol::MetadataResponseData HandleMetadata(const BrokerContext& ctx, const RequestContext& rc,
                                              const protocol::MetadataRequestData& req,
                                              int16_t version) {
  protocol::MetadataResponseData resp;
  auto& broker = resp.brokers.emplace_back();
  broker.node_id = ctx.node_id;
  const AdvertisedEndpoint endpoint = EndpointFor(ctx, rc.listener);
  broker.host = endpoint.host;
  broker.port = endpoint.port;
  resp.cluster_id = ctx.cluster_id;
  resp.controller_id = ctx.node_id;
  if (version >= 8 && version <= 10 && req.include_cluster_authorized_operations) {
    // 0 for a client that may not describe the cluster.
    resp.cluster_authorized_operations =
        ClusterAuthorized(ctx, rc, AclOperation::kDescribe)
            ? AuthorizedOperations(ctx, rc, ResourceType::kCluster, kClusterResourceName)
            : 0;
  }
  const bool include_ops = version >= 8 && req.include_topic_authorized_operations;
  auto set_operations = [&](const std::string& name,
                            protocol::MetadataResponseData::MetadataResponseTopic* t) {
    if (include_ops) {
      t->topic_authorized_operations = AuthorizedOperations(ctx, rc, ResourceType::kTopic, name);
    }
  };
  auto may_describe = [&](const std::string& name) {
    return Authorized(ctx, rc, AclOperation::kDescribe, ResourceType::kTopic, name);
  };
  // All topics: null topics (v1+), or an empty list at v0. Those the client may not describe
  // are left out.
  const bool all = !req.topics.has_value() || (version == 0 && req.topics->empty());
  if (all) {
    for (const auto& [name, md] : ctx.logs->AllTopicMetadata()) {
      if (!may_describe(name)) continue;
      auto& t = resp.topics.emplace_back();
      FillTopic(ctx, name, md, &t);
      set_operations(name, &t);
    }
    return resp;
  }
  // Before v4 there is no allow_auto_topic_creation: creation follows the broker's setting.
  const bool may_create = ctx.auto_create_topics && (version < 4 || req.allow_auto_topic_creation);
  // CREATE on the cluster, asked once and only when a topic is to be created.
  std::optional<bool> cluster_create;
  resp.topics.reserve(req.topics->size());
  std::vector<std::pair<size_t, std::string>> named;  // response slot, topic name
  std::vector<LogManager::NewTopic> auto_create;
  std::set<std::string> auto_named;
  for (const auto& want : *req.topics) {
    auto& t = resp.topics.emplace_back();
    std::string name;
    if (!want.topic_id.IsZero() && version < 12) {
      // Kafka: "Topic IDs are not supported in requests for version 10/11" (INVALID_REQUEST);
      // its response cannot carry a null name either.
      t.error_code = kafka_error::kInvalidRequest;
      t.name = want.name.value_or("");
      t.topic_id = want.topic_id;
      continue;
    }
    if (want.topic_id.IsZero()) {
      name = want.name.value_or("");
    } else {
      // v10+: by topic id, whatever the name says (Java clients send "" with it, as Kafka's
      // KafkaApis takes every non-zero id as a lookup by id).
      std::optional<std::string> found = TopicNameForId(ctx, want.topic_id);
      if (!found) {
        t.error_code = kafka_error::kUnknownTopicId;
        t.name = std::nullopt;
        t.topic_id = want.topic_id;
        continue;
      }
      name = *found;
    }
    if (!may_describe(name)) {
      // Not told whether it exists; by id, the id but not the name.
      t.error_code = kafka_error::kTopicAuthorizationFailed;
      t.name = want.topic_id.IsZero() ? std::optional<std::string>(name) : std::nullopt;
      t.topic_id = want.topic_id;
      t.is_internal = false;
      continue;
    }
    if (!ctx.logs->FindTopic(name).ok() && may_create) {
      if (!cluster_create) cluster_create = ClusterAuthorized(ctx, rc, AclOperation::kCreate);
      if (!*cluster_create &&
          !Authorized(ctx, rc, AclOperation::kCreate, ResourceType::kTopic, name)) {
        t.error_code = kafka_error::kTopicAuthorizationFailed;
        t.name = name;
        t.topic_id = Uuid{};
        t.is_internal = IsInternalTopic(name);
        continue;
      }
      if (!ValidateTopicNameForClient(name).ok()) {
        t.error_code = kafka_error::kInvalidTopic;
        t.name = name;
        set_operations(name, &t);
        continue;
      }
      if (IsInternalTopic(name)) {
        // Kafka's AutoTopicCreationManager makes an internal topic as its coordinator would
        // (offsets.topic.num.partitions, compacted ...), never as an ordinary topic.
        Status made = Status::NotFound("no coordinator keeps " + name);
        if (name == "__consumer_offsets" && ctx.groups != nullptr) {
          made = ctx.groups->EnsureOffsetsTopic();
        } else if (name == "__transaction_state" && ctx.txns != nullptr) {
          made = ctx.txns->EnsureStateTopic();
        }
        if (!made.ok()) {
          ctx.logger.Info(
              fmt::format("Auto-creation of internal topic {} failed: {}", name, made.ToString()));
        }
        named.emplace_back(resp.topics.size() - 1, std::move(name));
        continue;
      }
      if (auto_named.insert(name).second) {
        auto_create.push_back(LogManager::NewTopic{name, ctx.num_partitions, {}});
      }
    }
    named.emplace_back(resp.topics.size() - 1, std::move(name));
  }
  // The topics to auto-create, in one metadata append and fsync.
  const std::vector<Status> created = ctx.logs->CreateTopics(auto_create);
  for (size_t k = 0; k < auto_create.size(); ++k) {
    const Status& s = created[k];
    if (s.ok()) {
      ctx.logger.Info(fmt::format("Auto-created topic {} with {} partition(s)", auto_create[k].name,
                                  ctx.num_partitions));
    } else if (s.code() != Status::Code::kAlreadyExists) {  // another client may have just made it
      ctx.logger.Info(
          fmt::format("Auto-creation of topic {} failed: {}", auto_create[k].name, s.ToString()));
    }
  }
  for (const auto& [slot, name] : named) {
    auto& t = resp.topics[slot];
    Result<TopicMetadata> md = ctx.logs->FindTopic(name);
    if (!md.ok()) {
      t.error_code = kafka_error::kUnknownTopicOrPartition;
      t.name = name;
      set_operations(name, &t);
      continue;
    }
    FillTopic(ctx, name, md.value(), &t);
    set_operations(name, &t);
  }
  return resp;
}

protocol::CreateTopicsResponseData HandleCreateTopics(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::CreateTopicsRequestData& req,
                                                      int16_t version,
                                                      ControllerMutationQuota* mutations) {
  protocol::CreateTopicsResponseData resp;
  // CREATE on the cluster allows every topic; without it, each needs CREATE on itself.
  const bool cluster_create = ClusterAuthorized(ctx, rc, AclOperation::kCreate);
  std::set<std::string> seen, duplicates;
  for (const auto& t : req.topics) {
    if (!seen.insert(t.name).second) duplicates.insert(t.name);
  }
  // Kafka's ReplicationControlManager.validateTotalNumberOfPartitions, before anything is
  // made: the partitions the request's topics ask for (the default count for -1, the
  // assignments' count when given), over the topics that are neither duplicated nor refused
  // for want of CREATE. Past the limit every topic fails, as the whole request does in Kafka.
  int64_t total_partitions = 0;
  for (const auto& t : req.topics) {
    if (duplicates.count(t.name) ||
        (!cluster_create &&
         !Authorized(ctx, rc, AclOperation::kCreate, ResourceType::kTopic, t.name))) {
      continue;
    }
    if (!t.assignments.empty()) {
      total_partitions += static_cast<int64_t>(t.assignments.size());
    } else if (t.num_partitions == -1) {
      total_partitions += ctx.num_partitions;
    } else if (t.num_partitions > 0) {
      total_partitions += t.num_partitions;
    }
  }
  if (total_partitions > kMaxPartitionsPerRequest) {
    for (const auto& t : req.topics) {
      auto& r = resp.topics.emplace_back();
      r.name = t.name;
      r.error_code = kafka_error::kPolicyViolation;
      r.error_message =
          version >= 1
              ? std::optional<std::string>("Excessively large number of partitions per request.")
              : std::nullopt;
    }
    ctx.logger.Info(fmt::format("Refused a CreateTopics request for {} partitions (more than {})",
                                total_partitions, kMaxPartitionsPerRequest));
    return resp;
  }
  resp.topics.reserve(req.topics.size());
  std::vector<LogManager::NewTopic> to_create;
  std::vector<size_t> slots;  // to_create[k]'s response is resp.topics[slots[k]]
  for (const auto& t : req.topics) {
    auto& r = resp.topics.emplace_back();
    r.name = t.name;
    auto fail = [&](int16_t code, std::string message) {
      r.error_code = code;
      r.error_message =
          version >= 1 ? std::optional<std::string>(std::move(message)) : std::nullopt;
    };
    r.error_message = std::nullopt;
    if (duplicates.count(t.name)) {
      fail(kafka_error::kInvalidRequest, "Duplicate topic name.");
      continue;
    }
    if (!cluster_create &&
        !Authorized(ctx, rc, AclOperation::kCreate, ResourceType::kTopic, t.name)) {
      fail(kafka_error::kTopicAuthorizationFailed, "Authorization failed.");
      continue;
    }
    if (Status s = ValidateTopicNameForClient(t.name); !s.ok()) {
      fail(kafka_error::kInvalidTopic, std::string(s.message()));
      continue;
    }
    int32_t partitions = t.num_partitions;
    int16_t replication = t.replication_factor;
    if (!t.assignments.empty()) {
      if (partitions != -1 || replication != -1) {
        fail(kafka_error::kInvalidRequest,
             "Both numPartitions or replicationFactor and replicasAssignments were set. Both "
             "cannot be used at the same time.");
        continue;
      }
      bool ok = true;
      for (const auto& a : t.assignments) {
        if (a.broker_ids.size() != 1 || a.broker_ids[0] != ctx.node_id) ok = false;
      }
      if (!ok) {
        fail(kafka_error::kInvalidReplicaAssignment,
             fmt::format("The manual partition assignment includes a broker other than {}, the "
                         "only one registered.",
                         ctx.node_id));
        continue;
      }
      partitions = static_cast<int32_t>(t.assignments.size());
      replication = 1;
    }
    if (partitions == -1) partitions = ctx.num_partitions;
    if (replication == -1) replication = 1;
    if (partitions <= 0) {
      fail(kafka_error::kInvalidPartitions,
           "Number of partitions was set to an invalid non-positive value.");
      continue;
    }
    if (replication <= 0) {
      fail(kafka_error::kInvalidReplicationFactor,
           "Replication factor must be larger than 0, or -1 to use the default value.");
      continue;
    }
    if (replication > 1) {
      fail(kafka_error::kInvalidReplicationFactor,
           fmt::format("Unable to replicate the partition {} time(s): The target replication "
                       "factor of {} cannot be reached because only 1 broker(s) are registered.",
                       replication, replication));
      continue;
    }
    std::map<std::string, std::string> configs;
    bool config_ok = true;
    for (const auto& c : t.configs) {
      if (!c.value.has_value()) {
        fail(kafka_error::kInvalidConfig, fmt::format("Null value not supported for topic "
                                                      "configs: {}",
                                                      c.name));
        config_ok = false;
        break;
      }
      configs[c.name] = *c.value;
    }
    if (!config_ok) continue;
    Result<LogConfig> lc = ctx.logs->TopicConfig(configs);
    if (!lc.ok()) {
      fail(kafka_error::kInvalidConfig, kafka_error::MessageOf(lc.status()));
      continue;
    }
    // Tiered storage's rules (Kafka's LogConfig.validate with the broker's switch).
    if (Status remote =
            lc->ValidateRemoteStorage(ctx.logs->config().remote_storage_system_enable, false);
        !remote.ok()) {
      fail(kafka_error::kInvalidConfig, kafka_error::MessageOf(remote));
      continue;
    }
    if (ctx.logs->FindTopic(t.name).ok()) {
      fail(kafka_error::kTopicAlreadyExists, fmt::format("Topic '{}' already exists.", t.name));
      continue;
    }
    // The controller mutation quota, last (Kafka's createTopic charges it after every other
    // check, validate-only requests too).
    // The error has no message: Kafka's ApiError drops one equal to the error's own.
    if (mutations != nullptr && !mutations->Record(partitions)) {
      r.error_code = kafka_error::kThrottlingQuotaExceeded;
      continue;
    }
    // What the topic was created with, for a client that may describe its configs.
    if (Authorized(ctx, rc, AclOperation::kDescribeConfigs, ResourceType::kTopic, t.name)) {
      r.num_partitions = partitions;
      r.replication_factor = replication;
    } else {
      r.topic_config_error_code = kafka_error::kTopicAuthorizationFailed;
    }
    r.configs = std::vector<protocol::CreateTopicsResponseData::CreatableTopicConfigs>{};
    if (!req.validate_only) {
      to_create.push_back(LogManager::NewTopic{t.name, partitions, std::move(configs)});
      slots.push_back(resp.topics.size() - 1);
    }
  }
  // Every valid topic in one metadata append and fsync, as Kafka's controller commits a request.
  const std::vector<Status> created = ctx.logs->CreateTopics(to_create);
  for (size_t k = 0; k < slots.size(); ++k) {
    auto& r = resp.topics[slots[k]];
    const Status& s = created[k];
    if (!s.ok()) {
      r.error_code = s.code() == Status::Code::kAlreadyExists ? kafka_error::kTopicAlreadyExists
                                                              : kafka_error::FromStatus(s);
      r.error_message =
          version >= 1 ? std::optional<std::string>(kafka_error::MessageOf(s)) : std::nullopt;
      r.num_partitions = -1;
      r.replication_factor = -1;
      r.configs = std::vector<protocol::CreateTopicsResponseData::CreatableTopicConfigs>{};
      continue;
    }
    if (Result<TopicMetadata> md = ctx.logs->FindTopic(r.name); md.ok()) {
      if (Result<Uuid> id = Uuid::Parse(md.value().topic_id); id.ok()) r.topic_id = id.value();
    }
  }
  return resp;
}

protocol::DeleteTopicsResponseData HandleDeleteTopics(const BrokerContext& ctx,
                                                      const RequestContext& rc,
                                                      const protocol::DeleteTopicsRequestData& req,
                                                      int16_t version,
                                                      ControllerMutationQuota* mutations) {
  protocol::DeleteTopicsResponseData resp;
  if (!ctx.delete_topic_enable) {
    // Kafka's ControllerApis.deleteTopics throws before looking at a topic, and every topic of
    // the request gets the error: TopicDeletionDisabledException from v3, InvalidRequestException
    // ("Topic deletion is disabled.") before.
    const int16_t code =
        version >= 3 ? kafka_error::kTopicDeletionDisabled : kafka_error::kInvalidRequest;
    auto refuse = [&](std::optional<std::string> name, const Uuid& id) {
      auto& r = resp.responses.emplace_back();
      r.name = std::move(name);
      r.topic_id = id;
      r.error_code = code;
      r.error_message = std::nullopt;
    };
    if (version >= 6) {
      for (const auto& t : req.topics) refuse(t.name, t.topic_id);
    } else {
      for (const auto& n : req.topic_names) refuse(n, Uuid{});
    }
    return resp;
  }
  // DELETE on the cluster allows every topic; without it, each needs DESCRIBE and DELETE.
  const bool cluster_delete = ClusterAuthorized(ctx, rc, AclOperation::kDelete);
  auto allowed = [&](AclOperation operation, const std::string& name) {
    return cluster_delete || Authorized(ctx, rc, operation, ResourceType::kTopic, name);
  };
  auto delete_one = [&](std::optional<std::string> name, const Uuid& id) {
    auto& r = resp.responses.emplace_back();
    r.topic_id = id;
    r.error_message = std::nullopt;
    auto refuse = [&](std::optional<std::string> shown_name) {
      r.name = std::move(shown_name);
      r.error_code = kafka_error::kTopicAuthorizationFailed;
      if (version >= 5) r.error_message = AuthorizationErrorMessage(r.error_code);
    };
    if (!name.has_value()) {
      name = TopicNameForId(ctx, id);
      if (!name) {
        r.name = std::nullopt;
        r.error_code = kafka_error::kUnknownTopicId;
        return;
      }
      // By id: the name only to a client that may describe the topic.
      if (!allowed(AclOperation::kDelete, *name)) {
        return refuse(allowed(AclOperation::kDescribe, *name) ? name : std::nullopt);
      }
    } else if (!allowed(AclOperation::kDescribe, *name)) {
      return refuse(name);  // whether it exists or not
    } else if (ctx.logs->FindTopic(*name).ok() && !allowed(AclOperation::kDelete, *name)) {
      return refuse(name);
    }
    r.name = *name;
    Result<TopicMetadata> md = ctx.logs->FindTopic(*name);
    if (md.ok() && version >= 6) {
      if (Result<Uuid> tid = Uuid::Parse(md.value().topic_id); tid.ok()) r.topic_id = tid.value();
    }
    // The controller mutation quota, charged with the topic's partitions (Kafka's deleteTopic).
    if (md.ok() && mutations != nullptr && !mutations->Record(md.value().partitions)) {
      r.error_code = kafka_error::kThrottlingQuotaExceeded;  // without a message, as Kafka
      return;
    }
    Status s = ctx.logs->DeleteTopic(*name);
    if (!s.ok()) {
      r.error_code =
          s.IsNotFound() ? kafka_error::kUnknownTopicOrPartition : kafka_error::FromStatus(s);
      if (version >= 5) r.error_message = kafka_error::MessageOf(s);
      return;
    }
    ctx.logger.Info(fmt::format("Deleted topic {}", *name));
    if (ctx.metrics != nullptr) ctx.metrics->RemoveTopic(*name);
    if (ctx.groups != nullptr) ctx.groups->OnTopicDeleted(*name);  // its committed offsets go
  };
  if (version >= 6) {
    for (const auto& t : req.topics) delete_one(t.name, t.topic_id);
  } else {
    for (const auto& n : req.topic_names) delete_one(n, Uuid{});
  }
  return resp;
}

}  // namespace seglog
