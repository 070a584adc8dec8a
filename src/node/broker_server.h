// BrokerServer: a seglog node's broker - storage (LogManager and its background tasks), the
// group and transaction coordinators, tiered storage, the Kafka API layer (Broker) and the
// socket server - started and stopped in one order, written here once (Kafka's BrokerServer
// startup and shutdown).
//
// Start: the scheduler, the logs (recovery) and their tasks, the coordinators (each loads its
// internal topic), tiered storage, the broker; transactions the last run left prepared get
// their markers; then the socket server binds and clients may connect.
//
// Shutdown: no more markers; parked fetches are answered first, and joins waiting for a
// rebalance; then the socket server finishes the requests in progress and closes connections;
// a tiered-storage copy in progress finishes; the logs close (checkpoints, clean-shutdown
// marker), so the next start needs no recovery. A start that fails part way stops what it had
// started in the same order.
//
// Thread safety: Start and Shutdown are called by one owner; port() and cluster_id() from any
// thread once started.
#ifndef SEGLOG_NODE_BROKER_SERVER_H_
#define SEGLOG_NODE_BROKER_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "http/http_server.h"
#include "metrics/broker_metrics.h"
#include "node/broker_config.h"
#include "seglog/logger.h"
#include "seglog/result.h"
#include "seglog/status.h"
#include "server/request_handler.h"

namespace seglog {

class Broker;
class GroupCoordinator;
class LogManager;
class ShareCoordinator;
class ShareDlqWriter;
class ShareSessionCache;
class SharePartitionManager;
class SocketServer;
class ThreadScheduler;
class TieredStorage;
class TransactionCoordinator;
struct BrokerContext;

class BrokerServer {
 public:
  struct Options {
    // Receives the node's log lines in Kafka's words; its sink must be thread-safe. Default:
    // none.
    Logger logger;
    // When set, the socket server talks to the handler this returns, which stands in front of
    // the broker (bench/compare/broker's null broker). Unset: the broker itself.
    std::function<std::unique_ptr<RequestHandler>(RequestHandler* broker)> front;
  };

  static Result<std::unique_ptr<BrokerServer>> Start(const BrokerConfig& config, Options options);
  ~BrokerServer();  // Shutdown()
  BrokerServer(const BrokerServer&) = delete;
  BrokerServer& operator=(const BrokerServer&) = delete;

  // The port the first listener bound (the configured one, or the one picked for port 0).
  int port() const;
  // The HTTP listener's port (http.listener; its port when that was 0), -1 when off.
  int http_port() const { return http_ != nullptr ? http_->port() : -1; }
  const std::string& cluster_id() const;

  // Stops everything that was started, in the order above. The second call does nothing and
  // returns the first's outcome: the logs' shutdown.
  Status Shutdown();

 private:
  BrokerServer(const BrokerConfig& config, Options options);
  Status StartAll();

  const BrokerConfig config_;
  const Options options_;
  std::unique_ptr<ThreadScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<GroupCoordinator> groups_;
  std::unique_ptr<TransactionCoordinator> txns_;
  std::unique_ptr<ShareCoordinator> share_state_;
  std::unique_ptr<ShareSessionCache> share_sessions_;
  // Writes share groups' dead-letter-queue records (KIP-1191); stopped before the logs close.
  std::unique_ptr<ShareDlqWriter> share_dlq_;
  std::shared_ptr<SharePartitionManager> share_partitions_;
  std::unique_ptr<TieredStorage> tiered_;
  std::unique_ptr<BrokerContext> context_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<RequestHandler> front_;
  std::unique_ptr<SocketServer> server_;
  std::shared_ptr<BrokerMetrics> metrics_;
  std::unique_ptr<HttpServer> http_;  // http.listener, when set
  int port_ = 0;
  bool started_ = false;
  bool shut_down_ = false;
  Status shutdown_status_;
};

}  // namespace seglog

#endif  // SEGLOG_NODE_BROKER_SERVER_H_
