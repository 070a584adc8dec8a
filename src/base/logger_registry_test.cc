#include "base/logger_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
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

TEST(LoggerRegistryTest, NamedLoggersStartAtRootsInfo) {
  LoggerRegistry r;
  Captured c;
  const Logger l = c.logger().Named("kafka.log.LogCleaner", &r);
  EXPECT_EQ(l.name(), "kafka.log.LogCleaner");
  l.Trace("t");
  l.Debug("d");
  l.Info("i");
  l.Error("e");
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.lines[0].second, "i");
  EXPECT_EQ(c.lines[1].second, "e");
  EXPECT_FALSE(l.IsEnabled(LogLevel::kDebug));
  EXPECT_TRUE(l.IsEnabled(LogLevel::kWarn));
  // An unnamed logger has no threshold.
  Captured all;
  all.logger().Debug("d");
  EXPECT_EQ(all.lines.size(), 1u);
}

TEST(LoggerRegistryTest, SetChangesLiveLoggersAndUnsetInherits) {
  LoggerRegistry r;
  Captured c;
  const Logger cleaner = c.logger().Named("kafka.log.LogCleaner", &r);
  const Logger manager = c.logger().WithPrefix("[LogManager] ").Named("kafka.log.LogManager", &r);
  r.Register("kafka.log");
  ASSERT_TRUE(r.SetLevel("kafka.log.LogCleaner", LogLevel::kDebug).ok());
  cleaner.Debug("cleaner debug");
  manager.Debug("manager debug");
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0].second, "cleaner debug");
  // A dotted ancestor's level reaches the children without their own.
  ASSERT_TRUE(r.SetLevel("kafka.log", LogLevel::kTrace).ok());
  manager.Trace("manager trace");
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.lines[1].second, "[LogManager] manager trace");
  cleaner.Trace("not at DEBUG");  // its own level wins
  EXPECT_EQ(c.lines.size(), 2u);
  ASSERT_TRUE(r.Unset("kafka.log.LogCleaner").ok());
  cleaner.Trace("inherits TRACE now");
  EXPECT_EQ(c.lines.size(), 3u);
  ASSERT_TRUE(r.Unset("kafka.log").ok());
  cleaner.Debug("back at root's INFO");
  manager.Debug("back at root's INFO");
  EXPECT_EQ(c.lines.size(), 3u);
  // root's level moves every logger without its own.
  ASSERT_TRUE(r.SetLevel("root", LogLevel::kError).ok());
  cleaner.Warn("w");
  EXPECT_EQ(c.lines.size(), 3u);
  cleaner.Error("e");
  EXPECT_EQ(c.lines.size(), 4u);
  ASSERT_TRUE(r.SetLevel("root", LogLevel::kOff).ok());
  cleaner.Log(LogLevel::kFatal, "off drops even FATAL");
  cleaner.Log(LogLevel::kOff, "and OFF itself");
  EXPECT_EQ(c.lines.size(), 4u);
}

TEST(LoggerRegistryTest, UnknownNamesAndRootAreRefused) {
  LoggerRegistry r;
  Status s = r.SetLevel("kafka.nope", LogLevel::kDebug);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(), "Logger kafka.nope does not exist!");
  EXPECT_FALSE(r.Exists("kafka.nope"));
  EXPECT_EQ(r.Unset("kafka.nope").code(), Status::Code::kNotFound);
  s = r.Unset("root");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "Removing the log level of the root logger is not allowed");
  EXPECT_EQ(r.EffectiveLevel("root"), LogLevel::kInfo);
  EXPECT_EQ(r.EffectiveLevel("kafka.nope"), std::nullopt);
}

TEST(LoggerRegistryTest, LoggersListsRootFirstWithEffectiveLevels) {
  LoggerRegistry r;
  r.Register("kafka.server.KafkaApis");
  r.Register("kafka.log.LogCleaner");
  ASSERT_TRUE(r.SetLevel("kafka.log.LogCleaner", LogLevel::kWarn).ok());
  const auto all = r.Loggers();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "root");
  EXPECT_EQ(all[0].effective, LogLevel::kInfo);
  EXPECT_TRUE(all[0].own);
  EXPECT_EQ(all[1].name, "kafka.log.LogCleaner");
  EXPECT_EQ(all[1].effective, LogLevel::kWarn);
  EXPECT_TRUE(all[1].own);
  EXPECT_EQ(all[2].name, "kafka.server.KafkaApis");
  EXPECT_EQ(all[2].effective, LogLevel::kInfo);
  EXPECT_FALSE(all[2].own);
}

TEST(LoggerRegistryTest, ConfigureReadsLog4jKeys) {
  LoggerRegistry r;
  ASSERT_TRUE(r.Configure({{"log4j.rootLogger", "warn, stdout"},
                           {"log4j.logger.kafka.log.LogCleaner", " Debug "},
                           {"log.dirs", "/tmp/x"}})
                  .ok());
  EXPECT_EQ(r.EffectiveLevel("root"), LogLevel::kWarn);
  EXPECT_EQ(r.EffectiveLevel("kafka.log.LogCleaner"), LogLevel::kDebug);
  EXPECT_FALSE(r.Exists("log.dirs"));
  EXPECT_TRUE(LoggerRegistry::IsLevelKey("log4j.logger.kafka"));
  EXPECT_FALSE(LoggerRegistry::IsLevelKey("log4j.logger."));
  EXPECT_FALSE(LoggerRegistry::IsLevelKey("log.level"));
}

TEST(LoggerRegistryTest, ConfigureRefusesABadLevelAndChangesNothing) {
  LoggerRegistry r;
  Status s = r.Configure({{"log4j.logger.a", "DEBUG"}, {"log4j.rootLogger", "LOUD"}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("log4j.rootLogger"), std::string::npos) << s.message();
  EXPECT_FALSE(r.Exists("a"));
  EXPECT_FALSE(r.Configure({{"log4j.rootLogger", ""}}).ok());
  EXPECT_EQ(r.EffectiveLevel("root"), LogLevel::kInfo);
}

TEST(LoggerRegistryTest, ParseLogLevelIsExactAsKafkas) {
  EXPECT_EQ(ParseLogLevel("TRACE"), LogLevel::kTrace);
  EXPECT_EQ(ParseLogLevel("FATAL"), LogLevel::kFatal);
  EXPECT_EQ(ParseLogLevel("OFF"), LogLevel::kOff);
  EXPECT_EQ(ParseLogLevel("debug"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("ALL"), std::nullopt);
  EXPECT_EQ(ParseLogLevel(""), std::nullopt);
}

TEST(LoggerRegistryTest, LevelChangesRaceWithLoggingSafely) {
  LoggerRegistry r;
  std::atomic<int> seen{0};
  const Logger l = Logger([&seen](LogLevel, std::string_view) { seen++; }).Named("a.b", &r);
  std::thread writer([&r] {
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(r.SetLevel("a.b", i % 2 ? LogLevel::kDebug : LogLevel::kError).ok());
    }
  });
  for (int i = 0; i < 2000; ++i) l.Debug("x");
  writer.join();
  EXPECT_LE(seen.load(), 2000);
  ASSERT_TRUE(r.SetLevel("a.b", LogLevel::kDebug).ok());
  l.Debug("x");
  EXPECT_GE(seen.load(), 1);
}

}  // namespace
}  // namespace seglog
