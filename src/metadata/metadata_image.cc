// MetadataImage: replaying KRaft's records (see the header).
#include "metadata/metadata_image.h"

#include <fmt/format.h>

#include <algorithm>

#include "protocol/generated/broker_registration_change_record.h"
#include "protocol/generated/clear_elr_record.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/feature_level_record.h"
#include "protocol/generated/fence_broker_record.h"
#include "protocol/generated/metadata_records.h"
#include "protocol/generated/partition_change_record.h"
#include "protocol/generated/producer_ids_record.h"
#include "protocol/generated/remove_access_control_entry_record.h"
#include "protocol/generated/remove_delegation_token_record.h"
#include "protocol/generated/remove_topic_record.h"
#include "protocol/generated/remove_user_scram_credential_record.h"
#include "protocol/generated/topic_record.h"
#include "protocol/generated/unfence_broker_record.h"
#include "protocol/generated/unregister_broker_record.h"
#include "protocol/generated/unregister_controller_record.h"

namespace seglog {

namespace {

using protocol::MetadataRecordType;

template <typename T>
Result<T> Decode(const MetadataRecordFrame& r) {
  Result<T> parsed = T::Parse(r.body, r.version);
  if (!parsed.ok()) {
    return Status::Corruption(fmt::format("{} v{}: {}", MetadataRecordTypeName(r.api_key),
                                          r.version, parsed.status().message()));
  }
  return parsed;
}

// LeaderRecoveryState.changeTo: -1 leaves it as it is.
int8_t ChangeRecoveryState(int8_t current, int8_t change) {
  return change == -1 ? current : change;
}

template <typename T>
Status Add(std::vector<MetadataRecordValue>* out, const T& record,
           int16_t version = T::kHighestSupportedVersion) {
  Result<MetadataRecordValue> v = EncodeMetadataRecord(record, version);
  if (!v.ok()) return v.status();
  out->push_back(std::move(v).value());
  return Status::OK();
}

}  // namespace

int16_t MetadataImage::FeatureLevel(const std::string& name) const {
  auto it = features_.find(name);
  return it == features_.end() ? 0 : it->second;
}

const TopicImage* MetadataImage::FindTopic(const std::string& name) const {
  auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : &it->second;
}

const TopicImage* MetadataImage::FindTopicById(const Uuid& id) const {
  auto it = topic_names_.find(id);
  return it == topic_names_.end() ? nullptr : FindTopic(it->second);
}

const std::map<std::string, std::string>* MetadataImage::Configs(int8_t type,
                                                                 const std::string& name) const {
  auto it = configs_.find({type, name});
  return it == configs_.end() ? nullptr : &it->second;
}

Status MetadataImage::ReplayValue(std::span<const uint8_t> value) {
  Result<MetadataRecordFrame> frame = ParseMetadataRecordFrame(value);
  if (!frame.ok()) return frame.status();
  return Replay(frame.value());
}

void MetadataImage::AbortTransaction() {
  in_transaction_ = false;
  pending_.clear();
}

Status MetadataImage::Replay(const MetadataRecordFrame& record) {
  const protocol::MetadataRecordInfo* info = protocol::FindMetadataRecord(record.api_key);
  if (info == nullptr) {
    return Status::Corruption(fmt::format("unknown metadata record type {}", record.api_key));
  }
  if (record.version < info->lowest_version || record.version > info->highest_version) {
    return Status::Corruption(fmt::format("{} version {} is not supported (versions {}..{})",
                                          info->type_name, record.version, info->lowest_version,
                                          info->highest_version));
  }
  switch (static_cast<MetadataRecordType>(record.api_key)) {
    case MetadataRecordType::kBeginTransaction:
      if (in_transaction_) {
        return Status::Corruption("BEGIN_TRANSACTION_RECORD inside an open metadata transaction");
      }
      in_transaction_ = true;
      return Status::OK();
    case MetadataRecordType::kEndTransaction: {
      if (!in_transaction_) {
        return Status::Corruption("END_TRANSACTION_RECORD without a metadata transaction");
      }
      // Applied on a copy, so a bad record in the transaction changes nothing.
      MetadataImage next = *this;
      next.AbortTransaction();
      for (const Pending& p : pending_) {
        SEGLOG_RETURN_IF_ERROR(next.Apply({p.api_key, p.version, p.body}));
      }
      *this = std::move(next);
      return Status::OK();
    }
    case MetadataRecordType::kAbortTransaction:
      if (!in_transaction_) {
        return Status::Corruption("ABORT_TRANSACTION_RECORD without a metadata transaction");
      }
      AbortTransaction();
      return Status::OK();
    default:
      break;
  }
  if (in_transaction_) {
    // Checked now, applied at the end.
    std::vector<uint8_t> encoded;
    SEGLOG_RETURN_IF_ERROR(
        protocol::RoundTripMetadataRecord(record.api_key, record.version, record.body, &encoded));
    pending_.push_back({record.api_key, record.version,
                        std::vector<uint8_t>(record.body.begin(), record.body.end())});
    return Status::OK();
  }
  return Apply(record);
}

Status MetadataImage::Apply(const MetadataRecordFrame& r) {
  switch (static_cast<MetadataRecordType>(r.api_key)) {
    case MetadataRecordType::kRegisterBroker: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::RegisterBrokerRecord>(r));
      broker_versions_[rec.broker_id] = r.version;
      brokers_[rec.broker_id] = std::move(rec);
      return Status::OK();
    }
    case MetadataRecordType::kUnregisterBroker: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::UnregisterBrokerRecord>(r));
      brokers_.erase(rec.broker_id);
      broker_versions_.erase(rec.broker_id);
      return Status::OK();
    }
    case MetadataRecordType::kFenceBroker: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::FenceBrokerRecord>(r));
      if (auto it = brokers_.find(rec.id); it != brokers_.end()) it->second.fenced = true;
      return Status::OK();
    }
    case MetadataRecordType::kUnfenceBroker: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::UnfenceBrokerRecord>(r));
      if (auto it = brokers_.find(rec.id); it != brokers_.end()) it->second.fenced = false;
      return Status::OK();
    }
    case MetadataRecordType::kBrokerRegistrationChange: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::BrokerRegistrationChangeRecord>(r));
      auto it = brokers_.find(rec.broker_id);
      if (it == brokers_.end()) return Status::OK();
      // BrokerRegistrationFencingChange: 1 fences, -1 unfences, 0 leaves it.
      if (rec.fenced == 1) it->second.fenced = true;
      if (rec.fenced == -1) it->second.fenced = false;
      // BrokerRegistrationInControlledShutdownChange: 1 enters it, 0 leaves it as it is.
      if (rec.in_controlled_shutdown == 1) it->second.in_controlled_shutdown = true;
      if (!rec.log_dirs.empty()) it->second.log_dirs = rec.log_dirs;
      if (rec.cordoned_log_dirs.has_value()) it->second.cordoned_log_dirs = rec.cordoned_log_dirs;
      if (it->second.fenced) it->second.in_controlled_shutdown = false;
      return Status::OK();
    }
    case MetadataRecordType::kRegisterController: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::RegisterControllerRecord>(r));
      controllers_[rec.controller_id] = std::move(rec);
      return Status::OK();
    }
    case MetadataRecordType::kUnregisterController: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::UnregisterControllerRecord>(r));
      controllers_.erase(rec.controller_id);
      return Status::OK();
    }
    case MetadataRecordType::kTopic: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::TopicRecord>(r));
      if (const TopicImage* t = FindTopic(rec.name); t != nullptr && t->id != rec.topic_id) {
        return Status::Corruption(fmt::format("TOPIC_RECORD for '{}' with id {}, but it has id {}",
                                              rec.name, rec.topic_id.ToString(), t->id.ToString()));
      }
      if (auto other = topic_names_.find(rec.topic_id);
          other != topic_names_.end() && other->second != rec.name) {
        return Status::Corruption(
            fmt::format("TOPIC_RECORD for '{}' with id {}, which topic '{}' has", rec.name,
                        rec.topic_id.ToString(), other->second));
      }
      TopicImage& t = topics_[rec.name];
      t.name = rec.name;
      t.id = rec.topic_id;
      topic_names_[rec.topic_id] = rec.name;
      return Status::OK();
    }
    case MetadataRecordType::kPartition: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::PartitionRecord>(r));
      auto name = topic_names_.find(rec.topic_id);
      if (name == topic_names_.end()) {
        return Status::Corruption(
            fmt::format("PARTITION_RECORD for unknown topic id {}", rec.topic_id.ToString()));
      }
      if (!rec.directories.empty() && rec.directories.size() != rec.replicas.size()) {
        return Status::Corruption(
            fmt::format("PARTITION_RECORD {}-{}: {} directories for {} replicas", name->second,
                        rec.partition_id, rec.directories.size(), rec.replicas.size()));
      }
      topics_[name->second].partitions[rec.partition_id] = std::move(rec);
      return Status::OK();
    }
    case MetadataRecordType::kPartitionChange: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::PartitionChangeRecord>(r));
      auto name = topic_names_.find(rec.topic_id);
      if (name == topic_names_.end()) {
        return Status::Corruption(fmt::format("PARTITION_CHANGE_RECORD for unknown topic id {}",
                                              rec.topic_id.ToString()));
      }
      auto& parts = topics_[name->second].partitions;
      auto it = parts.find(rec.partition_id);
      if (it == parts.end()) {
        return Status::Corruption(fmt::format("PARTITION_CHANGE_RECORD for unknown partition {}-{}",
                                              name->second, rec.partition_id));
      }
      protocol::PartitionRecord& p = it->second;
      if (rec.replicas.has_value()) p.replicas = *rec.replicas;
      if (rec.directories.has_value() && !rec.directories->empty())
        p.directories = *rec.directories;
      if (rec.isr.has_value()) p.isr = *rec.isr;
      if (rec.removing_replicas.has_value()) p.removing_replicas = *rec.removing_replicas;
      if (rec.adding_replicas.has_value()) p.adding_replicas = *rec.adding_replicas;
      if (rec.leader != -2) {
        p.leader = rec.leader;
        ++p.leader_epoch;
      }
      p.leader_recovery_state =
          ChangeRecoveryState(p.leader_recovery_state, rec.leader_recovery_state);
      if (rec.eligible_leader_replicas.has_value()) {
        p.eligible_leader_replicas = *rec.eligible_leader_replicas;
      }
      if (rec.last_known_elr.has_value()) p.last_known_elr = *rec.last_known_elr;
      ++p.partition_epoch;
      return Status::OK();
    }
    case MetadataRecordType::kConfig: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::ConfigRecord>(r));
      auto key = std::make_pair(rec.resource_type, rec.resource_name);
      if (rec.value.has_value()) {
        configs_[key][rec.name] = *rec.value;
      } else if (auto it = configs_.find(key); it != configs_.end()) {
        it->second.erase(rec.name);
        if (it->second.empty()) configs_.erase(it);
      }
      return Status::OK();
    }
    case MetadataRecordType::kRemoveTopic: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::RemoveTopicRecord>(r));
      auto name = topic_names_.find(rec.topic_id);
      if (name == topic_names_.end()) {
        return Status::Corruption(
            fmt::format("REMOVE_TOPIC_RECORD for unknown topic id {}", rec.topic_id.ToString()));
      }
      configs_.erase({kConfigResourceTopic, name->second});
      topics_.erase(name->second);
      topic_names_.erase(name);
      return Status::OK();
    }
    case MetadataRecordType::kFeatureLevel: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::FeatureLevelRecord>(r));
      if (rec.feature_level == 0 && rec.name != kMetadataVersionFeature) {
        features_.erase(rec.name);
      } else {
        features_[rec.name] = rec.feature_level;
      }
      return Status::OK();
    }
    case MetadataRecordType::kProducerIds: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::ProducerIdsRecord>(r));
      producer_ids_ = {rec.broker_id, rec.broker_epoch, rec.next_producer_id};
      return Status::OK();
    }
    case MetadataRecordType::kAccessControlEntry: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::AccessControlEntryRecord>(r));
      acls_[rec.id] = std::move(rec);
      return Status::OK();
    }
    case MetadataRecordType::kRemoveAccessControlEntry: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::RemoveAccessControlEntryRecord>(r));
      acls_.erase(rec.id);
      return Status::OK();
    }
    case MetadataRecordType::kUserScramCredential: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::UserScramCredentialRecord>(r));
      scram_[{rec.name, rec.mechanism}] = std::move(rec);
      return Status::OK();
    }
    case MetadataRecordType::kRemoveUserScramCredential: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::RemoveUserScramCredentialRecord>(r));
      scram_.erase({rec.name, rec.mechanism});
      return Status::OK();
    }
    case MetadataRecordType::kClientQuota: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::ClientQuotaRecord>(r));
      std::vector<std::pair<std::string, std::optional<std::string>>> entity;
      for (const auto& e : rec.entity) entity.emplace_back(e.entity_type, e.entity_name);
      std::sort(entity.begin(), entity.end());
      auto key = std::make_pair(std::move(entity), rec.key);
      if (rec.remove) {
        quotas_.erase(key);
      } else {
        quotas_[std::move(key)] = std::move(rec);
      }
      return Status::OK();
    }
    case MetadataRecordType::kDelegationToken: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::DelegationTokenRecord>(r));
      tokens_[rec.token_id] = std::move(rec);
      return Status::OK();
    }
    case MetadataRecordType::kRemoveDelegationToken: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::RemoveDelegationTokenRecord>(r));
      tokens_.erase(rec.token_id);
      return Status::OK();
    }
    case MetadataRecordType::kClearElr: {
      SEGLOG_ASSIGN_OR_RETURN(auto rec, Decode<protocol::ClearElrRecord>(r));
      for (auto& [name, topic] : topics_) {
        if (!rec.topic_name.empty() && name != rec.topic_name) continue;
        for (auto& [id, p] : topic.partitions) {
          p.eligible_leader_replicas.reset();
          p.last_known_elr.reset();
        }
      }
      return Status::OK();
    }
    case MetadataRecordType::kNoOp:
    case MetadataRecordType::kZkMigrationState:
      // Checked, nothing to keep (a 4.x cluster has no ZooKeeper migration).
      {
        std::vector<uint8_t> encoded;
        return protocol::RoundTripMetadataRecord(r.api_key, r.version, r.body, &encoded);
      }
    default:
      break;
  }
  return Status::Corruption(fmt::format("metadata record type {} cannot be replayed here",
                                        MetadataRecordTypeName(r.api_key)));
}

Result<std::vector<MetadataRecordValue>> MetadataImage::SnapshotRecords() const {
  std::vector<MetadataRecordValue> out;
  // FeaturesImage: metadata.version first, then the others by name.
  if (auto mv = features_.find(kMetadataVersionFeature); mv != features_.end()) {
    protocol::FeatureLevelRecord rec;
    rec.name = mv->first;
    rec.feature_level = mv->second;
    SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  }
  for (const auto& [name, level] : features_) {
    if (name == kMetadataVersionFeature) continue;
    protocol::FeatureLevelRecord rec;
    rec.name = name;
    rec.feature_level = level;
    SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  }
  // ClusterImage: brokers, then controllers.
  for (const auto& [id, rec] : brokers_) {
    SEGLOG_RETURN_IF_ERROR(Add(&out, rec, broker_versions_.at(id)));
  }
  for (const auto& [id, rec] : controllers_) SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  // TopicsImage: each topic, then its partitions.
  for (const auto& [name, topic] : topics_) {
    protocol::TopicRecord t;
    t.name = name;
    t.topic_id = topic.id;
    SEGLOG_RETURN_IF_ERROR(Add(&out, t));
    for (const auto& [id, p] : topic.partitions) {
      protocol::PartitionRecord rec = p;
      // Kafka writes the ELR tagged fields only when they hold something.
      if (rec.eligible_leader_replicas.has_value() && rec.eligible_leader_replicas->empty()) {
        rec.eligible_leader_replicas.reset();
      }
      if (rec.last_known_elr.has_value() && rec.last_known_elr->empty()) rec.last_known_elr.reset();
      SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
    }
  }
  // ConfigurationsImage.
  for (const auto& [resource, entries] : configs_) {
    for (const auto& [key, value] : entries) {
      protocol::ConfigRecord rec;
      rec.resource_type = resource.first;
      rec.resource_name = resource.second;
      rec.name = key;
      rec.value = value;
      SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
    }
  }
  for (const auto& [key, rec] : quotas_) SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  // ProducerIdsImage: written without the broker that asked.
  if (producer_ids_.next_producer_id > 0) {
    protocol::ProducerIdsRecord rec;
    rec.broker_id = -1;
    rec.broker_epoch = -1;
    rec.next_producer_id = producer_ids_.next_producer_id;
    SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  }
  for (const auto& [id, rec] : acls_) SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  for (const auto& [key, rec] : scram_) SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  for (const auto& [key, rec] : tokens_) SEGLOG_RETURN_IF_ERROR(Add(&out, rec));
  return out;
}

}  // namespace seglog
