// The `rsm.config.*` keys of S3StorageConfig (s3_storage_config.h).
#include "remote/s3_storage_config.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

namespace seglog {
namespace {

constexpr int64_t kMaxAivenPartSize = 2147483647;  // Integer.MAX_VALUE in Aiven's plugin

std::string Key(std::string_view name) { return std::string(kRsmConfigPrefix) + std::string(name); }

class Reader {
 public:
  explicit Reader(const std::map<std::string, std::string>& props) : props_(props) {}

  std::optional<std::string> String(std::string_view name) const {
    auto it = props_.find(Key(name));
    if (it == props_.end()) return std::nullopt;
    return it->second;
  }
  // An integer in [min, max] into *out (left unchanged when the key is unset).
  void Int(std::string_view name, int64_t min, int64_t max, int64_t* out) {
    const std::optional<std::string> v = String(name);
    if (!v.has_value()) return;
    int64_t parsed = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), parsed);
    if (v->empty() || ec != std::errc() || end != v->data() + v->size()) {
      Problem(fmt::format("{}={}: not an integer", Key(name), *v));
    } else if (parsed < min || parsed > max) {
      Problem(fmt::format("{}={}: must be in [{}, {}]", Key(name), *v, min, max));
    } else {
      *out = parsed;
    }
  }
  void Int(std::string_view name, int64_t min, int64_t max, int* out) {
    int64_t v = *out;
    Int(name, min, max, &v);
    *out = static_cast<int>(v);
  }
  // "true" / "false", any case (Kafka's ConfigDef BOOLEAN).
  std::optional<bool> Bool(std::string_view name) {
    const std::optional<std::string> v = String(name);
    if (!v.has_value()) return std::nullopt;
    std::string lower;
    for (char c : *v)
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (lower == "true") return true;
    if (lower == "false") return false;
    Problem(fmt::format("{}={}: must be true or false", Key(name), *v));
    return std::nullopt;
  }
  void Problem(std::string p) { problems_.push_back(std::move(p)); }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  const std::map<std::string, std::string>& props_;
  std::vector<std::string> problems_;
};

// The host of "scheme://host[:port]" ("[v6]" kept bracketed).
std::string EndpointHost(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  url = url.substr(0, url.find('/'));
  if (!url.empty() && url.front() == '[') return std::string(url.substr(0, url.find(']') + 1));
  return std::string(url.substr(0, url.find(':')));
}

bool IsIpOrLocalhost(const std::string& host) {
  if (host == "localhost" || (!host.empty() && host.front() == '[')) return true;
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1;
}

}  // namespace

Result<S3StorageConfig> S3StorageConfig::FromProperties(
    const std::map<std::string, std::string>& properties,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    if (getenv) return getenv(name);
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  Reader r(properties);
  S3StorageConfig c;
  S3ClientOptions& o = c.client;

  if (auto v = r.String("storage.s3.bucket.name"); v.has_value() && !v->empty()) {
    c.bucket = *v;
  } else {
    r.Problem(fmt::format("{} is required", Key("storage.s3.bucket.name")));
  }
  if (auto v = r.String("storage.s3.region"); v.has_value() && !v->empty()) {
    o.region = *v;
  } else {
    r.Problem(fmt::format("{} is required", Key("storage.s3.region")));
  }
  if (auto v = r.String("storage.s3.endpoint.url"); v.has_value()) {
    if (v->rfind("http://", 0) != 0 && v->rfind("https://", 0) != 0) {
      r.Problem(fmt::format("{}={}: must be an http:// or https:// URL",
                            Key("storage.s3.endpoint.url"), *v));
    }
    o.endpoint_url = *v;
  }
  if (std::optional<bool> path_style = r.Bool("storage.s3.path.style.access.enabled")) {
    o.path_style_access = *path_style;
  } else {
    o.path_style_access = !o.endpoint_url.empty() && IsIpOrLocalhost(EndpointHost(o.endpoint_url));
  }

  std::optional<std::string> id = r.String("storage.aws.access.key.id");
  std::optional<std::string> secret = r.String("storage.aws.secret.access.key");
  if (id.has_value() != secret.has_value()) {
    r.Problem(fmt::format("{} and {} must be set together", Key("storage.aws.access.key.id"),
                          Key("storage.aws.secret.access.key")));
  }
  if (!id.has_value()) id = env("AWS_ACCESS_KEY_ID");
  if (!secret.has_value()) secret = env("AWS_SECRET_ACCESS_KEY");
  if (!id.has_value() || id->empty() || !secret.has_value() || secret->empty()) {
    r.Problem(fmt::format(
        "no S3 credentials: set {} and {}, or the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
        "environment variables",
        Key("storage.aws.access.key.id"), Key("storage.aws.secret.access.key")));
  } else {
    o.access_key_id = *id;
    o.secret_access_key = *secret;
  }
  if (auto v = r.String("key.prefix")) c.key_prefix = *v;

  r.Int("storage.s3.multipart.upload.part.size", kS3MinPartSize, kMaxAivenPartSize,
        &o.multipart_part_size);
  r.Int("storage.s3.api.call.timeout", 1, INT64_MAX, &o.api_call_timeout_ms);
  r.Int("storage.s3.api.call.attempt.timeout", 1, INT64_MAX, &o.api_call_attempt_timeout_ms);
  r.Int("storage.s3.max.concurrent.transfers", 1, 1024, &o.max_concurrent_transfers);
  r.Int("storage.s3.max.attempts", 1, 100, &o.max_attempts);
  r.Int("storage.s3.retry.backoff.ms", 0, 3600000, &o.retry_backoff_ms);
  r.Int("storage.s3.retry.backoff.max.ms", 0, 3600000, &o.retry_backoff_max_ms);
  r.Int("storage.s3.connect.timeout.ms", 1, 3600000, &o.connect_timeout_ms);
  r.Int("storage.s3.socket.timeout.ms", 1, 3600000, &o.socket_timeout_ms);
  if (o.retry_backoff_max_ms < o.retry_backoff_ms) {
    r.Problem(fmt::format("{} ({}) is below {} ({})", Key("storage.s3.retry.backoff.max.ms"),
                          o.retry_backoff_max_ms, Key("storage.s3.retry.backoff.ms"),
                          o.retry_backoff_ms));
  }
  if (!r.problems().empty()) {
    std::string msg = "S3 remote storage config: ";
    for (size_t i = 0; i < r.problems().size(); ++i) {
      if (i > 0) msg += "; ";
      msg += r.problems()[i];
    }
    return Status::InvalidArgument(msg);
  }
  return c;
}

}  // namespace seglog
