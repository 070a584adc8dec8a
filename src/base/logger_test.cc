#include "seglog/logger.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace seglog {
namespace {

struct Captured {
  std::vector<std::pair<LogLevel, std::string>> lines;
  Logger logger() {
    return Logger([this](LogLevel level, std::string_view line) {
      lines.emplace_back(level, std::string(line));
    });
  }
};

TEST(LoggerTest, LevelsTravelBesideTheText) {
  Captured c;
  Logger l = c.logger();
  EXPECT_TRUE(l.enabled());
  l.Debug("d");
  l.Info("Rolled new log segment at offset 3 in 1 ms.");
  l.Warn("w");
  l.Error("e");
  l.Log(LogLevel::kWarn, "w2");
  ASSERT_EQ(c.lines.size(), 5u);
  EXPECT_EQ(c.lines[0], std::make_pair(LogLevel::kDebug, std::string("d")));
  EXPECT_EQ(c.lines[1], std::make_pair(LogLevel::kInfo,
                                       std::string("Rolled new log segment at offset 3 in 1 ms.")));
  EXPECT_EQ(c.lines[2], std::make_pair(LogLevel::kWarn, std::string("w")));
  EXPECT_EQ(c.lines[3], std::make_pair(LogLevel::kError, std::string("e")));
  EXPECT_EQ(c.lines[4], std::make_pair(LogLevel::kWarn, std::string("w2")));
}

TEST(LoggerTest, LevelNamesAreKafkas) {
  EXPECT_EQ(LogLevelName(LogLevel::kDebug), "DEBUG");
  EXPECT_EQ(LogLevelName(LogLevel::kInfo), "INFO");
  EXPECT_EQ(LogLevelName(LogLevel::kWarn), "WARN");
  EXPECT_EQ(LogLevelName(LogLevel::kError), "ERROR");
}

TEST(LoggerTest, PrefixGoesAfterTheLevelAndStacks) {
  Captured c;
  const Logger base = c.logger();
  const Logger group = base.WithPrefix("[GroupCoordinator] ");
  group.Warn("Failed to write 1 records");
  group.WithPrefix("[Group g] ").Info("joined");
  base.Info("plain");  // the original keeps no prefix
  EXPECT_EQ(group.prefix(), "[GroupCoordinator] ");
  EXPECT_EQ(base.prefix(), "");
  ASSERT_EQ(c.lines.size(), 3u);
  EXPECT_EQ(c.lines[0].first, LogLevel::kWarn);
  EXPECT_EQ(c.lines[0].second, "[GroupCoordinator] Failed to write 1 records");
  EXPECT_EQ(c.lines[1].second, "[GroupCoordinator] [Group g] joined");
  EXPECT_EQ(c.lines[2].second, "plain");
}

TEST(LoggerTest, DefaultAndEmptyDiscard) {
  Logger none;
  EXPECT_FALSE(none.enabled());
  EXPECT_FALSE(static_cast<bool>(none));
  none.Warn("nowhere");  // no crash, nothing to see
  EXPECT_FALSE(none.WithPrefix("[X] ").enabled());
  EXPECT_EQ(none.prefix(), "");
  const std::function<void(const std::string&)> empty_lines;
  EXPECT_FALSE(Logger(empty_lines).enabled());
  const Logger::Sink empty_sink;
  EXPECT_FALSE(Logger(empty_sink).enabled());
}

TEST(LoggerTest, LineSinksGetTheLevelInFrontOfAllButInfo) {
  std::vector<std::string> lines;
  Logger l = [&lines](const std::string& line) { lines.push_back(line); };
  l.Info("Deleted log 0.log.");
  l.Warn("Failed to write producer snapshot");
  l.Error("Exception while deleting");
  l.Debug("idle close");
  l.WithPrefix("[SocketServer listenerType=BROKER, nodeId=1] ").Warn("Unexpected error");
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "Deleted log 0.log.", "WARN Failed to write producer snapshot",
                       "ERROR Exception while deleting", "DEBUG idle close",
                       "WARN [SocketServer listenerType=BROKER, nodeId=1] Unexpected error"}));
  EXPECT_EQ(Logger::LegacyLine(LogLevel::kInfo, "x"), "x");
  EXPECT_EQ(Logger::LegacyLine(LogLevel::kError, "x"), "ERROR x");
}

TEST(LoggerTest, CopiesShareTheSink) {
  int n = 0;
  Logger a = [&n](LogLevel, std::string_view) { ++n; };
  Logger b = a;
  a.Info("1");
  b.Info("2");
  EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace seglog
