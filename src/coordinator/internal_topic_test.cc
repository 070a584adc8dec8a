// Tests for InternalTopic: created on first need with its configs, once however many threads
// ask, its partitions handed over; an existing topic keeps its partition count.
#include "coordinator/internal_topic.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/java_string.h"
#include "base/scheduler.h"
#include "manager/log_manager_config.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

class InternalTopicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
    ASSERT_TRUE(config.ok());
    auto m = LogManager::Open(*config, &scheduler_, {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
  }
  void TearDown() override {
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
  }
  InternalTopic::Options Options(int32_t partitions) {
    return {"__state", partitions, {{"cleanup.policy", "compact"}, {"segment.bytes", "1048576"}}};
  }

  testing::TempDir dir_;
  MockScheduler scheduler_{1794024676000};
  std::unique_ptr<LogManager> logs_;
};

TEST_F(InternalTopicTest, CreatedOnceWithItsConfigsWhenFirstNeeded) {
  std::vector<std::string> lines;
  std::mutex lines_mu;
  InternalTopic topic(logs_.get(), Options(5), [&](const std::string& l) {
    std::lock_guard<std::mutex> g(lines_mu);
    lines.push_back(l);
  });
  EXPECT_FALSE(topic.ready());
  EXPECT_EQ(topic.partitions(), 5);
  EXPECT_FALSE(logs_->FindTopic("__state").ok());  // not before it is needed
  EXPECT_EQ(topic.PartitionFor("group-a"), CoordinatorPartitionFor("group-a", 5));

  std::mutex attached_mu;
  std::map<int32_t, int> attached;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      Status s = topic.Ensure([&](int32_t p, std::shared_ptr<Log> log) {
        std::lock_guard<std::mutex> g(attached_mu);
        if (log != nullptr) ++attached[p];
      });
      if (!s.ok()) ++failures;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(topic.ready());
  ASSERT_EQ(attached.size(), 5u);
  for (const auto& [p, n] : attached) EXPECT_EQ(n, 1) << p;  // handed over once
  EXPECT_EQ(lines,
            std::vector<std::string>{"Created the internal topic __state with 5 partitions"});
  auto md = logs_->FindTopic("__state");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md->partitions, 5);
  EXPECT_EQ(md->configs.at("cleanup.policy"), "compact");
  EXPECT_EQ(md->configs.at("segment.bytes"), "1048576");
}

TEST_F(InternalTopicTest, AnExistingTopicKeepsItsPartitionCount) {
  ASSERT_TRUE(logs_->CreateTopic("__state", 3, {{"cleanup.policy", "compact"}}).ok());
  InternalTopic topic(logs_.get(), Options(50), nullptr);
  EXPECT_TRUE(topic.ready());
  EXPECT_EQ(topic.partitions(), 3);
  EXPECT_EQ(topic.PartitionFor("x"), CoordinatorPartitionFor("x", 3));
  int calls = 0;
  EXPECT_TRUE(topic.Ensure([&](int32_t, std::shared_ptr<Log>) { ++calls; }).ok());
  EXPECT_EQ(calls, 0);  // ready already: nothing to do
}

TEST_F(InternalTopicTest, ACreationThatFailsIsReportedAndTriedAgain) {
  InternalTopic topic(logs_.get(), {"__state", 2, {{"segment.bytes", "not a number"}}}, nullptr);
  Status s = topic.Ensure([](int32_t, std::shared_ptr<Log>) {});
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(topic.ready());
  EXPECT_FALSE(logs_->FindTopic("__state").ok());
}

}  // namespace
}  // namespace seglog
