// ClientQuotaSnapshot (client_quota_lookup.h): Kafka's eight levels of precedence, the metric
// tags that decide which clients share a rate, and the sanitized user tag.
#include "manager/client_quota_lookup.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

const std::optional<std::string> kDefault = std::nullopt;
constexpr auto kProduce = ClientQuotaType::kProduce;

ClientQuotaLimit Limit(std::optional<double> limit, std::string user, std::string client) {
  return ClientQuotaLimit{limit, std::move(user), std::move(client)};
}

// The eight levels, each with a distinct producer_byte_rate.
ClientQuotaMap AllLevels() {
  ClientQuotaMap q;
  q[{{"user", "alice"}, {"client-id", "app"}}][kProducerByteRate] = 1;
  q[{{"user", "alice"}, {"client-id", kDefault}}][kProducerByteRate] = 2;
  q[{{"user", "alice"}}][kProducerByteRate] = 3;
  q[{{"user", kDefault}, {"client-id", "app"}}][kProducerByteRate] = 4;
  q[{{"user", kDefault}, {"client-id", kDefault}}][kProducerByteRate] = 5;
  q[{{"user", kDefault}}][kProducerByteRate] = 6;
  q[{{"client-id", "app"}}][kProducerByteRate] = 7;
  q[{{"client-id", kDefault}}][kProducerByteRate] = 8;
  return q;
}

// Removes `entity` from `q` and returns the snapshot.
std::shared_ptr<const ClientQuotaSnapshot> Without(ClientQuotaMap* q, ClientQuotaEntity entity) {
  q->erase(entity);
  return ClientQuotaSnapshot::Build(*q, 1);
}

TEST(ClientQuotaLookupTest, EachLevelInKafkasOrder) {
  ClientQuotaMap q = AllLevels();
  auto s = ClientQuotaSnapshot::Build(q, 1);
  // 1 /config/users/alice/clients/app
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(1, "alice", "app"));
  // 2 /config/users/alice/clients/<default>
  s = Without(&q, {{"user", "alice"}, {"client-id", "app"}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(2, "alice", "app"));
  // 3 /config/users/alice: the user tag alone, so all of alice's clients share the rate.
  s = Without(&q, {{"user", "alice"}, {"client-id", kDefault}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(3, "alice", ""));
  EXPECT_EQ(s->Lookup(kProduce, "alice", "other"), Limit(3, "alice", ""));
  // 4 /config/users/<default>/clients/app
  s = Without(&q, {{"user", "alice"}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(4, "alice", "app"));
  // 5 /config/users/<default>/clients/<default>
  s = Without(&q, {{"user", kDefault}, {"client-id", "app"}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(5, "alice", "app"));
  // 6 /config/users/<default>
  s = Without(&q, {{"user", kDefault}, {"client-id", kDefault}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(6, "alice", ""));
  // 7 /config/clients/app: the client-id tag alone, shared by every user's "app".
  s = Without(&q, {{"user", kDefault}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(7, "", "app"));
  EXPECT_EQ(s->Lookup(kProduce, "bob", "app"), Limit(7, "", "app"));
  // 8 /config/clients/<default>
  s = Without(&q, {{"client-id", "app"}});
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(8, "", "app"));
  // None.
  s = Without(&q, {{"client-id", kDefault}});
  EXPECT_FALSE(s->enabled(kProduce));
  EXPECT_EQ(s->Lookup(kProduce, "alice", "app"), Limit(std::nullopt, "", "app"));
}

TEST(ClientQuotaLookupTest, OtherUsersAndClientsFallToTheDefaults) {
  auto s = ClientQuotaSnapshot::Build(AllLevels(), 1);
  EXPECT_EQ(s->Lookup(kProduce, "alice", "other"), Limit(2, "alice", "other"));
  EXPECT_EQ(s->Lookup(kProduce, "bob", "app"), Limit(4, "bob", "app"));
  EXPECT_EQ(s->Lookup(kProduce, "bob", "other"), Limit(5, "bob", "other"));
  // An unauthenticated client is the user ANONYMOUS, which the <default> user covers.
  EXPECT_EQ(s->Lookup(kProduce, "ANONYMOUS", "other"), Limit(5, "ANONYMOUS", "other"));
  // Another quota type has none of them.
  EXPECT_EQ(s->Lookup(ClientQuotaType::kFetch, "alice", "app"), Limit(std::nullopt, "", "app"));
}

TEST(ClientQuotaLookupTest, OneShapeOfQuotasSetsTheTags) {
  // Only client-id quotas: the user is not a tag, even of a client without a quota.
  ClientQuotaMap q;
  q[{{"client-id", "app"}}][kConsumerByteRate] = 100;
  auto s = ClientQuotaSnapshot::Build(q, 1);
  EXPECT_TRUE(s->enabled(ClientQuotaType::kFetch));
  EXPECT_EQ(s->Lookup(ClientQuotaType::kFetch, "alice", "app"), Limit(100, "", "app"));
  EXPECT_EQ(s->Lookup(ClientQuotaType::kFetch, "alice", "x"), Limit(std::nullopt, "", "x"));
  // Only user quotas: the client id is not a tag.
  q.clear();
  q[{{"user", kDefault}}][kRequestPercentage] = 50;
  s = ClientQuotaSnapshot::Build(q, 1);
  EXPECT_EQ(s->Lookup(ClientQuotaType::kRequest, "bob", "x"), Limit(50, "bob", ""));
  // Only (user, client-id) quotas: both tags; an empty client id then reads the user levels.
  q.clear();
  q[{{"user", kDefault}, {"client-id", kDefault}}][kControllerMutationRate] = 5;
  s = ClientQuotaSnapshot::Build(q, 1);
  EXPECT_EQ(s->Lookup(ClientQuotaType::kControllerMutation, "bob", "x"), Limit(5, "bob", "x"));
  EXPECT_EQ(s->Lookup(ClientQuotaType::kControllerMutation, "bob", ""),
            Limit(std::nullopt, "bob", ""));
  // IP quotas are not client quotas.
  q.clear();
  q[{{"ip", kDefault}}][kConnectionCreationRate] = 5;
  EXPECT_FALSE(ClientQuotaSnapshot::Build(q, 1)->enabled(ClientQuotaType::kProduce));
}

TEST(ClientQuotaLookupTest, UserTagIsSanitizedAsKafkaDoes) {
  EXPECT_EQ(SanitizeQuotaUser("CN=a b,O=x*"), "CN%3Da%20b%2CO%3Dx%2A");
  EXPECT_EQ(SanitizeQuotaUser("alice.smith-1_2"), "alice.smith-1_2");
  EXPECT_EQ(SanitizeQuotaUser("\xc3\xa9"), "%C3%A9");
  ClientQuotaMap q;
  q[{{"user", "CN=a b"}}][kProducerByteRate] = 9;
  auto s = ClientQuotaSnapshot::Build(q, 3);
  EXPECT_EQ(s->version(), 3u);
  EXPECT_EQ(s->Lookup(kProduce, "CN=a b", "c"), Limit(9, "CN%3Da%20b", ""));
  EXPECT_EQ(s->LimitOfTags(kProduce, "CN%3Da%20b", ""), 9);
}

}  // namespace
}  // namespace seglog
