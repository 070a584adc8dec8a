// Test support for the GroupCoordinator tests: a coordinator over a real LogManager in a
// temporary directory, on the manual clock, that a test can close and open again on the same
// files (what survives a restart).
//
// Thread safety: a test fixture; one test's thread.
#ifndef SEGLOG_GROUP_COORDINATOR_TEST_BASE_H_
#define SEGLOG_GROUP_COORDINATOR_TEST_BASE_H_

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "tests/support/files.h"

namespace seglog {

// The manual clock's start: 2026-11-08.
inline constexpr int64_t kCoordinatorTestT0 = 1794024676000;

class CoordinatorTestBase : public ::testing::Test {
 protected:
  void TearDown() override { Close(); }

  // Opens the node's logs and the coordinator with `props` over the defaults (log.dirs: the
  // test's directory; offsets.topic.num.partitions: 3).
  void Open(std::map<std::string, std::string> props = {}) {
    props["log.dirs"] = dir_.path();
    props.emplace("offsets.topic.num.partitions", "3");
    config_ = TestConfig();
    std::vector<std::string> errors;
    LogManagerConfig::Parse(
        props,
        [this](const std::string& k, const std::string& v) { return config_.group.Set(k, v); },
        &config_, &errors);
    config_.group.Validate(&errors);
    Status parsed = config_.Finish(errors);
    ASSERT_TRUE(parsed.ok()) << parsed.ToString();
    scheduler_ = std::make_unique<MockScheduler>(now_);
    auto m = LogManager::Open(config_, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    auto c = GroupCoordinator::Open(config_.group, logs_.get(), scheduler_.get(),
                                    [this](const std::string& l) { lines_.push_back(l); });
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    coordinator_ = std::move(c).value();
  }
  // Shuts the coordinator and the logs down cleanly; the clock keeps its time.
  void Close() {
    if (coordinator_) coordinator_->Shutdown();
    coordinator_.reset();
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
    if (scheduler_) now_ = scheduler_->NowMs();
  }
  // A restart with the default settings; the log lines start again.
  void Reopen() {
    Close();
    lines_.clear();
    Open();
  }

  testing::TempDir dir_;
  int64_t now_ = kCoordinatorTestT0;
  // The node's settings this test reads: storage's and the group coordinator's.
  struct TestConfig : LogManagerConfig {
    GroupCoordinatorConfig group;
  };
  TestConfig config_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<GroupCoordinator> coordinator_;
  std::vector<std::string> lines_;
};

}  // namespace seglog

#endif  // SEGLOG_GROUP_COORDINATOR_TEST_BASE_H_
