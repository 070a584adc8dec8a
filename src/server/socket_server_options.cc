// SocketServerOptions::Set; see socket_server.h.
#include <cctype>
#include <string_view>

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
      {"max.connections.per.ip", SetConfigInt<O, int32_t, &O::max_connections_per_ip, 0>},
      {"max.connections.per.ip.overrides",
       [](O* o, const std::string&, const std::string& v) {
         o->max_connections_per_ip_overrides = v;
         return Status::OK();
       }},
      {"max.connection.creation.rate",
       SetConfigInt<O, int32_t, &O::max_connection_creation_rate, 0>},
      {"queued.max.request.bytes",
       SetConfigInt<O, int64_t, &O::queued_max_request_bytes, INT64_MIN>},
      {"quota.window.num", SetConfigInt<O, int32_t, &O::quota_window_num, 1>},
      {"quota.window.size.seconds", SetConfigInt<O, int32_t, &O::quota_window_size_seconds, 1>},
      {"connections.max.idle.ms", SetConfigInt<O, int64_t, &O::connections_max_idle_ms, INT64_MIN>},
      {"connection.failed.authentication.delay.ms",
       SetConfigInt<O, int64_t, &O::failed_authentication_delay_ms, 0>},
  };
  return setters;
}

}  // namespace

std::optional<Status> SocketServerOptions::Set(const std::string& key, const std::string& value) {
  // listener.name.<l>.max.connections and listener.name.<l>.max.connection.creation.rate.
  constexpr std::string_view kPrefix = "listener.name.";
  if (key.rfind(kPrefix, 0) == 0) {
    const size_t dot = key.find('.', kPrefix.size());
    if (dot != std::string::npos && dot > kPrefix.size()) {
      const std::string listener = key.substr(kPrefix.size(), dot - kPrefix.size());
      // Kafka's listener names are upper case in listeners; the prefix is lower case.
      std::string upper = listener;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const std::string rest = key.substr(dot + 1);
      std::map<std::string, int32_t>* target = rest == "max.connections" ? &listener_max_connections
                                               : rest == "max.connection.creation.rate"
                                                   ? &listener_max_connection_creation_rate
                                                   : nullptr;
      if (target != nullptr) {
        int32_t v = 0;
        Status st = ParseConfigInt<int32_t>(key, value, 0, &v);
        if (st.ok()) (*target)[upper] = v;
        return st;
      }
    }
  }
  return SetConfigKey(Setters(), this, key, value);
}

}  // namespace seglog
