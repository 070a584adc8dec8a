// The broker's wait for remote reads (delayed_remote_fetch.h): Fetch frames through a Broker over
// a tiered log whose store's log fetches a test holds back, so that a read outlasts
// remote.fetch.max.wait.ms, fails, fills the reader queue or loses its client.
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <thread>

#include "base/mutex.h"
#include "base/scheduler.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_reader.h"
#include "protocol/protocol_writer.h"
#include "remote/testing/local_remote_storage.h"
#include "remote/tiered_storage.h"
#include "seglog/record_batch.h"
#include "server/broker.h"
#include "server/memory_pool.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kNow = 1'800'000'000'000;
constexpr int64_t kT0 = kNow - 1'000'000;

// A store whose .log fetches wait while the gate is closed (index fetches pass).
class GatedRemoteStorage final : public RemoteStorageManager {
 public:
  explicit GatedRemoteStorage(RemoteStorageManager* inner) : inner_(inner) {}

  Result<std::optional<std::vector<uint8_t>>> CopyLogSegmentData(
      const RemoteLogSegmentMetadata& metadata, const LogSegmentData& data) override {
    return inner_->CopyLogSegmentData(metadata, data);
  }
  Result<std::vector<uint8_t>> FetchLogSegment(const RemoteLogSegmentMetadata& metadata,
                                               int64_t position, int64_t max_bytes) override {
    {
      MutexLock l(&mu_);
      ++waiting_;
      cv_.SignalAll();
      while (closed_) cv_.Wait(&mu_);
      --waiting_;
    }
    return inner_->FetchLogSegment(metadata, position, max_bytes);
  }
  Result<std::vector<uint8_t>> FetchIndex(const RemoteLogSegmentMetadata& metadata,
                                          IndexType type) override {
    return inner_->FetchIndex(metadata, type);
  }
  Status DeleteLogSegmentData(const RemoteLogSegmentMetadata& metadata) override {
    return inner_->DeleteLogSegmentData(metadata);
  }

  void Close() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    closed_ = true;
  }
  void Open() EXCLUDES(mu_) {
    MutexLock l(&mu_);
    closed_ = false;
    cv_.SignalAll();
  }
  // Whether `n` fetches wait at the gate within 10 s.
  bool AwaitWaiting(int n) EXCLUDES(mu_) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    MutexLock l(&mu_);
    while (waiting_ < n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      cv_.WaitForMs(&mu_, 10);
    }
    return true;
  }

 private:
  RemoteStorageManager* const inner_;
  Mutex mu_;
  CondVar cv_{&mu_};
  bool closed_ GUARDED_BY(mu_) = false;
  int waiting_ GUARDED_BY(mu_) = 0;
};

struct Answer {
  Response::Action action = Response::Action::kAbandoned;
  std::vector<uint8_t> bytes;
};

// Polls `done` every 5 ms for up to 10 s.
template <typename F>
bool Eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class DelayedRemoteFetchTest : public ::testing::Test {
 protected:
  void TearDown() override {
    gate_.Open();
    if (broker_) broker_->Shutdown();
    broker_.reset();
    if (tiered_) tiered_->Shutdown();
    tiered_.reset();
    if (logs_) (void)logs_->Shutdown();
  }

  // A broker over topic "t" (30 batches of 10 records, all but the empty active segment only in
  // remote storage) and topic "local" (5 records, not tiered), with `remote` settings.
  void Start(std::map<std::string, std::string> remote_settings) {
    auto config = LogManagerConfig::FromProperties(
        {{"log.dirs", dir_.path() + "/logs"},
         {"remote.log.storage.system.enable", "true"},
         {"rlmm.config.remote.log.metadata.topic.num.partitions", "2"}});
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    scheduler_ = NewManualScheduler(kNow);
    auto logs = LogManager::Open(*config, scheduler_.get());
    ASSERT_TRUE(logs.ok()) << logs.status().ToString();
    logs_ = std::move(*logs);
    RemoteLogStorageConfig remote;
    remote_settings.emplace("rlmm.config.remote.log.metadata.topic.num.partitions", "2");
    for (const auto& [k, v] : remote_settings) ASSERT_TRUE(remote.Set(k, v)->ok()) << k;
    auto t = TieredStorage::OpenWith(remote, logs_.get(), &gate_, /*start_tasks=*/false);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tiered_ = std::move(*t);
    ASSERT_TRUE(logs_
                    ->CreateTopic("t", 1,
                                  {{"remote.storage.enable", "true"},
                                   {"internal.segment.bytes", "2000"},
                                   {"local.retention.ms", "0"},
                                   {"retention.ms", "-1"}})
                    .ok());
    std::shared_ptr<Log> log = *logs_->GetLog({"t", 0});
    for (int i = 0; i < 30; ++i) {
      ASSERT_TRUE(log->AppendAsLeader(ProducerBatch(i * 10, 10, 60, kT0)).ok());
    }
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(tiered_->manager()->RunOnce().ok());
      ASSERT_TRUE(logs_->RunTask("retention").ok());
    }
    ASSERT_EQ(log->local_log_start_offset(), 300);
    ASSERT_TRUE(logs_->CreateTopic("local", 1).ok());
    ASSERT_TRUE((*logs_->GetLog({"local", 0}))->AppendAsLeader(ProducerBatch(0, 5, 60, kT0)).ok());
    BrokerContext ctx;
    ctx.logs = logs_.get();
    ctx.remote = tiered_->manager();
    ctx.logger = [](const std::string&) {};
    broker_ = std::make_unique<Broker>(ctx);
  }
  RemoteReaderPool::Stats readers() { return tiered_->manager()->readers()->stats(); }

  // A Fetch v12 of "t" from `offset` (and of "local" from 0 with `with_local`).
  static std::vector<uint8_t> FetchFrame(int64_t offset, bool with_local = false,
                                         int32_t max_wait_ms = 0) {
    p::FetchRequestData req;
    req.replica_id = -1;
    req.max_wait_ms = max_wait_ms;
    req.min_bytes = 1;
    req.max_bytes = 1 << 20;
    req.session_epoch = -1;
    auto add = [&](const std::string& topic, int64_t at) {
      auto& t = req.topics.emplace_back();
      t.topic = topic;
      auto& part = t.partitions.emplace_back();
      part.partition = 0;
      part.fetch_offset = at;
      part.partition_max_bytes = 4096;
    };
    add("t", offset);
    if (with_local) add("local", 0);
    p::RequestHeaderData h;
    h.request_api_key = 1;
    h.request_api_version = 12;
    h.correlation_id = 42;
    h.client_id = "test";
    p::ProtocolWriter w;
    EXPECT_TRUE(h.Encode(&w, p::RequestHeaderVersion(1, 12)).ok());
    EXPECT_TRUE(req.Encode(&w, 12).ok());
    return w.bytes();
  }
  // Hands `frame` to the broker on connection `connection`; the answer arrives on the future.
  std::future<Answer> Send(std::vector<uint8_t> frame, uint64_t connection,
                           std::shared_ptr<MemoryCharge> memory = nullptr) {
    auto promise = std::make_shared<std::promise<Answer>>();
    std::future<Answer> future = promise->get_future();
    Responder respond([promise](Response r) {
      promise->set_value(Answer{r.action, r.buffer.Flatten()});
    });
    RequestContext rc;
    rc.connection_id = connection;
    rc.memory = std::move(memory);
    broker_->Handle(rc, std::move(frame), std::move(respond));
    return future;
  }
  // (The answer is kept for the test's life: the decoded records are views of its bytes.)
  p::FetchResponseData Decode(Answer answer) {
    const Answer& a = kept_.emplace_back(std::move(answer));
    EXPECT_EQ(a.action, Response::Action::kSend);
    p::ProtocolReader r(a.bytes);
    p::ResponseHeaderData h;
    EXPECT_TRUE(h.Decode(&r, p::ResponseHeaderVersion(1, 12)).ok());
    auto body =
        p::FetchResponseData::Parse(std::span<const uint8_t>(a.bytes).subspan(r.position()), 12);
    EXPECT_TRUE(body.ok()) << body.status().ToString();
    return body.ok() ? std::move(body).value() : p::FetchResponseData{};
  }
  static std::vector<int64_t> BatchOffsets(const p::FetchResponseData::PartitionData& pr) {
    std::vector<int64_t> out;
    if (!pr.records) return out;
    std::span<const uint8_t> bytes = pr.records->contiguous();
    size_t at = 0;
    while (at < bytes.size()) {
      auto b = RecordBatchView::Parse(bytes.subspan(at));
      if (!b.ok()) break;
      out.push_back(b->base_offset());
      at += b->size_in_bytes();
    }
    return out;
  }
  static Answer Get(std::future<Answer>& f, int64_t ms = 10000) {
    if (f.wait_for(std::chrono::milliseconds(ms)) != std::future_status::ready) {
      ADD_FAILURE() << "no answer within " << ms << " ms";
      return {};
    }
    return f.get();
  }

  TempDir dir_;
  LocalRemoteStorage rsm_{dir_.path() + "/store"};
  GatedRemoteStorage gate_{&rsm_};
  std::unique_ptr<ManualScheduler> scheduler_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<TieredStorage> tiered_;
  std::unique_ptr<Broker> broker_;
  std::deque<Answer> kept_;
};

TEST_F(DelayedRemoteFetchTest, AReadInTimeIsAnsweredWithItsRecords) {
  Start({{"remote.fetch.max.wait.ms", "5000"}});
  const auto started = std::chrono::steady_clock::now();
  std::future<Answer> f = Send(FetchFrame(120, /*with_local=*/true), 1);
  p::FetchResponseData resp = Decode(Get(f));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  ASSERT_EQ(resp.responses.size(), 2u);
  const auto& remote = resp.responses[0].partitions[0];
  EXPECT_EQ(remote.error_code, ke::kNone);
  EXPECT_EQ(remote.high_watermark, 300);
  ASSERT_FALSE(BatchOffsets(remote).empty());
  EXPECT_EQ(BatchOffsets(remote).front(), 120);
  // The local partition was read too, with what the remote one's limit left of max_bytes.
  EXPECT_EQ(BatchOffsets(resp.responses[1].partitions[0]), std::vector<int64_t>{0});
  EXPECT_EQ(broker_->parked_fetches(), 0u);
}

TEST_F(DelayedRemoteFetchTest, ASlowReadIsAnsweredEmptyAtTheWaitThenDroppedAndFreed) {
  Start({{"remote.fetch.max.wait.ms", "200"}});
  RequestMemoryPool pool(1 << 30);
  gate_.Close();
  std::future<Answer> f;
  const auto started = std::chrono::steady_clock::now();
  {
    auto charge = std::make_shared<MemoryCharge>(&pool, 0);
    f = Send(FetchFrame(0, /*with_local=*/true, /*max_wait_ms=*/30000), 1, charge);
  }
  // The handler thread did not wait: the fetch is parked, its read held at the gate.
  EXPECT_EQ(f.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  ASSERT_TRUE(gate_.AwaitWaiting(1));
  p::FetchResponseData resp = Decode(Get(f));
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_GE(waited, std::chrono::milliseconds(190));
  EXPECT_LT(waited, std::chrono::seconds(5));  // not the request's 30 s max_wait_ms
  // The remote partition: no records, no error (Kafka answers its local read result).
  const auto& remote = resp.responses[0].partitions[0];
  EXPECT_EQ(remote.error_code, ke::kNone);
  EXPECT_EQ(remote.high_watermark, 300);
  EXPECT_EQ(remote.log_start_offset, 0);
  EXPECT_TRUE(BatchOffsets(remote).empty());
  // The other partition's records came.
  EXPECT_EQ(resp.responses[1].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(BatchOffsets(resp.responses[1].partitions[0]), std::vector<int64_t>{0});
  // The read ends later; its result is dropped and every byte it was charged comes back.
  gate_.Open();
  ASSERT_TRUE(Eventually([&] { return readers().completed == 1 && readers().running == 0; }));
  ASSERT_TRUE(Eventually([&] { return pool.available() == pool.capacity(); }))
      << pool.available() << " of " << pool.capacity();
  // The client fetches again: read again, in time now.
  std::future<Answer> again = Send(FetchFrame(0), 1);
  p::FetchResponseData second = Decode(Get(again));
  EXPECT_EQ(second.responses[0].partitions[0].error_code, ke::kNone);
  ASSERT_FALSE(BatchOffsets(second.responses[0].partitions[0]).empty());
  EXPECT_EQ(BatchOffsets(second.responses[0].partitions[0]).front(), 0);
  // The pool counts a read completed after its callback has answered the fetch.
  EXPECT_TRUE(Eventually([&] { return readers().completed == 2; })) << readers().completed;
}

TEST_F(DelayedRemoteFetchTest, AFailedReadIsUnknownServerError) {
  Start({});
  rsm_.FailNextFetches(100);
  std::future<Answer> f = Send(FetchFrame(0, /*with_local=*/true), 1);
  p::FetchResponseData resp = Decode(Get(f));
  const auto& remote = resp.responses[0].partitions[0];
  EXPECT_EQ(remote.error_code, ke::kUnknownServerError);
  EXPECT_EQ(remote.high_watermark, -1);
  EXPECT_TRUE(BatchOffsets(remote).empty());
  EXPECT_EQ(BatchOffsets(resp.responses[1].partitions[0]), std::vector<int64_t>{0});
  EXPECT_GE(tiered_->manager()->stats().remote_read_failures, 1);
}

TEST_F(DelayedRemoteFetchTest, AFullReaderQueueIsUnknownServerErrorAtOnce) {
  Start({{"remote.log.reader.threads", "1"},
         {"remote.log.reader.max.pending.tasks", "1"},
         {"remote.fetch.max.wait.ms", "60000"}});
  gate_.Close();
  std::future<Answer> running = Send(FetchFrame(0), 1);
  ASSERT_TRUE(gate_.AwaitWaiting(1));
  std::future<Answer> queued = Send(FetchFrame(100), 2);
  EXPECT_EQ(readers().pending, 1);
  // The queue is full: answered at once, without waiting for the others.
  std::future<Answer> refused = Send(FetchFrame(200), 3);
  p::FetchResponseData r = Decode(Get(refused, 2000));
  EXPECT_EQ(r.responses[0].partitions[0].error_code, ke::kUnknownServerError);
  EXPECT_EQ(readers().rejected, 1);
  EXPECT_EQ(running.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  gate_.Open();
  p::FetchResponseData first = Decode(Get(running));
  p::FetchResponseData second = Decode(Get(queued));
  EXPECT_EQ(BatchOffsets(first.responses[0].partitions[0]).front(), 0);
  EXPECT_EQ(BatchOffsets(second.responses[0].partitions[0]).front(), 100);
}

TEST_F(DelayedRemoteFetchTest, AClientGoneMidWaitLeavesNothingBehind) {
  Start({{"remote.log.reader.threads", "1"}, {"remote.fetch.max.wait.ms", "60000"}});
  RequestMemoryPool pool(1 << 30);
  gate_.Close();
  std::future<Answer> running;
  std::future<Answer> queued;
  {
    running = Send(FetchFrame(0), 1, std::make_shared<MemoryCharge>(&pool, 0));
    ASSERT_TRUE(gate_.AwaitWaiting(1));
    queued = Send(FetchFrame(100), 2, std::make_shared<MemoryCharge>(&pool, 0));
  }
  EXPECT_EQ(broker_->parked_fetches(), 2u);
  EXPECT_EQ(readers().pending, 1);
  // Connection 2 closes: its fetch is dropped unanswered and its queued read cancelled.
  broker_->OnConnectionClosed(2);
  EXPECT_EQ(Get(queued).action, Response::Action::kAbandoned);
  EXPECT_EQ(readers().pending, 0);
  EXPECT_EQ(readers().cancelled, 1);
  // Connection 1 closes while its read runs: the read ends, its bytes are dropped.
  broker_->OnConnectionClosed(1);
  EXPECT_EQ(Get(running).action, Response::Action::kAbandoned);
  EXPECT_EQ(broker_->parked_fetches(), 0u);
  gate_.Open();
  ASSERT_TRUE(Eventually([&] { return readers().completed == 1 && readers().running == 0; }));
  ASSERT_TRUE(Eventually([&] { return pool.available() == pool.capacity(); }))
      << pool.available() << " of " << pool.capacity();
}

TEST_F(DelayedRemoteFetchTest, ShutdownAnswersAWaitingFetch) {
  Start({{"remote.fetch.max.wait.ms", "60000"}});
  gate_.Close();
  std::future<Answer> f = Send(FetchFrame(0), 1);
  ASSERT_TRUE(gate_.AwaitWaiting(1));
  broker_->Shutdown();
  p::FetchResponseData resp = Decode(Get(f, 2000));
  EXPECT_EQ(resp.responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_TRUE(BatchOffsets(resp.responses[0].partitions[0]).empty());
  // After the shutdown a fetch is answered at once, and no read is submitted.
  const int64_t submitted = readers().submitted;
  std::future<Answer> late = Send(FetchFrame(0), 2);
  EXPECT_EQ(Decode(Get(late, 2000)).responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(readers().submitted, submitted);
}

}  // namespace
}  // namespace seglog
