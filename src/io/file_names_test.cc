#include "io/file_names.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

TEST(FileNamesTest, TwentyDigitPrefixes) {
  EXPECT_EQ(FilenamePrefixFromOffset(0), "00000000000000000000");
  EXPECT_EQ(FilenamePrefixFromOffset(3830), "00000000000000003830");
  EXPECT_EQ(FilenamePrefixFromOffset(INT64_MAX), "09223372036854775807");
  EXPECT_EQ(LogFilePath("/d/t-0", 3830), "/d/t-0/00000000000000003830.log");
  EXPECT_EQ(OffsetIndexFilePath("/d", 1), "/d/00000000000000000001.index");
  EXPECT_EQ(TimeIndexFilePath("/d", 1, ".deleted"), "/d/00000000000000000001.timeindex.deleted");
  EXPECT_EQ(TxnIndexFilePath("/d", 1, ".swap"), "/d/00000000000000000001.txnindex.swap");
  EXPECT_EQ(SnapshotFilePath("/d", 7), "/d/00000000000000000007.snapshot");
}

TEST(FileNamesTest, OffsetFromFileName) {
  EXPECT_EQ(*OffsetFromFileName("00000000000000003830.log"), 3830);
  EXPECT_EQ(*OffsetFromFileName("00000000000000003830.log.deleted"), 3830);
  EXPECT_EQ(*OffsetFromFileName("12"), 12);
  EXPECT_FALSE(OffsetFromFileName("leader-epoch-checkpoint").ok());
  EXPECT_FALSE(OffsetFromFileName(".log").ok());
  EXPECT_FALSE(OffsetFromFileName("-1.log").ok());
  EXPECT_FALSE(OffsetFromFileName("99999999999999999999.log").ok());  // > INT64_MAX
}

TEST(FileNamesTest, PartitionDirectories) {
  EXPECT_EQ(PartitionDirName({"orders", 3}), "orders-3");
  auto tp = ParsePartitionDirName("my-topic-12");
  ASSERT_TRUE(tp.ok());
  EXPECT_EQ(tp->topic, "my-topic");
  EXPECT_EQ(tp->partition, 12);
  auto del = ParsePartitionDirName("orders-0.0123456789abcdef0123456789abcdef-delete");
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->topic, "orders");
  EXPECT_EQ(del->partition, 0);
  EXPECT_TRUE(ParsePartitionDirName("orders-0.abc-future").ok());
  EXPECT_FALSE(ParsePartitionDirName("orders-0.-delete").ok());  // no uuid part
  for (const char* bad : {"", "orders", "-0", "orders-", "orders-x", "orders-1x", "orders-+1"}) {
    EXPECT_FALSE(ParsePartitionDirName(bad).ok()) << bad;
  }
}

TEST(FileNamesTest, TopicNamesAsKafkaValidatesThem) {
  EXPECT_TRUE(ValidateTopicName("orders.v1_x-y").ok());
  EXPECT_FALSE(ValidateTopicName("").ok());
  EXPECT_FALSE(ValidateTopicName(".").ok());
  EXPECT_FALSE(ValidateTopicName("..").ok());
  EXPECT_FALSE(ValidateTopicName("../etc").ok());
  EXPECT_FALSE(ValidateTopicName("a/b").ok());
  EXPECT_FALSE(ValidateTopicName(std::string(250, 'a')).ok());
  EXPECT_TRUE(ValidateTopicName(std::string(249, 'a')).ok());
}

}  // namespace
}  // namespace seglog
