// BrokerConfig: a seglog node's whole server.properties - what Kafka's KafkaConfig holds for
// one broker - read with Kafka's names, defaults and validation, every problem reported at
// once. Each layer parses its own keys: storage (LogManagerConfig, which this extends), the
// listeners and the socket server (src/server), the group and transaction coordinators,
// tiered storage, and the node's own (auto.create.topics.enable, default.replication.factor). A
// Kafka broker's keys no layer uses are listed in `ignored`; any other key is an error naming it.
// Log levels, which Kafka keeps in its log4j file, are read here in log4j's form
// (log4j.rootLogger=LEVEL, log4j.logger.<name>=LEVEL; base/logger_registry.h).
//
// Thread safety: a value type.
#ifndef SEGLOG_NODE_BROKER_CONFIG_H_
#define SEGLOG_NODE_BROKER_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "group/group_coordinator_config.h"
#include "manager/log_manager_config.h"
#include "remote/remote_log_storage_config.h"
#include "seglog/result.h"
#include "server/listener_config.h"
#include "server/socket_server.h"
#include "sharestate/share_coordinator_config.h"
#include "txn/transaction_coordinator_config.h"

namespace seglog {

struct BrokerConfig : LogManagerConfig {
  bool auto_create_topics_enable = true;             // Metadata creates unknown topics
  bool delete_topic_enable = true;                   // delete.topic.enable: DeleteTopics allowed
  int32_t fetch_max_bytes = 55 * 1024 * 1024;        // fetch.max.bytes: a Fetch response's bytes
  int32_t controller_quota_window_num = 11;          // controller.quota.window.num
  int32_t controller_quota_window_size_seconds = 1;  // controller.quota.window.size.seconds
  int16_t default_replication_factor = 1;            // must be 1: one node holds every replica
  // errors.deadletterqueue.auto.create.topics.enable / errors.deadletterqueue.topic.name.prefix
  // (KIP-1191): a share group's missing DLQ topic is created; DLQ topic names must start with
  // the prefix ("": any name). Read at start, as Kafka's GroupCoordinatorConfig.
  bool dlq_auto_create_topics_enable = false;
  std::string dlq_topic_name_prefix = "dlq.";
  // telemetry.max.bytes: the most a KIP-714 push's metrics may be, compressed or inflated.
  int32_t telemetry_max_bytes = 1024 * 1024;
  // http.listener=HOST:PORT (seglog's own): /metrics and the console; port -1: off.
  std::string http_host;
  int http_port = -1;
  // listeners (where to accept connections, PLAINTEXT only; listeners named in
  // controller.listener.names are left out: there is no KRaft controller) and
  // advertised.listeners (what Metadata tells clients; `listeners` when not set).
  std::vector<ListenerEndpoint> listeners = ListenerConfigs().listeners;
  std::vector<ListenerEndpoint> advertised_listeners = ListenerConfigs().advertised_listeners;
  // The socket server's settings (num.network.threads, socket.request.max.bytes ...); its
  // listeners, node id and logger are set when the node starts it.
  SocketServerOptions socket;
  GroupCoordinatorConfig group;
  TransactionCoordinatorConfig txn;
  ShareCoordinatorConfig share;  // share.coordinator.*
  RemoteLogStorageConfig remote;
  // Every key as given (server.properties, then the overrides): what DescribeConfigs reports
  // as STATIC_BROKER_CONFIG.
  std::map<std::string, std::string> properties;

  static Result<BrokerConfig> FromProperties(const std::map<std::string, std::string>& props);
  // FromProperties of a server.properties file; errors name the file.
  static Result<BrokerConfig> Load(const std::string& path);

  // The socket server's options: `socket` with the listeners and the node id.
  SocketServerOptions SocketServer() const;
};

}  // namespace seglog

#endif  // SEGLOG_NODE_BROKER_CONFIG_H_
