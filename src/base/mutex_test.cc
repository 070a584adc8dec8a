#include "base/mutex.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace seglog {
namespace {

class Counter {
 public:
  void Add() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    ++value_;
  }
  int Get() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return value_;
  }

 private:
  Mutex mu_;
  int value_ GUARDED_BY(mu_) = 0;
};

TEST(MutexTest, GuardsConcurrentIncrements) {
  Counter c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c] {
      for (int i = 0; i < 10000; ++i) c.Add();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Get(), 40000);
}

}  // namespace
}  // namespace seglog
