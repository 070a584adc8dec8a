#include "tools/kafka_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>

#include <chrono>
#include <ctime>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "node/broker_config.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// 2026-12-04 19:16:19.351 on this machine's clock (the layout prints local time, as log4j).
spdlog::log_clock::time_point LocalTime() {
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 11;
  tm.tm_mday = 4;
  tm.tm_hour = 19;
  tm.tm_min = 16;
  tm.tm_sec = 19;
  tm.tm_isdst = -1;
  return spdlog::log_clock::from_time_t(std::mktime(&tm)) + std::chrono::milliseconds(351);
}

std::string Format(spdlog::level::level_enum level, std::string_view text) {
  auto f = KafkaLayoutFormatter();
  spdlog::details::log_msg msg(LocalTime(), spdlog::source_loc{}, "seglog", level,
                               spdlog::string_view_t(text.data(), text.size()));
  spdlog::memory_buf_t buf;
  f->format(msg, buf);
  return std::string(buf.data(), buf.size());
}

// The exact shape of Kafka's server.log lines, with log4j's level names.
TEST(KafkaLayoutTest, FormatsKafkasLineShape) {
  EXPECT_EQ(Format(spdlog::level::info, "[GroupCoordinator] Finished loading"),
            "[2026-12-04 19:16:19,351] INFO [GroupCoordinator] Finished loading\n");
  EXPECT_EQ(Format(spdlog::level::warn, "w"), "[2026-12-04 19:16:19,351] WARN w\n");
  EXPECT_EQ(Format(spdlog::level::err, "e"), "[2026-12-04 19:16:19,351] ERROR e\n");
  EXPECT_EQ(Format(spdlog::level::debug, "d"), "[2026-12-04 19:16:19,351] DEBUG d\n");
}

TEST(KafkaLayoutTest, LoggerWritesEachLevelWithItsName) {
  std::ostringstream out;
  const Logger logger = KafkaLayoutLogger(out);
  logger.Info("Rolled new log segment at offset 3 in 1 ms.");
  logger.Warn("Failed to write producer snapshot");
  logger.Error("Exception while deleting x");
  logger.Debug("idle close");
  logger.WithPrefix("[SocketServer listenerType=BROKER, nodeId=1] ").Warn("Unexpected error");
  const std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 5u);
  const std::string ts = R"(\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}\] )";
  const std::vector<std::string> expected = {
      "INFO Rolled new log segment at offset 3 in 1 ms\\.",
      "WARN Failed to write producer snapshot",
      "ERROR Exception while deleting x",
      "DEBUG idle close",
      "WARN \\[SocketServer listenerType=BROKER, nodeId=1\\] Unexpected error",
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_TRUE(std::regex_match(lines[i], std::regex(ts + expected[i]))) << lines[i];
  }
}

// The group coordinator's warnings print as WARN, its prefix after the level (they printed as
// "INFO [GroupCoordinator] WARN ..." when the level was a word in the text).
TEST(KafkaLayoutTest, GroupCoordinatorWarningsPrintAsWarn) {
  testing::TempDir dir;
  auto config = BrokerConfig::FromProperties(
      {{"log.dirs", dir.path()}, {"offsets.topic.num.partitions", "1"}});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  MockScheduler scheduler(1794024676000);
  auto logs = LogManager::Open(*config, &scheduler);
  ASSERT_TRUE(logs.ok()) << logs.status().ToString();
  ASSERT_TRUE((*logs)->CreateTopic(kConsumerOffsetsTopic, 1, {{"cleanup.policy", "compact"}}).ok());
  auto log = (*logs)->GetLog({kConsumerOffsetsTopic, 0});
  ASSERT_TRUE(log.ok());
  // A record of a type no Kafka writes: skipped at load with a WARN line.
  const std::vector<uint8_t> unknown = {0x00, 0x63, 0x00};  // type 99
  RecordBatchBuilder b(BatchOptions{});
  ASSERT_TRUE(b.Append(1794024676000, Bytes(unknown), Bytes(unknown)).ok());
  ASSERT_TRUE((*log)->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator).ok());

  std::ostringstream out;
  auto groups =
      GroupCoordinator::Open(config->group, logs->get(), &scheduler, KafkaLayoutLogger(out));
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  (*groups)->Shutdown();
  ASSERT_TRUE((*logs)->Shutdown().ok());

  bool warned = false;
  for (const std::string& l : Lines(out.str())) {
    EXPECT_EQ(l.find("] WARN ", l.find("[GroupCoordinator]")), std::string::npos) << l;
    warned |= std::regex_match(l, std::regex(R"(\[[-0-9 :,]{23}\] WARN \[GroupCoordinator\] )"
                                             R"(Unknown record type 99 while loading .*)"));
  }
  EXPECT_TRUE(warned) << out.str();
}

}  // namespace
}  // namespace seglog
