// Client metrics subscriptions; see client_metrics_config.h.
#include "telemetry/client_metrics_config.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <charconv>
#include <set>

namespace seglog {

namespace {

const std::set<std::string>& MatchNames() {
  static const std::set<std::string> names = {"client_instance_id",    "client_id",
                                              "client_software_name",  "client_software_version",
                                              "client_source_address", "client_source_port"};
  return names;
}

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

const std::string* ValueOf(const ClientMetricsClient& c, const std::string& name) {
  if (name == "client_instance_id") return &c.client_instance_id;
  if (name == "client_id") return &c.client_id;
  if (name == "client_software_name") return &c.software_name;
  if (name == "client_software_version") return &c.software_version;
  if (name == "client_source_address") return &c.source_address;
  if (name == "client_source_port") return &c.source_port;
  return nullptr;
}

}  // namespace

std::vector<std::string> SplitConfigList(const std::string& value) {
  std::vector<std::string> out;
  if (Trim(value).empty()) return out;
  size_t from = 0;
  while (true) {
    const size_t comma = value.find(',', from);
    out.push_back(
        Trim(value.substr(from, comma == std::string::npos ? std::string::npos : comma - from)));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

Result<ClientMetricsSubscription> ClientMetricsSubscription::Parse(
    const std::string& name, const std::map<std::string, std::string>& configs) {
  if (name.empty()) return Status::InvalidArgument("Subscription name can't be empty");
  for (const auto& [k, v] : configs) {
    if (k != "metrics" && k != "interval.ms" && k != "match") {
      return Status::InvalidArgument(fmt::format("Unknown client metrics configuration: {}", k));
    }
  }
  ClientMetricsSubscription s;
  s.name_ = name;
  if (auto it = configs.find("metrics"); it != configs.end()) {
    s.metrics_ = SplitConfigList(it->second);
  }
  if (auto it = configs.find("interval.ms"); it != configs.end()) {
    const std::string v = Trim(it->second);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < INT32_MIN ||
        n > INT32_MAX) {
      return Status::FailedPrecondition(fmt::format(
          "Invalid value {} for configuration interval.ms: Not a number of type INT", it->second));
    }
    if (n < kMinIntervalMs || n > kMaxIntervalMs) {
      return Status::InvalidArgument(fmt::format(
          "Invalid value {} for interval.ms, interval must be between 100 and 3600000 (1 hour)",
          n));
    }
    s.interval_ms_ = static_cast<int32_t>(n);
  }
  if (auto it = configs.find("match"); it != configs.end()) {
    std::set<std::string> seen;
    for (const std::string& pattern : SplitConfigList(it->second)) {
      // Kafka splits on every '=' and wants exactly two parts.
      const size_t eq = pattern.find('=');
      const bool two_parts = eq != std::string::npos &&
                             pattern.find('=', eq + 1) == std::string::npos &&
                             eq + 1 < pattern.size() && eq > 0;
      const std::string illegal = fmt::format("Illegal client matching pattern: {}", pattern);
      if (!two_parts) return Status::FailedPrecondition(illegal);
      const std::string param = Trim(pattern.substr(0, eq));
      if (!MatchNames().count(param)) return Status::FailedPrecondition(illegal);
      RE2::Options options;
      options.set_log_errors(false);
      auto re = std::make_shared<const RE2>(Trim(pattern.substr(eq + 1)), options);
      if (!re->ok()) return Status::FailedPrecondition(illegal);
      // A later pattern for the same name replaces the earlier (Kafka's map).
      std::erase_if(s.patterns_, [&](const auto& p) { return p.first == param; });
      s.patterns_.emplace_back(param, std::move(re));
    }
  }
  return s;
}

bool ClientMetricsSubscription::Matches(const ClientMetricsClient& client) const {
  for (const auto& [name, re] : patterns_) {
    const std::string* value = ValueOf(client, name);
    if (value == nullptr) return false;
    if (!RE2::FullMatch(*value, *re)) return false;
  }
  return true;
}

}  // namespace seglog
