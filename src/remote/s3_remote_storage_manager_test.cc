// S3RemoteStorageManager against Versity S3 Gateway and moto's server: a real rolled segment
// (written by seglog's Log) copied, fetched back byte for byte, and every bad object -
// overwritten, truncated, missing - reported with its bucket/key (and position).
#include "remote/s3_remote_storage_manager.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "remote/testing/fault_proxy.h"
#include "remote/testing/s3_test_server.h"
#include "seglog/log.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::ProducerBatch;
using testing::ReadFileBytes;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

// A rolled segment of `batches` batches of 100 records, written by a Log in `dir`.
LogSegmentData MakeSegment(const std::string& dir, int batches, int64_t* end_offset) {
  LogConfig config;
  Result<std::unique_ptr<Log>> log = Log::Open(dir, config);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  for (int i = 0; i < batches; ++i) {
    Result<LogAppendInfo> a = (*log)->AppendAsLeader(ProducerBatch(i * 100, 100, 100, kT0 + i), 3);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
  }
  EXPECT_TRUE((*log)->Roll().ok());
  log->reset();
  *end_offset = batches * 100 - 1;
  LogSegmentData d;
  d.log_segment = dir + "/00000000000000000000.log";
  d.offset_index = dir + "/00000000000000000000.index";
  d.time_index = dir + "/00000000000000000000.timeindex";
  d.producer_snapshot = fmt::format("{}/{:020d}.snapshot", dir, *end_offset + 1);
  if (!std::filesystem::exists(d.producer_snapshot)) {
    // Write a stand-in when the roll kept none (the object layer does not read it).
    std::FILE* f = std::fopen(d.producer_snapshot.c_str(), "wb");
    std::fputs("snapshot", f);
    std::fclose(f);
  }
  d.leader_epoch_index = ReadFileBytes(dir + "/leader-epoch-checkpoint");
  return d;
}

RemoteLogSegmentMetadata Metadata(int64_t end_offset) {
  RemoteLogSegmentMetadata m;
  m.segment_id.partition.topic_id = Uuid::Random();
  m.segment_id.partition.tp = TopicPartition{"orders", 3};
  m.segment_id.id = Uuid::Random();
  m.start_offset = 0;
  m.end_offset = end_offset;
  m.segment_leader_epochs = {{3, 0}};
  return m;
}

// Value-parameterised over the server: S3RemoteStorageManagerTest's tests run against
// versitygw and moto; S3RemoteStorageManagerVersitygwTest's (a wrong secret, the transfer bound
// through FaultProxy) against versitygw only.
class S3RemoteStorageManagerTest : public ::testing::TestWithParam<S3TestServerKind> {
 protected:
  static void SetUpTestSuite() { servers_ = new S3TestServers; }
  static void TearDownTestSuite() {
    delete servers_;
    servers_ = nullptr;
  }
  void SetUp() override {
    Result<S3TestServer*> server = servers_->Get(GetParam());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = *server;
    bucket_ = "tiered-" + std::to_string(++counter_);
    rsm_ = Open(server_->endpoint_url(), {});
    ASSERT_NE(rsm_, nullptr);
    Status created = rsm_->client()->CreateBucket(bucket_);
    ASSERT_TRUE(created.ok()) << created.ToString();
  }

  std::map<std::string, std::string> Props(const std::string& endpoint) const {
    return {{"rsm.config.storage.s3.endpoint.url", endpoint},
            {"rsm.config.storage.s3.bucket.name", bucket_},
            {"rsm.config.storage.s3.region", server_->region()},
            {"rsm.config.storage.aws.access.key.id", server_->access_key()},
            {"rsm.config.storage.aws.secret.access.key", server_->secret_key()},
            {"rsm.config.key.prefix", "tiered/"},
            {"rsm.config.storage.s3.multipart.upload.part.size", "5242880"},
            {"rsm.config.storage.s3.retry.backoff.ms", "10"}};
  }
  std::unique_ptr<S3RemoteStorageManager> Open(const std::string& endpoint,
                                               const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> p = Props(endpoint);
    for (const auto& [k, v] : extra) p[k] = v;
    Result<std::unique_ptr<S3RemoteStorageManager>> r = S3RemoteStorageManager::FromProperties(p);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : nullptr;
  }
  // Copies a fresh segment; `metadata` gets the returned custom metadata.
  void CopySegment(int batches, bool with_txn_index, LogSegmentData* data,
                   RemoteLogSegmentMetadata* metadata) {
    int64_t end = 0;
    *data = MakeSegment(dir_.path(), batches, &end);
    if (with_txn_index) {
      data->transaction_index = dir_.path() + "/00000000000000000000.txnindex";
      std::vector<uint8_t> entry(34, 7);  // one .txnindex entry's size; content irrelevant here
      std::FILE* f = std::fopen(data->transaction_index->c_str(), "wb");
      std::fwrite(entry.data(), 1, entry.size(), f);
      std::fclose(f);
    }
    *metadata = Metadata(end);
    Result<std::optional<std::vector<uint8_t>>> custom = rsm_->CopyLogSegmentData(*metadata, *data);
    ASSERT_TRUE(custom.ok()) << custom.status().ToString();
    ASSERT_TRUE(custom->has_value());
    metadata->custom_metadata = **custom;
  }

  static S3TestServers* servers_;
  static int counter_;
  S3TestServer* server_ = nullptr;
  std::string bucket_;
  TempDir dir_;
  std::unique_ptr<S3RemoteStorageManager> rsm_;
};

S3TestServers* S3RemoteStorageManagerTest::servers_ = nullptr;
int S3RemoteStorageManagerTest::counter_ = 0;

std::string ServerName(const ::testing::TestParamInfo<S3TestServerKind>& info) {
  return S3TestServerName(info.param);
}

INSTANTIATE_TEST_SUITE_P(Servers, S3RemoteStorageManagerTest,
                         ::testing::Values(S3TestServerKind::kVersityGateway,
                                           S3TestServerKind::kMoto),
                         ServerName);

class S3RemoteStorageManagerVersitygwTest : public S3RemoteStorageManagerTest {};

INSTANTIATE_TEST_SUITE_P(Servers, S3RemoteStorageManagerVersitygwTest,
                         ::testing::Values(S3TestServerKind::kVersityGateway), ServerName);

TEST_P(S3RemoteStorageManagerTest, CopiesARealSegmentAndFetchesItBack) {
  LogSegmentData data;
  RemoteLogSegmentMetadata m;
  ASSERT_NO_FATAL_FAILURE(CopySegment(600, /*with_txn_index=*/true, &data, &m));
  const std::vector<uint8_t> log = ReadFileBytes(data.log_segment);
  ASSERT_GT(log.size(), 5u * 1024 * 1024);  // the .log went up in parts

  // The objects, named as documented, with the sizes the custom metadata records.
  Result<SegmentObjects> objects = SegmentObjects::Decode(*m.custom_metadata);
  ASSERT_TRUE(objects.ok());
  EXPECT_EQ(objects->objects.size(), 6u);
  const std::string base =
      fmt::format("tiered/orders-{}/3/00000000000000000000-{}.",
                  m.segment_id.partition.topic_id.ToString(), m.segment_id.id.ToString());
  Result<std::vector<S3ListedObject>> listed = rsm_->client()->ListObjects(bucket_, "tiered/");
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> keys;
  for (const auto& o : *listed) keys.push_back(o.key);
  EXPECT_EQ(keys, (std::vector<std::string>{base + "index", base + "leader-epoch-checkpoint",
                                            base + "log", base + "snapshot", base + "timeindex",
                                            base + "txnindex"}));
  for (const auto& o : *listed) {
    if (o.key == base + "log") {
      EXPECT_EQ(o.size, static_cast<int64_t>(log.size()));
    }
  }

  // Every index back byte for byte.
  const std::pair<IndexType, std::vector<uint8_t>> indexes[] = {
      {IndexType::kOffset, ReadFileBytes(data.offset_index)},
      {IndexType::kTimestamp, ReadFileBytes(data.time_index)},
      {IndexType::kProducerSnapshot, ReadFileBytes(data.producer_snapshot)},
      {IndexType::kTransaction, ReadFileBytes(*data.transaction_index)},
      {IndexType::kLeaderEpoch, data.leader_epoch_index}};
  for (const auto& [type, want] : indexes) {
    Result<std::vector<uint8_t>> got = rsm_->FetchIndex(m, type);
    ASSERT_TRUE(got.ok()) << IndexTypeName(type) << ": " << got.status().ToString();
    EXPECT_TRUE(*got == want) << IndexTypeName(type);
  }
  EXPECT_FALSE(data.leader_epoch_index.empty());

  // Ranges of the .log, including across a part boundary and at its end.
  for (const auto& [pos, len] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1000}, {5242870, 20}, {static_cast<int64_t>(log.size()) - 10, 1000}}) {
    Result<std::vector<uint8_t>> got = rsm_->FetchLogSegment(m, pos, len);
    ASSERT_TRUE(got.ok()) << pos << ": " << got.status().ToString();
    const int64_t n = std::min<int64_t>(len, static_cast<int64_t>(log.size()) - pos);
    EXPECT_TRUE(*got == std::vector<uint8_t>(log.begin() + pos, log.begin() + pos + n)) << pos;
  }
  Result<std::vector<uint8_t>> at_end =
      rsm_->FetchLogSegment(m, static_cast<int64_t>(log.size()), 100);
  ASSERT_TRUE(at_end.ok());
  EXPECT_TRUE(at_end->empty());
  EXPECT_TRUE(
      rsm_->FetchLogSegment(m, static_cast<int64_t>(log.size()) + 1, 100).status().IsOutOfRange());
  EXPECT_TRUE(rsm_->FetchLogSegment(m, -1, 100).status().IsInvalidArgument());
}

TEST_P(S3RemoteStorageManagerTest, ASegmentWithoutTransactionIndex) {
  LogSegmentData data;
  RemoteLogSegmentMetadata m;
  ASSERT_NO_FATAL_FAILURE(CopySegment(5, /*with_txn_index=*/false, &data, &m));
  Result<SegmentObjects> objects = SegmentObjects::Decode(*m.custom_metadata);
  ASSERT_TRUE(objects.ok());
  EXPECT_EQ(objects->objects.size(), 5u);
  Result<std::vector<uint8_t>> txn = rsm_->FetchIndex(m, IndexType::kTransaction);
  ASSERT_FALSE(txn.ok());
  EXPECT_TRUE(txn.status().IsNotFound()) << txn.status().ToString();
  EXPECT_NE(txn.status().message().find("TRANSACTION"), std::string_view::npos);
  // No custom metadata: the sizes and CRCs are unknown, so nothing is trusted.
  RemoteLogSegmentMetadata bare = m;
  bare.custom_metadata.reset();
  EXPECT_EQ(rsm_->FetchIndex(bare, IndexType::kOffset).status().code(),
            Status::Code::kFailedPrecondition);
}

TEST_P(S3RemoteStorageManagerTest, OverwrittenIndexIsCorruptionNamingTheKey) {
  LogSegmentData data;
  RemoteLogSegmentMetadata m;
  ASSERT_NO_FATAL_FAILURE(CopySegment(20, false, &data, &m));
  const std::string key = rsm_->ObjectKey(m, RemoteObjectKind::kOffsetIndex);
  std::vector<uint8_t> wrong = ReadFileBytes(data.offset_index);
  ASSERT_FALSE(wrong.empty());
  wrong[wrong.size() / 2] ^= 0x01;  // same size, one bit off
  ASSERT_TRUE(rsm_->client()->PutObject(bucket_, key, wrong).ok());
  Result<std::vector<uint8_t>> r = rsm_->FetchIndex(m, IndexType::kOffset);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(bucket_ + "/" + key), std::string_view::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("CRC-32C"), std::string_view::npos);

  // A shorter one is caught by its size.
  const std::string tkey = rsm_->ObjectKey(m, RemoteObjectKind::kTimeIndex);
  ASSERT_TRUE(rsm_->client()->PutObject(bucket_, tkey, std::vector<uint8_t>(3, 0)).ok());
  Result<std::vector<uint8_t>> t = rsm_->FetchIndex(m, IndexType::kTimestamp);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().IsCorruption());
  EXPECT_NE(t.status().message().find(tkey), std::string_view::npos) << t.status().ToString();
  // The local files are untouched.
  EXPECT_NE(ReadFileBytes(data.offset_index), wrong);
}

TEST_P(S3RemoteStorageManagerTest, TruncatedLogIsCorruptionNamingObjectAndPosition) {
  LogSegmentData data;
  RemoteLogSegmentMetadata m;
  ASSERT_NO_FATAL_FAILURE(CopySegment(50, false, &data, &m));
  const std::vector<uint8_t> log = ReadFileBytes(data.log_segment);
  const std::string key = rsm_->ObjectKey(m, RemoteObjectKind::kLog);
  const int64_t half = static_cast<int64_t>(log.size()) / 2;
  ASSERT_TRUE(rsm_->client()
                  ->PutObject(bucket_, key, std::span(log.data(), static_cast<size_t>(half)))
                  .ok());
  // A fetch that runs past the cut.
  Result<std::vector<uint8_t>> across = rsm_->FetchLogSegment(m, half - 100, 1000);
  ASSERT_FALSE(across.ok());
  EXPECT_TRUE(across.status().IsCorruption()) << across.status().ToString();
  EXPECT_NE(across.status().message().find(bucket_ + "/" + key), std::string_view::npos);
  EXPECT_NE(across.status().message().find(fmt::format("position {}", half)),
            std::string_view::npos)
      << across.status().ToString();
  // A fetch wholly past it.
  Result<std::vector<uint8_t>> past = rsm_->FetchLogSegment(m, half + 10, 100);
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(past.status().IsCorruption()) << past.status().ToString();
  EXPECT_NE(past.status().message().find(fmt::format("position {}", half + 10)),
            std::string_view::npos)
      << past.status().ToString();
  // Before the cut the bytes are still good.
  Result<std::vector<uint8_t>> before = rsm_->FetchLogSegment(m, 0, 100);
  ASSERT_TRUE(before.ok());
}

TEST_P(S3RemoteStorageManagerTest, MissingObjectIsNotFoundNamingTheKey) {
  LogSegmentData data;
  RemoteLogSegmentMetadata m;
  ASSERT_NO_FATAL_FAILURE(CopySegment(5, false, &data, &m));
  const std::string key = rsm_->ObjectKey(m, RemoteObjectKind::kProducerSnapshot);
  ASSERT_TRUE(rsm_->client()->DeleteObject(bucket_, key).ok());
  Result<std::vector<uint8_t>> r = rsm_->FetchIndex(m, IndexType::kProducerSnapshot);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(key), std::string_view::npos) << r.status().ToString();
  ASSERT_TRUE(
      rsm_->client()->DeleteObject(bucket_, rsm_->ObjectKey(m, RemoteObjectKind::kLog)).ok());
  Result<std::vector<uint8_t>> l = rsm_->FetchLogSegment(m, 0, 10);
  ASSERT_FALSE(l.ok());
  EXPECT_TRUE(l.status().IsNotFound()) << l.status().ToString();
}

TEST_P(S3RemoteStorageManagerTest, DeleteTwiceIsOk) {
  LogSegmentData data;
  RemoteLogSegmentMetadata m;
  ASSERT_NO_FATAL_FAILURE(CopySegment(5, true, &data, &m));
  ASSERT_TRUE(rsm_->DeleteLogSegmentData(m).ok());
  Result<std::vector<S3ListedObject>> listed = rsm_->client()->ListObjects(bucket_, "tiered/");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
  EXPECT_TRUE(rsm_->DeleteLogSegmentData(m).ok());
  RemoteLogSegmentMetadata never = Metadata(10);  // a copy that never happened: also OK
  EXPECT_TRUE(rsm_->DeleteLogSegmentData(never).ok());
  EXPECT_TRUE(rsm_->FetchIndex(m, IndexType::kOffset).status().IsNotFound());
}

TEST_P(S3RemoteStorageManagerVersitygwTest, WrongSecretFailsTheCopyClearly) {
  auto bad =
      Open(server_->endpoint_url(), {{"rsm.config.storage.aws.secret.access.key", "wrong-secret"}});
  ASSERT_NE(bad, nullptr);
  int64_t end = 0;
  LogSegmentData data = MakeSegment(dir_.path(), 5, &end);
  const std::vector<uint8_t> before = ReadFileBytes(data.log_segment);
  Result<std::optional<std::vector<uint8_t>>> r = bad->CopyLogSegmentData(Metadata(end), data);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError());
  EXPECT_NE(r.status().message().find("SignatureDoesNotMatch"), std::string_view::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("copy of remote segment"), std::string_view::npos);
  EXPECT_EQ(bad->client()->retries(), 0);
  EXPECT_EQ(ReadFileBytes(data.log_segment), before);  // the segment stays local, untouched
}

TEST_P(S3RemoteStorageManagerVersitygwTest, CopyUploadsInParallelWithinTheBound) {
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  (*proxy)->SetDelayMs(100);
  auto limited =
      Open((*proxy)->endpoint_url(), {{"rsm.config.storage.s3.max.concurrent.transfers", "2"}});
  ASSERT_NE(limited, nullptr);
  int64_t end = 0;
  LogSegmentData data = MakeSegment(dir_.path(), 5, &end);
  Result<std::optional<std::vector<uint8_t>>> r = limited->CopyLogSegmentData(Metadata(end), data);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*proxy)->requests(), 5);  // .log .index .timeindex .snapshot .leader-epoch-checkpoint
  EXPECT_EQ((*proxy)->max_in_flight(), 2);
}

}  // namespace
}  // namespace seglog
