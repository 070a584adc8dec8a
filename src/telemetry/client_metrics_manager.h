// ClientMetricsManager: the broker's side of KIP-714 client telemetry, as Kafka's
// ClientMetricsManager and ClientMetricsInstance do it:
//
// - Subscriptions (client_metrics_config.h), set from the CLIENT_METRICS config resources.
// - Client instances, by client instance id (a fresh random Uuid for a client that sends the
//   zero id), each with the subscription computed from every subscription that matches it: the
//   union of their metric prefixes ("*" when one wants all), the smallest push interval
//   (300000 ms when none), and a subscription id (CRC-32C of the sorted prefixes and the
//   interval, xor the id's hash) that changes whenever those do. An instance is re-evaluated at
//   its next request after any subscription changes; it is forgotten after max(60 s, 3 push
//   intervals) without a request, when its connection closes, or as the least recently used
//   once 16384 are known.
// - GetTelemetrySubscriptions and PushTelemetry with Kafka's checks and errors, in Kafka's
//   order (see the methods).
// - The metrics pushed (OTLP, decompressed and decoded: otlp_metrics_decoder.h), kept per client
//   instance for /metrics as seglog_client_telemetry_<name> with the client's labels and each
//   point's attributes: gauges and cumulative sums as last pushed, monotonic delta sums (what a
//   Java client sends, as the broker asks for delta temporality) added up. A client's series
//   go when it has not pushed for max(60 s, 3 push intervals); their number is capped per client
//   and in all, new series past a cap are dropped (and counted).
//
// Thread safety: thread-safe; one mutex guards the state and is never held while a payload is
// decompressed or decoded.
#ifndef SEGLOG_TELEMETRY_CLIENT_METRICS_MANAGER_H_
#define SEGLOG_TELEMETRY_CLIENT_METRICS_MANAGER_H_

#include <prometheus/metric_family.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/uuid.h"
#include "seglog/result.h"
#include "seglog/status.h"
#include "telemetry/client_metrics_config.h"

namespace seglog {

class ClientMetricsManager {
 public:
  struct Options {
    int32_t telemetry_max_bytes = 1024 * 1024;  // telemetry.max.bytes
    int64_t min_expiry_ms = 60 * 1000;
    size_t max_instances = 16384;
    size_t max_series = 20000;
    size_t max_series_per_client = 2000;
  };

  // Who sent a telemetry request.
  struct Caller {
    uint64_t connection_id = 0;
    std::string client_id;
    std::string source_address;  // IP
    std::string source_port;
  };

  struct GetAnswer {
    int16_t error_code = 0;
    std::string error_message;
    Uuid client_instance_id;
    int32_t subscription_id = 0;
    std::vector<int8_t> accepted_compression_types;
    int32_t push_interval_ms = 0;
    int32_t telemetry_max_bytes = 0;
    bool delta_temporality = false;
    std::vector<std::string> requested_metrics;
  };

  struct PushAnswer {
    int16_t error_code = 0;
    std::string error_message;
  };

  // Kafka's error codes these answers use.
  static constexpr int16_t kInvalidRequest = 42;
  static constexpr int16_t kUnsupportedCompressionType = 76;
  static constexpr int16_t kInvalidRecord = 87;
  static constexpr int16_t kThrottlingQuotaExceeded = 89;
  static constexpr int16_t kUnknownSubscriptionId = 117;
  static constexpr int16_t kTelemetryTooLarge = 118;

  explicit ClientMetricsManager(Options options);
  ClientMetricsManager() : ClientMetricsManager(Options{}) {}

  // Sets subscription `name` to `configs` (empty: removes it). Errors as
  // ClientMetricsSubscription::Parse; nothing changes then.
  Status UpdateSubscription(const std::string& name,
                            const std::map<std::string, std::string>& configs) EXCLUDES(mu_);
  std::vector<std::string> SubscriptionNames() const EXCLUDES(mu_);

  // The client software a connection named in its ApiVersions request (Kafka's
  // ClientInformation; "unknown" until then).
  void SetClientSoftware(uint64_t connection_id, const std::string& name,
                         const std::string& version) EXCLUDES(mu_);
  // Forgets the connection and the client instance that last used it.
  void ConnectionClosed(uint64_t connection_id) EXCLUDES(mu_);

  // GetTelemetrySubscriptions: THROTTLING_QUOTA_EXCEEDED when it comes within the push interval
  // of the instance's last request (unless its last push failed with UNKNOWN_SUBSCRIPTION_ID or
  // UNSUPPORTED_COMPRESSION_TYPE); an error answer carries nothing else.
  GetAnswer GetSubscriptions(const Uuid& client_instance_id, const Caller& caller, int64_t now_ms)
      EXCLUDES(mu_);

  // PushTelemetry, checked in Kafka's order: INVALID_REQUEST for the zero or reserved id or after
  // a terminating push; THROTTLING_QUOTA_EXCEEDED within the push interval of the last push
  // (unless a GetTelemetrySubscriptions came since, or this one is terminating);
  // UNKNOWN_SUBSCRIPTION_ID; UNSUPPORTED_COMPRESSION_TYPE; TELEMETRY_TOO_LARGE for a payload
  // (compressed, or once decompressed) over telemetry.max.bytes; INVALID_RECORD for one that
  // does not decompress or decode.
  PushAnswer Push(const Uuid& client_instance_id, int32_t subscription_id, bool terminating,
                  int8_t compression_type, std::span<const uint8_t> metrics, const Caller& caller,
                  int64_t now_ms) EXCLUDES(mu_);

  // The pushed metrics and the manager's own counters, as Prometheus families (expired clients
  // are dropped first).
  std::vector<prometheus::MetricFamily> Collect(int64_t now_ms) EXCLUDES(mu_);

  // For tests: how many client instances are known, and series kept.
  size_t InstanceCount() const EXCLUDES(mu_);
  size_t SeriesCount() const EXCLUDES(mu_);

 private:
  struct Instance {
    Uuid id;
    ClientMetricsClient client;
    uint64_t connection_id = 0;
    uint64_t subscription_version = 0;
    int32_t subscription_id = 0;
    int32_t push_interval_ms = ClientMetricsSubscription::kDefaultIntervalMs;
    std::vector<std::string> metrics;
    // Never, at first (Kafka's 0 ms since the epoch).
    int64_t last_get_ms = std::numeric_limits<int64_t>::min() / 2;
    int64_t last_push_ms = std::numeric_limits<int64_t>::min() / 2;
    int64_t last_request_ms = 0;
    bool terminating = false;
    int16_t last_error = 0;
  };
  // One client's pushed series: metric name -> labels -> value.
  struct Pushed {
    std::map<std::string, std::string> client_labels;
    int64_t last_push_ms = 0;
    int64_t expiry_ms = 0;
    uint64_t pushes = 0;
    std::map<std::string, std::map<std::map<std::string, std::string>, double>> series;
    std::map<std::string, bool> is_counter;
    size_t count = 0;
  };

  Instance& InstanceFor(const Uuid& id, const Caller& caller, int64_t now_ms) REQUIRES(mu_);
  void Evaluate(Instance* instance) REQUIRES(mu_);
  void Expire(int64_t now_ms) REQUIRES(mu_);
  int64_t ExpiryMs(int32_t push_interval_ms) const;
  void CountError(int16_t code);
  void SetLastError(const Uuid& id, int16_t code) EXCLUDES(mu_);

  const Options options_;
  mutable Mutex mu_;
  std::map<std::string, ClientMetricsSubscription> subscriptions_ GUARDED_BY(mu_);
  uint64_t subscription_version_ GUARDED_BY(mu_) = 0;
  std::map<Uuid, Instance> instances_ GUARDED_BY(mu_);
  std::map<uint64_t, Uuid> connection_instance_ GUARDED_BY(mu_);
  std::map<uint64_t, std::pair<std::string, std::string>> software_ GUARDED_BY(mu_);
  std::map<Uuid, Pushed> pushed_ GUARDED_BY(mu_);
  bool expired_once_ GUARDED_BY(mu_) = false;
  int64_t last_expire_ms_ GUARDED_BY(mu_) = 0;
  size_t series_ GUARDED_BY(mu_) = 0;
  uint64_t dropped_series_ GUARDED_BY(mu_) = 0;
  static constexpr std::array<int16_t, 6> kErrorCodes = {
      kInvalidRequest,          kUnsupportedCompressionType, kInvalidRecord,
      kThrottlingQuotaExceeded, kUnknownSubscriptionId,      kTelemetryTooLarge};
  std::array<std::atomic<uint64_t>, 6> errors_{};
};

}  // namespace seglog

#endif  // SEGLOG_TELEMETRY_CLIENT_METRICS_MANAGER_H_
