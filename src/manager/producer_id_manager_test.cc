// ProducerIdManager: ids unique across restarts, the block file's damage refused, a failed
// write hands out nothing, concurrent callers, and LogManager's producer tasks.
#include "manager/producer_id_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <thread>

#include "io/fault_injection_env.h"
#include "manager/log_manager.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

TEST(ProducerIdManagerTest, IdsNeverRepeatAcrossRestarts) {
  TempDir tmp;
  const std::string path = tmp.path() + "/" + kProducerIdBlockFile;
  std::set<int64_t> seen;
  int64_t last = -1;
  for (int run = 0; run < 3; ++run) {
    auto m = ProducerIdManager::Open(Env::Default(), path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    for (int i = 0; i < (run == 1 ? 1500 : 3); ++i) {
      auto id = (*m)->NextProducerId();
      ASSERT_TRUE(id.ok());
      EXPECT_GT(*id, last);
      EXPECT_TRUE(seen.insert(*id).second);
      last = *id;
    }
  }
  // Each restart starts a new block of 1000: 0-2, then 1000-2499, then 3000-3002.
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(last, 3002);
  EXPECT_EQ(testing::FileSize(path), 14);
}

TEST(ProducerIdManagerTest, ADamagedBlockFileIsCorruption) {
  TempDir tmp;
  const std::string path = tmp.path() + "/" + kProducerIdBlockFile;
  {
    auto m = ProducerIdManager::Open(Env::Default(), path);
    ASSERT_TRUE((*m)->NextProducerId().ok());
  }
  testing::FlipBits(path, 5, 0x01);
  auto m = ProducerIdManager::Open(Env::Default(), path);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(m.status().IsCorruption());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("crc"));
}

TEST(ProducerIdManagerTest, AFailedBlockWriteHandsOutNothing) {
  TempDir tmp;
  FaultInjectionEnv env(Env::Default());
  auto m = ProducerIdManager::Open(&env, tmp.path() + "/" + kProducerIdBlockFile);
  ASSERT_TRUE(m.ok());
  env.Fail(EnvOp::kSync, kProducerIdBlockFile, ENOSPC);
  auto id = (*m)->NextProducerId();
  ASSERT_FALSE(id.ok());
  EXPECT_TRUE(id.status().IsIOError());
  env.ClearFailures();
  auto again = (*m)->NextProducerId();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST(ProducerIdManagerTest, ConcurrentCallersGetDistinctIds) {
  TempDir tmp;
  auto m = ProducerIdManager::Open(Env::Default(), tmp.path() + "/" + kProducerIdBlockFile);
  ASSERT_TRUE(m.ok());
  std::vector<std::vector<int64_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 700; ++i) got[t].push_back(*(*m)->NextProducerId());
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : got) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 2800u);
  EXPECT_EQ(*all.rbegin(), 2799);
}

TEST(LogManagerProducerTest, NextProducerIdAndTheExpirationTask) {
  TempDir a, b;
  constexpr int64_t kT0 = 1794024676000;
  MockScheduler scheduler(kT0);
  auto config =
      LogManagerConfig::FromProperties({{"log.dirs", a.path() + "," + b.path()},
                                        {"producer.id.expiration.ms", "60000"},
                                        {"producer.id.expiration.check.interval.ms", "1000"}});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  int64_t first = -1;
  {
    auto m = LogManager::Open(*config, &scheduler);
    ASSERT_TRUE(m.ok());
    first = *(*m)->NextProducerId();
    EXPECT_EQ(first, 0);
    EXPECT_TRUE(std::filesystem::exists(a.path() + "/" + kProducerIdBlockFile));
    ASSERT_TRUE((*m)->CreateTopic("t", 1).ok());
    auto log = (*m)->GetLog({"t", 0});
    ASSERT_TRUE(log.ok());
    BatchOptions o;
    o.producer_id = first;
    o.producer_epoch = 0;
    o.base_sequence = 0;
    RecordBatchBuilder builder(o);
    ASSERT_TRUE(builder.Append(kT0, std::nullopt, std::nullopt).ok());
    ASSERT_TRUE((*log)->AppendAsLeader(*builder.Build()).ok());
    EXPECT_EQ((*log)->active_producers().size(), 1u);
    (*m)->StartTasks();
    scheduler.Advance(59000);  // the task ran 59 times; the producer is 59 s old
    EXPECT_EQ((*log)->active_producers().size(), 1u);
    scheduler.Advance(1000);
    EXPECT_TRUE((*log)->active_producers().empty());
    ASSERT_TRUE((*m)->Shutdown().ok());
  }
  // A partition directory and the block file side by side: the next open ignores the file.
  auto m = LogManager::Open(*config, &scheduler);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->ListTopics(), std::vector<std::string>{"t"});
  EXPECT_EQ(*(*m)->NextProducerId(), 1000);
}

TEST(LogManagerConfigProducerTest, KafkasKeysDefaultsAndValidation) {
  auto d = LogManagerConfig::FromProperties({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->producer_id_expiration_ms, 86400000);
  EXPECT_EQ(d->producer_id_expiration_check_interval_ms, 600000);
  auto bad = LogManagerConfig::FromProperties(
      {{"producer.id.expiration.ms", "0"}, {"producer.id.expiration.check.interval.ms", "x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("Invalid value 0 for configuration producer.id.expiration.ms: Value must "
                        "be at least 1"));
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("producer.id.expiration.check.interval.ms: Not a number of type INT"));
}

}  // namespace
}  // namespace seglog
