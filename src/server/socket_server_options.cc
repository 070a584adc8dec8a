// SocketServerOptions::Set; see socket_server.h.
#include "base/config_values.h"
#include "server/socket_server.h"

namespace seglog {

namespace {

using O = SocketServerOptions;

const ConfigSetters<O>& Setters() {
  static const ConfigSetters<O> setters = {
      {"num.network.threads", SetConfigInt<O, int32_t, &O::num_network_threads, 1>},
      {"num.io.threads", SetConfigInt<O, int32_t, &O::num_io_threads, 1>},
      {"queued.max.requests", SetConfigInt<O, int32_t, &O::queued_max_requests, 1>},
      {"socket.request.max.bytes", SetConfigInt<O, int32_t, &O::socket_request_max_bytes, 1>},
      {"socket.send.buffer.bytes",
       SetConfigInt<O, int32_t, &O::socket_send_buffer_bytes, INT32_MIN>},
      {"socket.receive.buffer.bytes",
       SetConfigInt<O, int32_t, &O::socket_receive_buffer_bytes, INT32_MIN>},
      {"socket.listen.backlog.size", SetConfigInt<O, int32_t, &O::socket_listen_backlog_size, 1>},
      {"max.connections", SetConfigInt<O, int32_t, &O::max_connections, 0>},
      {"connections.max.idle.ms", SetConfigInt<O, int64_t, &O::connections_max_idle_ms, INT64_MIN>},
      {"connection.failed.authentication.delay.ms",
       SetConfigInt<O, int64_t, &O::failed_authentication_delay_ms, 0>},
  };
  return setters;
}

}  // namespace

std::optional<Status> SocketServerOptions::Set(const std::string& key, const std::string& value) {
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
