#include "server/controller_mutation_quota.h"

#include <gtest/gtest.h>

#include <memory>

namespace seglog {
namespace {

// A controller_mutation_rate of `rate` for client id "c1" alone, and for every client of user
// "alice" together (a user entity: one bucket for all its client ids).
class ControllerMutationQuotaTest : public ::testing::Test {
 protected:
  std::unique_ptr<ControllerMutationQuotaManager> Manager(double rate) {
    ControllerMutationQuotaManager::Options o;
    o.now_ms = [this] { return now_; };
    return std::make_unique<ControllerMutationQuotaManager>(
        o, [rate](ClientQuotaType type, const std::string& user, const std::string& client_id) {
          ClientQuotaLimit l;
          if (type != ClientQuotaType::kControllerMutation) return l;
          if (user == "alice") {
            l.limit = rate;
            l.user_tag = "alice";
          } else if (client_id == "c1") {
            l.limit = rate;
            l.client_id_tag = "c1";
          }
          return l;
        });
  }
  int64_t now_ = 1'000'000;
};

TEST_F(ControllerMutationQuotaTest, StrictAcceptsWhileTokensRemainThenRefuses) {
  auto m = Manager(10);  // burst 11 x 10 = 110
  ControllerMutationQuota q = m->QuotaFor("ANONYMOUS", "c1", /*strict=*/true);
  EXPECT_TRUE(q.Record(100));  // 10 left
  EXPECT_TRUE(q.Record(50));   // accepted though it takes the bucket to -40
  EXPECT_EQ(q.ThrottleMs(), 0);
  EXPECT_FALSE(q.Record(1));  // exhausted: refused, nothing taken
  EXPECT_EQ(q.ThrottleMs(), 4000);
  now_ += 1500;
  EXPECT_EQ(q.ThrottleMs(), 2500);  // the time since it was found is deducted
  // A later request of the same client finds the bucket at -25 and is refused too.
  ControllerMutationQuota next = m->QuotaFor("ANONYMOUS", "c1", true);
  EXPECT_FALSE(next.Record(1));
  EXPECT_EQ(next.ThrottleMs(), 2500);
  now_ += 2500;  // back at zero: accepted again
  ControllerMutationQuota later = m->QuotaFor("ANONYMOUS", "c1", true);
  EXPECT_TRUE(later.Record(5));
  EXPECT_EQ(later.ThrottleMs(), 0);
}

TEST_F(ControllerMutationQuotaTest, PermissiveAcceptsEverythingAndThrottles) {
  auto m = Manager(10);
  ControllerMutationQuota q = m->QuotaFor("ANONYMOUS", "c1", /*strict=*/false);
  EXPECT_TRUE(q.Record(100));
  EXPECT_EQ(q.ThrottleMs(), 0);
  EXPECT_TRUE(q.Record(50));  // -40
  EXPECT_EQ(q.ThrottleMs(), 4000);
  EXPECT_TRUE(q.Record(60));  // -100: still taken
  EXPECT_EQ(q.ThrottleMs(), 10000);
  // A strict request after it sees the debt.
  ControllerMutationQuota strict = m->QuotaFor("ANONYMOUS", "c1", true);
  EXPECT_FALSE(strict.Record(1));
  EXPECT_EQ(strict.ThrottleMs(), 10000);
}

TEST_F(ControllerMutationQuotaTest, ClientsWithoutAQuotaAreUnbounded) {
  auto m = Manager(1);
  ControllerMutationQuota q = m->QuotaFor("ANONYMOUS", "other", true);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(q.Record(1000));
  EXPECT_EQ(q.ThrottleMs(), 0);
  EXPECT_EQ(m->buckets(), 0u);
}

TEST_F(ControllerMutationQuotaTest, ClientsOfOneEntityShareItsBucket) {
  auto m = Manager(10);
  EXPECT_TRUE(m->QuotaFor("alice", "a1", true).Record(110));
  ControllerMutationQuota other_client = m->QuotaFor("alice", "a2", true);
  EXPECT_TRUE(other_client.Record(1));  // 0 tokens left is not below zero
  EXPECT_FALSE(other_client.Record(1));
  EXPECT_EQ(other_client.ThrottleMs(), 100);
  // c1 is its own entity, untouched.
  EXPECT_TRUE(m->QuotaFor("bob", "c1", true).Record(110));
  EXPECT_EQ(m->buckets(), 2u);
}

TEST_F(ControllerMutationQuotaTest, FullBucketsAreDroppedAndDebtsKept) {
  auto m = Manager(10);
  EXPECT_TRUE(m->QuotaFor("alice", "a1", true).Record(5));
  EXPECT_TRUE(m->QuotaFor("bob", "c1", false).Record(1110));  // -1000: 100 s to refill
  EXPECT_EQ(m->buckets(), 2u);
  now_ += 12'000;  // past one burst span: alice's is full again, c1's still owes 880
  ControllerMutationQuota q = m->QuotaFor("bob", "c1", true);
  EXPECT_FALSE(q.Record(1));
  EXPECT_EQ(q.ThrottleMs(), 88000);
  EXPECT_EQ(m->buckets(), 1u);
}

}  // namespace
}  // namespace seglog
