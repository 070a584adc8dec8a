// DescribeClientQuotas and AlterClientQuotas (client_quota_handlers.cc) over a LogManager:
// Kafka's answers, the quotas kept across a restart, and the cluster ACLs they need.
#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "server/expect_encodes.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"

namespace seglog {
namespace {

namespace p = protocol;

class ClientQuotaHandlersTest : public HandlersTest {};

p::AlterClientQuotasRequestData::EntryData Entry(
    std::vector<std::pair<std::string, std::optional<std::string>>> entity,
    std::vector<std::tuple<std::string, double, bool>> ops) {
  p::AlterClientQuotasRequestData::EntryData e;
  for (auto& [type, name] : entity) {
    auto& d = e.entity.emplace_back();
    d.entity_type = type;
    d.entity_name = name;
  }
  for (auto& [key, value, remove] : ops) {
    auto& o = e.ops.emplace_back();
    o.key = key;
    o.value = value;
    o.remove = remove;
  }
  return e;
}

p::DescribeClientQuotasRequestData Filter(std::string type, int8_t match_type,
                                          std::optional<std::string> match, bool strict) {
  p::DescribeClientQuotasRequestData req;
  auto& c = req.components.emplace_back();
  c.entity_type = std::move(type);
  c.match_type = match_type;
  c.match = std::move(match);
  req.strict = strict;
  return req;
}

TEST_F(ClientQuotaHandlersTest, QuotasAreAlteredDescribedAndKept) {
  p::AlterClientQuotasRequestData req;
  req.entries = {Entry({{"user", "alice"}, {"client-id", "app"}},
                       {{"producer_byte_rate", 1024, false}, {"request_percentage", 12.5, false}}),
                 Entry({{"client-id", std::nullopt}}, {{"consumer_byte_rate", 2048, false}}),
                 Entry({{"user", "bob"}}, {{"consumer_byte_rate", 1.5, false}})};
  auto resp = HandleAlterClientQuotas(ctx_, rc_, req, 1);
  testing::ExpectEncodes(resp, p::ApiKey::kAlterClientQuotas);
  ASSERT_EQ(resp.entries.size(), 3u);
  EXPECT_EQ(resp.entries[0].error_code, 0);
  EXPECT_EQ(resp.entries[0].error_message, std::nullopt);
  // Kafka's order of the entity's types.
  ASSERT_EQ(resp.entries[0].entity.size(), 2u);
  EXPECT_EQ(resp.entries[0].entity[0].entity_type, "client-id");
  EXPECT_EQ(resp.entries[1].error_code, 0);
  EXPECT_EQ(resp.entries[2].error_code, 42);
  EXPECT_EQ(resp.entries[2].error_message, "consumer_byte_rate cannot be a fractional value.");

  auto all = HandleDescribeClientQuotas(ctx_, rc_, {}, 1);
  testing::ExpectEncodes(all, p::ApiKey::kDescribeClientQuotas);
  EXPECT_EQ(all.error_code, 0);
  ASSERT_TRUE(all.entries.has_value());
  EXPECT_EQ(all.entries->size(), 2u);
  auto defaults =
      HandleDescribeClientQuotas(ctx_, rc_, Filter("client-id", 1, std::nullopt, true), 0);
  ASSERT_EQ(defaults.entries->size(), 1u);
  EXPECT_EQ(defaults.entries->at(0).entity.at(0).entity_name, std::nullopt);
  ASSERT_EQ(defaults.entries->at(0).values.size(), 1u);
  EXPECT_EQ(defaults.entries->at(0).values[0].key, "consumer_byte_rate");
  EXPECT_EQ(defaults.entries->at(0).values[0].value, 2048);

  // validate_only answers without writing; a restart keeps what was written.
  p::AlterClientQuotasRequestData check;
  check.validate_only = true;
  check.entries = {Entry({{"client-id", std::nullopt}}, {{"consumer_byte_rate", 0, true}})};
  EXPECT_EQ(HandleAlterClientQuotas(ctx_, rc_, check, 1).entries.at(0).error_code, 0);
  Open({});
  auto after = HandleDescribeClientQuotas(ctx_, rc_, Filter("user", 0, "alice", false), 1);
  ASSERT_EQ(after.entries->size(), 1u);
  EXPECT_EQ(after.entries->at(0).values.size(), 2u);
  EXPECT_EQ(HandleDescribeClientQuotas(ctx_, rc_, {}, 1).entries->size(), 2u);
  EXPECT_EQ(logs_->metadata()->ClientQuotas()->Lookup(ClientQuotaType::kFetch, "x", "y").limit,
            2048);
}

TEST_F(ClientQuotaHandlersTest, BadFiltersFailTheRequestWithoutEntries) {
  auto resp = HandleDescribeClientQuotas(ctx_, rc_, Filter("group", 2, std::nullopt, false), 1);
  EXPECT_EQ(resp.error_code, 35);
  EXPECT_EQ(resp.error_message, "Unsupported entity type group");
  EXPECT_FALSE(resp.entries.has_value());
  testing::ExpectEncodes(resp, p::ApiKey::kDescribeClientQuotas);
  resp = HandleDescribeClientQuotas(ctx_, rc_, Filter("user", 0, std::nullopt, false), 0);
  EXPECT_EQ(resp.error_code, 42);
  EXPECT_EQ(resp.error_message,
            "Request specified MATCH_TYPE_EXACT, but set match string to null.");
}

TEST_F(ClientQuotaHandlersTest, BadAlterationsInKafkasWords) {
  p::AlterClientQuotasRequestData req;
  req.entries = {Entry({{"user", "u"}}, {{"connection_creation_rate", 5, false}}),
                 Entry({{"ip", "1.2.3.4"}}, {{"connection_creation_rate", 5, false}}),
                 Entry({{"ip", std::nullopt}}, {{"connection_creation_rate", -1, false}}),
                 Entry({{"thing", "t"}}, {{"producer_byte_rate", 5, false}}),
                 Entry({{"client-id", "c"}}, {{"producer_byte_rate", 0, true}})};
  auto resp = HandleAlterClientQuotas(ctx_, rc_, req, 0);
  ASSERT_EQ(resp.entries.size(), 5u);
  EXPECT_EQ(resp.entries[0].error_message, "Invalid configuration key connection_creation_rate");
  EXPECT_EQ(resp.entries[1].error_code, 0);
  EXPECT_EQ(resp.entries[2].error_message, "Quota connection_creation_rate must be greater than 0");
  EXPECT_EQ(resp.entries[3].error_message, "Unhandled client quota entity type: thing");
  EXPECT_EQ(resp.entries[4].error_code, 0);  // removing an absent key is no error
  auto all = HandleDescribeClientQuotas(ctx_, rc_, {}, 1);
  ASSERT_EQ(all.entries->size(), 1u);
  EXPECT_EQ(all.entries->at(0).entity.at(0).entity_type, "ip");
}

TEST_F(ClientQuotaHandlersTest, WithAnAuthorizerTheClusterMustAllowIt) {
  ctx_.authorizer = std::make_shared<StandardAuthorizer>(AuthorizerOptions{{}, false});
  p::AlterClientQuotasRequestData req;
  req.entries = {Entry({{"user", "u"}, {"user", "v"}}, {{"producer_byte_rate", 5, false}})};
  auto resp = HandleAlterClientQuotas(ctx_, rc_, req, 1);
  ASSERT_EQ(resp.entries.size(), 1u);
  EXPECT_EQ(resp.entries[0].error_code, 31);
  EXPECT_EQ(resp.entries[0].error_message, "Cluster authorization failed.");
  EXPECT_EQ(resp.entries[0].entity.size(), 2u);  // the entity as sent
  auto described = HandleDescribeClientQuotas(ctx_, rc_, {}, 1);
  EXPECT_EQ(described.error_code, 31);
  EXPECT_EQ(described.error_message, "Cluster authorization failed.");
  EXPECT_FALSE(described.entries.has_value());
  EXPECT_TRUE(logs_->metadata()->ClientQuotas()->quotas().empty());
}

}  // namespace
}  // namespace seglog
