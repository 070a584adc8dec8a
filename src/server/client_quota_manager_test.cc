#include "server/client_quota_manager.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace seglog {
namespace {

// Quotas by client id alone: "slow" has 100 B/s produce, every other client shares nothing.
ClientQuotaLimit ByClientId(ClientQuotaType type, const std::string&, const std::string& client) {
  if (type == ClientQuotaType::kProduce && client == "slow") return {100.0, "", "slow"};
  if (type == ClientQuotaType::kProduce && client.rfind("team-", 0) == 0) {
    return {1000.0, "team", ""};  // one quota entity (a user) shared by the team's clients
  }
  if (type == ClientQuotaType::kRequest) return {50.0, "", client};
  return {};
}

TEST(ClientQuotaManager, ThrottlesByKafkasRateAndSharesRatesPerEntity) {
  ClientQuotaManager q({11, 1000}, ByClientId);
  // Unlimited clients are not even tracked.
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "free", 1e9, 0), 0);
  EXPECT_EQ(q.rates(), 0u);
  // 1000 bytes over the 10 s minimum window: 100 B/s, at the quota.
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "slow", 1000, 0), 0);
  // 2000 more: 300 B/s against 100: (300 - 100) / 100 x 10 s.
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "slow", 2000, 0), 20000);
  // Two clients of one entity share its rate.
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "team-a", 10000, 0), 0);
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "team-b", 1000, 0), 1000);
  EXPECT_EQ(q.rates(), 2u);
}

TEST(ClientQuotaManager, UnrecordTakesBytesBackAndRequestThrottlesAreBoundedByAWindow) {
  ClientQuotaManager q({11, 1000}, ByClientId);
  EXPECT_GT(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "slow", 5000, 0), 0);
  q.Unrecord(ClientQuotaType::kProduce, "u", "slow", 5000, 0);
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kProduce, "u", "slow", 1, 0), 0);
  // 10 s of thread time in 10 s is 100% of a thread against 50%: bounded at one window.
  EXPECT_EQ(q.RecordAndGetThrottleMs(ClientQuotaType::kRequest, "u", "c", 1000, 0), 1000);
}

TEST(ClientQuotaManager, MaxValueInQuotaWindowAndIdleRatesAreDropped) {
  ClientQuotaManager q({11, 1000}, ByClientId);
  EXPECT_DOUBLE_EQ(q.MaxValueInQuotaWindow(ClientQuotaType::kProduce, "u", "slow"), 1000.0);
  EXPECT_TRUE(std::isinf(q.MaxValueInQuotaWindow(ClientQuotaType::kFetch, "u", "slow")));
  for (int i = 0; i < 100; ++i) {
    q.RecordAndGetThrottleMs(ClientQuotaType::kRequest, "u", fmt::format("c{}", i), 0.1, 0);
  }
  EXPECT_EQ(q.rates(), 100u);
  // After the whole window (11 s) without use, their samples have expired: they are dropped.
  q.RecordAndGetThrottleMs(ClientQuotaType::kRequest, "u", "late", 0.1, 30000);
  EXPECT_EQ(q.rates(), 1u);
}

TEST(ClientQuotaManager, QuotaUserIsThePrincipalsName) {
  EXPECT_EQ(QuotaUserOf("User:alice"), "alice");
  EXPECT_EQ(QuotaUserOf("User:ANONYMOUS"), "ANONYMOUS");
  EXPECT_EQ(QuotaUserOf("User:CN=x,O=y:z"), "CN=x,O=y:z");
}

}  // namespace
}  // namespace seglog
