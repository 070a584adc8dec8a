#include "tools/progress_reporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace seglog {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Fixture {
  int64_t now = 1000;
  std::ostringstream out;
  ProgressReporter::Options Options(bool enabled = true) {
    ProgressReporter::Options o;
    o.label = "check";
    o.enabled = enabled;
    o.out = &out;
    o.interval_ms = 200;
    o.now_ms = [this] { return now; };
    return o;
  }
};

std::vector<std::string> Draws(const std::string& text) {
  std::vector<std::string> draws;
  std::string cur;
  for (char c : text) {
    if (c == '\r') {
      if (!cur.empty()) draws.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) draws.push_back(cur);
  return draws;
}

TEST(ProgressReporterTest, RateAndTimeLeftFromTheBytesSoFar) {
  Fixture f;
  ProgressReporter r(f.Options());
  r.Add({.add_bytes_total = 40 << 20, .add_segments_total = 4});
  f.now += 2000;
  r.Add({.bytes = 10 << 20, .segments = 1});
  // 10 MiB in 2 s: 5 MiB/s; 30 MiB left: 6 s.
  EXPECT_EQ(r.Line(), "check: 1/4 segments, 10.0 MiB/40.0 MiB (25%), 5.0 MiB/s, 6s left");
  f.now += 6000;
  r.Add({.bytes = 30 << 20, .segments = 3});
  r.Finish();
  const auto draws = Draws(f.out.str());
  ASSERT_EQ(draws.size(), 3u) << f.out.str();
  EXPECT_EQ(draws[0], "check: 1/4 segments, 10.0 MiB/40.0 MiB (25%), 5.0 MiB/s, 6s left");
  EXPECT_EQ(draws[2], "check: 4/4 segments, 40.0 MiB/40.0 MiB (100%), 5.0 MiB/s, done in 8s\n");
}

TEST(ProgressReporterTest, RedrawsAtMostOncePerInterval) {
  Fixture f;
  ProgressReporter r(f.Options());
  r.Add({.add_segments_total = 1000});
  // Nothing in the first interval.
  for (int i = 0; i < 10; ++i) {
    f.now += 10;
    r.Add({.bytes = 100, .segments = 1});
  }
  EXPECT_EQ(f.out.str(), "");
  // 1000 updates over 2 s: about 10 draws, not 1000.
  for (int i = 0; i < 1000; ++i) {
    f.now += 2;
    r.Add({.bytes = 100, .segments = 1});
  }
  const auto draws = Draws(f.out.str());
  EXPECT_GE(draws.size(), 9u);
  EXPECT_LE(draws.size(), 11u);
  EXPECT_EQ(f.out.str().find('\n'), std::string::npos);  // one line, redrawn in place
}

TEST(ProgressReporterTest, AShorterLineErasesTheLongerOne) {
  Fixture f;
  ProgressReporter r(f.Options());
  r.Add({.add_bytes_total = 100 << 20, .add_segments_total = 2});
  f.now += 300;
  r.Add({.bytes = 1 << 20, .segments = 0});
  f.now += 300;
  r.Add({.bytes = (99 << 20), .segments = 2});  // no "left" any more
  const auto draws = Draws(f.out.str());
  ASSERT_EQ(draws.size(), 2u);
  EXPECT_GE(draws[1].size(), draws[0].size());
  EXPECT_THAT(draws[1], Not(HasSubstr("left")));
}

TEST(ProgressReporterTest, QuietWhenDisabled) {
  Fixture f;
  ProgressReporter r(f.Options(/*enabled=*/false));
  r.Add({.add_bytes_total = 100, .add_segments_total = 1});
  f.now += 5000;
  r.Add({.bytes = 100, .segments = 1});
  r.Finish();
  EXPECT_EQ(f.out.str(), "");
}

TEST(ProgressReporterTest, NothingDoneDrawsNothing) {
  Fixture f;
  {
    ProgressReporter r(f.Options());
    f.now += 5000;
  }  // the destructor finishes
  EXPECT_EQ(f.out.str(), "");
}

TEST(ProgressReporterTest, AQuickRunDrawsOnlyItsLastLineOnce) {
  Fixture f;
  ProgressReporter r(f.Options());
  r.Add({.bytes = 2048, .segments = 2});
  r.Finish();
  r.Finish();
  r.Add({.bytes = 1, .segments = 1});  // after Finish: ignored
  EXPECT_EQ(f.out.str(), "\rcheck: 2 segments, 2.0 KiB, done in 0s\n");
}

TEST(ProgressReporterTest, DoneFinishesTheLineBeforeTheResults) {
  Fixture f;
  ProgressReporter r(f.Options());
  r.Add({.add_bytes_total = 1000, .add_segments_total = 2});
  f.now += 500;
  r.Add({.bytes = 500, .segments = 1});
  r.Add({.done = true});
  const std::string drawn = f.out.str();
  ASSERT_FALSE(drawn.empty());
  EXPECT_EQ(drawn.back(), '\n');
  r.Finish();
  EXPECT_EQ(f.out.str(), drawn);
}

TEST(ProgressReporterTest, UnitsAndDurations) {
  EXPECT_EQ(ProgressReporter::Bytes(0), "0 B");
  EXPECT_EQ(ProgressReporter::Bytes(1023), "1023 B");
  EXPECT_EQ(ProgressReporter::Bytes(1536), "1.5 KiB");
  EXPECT_EQ(ProgressReporter::Bytes(3.0 * (1LL << 40)), "3.0 TiB");
  EXPECT_EQ(ProgressReporter::Duration(-3), "0s");
  EXPECT_EQ(ProgressReporter::Duration(59), "59s");
  EXPECT_EQ(ProgressReporter::Duration(185), "3m05s");
  EXPECT_EQ(ProgressReporter::Duration(3720), "1h02m");
}

TEST(ProgressReporterTest, ThreadsReportAtOnce) {
  std::ostringstream out;
  ProgressReporter::Options o;
  o.label = "recover";
  o.enabled = true;
  o.out = &out;
  ProgressReporter r(o);
  ProgressCallback cb = r.Callback();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cb] {
      for (int i = 0; i < 1000; ++i) cb({.bytes = 1, .segments = 1});
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_THAT(r.Line(), HasSubstr("recover: 4000 segments, 3.9 KiB"));
}

TEST(ProgressReporterTest, AutoIsQuietWhenStderrIsNotATerminal) {
  // stderr made a pipe for the test, whatever it was (a terminal when run by hand).
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const int saved = dup(2);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(dup2(fds[1], 2), 2);
  const bool automatic = ProgressWanted(ProgressMode::kAuto);
  const bool on = ProgressWanted(ProgressMode::kOn);
  const bool off = ProgressWanted(ProgressMode::kOff);
  dup2(saved, 2);
  close(saved);
  close(fds[0]);
  close(fds[1]);
  EXPECT_FALSE(automatic);
  EXPECT_TRUE(on);
  EXPECT_FALSE(off);
}

}  // namespace
}  // namespace seglog
