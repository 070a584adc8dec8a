#include "tools/recover.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "io/file.h"
#include "io/file_names.h"
#include "log/checkpoint_file.h"
#include "tests/support/files.h"
#include "tools/produce.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1700000000000;

Result<ProduceResult> ProduceSome(const std::string& dir, int64_t records) {
  ProduceOptions o;
  o.log_dir = dir;
  o.topic = "orders";
  o.partitions = 2;
  o.num_records = records;
  o.batch_records = 5;
  o.timestamp_start = kT0;
  o.timestamp_step = 1;
  o.clock = [] { return kT0 + 100000; };
  o.configs = {{"segment.bytes", "1048576"}};
  std::istringstream none;
  return Produce(o, none);
}

TEST(RecoverTest, RecoversAnUncleanDirectoryAndShutsItDownCleanly) {
  testing::TempDir tmp;
  ASSERT_TRUE(ProduceSome(tmp.path(), 400).ok());
  // produce shut down cleanly and wrote what Kafka keeps per partition and per directory.
  for (const char* f : {".kafka_cleanshutdown", "meta.properties",
                        "recovery-point-offset-checkpoint", "log-start-offset-checkpoint"}) {
    EXPECT_TRUE(FileExists(tmp.path() + "/" + f)) << f;
  }
  auto topic_id = ReadPartitionMetadata(tmp.path() + "/orders-0/partition.metadata");
  ASSERT_TRUE(topic_id.ok()) << topic_id.status().ToString();
  EXPECT_EQ(*ReadPartitionMetadata(tmp.path() + "/orders-1/partition.metadata"), *topic_id);
  auto epochs = ReadLeaderEpochCheckpoint(tmp.path() + "/orders-0/leader-epoch-checkpoint");
  ASSERT_TRUE(epochs.ok());
  EXPECT_EQ(*epochs, (std::vector<EpochEntry>{{0, 0}}));

  // A crash: no marker, a recovery point of 0, a torn tail on partition 1.
  std::filesystem::remove(tmp.path() + "/.kafka_cleanshutdown");
  std::filesystem::remove(tmp.path() + "/recovery-point-offset-checkpoint");
  const std::string log1 = LogFilePath(tmp.path() + "/orders-1", 0);
  const auto size1 = std::filesystem::file_size(log1);
  std::filesystem::resize_file(log1, size1 - 7);

  std::ostringstream out;
  // Progress: both partitions' .log bytes up front, then each partition's from its thread.
  RecoverOptions ro{tmp.path(), 2};
  std::mutex mu;
  ProgressStep seen;
  int64_t steps = 0;
  ro.progress = [&](const ProgressStep& s) {
    std::lock_guard<std::mutex> lock(mu);
    ++steps;
    seen.bytes += s.bytes;
    seen.segments += s.segments;
    seen.add_bytes_total += s.add_bytes_total;
    seen.add_segments_total += s.add_segments_total;
  };
  const int64_t log_bytes = static_cast<int64_t>(
      size1 - 7 + std::filesystem::file_size(LogFilePath(tmp.path() + "/orders-0", 0)));
  auto r = RecoverLogDir(ro, out);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(steps, 3);
  EXPECT_EQ(seen.add_segments_total, 2);
  EXPECT_EQ(seen.segments, 2);
  EXPECT_EQ(seen.add_bytes_total, log_bytes);  // as found, before the cut
  EXPECT_EQ(seen.bytes, log_bytes);
  EXPECT_FALSE(r->had_clean_shutdown);
  EXPECT_EQ(r->partitions, 2);
  EXPECT_EQ(r->segments_recovered, 2);
  EXPECT_GT(r->bytes_quarantined, 0);
  EXPECT_THAT(out.str(), HasSubstr("Completed load of log orders-1"));
  EXPECT_THAT(out.str(), HasSubstr("2 partition(s) after an unclean shutdown"));
  EXPECT_TRUE(FileExists(tmp.path() + "/.kafka_cleanshutdown"));
  EXPECT_LT(std::filesystem::file_size(log1), size1 - 7);  // cut to the last whole batch

  // A second run finds a clean directory and changes nothing.
  std::ostringstream again;
  auto r2 = RecoverLogDir({tmp.path(), 1}, again);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->had_clean_shutdown);
  EXPECT_EQ(r2->segments_recovered, 0);
  EXPECT_EQ(r2->bytes_quarantined, 0);

  // And produce appends after the cut.
  auto more = ProduceSome(tmp.path(), 10);
  ASSERT_TRUE(more.ok()) << more.status().ToString();

  EXPECT_THAT(RecoverLogDir({tmp.path(), 0}, again).status().message(),
              HasSubstr("num.recovery.threads.per.data.dir"));
}

// produce itself recovers the whole directory first after an unclean shutdown.
TEST(RecoverTest, ProduceRecoversEveryPartitionAfterACrash) {
  testing::TempDir tmp;
  ASSERT_TRUE(ProduceSome(tmp.path(), 100).ok());
  std::filesystem::remove(tmp.path() + "/.kafka_cleanshutdown");
  std::filesystem::remove(tmp.path() + "/recovery-point-offset-checkpoint");
  const std::string log0 = LogFilePath(tmp.path() + "/orders-0", 0);
  {
    std::ofstream garbage(log0, std::ios::app | std::ios::binary);
    garbage << "not a batch at all, just bytes a crash left behind";
  }
  std::vector<std::string> progress;
  ProduceOptions o;
  o.log_dir = tmp.path();
  o.topic = "other";  // a different topic: orders must still be recovered
  o.num_records = 1;
  o.progress = [&](const std::string& l) { progress.push_back(l); };
  std::istringstream none;
  ASSERT_TRUE(Produce(o, none).ok());
  bool cut = false;
  for (const std::string& l : progress) {
    cut |= l.find("orders-0") != std::string::npos && l.find("byte(s) cut") != std::string::npos &&
           l.find(", 0 byte(s) cut") == std::string::npos;
  }
  EXPECT_TRUE(cut);
  EXPECT_TRUE(FileExists(tmp.path() + "/.kafka_cleanshutdown"));
}

}  // namespace
}  // namespace seglog
