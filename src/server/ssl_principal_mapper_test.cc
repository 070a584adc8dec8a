// SslPrincipalMapper: Kafka's ssl.principal.mapping.rules.
#include "server/ssl_principal_mapper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

std::string Map(const std::string& rules, const std::string& subject) {
  auto m = SslPrincipalMapper::Parse(rules);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return "";
  auto name = m->Map(subject);
  return name.ok() ? *name : "ERROR: " + std::string(name.status().message());
}

TEST(SslPrincipalMapperTest, DefaultIsTheSubject) {
  EXPECT_EQ(Map("DEFAULT", "CN=alice,OU=eng,O=example"), "CN=alice,OU=eng,O=example");
}

TEST(SslPrincipalMapperTest, RulesInOrderWithCaseFlags) {
  const std::string rules =
      "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1@$2/L, DEFAULT";
  EXPECT_EQ(Map(rules, "CN=kafka-svc,OU=ServiceUsers,O=example"), "kafka-svc");
  EXPECT_EQ(Map(rules, "CN=Alice,OU=ENG,O=example"), "alice@eng");
  EXPECT_EQ(Map(rules, "CN=bob"), "CN=bob");
  EXPECT_EQ(Map("RULE:^CN=(.*)$/$1/U", "CN=bob"), "BOB");
  // An escaped '/' in a pattern.
  EXPECT_EQ(Map("RULE:^CN=a\\/(.*)$/$1/", "CN=a/b"), "b");
}

TEST(SslPrincipalMapperTest, NoRuleThatAppliesIsAnError) {
  EXPECT_EQ(Map("RULE:^CN=(.*),OU=x$/$1/", "CN=alice"),
            "ERROR: No rules apply to CN=alice, rules [RULE:^CN=(.*),OU=x$/$1]");
}

TEST(SslPrincipalMapperTest, BadRulesAreRefused) {
  EXPECT_THAT(SslPrincipalMapper::Parse("RULE:^CN=(.*$/x/").status().message(),
              HasSubstr("Invalid rule"));
  EXPECT_THAT(SslPrincipalMapper::Parse("RULE:abc").status().message(),
              HasSubstr("Invalid rule: RULE:abc"));
  EXPECT_THAT(SslPrincipalMapper::Parse("NOTARULE").status().message(),
              HasSubstr("Invalid rule: NOTARULE"));
  // Empty entries are ignored.
  EXPECT_EQ(Map(" , DEFAULT ,", "CN=x"), "CN=x");
}

}  // namespace
}  // namespace seglog
