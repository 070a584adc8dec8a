// KIP-714 client telemetry; see client_metrics_manager.h.
#include "telemetry/client_metrics_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "base/crc32c.h"
#include "record/compression.h"
#include "telemetry/otlp_metrics_decoder.h"

namespace seglog {

namespace {

// Kafka's order of preference: zstd, lz4, gzip, snappy.
const std::vector<int8_t> kAcceptedCompression = {4, 3, 1, 2};

// Kafka's Uuid.hashCode: the halves xored, then the int halves of that xored.
int32_t UuidHash(const Uuid& id) {
  uint64_t most = 0, least = 0;
  for (int i = 0; i < 8; ++i) most = (most << 8) | id.bytes[i];
  for (int i = 8; i < 16; ++i) least = (least << 8) | id.bytes[i];
  const uint64_t h = most ^ least;
  return static_cast<int32_t>(static_cast<uint32_t>(h >> 32) ^ static_cast<uint32_t>(h));
}

bool Reserved(const Uuid& id) {
  return id.IsZero() || id == Uuid::FromHalves(0, 1);  // Kafka's Uuid.RESERVED
}

// A Prometheus name (metric or label): [a-zA-Z_][a-zA-Z0-9_]*, anything else '_'.
std::string PromName(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 1);
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

// A label value as Prometheus' text format takes it: valid UTF-8 (each byte of an invalid
// sequence becomes U+FFFD; one bad value would make Prometheus refuse the whole scrape), at most
// kMaxLabelBytes bytes (a client chooses its client id and attributes).
constexpr size_t kMaxLabelBytes = 256;
std::string LabelValue(std::string_view s) {
  std::string out;
  out.reserve(std::min(s.size(), kMaxLabelBytes));
  size_t i = 0;
  while (i < s.size() && out.size() < kMaxLabelBytes) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    }
    if (ok && len == 2 && c < 0xc2) ok = false;  // overlong
    if (ok && len == 3) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0)) ok = false;  // overlong, surrogate
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xf0 && c1 < 0x90) || c > 0xf4 || (c == 0xf4 && c1 >= 0x90)) ok = false;
    }
    if (ok) {
      if (out.size() + len > kMaxLabelBytes) break;
      out.append(s.substr(i, len));
      i += len;
    } else {
      if (out.size() + 3 > kMaxLabelBytes) break;
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

// The families the manager exports itself: a pushed metric may not take their names.
bool ReservedName(const std::string& name) {
  return name == "seglog_client_telemetry_pushes_total" ||
         name == "seglog_client_telemetry_instances" ||
         name == "seglog_client_telemetry_dropped_series_total" ||
         name == "seglog_client_telemetry_errors_total";
}

}  // namespace

ClientMetricsManager::ClientMetricsManager(Options options) : options_(options) {}

int64_t ClientMetricsManager::ExpiryMs(int32_t push_interval_ms) const {
  return std::max<int64_t>(options_.min_expiry_ms, 3 * static_cast<int64_t>(push_interval_ms));
}

Status ClientMetricsManager::UpdateSubscription(const std::string& name,
                                                const std::map<std::string, std::string>& configs) {
  Result<ClientMetricsSubscription> parsed = ClientMetricsSubscription::Parse(name, configs);
  if (!parsed.ok()) return parsed.status();
  MutexLock l(&mu_);
  if (configs.empty()) {
    if (subscriptions_.erase(name) > 0) ++subscription_version_;
    return Status::OK();
  }
  subscriptions_.insert_or_assign(name, std::move(parsed).value());
  ++subscription_version_;
  return Status::OK();
}

std::vector<std::string> ClientMetricsManager::SubscriptionNames() const {
  MutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, s] : subscriptions_) out.push_back(name);
  return out;
}

namespace {

// Kafka's ApiVersionsRequest pattern for the software name and version,
// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?, with a length bound of seglog's: what ApiVersions
// would refuse is never kept (nor drawn as a label).
bool ValidSoftwareToken(const std::string& s) {
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (s.empty() || s.size() > 255 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

void ClientMetricsManager::SetClientSoftware(uint64_t connection_id, const std::string& name,
                                             const std::string& version) {
  if (!ValidSoftwareToken(name) || !ValidSoftwareToken(version)) return;
  MutexLock l(&mu_);
  // Bounded: an ApiVersions handled after its connection closed would otherwise leave an
  // entry behind for good. Past the bound, the oldest connection's goes first.
  if (software_.size() >= options_.max_instances && !software_.count(connection_id)) {
    software_.erase(software_.begin());
  }
  software_[connection_id] = {name, version};
}

void ClientMetricsManager::ConnectionClosed(uint64_t connection_id) {
  MutexLock l(&mu_);
  software_.erase(connection_id);
  auto it = connection_instance_.find(connection_id);
  if (it == connection_instance_.end()) return;
  auto inst = instances_.find(it->second);
  if (inst != instances_.end() && inst->second.connection_id == connection_id) {
    instances_.erase(inst);
  }
  connection_instance_.erase(it);
}

void ClientMetricsManager::Evaluate(Instance* instance) {
  int32_t interval = ClientMetricsSubscription::kDefaultIntervalMs;
  std::set<std::string> metrics;
  bool all = false;
  for (const auto& [name, s] : subscriptions_) {
    if (!s.Matches(instance->client)) continue;
    for (const std::string& m : s.metrics()) {
      if (m == "*") all = true;
      metrics.insert(m);
    }
    interval = std::min(interval, s.interval_ms());
  }
  if (all) metrics = {"*"};
  instance->metrics.assign(metrics.begin(), metrics.end());
  instance->push_interval_ms = interval;
  instance->subscription_version = subscription_version_;
  // Kafka's: CRC-32C of the metric set's text and the interval, xor the id's hash.
  const std::string text = fmt::format("[{}]{}", fmt::join(instance->metrics, ", "), interval);
  const uint32_t crc =
      Crc32c(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  instance->subscription_id = static_cast<int32_t>(crc) ^ UuidHash(instance->id);
}

void ClientMetricsManager::Expire(int64_t now_ms) {
  // A walk over every instance: at most once a second, not on every request.
  if (expired_once_ && now_ms >= last_expire_ms_ && now_ms - last_expire_ms_ < 1000) return;
  expired_once_ = true;
  last_expire_ms_ = now_ms;
  for (auto it = instances_.begin(); it != instances_.end();) {
    if (now_ms - it->second.last_request_ms > ExpiryMs(it->second.push_interval_ms)) {
      connection_instance_.erase(it->second.connection_id);
      it = instances_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = pushed_.begin(); it != pushed_.end();) {
    if (now_ms - it->second.last_push_ms > it->second.expiry_ms) {
      series_ -= it->second.count;
      it = pushed_.erase(it);
    } else {
      ++it;
    }
  }
}

ClientMetricsManager::Instance& ClientMetricsManager::InstanceFor(const Uuid& id,
                                                                  const Caller& caller,
                                                                  int64_t now_ms) {
  Expire(now_ms);
  auto it = instances_.find(id);
  if (it == instances_.end()) {
    if (instances_.size() >= options_.max_instances) {
      // The least recently used goes, as Kafka's LRU cache drops it.
      auto oldest = std::min_element(instances_.begin(), instances_.end(), [](auto& a, auto& b) {
        return a.second.last_request_ms < b.second.last_request_ms;
      });
      connection_instance_.erase(oldest->second.connection_id);
      instances_.erase(oldest);
    }
    Instance inst;
    inst.id = id;
    inst.client.client_instance_id = id.ToString();
    inst.client.client_id = caller.client_id;
    auto sw = software_.find(caller.connection_id);
    inst.client.software_name = sw != software_.end() ? sw->second.first : "unknown";
    inst.client.software_version = sw != software_.end() ? sw->second.second : "unknown";
    inst.client.source_address = caller.source_address;
    inst.client.source_port = caller.source_port;
    inst.connection_id = caller.connection_id;
    Evaluate(&inst);
    it = instances_.emplace(id, std::move(inst)).first;
  } else if (it->second.subscription_version < subscription_version_) {
    // Kafka makes a new instance for the changed subscription: its timestamps, terminating
    // flag and last error start again.
    Instance& inst = it->second;
    inst.last_get_ms = inst.last_push_ms = std::numeric_limits<int64_t>::min() / 2;
    inst.terminating = false;
    inst.last_error = 0;
    Evaluate(&inst);
  }
  it->second.connection_id = caller.connection_id;
  it->second.last_request_ms = now_ms;
  connection_instance_[caller.connection_id] = id;
  return it->second;
}

ClientMetricsManager::GetAnswer ClientMetricsManager::GetSubscriptions(
    const Uuid& client_instance_id, const Caller& caller, int64_t now_ms) {
  MutexLock l(&mu_);
  Uuid id = client_instance_id;
  if (id.IsZero()) {
    do {
      id = Uuid::Random();
    } while (instances_.count(id));
  }
  Instance& inst = InstanceFor(id, caller, now_ms);
  GetAnswer a;
  const int64_t last = std::max(inst.last_get_ms, inst.last_push_ms);
  if (now_ms - last >= inst.push_interval_ms) {
    inst.last_get_ms = now_ms;
  } else if (inst.last_error != kUnknownSubscriptionId &&
             inst.last_error != kUnsupportedCompressionType) {
    CountError(kThrottlingQuotaExceeded);
    a.error_code = kThrottlingQuotaExceeded;
    a.error_message =
        fmt::format("Request from the client [{}] arrived before the next push interval time",
                    client_instance_id.ToString());
    return a;
  }
  inst.last_error = 0;
  a.client_instance_id = id;
  a.subscription_id = inst.subscription_id;
  a.accepted_compression_types = kAcceptedCompression;
  a.push_interval_ms = inst.push_interval_ms;
  a.telemetry_max_bytes = options_.telemetry_max_bytes;
  a.delta_temporality = true;
  a.requested_metrics = inst.metrics;
  return a;
}

ClientMetricsManager::PushAnswer ClientMetricsManager::Push(const Uuid& client_instance_id,
                                                            int32_t subscription_id,
                                                            bool terminating,
                                                            int8_t compression_type,
                                                            std::span<const uint8_t> metrics,
                                                            const Caller& caller, int64_t now_ms) {
  const std::string id_text = client_instance_id.ToString();
  auto fail = [this](int16_t code, std::string message) {
    CountError(code);
    return PushAnswer{code, std::move(message)};
  };
  std::map<std::string, std::string> client_labels;
  int32_t push_interval_ms = 0;
  {
    MutexLock l(&mu_);
    if (Reserved(client_instance_id)) {
      return fail(
          kInvalidRequest,
          fmt::format("Invalid request from the client [{}], invalid client instance id", id_text));
    }
    Instance& inst = InstanceFor(client_instance_id, caller, now_ms);
    PushAnswer a;
    if (inst.terminating) {
      a = fail(kInvalidRequest,
               fmt::format("Client [{}] sent the previous request with state terminating to "
                           "TRUE, can not acceptany requests after that",
                           id_text));
    } else {
      bool accept = inst.last_get_ms > inst.last_push_ms ||
                    now_ms - inst.last_push_ms >= inst.push_interval_ms;
      if (accept) inst.last_push_ms = now_ms;
      if (!accept && !terminating) {
        a = fail(kThrottlingQuotaExceeded,
                 fmt::format("Request from the client [{}] arrived before the next push "
                             "interval time",
                             id_text));
      } else if (subscription_id != inst.subscription_id) {
        a = fail(kUnknownSubscriptionId,
                 fmt::format("Unknown client subscription id for the client [{}]", id_text));
      } else if (compression_type < 0 || compression_type > 4) {
        a = fail(kUnsupportedCompressionType,
                 fmt::format("Unknown compression type [{}] is received in telemetry request "
                             "from [{}]",
                             compression_type, id_text));
      } else if (metrics.size() > static_cast<size_t>(options_.telemetry_max_bytes)) {
        a = fail(kTelemetryTooLarge,
                 fmt::format("Telemetry request from [{}] is larger than the maximum allowed "
                             "size [{}]",
                             id_text, options_.telemetry_max_bytes));
      }
    }
    inst.terminating = terminating;
    if (a.error_code != 0) {
      inst.last_error = a.error_code;
      return a;
    }
    if (metrics.empty()) {
      inst.last_error = 0;
      return {};
    }
    client_labels = {{"client_instance_id", id_text},
                     {"client_id", LabelValue(inst.client.client_id)},
                     {"client_software_name", LabelValue(inst.client.software_name)},
                     {"client_software_version", LabelValue(inst.client.software_version)}};
    push_interval_ms = inst.push_interval_ms;
  }

  // Decompressed and decoded without the lock.
  std::vector<uint8_t> inflated;
  std::span<const uint8_t> payload = metrics;
  auto set_error = [&](int16_t code, std::string message) {
    SetLastError(client_instance_id, code);
    return fail(code, std::move(message));
  };
  if (compression_type != 0) {
    Status s = Decompress(static_cast<CompressionType>(compression_type), metrics,
                          static_cast<size_t>(options_.telemetry_max_bytes), &inflated);
    if (!s.ok()) {
      const bool too_large = s.message().find("exceeds the limit") != std::string::npos;
      return set_error(too_large ? kTelemetryTooLarge : kInvalidRecord, s.ToString());
    }
    payload = inflated;
  }
  Result<std::vector<OtlpMetric>> decoded = DecodeOtlpMetrics(payload);
  if (!decoded.ok()) return set_error(kInvalidRecord, decoded.status().ToString());

  MutexLock l(&mu_);
  if (auto it = instances_.find(client_instance_id); it != instances_.end()) {
    it->second.last_error = 0;
  }
  auto pit = pushed_.find(client_instance_id);
  if (pit == pushed_.end()) {
    // Kept only for a client that had series kept before, or has room now: a client making up
    // a new instance id for every push adds nothing once the caps are reached.
    if (pushed_.size() >= options_.max_instances || series_ >= options_.max_series) {
      dropped_series_ += decoded->size();
      return {};
    }
    pit = pushed_.emplace(client_instance_id, Pushed{}).first;
  }
  Pushed& p = pit->second;
  p.client_labels = client_labels;
  p.last_push_ms = now_ms;
  p.expiry_ms = ExpiryMs(push_interval_ms);
  ++p.pushes;
  for (const OtlpMetric& m : *decoded) {
    const std::string name = "seglog_client_telemetry_" + PromName(m.name);
    if (ReservedName(name)) {
      ++dropped_series_;
      continue;
    }
    const bool delta_counter =
        m.kind == OtlpMetric::Kind::kSum && m.monotonic && m.temporality == OtlpTemporality::kDelta;
    p.is_counter[name] = m.kind == OtlpMetric::Kind::kSum && m.monotonic;
    auto& family = p.series[name];
    for (const OtlpDataPoint& point : m.points) {
      // A series is keyed by its points' attributes; the client's labels are the Pushed's.
      const bool full = series_ >= options_.max_series || p.count >= options_.max_series_per_client;
      if (full && family.empty()) {
        ++dropped_series_;
        continue;
      }
      std::map<std::string, std::string> labels;
      for (const auto& [k, v] : point.attributes) {
        const std::string key = PromName(k);
        if (key.rfind("__", 0) == 0) continue;        // reserved by Prometheus
        if (client_labels.count(key) != 0) continue;  // the broker's labels win
        labels.emplace(key, LabelValue(v));
      }
      auto found = family.find(labels);
      if (found == family.end()) {
        if (full) {
          ++dropped_series_;
          continue;
        }
        found = family.emplace(std::move(labels), 0.0).first;
        ++series_;
        ++p.count;
      }
      found->second = delta_counter ? found->second + point.value : point.value;
    }
    if (family.empty()) {
      p.series.erase(name);
      p.is_counter.erase(name);
    }
  }
  if (p.count == 0) pushed_.erase(pit);  // nothing kept: no state for it
  return {};
}

std::vector<prometheus::MetricFamily> ClientMetricsManager::Collect(int64_t now_ms) {
  MutexLock l(&mu_);
  Expire(now_ms);
  std::map<std::string, prometheus::MetricFamily> families;
  prometheus::MetricFamily pushes;
  pushes.name = "seglog_client_telemetry_pushes_total";
  pushes.help = "Pushes of client telemetry accepted, by client instance";
  pushes.type = prometheus::MetricType::Counter;
  for (const auto& [id, p] : pushed_) {
    prometheus::ClientMetric pm;
    for (const auto& [k, v] : p.client_labels) pm.label.push_back({k, v});
    pm.counter.value = static_cast<double>(p.pushes);
    pushes.metric.push_back(std::move(pm));
    for (const auto& [name, series] : p.series) {
      prometheus::MetricFamily& f = families[name];
      const bool counter = p.is_counter.at(name);
      if (f.name.empty()) {
        f.name = name;
        f.help = "A metric pushed by clients (KIP-714)";
        f.type = counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;
      }
      for (const auto& [labels, value] : series) {
        prometheus::ClientMetric m;
        std::map<std::string, std::string> all = p.client_labels;
        all.insert(labels.begin(), labels.end());
        for (const auto& [k, v] : all) m.label.push_back({k, v});
        if (f.type == prometheus::MetricType::Counter) {
          m.counter.value = value;
        } else {
          m.gauge.value = value;
        }
        f.metric.push_back(std::move(m));
      }
    }
  }
  std::vector<prometheus::MetricFamily> out;
  out.push_back(std::move(pushes));
  prometheus::MetricFamily instances;
  instances.name = "seglog_client_telemetry_instances";
  instances.help = "Client instances the broker keeps telemetry state for";
  instances.type = prometheus::MetricType::Gauge;
  instances.metric.emplace_back().gauge.value = static_cast<double>(instances_.size());
  out.push_back(std::move(instances));
  prometheus::MetricFamily dropped;
  dropped.name = "seglog_client_telemetry_dropped_series_total";
  dropped.help = "Pushed series dropped because a series cap was reached";
  dropped.type = prometheus::MetricType::Counter;
  dropped.metric.emplace_back().counter.value = static_cast<double>(dropped_series_);
  out.push_back(std::move(dropped));
  prometheus::MetricFamily errors;
  errors.name = "seglog_client_telemetry_errors_total";
  errors.help = "Telemetry requests answered with an error, by Kafka error code";
  errors.type = prometheus::MetricType::Counter;
  for (size_t i = 0; i < kErrorCodes.size(); ++i) {
    prometheus::ClientMetric m;
    m.label.push_back({"error_code", std::to_string(kErrorCodes[i])});
    m.counter.value = static_cast<double>(errors_[i].load(std::memory_order_relaxed));
    errors.metric.push_back(std::move(m));
  }
  out.push_back(std::move(errors));
  for (auto& [name, f] : families) {
    // A name some client pushes as a counter and another as a gauge: the first one's type wins.
    out.push_back(std::move(f));
  }
  return out;
}

void ClientMetricsManager::CountError(int16_t code) {
  for (size_t i = 0; i < kErrorCodes.size(); ++i) {
    if (kErrorCodes[i] == code) errors_[i].fetch_add(1, std::memory_order_relaxed);
  }
}

void ClientMetricsManager::SetLastError(const Uuid& id, int16_t code) {
  MutexLock l(&mu_);
  if (auto it = instances_.find(id); it != instances_.end()) it->second.last_error = code;
}

size_t ClientMetricsManager::InstanceCount() const {
  MutexLock l(&mu_);
  return instances_.size();
}

size_t ClientMetricsManager::SeriesCount() const {
  MutexLock l(&mu_);
  return series_;
}

}  // namespace seglog
