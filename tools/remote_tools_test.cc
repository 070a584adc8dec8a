// The tools over a tiered topic: `seglog consume` reading through to the remote tier, and
// `seglog check --remote` verifying the remote segments' objects. A broker's LogManager and
// TieredStorage (over LocalRemoteStorage) tier a topic of 300 records; the tools then open the
// same directory read-only, with the same store, while the "broker" still runs.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file_names.h"
#include "node/broker_config.h"
#include "remote/testing/local_remote_storage.h"
#include "remote/tiered_storage.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"
#include "tools/check.h"
#include "tools/consume.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kNow = 1'800'000'000'000;
constexpr int64_t kT0 = kNow - 1'000'000;

std::string Key(int n) { return fmt::format("k-{:06d}", n); }
std::string Value(int n) { return fmt::format("value-{:05d}-", n) + std::string(48, 'x'); }

// 10 records from `first`, keys and values numbered.
std::vector<uint8_t> NumberedBatch(int first) {
  BatchOptions o;
  RecordBatchBuilder b(o);
  for (int n = first; n < first + 10; ++n) {
    const std::string k = Key(n), v = Value(n);
    EXPECT_TRUE(b.Append(kT0 + n, Bytes(reinterpret_cast<const uint8_t*>(k.data()), k.size()),
                         Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()))
                    .ok());
  }
  return *b.Build();
}

// A store whose ranged .log fetches are not checked against the whole object's CRC-32C, as an
// S3 range GET is not: the tools' own checks of the bytes are then what finds damage.
class RangeOnlyStorage final : public RemoteStorageManager {
 public:
  explicit RangeOnlyStorage(LocalRemoteStorage* local) : local_(local) {}
  Result<std::optional<std::vector<uint8_t>>> CopyLogSegmentData(const RemoteLogSegmentMetadata& m,
                                                                 const LogSegmentData& d) override {
    return local_->CopyLogSegmentData(m, d);
  }
  Result<std::vector<uint8_t>> FetchLogSegment(const RemoteLogSegmentMetadata& m, int64_t position,
                                               int64_t max_bytes) override {
    const std::string path = local_->ObjectPath(m, RemoteObjectKind::kLog);
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::NotFound(path + " is missing");
    std::vector<uint8_t> all((std::istreambuf_iterator<char>(in)), {});
    if (position > static_cast<int64_t>(all.size())) return std::vector<uint8_t>();
    const int64_t n = std::min<int64_t>(max_bytes, static_cast<int64_t>(all.size()) - position);
    return std::vector<uint8_t>(all.begin() + position, all.begin() + position + n);
  }
  Result<std::vector<uint8_t>> FetchIndex(const RemoteLogSegmentMetadata& m,
                                          IndexType type) override {
    return local_->FetchIndex(m, type);
  }
  Status DeleteLogSegmentData(const RemoteLogSegmentMetadata& m) override {
    return local_->DeleteLogSegmentData(m);
  }

 private:
  LocalRemoteStorage* local_;
};

class RemoteToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    properties_ = dir_.path() + "/server.properties";
    std::ofstream(properties_) << "log.dirs=" << logs_dir_ << "\n"
                               << "remote.log.storage.system.enable=true\n"
                               << "rlmm.config.remote.log.metadata.topic.num.partitions=2\n";
    auto config = BrokerConfig::Load(properties_);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = NewManualScheduler(kNow);
    auto logs = LogManager::Open(*config, scheduler_.get());
    ASSERT_TRUE(logs.ok()) << logs.status().ToString();
    logs_ = std::move(*logs);
    auto t = TieredStorage::OpenWith(config->remote, logs_.get(), &rsm_, /*start_tasks=*/false);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tiered_ = std::move(*t);
    // 30 batches of 10 records, all copied and trimmed locally but the empty active segment.
    ASSERT_TRUE(logs_
                    ->CreateTopic("t", 1,
                                  {{"remote.storage.enable", "true"},
                                   {"internal.segment.bytes", "2000"},
                                   {"local.retention.ms", "0"},
                                   {"retention.ms", "-1"}})
                    .ok());
    auto log = *logs_->GetLog({"t", 0});
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(log->AppendAsLeader(NumberedBatch(i * 10)).ok());
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(tiered_->manager()->RunOnce().ok());
      ASSERT_TRUE(logs_->RunTask("retention").ok());
    }
    ASSERT_EQ(log->local_log_start_offset(), 300);
    ASSERT_EQ(log->log_start_offset(), 0);
    id_ = TopicIdPartition{*Uuid::Parse(logs_->FindTopic("t")->topic_id), {"t", 0}};
    segments_ = tiered_->metadata()->ListRemoteLogSegments(id_);
    ASSERT_EQ(segments_.size(), 15u);
  }
  void TearDown() override {
    if (tiered_) tiered_->Shutdown();
    tiered_.reset();
    if (logs_) (void)logs_->Shutdown();
  }

  // The broker's index cache directory, listed.
  std::vector<std::string> BrokerCacheFiles() const {
    std::vector<std::string> out;
    const std::string dir = logs_dir_ + "/" + std::string(kRemoteIndexCacheDirName);
    if (!std::filesystem::exists(dir)) return out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  }

  ConsumeOptions Consuming(const std::string& offset) {
    ConsumeOptions c;
    c.topic = "t";
    c.offset = offset;
    c.server_config = properties_;
    c.rsm_for_tests = &rsm_;
    return c;
  }
  std::pair<int64_t, std::string> CheckRemote(RemoteStorageManager* rsm = nullptr) {
    CheckOptions o;
    o.log_dir = logs_dir_;
    o.remote = true;
    o.server_config = properties_;
    o.rsm_for_tests = rsm != nullptr ? rsm : &rsm_;
    std::ostringstream out;
    auto n = CheckLogDir(o, out);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return {n.ok() ? *n : -1, out.str()};
  }
  // The report's line for `segment`, and the lines indented under it.
  static std::string SegmentReport(const std::string& text, const RemoteLogSegmentMetadata& s) {
    const std::string name =
        fmt::format("  remote segment {} at offset {}", s.segment_id.id.ToString(), s.start_offset);
    const size_t at = text.find(name);
    if (at == std::string::npos) return "";
    size_t end = text.find('\n', at);
    while (end != std::string::npos && text.compare(end + 1, 4, "    ") == 0) {
      end = text.find('\n', end + 1);
    }
    return text.substr(at, end - at);
  }

  testing::TempDir dir_;
  const std::string logs_dir_ = dir_.path() + "/logs";
  std::string properties_;
  LocalRemoteStorage rsm_{dir_.path() + "/store"};
  std::unique_ptr<ManualScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<TieredStorage> tiered_;
  TopicIdPartition id_;
  std::vector<RemoteLogSegmentMetadata> segments_;
};

TEST_F(RemoteToolsTest, ConsumeFromEarliestReadsEveryRecordAcrossTheTiers) {
  // Records past the remote tier, in the local segments only.
  auto log = *logs_->GetLog({"t", 0});
  for (int i = 30; i < 33; ++i) ASSERT_TRUE(log->AppendAsLeader(NumberedBatch(i * 10)).ok());
  const std::vector<std::string> cache_before = BrokerCacheFiles();
  std::ostringstream out;
  auto n = Consume(Consuming("earliest"), out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 330);
  std::string expected;
  for (int i = 0; i < 330; ++i) expected += fmt::format("Offset:{}\t{}\t{}\n", i, Key(i), Value(i));
  EXPECT_EQ(out.str(), expected);
  EXPECT_GE(rsm_.counts().log_fetches, 15);  // every remote segment was read
  // The tool's index cache was a temporary one: the broker's is as it was.
  EXPECT_EQ(BrokerCacheFiles(), cache_before);

  // An explicit offset only the remote tier holds is in range (no reset), mid-batch too.
  out.str("");
  ConsumeOptions from = Consuming("155");
  from.reset = "none";
  from.max_records = 3;
  n = Consume(from, out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(out.str(),
            fmt::format("Offset:155\t{}\t{}\nOffset:156\t{}\t{}\nOffset:157\t{}\t{}\n", Key(155),
                        Value(155), Key(156), Value(156), Key(157), Value(157)));
  // JSON across the boundary between the tiers.
  out.str("");
  ConsumeOptions json = Consuming("298");
  json.format = "json";
  json.max_records = 4;
  n = Consume(json, out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 4);
  EXPECT_THAT(out.str(), HasSubstr("\"offset\":299"));
  EXPECT_THAT(out.str(), HasSubstr("\"offset\":300"));
  EXPECT_THAT(out.str(), HasSubstr(Value(301)));
}

TEST_F(RemoteToolsTest, ConsumeNamesTheRemoteObjectThatFails) {
  ASSERT_TRUE(rsm_.DeleteObject(segments_[3], RemoteObjectKind::kLog).ok());
  std::ostringstream out;
  auto n = Consume(Consuming("earliest"), out);
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(n.status().IsNotFound()) << n.status().ToString();
  EXPECT_THAT(n.status().ToString(), HasSubstr("reading offset 60 of t-0 from the remote tier"));
  EXPECT_THAT(n.status().ToString(),
              HasSubstr(rsm_.ObjectPath(segments_[3], RemoteObjectKind::kLog)));
  // Everything before it was printed.
  EXPECT_THAT(out.str(), HasSubstr("Offset:59\t"));
  EXPECT_THAT(out.str(), Not(HasSubstr("Offset:60\t")));
}

TEST_F(RemoteToolsTest, CheckRemoteReportsEverySegmentOkOnACleanStore) {
  const std::vector<std::string> cache_before = BrokerCacheFiles();
  auto [problems, text] = CheckRemote();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("t-0 (remote, topic id {}): 15 segment(s) "
                                          "COPY_SEGMENT_FINISHED, offsets 0 to 299\n",
                                          id_.topic_id.ToString())));
  for (const RemoteLogSegmentMetadata& s : segments_) {
    EXPECT_THAT(SegmentReport(text, s),
                HasSubstr(fmt::format("(offsets {} to {}, {} bytes): OK (2 batch(es))",
                                      s.start_offset, s.end_offset, s.segment_size_in_bytes)));
  }
  EXPECT_THAT(text, HasSubstr("checked 15 remote segment(s) of 1 tiered partition(s): 0 "
                              "problem(s), 0 orphan(s)\n"));
  EXPECT_EQ(BrokerCacheFiles(), cache_before);
}

TEST_F(RemoteToolsTest, CheckRemoteNamesTheSegmentObjectAndPositionOfEachProblem) {
  // A truncated .log, a deleted offset index, a flipped bit in a .log and in a time index.
  ASSERT_TRUE(rsm_.TruncateObject(segments_[1], RemoteObjectKind::kLog, 100).ok());
  ASSERT_TRUE(rsm_.DeleteObject(segments_[4], RemoteObjectKind::kOffsetIndex).ok());
  ASSERT_TRUE(rsm_.CorruptObject(segments_[7], RemoteObjectKind::kLog, 500).ok());
  ASSERT_TRUE(rsm_.CorruptObject(segments_[9], RemoteObjectKind::kTimeIndex, 3).ok());
  auto [problems, text] = CheckRemote();
  EXPECT_EQ(problems, 4) << text;
  const std::string truncated = SegmentReport(text, segments_[1]);
  EXPECT_THAT(truncated, HasSubstr(": 1 problem(s)\n    .log at position 0: Corruption: "));
  EXPECT_THAT(truncated, HasSubstr(rsm_.ObjectPath(segments_[1], RemoteObjectKind::kLog) +
                                   ": 100 bytes, the copy recorded " +
                                   std::to_string(segments_[1].segment_size_in_bytes)));
  const std::string missing = SegmentReport(text, segments_[4]);
  EXPECT_THAT(missing, HasSubstr("    .index: NotFound: "));
  EXPECT_THAT(missing, HasSubstr(rsm_.ObjectPath(segments_[4], RemoteObjectKind::kOffsetIndex) +
                                 " is missing"));
  const std::string flipped = SegmentReport(text, segments_[7]);
  EXPECT_THAT(flipped, HasSubstr("    .log at position 0: Corruption: "));
  EXPECT_THAT(flipped,
              HasSubstr(rsm_.ObjectPath(segments_[7], RemoteObjectKind::kLog) + ": CRC-32C 0x"));
  EXPECT_THAT(SegmentReport(text, segments_[9]), HasSubstr("    .timeindex: Corruption: "));
  EXPECT_THAT(SegmentReport(text, segments_[0]), HasSubstr(": OK (2 batch(es))"));
  EXPECT_THAT(text, HasSubstr("checked 15 remote segment(s) of 1 tiered partition(s): 4 "
                              "problem(s), 0 orphan(s)\n"));
}

// With a store that hands out ranges unchecked (S3), the tool's walk of the .log finds the batch.
TEST_F(RemoteToolsTest, CheckRemoteFindsTheBadBatchInRangesTheStoreDoesNotCheck) {
  RangeOnlyStorage ranges(&rsm_);
  const RemoteLogSegmentMetadata& s = segments_[7];
  std::ifstream in(rsm_.ObjectPath(s, RemoteObjectKind::kLog), std::ios::binary);
  std::vector<uint8_t> log((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(log.size(), 12u);
  const int64_t second = 12 + int64_t{static_cast<int32_t>((log[8] << 24) | (log[9] << 16) |
                                                           (log[10] << 8) | log[11])};
  ASSERT_TRUE(rsm_.CorruptObject(s, RemoteObjectKind::kLog, second + 100).ok());
  ASSERT_TRUE(rsm_.TruncateObject(segments_[2], RemoteObjectKind::kLog, second + 10).ok());
  auto [problems, text] = CheckRemote(&ranges);
  const std::string flipped = SegmentReport(text, s);
  EXPECT_THAT(flipped, HasSubstr(fmt::format(
                           "    .log: batch at position {} (offset {}): Corruption: ", second,
                           s.start_offset + 10)));
  EXPECT_THAT(flipped, HasSubstr(fmt::format("    .log: CRC-32C 0x")));
  EXPECT_THAT(flipped, HasSubstr(fmt::format(", the copy recorded 0x")));
  const std::string truncated = SegmentReport(text, segments_[2]);
  EXPECT_THAT(truncated, HasSubstr(fmt::format(".log: truncated: no byte at position {}, the copy "
                                               "recorded {} bytes",
                                               second + 10, segments_[2].segment_size_in_bytes)));
  EXPECT_EQ(problems, 3) << text;
}

TEST_F(RemoteToolsTest, CheckRemoteListsOrphansWithoutCountingThem) {
  RemoteLogSegmentMetadata orphan;
  orphan.segment_id = {id_, Uuid::Random()};
  orphan.start_offset = 300;
  orphan.end_offset = 309;
  orphan.segment_leader_epochs = {{0, 300}};
  orphan.segment_size_in_bytes = 1000;
  orphan.state = RemoteLogSegmentState::kCopySegmentStarted;
  ASSERT_TRUE(tiered_->metadata()->AddRemoteLogSegmentMetadata(orphan).ok());
  RemoteLogSegmentMetadata deleting = segments_[0];
  deleting.state = RemoteLogSegmentState::kDeleteSegmentStarted;
  ASSERT_TRUE(tiered_->metadata()->UpdateRemoteLogSegmentMetadata(deleting).ok());
  auto [problems, text] = CheckRemote();
  EXPECT_EQ(problems, 0) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("  orphan: remote segment {} at offset 300 (offsets 300 "
                                          "to 309, 1000 bytes): COPY_SEGMENT_STARTED",
                                          orphan.segment_id.id.ToString())));
  EXPECT_THAT(text, HasSubstr(fmt::format("  orphan: remote segment {} at offset 0 (offsets 0 to "
                                          "19, {} bytes): DELETE_SEGMENT_STARTED",
                                          segments_[0].segment_id.id.ToString(),
                                          segments_[0].segment_size_in_bytes)));
  EXPECT_THAT(text, HasSubstr("checked 14 remote segment(s) of 1 tiered partition(s): 0 "
                              "problem(s), 2 orphan(s)\n"));
}

TEST_F(RemoteToolsTest, CheckRemoteNeedsTheBrokerSwitch) {
  CheckOptions o;
  o.log_dir = logs_dir_;
  o.remote = true;
  o.rsm_for_tests = &rsm_;
  std::ostringstream out;
  auto n = CheckLogDir(o, out);
  ASSERT_FALSE(n.ok());
  EXPECT_THAT(n.status().ToString(), HasSubstr("remote.log.storage.system.enable"));
}

}  // namespace
}  // namespace seglog
