// The broker's handlers over a tiered log: Fetch below the local log start served from remote
// storage, ListOffsets -4/-5/-6 and timestamps in remote segments, Kafka's remote-storage
// config rules in CreateTopics and IncrementalAlterConfigs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/scheduler.h"
#include "protocol/kafka_error.h"
#include "remote/testing/local_remote_storage.h"
#include "remote/tiered_storage.h"
#include "server/fetch_handler.h"
#include "server/handlers.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kNow = 1'800'000'000'000;
constexpr int64_t kT0 = kNow - 1'000'000;  // record o has timestamp kT0 + o

class TieredHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(true); }
  void TearDown() override { Close(); }
  void Open(bool system_enable) {
    auto config = LogManagerConfig::FromProperties(
        {{"log.dirs", dir_.path() + "/logs"},
         {"remote.log.storage.system.enable", system_enable ? "true" : "false"},
         {"rlmm.config.remote.log.metadata.topic.num.partitions", "2"}});
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = NewManualScheduler(kNow);
    auto logs = LogManager::Open(*config, scheduler_.get());
    ASSERT_TRUE(logs.ok()) << logs.status().ToString();
    logs_ = std::move(*logs);
    ctx_.logs = logs_.get();
    if (system_enable) {
      RemoteLogStorageConfig remote;
      ASSERT_TRUE(remote.Set("rlmm.config.remote.log.metadata.topic.num.partitions", "2")->ok());
      auto t = TieredStorage::OpenWith(remote, logs_.get(), &rsm_, /*start_tasks=*/false);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      tiered_ = std::move(*t);
      ctx_.remote = tiered_->manager();
    }
  }
  void Close() {
    if (tiered_) tiered_->Shutdown();
    tiered_.reset();
    ctx_.remote = nullptr;
    if (logs_) (void)logs_->Shutdown();
    logs_.reset();
  }
  std::shared_ptr<Log> log() { return *logs_->GetLog({"t", 0}); }

  // 30 batches of 10 records, all copied and trimmed but the empty active segment.
  void TieredTopic() {
    ASSERT_TRUE(logs_
                    ->CreateTopic("t", 1,
                                  {{"remote.storage.enable", "true"},
                                   {"internal.segment.bytes", "2000"},
                                   {"local.retention.ms", "0"},
                                   {"retention.ms", "-1"}})
                    .ok());
    for (int i = 0; i < 30; ++i) {
      ASSERT_TRUE(log()->AppendAsLeader(ProducerBatch(i * 10, 10, 60, kT0)).ok());
    }
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(tiered_->manager()->RunOnce().ok());
      ASSERT_TRUE(logs_->RunTask("retention").ok());
    }
    ASSERT_EQ(log()->local_log_start_offset(), 300);
    ASSERT_EQ(log()->log_start_offset(), 0);
  }

  p::FetchRequestData FetchOne(int64_t offset, int8_t isolation = 0, int32_t max_bytes = 4096) {
    p::FetchRequestData req;
    req.isolation_level = isolation;
    req.max_bytes = 1 << 20;
    auto& t = req.topics.emplace_back();
    t.topic = "t";
    auto& part = t.partitions.emplace_back();
    part.partition = 0;
    part.fetch_offset = offset;
    part.partition_max_bytes = max_bytes;
    return req;
  }
  // The base offsets of the batches of a fetch answer.
  static std::vector<int64_t> BatchOffsets(const FetchRead& read) {
    std::vector<int64_t> out;
    const auto& pr = read.response.responses[0].partitions[0];
    if (!pr.records) return out;
    for (const auto& chunk : pr.records->chunks()) {
      EXPECT_FALSE(chunk.is_file());
      size_t at = 0;
      while (at < chunk.bytes.size()) {
        auto b = RecordBatchView::Parse(chunk.bytes.subspan(at));
        if (!b.ok()) break;
        EXPECT_TRUE(b->IsValid());
        out.push_back(b->base_offset());
        at += b->size_in_bytes();
      }
    }
    return out;
  }
  p::ListOffsetsResponseData::ListOffsetsPartitionResponse ListOffsets(int64_t timestamp,
                                                                       int16_t version) {
    p::ListOffsetsRequestData req;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    auto& part = t.partitions.emplace_back();
    part.partition_index = 0;
    part.timestamp = timestamp;
    part.current_leader_epoch = -1;
    return HandleListOffsets(ctx_, rc_, req, version).topics[0].partitions[0];
  }

  TempDir dir_;
  LocalRemoteStorage rsm_{dir_.path() + "/store"};
  std::unique_ptr<ManualScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<TieredStorage> tiered_;
  BrokerContext ctx_;
  RequestContext rc_;
};

TEST_F(TieredHandlersTest, FetchFromOffsetZeroReadsThroughTheRemoteTier) {
  TieredTopic();
  for (int8_t isolation : {0, 1}) {
    std::vector<int64_t> seen;
    int64_t offset = 0;
    while (offset < 300) {
      FetchRead read = ReadFetchWaitingForRemote(ctx_, rc_, FetchOne(offset, isolation), 12);
      const auto& pr = read.response.responses[0].partitions[0];
      ASSERT_EQ(pr.error_code, ke::kNone) << "offset " << offset;
      EXPECT_EQ(pr.log_start_offset, 0);
      EXPECT_EQ(pr.high_watermark, 300);
      if (isolation == 1) {
        ASSERT_TRUE(pr.aborted_transactions.has_value());
        EXPECT_TRUE(pr.aborted_transactions->empty());
      }
      const std::vector<int64_t> batches = BatchOffsets(read);
      ASSERT_FALSE(batches.empty()) << "offset " << offset;
      EXPECT_EQ(read.bytes, pr.records->size_bytes());
      seen.insert(seen.end(), batches.begin(), batches.end());
      offset = batches.back() + 10;
    }
    std::vector<int64_t> expected;
    for (int64_t o = 0; o < 300; o += 10) expected.push_back(o);
    EXPECT_EQ(seen, expected);
  }
  // An offset inside a batch starts with that batch.
  FetchRead mid = ReadFetchWaitingForRemote(ctx_, rc_, FetchOne(123), 12);
  EXPECT_EQ(BatchOffsets(mid).front(), 120);
  EXPECT_GE(tiered_->manager()->stats().remote_reads, 30);
}

TEST_F(TieredHandlersTest, ABadRemoteObjectIsUnknownServerErrorAndOthersStillRead) {
  TieredTopic();
  auto id = TopicIdPartition{*Uuid::Parse(logs_->FindTopic("t")->topic_id), {"t", 0}};
  auto segments = tiered_->metadata()->ListRemoteLogSegments(id);
  ASSERT_GE(segments.size(), 2u);
  ASSERT_TRUE(rsm_.TruncateObject(segments[0], RemoteObjectKind::kLog, 10).ok());
  FetchRead bad = ReadFetchWaitingForRemote(ctx_, rc_, FetchOne(0), 12);
  EXPECT_EQ(bad.response.responses[0].partitions[0].error_code, ke::kUnknownServerError);
  EXPECT_TRUE(BatchOffsets(bad).empty());
  FetchRead good = ReadFetchWaitingForRemote(ctx_, rc_, FetchOne(segments[1].start_offset), 12);
  EXPECT_EQ(good.response.responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(BatchOffsets(good).front(), segments[1].start_offset);
  // Below the log start offset is still OFFSET_OUT_OF_RANGE.
  ASSERT_TRUE(log()->UpdateLogStartOffsetFromRemoteTier(segments[1].start_offset).ok());
  FetchRead gone = ReadFetchWaitingForRemote(ctx_, rc_, FetchOne(0), 12);
  EXPECT_EQ(gone.response.responses[0].partitions[0].error_code, ke::kOffsetOutOfRange);
}

TEST_F(TieredHandlersTest, ListOffsetsSentinelsAndTimestampsOnATieredLog) {
  TieredTopic();
  auto earliest = ListOffsets(-2, 9);
  EXPECT_EQ(earliest.error_code, ke::kNone);
  EXPECT_EQ(earliest.offset, 0);
  auto local = ListOffsets(-4, 8);
  EXPECT_EQ(local.error_code, ke::kNone);
  EXPECT_EQ(local.offset, 300);
  EXPECT_EQ(ListOffsets(-4, 7).error_code, ke::kUnsupportedVersion);
  auto tiered = ListOffsets(-5, 9);
  EXPECT_EQ(tiered.error_code, ke::kNone);
  EXPECT_EQ(tiered.offset, 299);
  EXPECT_EQ(tiered.leader_epoch, 0);
  EXPECT_EQ(tiered.timestamp, -1);
  EXPECT_EQ(ListOffsets(-5, 8).error_code, ke::kUnsupportedVersion);
  auto pending = ListOffsets(-6, 11);
  EXPECT_EQ(pending.error_code, ke::kNone);
  EXPECT_EQ(pending.offset, 300);
  EXPECT_EQ(ListOffsets(-6, 10).error_code, ke::kUnsupportedVersion);
  // A timestamp that only the remote tier holds.
  auto ts = ListOffsets(kT0 + 155, 9);
  EXPECT_EQ(ts.error_code, ke::kNone);
  EXPECT_EQ(ts.offset, 155);
  EXPECT_EQ(ts.timestamp, kT0 + 155);
  // Past every record: no offset.
  EXPECT_EQ(ListOffsets(kNow, 9).offset, -1);
}

TEST_F(TieredHandlersTest, ListOffsetsOnANewTieredLogBeforeAnyCopy) {
  ASSERT_TRUE(logs_->CreateTopic("t", 1, {{"remote.storage.enable", "true"}}).ok());
  ASSERT_TRUE(log()->AppendAsLeader(ProducerBatch(0, 10, 60, kT0)).ok());
  auto tiered = ListOffsets(-5, 9);
  EXPECT_EQ(tiered.offset, -1);
  EXPECT_EQ(tiered.leader_epoch, -1);
  EXPECT_EQ(ListOffsets(-4, 8).offset, 0);
  EXPECT_EQ(ListOffsets(-6, 11).offset, 0);  // nothing tiered, all local: the log start
}

p::CreateTopicsRequestData CreateRequest(std::map<std::string, std::string> configs) {
  p::CreateTopicsRequestData req;
  auto& t = req.topics.emplace_back();
  t.name = "x";
  t.num_partitions = 1;
  t.replication_factor = 1;
  for (const auto& [k, v] : configs) {
    auto& c = t.configs.emplace_back();
    c.name = k;
    c.value = v;
  }
  return req;
}

TEST_F(TieredHandlersTest, CreateTopicsAppliesKafkasRemoteStorageRules) {
  auto compact = HandleCreateTopics(
      ctx_, rc_, CreateRequest({{"remote.storage.enable", "true"}, {"cleanup.policy", "compact"}}),
      5);
  EXPECT_EQ(compact.topics[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(compact.topics[0].error_message.value_or(""),
              HasSubstr("Remote log storage only supports topics with cleanup.policy=delete"));
  auto local = HandleCreateTopics(ctx_, rc_,
                                  CreateRequest({{"remote.storage.enable", "true"},
                                                 {"retention.ms", "1000"},
                                                 {"local.retention.ms", "2000"}}),
                                  5);
  EXPECT_EQ(local.topics[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(local.topics[0].error_message.value_or(""),
              HasSubstr("Value must not be more than retention.ms property value: 1000"));
  auto ok = HandleCreateTopics(ctx_, rc_, CreateRequest({{"remote.storage.enable", "true"}}), 5);
  EXPECT_EQ(ok.topics[0].error_code, ke::kNone);
  // Turned off without remote.log.delete.on.disable: refused.
  p::IncrementalAlterConfigsRequestData alter;
  auto& r = alter.resources.emplace_back();
  r.resource_type = 2;
  r.resource_name = "x";
  auto& c = r.configs.emplace_back();
  c.name = "remote.storage.enable";
  c.config_operation = 0;
  c.value = "false";
  auto off = HandleIncrementalAlterConfigs(ctx_, rc_, alter, 1);
  EXPECT_EQ(off.responses[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(off.responses[0].error_message.value_or(""),
              HasSubstr("It is invalid to disable remote storage without deleting remote data"));
  auto& d = alter.resources[0].configs.emplace_back();
  d.name = "remote.log.delete.on.disable";
  d.config_operation = 0;
  d.value = "true";
  EXPECT_EQ(HandleIncrementalAlterConfigs(ctx_, rc_, alter, 1).responses[0].error_code, ke::kNone);
}

TEST_F(TieredHandlersTest, WithoutTheBrokerSwitchRemoteStorageIsRefused) {
  Close();
  Open(false);
  auto resp = HandleCreateTopics(ctx_, rc_, CreateRequest({{"remote.storage.enable", "true"}}), 5);
  EXPECT_EQ(resp.topics[0].error_code, ke::kInvalidConfig);
  EXPECT_THAT(resp.topics[0].error_message.value_or(""),
              HasSubstr("Tiered Storage functionality is disabled in the broker. Topic cannot be "
                        "configured with remote log storage."));
}

}  // namespace
}  // namespace seglog
