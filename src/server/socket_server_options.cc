// SocketServerOptions::Set; see socket_server.h.
#include "base/config_values.h"
#include "server/socket_server.h"

namespace seglog {

namespace {

using O = SocketServerOptions;

const ConfigSetters<O>& Setters() {
  static const ConfigSetters<O> setters = {
      {"num.network.threads",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("num.network.threads", v, 1, &o->num_network_threads);
       }},
      {"num.io.threads",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("num.io.threads", v, 1, &o->num_io_threads);
       }},
      {"queued.max.requests",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("queued.max.requests", v, 1, &o->queued_max_requests);
       }},
      {"socket.request.max.bytes",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("socket.request.max.bytes", v, 1,
                                        &o->socket_request_max_bytes);
       }},
      {"socket.send.buffer.bytes",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("socket.send.buffer.bytes", v, INT32_MIN,
                                        &o->socket_send_buffer_bytes);
       }},
      {"socket.receive.buffer.bytes",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("socket.receive.buffer.bytes", v, INT32_MIN,
                                        &o->socket_receive_buffer_bytes);
       }},
      {"socket.listen.backlog.size",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("socket.listen.backlog.size", v, 1,
                                        &o->socket_listen_backlog_size);
       }},
      {"max.connections",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int32_t>("max.connections", v, 0, &o->max_connections);
       }},
      {"connections.max.idle.ms",
       [](O* o, const std::string& v) {
         return ParseConfigInt<int64_t>("connections.max.idle.ms", v, INT64_MIN,
                                        &o->connections_max_idle_ms);
       }},
  };
  return setters;
}

}  // namespace

std::optional<Status> SocketServerOptions::Set(const std::string& key, const std::string& value) {
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
