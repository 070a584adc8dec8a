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

LogManagerConfig OneDir(const std::string& dir) {
  auto config = LogManagerConfig::FromProperties({{"log.dirs", dir}});
  EXPECT_TRUE(config.ok());
  return *config;
}

TEST(ProducerIdManagerTest, IdsNeverRepeatAcrossRestarts) {
  TempDir tmp;
  MockScheduler scheduler(1794024676000);
  std::set<int64_t> seen;
  int64_t last = -1;
  for (int run = 0; run < 3; ++run) {
    auto m = LogManager::Open(OneDir(tmp.path()), &scheduler);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    for (int i = 0; i < (run == 1 ? 1500 : 3); ++i) {
      auto id = (*m)->NextProducerId();
      ASSERT_TRUE(id.ok());
      EXPECT_GT(*id, last);
      EXPECT_TRUE(seen.insert(*id).second);
      last = *id;
    }
    ASSERT_TRUE((*m)->Shutdown().ok());
  }
  // Each restart starts a new block of 1000: 0-2, then 1000-2499, then 3000-3002 - the blocks
  // Kafka's controller would grant.
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(last, 3002);
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/" + kProducerIdBlockFile));
}

TEST(ProducerIdManagerTest, ALegacyBlockFileIsMigratedAndADamagedOneRefused) {
  TempDir tmp;
  {
    FILE* f = fopen((tmp.path() + "/" + kProducerIdBlockFile).c_str(), "wb");
    const std::string bytes = EncodeLegacyProducerIdFile(5000);
    fwrite(bytes.data(), 1, bytes.size(), f);
    fclose(f);
  }
  MockScheduler scheduler(1794024676000);
  {
    auto m = LogManager::Open(OneDir(tmp.path()), &scheduler);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(*(*m)->NextProducerId(), 5000);
  }
  EXPECT_TRUE(std::filesystem::exists(tmp.path() + "/" + kProducerIdBlockFile + ".migrated"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/" + kProducerIdBlockFile));

  TempDir bad;
  const std::string path = bad.path() + "/" + kProducerIdBlockFile;
  {
    FILE* f = fopen(path.c_str(), "wb");
    const std::string bytes = EncodeLegacyProducerIdFile(2000);
    fwrite(bytes.data(), 1, bytes.size(), f);
    fclose(f);
  }
  testing::FlipBits(path, 5, 0x01);
  auto m = LogManager::Open(OneDir(bad.path()), &scheduler);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(m.status().IsCorruption());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("crc"));
}

TEST(ProducerIdManagerTest, AFailedBlockReservationHandsOutNothing) {
  TempDir tmp;
  FaultInjectionEnv env(Env::Default());
  MockScheduler scheduler(1794024676000);
  auto m = LogManager::Open(OneDir(tmp.path()), &scheduler, {}, &env);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // The metadata log's segment cannot be synced: the block is not durable, no id is handed out.
  env.Fail(EnvOp::kSync, "00000000000000000000.log", ENOSPC);
  auto id = (*m)->NextProducerId();
  ASSERT_FALSE(id.ok());
  env.ClearFailures();
}

TEST(ProducerIdManagerTest, ConcurrentCallersGetDistinctIds) {
  std::atomic<int64_t> next_block{0};
  ProducerIdManager m([&]() -> Result<int64_t> { return next_block.fetch_add(1000); });
  std::vector<std::vector<int64_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 700; ++i) got[t].push_back(*m.NextProducerId());
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : got) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 2800u);
  EXPECT_EQ(*all.rbegin(), 2799);
  // A reservation that fails hands out nothing, and the next call reserves again.
  bool fail = true;
  ProducerIdManager flaky([&]() -> Result<int64_t> {
    if (fail) return Status::IOError("no space");
    return int64_t{7000};
  });
  EXPECT_FALSE(flaky.NextProducerId().ok());
  fail = false;
  EXPECT_EQ(*flaky.NextProducerId(), 7000);
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
    EXPECT_TRUE(std::filesystem::exists(a.path() + "/__cluster_metadata-0"));
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
  // The block is in the metadata log: the next open continues after it.
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
