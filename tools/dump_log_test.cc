#include "tools/dump_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace seglog {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Kafka 4.4.0's DumpLogSegments --deep-iteration --print-data-log output for the golden
// segment (captured by interop/kafka/src/GoldenBatches.java) must equal ours line for line.
TEST(DumpLogTest, MatchesKafkaDumpLogSegmentsByteForByte) {
  const std::string dir = std::string(SEGLOG_SOURCE_DIR) + "/tests/data/golden/";
  const std::string expected = Slurp(dir + "segment/dump.txt");
  ASSERT_FALSE(expected.empty());
  std::ifstream in(dir + "segment/00000000000000000000.log", std::ios::binary);
  std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
  std::ostringstream out, err;
  DumpLogOptions o;
  o.print_data_log = true;
  Status s = DumpLogBytes("segment/00000000000000000000.log", bytes, o, out, err);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.str(), expected);
  EXPECT_EQ(err.str(), "");
}

TEST(DumpLogTest, ReportsTrailingPartialBatch) {
  const std::string dir = std::string(SEGLOG_SOURCE_DIR) + "/tests/data/golden/";
  std::ifstream in(dir + "segment/00000000000000000000.log", std::ios::binary);
  std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
  bytes.resize(bytes.size() - 5);
  std::ostringstream out, err;
  ASSERT_TRUE(DumpLogBytes("x/00000000000000000000.log", bytes, {}, out, err).ok());
  EXPECT_NE(out.str().find("invalid bytes at the end of 00000000000000000000.log"),
            std::string::npos);
}

TEST(DumpLogTest, MissingFileIsAnIOErrorNamingIt) {
  std::ostringstream out, err;
  Status s = DumpLogFile("/nonexistent/00000000000000000000.log", {}, out, err);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("/nonexistent/00000000000000000000.log"), std::string::npos);
}

}  // namespace
}  // namespace seglog
