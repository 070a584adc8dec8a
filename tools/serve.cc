// Serve: see serve.h.
#include "tools/serve.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "remote/tiered_storage.h"
#include "seglog/scheduler.h"
#include "server/broker.h"
#include "server/socket_server.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

namespace {
std::string LocalHostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}
}  // namespace

Status Serve(const ServeOptions& options, const std::atomic<bool>& stop, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(ServerConfig config, LoadNodeConfig(options.node));
  auto logger = KafkaLayoutLogger(out);
  ThreadScheduler scheduler(config.background_threads);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<LogManager> logs,
                          LogManager::Open(config, &scheduler, logger));
  for (const std::string& k : config.ignored) logger.Info("Ignoring broker setting " + k);
  logs->StartTasks();
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<GroupCoordinator> groups,
                          GroupCoordinator::Open(config.group, logs.get(), &scheduler, logger));
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<TransactionCoordinator> txns,
                          TransactionCoordinator::Open(config.txn, logs.get(), &scheduler, logger));
  // Tiered storage (remote.log.storage.system.enable): the S3 store, __remote_log_metadata,
  // the index cache and the remote log manager's passes.
  std::unique_ptr<TieredStorage> tiered;
  if (config.remote.system_enable) {
    auto opened = TieredStorage::Open(config, logs.get(), /*start_tasks=*/true, logger);
    if (!opened.ok()) {
      txns->Shutdown();
      groups->Shutdown();
      (void)logs->Shutdown();
      return opened.status().WithContext("tiered storage");
    }
    tiered = std::move(*opened);
    logger.Info("Tiered storage enabled: remote log manager started");
  }

  BrokerContext ctx;
  ctx.logs = logs.get();
  ctx.groups = groups.get();
  ctx.txns = txns.get();
  ctx.remote = tiered ? tiered->manager() : nullptr;
  ctx.transaction_partition_verification = config.txn.transaction_partition_verification_enable;
  ctx.transaction_version = config.txn.transaction_version;
  ctx.node_id = config.node_id;
  ctx.cluster_id = logs->cluster_id();
  ctx.auto_create_topics = config.auto_create_topics_enable;
  ctx.num_partitions = config.num_partitions;
  ctx.logger = logger;
  ctx.clock = [&scheduler] { return scheduler.NowMs(); };
  const ListenerEndpoint advertised = config.advertised_listeners.empty()
                                          ? config.listeners.front()
                                          : config.advertised_listeners.front();
  ctx.advertised_host = advertised.host.empty() ? LocalHostName() : advertised.host;
  ctx.advertised_port->store(advertised.port);
  ctx.listener_name = advertised.name;
  ctx.next_producer_id = [&logs]() -> Result<int64_t> { return logs->NextProducerId(); };
  auto broker = std::make_unique<Broker>(ctx);
  // Transactions the last run left prepared get their markers now, before clients connect.
  txns->Start(broker->MarkerWriter());

  SocketServerOptions so = SocketServerOptions::FromServerConfig(config);
  so.logger = logger;
  std::unique_ptr<RequestHandler> front = options.front ? options.front(broker.get()) : nullptr;
  auto server = SocketServer::Start(so, front ? front.get() : broker.get());
  if (!server.ok()) {
    txns->Shutdown();
    broker->Shutdown();
    groups->Shutdown();
    if (tiered) tiered->Shutdown();
    Status closed = logs->Shutdown();
    (void)closed;
    return server.status();
  }
  const int port = server.value()->port();
  if (advertised.port == 0) ctx.advertised_port->store(port);
  logger.Info(fmt::format(
      "[KafkaServer id={}] started (seglog {}); cluster id {}; listening on {}:{}", config.node_id,
      "0.1.0", ctx.cluster_id,
      config.listeners.front().host.empty() ? "0.0.0.0" : config.listeners.front().host, port));
  if (options.on_listening) options.on_listening(port);
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));

  logger.Info(fmt::format("[KafkaServer id={}] shutting down", config.node_id));
  txns->Shutdown();                // no more markers,
  broker->Shutdown();              // parked fetches are answered first,
  groups->Shutdown();              // and joins waiting for a rebalance ...
  server.value()->Shutdown();      // ... then in-flight requests finish and connections close
  if (tiered) tiered->Shutdown();  // a copy in progress finishes; no new pass starts
  Status s = logs->Shutdown();
  scheduler.Shutdown();
  logger.Info(fmt::format("[KafkaServer id={}] shut down completed", config.node_id));
  return s;
}

}  // namespace seglog
