// Serve: see serve.h.
#include "tools/serve.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <mutex>
#include <thread>

#include "manager/log_manager.h"
#include "seglog/scheduler.h"
#include "server/broker.h"
#include "server/socket_server.h"

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
  std::mutex out_mu;
  // Kafka's log4j layout: "[date time,ms] LEVEL message".
  auto logger = [&out, &out_mu](const std::string& line) {
    const auto now = std::chrono::system_clock::now();
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    std::string level = "INFO";
    std::string text = line;
    for (const char* l : {"WARN", "ERROR", "DEBUG"}) {
      const std::string prefix = std::string(l) + " ";
      if (text.rfind(prefix, 0) == 0) {
        level = l;
        text = text.substr(prefix.size());
      }
    }
    std::lock_guard<std::mutex> lock(out_mu);
    out << "[" << buf << "," << fmt::format("{:03d}", ms.count()) << "] " << level << " " << text
        << "\n";
    out.flush();
  };
  ThreadScheduler scheduler(config.background_threads);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<LogManager> logs,
                          LogManager::Open(config, &scheduler, logger));
  for (const std::string& k : config.ignored) logger("Ignoring broker setting " + k);
  logs->StartTasks();

  BrokerContext ctx;
  ctx.logs = logs.get();
  ctx.node_id = config.node_id;
  ctx.cluster_id = logs->cluster_id();
  ctx.auto_create_topics = config.auto_create_topics_enable;
  ctx.num_partitions = config.num_partitions;
  ctx.logger = logger;
  const ListenerEndpoint advertised = config.advertised_listeners.empty()
                                          ? config.listeners.front()
                                          : config.advertised_listeners.front();
  ctx.advertised_host = advertised.host.empty() ? LocalHostName() : advertised.host;
  ctx.advertised_port->store(advertised.port);
  ctx.next_producer_id = [&logs]() -> Result<int64_t> { return logs->NextProducerId(); };
  auto broker = std::make_unique<Broker>(ctx);

  SocketServerOptions so = SocketServerOptions::FromServerConfig(config);
  so.logger = logger;
  auto server = SocketServer::Start(so, broker.get());
  if (!server.ok()) {
    broker->Shutdown();
    Status closed = logs->Shutdown();
    (void)closed;
    return server.status();
  }
  const int port = server.value()->port();
  if (advertised.port == 0) ctx.advertised_port->store(port);
  logger(fmt::format(
      "[KafkaServer id={}] started (seglog {}); cluster id {}; listening on {}:{}", config.node_id,
      "0.1.0", ctx.cluster_id,
      config.listeners.front().host.empty() ? "0.0.0.0" : config.listeners.front().host, port));
  if (options.on_listening) options.on_listening(port);
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));

  logger(fmt::format("[KafkaServer id={}] shutting down", config.node_id));
  broker->Shutdown();          // parked fetches are answered first ...
  server.value()->Shutdown();  // ... then in-flight requests finish and connections close
  Status s = logs->Shutdown();
  scheduler.Shutdown();
  logger(fmt::format("[KafkaServer id={}] shut down completed", config.node_id));
  return s;
}

}  // namespace seglog
