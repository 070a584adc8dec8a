// S3StorageConfig::FromProperties (s3_storage_config.h): Aiven's key names, defaults, the
// environment fallback, and every problem named by its key.
#include "remote/s3_storage_config.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

using Props = std::map<std::string, std::string>;

std::optional<std::string> NoEnv(const std::string&) { return std::nullopt; }

Props Minimal() {
  return {{"rsm.config.storage.s3.bucket.name", "tiered"},
          {"rsm.config.storage.s3.region", "eu-west-1"},
          {"rsm.config.storage.aws.access.key.id", "AKID"},
          {"rsm.config.storage.aws.secret.access.key", "SECRET"}};
}

TEST(S3StorageConfigTest, DefaultsFromTheMinimalSettings) {
  Result<S3StorageConfig> c = S3StorageConfig::FromProperties(Minimal(), NoEnv);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->bucket, "tiered");
  EXPECT_EQ(c->key_prefix, "");
  EXPECT_EQ(c->client.region, "eu-west-1");
  EXPECT_EQ(c->client.endpoint_url, "");      // the client makes https://s3.<region>.amazonaws.com
  EXPECT_FALSE(c->client.path_style_access);  // AWS: virtual-hosted
  EXPECT_EQ(c->client.access_key_id, "AKID");
  EXPECT_EQ(c->client.secret_access_key, "SECRET");
  EXPECT_EQ(c->client.multipart_part_size, 25 * 1024 * 1024);
  EXPECT_EQ(c->client.max_concurrent_transfers, 8);
  EXPECT_EQ(c->client.max_attempts, 5);
  EXPECT_EQ(c->client.api_call_timeout_ms, 0);
}

TEST(S3StorageConfigTest, ReadsEveryKey) {
  Props p = Minimal();
  p["rsm.config.storage.s3.endpoint.url"] = "http://127.0.0.1:7070";
  p["rsm.config.storage.s3.path.style.access.enabled"] = "FALSE";
  p["rsm.config.key.prefix"] = "cluster-a/";
  p["rsm.config.storage.s3.multipart.upload.part.size"] = "5242880";
  p["rsm.config.storage.s3.api.call.timeout"] = "60000";
  p["rsm.config.storage.s3.api.call.attempt.timeout"] = "20000";
  p["rsm.config.storage.s3.max.concurrent.transfers"] = "3";
  p["rsm.config.storage.s3.max.attempts"] = "7";
  p["rsm.config.storage.s3.retry.backoff.ms"] = "10";
  p["rsm.config.storage.s3.retry.backoff.max.ms"] = "20";
  p["rsm.config.storage.s3.connect.timeout.ms"] = "1000";
  p["rsm.config.storage.s3.socket.timeout.ms"] = "2000";
  p["unrelated.key"] = "ignored";
  Result<S3StorageConfig> c = S3StorageConfig::FromProperties(p, NoEnv);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->client.endpoint_url, "http://127.0.0.1:7070");
  EXPECT_FALSE(c->client.path_style_access);  // explicit false beats the IP-address rule
  EXPECT_EQ(c->key_prefix, "cluster-a/");
  EXPECT_EQ(c->client.multipart_part_size, 5242880);
  EXPECT_EQ(c->client.api_call_timeout_ms, 60000);
  EXPECT_EQ(c->client.api_call_attempt_timeout_ms, 20000);
  EXPECT_EQ(c->client.max_concurrent_transfers, 3);
  EXPECT_EQ(c->client.max_attempts, 7);
  EXPECT_EQ(c->client.retry_backoff_ms, 10);
  EXPECT_EQ(c->client.retry_backoff_max_ms, 20);
  EXPECT_EQ(c->client.connect_timeout_ms, 1000);
  EXPECT_EQ(c->client.socket_timeout_ms, 2000);
}

TEST(S3StorageConfigTest, PathStyleDefaultsByEndpointHost) {
  for (const auto& [url, path_style] :
       std::vector<std::pair<std::string, bool>>{{"http://127.0.0.1:7070", true},
                                                 {"http://localhost:9000", true},
                                                 {"http://[::1]:9000", true},
                                                 {"https://minio.example.com", false},
                                                 {"https://s3.eu-west-1.amazonaws.com", false}}) {
    Props p = Minimal();
    p["rsm.config.storage.s3.endpoint.url"] = url;
    Result<S3StorageConfig> c = S3StorageConfig::FromProperties(p, NoEnv);
    ASSERT_TRUE(c.ok()) << url;
    EXPECT_EQ(c->client.path_style_access, path_style) << url;
  }
}

TEST(S3StorageConfigTest, CredentialsFallBackToTheEnvironment) {
  Props p = Minimal();
  p.erase("rsm.config.storage.aws.access.key.id");
  p.erase("rsm.config.storage.aws.secret.access.key");
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "AWS_ACCESS_KEY_ID") return "ENVID";
    if (name == "AWS_SECRET_ACCESS_KEY") return "ENVSECRET";
    return std::nullopt;
  };
  Result<S3StorageConfig> c = S3StorageConfig::FromProperties(p, env);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->client.access_key_id, "ENVID");
  EXPECT_EQ(c->client.secret_access_key, "ENVSECRET");

  Result<S3StorageConfig> none = S3StorageConfig::FromProperties(p, NoEnv);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(none.status().IsInvalidArgument());
  EXPECT_NE(none.status().message().find("AWS_SECRET_ACCESS_KEY"), std::string_view::npos);
  EXPECT_NE(none.status().message().find("rsm.config.storage.aws.access.key.id"),
            std::string_view::npos);

  p["rsm.config.storage.aws.access.key.id"] = "only-id";
  Result<S3StorageConfig> half = S3StorageConfig::FromProperties(p, env);
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.status().message().find("must be set together"), std::string_view::npos);
}

TEST(S3StorageConfigTest, ReportsEveryProblemNamingItsKey) {
  Props p;
  p["rsm.config.storage.s3.multipart.upload.part.size"] = "1024";
  p["rsm.config.storage.s3.max.attempts"] = "many";
  p["rsm.config.storage.s3.path.style.access.enabled"] = "yes";
  p["rsm.config.storage.s3.endpoint.url"] = "ftp://x";
  p["rsm.config.storage.s3.max.concurrent.transfers"] = "0";
  Result<S3StorageConfig> c = S3StorageConfig::FromProperties(p, NoEnv);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsInvalidArgument());
  const std::string msg(c.status().message());
  for (const char* want :
       {"rsm.config.storage.s3.bucket.name is required", "rsm.config.storage.s3.region is required",
        "rsm.config.storage.s3.multipart.upload.part.size=1024: must be in "
        "[5242880, 2147483647]",
        "rsm.config.storage.s3.max.attempts=many: not an integer",
        "rsm.config.storage.s3.path.style.access.enabled=yes",
        "rsm.config.storage.s3.endpoint.url=ftp://x",
        "rsm.config.storage.s3.max.concurrent.transfers=0", "no S3 credentials"}) {
    EXPECT_NE(msg.find(want), std::string::npos) << want << "\nin: " << msg;
  }
}

TEST(S3StorageConfigTest, BackoffCeilingBelowItsStartIsRefused) {
  Props p = Minimal();
  p["rsm.config.storage.s3.retry.backoff.ms"] = "500";
  p["rsm.config.storage.s3.retry.backoff.max.ms"] = "100";
  Result<S3StorageConfig> c = S3StorageConfig::FromProperties(p, NoEnv);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("rsm.config.storage.s3.retry.backoff.max.ms"),
            std::string_view::npos);
}

}  // namespace
}  // namespace seglog
