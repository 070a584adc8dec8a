#include "server/memory_pool.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

namespace seglog {
namespace {

TEST(RequestMemoryPool, GrantsWhileAnyBytesAreLeftAndWakesWhenTheyReturn) {
  RequestMemoryPool pool(100);
  int wakes = 0;
  pool.AddListener([&] { ++wakes; });
  EXPECT_TRUE(pool.TryAllocate(60));
  EXPECT_TRUE(pool.TryAllocate(60));  // 40 were left: granted, overdrawn
  EXPECT_EQ(pool.available(), -20);
  EXPECT_FALSE(pool.TryAllocate(1));
  EXPECT_EQ(pool.mutes(), 1);
  pool.Release(10);  // still none
  EXPECT_EQ(wakes, 0);
  pool.Release(50);  // 40 again: exhaustion ended
  EXPECT_EQ(wakes, 1);
  pool.Release(60);
  EXPECT_EQ(wakes, 1);  // it was not exhausted
  EXPECT_EQ(pool.available(), 100);
}

TEST(MemoryCharge, ReleasesEverythingChargedWhenTheLastOwnerGoes) {
  RequestMemoryPool pool(1000);
  ASSERT_TRUE(pool.TryAllocate(100));
  auto charge = std::make_shared<MemoryCharge>(&pool, 100);
  charge->Add(2000);  // decoded state: charged whatever is left
  EXPECT_EQ(pool.available(), -1100);
  std::shared_ptr<MemoryCharge> parked = charge;  // e.g. a parked fetch's copy
  charge.reset();
  EXPECT_EQ(pool.available(), -1100);
  parked.reset();
  EXPECT_EQ(pool.available(), 1000);
}

TEST(RequestMemoryPool, StuckWhenFramesStillArrivingFillIt) {
  RequestMemoryPool pool(100);
  ASSERT_TRUE(pool.TryAllocate(60));
  auto complete = std::make_unique<MemoryCharge>(&pool, 60);  // a request in flight
  auto partial = std::make_unique<MemoryCharge>(&pool, 0, /*partial=*/true);
  ASSERT_TRUE(pool.TryAllocate(50));
  partial->AddAllocated(50);
  EXPECT_TRUE(pool.exhausted());
  EXPECT_FALSE(pool.Stuck());  // the request in flight will give 60 back: 50 left
  ASSERT_FALSE(pool.TryAllocate(1));
  pool.ForceAllocate(60);  // an overdraft for the partial frame
  partial->AddAllocated(60);
  EXPECT_TRUE(pool.Stuck());  // 110 of frames still arriving: no release can make room
  partial->MarkComplete();
  EXPECT_FALSE(pool.Stuck());
  partial.reset();
  complete.reset();
  EXPECT_EQ(pool.available(), 100);
  EXPECT_EQ(pool.partial(), 0);
}

TEST(RequestMemoryPool, OneReliefAtATimeHeldUntilItsRequestGivesItsBytesBack) {
  RequestMemoryPool pool(100);
  ASSERT_TRUE(pool.TryStartRelief());
  EXPECT_FALSE(pool.TryStartRelief());
  {
    MemoryCharge charge(&pool, 0, /*partial=*/true);
    charge.MarkComplete();
    charge.HoldRelief();
    EXPECT_TRUE(pool.relief_in_progress());  // complete, but its request still holds bytes
  }
  EXPECT_FALSE(pool.relief_in_progress());
  EXPECT_TRUE(pool.TryStartRelief());
  pool.EndRelief();
}

TEST(RequestMemoryPool, ConcurrentChargesBalance) {
  RequestMemoryPool pool(1 << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool] {
      for (int i = 0; i < 10000; ++i) {
        if (pool.TryAllocate(100)) {
          MemoryCharge c(&pool, 100);
          c.Add(50);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(pool.available(), 1 << 20);
}

}  // namespace
}  // namespace seglog
