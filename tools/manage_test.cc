#include "tools/manage.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "base/scheduler.h"
#include "manager/log_dir_lock.h"
#include "manager/log_manager.h"
#include "tests/support/files.h"
#include "tools/consume.h"
#include "tools/produce.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1794024676000;

class ManageTest : public ::testing::Test {
 protected:
  NodeOptions Node(int64_t now = kT0) {
    NodeOptions n;
    n.log_dir = tmp_.path();
    n.clock = [now] { return now; };
    return n;
  }
  Status Topics(const std::string& action, const std::string& topic, int partitions = -1,
                std::map<std::string, std::string> configs = {}) {
    TopicsOptions o;
    o.node = Node();
    o.action = action;
    o.topic = topic;
    o.partitions = partitions;
    o.configs = std::move(configs);
    out_.str("");
    return seglog::Topics(o, out_);
  }
  void Produce(const std::string& topic, int64_t records, int64_t first_ts) {
    ProduceOptions p;
    p.log_dir = tmp_.path();
    p.topic = topic;
    p.num_records = records;
    p.batch_records = 1;
    p.value_size = 100;
    p.timestamp_start = first_ts;
    p.timestamp_step = 1;
    p.clock = [first_ts] { return first_ts; };
    std::istringstream none;
    auto r = seglog::Produce(p, none);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  testing::TempDir tmp_;
  std::ostringstream out_;
};

TEST_F(ManageTest, TopicsCreateDescribeAlterListDelete) {
  ASSERT_TRUE(Topics("create", "orders", 3, {{"retention.ms", "20000"}}).ok());
  EXPECT_THAT(out_.str(), HasSubstr("Created topic orders."));
  ASSERT_TRUE(Topics("describe", "orders").ok());
  EXPECT_THAT(out_.str(), HasSubstr("PartitionCount: 3\tConfigs: retention.ms=20000"));
  EXPECT_THAT(out_.str(), HasSubstr("Partition: 2\tLogDir: " + tmp_.path()));
  EXPECT_THAT(out_.str(), HasSubstr("LogStartOffset: 0\tLogEndOffset: 0\tRecoveryPoint: 0"));
  ASSERT_TRUE(Topics("alter", "orders", 4).ok());
  ASSERT_TRUE(Topics("list", "").ok());
  EXPECT_EQ(out_.str(), "orders\n");
  ASSERT_TRUE(Topics("describe", "orders").ok());
  EXPECT_THAT(out_.str(), HasSubstr("PartitionCount: 4"));
  EXPECT_THAT(Topics("create", "orders", 1).message(), HasSubstr("already exists"));
  EXPECT_THAT(Topics("bogus", "orders").message(), HasSubstr("exactly one action"));
  ASSERT_TRUE(Topics("delete", "orders").ok());
  ASSERT_TRUE(Topics("list", "").ok());
  EXPECT_EQ(out_.str(), "");
}

TEST_F(ManageTest, ConfigsAlterPersistsAndDescribeShowsOverrides) {
  ASSERT_TRUE(Topics("create", "t", 1).ok());
  ConfigsOptions c;
  c.node = Node();
  c.topic = "t";
  c.alter = true;
  c.add = {{"retention.ms", "1000"}, {"segment.bytes", "1048576"}};
  ASSERT_TRUE(Configs(c, out_).ok());
  c.alter = false;
  out_.str("");
  ASSERT_TRUE(Configs(c, out_).ok());
  EXPECT_EQ(out_.str(),
            "Dynamic configs for topic t are:\n  retention.ms=1000\n  segment.bytes=1048576\n");
  c.alter = true;
  c.add = {};
  c.remove = {"retention.ms"};
  ASSERT_TRUE(Configs(c, out_).ok());
  c.remove = {"nope"};
  EXPECT_THAT(Configs(c, out_).message(), HasSubstr("Unknown topic config name: nope"));
  c.alter = false;
  out_.str("");
  ASSERT_TRUE(Configs(c, out_).ok());
  EXPECT_EQ(out_.str(), "Dynamic configs for topic t are:\n  segment.bytes=1048576\n");
}

// Retention from the command line, and a consumer behind the new log start (seed 001's table).
TEST_F(ManageTest, RunTasksRetentionThenConsumeWithEachReset) {
  ASSERT_TRUE(
      Topics("create", "orders", 1, {{"internal.segment.bytes", "500"}, {"retention.ms", "20000"}})
          .ok());
  Produce("orders", 12, kT0);
  // 30 s later every closed segment has expired; the retention pass rolls and deletes.
  NodeOptions later = Node(kT0 + 30000);
  std::ostringstream tasks;
  ASSERT_TRUE(RunTasks(later, {"retention", "delete-files", "checkpoint"}, tasks).ok());
  EXPECT_THAT(tasks.str(), HasSubstr("due to log retention time 20000ms breach"));
  EXPECT_THAT(tasks.str(), HasSubstr("Incremented log start offset to 12 due to segment deletion"));
  EXPECT_THAT(tasks.str(), HasSubstr("ran delete-files"));
  for (const auto& e : std::filesystem::directory_iterator(tmp_.path() + "/orders-0")) {
    EXPECT_EQ(e.path().string().find(".deleted"), std::string::npos) << e.path();
  }
  Produce("orders", 4, kT0 + 30000);  // offsets 12..15
  ConsumeOptions c;
  c.log_dir = tmp_.path();
  c.topic = "orders";
  c.offset = "3";
  std::ostringstream records, resets;
  c.reset = "none";
  auto none = Consume(c, records, &resets);
  EXPECT_TRUE(none.status().IsOutOfRange());
  EXPECT_THAT(none.status().message(), HasSubstr("range 12 to 16"));
  c.reset = "earliest";
  ASSERT_EQ(*Consume(c, records, &resets), 4);  // everything still on disk
  EXPECT_THAT(resets.str(), HasSubstr("to position 12 (auto.offset.reset=earliest)"));
  c.reset = "latest";
  ASSERT_EQ(*Consume(c, records, &resets), 0);  // only new records
  EXPECT_THAT(resets.str(), HasSubstr("to position 16 (auto.offset.reset=latest)"));
  c.reset = "sometimes";
  EXPECT_THAT(Consume(c, records).status().message(), HasSubstr("auto.offset.reset"));
}

TEST_F(ManageTest, DeleteRecordsRaisesTheLogStartAndIsRefusedOnCompactedTopics) {
  ASSERT_TRUE(Topics("create", "t", 1).ok());
  Produce("t", 10, kT0);
  DeleteRecordsOptions d;
  d.node = Node();
  d.topic = "t";
  d.partition = 0;
  d.offset = 4;
  ASSERT_TRUE(DeleteRecordsCommand(d, out_).ok());
  EXPECT_THAT(out_.str(), HasSubstr("Incremented log start offset to 4 due to client delete "
                                    "records request\npartition: t-0\tlow_watermark: 4\n"));
  ASSERT_TRUE(Topics("describe", "t").ok());
  EXPECT_THAT(out_.str(), HasSubstr("LogStartOffset: 4\tLogEndOffset: 10"));  // checkpointed
  d.offset = 11;
  EXPECT_THAT(DeleteRecordsCommand(d, out_).message(), HasSubstr("high watermark 10"));
  ASSERT_TRUE(Topics("create", "table", 1, {{"cleanup.policy", "compact"}}).ok());
  d.topic = "table";
  d.offset = 0;
  EXPECT_THAT(DeleteRecordsCommand(d, out_).message(), HasSubstr("PolicyViolationException"));
  d.topic = "missing";
  EXPECT_THAT(DeleteRecordsCommand(d, out_).message(), HasSubstr("missing-0"));
}

// The read tools open the directory as the node does: a log start offset raised by
// delete-records lives only in log-start-offset-checkpoint, and they apply it.
TEST_F(ManageTest, ReadToolsSeeTheCheckpointedLogStartOffset) {
  ASSERT_TRUE(Topics("create", "t", 1).ok());
  Produce("t", 100, kT0);
  DeleteRecordsOptions d;
  d.node = Node();
  d.topic = "t";
  d.partition = 0;
  d.offset = 50;
  ASSERT_TRUE(DeleteRecordsCommand(d, out_).ok());
  ASSERT_TRUE(Topics("describe", "t").ok());
  EXPECT_THAT(out_.str(), HasSubstr("LogStartOffset: 50\tLogEndOffset: 100"));

  std::ostringstream offsets;
  ASSERT_TRUE(GetOffsets({tmp_.path(), "t", {}, "earliest"}, offsets).ok());
  EXPECT_EQ(offsets.str(), "t:0:50\n");
  ConsumeOptions c;
  c.log_dir = tmp_.path();
  c.topic = "t";
  c.offset = "10";
  c.reset = "none";
  std::ostringstream records;
  auto none = Consume(c, records);
  EXPECT_TRUE(none.status().IsOutOfRange()) << none.status().ToString();
  EXPECT_THAT(none.status().message(), HasSubstr("range 50 to 100"));
  c.offset = "earliest";
  c.max_records = 1;
  ASSERT_EQ(*Consume(c, records), 1);
  EXPECT_THAT(records.str(), ::testing::StartsWith("Offset:50\t"));
}

// Reading takes no lock and writes nothing: it works beside a running node, and leaves the
// clean-shutdown marker and every file as they were.
TEST_F(ManageTest, ReadToolsTakeNoLockAndWriteNothing) {
  ASSERT_TRUE(Topics("create", "t", 2).ok());
  Produce("t", 20, kT0);
  auto listing = [this] {
    std::map<std::string, std::pair<uintmax_t, std::filesystem::file_time_type>> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(tmp_.path())) {
      if (e.is_regular_file()) files[e.path().string()] = {e.file_size(), e.last_write_time()};
    }
    return files;
  };
  const auto before = listing();
  ASSERT_TRUE(before.count(tmp_.path() + "/.kafka_cleanshutdown"));
  std::ostringstream out;
  ASSERT_TRUE(GetOffsets({tmp_.path(), "t", {}, "latest"}, out).ok());
  ConsumeOptions c;
  c.log_dir = tmp_.path();
  c.topic = "t";
  ASSERT_EQ(*Consume(c, out), 20);
  EXPECT_EQ(listing(), before);

  // A node in another process holds the directory (and its .lock): the read tools still read
  // it, and the node shuts down cleanly after them.
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    LogManagerConfig config;
    config.log_dirs = {tmp_.path()};
    MockScheduler scheduler(kT0);
    auto node = LogManager::Open(config, &scheduler);
    char b = node.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &b, 1);
    (void)!::read(done[0], &b, 1);
    ::_exit(node.ok() && (*node)->Shutdown().ok() ? 0 : 1);
  }
  char b = 0;
  ASSERT_EQ(::read(ready[0], &b, 1), 1);
  ASSERT_EQ(b, 'y');
  EXPECT_FALSE(LogDirLock::Acquire(Env::Default(), tmp_.path()).ok());  // the node holds it
  std::ostringstream live;
  EXPECT_TRUE(GetOffsets({tmp_.path(), "t", {}, "latest"}, live).ok());
  EXPECT_THAT(live.str(), HasSubstr("t:0:"));
  auto n = Consume(c, live);
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n.ok() ? *n : -1, 20);
  (void)!::write(done[1], "x", 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
}

// seglog clean compacts a topic's closed segments now; other topics are refused.
TEST_F(ManageTest, CleanCompactsATopicNow) {
  ASSERT_TRUE(Topics("create", "table", 1,
                     {{"cleanup.policy", "compact"}, {"internal.segment.bytes", "2000"}})
                  .ok());
  ProduceOptions p;
  p.log_dir = tmp_.path();
  p.topic = "table";
  p.num_records = 200;
  p.batch_records = 5;
  p.value_size = 20;
  p.key_format = "key-%d";  // 200 records over ... keys below
  p.timestamp_start = kT0;
  p.clock = [] { return kT0; };
  std::istringstream none;
  // 200 writes over 10 keys: key-(i % 10) via lines on stdin.
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += fmt::format("key-{}:v{}\n", i % 10, i);
  p.num_records.reset();
  p.key_separator = ":";
  std::istringstream in(lines);
  ASSERT_TRUE(seglog::Produce(p, in).ok());
  CleanOptions c;
  c.node = Node();
  c.topic = "table";
  // The round's progress: the dirty section's segments for the map, then the segments copied,
  // each counted once, and every byte of them read.
  ProgressStep seen;
  int64_t steps = 0;
  c.progress = [&](const ProgressStep& s) {
    ++steps;
    seen.bytes += s.bytes;
    seen.segments += s.segments;
    seen.add_bytes_total += s.add_bytes_total;
    seen.add_segments_total += s.add_segments_total;
  };
  std::ostringstream out;
  ASSERT_TRUE(Clean(c, out).ok());
  EXPECT_GT(seen.add_segments_total, 2);
  EXPECT_EQ(seen.segments, seen.add_segments_total);
  EXPECT_GT(seen.add_bytes_total, 0);
  EXPECT_EQ(seen.bytes, seen.add_bytes_total);
  EXPECT_EQ(steps, 2 + seen.segments);  // two totals, then one step a segment
  EXPECT_THAT(out.str(), HasSubstr("Cleaner 0: Beginning cleaning of log table-0"));
  EXPECT_THAT(out.str(), HasSubstr("cleaned 1 partition(s) of table"));
  ConsumeOptions co;
  co.log_dir = tmp_.path();
  co.topic = "table";
  std::ostringstream records;
  auto n = Consume(co, records);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_LT(*n, 200);  // the closed segments hold one record per key now
  EXPECT_THAT(records.str(), HasSubstr("Offset:199\tkey-9\tv199"));
  c.topic = "orders";
  ASSERT_TRUE(Topics("create", "orders", 1).ok());
  EXPECT_THAT(Clean(c, out).message(), HasSubstr("only compacted topics are cleaned"));
}

}  // namespace
}  // namespace seglog
