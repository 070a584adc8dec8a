// Serve: see serve.h.
#include "tools/serve.h"

#include <chrono>
#include <thread>

#include "node/broker_server.h"

namespace seglog {

Status Serve(const ServeOptions& options, const std::atomic<bool>& stop, std::ostream& out) {
  SEGLOG_ASSIGN_OR_RETURN(BrokerConfig config, LoadNodeConfig(options.node));
  BrokerServer::Options server_options;
  server_options.logger = KafkaLayoutLogger(out);
  server_options.front = options.front;
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<BrokerServer> server,
                          BrokerServer::Start(config, std::move(server_options)));
  if (options.on_listening) options.on_listening(server->port());
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return server->Shutdown();
}

}  // namespace seglog
