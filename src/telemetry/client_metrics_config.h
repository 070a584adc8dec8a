// ClientMetricsSubscription: one KIP-714 client metrics subscription, the CLIENT_METRICS (16)
// config resource `kafka-client-metrics.sh` writes, with Kafka's ClientMetricsConfigs rules:
//   metrics      comma-separated metric name prefixes ("" or "*": all metrics), default none
//   interval.ms  the push interval, 100..3600000, default 300000
//   match        comma-separated NAME=REGEX, NAME one of client_instance_id, client_id,
//                client_software_name, client_software_version, client_source_address,
//                client_source_port; every one must match the whole value (none: every client)
// Kafka compiles the patterns with java.util.regex; seglog with RE2, whose syntax is the same
// for ordinary patterns but has no backreferences or lookaround (refused as invalid here).
//
// Thread safety: immutable after Parse; safe to share between threads.
#ifndef SEGLOG_TELEMETRY_CLIENT_METRICS_CONFIG_H_
#define SEGLOG_TELEMETRY_CLIENT_METRICS_CONFIG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seglog/result.h"

namespace re2 {
class RE2;
}

namespace seglog {

// What a subscription's match patterns are matched against: a client as the broker sees it.
struct ClientMetricsClient {
  std::string client_instance_id;  // Kafka's Uuid text
  std::string client_id;
  std::string software_name;  // from the connection's ApiVersions; empty: unknown
  std::string software_version;
  std::string source_address;  // the IP address
  std::string source_port;
};

class ClientMetricsSubscription {
 public:
  static constexpr int32_t kDefaultIntervalMs = 5 * 60 * 1000;
  static constexpr int32_t kMinIntervalMs = 100;
  static constexpr int32_t kMaxIntervalMs = 3600000;

  // The subscription `name` with `configs` as stored. Errors as Kafka answers an alter of them:
  // InvalidArgument for Kafka's INVALID_REQUEST (an empty name, an unknown key, an interval out
  // of range) and FailedPrecondition for INVALID_CONFIG (a value that is not an integer, an
  // illegal match pattern), each with Kafka's message.
  static Result<ClientMetricsSubscription> Parse(const std::string& name,
                                                 const std::map<std::string, std::string>& configs);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  int32_t interval_ms() const { return interval_ms_; }
  // Whether every pattern matches the client's value in full (a value the client lacks does
  // not match); no patterns: true.
  bool Matches(const ClientMetricsClient& client) const;

 private:
  std::string name_;
  std::vector<std::string> metrics_;
  int32_t interval_ms_ = kDefaultIntervalMs;
  std::vector<std::pair<std::string, std::shared_ptr<const re2::RE2>>> patterns_;
};

// Kafka's ConfigDef LIST parsing: split on ',' and trim each item; "" is an empty list.
std::vector<std::string> SplitConfigList(const std::string& value);

}  // namespace seglog

#endif  // SEGLOG_TELEMETRY_CLIENT_METRICS_CONFIG_H_
