#include "manager/log_directory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <set>

#include "io/atomic_file.h"
#include "io/fault_injection_env.h"
#include "io/file.h"
#include "io/file_names.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

LogConfig SmallSegments() {
  LogConfig c;
  EXPECT_TRUE(c.Set("internal.segment.bytes", "1000").ok());
  return c;
}

// Writes `partitions` partitions of topic t with `batches` batches each, then "crashes" (no
// Close: no checkpoints beyond the last explicit one, no marker).
void WriteAndCrash(const std::string& dir, int partitions, int batches, bool checkpoint_first) {
  auto d = LogDirectory::Open(dir);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  for (int p = 0; p < partitions; ++p) {
    auto log = (*d)->GetLog({"t", p}, SmallSegments());
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    for (int i = 0; i < batches; ++i) {
      ASSERT_TRUE((*log)->AppendAsLeader(ProducerBatch(i, 2, 50, kT0)).ok());
    }
  }
  if (checkpoint_first) {
    ASSERT_TRUE((*d)->CheckpointRecoveryPoints().ok());
  }
  // Destroyed without Close(): what a SIGKILL leaves (the page cache keeps the bytes).
}

TEST(LogDirectoryTest, CreatesMetaPropertiesOnceAndKeepsIt) {
  TempDir tmp;
  std::string cluster, directory;
  {
    auto d = LogDirectory::Open(tmp.path());
    ASSERT_TRUE(d.ok());
    cluster = (*d)->meta().cluster_id;
    directory = (*d)->meta().directory_id;
    EXPECT_EQ((*d)->meta().version, 1);
    EXPECT_EQ((*d)->meta().node_id, 1);
    ASSERT_TRUE((*d)->Close().ok());
  }
  auto text = ReadFileToString(tmp.path() + "/meta.properties");
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, HasSubstr("\nversion=1\n"));
  EXPECT_THAT(*text, HasSubstr("cluster.id=" + cluster + "\n"));
  EXPECT_EQ(text->rfind("#\n#", 0), 0u);
  auto d = LogDirectory::Open(tmp.path());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->meta().cluster_id, cluster);
  EXPECT_EQ((*d)->meta().directory_id, directory);
}

TEST(LogDirectoryTest, MetaPropertiesFromKafkaAreReadAndBadOnesRefused) {
  const std::string kafka =
      "#\n#Fri Oct 25 03:33:01 UTC 2024\nnode.id=1\ndirectory.id=8PHy8_T19vf4-fr7_P3-_w\n"
      "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\n";
  auto m = ParseMetaProperties("meta.properties", kafka);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->cluster_id, "MkU3OEVBNTcwNTJENDM2Qg");
  EXPECT_EQ(m->node_id, 1);
  EXPECT_EQ(m->directory_id, "8PHy8_T19vf4-fr7_P3-_w");
  // Round trip through our writer.
  auto again = ParseMetaProperties("x", FormatMetaProperties(*m, "Fri Oct 25 03:33:01 UTC 2024"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cluster_id, m->cluster_id);
  EXPECT_EQ(again->directory_id, m->directory_id);
  // Version 0 (ZooKeeper era) with broker.id.
  auto v0 = ParseMetaProperties("x", "version=0\nbroker.id=7\n");
  ASSERT_TRUE(v0.ok());
  EXPECT_EQ(v0->node_id, 7);
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"version=2\nnode.id=1\ncluster.id=a\n", "version is 2"},
           {"node.id=1\n", "no version"},
           {"version=1\ncluster.id=a\n", "requires node.id"},
           {"version=1\nnode.id=x\ncluster.id=a\n", "node.id is 'x'"},
           {"version=1\nnode.id=1\ncluster.id=a\ndirectory.id=zz\n", "directory.id"}}) {
    auto bad = ParseMetaProperties("D/meta.properties", text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_THAT(bad.status().message(), HasSubstr("D/meta.properties")) << text;
    EXPECT_THAT(bad.status().message(), HasSubstr(expected)) << text;
  }
  // A directory whose meta.properties is damaged does not open.
  TempDir tmp;
  ASSERT_TRUE(WriteFileAtomically(tmp.path() + "/meta.properties", "version=9\n").ok());
  EXPECT_FALSE(LogDirectory::Open(tmp.path()).ok());
}

// Every partition is recovered in parallel after a crash, from its checkpointed recovery
// point, and the progress names each one.
TEST(LogDirectoryTest, LoadAllRecoversEveryPartitionInParallelWithProgress) {
  TempDir tmp;
  WriteAndCrash(tmp.path(), 6, 40, /*checkpoint_first=*/false);
  // A torn tail on one partition: half a batch.
  const std::string victim = tmp.path() + "/t-3";
  std::vector<std::string> logs;
  for (const auto& e : std::filesystem::directory_iterator(victim)) {
    if (e.path().extension() == ".log") logs.push_back(e.path().string());
  }
  std::sort(logs.begin(), logs.end());
  std::filesystem::resize_file(logs.back(), std::filesystem::file_size(logs.back()) - 30);
  // Plus directories Kafka's LogManager does not load as partitions.
  std::filesystem::create_directories(tmp.path() + "/t-9.8PHy8_T19vf4-fr7_P3-_w-delete");
  std::filesystem::create_directories(tmp.path() + "/__cluster_metadata-0");

  auto d = LogDirectory::Open(tmp.path());
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE((*d)->had_clean_shutdown());
  std::vector<std::string> lines;
  ASSERT_TRUE((*d)->LoadAll(3, [&](const std::string& l) { lines.push_back(l); }).ok());
  ASSERT_EQ((*d)->logs().size(), 6u);
  int completed = 0;
  std::set<std::string> recovered_partitions;
  for (const std::string& l : lines) {
    if (l.find("Completed load of log") != std::string::npos) ++completed;
    if (l.find("recovered ") == 0) {
      recovered_partitions.insert(l.substr(l.find("/t-") + 1, 3));
    }
  }
  EXPECT_EQ(completed, 6);
  EXPECT_EQ(recovered_partitions.size(), 6u);  // each from its recovery point (0: none saved)
  // Kafka's LogLoader line before each segment it recovers.
  const std::string kafka_line =
      "[LogLoader partition=t-3, dir=" + tmp.path() + "] Recovering unflushed segment 0. 0/";
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(kafka_line) == 0 && l.find(" recovered for t-3.") != std::string::npos;
  })) << kafka_line;
  EXPECT_EQ(lines[0], "Attempting recovery for all logs in " + tmp.path() +
                          " since no clean shutdown file was found");
  EXPECT_EQ(lines[1],
            "Recovering 6 logs from " + tmp.path() + " since no clean shutdown file was found");
  EXPECT_THAT(lines.back(), HasSubstr("Loaded 6 logs"));
  Log* t3 = (*d)->logs().at({"t", 3}).get();
  EXPECT_EQ(t3->log_end_offset(), 78);  // the torn last batch (2 records) is cut
  EXPECT_GT(t3->load_report().bytes_quarantined, 0);
  EXPECT_EQ((*d)->logs().at({"t", 0})->log_end_offset(), 80);
  ASSERT_TRUE((*d)->Close().ok());
  EXPECT_TRUE(FileExists(tmp.path() + "/.kafka_cleanshutdown"));
  // After the clean close, nothing is recovered again.
  auto again = LogDirectory::Open(tmp.path());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)->had_clean_shutdown());
  ASSERT_TRUE((*again)->LoadAll(2).ok());
  for (const auto& [tp, log] : (*again)->logs())
    EXPECT_EQ(log->load_report().segments_recovered, 0);
}

// Opening one partition after a crash and closing must not mark the directory clean: the
// others were never recovered.
TEST(LogDirectoryTest, NoCleanMarkerUnlessEveryPartitionWasLoaded) {
  TempDir tmp;
  WriteAndCrash(tmp.path(), 2, 10, false);
  {
    auto d = LogDirectory::Open(tmp.path());
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE((*d)->GetLog({"t", 0}, SmallSegments()).ok());
    ASSERT_TRUE((*d)->Close().ok());
    EXPECT_FALSE(FileExists(tmp.path() + "/.kafka_cleanshutdown"));
  }
  auto d = LogDirectory::Open(tmp.path());
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE((*d)->had_clean_shutdown());
}

// fsyncgate: one failed sync takes the whole directory offline, leaves it marked unclean,
// and other directories keep working.
TEST(LogDirectoryTest, AFailedSyncTakesTheWholeDirectoryOffline) {
  TempDir a, b;
  FaultInjectionEnv env(Env::Default());
  LogDirectoryOptions o;
  o.log_options.env = &env;
  auto da = LogDirectory::Open(a.path(), o);
  auto db = LogDirectory::Open(b.path(), o);
  ASSERT_TRUE(da.ok() && db.ok());
  Log* a0 = (*(*da)->GetLog({"t", 0}, {})).get();
  Log* a1 = (*(*da)->GetLog({"t", 1}, {})).get();
  Log* b0 = (*(*db)->GetLog({"t", 0}, {})).get();
  for (Log* l : {a0, a1, b0}) ASSERT_TRUE(l->AppendAsLeader(ProducerBatch(0, 1, 5, kT0)).ok());
  env.Fail(EnvOp::kSync, a.path() + "/t-0/", EIO);
  Status s = a0->Flush(1);
  env.ClearFailures();
  EXPECT_TRUE(s.IsIOError());
  EXPECT_TRUE((*da)->offline());
  EXPECT_THAT((*da)->offline_reason().message(), HasSubstr("injected"));
  // The sibling partition refuses work too.
  auto append = a1->AppendAsLeader(ProducerBatch(0, 1, 5, kT0));
  EXPECT_TRUE(append.status().IsIOError());
  EXPECT_THAT(append.status().message(), HasSubstr("offline"));
  EXPECT_FALSE((*da)->GetLog({"t", 2}, {}).ok());
  EXPECT_FALSE((*da)->CheckpointRecoveryPoints().ok());
  Status closed = (*da)->Close();
  EXPECT_THAT(closed.message(), HasSubstr("not shut down cleanly"));
  EXPECT_FALSE(FileExists(a.path() + "/.kafka_cleanshutdown"));
  // The other directory is unaffected.
  EXPECT_FALSE((*db)->offline());
  ASSERT_TRUE(b0->AppendAsLeader(ProducerBatch(0, 1, 5, kT0)).ok());
  ASSERT_TRUE((*db)->Close().ok());
  EXPECT_TRUE(FileExists(b.path() + "/.kafka_cleanshutdown"));
}

}  // namespace
}  // namespace seglog
