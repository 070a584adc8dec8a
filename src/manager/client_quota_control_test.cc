// Kafka's client quota rules (client_quota_control.h): the checks of an alteration in Kafka's
// words, what is recorded, and DescribeClientQuotas' filters.
#include "manager/client_quota_control.h"

#include <gtest/gtest.h>

#include <cmath>

namespace seglog {
namespace {

using Code = ClientQuotaError::Code;
using Op = ClientQuotaAlteration::Op;

ClientQuotaAlteration Alter(std::vector<std::pair<std::string, std::optional<std::string>>> entity,
                            std::vector<Op> ops) {
  return ClientQuotaAlteration{std::move(entity), std::move(ops)};
}
Op Set(std::string key, double value) { return Op{std::move(key), value, false}; }
Op Remove(std::string key) { return Op{std::move(key), 0, true}; }

// The resolver of these tests, without DNS: addresses, and names ending in ".example".
bool NoDns(const std::string& name) {
  return name.ends_with(".example") || name.find_first_not_of("0123456789.:") == std::string::npos;
}

ClientQuotaError Only(const ClientQuotaMap& current, const ClientQuotaAlteration& a) {
  ClientQuotaAlterationPlan plan = PlanClientQuotaAlterations(current, {a}, NoDns);
  EXPECT_EQ(plan.results.size(), 1u);
  return plan.results.empty() ? ClientQuotaError{} : plan.results[0].second;
}

const std::optional<std::string> kDefault = std::nullopt;

TEST(JavaHashMapOrderTest, MatchesJavasIterationOrder) {
  // What java.util.HashMap prints for these keys (checked with jshell).
  EXPECT_EQ(JavaHashMapOrder({"user", "client-id"}, 2),
            (std::vector<std::string>{"client-id", "user"}));
  EXPECT_EQ(JavaHashMapOrder({"ip", "user", "client-id"}, 3),
            (std::vector<std::string>{"client-id", "user", "ip"}));
  EXPECT_EQ(JavaHashMapOrder({"user", "client-id", "ip"}, 16),
            (std::vector<std::string>{"ip", "client-id", "user"}));
  EXPECT_EQ(JavaHashMapOrder({"a", "a", "b"}, 0), (std::vector<std::string>{"a", "b"}));
}

TEST(ClientQuotaControlTest, EntityStringIsKafkas) {
  EXPECT_EQ(ClientQuotaEntityString({{"user", "alice"}, {"client-id", kDefault}}),
            "ClientQuotaEntity(entries={client-id=null, user=alice})");
}

TEST(ClientQuotaControlTest, SetsChangesAndRemovesQuotas) {
  ClientQuotaMap quotas;
  auto plan = PlanClientQuotaAlterations(
      quotas,
      {Alter({{"user", "alice"}},
             {Set("producer_byte_rate", 1024), Set("request_percentage", 12.5)}),
       Alter({{"client-id", kDefault}}, {Set("consumer_byte_rate", 2048)}),
       Alter({{"user", kDefault}, {"client-id", "app"}}, {Set("controller_mutation_rate", 0.5)}),
       Alter({{"ip", "10.0.0.1"}}, {Set("connection_creation_rate", 10)}),
       Alter({{"ip", kDefault}}, {Set("connection_creation_rate", 100)})},
      NoDns);
  ASSERT_EQ(plan.results.size(), 5u);
  for (const auto& [entity, error] : plan.results) {
    EXPECT_TRUE(error.ok()) << ClientQuotaEntityString(entity) << ": " << error.message.value();
  }
  EXPECT_EQ(plan.changes.size(), 6u);
  ApplyClientQuotaChanges(plan.changes, &quotas);
  EXPECT_EQ(quotas.size(), 5u);
  const ClientQuotaEntity alice{{"user", "alice"}};
  EXPECT_EQ(quotas[alice]["producer_byte_rate"], 1024);
  // The same value again writes nothing; a removal of an absent key neither (nor is it checked).
  plan = PlanClientQuotaAlterations(
      quotas,
      {Alter({{"user", "alice"}},
             {Set("producer_byte_rate", 1024), Remove("nothing"), Remove("consumer_byte_rate")})},
      NoDns);
  ASSERT_EQ(plan.results.size(), 1u);
  EXPECT_TRUE(plan.results[0].second.ok());
  EXPECT_TRUE(plan.changes.empty());
  // Removing every key removes the entity.
  plan = PlanClientQuotaAlterations(
      quotas,
      {Alter({{"user", "alice"}}, {Remove("producer_byte_rate"), Remove("request_percentage")})},
      NoDns);
  ASSERT_EQ(plan.changes.size(), 2u);
  EXPECT_TRUE(plan.changes[0].remove);
  ApplyClientQuotaChanges(plan.changes, &quotas);
  EXPECT_EQ(quotas.count(alice), 0u);
}

TEST(ClientQuotaControlTest, RefusesBadEntitiesInKafkasWords) {
  const ClientQuotaMap none;
  EXPECT_EQ(Only(none, Alter({}, {Set("producer_byte_rate", 1)})),
            ClientQuotaError::InvalidRequest("Invalid empty client quota entity"));
  EXPECT_EQ(Only(none, Alter({{"group", "g"}}, {Set("producer_byte_rate", 1)})),
            ClientQuotaError::InvalidRequest("Unhandled client quota entity type: group"));
  EXPECT_EQ(Only(none, Alter({{"user", ""}}, {Set("producer_byte_rate", 1)})),
            ClientQuotaError::InvalidRequest("Empty user not supported"));
  EXPECT_EQ(Only(none, Alter({{"user", "a"}, {"ip", "1.2.3.4"}}, {Set("producer_byte_rate", 1)})),
            ClientQuotaError::InvalidRequest("Invalid quota entity combination, IP entity "
                                             "shouldnot be combined with User or ClientId"));
  EXPECT_EQ(
      Only(none, Alter({{"ip", "no-such-host.invalid"}}, {Set("connection_creation_rate", 1)})),
      ClientQuotaError::InvalidRequest(
          "no-such-host.invalid is not a valid IP or resolvable host."));
  EXPECT_TRUE(
      Only(none, Alter({{"ip", "broker.example"}}, {Set("connection_creation_rate", 1)})).ok());
  EXPECT_TRUE(IsValidIpEntityName("10.0.0.1"));
  EXPECT_TRUE(IsValidIpEntityName("[::1]"));
  // A type named twice keeps its last name, as Kafka's map of the entity does.
  auto plan = PlanClientQuotaAlterations(
      none, {Alter({{"user", "a"}, {"user", "b"}}, {Set("producer_byte_rate", 1)})}, NoDns);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].entity, (ClientQuotaEntity{{"user", "b"}}));
}

TEST(ClientQuotaControlTest, RefusesBadKeysAndValuesInKafkasWords) {
  const ClientQuotaMap none;
  const std::vector<std::pair<std::string, std::optional<std::string>>> user{{"user", "u"}};
  EXPECT_EQ(Only(none, Alter(user, {Set("connection_creation_rate", 1)})),
            ClientQuotaError::InvalidRequest("Invalid configuration key connection_creation_rate"));
  EXPECT_EQ(Only(none, Alter({{"ip", "1.2.3.4"}}, {Set("producer_byte_rate", 1)})),
            ClientQuotaError::InvalidRequest("Invalid configuration key producer_byte_rate"));
  EXPECT_EQ(Only(none, Alter(user, {Set("producer_byte_rate", -5)})),
            ClientQuotaError::InvalidRequest("Quota producer_byte_rate must be greater than 0"));
  EXPECT_EQ(Only(none, Alter(user, {Set("request_percentage", std::nan(""))})),
            ClientQuotaError::InvalidRequest("Quota request_percentage must be a finite number"));
  EXPECT_EQ(Only(none, Alter(user, {Set("request_percentage", 0)})),
            ClientQuotaError::InvalidRequest("Quota request_percentage must be greater than 0"));
  EXPECT_EQ(Only(none, Alter(user, {Set("consumer_byte_rate", 10.5)})),
            ClientQuotaError::InvalidRequest("consumer_byte_rate cannot be a fractional value."));
  EXPECT_EQ(Only(none, Alter(user, {Set("consumer_byte_rate", 1e19)})),
            ClientQuotaError::InvalidRequest(
                "Proposed value for consumer_byte_rate is too large for a LONG."));
  EXPECT_EQ(Only(none, Alter({{"ip", kDefault}}, {Set("connection_creation_rate", 3e9)})),
            ClientQuotaError::InvalidRequest(
                "Proposed value for connection_creation_rate is too large for an INT."));
  EXPECT_EQ(
      Only(none, Alter({{"ip", kDefault}}, {Set("connection_creation_rate", 1.5)})),
      ClientQuotaError::InvalidRequest("connection_creation_rate cannot be a fractional value."));
  // Doubles take fractions; a failing key fails the entity's other keys too.
  auto plan = PlanClientQuotaAlterations(
      none, {Alter(user, {Set("request_percentage", 0.25), Set("producer_byte_rate", 1.5)})},
      NoDns);
  EXPECT_FALSE(plan.results[0].second.ok());
  EXPECT_TRUE(plan.changes.empty());
}

TEST(ClientQuotaControlTest, DuplicateKeysAndEntitiesAsKafkaAnswersThem) {
  const ClientQuotaMap none;
  // A duplicate key ends as "Ignoring duplicate entity" (Kafka finds its own "Duplicate quota
  // key" error under the entity), and nothing is recorded for it.
  auto plan = PlanClientQuotaAlterations(
      none, {Alter({{"user", "u"}}, {Set("producer_byte_rate", 1), Set("producer_byte_rate", 2)})},
      NoDns);
  ASSERT_EQ(plan.results.size(), 1u);
  EXPECT_EQ(plan.results[0].second,
            ClientQuotaError::InvalidRequest(
                "Ignoring duplicate entity ClientQuotaEntity(entries={user=u})"));
  EXPECT_TRUE(plan.changes.empty());
  // An entity altered twice: the first alteration is recorded, the answer is the error.
  plan = PlanClientQuotaAlterations(none,
                                    {Alter({{"client-id", "c"}}, {Set("producer_byte_rate", 1)}),
                                     Alter({{"client-id", "c"}}, {Set("consumer_byte_rate", 2)})},
                                    NoDns);
  ASSERT_EQ(plan.results.size(), 1u);
  EXPECT_EQ(plan.results[0].second.code, Code::kInvalidRequest);
  EXPECT_EQ(*plan.results[0].second.message,
            "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=c})");
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].key, "producer_byte_rate");
}

ClientQuotaMap Sample() {
  ClientQuotaMap q;
  q[{{"user", "alice"}}]["producer_byte_rate"] = 1;
  q[{{"user", kDefault}}]["producer_byte_rate"] = 2;
  q[{{"user", "alice"}, {"client-id", "app"}}]["producer_byte_rate"] = 3;
  q[{{"user", "alice"}, {"client-id", kDefault}}]["producer_byte_rate"] = 4;
  q[{{"client-id", "app"}}]["consumer_byte_rate"] = 5;
  q[{{"client-id", kDefault}}]["consumer_byte_rate"] = 6;
  q[{{"ip", "1.2.3.4"}}]["connection_creation_rate"] = 7;
  return q;
}

std::vector<ClientQuotaEntity> Entities(const ClientQuotaDescription& d) {
  EXPECT_TRUE(d.error.ok()) << d.error.message.value_or("");
  std::vector<ClientQuotaEntity> out;
  for (const auto& [entity, values] : d.entries) out.push_back(entity);
  return out;
}

TEST(ClientQuotaControlTest, DescribeMatchesKafkasFilters) {
  const ClientQuotaMap q = Sample();
  using F = ClientQuotaFilterComponent;
  EXPECT_EQ(Entities(DescribeClientQuotas(q, {})).size(), 7u);
  EXPECT_TRUE(Entities(DescribeClientQuotas(q, {{}, true})).empty());
  // EXACT user alice: alice alone and with client ids; strict: alice alone.
  EXPECT_EQ(Entities(DescribeClientQuotas(q, {{F{"user", 0, "alice"}}, false})).size(), 3u);
  EXPECT_EQ(Entities(DescribeClientQuotas(q, {{F{"user", 0, "alice"}}, true})),
            (std::vector<ClientQuotaEntity>{{{"user", "alice"}}}));
  // DEFAULT user: the default user alone.
  EXPECT_EQ(Entities(DescribeClientQuotas(q, {{F{"user", 1, std::nullopt}}, false})),
            (std::vector<ClientQuotaEntity>{{{"user", kDefault}}}));
  // SPECIFIED client-id (default ones included, as in Kafka) with the user alice.
  EXPECT_EQ(Entities(DescribeClientQuotas(
                         q, {{F{"user", 0, "alice"}, F{"client-id", 2, std::nullopt}}, true}))
                .size(),
            2u);
  EXPECT_EQ(Entities(DescribeClientQuotas(q, {{F{"client-id", 2, std::nullopt}}, true})).size(),
            2u);
  EXPECT_EQ(Entities(DescribeClientQuotas(q, {{F{"ip", 2, std::nullopt}}, false})).size(), 1u);
}

TEST(ClientQuotaControlTest, DescribeRefusesBadFiltersInKafkasWords) {
  const ClientQuotaMap q = Sample();
  using F = ClientQuotaFilterComponent;
  auto error = [&](ClientQuotaFilter f) { return DescribeClientQuotas(q, f).error; };
  EXPECT_EQ(error({{F{"", 0, "x"}}}),
            ClientQuotaError::InvalidRequest("Invalid empty entity type."));
  EXPECT_EQ(error({{F{"user", 0, "a"}, F{"user", 2, std::nullopt}}}),
            ClientQuotaError::InvalidRequest(
                "Entity type user cannot appear more than once in the filter."));
  EXPECT_EQ(error({{F{"group", 0, "a"}}}),
            (ClientQuotaError{Code::kUnsupportedVersion, "Unsupported entity type group"}));
  EXPECT_EQ(error({{F{"user", 0, std::nullopt}}}),
            ClientQuotaError::InvalidRequest(
                "Request specified MATCH_TYPE_EXACT, but set match string to null."));
  EXPECT_EQ(error({{F{"user", 1, "a"}}}),
            ClientQuotaError::InvalidRequest(
                "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."));
  EXPECT_EQ(error({{F{"user", 2, "a"}}}),
            ClientQuotaError::InvalidRequest(
                "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."));
  EXPECT_EQ(error({{F{"user", 7, std::nullopt}}}),
            ClientQuotaError::InvalidRequest("Unknown match type 7"));
  EXPECT_EQ(error({{F{"ip", 2, std::nullopt}, F{"user", 0, "a"}}}),
            ClientQuotaError::InvalidRequest(
                "Invalid entity filter component combination. IP filter component should not "
                "be used with user or clientId filter component."));
}

}  // namespace
}  // namespace seglog
