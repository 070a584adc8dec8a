// DescribeUserScramCredentials and AlterUserScramCredentials (scram_handlers.cc) over a
// LogManager: Kafka's checks and messages, the credentials kept in the metadata log across a
// restart, and a SCRAM exchange against what was stored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "server/expect_encodes.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"

namespace seglog {
namespace {

namespace p = protocol;

class ScramHandlersTest : public HandlersTest {};

p::AlterUserScramCredentialsRequestData::ScramCredentialUpsertion Upsert(
    std::string user, int8_t mechanism, const std::string& password, int32_t iterations = 4096) {
  p::AlterUserScramCredentialsRequestData::ScramCredentialUpsertion u;
  u.name = std::move(user);
  u.mechanism = mechanism;
  u.iterations = iterations;
  u.salt = {'s', 'a', 'l', 't', '1'};
  const ScramMechanism m = ScramMechanismFromCode(mechanism);
  u.salted_password =
      ScramSaltedPassword(m == ScramMechanism::kUnknown ? ScramMechanism::kSha256 : m, password,
                          u.salt, iterations < 1 ? 1 : iterations);
  return u;
}

TEST_F(ScramHandlersTest, UsersAreAddedDescribedAndRemovedAsKafkaDoes) {
  p::AlterUserScramCredentialsRequestData req;
  req.upsertions = {Upsert("alice", 1, "alice-secret"), Upsert("bob", 2, "bob-secret", 8192)};
  auto resp = HandleAlterUserScramCredentials(ctx_, rc_, req, 0);
  ASSERT_EQ(resp.results.size(), 2u);
  EXPECT_EQ(resp.results[0].error_code, 0);
  EXPECT_EQ(resp.results[1].error_code, 0);
  testing::ExpectEncodes(resp, p::ApiKey::kAlterUserScramCredentials);
  // All users (null or empty), then named ones: a missing one and a duplicate.
  auto all = HandleDescribeUserScramCredentials(ctx_, rc_, {}, 0);
  ASSERT_EQ(all.results.size(), 2u);
  EXPECT_EQ(all.results[1].user, "bob");
  ASSERT_EQ(all.results[1].credential_infos.size(), 1u);
  EXPECT_EQ(all.results[1].credential_infos[0].mechanism, 2);
  EXPECT_EQ(all.results[1].credential_infos[0].iterations, 8192);
  p::DescribeUserScramCredentialsRequestData named;
  named.users = std::vector<p::DescribeUserScramCredentialsRequestData::UserName>(3);
  (*named.users)[0].name = "carol";
  (*named.users)[1].name = "alice";
  (*named.users)[2].name = "alice";
  auto some = HandleDescribeUserScramCredentials(ctx_, rc_, named, 0);
  ASSERT_EQ(some.results.size(), 2u);
  EXPECT_EQ(some.results[0].error_code, 91);
  EXPECT_EQ(some.results[0].error_message,
            "Attempt to describe a user credential that does not exist: carol");
  EXPECT_EQ(some.results[1].error_code, 92);
  testing::ExpectEncodes(some, p::ApiKey::kDescribeUserScramCredentials);
  // The stored credential lets alice in with her password, and nobody with another.
  auto stored = logs_->metadata()->ScramCredentialOf("alice", ScramMechanism::kSha256);
  ASSERT_TRUE(stored.has_value());
  const auto expected =
      ScramCredentialFromPassword(ScramMechanism::kSha256, "alice-secret", stored->salt, 4096);
  EXPECT_EQ(stored->stored_key, expected->stored_key);
  EXPECT_EQ(stored->server_key, expected->server_key);
  // A restart keeps them; a deletion removes one mechanism.
  Open({});
  p::AlterUserScramCredentialsRequestData del;
  auto& d = del.deletions.emplace_back();
  d.name = "bob";
  d.mechanism = 2;
  EXPECT_EQ(HandleAlterUserScramCredentials(ctx_, rc_, del, 0).results.at(0).error_code, 0);
  auto after = HandleDescribeUserScramCredentials(ctx_, rc_, {}, 0);
  ASSERT_EQ(after.results.size(), 1u);
  EXPECT_EQ(after.results[0].user, "alice");
}

TEST_F(ScramHandlersTest, KafkasRefusalsOnePerUser) {
  p::AlterUserScramCredentialsRequestData req;
  auto& d = req.deletions.emplace_back();
  d.name = "ghost";
  d.mechanism = 1;
  req.upsertions = {
      Upsert("", 1, "x"),    Upsert("weak", 1, "x", 1000), Upsert("strong", 2, "x", 20000),
      Upsert("odd", 3, "x"), Upsert("twice", 1, "x"),      Upsert("twice", 2, "x"),
      Upsert("fine", 1, "x")};
  auto resp = HandleAlterUserScramCredentials(ctx_, rc_, req, 0);
  std::map<std::string, std::pair<int16_t, std::string>> got;
  for (const auto& r : resp.results) got[r.user] = {r.error_code, r.error_message.value_or("")};
  EXPECT_EQ(resp.results.front().user, "fine");  // successes first
  EXPECT_EQ(got["fine"].first, 0);
  EXPECT_EQ(got["ghost"], std::make_pair(int16_t{91}, std::string("Attempt to delete a user "
                                                                  "credential that does not "
                                                                  "exist")));
  EXPECT_EQ(got[""], std::make_pair(int16_t{93}, std::string("Username must not be empty")));
  EXPECT_EQ(got["weak"], std::make_pair(int16_t{93}, std::string("Too few iterations")));
  EXPECT_EQ(got["strong"], std::make_pair(int16_t{93}, std::string("Too many iterations")));
  EXPECT_EQ(got["odd"], std::make_pair(int16_t{33}, std::string("Unknown SCRAM mechanism")));
  EXPECT_EQ(got["twice"].first, 92);
  EXPECT_EQ(got["twice"].second, "A user credential cannot be altered twice in the same request");
  EXPECT_EQ(resp.results.size(), 7u);
  EXPECT_EQ(logs_->metadata()->ScramUsers().size(), 1u);  // only "fine"
}

TEST_F(ScramHandlersTest, WithAnAuthorizerTheClusterMustAllowIt) {
  ctx_.authorizer = std::make_shared<StandardAuthorizer>(AuthorizerOptions{{}, false});
  p::AlterUserScramCredentialsRequestData req;
  req.upsertions = {Upsert("alice", 1, "x")};
  auto resp = HandleAlterUserScramCredentials(ctx_, rc_, req, 0);
  ASSERT_EQ(resp.results.size(), 1u);
  EXPECT_EQ(resp.results[0].error_code, 31);
  EXPECT_EQ(HandleDescribeUserScramCredentials(ctx_, rc_, {}, 0).error_code, 31);
  EXPECT_TRUE(logs_->metadata()->ScramUsers().empty());
}

}  // namespace
}  // namespace seglog
