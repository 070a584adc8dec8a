// MetadataStore (see the header).
#include "manager/metadata_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <set>

#include "metadata/bootstrap.h"
#include "metadata/metadata_batch.h"
#include "protocol/generated/access_control_entry_record.h"
#include "protocol/generated/broker_registration_change_record.h"
#include "protocol/generated/client_quota_record.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/feature_level_record.h"
#include "protocol/generated/partition_change_record.h"
#include "protocol/generated/partition_record.h"
#include "protocol/generated/producer_ids_record.h"
#include "protocol/generated/register_broker_record.h"
#include "protocol/generated/remove_access_control_entry_record.h"
#include "protocol/generated/remove_topic_record.h"
#include "protocol/generated/remove_user_scram_credential_record.h"
#include "protocol/generated/topic_record.h"
#include "protocol/generated/user_scram_credential_record.h"
#include "security/cidr.h"

namespace seglog {

namespace {

constexpr int64_t kProducerIdBlockSize = 1000;  // Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE

template <typename T>
Status Add(std::vector<MetadataRecordValue>* out, const T& record) {
  SEGLOG_ASSIGN_OR_RETURN(MetadataRecordValue v, EncodeMetadataRecord(record));
  out->push_back(std::move(v));
  return Status::OK();
}

Status AddConfig(std::vector<MetadataRecordValue>* out, const std::string& topic,
                 const std::string& key, std::optional<std::string> value,
                 int8_t resource_type = kConfigResourceTopic) {
  protocol::ConfigRecord c;
  c.resource_type = resource_type;
  c.resource_name = topic;
  c.name = key;
  c.value = std::move(value);
  return Add(out, c);
}

Status AddPartition(std::vector<MetadataRecordValue>* out, const Uuid& topic_id, int32_t p,
                    int32_t node, const Uuid& dir) {
  protocol::PartitionRecord r;
  r.partition_id = p;
  r.topic_id = topic_id;
  r.replicas = {node};
  r.isr = {node};
  r.leader = node;
  r.leader_epoch = 0;
  r.partition_epoch = 0;
  r.directories = {dir};
  return Add(out, r);
}

// A directory whose metadata names another broker, or a partition this node is not the only
// replica of, belongs to a cluster (Kafka took it over and grew it): taking every partition
// back would drop the replicas that moved away, so the node refuses to start, changing nothing.
Status CheckSingleNode(const MetadataImage& image, int32_t node, const std::string& dir) {
  std::vector<std::string> others;
  for (const auto& [id, reg] : image.brokers()) {
    if (id != node) others.push_back(std::to_string(id));
  }
  std::string partition;
  for (const auto& [name, topic] : image.topics()) {
    for (const auto& [p, part] : topic.partitions) {
      if (part.replicas != std::vector<int32_t>{node} || !part.adding_replicas.empty() ||
          !part.removing_replicas.empty()) {
        partition = fmt::format("{}-{} with replicas [{}]", name, p, fmt::join(part.replicas, ","));
        break;
      }
    }
    if (!partition.empty()) break;
  }
  if (others.empty() && partition.empty()) return Status::OK();
  std::vector<std::string> what;
  if (!others.empty()) what.push_back(fmt::format("broker(s) {}", fmt::join(others, ", ")));
  if (!partition.empty()) what.push_back(fmt::format("partition {}", partition));
  return Status::FailedPrecondition(fmt::format(
      "{} belongs to a Kafka cluster of several brokers ({}): seglog serves a single node "
      "(node.id {}) and would drop the replicas that moved; run Apache Kafka on this directory "
      "(docs/operations.md)",
      dir, fmt::join(what, "; "), node));
}

}  // namespace

Status MetadataStore::CheckSingleNodeDirectory(const std::string& log_dir, int32_t node_id,
                                               Env* env) {
  if (env == nullptr) env = Env::Default();
  if (!env->FileExists(log_dir + "/" + kMetadataPartitionDir)) return Status::OK();
  MetadataLogOptions o;
  o.read_only = true;
  o.env = env;
  Result<std::unique_ptr<MetadataLog>> log = MetadataLog::Open(log_dir, o);
  if (!log.ok()) return log.status().IsNotFound() ? Status::OK() : log.status();
  return CheckSingleNode(log.value()->image(), node_id, log_dir + "/" + kMetadataPartitionDir);
}

Result<std::unique_ptr<MetadataStore>> MetadataStore::Open(const std::string& log_dir,
                                                           MetadataStoreOptions options) {
  if (options.env == nullptr) options.env = Env::Default();
  if (!options.clock) {
    options.clock = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  MetadataLogOptions lo = options.log;
  lo.node_id = options.node_id;
  lo.read_only = options.read_only;
  lo.env = options.env;
  lo.clock = options.clock;
  lo.logger = options.logger;
  std::unique_ptr<MetadataStore> store(new MetadataStore(log_dir, std::move(options)));
  const std::string meta_dir = log_dir + "/" + kMetadataPartitionDir;
  if (!store->options_.read_only && !store->options_.env->FileExists(meta_dir)) {
    // No metadata log: format, as `seglog format` would with this node's defaults.
    SEGLOG_RETURN_IF_ERROR(WriteBootstrapSnapshot(
        store->options_.env, log_dir, DefaultBootstrapFeatures(), store->options_.clock()));
    store->formatted_ = true;
    store->options_.logger.Info(
        fmt::format("Formatted {} with metadata.version {} ({}): the bootstrap snapshot {}/{}{}",
                    log_dir, kLatestMetadataVersion, MetadataVersionName(kLatestMetadataVersion),
                    kMetadataPartitionDir, SnapshotName({0, 0}), kSnapshotSuffix));
  }
  Result<std::unique_ptr<MetadataLog>> log = MetadataLog::Open(log_dir, lo);
  if (!log.ok()) return log.status();
  const int16_t mv = log.value()->image().FeatureLevel(kMetadataVersionFeature);
  if (mv > kLatestMetadataVersion) {
    return Status::InvalidArgument(fmt::format(
        "The current metadata.version {} is not supported by this node (supported: {} to {}): "
        "{} was written by a newer Kafka",
        mv, MetadataVersionName(kMinimumMetadataVersion),
        MetadataVersionName(kLatestMetadataVersion), meta_dir));
  }
  if (!store->options_.read_only) {
    SEGLOG_RETURN_IF_ERROR(
        CheckSingleNode(log.value()->image(), store->options_.node_id, meta_dir));
  }
  MutexLock l(&store->mu_);
  store->log_ = std::move(log).value();
  store->PublishClientQuotasLocked();
  return store;
}

MetadataStore::~MetadataStore() { (void)Close(); }

Status MetadataStore::BecomeLeader() {
  MutexLock l(&mu_);
  return log_->BecomeLeader();
}

Status MetadataStore::AppendLocked(const std::vector<MetadataRecordValue>& records) {
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  SEGLOG_RETURN_IF_ERROR(log_->Append(records));
  // A snapshot when enough was written (Kafka checks after every commit).
  Status s = log_->MaybeSnapshot();
  if (!s.ok()) options_.logger.Warn(fmt::format("Snapshot of {} failed: {}", dir_, s.ToString()));
  return Status::OK();
}

Status MetadataStore::CreateTopic(const std::string& name, const Uuid& id,
                                  const std::map<std::string, std::string>& configs,
                                  const std::vector<Uuid>& partition_dirs) {
  return CreateTopics({NewTopicRecords{name, id, configs, partition_dirs}}).front();
}

std::vector<Status> MetadataStore::CreateTopics(const std::vector<NewTopicRecords>& topics) {
  std::vector<Status> out(topics.size());
  // Each topic's records, built outside the lock.
  std::vector<std::vector<MetadataRecordValue>> built(topics.size());
  for (size_t i = 0; i < topics.size(); ++i) {
    const NewTopicRecords& t = topics[i];
    auto build = [&]() -> Status {
      protocol::TopicRecord tr;
      tr.name = t.name;
      tr.topic_id = t.id;
      SEGLOG_RETURN_IF_ERROR(Add(&built[i], tr));
      for (const auto& [k, v] : t.configs)
        SEGLOG_RETURN_IF_ERROR(AddConfig(&built[i], t.name, k, v));
      for (size_t p = 0; p < t.partition_dirs.size(); ++p) {
        SEGLOG_RETURN_IF_ERROR(AddPartition(&built[i], t.id, static_cast<int32_t>(p),
                                            options_.node_id, t.partition_dirs[p]));
      }
      return Status::OK();
    };
    out[i] = build();
  }
  MutexLock l(&mu_);
  if (log_ == nullptr) {
    for (Status& s : out) {
      if (s.ok()) s = Status::FailedPrecondition("the metadata store is closed");
    }
    return out;
  }
  std::set<std::string> names;
  std::set<Uuid> ids;
  for (size_t i = 0; i < topics.size(); ++i) {
    if (!out[i].ok()) continue;
    const NewTopicRecords& t = topics[i];
    if (log_->image().FindTopic(t.name) != nullptr || !names.insert(t.name).second) {
      out[i] = Status::AlreadyExists(fmt::format("Topic '{}' already exists.", t.name));
    } else if (log_->image().FindTopicById(t.id) != nullptr || !ids.insert(t.id).second) {
      // Kafka's controller draws another id then; the caller chose this one for its partition
      // directories, so it must draw again (TopicIdInUse).
      out[i] = Status::AlreadyExists(fmt::format("Topic id {} is in use", t.id.ToString()));
    }
  }
  // Appends of whole topics, each below the batch limit with room for the batch's framing.
  constexpr size_t kRoom = kMaxMetadataBatchBytes / 2;
  std::vector<std::vector<size_t>> groups;
  size_t bytes = 0;
  for (size_t i = 0; i < topics.size(); ++i) {
    if (!out[i].ok()) continue;
    size_t size = 0;
    for (const MetadataRecordValue& r : built[i]) size += r.bytes.size() + 16;
    if (groups.empty() || (!groups.back().empty() && bytes + size > kRoom)) {
      groups.emplace_back();
      bytes = 0;
    }
    groups.back().push_back(i);
    bytes += size;
  }
  for (const std::vector<size_t>& group : groups) {
    std::vector<MetadataRecordValue> records;
    for (size_t i : group) {
      for (MetadataRecordValue& r : built[i]) records.push_back(std::move(r));
    }
    const Status s = AppendLocked(records);
    if (!s.ok()) {
      for (size_t i : group) out[i] = s;
    }
  }
  return out;
}

bool MetadataStore::TopicIdInUse(const Uuid& id) const {
  MutexLock l(&mu_);
  return log_ != nullptr && log_->image().FindTopicById(id) != nullptr;
}

Status MetadataStore::AddPartitions(const std::string& name, const std::vector<Uuid>& dirs) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  const TopicImage* t = log_->image().FindTopic(name);
  if (t == nullptr) return Status::NotFound(fmt::format("Topic '{}' does not exist.", name));
  std::vector<MetadataRecordValue> records;
  const auto from = static_cast<int32_t>(t->partitions.size());
  for (size_t i = 0; i < dirs.size(); ++i) {
    SEGLOG_RETURN_IF_ERROR(
        AddPartition(&records, t->id, from + static_cast<int32_t>(i), options_.node_id, dirs[i]));
  }
  return AppendLocked(records);
}

Status MetadataStore::DeleteTopic(const std::string& name) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  const TopicImage* t = log_->image().FindTopic(name);
  if (t == nullptr) return Status::NotFound(fmt::format("Topic '{}' does not exist.", name));
  std::vector<MetadataRecordValue> records;
  if (const auto* configs = log_->image().Configs(kConfigResourceTopic, name)) {
    for (const auto& [k, v] : *configs) {
      SEGLOG_RETURN_IF_ERROR(AddConfig(&records, name, k, std::nullopt));
    }
  }
  protocol::RemoveTopicRecord rm;
  rm.topic_id = t->id;
  SEGLOG_RETURN_IF_ERROR(Add(&records, rm));
  return AppendLocked(records);
}

Status MetadataStore::AlterTopicConfig(const std::string& name,
                                       const std::map<std::string, std::string>& next) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  if (log_->image().FindTopic(name) == nullptr) {
    return Status::NotFound(fmt::format("Topic '{}' does not exist.", name));
  }
  return AlterConfigsLocked(kConfigResourceTopic, name, next);
}

Status MetadataStore::AlterBrokerConfig(const std::string& name,
                                        const std::map<std::string, std::string>& next) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  return AlterConfigsLocked(kConfigResourceBroker, name, next);
}

std::map<std::string, std::string> MetadataStore::BrokerConfigs(const std::string& name) const {
  MutexLock l(&mu_);
  if (log_ == nullptr) return {};
  const auto* found = log_->image().Configs(kConfigResourceBroker, name);
  return found != nullptr ? *found : std::map<std::string, std::string>{};
}

Status MetadataStore::AlterClientMetricsConfig(const std::string& name,
                                               const std::map<std::string, std::string>& next) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  return AlterConfigsLocked(kConfigResourceClientMetrics, name, next);
}

std::map<std::string, std::map<std::string, std::string>> MetadataStore::ClientMetricsConfigs()
    const {
  MutexLock l(&mu_);
  std::map<std::string, std::map<std::string, std::string>> out;
  if (log_ == nullptr) return out;
  for (const auto& [key, configs] : log_->image().configs()) {
    if (key.first == kConfigResourceClientMetrics && !configs.empty()) out[key.second] = configs;
  }
  return out;
}

Status MetadataStore::AlterGroupConfig(const std::string& name,
                                       const std::map<std::string, std::string>& next) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  return AlterConfigsLocked(kConfigResourceGroup, name, next);
}

std::map<std::string, std::string> MetadataStore::GroupConfigs(const std::string& name) const {
  MutexLock l(&mu_);
  if (log_ == nullptr) return {};
  const auto* found = log_->image().Configs(kConfigResourceGroup, name);
  return found != nullptr ? *found : std::map<std::string, std::string>{};
}

std::map<std::string, std::map<std::string, std::string>> MetadataStore::AllGroupConfigs() const {
  MutexLock l(&mu_);
  std::map<std::string, std::map<std::string, std::string>> out;
  if (log_ == nullptr) return out;
  for (const auto& [key, configs] : log_->image().configs()) {
    if (key.first == kConfigResourceGroup && !configs.empty()) out[key.second] = configs;
  }
  return out;
}

Status MetadataStore::AlterConfigsLocked(int8_t type, const std::string& name,
                                         const std::map<std::string, std::string>& next) {
  static const std::map<std::string, std::string> kNone;
  const auto* found = log_->image().Configs(type, name);
  const auto& current = found != nullptr ? *found : kNone;
  std::vector<MetadataRecordValue> records;
  for (const auto& [k, v] : current) {
    if (!next.count(k)) SEGLOG_RETURN_IF_ERROR(AddConfig(&records, name, k, std::nullopt, type));
  }
  for (const auto& [k, v] : next) {
    auto it = current.find(k);
    if (it == current.end() || it->second != v) {
      SEGLOG_RETURN_IF_ERROR(AddConfig(&records, name, k, v, type));
    }
  }
  if (records.empty()) return Status::OK();
  return AppendLocked(records);
}

namespace {

AclBinding AclOf(const protocol::AccessControlEntryRecord& r) {
  AclBinding a;
  a.resource_type = ResourceTypeFromCode(r.resource_type);
  a.resource_name = r.resource_name;
  a.pattern_type = PatternTypeFromCode(r.pattern_type);
  a.principal = r.principal;
  a.host = r.host;
  a.operation = AclOperationFromCode(r.operation);
  a.permission = AclPermissionTypeFromCode(r.permission_type);
  return a;
}

// Kafka's AclControlManager.validateNewAcl, in its order and words.
Status ValidateNewAcl(const AclBinding& a) {
  if (a.resource_type == ResourceType::kUnknown || a.resource_type == ResourceType::kAny) {
    return Status::InvalidArgument(
        fmt::format("Invalid resourceType {}", ResourceTypeName(a.resource_type)));
  }
  if (a.pattern_type != PatternType::kLiteral && a.pattern_type != PatternType::kPrefixed) {
    return Status::InvalidArgument(
        fmt::format("Invalid patternType {}", PatternTypeName(a.pattern_type)));
  }
  if (a.operation == AclOperation::kUnknown || a.operation == AclOperation::kAny) {
    return Status::InvalidArgument(
        fmt::format("Invalid operation {}", AclOperationName(a.operation)));
  }
  if (a.permission != AclPermissionType::kDeny && a.permission != AclPermissionType::kAllow) {
    return Status::InvalidArgument(
        fmt::format("Invalid permissionType {}", AclPermissionTypeName(a.permission)));
  }
  if (a.resource_name.empty()) {
    return Status::InvalidArgument("Resource name should not be empty");
  }
  if (a.principal.find(':') == std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("Could not parse principal from `{}` (no colon is present separating the "
                    "principal type from the principal name)",
                    a.principal));
  }
  if (a.host.empty()) return Status::InvalidArgument("Host pattern cannot be null or empty");
  if (a.host != kWildcardHost && a.host.find('/') != std::string::npos) {
    if (Status s = ValidateCidr(a.host); !s.ok()) {
      return Status::InvalidArgument(
          fmt::format("Invalid CIDR notation '{}': {}", a.host, s.message()));
    }
  }
  return Status::OK();
}

}  // namespace

std::map<Uuid, AclBinding> MetadataStore::Acls() const {
  MutexLock l(&mu_);
  std::map<Uuid, AclBinding> out;
  if (log_ == nullptr) return out;
  for (const auto& [id, r] : log_->image().acls()) out.emplace(id, AclOf(r));
  return out;
}

std::vector<Status> MetadataStore::CreateAcls(const std::vector<AclBinding>& acls) {
  std::vector<Status> out(acls.size());
  MutexLock l(&mu_);
  if (log_ == nullptr) {
    for (Status& s : out) s = Status::FailedPrecondition("the metadata store is closed");
    return out;
  }
  std::set<AclBinding> existing;
  std::set<Uuid> ids;
  for (const auto& [id, r] : log_->image().acls()) {
    existing.insert(AclOf(r));
    ids.insert(id);
  }
  std::vector<MetadataRecordValue> records;
  std::vector<size_t> written;
  for (size_t i = 0; i < acls.size(); ++i) {
    out[i] = ValidateNewAcl(acls[i]);
    if (!out[i].ok() || !existing.insert(acls[i]).second) continue;  // a duplicate: success
    protocol::AccessControlEntryRecord r;
    do {
      r.id = Uuid::Random();
    } while (r.id.IsZero() || !ids.insert(r.id).second);
    r.resource_type = static_cast<int8_t>(acls[i].resource_type);
    r.resource_name = acls[i].resource_name;
    r.pattern_type = static_cast<int8_t>(acls[i].pattern_type);
    r.principal = acls[i].principal;
    r.host = acls[i].host;
    r.operation = static_cast<int8_t>(acls[i].operation);
    r.permission_type = static_cast<int8_t>(acls[i].permission);
    if (Status s = Add(&records, r); !s.ok()) {
      out[i] = s;
      continue;
    }
    written.push_back(i);
  }
  if (records.empty()) return out;
  if (Status s = AppendLocked(records); !s.ok()) {
    for (size_t i : written) out[i] = s;
  }
  return out;
}

Result<std::vector<std::vector<std::pair<Uuid, AclBinding>>>> MetadataStore::DeleteAcls(
    const std::vector<AclBindingFilter>& filters) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  std::vector<std::vector<std::pair<Uuid, AclBinding>>> out(filters.size());
  std::set<Uuid> removed;
  std::vector<MetadataRecordValue> records;
  for (size_t f = 0; f < filters.size(); ++f) {
    for (const auto& [id, r] : log_->image().acls()) {
      AclBinding acl = AclOf(r);
      if (!filters[f].Matches(acl)) continue;
      out[f].emplace_back(id, std::move(acl));
      if (removed.insert(id).second) {
        protocol::RemoveAccessControlEntryRecord rm;
        rm.id = id;
        SEGLOG_RETURN_IF_ERROR(Add(&records, rm));
      }
    }
  }
  if (!records.empty()) SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
  return out;
}

std::optional<ScramCredential> MetadataStore::ScramCredentialOf(const std::string& user,
                                                                ScramMechanism mechanism) const {
  MutexLock l(&mu_);
  if (log_ == nullptr) return std::nullopt;
  auto it = log_->image().scram().find({user, static_cast<int8_t>(mechanism)});
  if (it == log_->image().scram().end()) return std::nullopt;
  ScramCredential c;
  c.mechanism = mechanism;
  c.salt = it->second.salt;
  c.stored_key = it->second.stored_key;
  c.server_key = it->second.server_key;
  c.iterations = it->second.iterations;
  return c;
}

std::map<std::string, std::vector<std::pair<ScramMechanism, int32_t>>> MetadataStore::ScramUsers()
    const {
  MutexLock l(&mu_);
  std::map<std::string, std::vector<std::pair<ScramMechanism, int32_t>>> out;
  if (log_ == nullptr) return out;
  for (const auto& [key, rec] : log_->image().scram()) {
    out[key.first].emplace_back(ScramMechanismFromCode(key.second), rec.iterations);
  }
  return out;
}

Status MetadataStore::AlterScramCredentials(
    const std::vector<std::pair<std::string, ScramMechanism>>& deletions,
    const std::vector<std::pair<std::string, ScramCredential>>& upsertions) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  std::vector<MetadataRecordValue> records;
  for (const auto& [user, mechanism] : deletions) {
    if (!log_->image().scram().count({user, static_cast<int8_t>(mechanism)})) {
      return Status::NotFound("Attempt to delete a user credential that does not exist");
    }
    protocol::RemoveUserScramCredentialRecord r;
    r.name = user;
    r.mechanism = static_cast<int8_t>(mechanism);
    SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  }
  for (const auto& [user, c] : upsertions) {
    protocol::UserScramCredentialRecord r;
    r.name = user;
    r.mechanism = static_cast<int8_t>(c.mechanism);
    r.salt = c.salt;
    r.stored_key = c.stored_key;
    r.server_key = c.server_key;
    r.iterations = c.iterations;
    SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  }
  if (records.empty()) return Status::OK();
  return AppendLocked(records);
}

namespace {

ClientQuotaMap ClientQuotasOf(const MetadataImage& image) {
  ClientQuotaMap out;
  for (const auto& [key, record] : image.quotas()) {
    ClientQuotaEntity entity(key.first.begin(), key.first.end());
    out[std::move(entity)][key.second] = record.value;
  }
  return out;
}

}  // namespace

void MetadataStore::PublishClientQuotasLocked() {
  ClientQuotaMap quotas;
  if (log_ != nullptr) quotas = ClientQuotasOf(log_->image());
  MutexLock l(&quotas_mu_);
  const uint64_t version = client_quotas_version_.load(std::memory_order_relaxed) + 1;
  client_quotas_ = ClientQuotaSnapshot::Build(quotas, version);
  client_quotas_version_.store(version, std::memory_order_release);
}

std::shared_ptr<const ClientQuotaSnapshot> MetadataStore::ClientQuotas() const {
  MutexLock l(&quotas_mu_);
  return client_quotas_ != nullptr ? client_quotas_ : ClientQuotaSnapshot::Empty();
}

ClientQuotaDescription MetadataStore::DescribeClientQuotas(const ClientQuotaFilter& filter) const {
  return seglog::DescribeClientQuotas(ClientQuotas()->quotas(), filter);
}

Result<std::vector<std::pair<ClientQuotaEntity, ClientQuotaError>>>
MetadataStore::AlterClientQuotas(const std::vector<ClientQuotaAlteration>& alterations,
                                 bool validate_only) {
  // Names of ip entities are resolved before the lock (Kafka's controller resolves them in
  // its event loop): a slow resolver holds up no metadata writer.
  std::set<std::string> valid_ips;
  for (const std::string& ip : IpEntityNames(alterations)) {
    if (IsValidIpEntityName(ip)) valid_ips.insert(ip);
  }
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  ClientQuotaAlterationPlan plan =
      PlanClientQuotaAlterations(ClientQuotasOf(log_->image()), alterations,
                                 [&](const std::string& ip) { return valid_ips.count(ip) > 0; });
  if (validate_only || plan.changes.empty()) return std::move(plan.results);
  std::vector<MetadataRecordValue> records;
  for (const ClientQuotaChange& c : plan.changes) {
    protocol::ClientQuotaRecord r;
    // The entity in the order Kafka's controller writes it (its HashMap's).
    std::vector<std::string> types;
    for (const auto& [type, name] : c.entity) types.push_back(type);
    for (const std::string& type : JavaHashMapOrder(types, 3)) {
      auto& e = r.entity.emplace_back();
      e.entity_type = type;
      e.entity_name = c.entity.at(type);
    }
    r.key = c.key;
    r.value = c.remove ? 0.0 : c.value;
    r.remove = c.remove;
    SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  }
  SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
  PublishClientQuotasLocked();
  return std::move(plan.results);
}

Result<int64_t> MetadataStore::ReserveProducerIdBlock() {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  const int64_t start = log_->image().producer_ids().next_producer_id;
  if (start > INT64_MAX - kProducerIdBlockSize) return Status::OutOfRange("producer ids exhausted");
  protocol::ProducerIdsRecord r;
  r.broker_id = options_.node_id;
  r.broker_epoch = broker_epoch_;
  r.next_producer_id = start + kProducerIdBlockSize;
  std::vector<MetadataRecordValue> records;
  SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
  return start;
}

Result<int64_t> MetadataStore::RegisterBroker(const std::vector<Uuid>& log_dirs) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  protocol::RegisterBrokerRecord r;
  r.broker_id = options_.node_id;
  r.incarnation_id = Uuid::Random();
  r.broker_epoch = log_->end_offset();  // Kafka's broker epoch: the record's own offset
  r.rack = std::nullopt;
  r.fenced = false;
  r.in_controlled_shutdown = false;
  r.log_dirs = log_dirs;
  protocol::RegisterBrokerRecord::BrokerFeature mv;
  mv.name = kMetadataVersionFeature;
  mv.min_supported_version = kMinimumMetadataVersion;
  mv.max_supported_version = kLatestMetadataVersion;
  r.features.push_back(mv);
  for (const auto& [name, level] : DefaultBootstrapFeatures()) {
    if (name == kMetadataVersionFeature) continue;
    protocol::RegisterBrokerRecord::BrokerFeature f;
    f.name = name;
    f.min_supported_version = 0;
    f.max_supported_version = level;
    r.features.push_back(f);
  }
  std::vector<MetadataRecordValue> records;
  SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
  broker_epoch_ = r.broker_epoch;
  return r.broker_epoch;
}

Status MetadataStore::ControlledShutdown() {
  MutexLock l(&mu_);
  if (log_ == nullptr || broker_epoch_ < 0) return Status::OK();
  const int32_t node = options_.node_id;
  const bool elr = log_->image().FeatureLevel("eligible.leader.replicas.version") >= 1;
  std::vector<MetadataRecordValue> records;
  protocol::BrokerRegistrationChangeRecord enter;
  enter.broker_id = node;
  enter.broker_epoch = broker_epoch_;
  enter.in_controlled_shutdown = 1;
  SEGLOG_RETURN_IF_ERROR(Add(&records, enter));
  size_t bytes = 0;
  for (const auto& [name, topic] : log_->image().topics()) {
    for (const auto& [p, part] : topic.partitions) {
      if (part.leader != node) continue;
      protocol::PartitionChangeRecord c;
      c.partition_id = p;
      c.topic_id = topic.id;
      c.leader = -1;
      if (elr) {
        // With ELR the last replica leaves the ISR for the ELR (Kafka's controlled shutdown).
        c.isr = std::vector<int32_t>{};
        c.eligible_leader_replicas = std::vector<int32_t>{node};
        c.last_known_elr = std::vector<int32_t>{node};
      }
      SEGLOG_RETURN_IF_ERROR(Add(&records, c));
      bytes += records.back().bytes.size() + 32;
      if (bytes > kMaxMetadataBatchBytes / 2) {
        SEGLOG_RETURN_IF_ERROR(log_->Append(records));
        records.clear();
        bytes = 0;
      }
    }
  }
  protocol::BrokerRegistrationChangeRecord fence;
  fence.broker_id = node;
  fence.broker_epoch = broker_epoch_;
  fence.fenced = 1;  // BrokerRegistrationFencingChange.FENCE
  SEGLOG_RETURN_IF_ERROR(Add(&records, fence));
  return log_->Append(records);
}

int64_t MetadataStore::broker_epoch() const {
  MutexLock l(&mu_);
  return broker_epoch_;
}

Status MetadataStore::MigrateProducerIds(int64_t next_block_start) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  if (next_block_start <= log_->image().producer_ids().next_producer_id) return Status::OK();
  protocol::ProducerIdsRecord r;
  r.broker_id = options_.node_id;
  r.broker_epoch = -1;
  r.next_producer_id = next_block_start;
  std::vector<MetadataRecordValue> records;
  SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  return AppendLocked(records);
}

Status MetadataStore::AssignDirectories(const std::vector<PartitionDir>& where) {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  std::vector<MetadataRecordValue> records;
  size_t bytes = 0;
  for (const PartitionDir& w : where) {
    const TopicImage* t = log_->image().FindTopic(w.topic);
    if (t == nullptr) continue;
    auto part = t->partitions.find(w.partition);
    if (part == t->partitions.end() || part->second.directories == std::vector<Uuid>{w.dir}) {
      continue;
    }
    protocol::PartitionChangeRecord c;
    c.partition_id = w.partition;
    c.topic_id = t->id;
    c.directories = std::vector<Uuid>{w.dir};
    SEGLOG_RETURN_IF_ERROR(Add(&records, c));
    bytes += records.back().bytes.size() + 32;
    if (bytes > kMaxMetadataBatchBytes / 2) {
      SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
      records.clear();
      bytes = 0;
    }
  }
  if (records.empty()) return Status::OK();
  return AppendLocked(records);
}

Status MetadataStore::TakeLeadership() {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::FailedPrecondition("the metadata store is closed");
  const int32_t node = options_.node_id;
  std::vector<MetadataRecordValue> records;
  size_t bytes = 0;
  int changed = 0;
  for (const auto& [name, topic] : log_->image().topics()) {
    for (const auto& [p, part] : topic.partitions) {
      const bool in_isr = std::find(part.isr.begin(), part.isr.end(), node) != part.isr.end();
      if (part.leader == node && in_isr) continue;
      protocol::PartitionChangeRecord c;
      c.partition_id = p;
      c.topic_id = topic.id;
      c.leader = node;
      c.isr = std::vector<int32_t>{node};  // replicas are [node]: CheckSingleNode at open
      c.eligible_leader_replicas = std::vector<int32_t>{};
      c.last_known_elr = std::vector<int32_t>{};
      SEGLOG_RETURN_IF_ERROR(Add(&records, c));
      bytes += records.back().bytes.size() + 32;
      ++changed;
      if (bytes > kMaxMetadataBatchBytes / 2) {
        SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
        records.clear();
        bytes = 0;
      }
    }
  }
  if (!records.empty()) SEGLOG_RETURN_IF_ERROR(AppendLocked(records));
  if (changed > 0) {
    options_.logger.Info(fmt::format(
        "Elected node {} leader of {} partition(s) without it as leader", node, changed));
  }
  return Status::OK();
}

TopicMap MetadataStore::Topics() const {
  MutexLock l(&mu_);
  TopicMap out;
  if (log_ == nullptr) return out;
  for (const auto& [name, topic] : log_->image().topics()) {
    TopicMetadata md;
    md.partitions = static_cast<int32_t>(topic.partitions.size());
    md.topic_id = topic.id.ToString();
    if (const auto* configs = log_->image().Configs(kConfigResourceTopic, name)) {
      md.configs = *configs;
    }
    out[name] = std::move(md);
  }
  return out;
}

std::optional<TopicMetadata> MetadataStore::FindTopic(const std::string& name) const {
  MutexLock l(&mu_);
  if (log_ == nullptr) return std::nullopt;
  const TopicImage* topic = log_->image().FindTopic(name);
  if (topic == nullptr) return std::nullopt;
  TopicMetadata md;
  md.partitions = static_cast<int32_t>(topic->partitions.size());
  md.topic_id = topic->id.ToString();
  if (const auto* configs = log_->image().Configs(kConfigResourceTopic, name))
    md.configs = *configs;
  return md;
}

std::map<std::string, std::vector<int32_t>> MetadataStore::LeaderEpochs() const {
  MutexLock l(&mu_);
  std::map<std::string, std::vector<int32_t>> out;
  if (log_ == nullptr) return out;
  for (const auto& [name, topic] : log_->image().topics()) {
    auto& v = out[name];
    for (const auto& [p, part] : topic.partitions) {
      if (static_cast<size_t>(p) >= v.size()) v.resize(static_cast<size_t>(p) + 1, 0);
      v[static_cast<size_t>(p)] = part.leader_epoch;
    }
  }
  return out;
}

int16_t MetadataStore::FeatureLevel(const std::string& feature) const {
  MutexLock l(&mu_);
  return log_ == nullptr ? 0 : log_->image().FeatureLevel(feature);
}

Status MetadataStore::SetFeatureLevels(const std::vector<std::pair<std::string, int16_t>>& levels) {
  std::vector<MetadataRecordValue> records;
  for (const auto& [name, level] : levels) {
    protocol::FeatureLevelRecord r;
    r.name = name;
    r.feature_level = level;
    SEGLOG_RETURN_IF_ERROR(Add(&records, r));
  }
  if (records.empty()) return Status::OK();
  MutexLock l(&mu_);
  return AppendLocked(records);
}

int16_t MetadataStore::KRaftVersion() const {
  MutexLock l(&mu_);
  return log_ == nullptr ? 0 : log_->kraft_version();
}

int64_t MetadataStore::end_offset() const {
  MutexLock l(&mu_);
  return log_ == nullptr ? 0 : log_->end_offset();
}

Status MetadataStore::MaybeSnapshot() {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::OK();
  return log_->MaybeSnapshot();
}

Status MetadataStore::Close() {
  MutexLock l(&mu_);
  if (log_ == nullptr) return Status::OK();
  Status s = log_->Close();
  log_.reset();
  return s;
}

}  // namespace seglog
