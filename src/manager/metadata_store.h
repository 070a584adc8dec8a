// MetadataStore: the node's topics, their configs and the producer-id blocks, kept in KRaft's
// metadata log (metadata/metadata_log.h) the way a single-node Kafka's controller keeps them,
// so a Kafka 4.4.0 broker started on the directory finds them (docs/design/metadata.md).
//
// Every change is the records Kafka's controller would write for it, appended as one batch,
// fsynced, and applied to the image before the call returns OK:
//
//   CreateTopics     per topic: TopicRecord, a ConfigRecord per config, a PartitionRecord per
//                    partition (replicas [node], isr [node], leader node, the directory.id of
//                    the log directory that holds it); a whole request in one batch and one
//                    fsync, as Kafka's controller commits a CreateTopics request atomically
//   AddPartitions    a PartitionRecord per new partition
//   DeleteTopic      a ConfigRecord with a null value per config, then RemoveTopicRecord (Kafka
//                    writes only the latter; its replay can keep a deleted topic's configs, so
//                    seglog removes them explicitly)
//   AlterTopicConfig a ConfigRecord per changed key (null: removed); nothing when nothing changes
//   AlterBrokerConfig the same for a BROKER resource: "" the cluster-wide defaults, else a node
//   AlterClientMetricsConfig the same for a CLIENT_METRICS resource (16), a client metrics
//                    subscription
//   AlterGroupConfig the same for a GROUP resource (32), a group's own configs
//   producer ids     ProducerIdsRecord{node, -1, end of the new block}, once a block of 1000
//   CreateAcls       an AccessControlEntryRecord per new ACL (a fresh id), none for one that
//                    exists already
//   DeleteAcls       a RemoveAccessControlEntryRecord per ACL some filter matches, once each
//   AlterClientQuotas a ClientQuotaRecord per key set to a new value or removed (remove=true)
//   AssignDirectories a PartitionChangeRecord{directories [dir]} per partition whose log is in
//                    another directory than the metadata says
//   TakeLeadership   a PartitionChangeRecord{leader node, isr [node], ELR cleared} for each
//                    partition another run left without this node as leader (a Kafka broker's
//                    clean stop leaves every partition leaderless)
//
// Open formats a directory that has no metadata log (a new directory, or one an earlier seglog
// wrote with seglog-topics.json): it writes the bootstrap snapshot with Kafka 4.4.0's features
// and says so through formatted(); the caller then migrates what it found.
//
// Thread safety: thread-safe. mu_ serialises the writers and is held over their append and
// fsync; only other metadata writers (topic operations, a new producer-id block) wait on it.
// Readers take copies under it (Topics, LeaderEpoch), never during I/O of theirs. The client
// quotas' snapshot is published under quotas_mu_ (taken after mu_, never before), so the
// per-request quota lookups never wait on a metadata write.
#ifndef SEGLOG_MANAGER_METADATA_STORE_H_
#define SEGLOG_MANAGER_METADATA_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/uuid.h"
#include "io/env.h"
#include "manager/client_quota_control.h"
#include "manager/client_quota_lookup.h"
#include "manager/topic_store.h"
#include "metadata/metadata_log.h"
#include "security/acl.h"
#include "security/scram.h"
#include "seglog/logger.h"
#include "seglog/result.h"

namespace seglog {

struct MetadataStoreOptions {
  int32_t node_id = 1;
  bool read_only = false;
  Env* env = nullptr;
  std::function<int64_t()> clock;
  Logger logger;
  MetadataLogOptions log;  // sizes and snapshot settings (node_id, env, clock, logger are set here)
};

// One topic of a CreateTopics call: its id is drawn by the caller (TopicIdInUse), its
// partitions' directories chosen (one directory id per partition).
struct NewTopicRecords {
  std::string name;
  Uuid id;
  std::map<std::string, std::string> configs;
  std::vector<Uuid> partition_dirs;
};

class MetadataStore {
 public:
  // FailedPrecondition when the metadata log in `log_dir` names another broker or a partition
  // this node is not the only replica of (a Kafka cluster grew from the directory); reads only,
  // so a node refuses such a directory before it changes anything (its clean-shutdown marker
  // included). OK for a directory without a metadata log.
  static Status CheckSingleNodeDirectory(const std::string& log_dir, int32_t node_id, Env* env);
  // NotFound for a read-only open of a directory without a metadata log.
  static Result<std::unique_ptr<MetadataStore>> Open(const std::string& log_dir,
                                                     MetadataStoreOptions options);
  ~MetadataStore();

  // Whether Open wrote the bootstrap snapshot just now.
  bool formatted() const { return formatted_; }
  const std::string& dir() const { return dir_; }

  // Starts this run's epoch (quorum-state, LeaderChange).
  Status BecomeLeader() EXCLUDES(mu_);

  Status CreateTopic(const std::string& name, const Uuid& id,
                     const std::map<std::string, std::string>& configs,
                     const std::vector<Uuid>& partition_dirs) EXCLUDES(mu_);
  // Records every topic that neither exists nor repeats an earlier one of `topics` (by name or
  // id: AlreadyExists) in one append, or in as few as KRaft's 8 MiB batch limit allows; a
  // status per topic, in order. A failed append fails the topics it held, and only those.
  std::vector<Status> CreateTopics(const std::vector<NewTopicRecords>& topics) EXCLUDES(mu_);
  // Whether a topic has `id` (a new topic must draw another, as Kafka's controller does).
  bool TopicIdInUse(const Uuid& id) const EXCLUDES(mu_);
  Status AddPartitions(const std::string& name, const std::vector<Uuid>& new_partition_dirs)
      EXCLUDES(mu_);
  Status DeleteTopic(const std::string& name) EXCLUDES(mu_);
  Status AlterTopicConfig(const std::string& name, const std::map<std::string, std::string>& next)
      EXCLUDES(mu_);
  // The dynamic configs of a BROKER resource ("": the cluster-wide defaults, else a node id):
  // sets them to `next`, and returns them.
  Status AlterBrokerConfig(const std::string& name, const std::map<std::string, std::string>& next)
      EXCLUDES(mu_);
  std::map<std::string, std::string> BrokerConfigs(const std::string& name) const EXCLUDES(mu_);
  // The same for a CLIENT_METRICS resource (a KIP-714 subscription; empty `next`: removed), and
  // every subscription's configs by name.
  Status AlterClientMetricsConfig(const std::string& name,
                                  const std::map<std::string, std::string>& next) EXCLUDES(mu_);
  std::map<std::string, std::map<std::string, std::string>> ClientMetricsConfigs() const
      EXCLUDES(mu_);
  // The same for a GROUP resource (32, Kafka's GroupConfig: a group's own consumer.*, share.*,
  // streams.* settings; empty `next`: none left), one group's configs (none: empty), and every
  // group's that has any, by group id. Callers validate first (group/group_config.h).
  Status AlterGroupConfig(const std::string& name, const std::map<std::string, std::string>& next)
      EXCLUDES(mu_);
  std::map<std::string, std::string> GroupConfigs(const std::string& name) const EXCLUDES(mu_);
  std::map<std::string, std::map<std::string, std::string>> AllGroupConfigs() const EXCLUDES(mu_);
  // ACLs (Kafka's AclControlManager). Every ACL, by id.
  std::map<Uuid, AclBinding> Acls() const EXCLUDES(mu_);
  // A status per ACL, in order: InvalidArgument in Kafka's words for a resource type, pattern,
  // operation or permission an ACL cannot have ("Invalid resourceType ANY", ...); OK for a new
  // one (recorded) and for one that exists already (nothing written). One append for all.
  std::vector<Status> CreateAcls(const std::vector<AclBinding>& acls) EXCLUDES(mu_);
  // The ACLs each filter matches (an ACL two filters match is listed for both and removed once);
  // one append for all. An error of the append fails every filter.
  Result<std::vector<std::vector<std::pair<Uuid, AclBinding>>>> DeleteAcls(
      const std::vector<AclBindingFilter>& filters) EXCLUDES(mu_);
  // SCRAM credentials (Kafka's ScramControlManager): one user's for a mechanism, if any.
  std::optional<ScramCredential> ScramCredentialOf(const std::string& user,
                                                   ScramMechanism mechanism) const EXCLUDES(mu_);
  // Every user with a credential, and its mechanisms with their iterations.
  std::map<std::string, std::vector<std::pair<ScramMechanism, int32_t>>> ScramUsers() const
      EXCLUDES(mu_);
  // Removes the (user, mechanism) credentials of `deletions` and sets those of `upsertions`, in
  // one append (UserScramCredentialRecord / RemoveUserScramCredentialRecord); the caller has
  // checked them (Kafka's validation lives with the API). NotFound for a deletion of a
  // credential that does not exist, and then nothing is written.
  Status AlterScramCredentials(
      const std::vector<std::pair<std::string, ScramMechanism>>& deletions,
      const std::vector<std::pair<std::string, ScramCredential>>& upsertions) EXCLUDES(mu_);
  // Client quotas (Kafka's ClientQuotaControlManager, manager/client_quota_control.h). The
  // entities `filter` matches, or Kafka's error for a bad filter.
  ClientQuotaDescription DescribeClientQuotas(const ClientQuotaFilter& filter) const
      EXCLUDES(quotas_mu_);
  // Kafka's answer per distinct entity, in the order they first appear; what succeeds is
  // recorded in one append unless `validate_only`. An error of the append fails the request.
  Result<std::vector<std::pair<ClientQuotaEntity, ClientQuotaError>>> AlterClientQuotas(
      const std::vector<ClientQuotaAlteration>& alterations, bool validate_only)
      EXCLUDES(mu_, quotas_mu_);
  // The quotas as the throttling reads them: an immutable snapshot, replaced when they change.
  std::shared_ptr<const ClientQuotaSnapshot> ClientQuotas() const EXCLUDES(quotas_mu_);
  // The version of the latest snapshot (it grows with each change), read without a lock: a
  // caller that keeps a snapshot takes a new one when this differs from the kept one's.
  uint64_t client_quotas_version() const {
    return client_quotas_version_.load(std::memory_order_acquire);
  }
  // Reserves the next block of producer ids; returns its first id.
  Result<int64_t> ReserveProducerIdBlock() EXCLUDES(mu_);
  // Registers this node as a broker, as Kafka's controller records a BrokerRegistration: a
  // RegisterBrokerRecord (a new incarnation id, unfenced, the log directories' ids, the
  // features this node runs) whose broker epoch is its own offset. Returns that epoch, which the
  // log directories' .kafka_cleanshutdown carries at a clean stop, so that a Kafka broker
  // starting next proves the stop was clean and keeps every partition's leader clean.
  Result<int64_t> RegisterBroker(const std::vector<Uuid>& log_dirs) EXCLUDES(mu_);
  int64_t broker_epoch() const EXCLUDES(mu_);
  // At a clean stop, what Kafka's controller records for a broker's controlled shutdown: the
  // registration in controlled shutdown, every partition it leads leaderless (with ELR on: ISR
  // empty, ELR and last known ELR [node]), then the registration fenced. A Kafka broker starting
  // next then neither waits for the old registration's session (DUPLICATE_BROKER_REGISTRATION)
  // nor leads partitions of the old incarnation for a moment before its controller takes them
  // away (which stops its coordinators' loads). The next seglog start elects itself again.
  // Nothing when the node never registered.
  Status ControlledShutdown() EXCLUDES(mu_);
  // Records that producer ids below `next_block_start` were handed out (a legacy
  // seglog-producer-ids file being migrated).
  Status MigrateProducerIds(int64_t next_block_start) EXCLUDES(mu_);
  // Records the log directory each partition's log is in, where the metadata names another
  // (a move between log directories, AlterReplicaLogDirs): a PartitionChangeRecord with only
  // `directories`, as Kafka's controller writes for a broker's AssignReplicasToDirs.
  struct PartitionDir {
    std::string topic;
    int32_t partition = 0;
    Uuid dir;
  };
  Status AssignDirectories(const std::vector<PartitionDir>& where) EXCLUDES(mu_);
  // Makes this node the leader of every partition it is not leading (see above).
  Status TakeLeadership() EXCLUDES(mu_);

  // The topics as the LogManager keeps them: partition count, id, configs.
  TopicMap Topics() const EXCLUDES(mu_);
  std::optional<TopicMetadata> FindTopic(const std::string& name) const EXCLUDES(mu_);
  // Every partition's leader epoch, by topic then partition.
  std::map<std::string, std::vector<int32_t>> LeaderEpochs() const EXCLUDES(mu_);
  int16_t FeatureLevel(const std::string& feature) const EXCLUDES(mu_);
  // Finalizes each feature at its level, as Kafka's controller records UpdateFeatures: one
  // FeatureLevelRecord each, in one append (all or none); level 0 removes the feature.
  Status SetFeatureLevels(const std::vector<std::pair<std::string, int16_t>>& levels) EXCLUDES(mu_);
  // kraft.version: 1 for a dynamic quorum (formatted --standalone), else 0.
  int16_t KRaftVersion() const EXCLUDES(mu_);
  int64_t end_offset() const EXCLUDES(mu_);

  // Snapshot and retention when due (a periodic task).
  Status MaybeSnapshot() EXCLUDES(mu_);
  Status Close() EXCLUDES(mu_);

 private:
  MetadataStore(std::string dir, MetadataStoreOptions options)
      : dir_(std::move(dir)), options_(std::move(options)) {}
  Status AppendLocked(const std::vector<MetadataRecordValue>& records) REQUIRES(mu_);
  // Builds and publishes the quotas' snapshot from the image.
  void PublishClientQuotasLocked() REQUIRES(mu_) EXCLUDES(quotas_mu_);
  // ConfigRecords that take resource (type, name) from its configs to `next`.
  Status AlterConfigsLocked(int8_t type, const std::string& name,
                            const std::map<std::string, std::string>& next) REQUIRES(mu_);

  const std::string dir_;
  const MetadataStoreOptions options_;
  bool formatted_ = false;
  mutable Mutex mu_;
  std::unique_ptr<MetadataLog> log_ GUARDED_BY(mu_);
  int64_t broker_epoch_ GUARDED_BY(mu_) = -1;
  mutable Mutex quotas_mu_ ACQUIRED_AFTER(mu_);
  std::shared_ptr<const ClientQuotaSnapshot> client_quotas_ GUARDED_BY(quotas_mu_);
  std::atomic<uint64_t> client_quotas_version_{0};
};

}  // namespace seglog

#endif  // SEGLOG_MANAGER_METADATA_STORE_H_
