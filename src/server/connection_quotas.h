// ConnectionQuotas: Kafka's connection limits (its ConnectionQuotas), kept by the acceptor and
// the network threads together.
//
// - max.connections (broker-wide) and listener.name.<l>.max.connections: while either is
//   reached, the listener accepts nothing more (new connections wait in the kernel's backlog),
//   until a connection closes. Kafka's acceptor blocks the same way.
// - max.connection.creation.rate and listener.name.<l>.max.connection.creation.rate: new
//   connections per second over Kafka's quota window (WindowedRate, quota.window.num x
//   quota.window.size.seconds); a connection past the rate is held (not read) for the throttle
//   time before it is served, and the listener accepts nothing meanwhile.
// - max.connections.per.ip and max.connections.per.ip.overrides (host:count, hosts resolved
//   at start): a connection from an address that already has its maximum is closed at once,
//   logged as Kafka logs it.
// - An ip entity's connection_creation_rate client quota (the metadata log's, the address's
//   own or the default ip entity's): a connection past it is not served and closed once the
//   throttle time has passed (Kafka's delayed close), and is counted neither as a connection
//   nor in the other rates. Checked before the per-IP maximum, as Kafka's inc does.
// - Every throttle is bounded by one quota window (Kafka's ConnectionQuotas.maxThrottleTimeMs).
//
// Thread safety: thread-safe (one mutex; nothing is done under it but counting).
#ifndef SEGLOG_SERVER_CONNECTION_QUOTAS_H_
#define SEGLOG_SERVER_CONNECTION_QUOTAS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "base/windowed_rate.h"
#include "seglog/result.h"

namespace seglog {

struct ConnectionLimits {
  int32_t max_connections = INT32_MAX;                      // max.connections
  int32_t max_connections_per_ip = INT32_MAX;               // max.connections.per.ip
  std::map<std::string, int32_t> per_ip_overrides;          // by IP address (resolved)
  int32_t max_connection_creation_rate = INT32_MAX;         // max.connection.creation.rate
  std::map<std::string, int32_t> listener_max_connections;  // by listener name
  std::map<std::string, int32_t> listener_max_connection_creation_rate;  // by listener name
  int32_t quota_window_num = 11;                                         // quota.window.num
  int64_t quota_window_size_ms = 1000;  // quota.window.size.seconds x 1000
  // The connection_creation_rate quota of an address (nullopt: none). Null: no ip quotas.
  // Called by the acceptor; must be thread-safe.
  std::function<std::optional<double>(const std::string& address)> ip_connection_rate;
};

// Kafka's max.connections.per.ip.overrides: "host:count,host:count" with each host resolved to
// its address (getaddrinfo). InvalidArgument naming the entry for a bad one.
Result<std::map<std::string, int32_t>> ParseConnectionOverrides(const std::string& value);

class ConnectionQuotas {
 public:
  explicit ConnectionQuotas(ConnectionLimits limits) : limits_(std::move(limits)) {}

  // Whether `listener` may take a connection now (neither it nor the broker at its maximum).
  bool SlotAvailable(const std::string& listener) const EXCLUDES(mu_);
  // Counts a new connection on `listener` against the creation rates; the time (ms) it must
  // wait before it is served, 0 within the rates.
  int64_t RecordCreation(const std::string& listener, int64_t now_ms) EXCLUDES(mu_);
  // Counts a new connection from `address` against its ip quota: 0 within it, else the time
  // (ms) after which the connection is closed unserved (then it is not counted).
  int64_t RecordIpCreation(const std::string& address, int64_t now_ms) EXCLUDES(mu_);
  // Counts an accepted connection from `address`. False (not counted) when the address
  // already has its maximum; `*limit` is that maximum.
  bool Inc(const std::string& listener, const std::string& address, int32_t* limit) EXCLUDES(mu_);
  void Dec(const std::string& listener, const std::string& address) EXCLUDES(mu_);

  int32_t LimitFor(const std::string& address) const;
  int64_t total() const EXCLUDES(mu_);
  int64_t CountFor(const std::string& address) const EXCLUDES(mu_);

 private:
  WindowedRate& RateFor(const std::string& key) REQUIRES(mu_);
  // Drops the ip rates idle for a whole quota window span (their samples have expired).
  void PurgeIpRates(int64_t now_ms) REQUIRES(mu_);

  const ConnectionLimits limits_;
  mutable Mutex mu_;
  int64_t total_ GUARDED_BY(mu_) = 0;
  std::map<std::string, int64_t> per_listener_ GUARDED_BY(mu_);
  std::map<std::string, int64_t> per_ip_ GUARDED_BY(mu_);
  // Creation rates: "" for the broker's, the listener's name for its own.
  std::map<std::string, std::unique_ptr<WindowedRate>> rates_ GUARDED_BY(mu_);
  // ip quota rates by address, with the time each was last used.
  std::map<std::string, std::pair<std::unique_ptr<WindowedRate>, int64_t>> ip_rates_
      GUARDED_BY(mu_);
  int64_t last_ip_purge_ms_ GUARDED_BY(mu_) = 0;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_CONNECTION_QUOTAS_H_
