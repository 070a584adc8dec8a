#include "manager/log_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cstring>
#include <filesystem>

#include "io/atomic_file.h"
#include "io/file.h"
#include "io/file_names.h"
#include "log/checkpoint_file.h"
#include "manager/meta_properties.h"
#include "metadata/metadata_log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;

class LogManagerTest : public ::testing::Test {
 protected:
  std::unique_ptr<LogManager> Open(std::map<std::string, std::string> props = {}) {
    if (!props.count("log.dirs")) props["log.dirs"] = a_.path() + "," + b_.path();
    auto config = LogManagerConfig::FromProperties(props);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = std::make_unique<MockScheduler>(now_);
    auto m = LogManager::Open(*config, scheduler_.get(),
                              [this](const std::string& l) { lines_.push_back(l); });
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  }
  std::vector<std::string> Tree() {
    std::vector<std::string> out;
    for (const TempDir* d : {&a_, &b_}) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(d->path())) {
        out.push_back(e.path().string() + ":" +
                      (e.is_regular_file() ? std::to_string(e.file_size()) : "dir"));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  TempDir a_, b_;
  int64_t now_ = kT0;
  std::unique_ptr<MockScheduler> scheduler_;
  std::vector<std::string> lines_;
};

TEST_F(LogManagerTest, TopicsArePlacedOnTheLeastLoadedDirectoryAndDescribed) {
  auto m = Open();
  ASSERT_TRUE(m->CreateTopic("orders", 4, {{"segment.bytes", "1048576"}}).ok());
  ASSERT_TRUE(m->CreateTopic("audit", 1).ok());
  int in_a = 0, in_b = 0;
  auto d = m->DescribeTopic("orders");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->partitions.size(), 4u);
  for (const auto& p : d->partitions) (p.log_dir == a_.path() ? in_a : in_b)++;
  EXPECT_EQ(in_a, 2);
  EXPECT_EQ(in_b, 2);
  EXPECT_EQ(d->config.segment_bytes, 1048576);
  EXPECT_EQ(d->topic_id.size(), 22u);
  std::shared_ptr<Log> log = *m->GetLog({"orders", 1});
  ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(0, 5, 10, kT0)).ok());
  d = m->DescribeTopic("orders");
  EXPECT_EQ(d->partitions[1].log_end_offset, 5);
  EXPECT_GT(d->partitions[1].bytes, 0);
  EXPECT_EQ(m->ListTopics(), (std::vector<std::string>{"audit", "orders"}));
  ASSERT_TRUE(m->AddPartitions("orders", 6).ok());
  EXPECT_EQ(m->DescribeTopic("orders")->partitions.size(), 6u);
  ASSERT_TRUE(m->Shutdown().ok());
  // The high watermarks, for a Kafka broker taking the directory over.
  auto hw = ReadOffsetCheckpoint(Env::Default(),
                                 d->partitions[1].log_dir + "/replication-offset-checkpoint");
  ASSERT_TRUE(hw.ok()) << hw.status().ToString();
  EXPECT_EQ(hw->at(TopicPartition{"orders", 1}), 5);
  EXPECT_EQ(hw->at(TopicPartition{"orders", 3}), 0);
  // Everything comes back after a restart, with the same topic id.
  const std::string id = d->topic_id;
  m = Open();
  EXPECT_EQ(m->DescribeTopic("orders")->topic_id, id);
  EXPECT_EQ(m->DescribeTopic("orders")->partitions[1].log_end_offset, 5);
  EXPECT_EQ(*ReadPartitionMetadata(m->DescribeTopic("orders")->partitions[1].log_dir +
                                   "/orders-1/partition.metadata"),
            id);
}

TEST_F(LogManagerTest, RefusedCommandsChangeNothingOnDisk) {
  auto m = Open();
  ASSERT_TRUE(m->CreateTopic("t", 1).ok());
  const auto before = Tree();
  for (const auto& [name, partitions, configs, expected] :
       std::vector<std::tuple<std::string, int, std::map<std::string, std::string>, std::string>>{
           {"../escape", 1, {}, "illegal"},
           {"..", 1, {}, "cannot be"},
           {std::string(250, 'x'), 1, {}, "249"},
           {"ok", 0, {}, "larger than 0"},
           {"ok", 1, {{"segment.bytes", "102400"}}, "Value must be at least 1048576"},
           {"ok", 1, {{"no.such.config", "1"}}, "no.such.config"},
           {"t", 1, {}, "already exists"}}) {
    Status s = m->CreateTopic(name, partitions, configs);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_THAT(s.message(), HasSubstr(expected)) << name;
  }
  EXPECT_THAT(m->AlterTopicConfig("t", {{"retention.ms", "-2"}}, {}).message(),
              HasSubstr("Value must be at least -1"));
  EXPECT_THAT(m->AlterTopicConfig("t", {}, {"retention.mss"}).message(),
              HasSubstr("Unknown topic config name: retention.mss"));
  EXPECT_THAT(m->AddPartitions("t", 1).message(), HasSubstr("higher than the requested 1"));
  EXPECT_THAT(m->DeleteTopic("nope").message(), HasSubstr("does not exist"));
  EXPECT_EQ(Tree(), before);
}

// Altered topic configs persist and take effect at the next retention check.
TEST_F(LogManagerTest, AlteredRetentionAppliesAtTheNextCheckAndPersists) {
  auto m =
      Open({{"log.retention.check.interval.ms", "1000"}, {"log.initial.task.delay.ms", "1000"}});
  ASSERT_TRUE(m->CreateTopic("t", 1, {{"internal.segment.bytes", "300"}}).ok());
  std::shared_ptr<Log> log = *m->GetLog({"t", 0});
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(i, 1, 50, kT0)).ok());
  const int segments = log->num_segments();
  ASSERT_GT(segments, 2);
  m->StartTasks();
  scheduler_->Advance(5000);
  EXPECT_EQ(log->num_segments(), segments);  // 7 days of retention: nothing goes
  ASSERT_TRUE(m->AlterTopicConfig("t", {{"retention.ms", "1000"}}, {}).ok());
  scheduler_->Advance(1000);
  EXPECT_EQ(log->num_segments(), 1);  // all expired: an empty segment was rolled first
  EXPECT_EQ(log->log_start_offset(), 10);
  EXPECT_EQ(m->DescribeTopic("t")->overrides.at("retention.ms"), "1000");
  ASSERT_TRUE(m->AlterTopicConfig("t", {}, {"retention.ms"}).ok());
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  EXPECT_FALSE(m->DescribeTopic("t")->overrides.count("retention.ms"));
  EXPECT_EQ(m->DescribeTopic("t")->config.retention_ms, 604800000);
  EXPECT_EQ((*m->GetLog({"t", 0}))->log_start_offset(), 10);  // from the checkpoint
}

// AppendsMayFlush follows flush.messages (broker default and topic overrides) across changes
// and restarts; TopicNameForId finds topics by their id.
TEST_F(LogManagerTest, AppendsMayFlushAndTopicNameForId) {
  auto m = Open();
  EXPECT_FALSE(m->AppendsMayFlush());
  ASSERT_TRUE(m->CreateTopic("t", 1).ok());
  ASSERT_TRUE(m->CreateTopic("u", 1, {{"flush.messages", "5"}}).ok());
  EXPECT_TRUE(m->AppendsMayFlush());
  const std::string t_id = m->FindTopic("t")->topic_id;
  const std::string u_id = m->FindTopic("u")->topic_id;
  EXPECT_EQ(m->TopicNameForId(t_id), "t");
  EXPECT_EQ(m->TopicNameForId(u_id), "u");
  EXPECT_EQ(m->TopicNameForId("AAAAAAAAAAAAAAAAAAAAAA"), std::nullopt);
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  EXPECT_TRUE(m->AppendsMayFlush());  // the override, loaded from the topic store
  EXPECT_EQ(m->TopicNameForId(u_id), "u");
  ASSERT_TRUE(m->AlterTopicConfig("u", {}, {"flush.messages"}).ok());
  EXPECT_FALSE(m->AppendsMayFlush());
  ASSERT_TRUE(m->AlterTopicConfig("t", {{"flush.messages", "9223372036854775807"}}, {}).ok());
  EXPECT_FALSE(m->AppendsMayFlush());  // Long.MAX_VALUE: never
  ASSERT_TRUE(m->DeleteTopic("u").ok());
  EXPECT_EQ(m->TopicNameForId(u_id), std::nullopt);
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open({{"log.flush.interval.messages", "1000"}});
  EXPECT_TRUE(m->AppendsMayFlush());  // the broker's default
}

TEST_F(LogManagerTest, DeletedTopicsAreRenamedThenRemovedAfterTheDelay) {
  auto m = Open({{"log.segment.delete.delay.ms", "10000"}});
  ASSERT_TRUE(m->CreateTopic("gone", 2).ok());
  ASSERT_TRUE(m->DeleteTopic("gone").ok());
  auto pending = [&] {
    int n = 0;
    for (const TempDir* d : {&a_, &b_}) {
      for (const auto& e : std::filesystem::directory_iterator(d->path())) {
        const std::string name = e.path().filename().string();
        if (name.rfind("gone-", 0) == 0) {
          EXPECT_TRUE(name.ends_with("-delete")) << name;
          ++n;
        }
      }
    }
    return n;
  };
  EXPECT_EQ(pending(), 2);
  EXPECT_TRUE(m->ListTopics().empty());
  EXPECT_FALSE(m->GetLog({"gone", 0}).ok());
  scheduler_->Advance(9999);
  EXPECT_EQ(pending(), 2);
  scheduler_->Advance(1);
  EXPECT_EQ(pending(), 0);
  // A name can be reused at once.
  ASSERT_TRUE(m->CreateTopic("gone", 1).ok());
}

// A move between log directories (Kafka's AlterReplicaLogDirs) that a stop cut short leaves a
// <topic>-<p>.<uuid>-future directory. Beside the partition's log it is an unfinished copy:
// removed, the log stays. Alone (the old log already gone) it is the partition's log.
TEST_F(LogManagerTest, FutureLogsLeftByACutMoveAreSettledAtOpen) {
  {
    auto m = Open();
    ASSERT_TRUE(m->CreateTopic("stay", 1).ok());
    ASSERT_TRUE(m->CreateTopic("move", 1).ok());
    for (const char* topic : {"stay", "move"}) {
      auto log = m->GetLog({topic, 0});
      ASSERT_TRUE(log.ok());
      ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(0, 7, 10, kT0)).ok());
    }
    ASSERT_TRUE(m->Shutdown().ok());
  }
  auto where = [&](const std::string& name) {
    for (const TempDir* d : {&a_, &b_}) {
      if (std::filesystem::exists(d->path() + "/" + name)) return d->path();
    }
    return std::string();
  };
  const std::string stay_dir = where("stay-0"), move_dir = where("move-0");
  ASSERT_FALSE(stay_dir.empty());
  ASSERT_FALSE(move_dir.empty());
  auto other = [&](const std::string& dir) { return dir == a_.path() ? b_.path() : a_.path(); };
  const std::string hex = "0123456789abcdef0123456789abcdef";
  // "stay": an unfinished copy in the other directory, beside the log.
  std::filesystem::copy(stay_dir + "/stay-0", other(stay_dir) + "/stay-0." + hex + "-future");
  // "move": the old log gone, only the complete copy left.
  std::filesystem::rename(move_dir + "/move-0", other(move_dir) + "/move-0." + hex + "-future");

  auto m = Open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(where("stay-0"), stay_dir);
  EXPECT_EQ(where("move-0"), other(move_dir));
  for (const char* topic : {"stay", "move"}) {
    auto log = m->GetLog({topic, 0});
    ASSERT_TRUE(log.ok()) << topic;
    EXPECT_EQ((*log)->log_end_offset(), 7) << topic;
    int records = 0;
    ASSERT_TRUE(testing::ForEachBatch(log->get(), [&](const RecordBatchView& b, Bytes) {
                  records += static_cast<int>(b.records_count());
                }).ok());
    EXPECT_EQ(records, 7) << topic;
  }
  EXPECT_TRUE(where("move-0." + hex + "-future").empty());
  EXPECT_TRUE(where("stay-0." + hex + "-future").empty());
  // The abandoned copy waits as a -delete directory, removed by the deletion task.
  ASSERT_TRUE(m->DeleteLogs(/*now=*/true).ok());
  for (const TempDir* d : {&a_, &b_}) {
    for (const auto& e : std::filesystem::directory_iterator(d->path())) {
      EXPECT_FALSE(e.path().filename().string().ends_with("-delete")) << e.path();
    }
  }
  bool logged = false;
  for (const auto& l : lines_) logged |= l.find("did not finish") != std::string::npos;
  EXPECT_TRUE(logged);
}

// AlterReplicaLogDirs: a partition moves to the other directory with every batch, its log start
// offset and its producer state, while appends go on; Kafka's codes for the refusals.
TEST_F(LogManagerTest, APartitionMovesToAnotherLogDirectory) {
  auto m = Open();
  ASSERT_TRUE(m->CreateTopic("mv", 1).ok());
  auto where = [&](const std::string& name) {
    for (const TempDir* d : {&a_, &b_}) {
      if (std::filesystem::exists(d->path() + "/" + name)) return d->path();
    }
    return std::string();
  };
  const std::string from = where("mv-0");
  const std::string to = from == a_.path() ? b_.path() : a_.path();
  const std::string to_abs = LogManager::AbsoluteDir(to);
  {
    auto log = m->GetLog({"mv", 0});
    ASSERT_TRUE(log.ok());
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(i * 5, 5, 100, kT0)).ok());
    }
    ASSERT_TRUE((*log)->DeleteRecords(10).ok());
  }
  // Refusals: a path that is not a log directory (exactly), a partition that does not exist.
  EXPECT_EQ(m->AlterReplicaLogDir({"mv", 0}, to_abs + "/"), 57);
  EXPECT_EQ(m->AlterReplicaLogDir({"mv", 0}, "/nowhere"), 57);
  EXPECT_EQ(m->AlterReplicaLogDir({"mv", 3}, to_abs), 3);
  EXPECT_EQ(m->AlterReplicaLogDir({"nope", 0}, to_abs), 3);
  // Its own directory: nothing to do.
  EXPECT_EQ(m->AlterReplicaLogDir({"mv", 0}, LogManager::AbsoluteDir(from)), 0);
  EXPECT_TRUE(m->FutureLogs().empty());

  ASSERT_EQ(m->AlterReplicaLogDir({"mv", 0}, to_abs), 0);
  EXPECT_EQ(m->AlterReplicaLogDir({"mv", 0}, to_abs), 0);  // again: harmless
  ASSERT_EQ(m->FutureLogs().size(), 1u);
  EXPECT_EQ(m->FutureLogs()[0].dir, to);
  EXPECT_EQ(m->FutureLogs()[0].offset_lag, 90);  // it starts at the log start offset, 10
  // A first pass with a small budget copies part of it; appends go on meanwhile.
  ASSERT_TRUE(m->MoveReplicas(3000).ok());
  ASSERT_EQ(m->FutureLogs().size(), 1u);
  EXPECT_GT(m->FutureLogs()[0].offset_lag, 0);
  EXPECT_LT(m->FutureLogs()[0].offset_lag, 90);
  ASSERT_TRUE(
      (*m->GetLog({"mv", 0}))->AppendAsLeader(testing::ProducerBatch(100, 5, 100, kT0)).ok());
  // The next pass catches up and swaps.
  ASSERT_TRUE(m->MoveReplicas().ok());
  EXPECT_TRUE(m->FutureLogs().empty());
  EXPECT_EQ(where("mv-0"), to);
  auto moved = m->GetLog({"mv", 0});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ((*moved)->dir(), to + "/mv-0");
  EXPECT_EQ((*moved)->log_start_offset(), 10);
  EXPECT_EQ((*moved)->log_end_offset(), 105);
  int records = 0;
  ASSERT_TRUE(testing::ForEachBatch(moved->get(), [&](const RecordBatchView& b, Bytes) {
                records += static_cast<int>(b.records_count());
              }).ok());
  EXPECT_EQ(records, 95);  // offsets 10-104: from the log start offset on
  ASSERT_TRUE((*moved)->AppendAsLeader(testing::ProducerBatch(105, 5, 100, kT0)).ok());
  EXPECT_EQ((*moved)->log_end_offset(), 110);
  // The old directory's copy is deleted after file.delete.delay.ms; a restart finds the
  // partition where it moved, with everything.
  ASSERT_TRUE(m->RunTask("delete-files").ok());
  EXPECT_TRUE(where("mv-0").size() && !std::filesystem::exists(from + "/mv-0"));
  ASSERT_TRUE(m->Shutdown().ok());
  // The metadata log names the new directory (AssignReplicasToDirs' PartitionChangeRecord).
  auto named_dir = [&]() -> Uuid {
    auto ml = MetadataLog::Open(a_.path(), {});
    EXPECT_TRUE(ml.ok()) << ml.status().ToString();
    if (!ml.ok()) return Uuid();
    const TopicImage* t = (*ml)->image().FindTopic("mv");
    EXPECT_NE(t, nullptr);
    return t == nullptr ? Uuid() : t->partitions.at(0).directories.at(0);
  };
  auto dir_id = [](const std::string& dir) {
    const std::string path = dir + "/meta.properties";
    const std::vector<uint8_t> bytes = testing::ReadFileBytes(path);
    auto meta = ParseMetaProperties(path, std::string(bytes.begin(), bytes.end()));
    EXPECT_TRUE(meta.ok());
    auto id = meta.ok() ? Uuid::Parse(meta->directory_id) : Result<Uuid>(Uuid());
    return id.ok() ? id.value() : Uuid();
  };
  EXPECT_EQ(named_dir(), dir_id(to));
  m = Open();
  auto reopened = m->GetLog({"mv", 0});
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->dir(), to + "/mv-0");
  EXPECT_EQ((*reopened)->log_end_offset(), 110);
  EXPECT_EQ((*reopened)->log_start_offset(), 10);
  // A partition directory moved by hand while the node was down: the next start records where
  // it is, as a Kafka broker reports its logs' directories.
  ASSERT_TRUE(m->Shutdown().ok());
  std::filesystem::rename(to + "/mv-0", from + "/mv-0");
  m = Open();
  ASSERT_TRUE(m->Shutdown().ok());
  EXPECT_EQ(named_dir(), dir_id(from));
  std::filesystem::rename(from + "/mv-0", to + "/mv-0");
  m = Open();

  // A move cancelled by asking for the current directory; one cut by a shutdown is undone.
  const std::string back = LogManager::AbsoluteDir(from);
  ASSERT_EQ(m->AlterReplicaLogDir({"mv", 0}, back), 0);
  ASSERT_EQ(m->FutureLogs().size(), 1u);
  ASSERT_EQ(m->AlterReplicaLogDir({"mv", 0}, to_abs), 0);
  EXPECT_TRUE(m->FutureLogs().empty());
  ASSERT_EQ(m->AlterReplicaLogDir({"mv", 0}, back), 0);
  ASSERT_TRUE(m->MoveReplicas(3000).ok());
  ASSERT_TRUE(m->Shutdown().ok());
  m = Open();
  EXPECT_EQ(where("mv-0"), to);
  EXPECT_EQ((*m->GetLog({"mv", 0}))->log_end_offset(), 110);
}

// The read-only view: what the node would serve (checkpointed log start offsets, topic
// configs), with nothing written (the marker stays) and every writing operation refused.
// (That it takes no lock is tested across processes in tools/manage_test.cc.)
TEST_F(LogManagerTest, ReadOnlyOpenAppliesTheCheckpointsAndWritesNothing) {
  auto m = Open();
  ASSERT_TRUE(m->CreateTopic("t", 2, {{"retention.ms", "20000"}}).ok());
  for (int p = 0; p < 2; ++p) {
    ASSERT_TRUE((*m->GetLog({"t", p}))->AppendAsLeader(ProducerBatch(0, 10, 10, kT0)).ok());
  }
  ASSERT_TRUE((*(*m->GetLog({"t", 1}))->DeleteRecords(7)) == 7);
  ASSERT_TRUE(m->Shutdown().ok());
  m.reset();
  const std::vector<std::string> before = Tree();

  auto config = LogManagerConfig::FromProperties({{"log.dirs", a_.path() + "," + b_.path()}});
  ASSERT_TRUE(config.ok());
  MockScheduler s(kT0);
  auto ro = LogManager::OpenReadOnly(*config, &s);
  ASSERT_TRUE(ro.ok()) << ro.status().ToString();
  EXPECT_TRUE((*ro)->read_only());
  auto t = (*ro)->DescribeTopic("t");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->config.retention_ms, 20000);
  ASSERT_EQ(t->partitions.size(), 2u);
  EXPECT_EQ(t->partitions[1].log_start_offset, 7);
  EXPECT_EQ(t->partitions[1].log_end_offset, 10);
  EXPECT_EQ((*ro)->CreateTopic("u", 1).code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ((*ro)->DeleteTopic("t").code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ((*ro)->RunTask("checkpoint").code(), Status::Code::kFailedPrecondition);
  EXPECT_FALSE((*(*ro)->GetLog({"t", 0}))->AppendAsLeader(ProducerBatch(0, 1, 10, kT0)).ok());
  ASSERT_TRUE((*ro)->Shutdown().ok());
  EXPECT_EQ(Tree(), before);
}

TEST_F(LogManagerTest, ShutdownIsCleanAndTheNextOpenRecoversNothing) {
  auto m = Open();
  ASSERT_TRUE(m->CreateTopic("t", 3).ok());
  for (int p = 0; p < 3; ++p) {
    ASSERT_TRUE((*m->GetLog({"t", p}))->AppendAsLeader(ProducerBatch(0, 3, 10, kT0)).ok());
  }
  ASSERT_TRUE(m->Shutdown().ok());
  EXPECT_TRUE(FileExists(a_.path() + "/.kafka_cleanshutdown"));
  EXPECT_TRUE(FileExists(b_.path() + "/.kafka_cleanshutdown"));
  lines_.clear();
  m = Open();
  for (const std::string& l : lines_) EXPECT_EQ(l.find("recovered "), std::string::npos) << l;
  // Two directories of different clusters are refused.
  ASSERT_TRUE(m->Shutdown().ok());
  m.reset();
  TempDir other;
  {
    auto lone = LogManagerConfig::FromProperties({{"log.dirs", other.path()}});
    MockScheduler s(kT0);
    auto o = LogManager::Open(*lone, &s);
    ASSERT_TRUE(o.ok());
  }
  auto mixed = LogManagerConfig::FromProperties({{"log.dirs", a_.path() + "," + other.path()}});
  MockScheduler s(kT0);
  auto bad = LogManager::Open(*mixed, &s);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("different clusters"));
}

std::vector<uint8_t> KeyedBatch(const std::vector<std::pair<std::string, const char*>>& records,
                                int64_t ts) {
  RecordBatchBuilder b{BatchOptions{}};
  for (const auto& [k, v] : records) {
    NullableBytes value;
    if (v != nullptr) value = Bytes(reinterpret_cast<const uint8_t*>(v), std::strlen(v));
    EXPECT_TRUE(
        b.Append(ts, Bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size()), value).ok());
  }
  return *b.Build();
}

// seed 000 Example 3 through the manager's cleaner thread: after the roll and a round the
// checkpoint holds "cmp 0 10".
TEST_F(LogManagerTest, CleanerThreadCompactsAndCheckpointsExampleThree) {
  auto m = Open({{"log.cleaner.backoff.ms", "1000"},
                 {"log.initial.task.delay.ms", "0"},
                 {"log.dirs", a_.path()},
                 {"log.cleaner.dedupe.buffer.size", "1048576"}});
  ASSERT_TRUE(m->CreateTopic("cmp", 1,
                             {{"cleanup.policy", "compact"},
                              {"segment.ms", "5000"},
                              {"min.cleanable.dirty.ratio", "0.01"}})
                  .ok());
  std::shared_ptr<Log> log = *m->GetLog({"cmp", 0});
  ASSERT_TRUE(log->AppendAsLeader(KeyedBatch({{"user1", "a1"},
                                              {"user2", "b1"},
                                              {"user3", "c1"},
                                              {"user1", "a2"},
                                              {"user2", "b2"},
                                              {"user3", "c2"},
                                              {"user1", "a3"},
                                              {"user2", "b3"},
                                              {"user3", "c3"},
                                              {"user2", nullptr}},
                                             scheduler_->NowMs()))
                  .ok());
  m->StartTasks();
  scheduler_->Advance(1000);  // nothing closed yet: the cleaner rests
  EXPECT_FALSE(FileExists(a_.path() + "/cleaner-offset-checkpoint"));
  scheduler_->Advance(5000);
  ASSERT_TRUE(log->AppendAsLeader(KeyedBatch({{"user4", "d1"}}, scheduler_->NowMs())).ok());
  ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 10}));
  scheduler_->Advance(1000);
  auto text = ReadFileToString(a_.path() + "/cleaner-offset-checkpoint");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "0\n1\ncmp 0 10\n");
  bool began = false;
  for (const std::string& l : lines_) began |= l == "Cleaner 0: Beginning cleaning of log cmp-0";
  EXPECT_TRUE(began);
  std::vector<int64_t> offsets;
  ASSERT_TRUE(testing::ForEachBatch(log.get(), [&](const RecordBatchView& v, Bytes) {
                RecordIterator it(v);
                while (it.Next()) offsets.push_back(it.record().offset);
              }).ok());
  EXPECT_EQ(offsets, (std::vector<int64_t>{6, 8, 9, 10}));
  // The deleted partition's checkpoint entry goes with it.
  ASSERT_TRUE(m->DeleteTopic("cmp").ok());
  EXPECT_EQ(*ReadFileToString(a_.path() + "/cleaner-offset-checkpoint"), "0\n0\n");
}

// compact,delete: once cleaner threads run, they - not the retention task - apply time and
// size retention to compacted logs (docs/design/cleaner.md, "Retention of compacted logs").
TEST_F(LogManagerTest, CleanerAppliesRetentionToCompactDeleteTopics) {
  auto m = Open({{"log.cleaner.backoff.ms", "1000"},
                 {"log.initial.task.delay.ms", "0"},
                 {"log.retention.check.interval.ms", "1000"},
                 {"log.dirs", a_.path()},
                 {"log.cleaner.dedupe.buffer.size", "1048576"}});
  ASSERT_TRUE(m->CreateTopic("cd", 1,
                             {{"cleanup.policy", "compact,delete"},
                              {"retention.ms", "60000"},
                              {"internal.segment.bytes", "300"}})
                  .ok());
  std::shared_ptr<Log> log = *m->GetLog({"cd", 0});
  const int64_t t = scheduler_->NowMs();
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(log->AppendAsLeader(KeyedBatch({{fmt::format("k{}", i), "v"}}, t)).ok());
  }
  const int segments = log->num_segments();
  ASSERT_GT(segments, 2);
  m->StartTasks();
  scheduler_->Advance(30000);
  EXPECT_EQ(log->num_segments(), segments);  // within retention.ms: the cleaner keeps all keys
  scheduler_->Advance(40000);                // 70 s: every segment expired
  EXPECT_EQ(log->log_start_offset(), 12);
  EXPECT_EQ(log->num_segments(), 1);
}

}  // namespace
}  // namespace seglog
