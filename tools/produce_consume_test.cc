#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "io/file_names.h"
#include "tests/support/files.h"
#include "tools/consume.h"
#include "tools/produce.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1700000000000;

ProduceOptions Base(const std::string& dir, const std::string& topic) {
  ProduceOptions o;
  o.log_dir = dir;
  o.topic = topic;
  o.timestamp_start = kT0;
  o.timestamp_step = 1;
  o.clock = [] { return kT0 + 100000; };
  return o;
}

TEST(ProduceConsumeTest, GeneratedRecordsReproduceExampleOne) {
  testing::TempDir tmp;
  ProduceOptions o = Base(tmp.path(), "seg");
  o.num_records = 12000;
  o.batch_records = 10;
  o.value_size = 250;
  o.configs = {{"segment.bytes", "1048576"}};
  std::istringstream none;
  auto r = Produce(o, none);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->records, 12000);
  EXPECT_EQ(r->batches, 1200);
  const std::string dir = tmp.path() + "/seg-0";
  for (int64_t base : {0, 3830, 7660}) {
    EXPECT_EQ(testing::FileSize(LogFilePath(dir, base)), 1045973);
  }
  EXPECT_EQ(testing::FileSize(LogFilePath(dir, 11490)), 139281);
  EXPECT_EQ(testing::FileSize(OffsetIndexFilePath(dir, 11490)), 200);  // closed cleanly

  std::ostringstream out;
  GetOffsetsOptions g{tmp.path(), "seg", {}, "latest"};
  ASSERT_TRUE(GetOffsets(g, out).ok());
  EXPECT_EQ(out.str(), "seg:0:12000\n");
  out.str("");
  g.time = std::to_string(kT0 + 5000);
  ASSERT_TRUE(GetOffsets(g, out).ok());
  EXPECT_EQ(out.str(), "seg:0:5000\n");
  out.str("");
  g.time = "max-timestamp";
  ASSERT_TRUE(GetOffsets(g, out).ok());
  EXPECT_EQ(out.str(), "seg:0:11999\n");
  out.str("");
  g.time = std::to_string(kT0 + 99999);  // after every record: no offset, no line
  ASSERT_TRUE(GetOffsets(g, out).ok());
  EXPECT_EQ(out.str(), "");
  g.time = "yesterday";
  EXPECT_THAT(GetOffsets(g, out).ToString(), HasSubstr("Malformed time argument yesterday"));

  ConsumeOptions c{tmp.path(), "seg", 0, "11998", std::nullopt, "text"};
  out.str("");
  auto n = Consume(c, out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(out.str(), "Offset:11998\tk-011998\t" + std::string(250, 'v') +
                           "\nOffset:11999\tk-011999\t" + std::string(250, 'v') + "\n");
}

TEST(ProduceConsumeTest, KeyValueLinesTombstonesAndTheMurmur2Partitioner) {
  testing::TempDir tmp;
  ProduceOptions o = Base(tmp.path(), "users");
  o.partitions = 3;
  o.key_separator = ":";
  o.null_marker = "NULL";
  std::istringstream in("user1:a1\nuser2:b1\nuser3:c1\nuser2:NULL\n");
  auto r = Produce(o, in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->records, 4);
  // Kafka's producer puts user1 in partition 0 and user2, user3 in partition 2 (of 3).
  std::ostringstream out;
  ConsumeOptions c{tmp.path(), "users", 2, "earliest", std::nullopt, "json"};
  ASSERT_EQ(*Consume(c, out), 3);
  EXPECT_THAT(out.str(), HasSubstr("\"key\":\"user2\",\"offset\":0"));
  EXPECT_THAT(out.str(), HasSubstr("\"key\":\"user2\",\"offset\":2,\"partition\":2"));
  EXPECT_THAT(out.str(), HasSubstr("\"value\":null"));
  out.str("");
  c.partition = 0;
  c.format = "text";
  ASSERT_EQ(*Consume(c, out), 1);
  EXPECT_EQ(out.str(), "Offset:0\tuser1\ta1\n");
  out.str("");
  ConsumeOptions all{tmp.path(), "users", std::nullopt, "earliest", 2, "text"};
  EXPECT_EQ(*Consume(all, out), 2);  // --max-records across partitions
}

// A Kafka broker's directory has no seglog topic store: its topics are its partition
// directories, read as the node loads them.
TEST(ProduceConsumeTest, ReadsAKafkaBrokersDirectory) {
  const std::string kafka = testing::SourcePath("tests/data/kafka_written");
  std::ostringstream out;
  Status s = GetOffsets({kafka, "kw-none", {}, "latest"}, out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.str(), "kw-none:0:2590\n");
  ConsumeOptions c{kafka, "kw-none", std::nullopt, "earliest", 3, "text"};
  std::ostringstream records;
  auto n = Consume(c, records);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 3);
  EXPECT_THAT(records.str(), ::testing::StartsWith("Offset:0\t"));
}

TEST(ProduceConsumeTest, BadInputIsRefusedClearly) {
  testing::TempDir tmp;
  std::istringstream none;
  ProduceOptions o = Base(tmp.path(), "t");
  o.configs = {{"segment.bytes", "102400"}};
  o.num_records = 1;
  EXPECT_THAT(Produce(o, none).status().ToString(), HasSubstr("Value must be at least 1048576"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/t-0"));  // nothing created
  o.configs = {{"segmnet.bytes", "1"}};
  EXPECT_THAT(Produce(o, none).status().ToString(), HasSubstr("Unknown topic config name"));
  o.configs.clear();
  o.topic = "../escape";
  EXPECT_FALSE(Produce(o, none).ok());
  o.topic = "t";
  o.partition = 3;
  EXPECT_THAT(Produce(o, none).status().ToString(), HasSubstr("partition 3 does not exist"));
  ProduceOptions lines = Base(tmp.path(), "t2");
  lines.key_separator = ":";
  std::istringstream bad("k:v\nno separator here\n");
  EXPECT_THAT(Produce(lines, bad).status().ToString(),
              HasSubstr("No key separator found on line number 2"));
  std::ostringstream out;
  ConsumeOptions c{tmp.path(), "missing", std::nullopt, "earliest", std::nullopt, "text"};
  EXPECT_TRUE(Consume(c, out).status().IsNotFound());
  c.topic = "t2";
  c.offset = "999";
  EXPECT_TRUE(Consume(c, out).status().IsOutOfRange());
  EXPECT_FALSE(FormatKey("k-%s", 1).ok());
  EXPECT_EQ(*FormatKey("k-%06d-%%", 42), "k-000042-%");
}

}  // namespace
}  // namespace seglog
