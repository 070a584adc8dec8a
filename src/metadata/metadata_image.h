// MetadataImage: the state KRaft's metadata records build - Kafka's MetadataImage, as one
// single-node cluster needs it: features, broker and controller registrations, topics with
// their partitions, configs, producer-id blocks, and (kept as read, to be written back in
// snapshots) ACLs, SCRAM credentials, client quotas and delegation tokens.
//
// Replay applies records in log order with Kafka's rules (MetadataDelta and the controller's
// replay): a PartitionChangeRecord merges into its partition (a new leader bumps leaderEpoch,
// every change bumps partitionEpoch), a RemoveTopicRecord also drops the topic's configs, a
// feature at level 0 is removed, a ConfigRecord with a null value deletes the key. Records
// between BeginTransactionRecord and EndTransactionRecord apply together at the end (an
// AbortTransactionRecord drops them). A record type this build does not know, or a version
// above the schema's, is refused, as Kafka refuses it: the error names the record.
//
// SnapshotRecords writes the image back as records, in the order Kafka's MetadataImage.write
// uses (docs/format/metadata_log.md, "Snapshots").
//
// Thread safety: a value type; not synchronised (the MetadataStore guards its image).
#ifndef SEGLOG_METADATA_METADATA_IMAGE_H_
#define SEGLOG_METADATA_METADATA_IMAGE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/uuid.h"
#include "metadata/metadata_record_serde.h"
#include "protocol/generated/access_control_entry_record.h"
#include "protocol/generated/client_quota_record.h"
#include "protocol/generated/delegation_token_record.h"
#include "protocol/generated/partition_record.h"
#include "protocol/generated/register_broker_record.h"
#include "protocol/generated/register_controller_record.h"
#include "protocol/generated/user_scram_credential_record.h"
#include "seglog/result.h"

namespace seglog {

// Kafka's ConfigResource.Type ids, as ConfigRecord.resourceType carries them.
inline constexpr int8_t kConfigResourceTopic = 2;
inline constexpr int8_t kConfigResourceBroker = 4;
inline constexpr int8_t kConfigResourceClientMetrics = 16;
inline constexpr int8_t kConfigResourceGroup = 32;

// "metadata.version", the feature every image must have.
inline constexpr const char* kMetadataVersionFeature = "metadata.version";
inline constexpr const char* kEligibleLeaderReplicasFeature = "eligible.leader.replicas.version";

struct TopicImage {
  std::string name;
  Uuid id;
  // Each partition as a PartitionRecord of the current state would carry it.
  std::map<int32_t, protocol::PartitionRecord> partitions;
};

struct ProducerIdsImage {
  int32_t broker_id = -1;
  int64_t broker_epoch = -1;
  int64_t next_producer_id = 0;  // the first id of the next block to hand out
};

class MetadataImage {
 public:
  // Applies one record. On error the image is unchanged.
  Status Replay(const MetadataRecordFrame& record);
  // Applies a framed record value (ParseMetadataRecordFrame, then Replay).
  Status ReplayValue(std::span<const uint8_t> value);
  // Whether a metadata transaction is open (records buffered, not yet applied).
  bool in_transaction() const { return in_transaction_; }
  // Drops an open transaction's records, as Kafka's new leader does (an AbortTransactionRecord).
  void AbortTransaction();

  const std::map<std::string, int16_t>& features() const { return features_; }
  // The feature's level, 0 when absent.
  int16_t FeatureLevel(const std::string& name) const;

  const std::map<std::string, TopicImage>& topics() const { return topics_; }
  const TopicImage* FindTopic(const std::string& name) const;
  const TopicImage* FindTopicById(const Uuid& id) const;

  // The configs set on one resource (type, name); nullptr when none.
  const std::map<std::string, std::string>* Configs(int8_t type, const std::string& name) const;
  const std::map<std::pair<int8_t, std::string>, std::map<std::string, std::string>>& configs()
      const {
    return configs_;
  }

  const ProducerIdsImage& producer_ids() const { return producer_ids_; }
  const std::map<int32_t, protocol::RegisterBrokerRecord>& brokers() const { return brokers_; }
  const std::map<int32_t, protocol::RegisterControllerRecord>& controllers() const {
    return controllers_;
  }
  const std::map<Uuid, protocol::AccessControlEntryRecord>& acls() const { return acls_; }
  size_t scram_credentials() const { return scram_.size(); }
  // SCRAM credentials by (user, mechanism code).
  const std::map<std::pair<std::string, int8_t>, protocol::UserScramCredentialRecord>& scram()
      const {
    return scram_;
  }
  size_t client_quotas() const { return quotas_.size(); }
  // Client quotas by (the entity's (type, name) pairs sorted by type, key); a null name is the
  // type's default entity.
  using ClientQuotaKey =
      std::pair<std::vector<std::pair<std::string, std::optional<std::string>>>, std::string>;
  const std::map<ClientQuotaKey, protocol::ClientQuotaRecord>& quotas() const { return quotas_; }
  size_t delegation_tokens() const { return tokens_.size(); }

  // The image as records, in Kafka's snapshot order: features, brokers and controllers, each
  // topic then its partitions, configs, client quotas, producer ids, ACLs, SCRAM credentials,
  // delegation tokens.
  Result<std::vector<MetadataRecordValue>> SnapshotRecords() const;

 private:
  Status Apply(const MetadataRecordFrame& record);

  std::map<std::string, int16_t> features_;
  std::map<std::string, TopicImage> topics_;
  std::map<Uuid, std::string> topic_names_;  // id -> name
  std::map<std::pair<int8_t, std::string>, std::map<std::string, std::string>> configs_;
  ProducerIdsImage producer_ids_;
  std::map<int32_t, protocol::RegisterBrokerRecord> brokers_;
  std::map<int32_t, int16_t> broker_versions_;  // the version each registration was read at
  std::map<int32_t, protocol::RegisterControllerRecord> controllers_;
  std::map<Uuid, protocol::AccessControlEntryRecord> acls_;
  std::map<std::pair<std::string, int8_t>, protocol::UserScramCredentialRecord> scram_;
  // Keyed by the entity's (type, name) pairs, then the quota's key.
  std::map<ClientQuotaKey, protocol::ClientQuotaRecord> quotas_;
  std::map<std::string, protocol::DelegationTokenRecord> tokens_;
  bool in_transaction_ = false;
  struct Pending {
    int16_t api_key;
    int16_t version;
    std::vector<uint8_t> body;
  };
  std::vector<Pending> pending_;
};

}  // namespace seglog

#endif  // SEGLOG_METADATA_METADATA_IMAGE_H_
