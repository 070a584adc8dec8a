// Serve: `seglog serve`, the single-node broker: the node's BrokerServer (node/broker_server.h:
// storage, the coordinators, tiered storage, the API layer and the socket server, started and
// stopped in one order) over the node's server.properties, until `stop`. Then a clean
// shutdown, so the next start needs no recovery.
//
// Thread safety: a function; runs on the caller's thread until stopped.
#ifndef SEGLOG_TOOLS_SERVE_H_
#define SEGLOG_TOOLS_SERVE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <ostream>

#include "seglog/status.h"
#include "server/request_handler.h"
#include "tools/node.h"

namespace seglog {

struct ServeOptions {
  NodeOptions node;  // --server-config, --override k=v (node.overrides), --log-dir
  // Called once the listeners are bound, with the first listener's port (tests bind port 0).
  std::function<void(int port)> on_listening;
  // When set, the socket server talks to the handler this returns, which stands in front of
  // the broker (bench/compare/broker's null broker answers Produce itself, to measure what
  // the clients can do against a broker that takes no time). Unset: the broker itself.
  std::function<std::unique_ptr<RequestHandler>(RequestHandler* broker)> front;
};

Status Serve(const ServeOptions& options, const std::atomic<bool>& stop, std::ostream& out);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_SERVE_H_
