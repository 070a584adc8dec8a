#include "telemetry/client_metrics_config.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

ClientMetricsClient Java() {
  ClientMetricsClient c;
  c.client_instance_id = "AAAAAAAAAAAAAAAAAAAAAQ";
  c.client_id = "producer-1";
  c.software_name = "apache-kafka-java";
  c.software_version = "4.4.0";
  c.source_address = "127.0.0.1";
  c.source_port = "50123";
  return c;
}

TEST(ClientMetricsConfigTest, Defaults) {
  auto s = ClientMetricsSubscription::Parse("sub", {});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->metrics().empty());
  EXPECT_EQ(s->interval_ms(), 300000);
  EXPECT_TRUE(s->Matches(Java()));
}

TEST(ClientMetricsConfigTest, ParsesAsKafka) {
  auto s = ClientMetricsSubscription::Parse(
      "sub", {{"metrics", " org.apache.kafka.producer. , org.apache.kafka.consumer."},
              {"interval.ms", "1000"},
              {"match", "client_software_name=apache-kafka-java, client_id = producer-.*"}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->metrics(),
            (std::vector<std::string>{"org.apache.kafka.producer.", "org.apache.kafka.consumer."}));
  EXPECT_EQ(s->interval_ms(), 1000);
  EXPECT_TRUE(s->Matches(Java()));
  ClientMetricsClient other = Java();
  other.client_id = "consumer-1";
  EXPECT_FALSE(s->Matches(other));
  // The whole value must match, not a part of it.
  other = Java();
  other.software_name = "apache-kafka-java-fork";
  EXPECT_FALSE(s->Matches(other));
}

TEST(ClientMetricsConfigTest, MatchesEveryAttribute) {
  const ClientMetricsClient c = Java();
  for (const auto& [pattern, matches] : std::vector<std::pair<std::string, bool>>{
           {"client_instance_id=AAAAAAAAAAAAAAAAAAAAAQ", true},
           {"client_instance_id=AAAA", false},
           {"client_software_version=4\\.4\\..*", true},
           {"client_software_version=3\\..*", false},
           {"client_source_address=127\\.0\\.0\\.1", true},
           {"client_source_address=10\\..*", false},
           {"client_source_port=50123", true},
           {"client_source_port=5012", false},
       }) {
    auto s = ClientMetricsSubscription::Parse("s", {{"match", pattern}});
    ASSERT_TRUE(s.ok()) << pattern;
    EXPECT_EQ(s->Matches(c), matches) << pattern;
  }
}

TEST(ClientMetricsConfigTest, RefusesAsKafka) {
  struct Case {
    std::string name;
    std::map<std::string, std::string> configs;
    bool invalid_request;  // else INVALID_CONFIG
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"", {{"metrics", "a"}}, true, "Subscription name can't be empty"},
           {"s", {{"bogus", "1"}}, true, "Unknown client metrics configuration: bogus"},
           {"s",
            {{"interval.ms", "99"}},
            true,
            "Invalid value 99 for interval.ms, interval must be between 100 and 3600000 (1 hour)"},
           {"s", {{"interval.ms", "3600001"}}, true, "Invalid value 3600001 for interval.ms"},
           {"s", {{"interval.ms", "abc"}}, false, "Not a number of type INT"},
           {"s", {{"interval.ms", "99999999999"}}, false, "Not a number of type INT"},
           {"s", {{"match", "client_id"}}, false, "Illegal client matching pattern: client_id"},
           {"s", {{"match", "client_id="}}, false, "Illegal client matching pattern"},
           {"s", {{"match", "=x"}}, false, "Illegal client matching pattern"},
           {"s", {{"match", "client_id=a=b"}}, false, "Illegal client matching pattern"},
           {"s", {{"match", "client_rack=x"}}, false, "Illegal client matching pattern"},
           {"s", {{"match", "client_id=[unclosed"}}, false, "Illegal client matching pattern"},
       }) {
    auto s = ClientMetricsSubscription::Parse(c.name, c.configs);
    ASSERT_FALSE(s.ok()) << c.message;
    EXPECT_EQ(s.status().code(), c.invalid_request ? Status::Code::kInvalidArgument
                                                   : Status::Code::kFailedPrecondition)
        << c.message;
    EXPECT_NE(s.status().message().find(c.message), std::string::npos) << s.status().ToString();
  }
}

TEST(ClientMetricsConfigTest, SplitsLists) {
  EXPECT_TRUE(SplitConfigList("").empty());
  EXPECT_TRUE(SplitConfigList("  ").empty());
  EXPECT_EQ(SplitConfigList("a, b ,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(SplitConfigList("*"), (std::vector<std::string>{"*"}));
}

}  // namespace
}  // namespace seglog
