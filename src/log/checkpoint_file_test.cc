#include "log/checkpoint_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/atomic_file.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(CheckpointFileTest, WritesKafkasExactText) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/recovery-point-offset-checkpoint";
  OffsetMap m;
  m[{"orders", 1}] = 877;
  m[{"orders", 0}] = 1523;
  ASSERT_TRUE(WriteOffsetCheckpoint(path, m).ok());
  EXPECT_EQ(*ReadFileToString(path), "0\n2\norders 0 1523\norders 1 877\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto back = ReadOffsetCheckpoint(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, m);
}

TEST(CheckpointFileTest, ReadsWhatKafkaWrote) {
  // A leader-epoch-checkpoint from a real Kafka 4.4.0 broker (tests/data/kafka_written).
  auto e = ReadLeaderEpochCheckpoint(
      testing::SourcePath("tests/data/kafka_written/kw-none-0/leader-epoch-checkpoint"));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(*e, (std::vector<EpochEntry>{{0, 0}}));
}

TEST(CheckpointFileTest, EmptyAndVersionOnlyFilesHaveNoEntries) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/c";
  std::ofstream(path).close();
  EXPECT_TRUE(ReadOffsetCheckpoint(path)->empty());
  std::ofstream(path) << "0\n";
  EXPECT_TRUE(ReadOffsetCheckpoint(path)->empty());
  EXPECT_TRUE(ReadOffsetCheckpoint(tmp.path() + "/missing").status().IsNotFound());
}

TEST(CheckpointFileTest, BadFilesNameTheFileLineAndWhatWasExpected) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/c";
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {Case{"1\n0\n", "line 1: unrecognised checkpoint version: expected 0"},
                        Case{"0\nx\n", "line 2: expected the entry count"},
                        Case{"0\n2\nt 0 5\n", "says 2 entries, found 1"},  // truncated
                        Case{"0\n1\nt 0 5\nt 1 6\n", "says 1 entries, found 2"},
                        Case{"0\n1\nt zero 5\n", "line 3: malformed entry 't zero 5'"},
                        Case{"0\n1\nt 0\n", "expected 'topic partition offset'"}}) {
    std::ofstream(path) << c.text;
    Status s = ReadOffsetCheckpoint(path).status();
    EXPECT_TRUE(s.IsCorruption()) << c.text;
    EXPECT_THAT(s.ToString(), HasSubstr(path)) << c.text;
    EXPECT_THAT(s.ToString(), HasSubstr(c.message)) << c.text;
  }
  std::ofstream(path) << "0\n1\n5\n";
  EXPECT_THAT(ReadLeaderEpochCheckpoint(path).status().ToString(),
              HasSubstr("expected 'epoch startOffset'"));
}

TEST(CheckpointFileTest, WhitespaceRunsSeparateFields) {
  testing::TempDir tmp;
  const std::string path = tmp.path() + "/c";
  std::ofstream(path) << "0\n1\n7   120\n";
  EXPECT_EQ(*ReadLeaderEpochCheckpoint(path), (std::vector<EpochEntry>{{7, 120}}));
}

}  // namespace
}  // namespace seglog
