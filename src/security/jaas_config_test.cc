// ParseJaasConfig: the JAAS text of sasl.jaas.config values.
#include "security/jaas_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(JaasConfigTest, PlainLoginModuleWithUsers) {
  auto e = ParseJaasConfig(
      "org.apache.kafka.common.security.plain.PlainLoginModule required\n"
      "  username=\"admin\" password=\"admin-secret\"\n"
      "  user_admin=\"admin-secret\" user_alice=\"al\\\"ice;=\" bare=token;");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
  EXPECT_EQ(e->control_flag, "required");
  EXPECT_EQ(e->options.at("user_admin"), "admin-secret");
  EXPECT_EQ(e->options.at("user_alice"), "al\"ice;=");
  EXPECT_EQ(e->options.at("bare"), "token");
  EXPECT_EQ(e->options.size(), 5u);
}

TEST(JaasConfigTest, NoOptionsAndComments) {
  auto e = ParseJaasConfig(
      "/* c */ org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule OPTIONAL ; ");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->control_flag, "optional");
  EXPECT_TRUE(e->options.empty());
}

TEST(JaasConfigTest, MalformedTextIsRefused) {
  EXPECT_THAT(ParseJaasConfig("").status().message(), HasSubstr("not terminated"));
  EXPECT_THAT(ParseJaasConfig("M required a=\"b\"").status().message(),
              HasSubstr("not terminated by semi-colon"));
  EXPECT_THAT(ParseJaasConfig("M always;").status().message(), HasSubstr("Invalid control flag"));
  EXPECT_THAT(ParseJaasConfig("M required a=;").status().message(),
              HasSubstr("Value not specified for key 'a'"));
  EXPECT_THAT(ParseJaasConfig("M required a=\"b;").status().message(),
              HasSubstr("Unterminated quoted value"));
  EXPECT_THAT(ParseJaasConfig("M required; N required;").status().message(),
              HasSubstr("2 login modules"));
}

}  // namespace
}  // namespace seglog
