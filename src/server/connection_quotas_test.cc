#include "server/connection_quotas.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(ConnectionQuotas, OverridesAreHostCountPairsWithHostsResolved) {
  auto o = ParseConnectionOverrides(" localhost:3 , 10.0.0.1:0,[::1]:5 ");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->at("127.0.0.1"), 3);
  EXPECT_EQ(o->at("10.0.0.1"), 0);
  EXPECT_EQ(o->at("::1"), 5);
  EXPECT_TRUE(ParseConnectionOverrides("").ok());
  for (const char* bad : {"localhost", ":3", "localhost:", "localhost:3x", "localhost:-2",
                          "no-such-host.invalid.:1"}) {
    auto r = ParseConnectionOverrides(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().ToString(), HasSubstr("max.connections.per.ip.overrides")) << bad;
  }
}

TEST(ConnectionQuotas, CountsPerAddressListenerAndBroker) {
  ConnectionLimits l;
  l.max_connections = 3;
  l.max_connections_per_ip = 2;
  l.per_ip_overrides = {{"10.0.0.9", 0}};
  l.listener_max_connections = {{"SSL", 1}};
  ConnectionQuotas q(l);
  int32_t limit = 0;
  EXPECT_FALSE(q.Inc("PLAINTEXT", "10.0.0.9", &limit));
  EXPECT_EQ(limit, 0);
  EXPECT_TRUE(q.Inc("PLAINTEXT", "10.0.0.1", &limit));
  EXPECT_TRUE(q.Inc("PLAINTEXT", "10.0.0.1", &limit));
  EXPECT_FALSE(q.Inc("PLAINTEXT", "10.0.0.1", &limit));
  EXPECT_EQ(limit, 2);
  EXPECT_EQ(q.CountFor("10.0.0.1"), 2);
  EXPECT_TRUE(q.SlotAvailable("PLAINTEXT"));
  EXPECT_TRUE(q.SlotAvailable("SSL"));
  EXPECT_TRUE(q.Inc("SSL", "10.0.0.2", &limit));
  EXPECT_FALSE(q.SlotAvailable("SSL"));        // the listener's 1
  EXPECT_FALSE(q.SlotAvailable("PLAINTEXT"));  // the broker's 3
  q.Dec("PLAINTEXT", "10.0.0.1");
  EXPECT_TRUE(q.SlotAvailable("PLAINTEXT"));
  EXPECT_FALSE(q.SlotAvailable("SSL"));
  q.Dec("SSL", "10.0.0.2");
  EXPECT_TRUE(q.SlotAvailable("SSL"));
  EXPECT_EQ(q.total(), 1);
}

TEST(ConnectionQuotas, CreationRatesGiveKafkasThrottleTime) {
  ConnectionLimits l;
  l.max_connection_creation_rate = 10;
  l.listener_max_connection_creation_rate = {{"SLOW", 1}};
  ConnectionQuotas q(l);  // 11 windows of 1 s: rates over at least 10 s
  // 100 connections in 10 s are 10 a second: none waits.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(q.RecordCreation("PLAINTEXT", 0), 0) << i;
  // The 101st: 101 over 10 s against 10/s -> (10.1 - 10) / 10 x 10 s = 100 ms.
  EXPECT_EQ(q.RecordCreation("PLAINTEXT", 0), 100);
  // The listener's own rate counts too (and the broker's goes on counting).
  ConnectionQuotas slow(l);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(slow.RecordCreation("SLOW", 0), 0);
  EXPECT_EQ(slow.RecordCreation("SLOW", 0), 1000);  // 11 over 10 s against 1/s
}

TEST(ConnectionQuotas, CreationRatesAreBoundedByOneWindow) {
  ConnectionLimits l;
  l.max_connection_creation_rate = 1;
  ConnectionQuotas q(l);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(q.RecordCreation("PLAINTEXT", 0), 0);
  // 30 over 10 s against 1/s would be 20 s; Kafka waits at most one window.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(q.RecordCreation("PLAINTEXT", 0), 1000) << i;
}

TEST(ConnectionQuotas, IpQuotasThrottleTheirAddressAndDoNotCountWhatTheyRefuse) {
  ConnectionLimits l;
  l.ip_connection_rate = [](const std::string& address) -> std::optional<double> {
    if (address == "10.0.0.1") return 2;
    if (address == "10.0.0.2") return 0.01;
    return std::nullopt;
  };
  ConnectionQuotas q(l);
  // 20 in the first second are 2 a second over the 10 s a new rate is judged by.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(q.RecordIpCreation("10.0.0.1", 0), 0) << i;
  // The 21st: (2.1 - 2) / 2 x 10 s = 500 ms; refused, so the next is judged on 21 again.
  EXPECT_EQ(q.RecordIpCreation("10.0.0.1", 0), 500);
  EXPECT_EQ(q.RecordIpCreation("10.0.0.1", 0), 500);
  // Other addresses: their own quota (bounded by one window) or none.
  EXPECT_EQ(q.RecordIpCreation("10.0.0.2", 0), 1000);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(q.RecordIpCreation("10.0.0.3", 0), 0);
  // Once the samples have expired the address starts again.
  EXPECT_EQ(q.RecordIpCreation("10.0.0.1", 12000), 0);
  // No ip quotas at all: nothing is kept.
  ConnectionQuotas none{ConnectionLimits{}};
  EXPECT_EQ(none.RecordIpCreation("10.0.0.1", 0), 0);
}

}  // namespace
}  // namespace seglog
