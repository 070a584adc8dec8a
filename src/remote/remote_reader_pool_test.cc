// RemoteReaderPool: order, the bounded queue, cancellation, shutdown, lazily started threads.
#include "remote/remote_reader_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

namespace seglog {
namespace {

// A latch the reads wait on, so that a test decides when they end.
class Gate {
 public:
  void Open() {
    MutexLock l(&mu_);
    open_ = true;
    cv_.SignalAll();
  }
  void Wait() {
    MutexLock l(&mu_);
    ++waiting_;
    cv_.SignalAll();
    while (!open_) cv_.Wait(&mu_);
  }
  bool AwaitWaiting(int n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    MutexLock l(&mu_);
    while (waiting_ < n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      cv_.WaitForMs(&mu_, 10);
    }
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_{&mu_};
  bool open_ GUARDED_BY(mu_) = false;
  int waiting_ GUARDED_BY(mu_) = 0;
};

template <typename F>
bool Eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

TEST(RemoteReaderPoolTest, OneThreadRunsReadsInSubmissionOrder) {
  RemoteReaderPool pool(1, 100);
  Mutex mu;
  std::vector<int> order;
  std::vector<std::shared_ptr<RemoteReaderPool::Ticket>> tickets;
  for (int i = 0; i < 20; ++i) {
    auto t = pool.Submit([&, i] {
      MutexLock l(&mu);
      order.push_back(i);
    });
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tickets.push_back(*t);
  }
  ASSERT_TRUE(Eventually([&] { return pool.stats().completed == 20; }));
  MutexLock l(&mu);
  std::vector<int> expected;
  for (int i = 0; i < 20; ++i) expected.push_back(i);
  EXPECT_EQ(order, expected);
  EXPECT_EQ(pool.stats().threads, 1);
  EXPECT_FALSE(tickets[0]->Cancel());  // ran already
}

TEST(RemoteReaderPoolTest, AFullQueueRefusesAtOnceAndThreadsStartAsNeeded) {
  RemoteReaderPool pool(2, 3);
  EXPECT_EQ(pool.stats().threads, 0);  // none until a read needs one
  Gate gate;
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(pool.Submit([&] { gate.Wait(); }).ok());
  ASSERT_TRUE(gate.AwaitWaiting(2));
  EXPECT_EQ(pool.stats().threads, 2);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool.Submit([&] { gate.Wait(); }).ok());
  EXPECT_EQ(pool.stats().pending, 3);
  // Both threads busy and three reads queued: the next is refused, and its function dropped.
  auto held = std::make_shared<int>(0);
  auto refused = pool.Submit([held] {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kAborted) << refused.status().ToString();
  EXPECT_NE(refused.status().ToString().find("remote.log.reader.max.pending.tasks"),
            std::string::npos);
  EXPECT_EQ(held.use_count(), 1);
  EXPECT_EQ(pool.stats().rejected, 1);
  EXPECT_EQ(pool.stats().threads, 2);  // never more than asked
  gate.Open();
  ASSERT_TRUE(Eventually([&] { return pool.stats().completed == 5; }));
  EXPECT_EQ(pool.stats().pending, 0);
  EXPECT_EQ(pool.stats().running, 0);
}

TEST(RemoteReaderPoolTest, ACancelledReadNeverRunsAndFreesItsPlace) {
  RemoteReaderPool pool(1, 1);
  Gate gate;
  std::atomic<int> ran{0};
  auto first = pool.Submit([&] {
    gate.Wait();
    ++ran;
  });
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(gate.AwaitWaiting(1));
  auto held = std::make_shared<int>(0);
  auto second = pool.Submit([&, held] { ++ran; });
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(pool.Submit([] {}).ok());  // the queue of one is full
  EXPECT_TRUE((*second)->Cancel());
  EXPECT_TRUE((*second)->Cancel());  // still cancelled
  EXPECT_EQ(held.use_count(), 1);    // its function is gone at once
  EXPECT_FALSE((*first)->Cancel());  // running: not interrupted
  auto third = pool.Submit([&] { ++ran; });
  EXPECT_TRUE(third.ok());  // the cancelled read's place
  gate.Open();
  ASSERT_TRUE(Eventually([&] { return pool.stats().completed == 2; }));
  EXPECT_EQ(ran.load(), 2);
  EXPECT_EQ(pool.stats().cancelled, 1);
}

TEST(RemoteReaderPoolTest, ShutdownCancelsTheQueuedAndWaitsForTheRunning) {
  auto pool = std::make_unique<RemoteReaderPool>(1, 10);
  Gate gate;
  std::atomic<bool> finished{false};
  ASSERT_TRUE(pool->Submit([&] {
                    gate.Wait();
                    finished = true;
                  })
                  .ok());
  ASSERT_TRUE(gate.AwaitWaiting(1));
  auto held = std::make_shared<int>(0);
  auto queued = pool->Submit([held] {});
  ASSERT_TRUE(queued.ok());
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.Open();
  });
  pool->Shutdown();
  EXPECT_TRUE(finished.load());      // the running read ended before Shutdown returned
  EXPECT_EQ(held.use_count(), 1);    // the queued one never ran, its function is gone
  EXPECT_TRUE((*queued)->Cancel());  // already cancelled
  EXPECT_FALSE(pool->Submit([] {}).ok());
  opener.join();
  pool.reset();  // a ticket outlives its pool
  EXPECT_TRUE((*queued)->Cancel());
}

}  // namespace
}  // namespace seglog
