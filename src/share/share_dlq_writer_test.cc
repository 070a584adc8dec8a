// ShareDlqWriter over a real LogManager: Kafka 4.4.0's topic checks (their order and words), the
// auto-created topic, and the DLQ records read back from the DLQ topic's log - headers, key and
// value (copied or not), timestamps, the partition, batches bounded by max.message.bytes.
#include "share/share_dlq_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

constexpr int64_t kT0 = 1794024676000;
constexpr int64_t kNow = 1794024999000;

std::string Text(const NullableBytes& b) {
  if (!b) return "<null>";
  return std::string(reinterpret_cast<const char*>(b->data()), b->size());
}

// One DLQ record as read back: its timestamp, key, value and headers in order.
struct ReadRecord {
  int64_t offset = 0;
  int64_t timestamp = 0;
  std::string key;
  std::string value;
  std::vector<std::pair<std::string, std::string>> headers;
};

class ShareDlqWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::map<std::string, std::string> props;
    props["log.dirs"] = dir_.path();
    std::vector<std::string> errors;
    LogManagerConfig::Parse(
        props,
        [](const std::string&, const std::string&) -> std::optional<Status> {
          return std::nullopt;
        },
        &config_, &errors);
    ASSERT_TRUE(config_.Finish(errors).ok());
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto m = LogManager::Open(config_, scheduler_.get(), {});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    logs_ = std::move(m).value();
    Status data = logs_->CreateTopic("data", 3);
    ASSERT_TRUE(data.ok()) << data.ToString();
    auto id = Uuid::Parse(logs_->FindTopicIdentity("data")->topic_id);
    ASSERT_TRUE(id.ok());
    topic_id_ = *id;
    // Partition 2 of "data": records 0-4, keys k-000000.., values "vvv".
    auto log = logs_->GetLog({"data", 2});
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->AppendAsLeader(testing::ProducerBatch(0, 5, 3, kT0)).ok());
  }
  void TearDown() override {
    writer_.reset();
    if (logs_) {
      EXPECT_TRUE(logs_->Shutdown().ok());
    }
    logs_.reset();
    scheduler_.reset();
  }

  void MakeWriter(bool auto_create = false, std::string prefix = "dlq.") {
    ShareDlqWriter::Options o;
    o.logs = logs_.get();
    o.group_config = [this](const std::string& group) {
      ShareDlqGroupConfig c;
      if (group != "g1") return c;
      c = group_;
      return c;
    };
    o.topic_prefix = std::move(prefix);
    o.auto_create_topics = auto_create;
    o.default_partitions = 2;
    o.on_appended = [this](const TopicPartition& tp) { appended_.push_back(tp); };
    o.on_done = [this](const SharePartitionKey&, const DlqArchive& a) { done_.push_back(a); };
    o.clock = [] { return kNow; };
    writer_ = std::make_unique<ShareDlqWriter>(std::move(o));
  }

  SharePartitionKey Key(const std::string& group = "g1") { return {group, topic_id_, 2}; }

  std::vector<ReadRecord> ReadAll(const std::string& topic, int32_t partition,
                                  int* batches = nullptr) {
    std::vector<ReadRecord> out;
    auto log = logs_->GetLog({topic, partition});
    EXPECT_TRUE(log.ok());
    if (!log.ok()) return out;
    int n = 0;
    Status s = testing::ForEachBatch(log->get(), [&](const RecordBatchView& batch, Bytes) {
      ++n;
      EXPECT_EQ(batch.compression().value(), CompressionType::kNone);
      EXPECT_EQ(batch.timestamp_type(), TimestampType::kCreateTime);
      EXPECT_EQ(batch.producer_id(), -1);
      RecordIterator it(batch);
      while (it.Next()) {
        const Record& r = it.record();
        ReadRecord rr{r.offset, r.timestamp, Text(r.key), Text(r.value), {}};
        for (const Header& h : r.headers) rr.headers.emplace_back(h.key, Text(h.value));
        out.push_back(std::move(rr));
      }
      EXPECT_TRUE(it.status().ok());
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (batches != nullptr) *batches = n;
    return out;
  }

  using Headers = std::vector<std::pair<std::string, std::string>>;
  static Headers Expected(int64_t offset, int count, const std::string& message) {
    return {{"__dlq.errors.topic", "data"},
            {"__dlq.errors.partition", "2"},
            {"__dlq.errors.offset", std::to_string(offset)},
            {"__dlq.errors.group", "g1"},
            {"__dlq.errors.delivery.count", std::to_string(count)},
            {"__dlq.errors.message", message}};
  }

  testing::TempDir dir_;
  LogManagerConfig config_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  Uuid topic_id_;
  ShareDlqGroupConfig group_{true, "dlq.g1", false};
  std::unique_ptr<ShareDlqWriter> writer_;
  std::vector<TopicPartition> appended_;
  std::vector<DlqArchive> done_;
};

TEST_F(ShareDlqWriterTest, HeadersOnlyRecordsInAnExistingEnabledTopic) {
  ASSERT_TRUE(
      logs_->CreateTopic("dlq.g1", 1, {{"errors.deadletterqueue.group.enable", "true"}}).ok());
  MakeWriter();
  ASSERT_TRUE(writer_->Write(Key(), {1, 2, 1, DlqCause::kClientReject}).ok());
  ASSERT_TRUE(writer_->Write(Key(), {4, 4, 5, DlqCause::kDeliveryCountExceeded}).ok());
  std::vector<ReadRecord> got = ReadAll("dlq.g1", 0);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].headers, Expected(1, 1, "Offset rejected by client."));
  EXPECT_EQ(got[1].headers, Expected(2, 1, "Offset rejected by client."));
  EXPECT_EQ(got[2].headers, Expected(4, 5, "Offset delivery count exceeded the threshold."));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].offset, static_cast<int64_t>(i));
    EXPECT_EQ(got[i].key, "<null>");
    EXPECT_EQ(got[i].value, "<null>");
    EXPECT_EQ(got[i].timestamp, kNow);
  }
  EXPECT_EQ(writer_->records_written(), 3);
  EXPECT_EQ(appended_.size(), 2u);
}

TEST_F(ShareDlqWriterTest, CopiedKeyAndValueNeverTheSourceHeaders) {
  ASSERT_TRUE(
      logs_->CreateTopic("dlq.g1", 1, {{"errors.deadletterqueue.group.enable", "true"}}).ok());
  group_.copy_record = true;
  MakeWriter();
  ASSERT_TRUE(writer_->Write(Key(), {3, 6, 2, DlqCause::kClientReject}).ok());
  std::vector<ReadRecord> got = ReadAll("dlq.g1", 0);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].key, "k-000003");
  EXPECT_EQ(got[0].value, "vvv");
  EXPECT_EQ(got[1].key, "k-000004");
  // Offsets 5 and 6 are not in the log: headers only.
  EXPECT_EQ(got[2].key, "<null>");
  EXPECT_EQ(got[3].value, "<null>");
  EXPECT_EQ(got[3].headers, Expected(6, 2, "Offset rejected by client."));
}

TEST_F(ShareDlqWriterTest, TopicChecksInKafkasOrderAndWords) {
  MakeWriter();
  // Missing, auto-create off.
  Status s = writer_->Write(Key(), {0, 0, 1, DlqCause::kClientReject});
  EXPECT_EQ(s.message(),
            "DLQ topic does not exist and auto create is disabled on cluster for share group: "
            "g1, topic: dlq.g1.");
  EXPECT_FALSE(logs_->FindTopic("dlq.g1").ok());
  // Exists without errors.deadletterqueue.group.enable.
  ASSERT_TRUE(logs_->CreateTopic("dlq.g1", 1).ok());
  s = writer_->Write(Key(), {0, 0, 1, DlqCause::kClientReject});
  EXPECT_EQ(s.message(),
            "DLQ is not enabled on configured DLQ topic for share group: g1, topic: dlq.g1.");
  // The prefix, checked after the topic.
  ASSERT_TRUE(
      logs_->CreateTopic("other", 1, {{"errors.deadletterqueue.group.enable", "true"}}).ok());
  group_.topic_name = "other";
  s = writer_->Write(Key(), {0, 0, 1, DlqCause::kClientReject});
  EXPECT_EQ(s.message(),
            "Configured DLQ topic name does not comply with the DLQ topic prefix in share group: "
            "g1, topic: other, prefix: dlq..");
  group_.topic_name = "__dlq";
  s = writer_->Write(Key(), {0, 0, 1, DlqCause::kClientReject});
  EXPECT_EQ(s.message(),
            "Configured DLQ topic name in share group: g1 cannot start with __, topic: __dlq.");
  EXPECT_TRUE(ReadAll("dlq.g1", 0).empty());
  EXPECT_TRUE(ReadAll("other", 0).empty());
  EXPECT_EQ(writer_->records_written(), 0);
}

// A refused topic writes nothing, and the end of the write is reported all the same (Kafka
// archives the records regardless).
TEST_F(ShareDlqWriterTest, RefusedWriteIsReportedDone) {
  MakeWriter();
  writer_->Enqueue(Key(), {{0, 0, 1, DlqCause::kClientReject}});
  writer_->Drain();
  EXPECT_EQ(done_, (std::vector<DlqArchive>{{0, 0, 1, DlqCause::kClientReject}}));
  EXPECT_EQ(writer_->records_written(), 0);
  EXPECT_TRUE(writer_->EnabledFor("g1"));
  EXPECT_FALSE(writer_->EnabledFor("g2"));
}

TEST_F(ShareDlqWriterTest, NoDlqForTheGroupWritesNothing) {
  ASSERT_TRUE(
      logs_->CreateTopic("dlq.g1", 1, {{"errors.deadletterqueue.group.enable", "true"}}).ok());
  MakeWriter();
  EXPECT_TRUE(writer_->Write(Key("g2"), {0, 0, 1, DlqCause::kClientReject}).ok());
  group_.enabled = false;  // share.version below 2
  EXPECT_TRUE(writer_->Write(Key(), {0, 0, 1, DlqCause::kClientReject}).ok());
  EXPECT_TRUE(ReadAll("dlq.g1", 0).empty());
}

TEST_F(ShareDlqWriterTest, AutoCreatedTopicAndPartitionModulo) {
  MakeWriter(/*auto_create=*/true, /*prefix=*/"");
  ASSERT_TRUE(writer_->Write(Key(), {0, 0, 1, DlqCause::kClientReject}).ok());
  Result<TopicMetadata> created = logs_->FindTopic("dlq.g1");
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->partitions, 2);
  EXPECT_EQ(created->configs.at("errors.deadletterqueue.group.enable"), "true");
  EXPECT_EQ(created->configs.at("message.timestamp.type"), "CreateTime");
  // Source partition 2 of a 2-partition DLQ topic: partition 0.
  EXPECT_EQ(ReadAll("dlq.g1", 0).size(), 1u);
  EXPECT_TRUE(ReadAll("dlq.g1", 1).empty());
  ASSERT_EQ(appended_.size(), 1u);
  EXPECT_EQ(appended_[0], (TopicPartition{"dlq.g1", 0}));
}

TEST_F(ShareDlqWriterTest, BatchesBoundedByMaxMessageBytes) {
  ASSERT_TRUE(logs_
                  ->CreateTopic("dlq.g1", 1,
                                {{"errors.deadletterqueue.group.enable", "true"},
                                 {"max.message.bytes", "400"}})
                  .ok());
  MakeWriter();
  ASSERT_TRUE(writer_->Write(Key(), {0, 9, 1, DlqCause::kClientReject}).ok());
  int batches = 0;
  std::vector<ReadRecord> got = ReadAll("dlq.g1", 0, &batches);
  ASSERT_EQ(got.size(), 10u);
  EXPECT_GT(batches, 1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i].headers[2].second, std::to_string(i));
}

TEST_F(ShareDlqWriterTest, WorkerThreadWritesWhatIsQueued) {
  ASSERT_TRUE(
      logs_->CreateTopic("dlq.g1", 1, {{"errors.deadletterqueue.group.enable", "true"}}).ok());
  MakeWriter();
  writer_->Start();
  writer_->Enqueue(Key(), {{0, 1, 1, DlqCause::kClientReject}});
  writer_->Enqueue(Key(), {{3, 3, 5, DlqCause::kDeliveryCountExceeded}});
  writer_->Stop();  // writes the queue first
  std::vector<ReadRecord> got = ReadAll("dlq.g1", 0);
  ASSERT_EQ(got.size(), 3u);
  // Each write's end is reported (the records then become ARCHIVED).
  EXPECT_EQ(done_, (std::vector<DlqArchive>{{0, 1, 1, DlqCause::kClientReject},
                                            {3, 3, 5, DlqCause::kDeliveryCountExceeded}}));
  EXPECT_EQ(got[2].headers, Expected(3, 5, "Offset delivery count exceeded the threshold."));
}

}  // namespace
}  // namespace seglog
