#include "server/listener_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(ListenerConfigTest, ParsesKafkasListenerForms) {
  auto l = ParseListeners(
      "listeners", "PLAINTEXT://:9092, plaintext2://127.0.0.1:0,V6://[::1]:19092",
      {{"PLAINTEXT", "PLAINTEXT"}, {"PLAINTEXT2", "PLAINTEXT"}, {"V6", "PLAINTEXT"}}, {});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->size(), 3u);
  EXPECT_EQ((*l)[0], (ListenerEndpoint{"PLAINTEXT", "", 9092}));
  EXPECT_EQ((*l)[1], (ListenerEndpoint{"PLAINTEXT2", "127.0.0.1", 0}));
  EXPECT_EQ((*l)[2], (ListenerEndpoint{"V6", "::1", 19092}));
  EXPECT_EQ((*l)[2].ToString(), "V6://[::1]:19092");
  EXPECT_EQ((*l)[0].ToString(), "PLAINTEXT://:9092");
}

TEST(ListenerConfigTest, RefusesWhatSeglogCannotServe) {
  const auto protocols = DefaultSecurityProtocolMap();
  EXPECT_THAT(ParseListeners("listeners", "localhost:9092", protocols, {}).status().message(),
              HasSubstr("Unable to parse localhost:9092 to a broker endpoint"));
  EXPECT_THAT(ParseListeners("listeners", "PLAINTEXT://:x", protocols, {}).status().message(),
              HasSubstr("Unable to parse PLAINTEXT://:x"));
  EXPECT_THAT(ParseListeners("listeners", "CLIENT://:9092", protocols, {}).status().message(),
              HasSubstr("No security protocol defined for listener CLIENT"));
  EXPECT_THAT(ParseListeners("listeners", "A://:9092", {{"A", "KERBEROS"}}, {}).status().message(),
              HasSubstr("listener A uses security protocol KERBEROS, which is not one of"));
  auto secure = ParseListeners("listeners", "SASL_SSL://:9092,INTERNAL://:9093",
                               {{"SASL_SSL", "SASL_SSL"}, {"INTERNAL", "SSL"}}, {});
  ASSERT_TRUE(secure.ok()) << secure.status().ToString();
  EXPECT_EQ((*secure)[0].security_protocol, "SASL_SSL");
  EXPECT_EQ((*secure)[1].security_protocol, "SSL");
  EXPECT_THAT(ParseListeners("listeners", "PLAINTEXT://:9092,PLAINTEXT://:9093", protocols, {})
                  .status()
                  .message(),
              HasSubstr("Each listener must have a different name"));
  EXPECT_THAT(ParseListeners("listeners", "PLAINTEXT://:70000", protocols, {}).status().message(),
              HasSubstr("port 70000 out of range"));
  auto skipped =
      ParseListeners("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093",
                     {{"PLAINTEXT", "PLAINTEXT"}, {"CONTROLLER", "PLAINTEXT"}}, {"CONTROLLER"});
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->size(), 1u);
}

TEST(ListenerConfigTest, SecurityProtocolMap) {
  auto m = ParseSecurityProtocolMap("listener.security.protocol.map", "client:plaintext, B:SSL");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->at("CLIENT"), "PLAINTEXT");
  EXPECT_EQ(m->at("B"), "SSL");
  EXPECT_FALSE(ParseSecurityProtocolMap("listener.security.protocol.map", "nocolon").ok());
}

}  // namespace
}  // namespace seglog
