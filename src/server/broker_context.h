// BrokerContext: what the API handlers see of the broker - the engine's LogManager, the group
// coordinator, who this
// node is (id, advertised endpoint, cluster id), its settings, and the producer id source.
// Handlers are functions of (context, request) -> response, tested without sockets.
//
// Thread safety: immutable after construction; the LogManager and the producer id source
// are thread-safe.
#ifndef SEGLOG_SERVER_BROKER_CONTEXT_H_
#define SEGLOG_SERVER_BROKER_CONTEXT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/mutex.h"
#include "manager/log_manager.h"
#include "metrics/broker_metrics.h"
#include "security/standard_authorizer.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "server/client_quota_manager.h"
#include "server/controller_mutation_quota.h"
#include "telemetry/client_metrics_manager.h"

namespace seglog {

class GroupCoordinator;
class RemoteLogManager;
class ShareCoordinator;
class SharePartitionManager;
class ShareSessionCache;
class TransactionCoordinator;

// The finalized levels of the features UpdateFeatures changes at run time, as the metadata log
// has them. Thread safety: the levels are atomics any thread reads; `update_mu` serializes
// UpdateFeatures' append-then-publish so the levels follow the log's order.
struct LiveFeatures {
  std::atomic<int16_t> share_version{0};
  std::atomic<int16_t> streams_version{0};
  // ApiVersions' FinalizedFeaturesEpoch: the metadata log offset of the last feature change
  // seen (at start, the log's last offset), so that clients, which keep the finalized
  // features of the highest epoch, take a change.
  std::atomic<int64_t> epoch{1};
  Mutex update_mu;
};

struct BrokerContext {
  LogManager* logs = nullptr;
  // The consumer groups' coordinator; null: the group APIs answer COORDINATOR_NOT_AVAILABLE.
  GroupCoordinator* groups = nullptr;
  // The transaction coordinator; null: the transaction APIs answer COORDINATOR_NOT_AVAILABLE.
  TransactionCoordinator* txns = nullptr;
  // The share coordinator (__share_group_state); null: its RPCs answer COORDINATOR_NOT_AVAILABLE.
  ShareCoordinator* share_state = nullptr;
  // Share sessions and the share partitions this node leads (ShareFetch, ShareAcknowledge);
  // null: those APIs answer COORDINATOR_NOT_AVAILABLE.
  ShareSessionCache* share_sessions = nullptr;
  SharePartitionManager* share_partitions = nullptr;
  // Tiered storage (remote.log.storage.system.enable): fetches below a log's local start and
  // timestamp lookups in remote segments go through it. Null: nothing is tiered.
  RemoteLogManager* remote = nullptr;
  // authorizer.class.name's StandardAuthorizer over the metadata log's ACLs; null: no
  // authorizer (the ACL APIs answer SECURITY_DISABLED).
  std::shared_ptr<StandardAuthorizer> authorizer;
  // The broker's settings as given (server.properties, then --override): DescribeConfigs'
  // STATIC_BROKER_CONFIG values.
  std::map<std::string, std::string> static_configs;
  // transaction.partition.verification.enable: a transactional batch's partition must be in
  // its producer's transaction (checked with the coordinator before the append).
  bool transaction_partition_verification = true;
  // The finalized level of the transaction.version feature ApiVersions advertises (0: none).
  int16_t transaction_version = 0;
  // The finalized levels that change while the node runs (UpdateFeatures); shared by copies of
  // the context, read per request.
  std::shared_ptr<LiveFeatures> features = std::make_shared<LiveFeatures>();
  // The finalized share.version (KIP-932): 0 refuses the share group APIs with
  // UNSUPPORTED_VERSION, as Kafka does; 1 and 2 serve them.
  int16_t share_version() const { return features->share_version.load(); }
  // The finalized streams.version (KIP-1071): 0 refuses the streams group APIs with
  // UNSUPPORTED_VERSION, as Kafka does; 1 serves them.
  int16_t streams_version() const { return features->streams_version.load(); }
  int32_t node_id = 1;
  std::string cluster_id;
  // What Metadata and DescribeCluster tell clients to connect to.
  std::string advertised_host = "localhost";
  // Shared so a server started on port 0 can publish the port it bound before clients learn it.
  std::shared_ptr<std::atomic<int32_t>> advertised_port =
      std::make_shared<std::atomic<int32_t>>(9092);
  // The advertised listener's name (DescribeQuorum names this node's endpoint with it).
  std::string listener_name = "PLAINTEXT";
  // The other advertised listeners: a client is told the endpoint of the listener it came in
  // on, as Kafka tells it (the one above when its listener is not advertised).
  struct Advertised {
    std::string host;
    std::shared_ptr<std::atomic<int32_t>> port;
  };
  std::map<std::string, Advertised> other_listeners;
  bool auto_create_topics = true;   // auto.create.topics.enable
  bool delete_topic_enable = true;  // delete.topic.enable
  // fetch.max.bytes: the most record bytes one Fetch response carries, whatever it asks.
  int32_t fetch_max_bytes = 55 * 1024 * 1024;
  // Client quotas (client_quota_manager.h); null: none are enforced.
  std::shared_ptr<ClientQuotaManager> quotas;
  // controller_mutation_rate quotas (controller_mutation_quota.h); null: none are enforced.
  std::shared_ptr<ControllerMutationQuotaManager> mutation_quotas;
  // The metrics /metrics serves (metrics/broker_metrics.h); null: none are counted.
  std::shared_ptr<BrokerMetrics> metrics;
  // KIP-714 client telemetry (telemetry/client_metrics_manager.h): set when pushed metrics have
  // somewhere to go (the HTTP listener's /metrics), as Kafka serves GetTelemetrySubscriptions
  // and PushTelemetry only with a telemetry exporter; null: neither is advertised or served.
  // CLIENT_METRICS subscriptions are stored either way.
  std::shared_ptr<ClientMetricsManager> telemetry;
  // The named loggers the BROKER_LOGGER resource describes and changes
  // (base/logger_registry.h); null: the process's LoggerRegistry::Global().
  LoggerRegistry* loggers = nullptr;
  int32_t num_partitions = 1;  // num.partitions: a new topic's default
  // A producer id never handed out before (persisted blocks, so never again after a restart).
  std::function<Result<int64_t>()> next_producer_id;
  // The time in ms since the epoch, as the logs' scheduler tells it (tests set a mock's);
  // unset: the system clock.
  std::function<int64_t()> clock;
  int64_t NowMs() const {
    if (clock) return clock();
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // Log lines in Kafka's words.
  Logger logger;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_BROKER_CONTEXT_H_
