// Test support for the handler tests: a BrokerContext over a LogManager in two temporary log
// directories (node 1), on the manual clock, that a test can open again with other settings.
//
// Thread safety: a test fixture; one test's thread.
#ifndef SEGLOG_SERVER_HANDLERS_TEST_BASE_H_
#define SEGLOG_SERVER_HANDLERS_TEST_BASE_H_

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "server/broker_context.h"
#include "server/request_handler.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {

inline constexpr int64_t kHandlersTestT0 = 1794024676000;

class HandlersTest : public ::testing::Test {
 protected:
  void SetUp() override { Open({}); }
  void Open(std::map<std::string, std::string> props) {
    ctx_.logs = nullptr;
    logs_.reset();
    // (Built with fmt: g++ 12's -Wrestrict misfires on std::string concatenation inlined here.)
    props.insert_or_assign("log.dirs", fmt::format("{},{}", a_.path(), b_.path()));
    props.insert_or_assign("node.id", fmt::format("{}", 1));
    auto config = LogManagerConfig::FromProperties(props);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = std::make_unique<MockScheduler>(kHandlersTestT0);
    auto m = LogManager::Open(*config, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    ctx_.logs = logs_.get();
    ctx_.node_id = 1;
    // What the node gives the broker from its settings (src/node/broker_server.cc).
    ctx_.static_configs = props;
  }
  void TearDown() override {
    if (logs_) (void)logs_->Shutdown();
  }
  std::shared_ptr<Log> GetLog(const std::string& topic, int32_t partition) {
    auto log = logs_->GetLog(TopicPartition{topic, partition});
    EXPECT_TRUE(log.ok());
    return log.ok() ? log.value() : nullptr;
  }
  void Append(const std::string& topic, int32_t partition, int count, int32_t epoch = 0) {
    auto r = GetLog(topic, partition)
                 ->AppendAsLeader(testing::ProducerBatch(0, count, 10, kHandlersTestT0), epoch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  testing::TempDir a_, b_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  BrokerContext ctx_;
  // The request's client: User:ANONYMOUS on PLAINTEXT, as a client without authentication.
  RequestContext rc_;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_HANDLERS_TEST_BASE_H_
