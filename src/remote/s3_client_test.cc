// S3Client against real S3-compatible servers on loopback - Versity S3 Gateway, which checks
// SigV4 signatures, and moto's server for the behaviour every S3 shares - and through
// FaultProxy for retries, timeouts and the transfer bound.
#include "remote/s3_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "remote/testing/fault_proxy.h"
#include "remote/testing/moto_server.h"
#include "remote/testing/s3_test_server.h"
#include "remote/testing/versitygw.h"

namespace seglog {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

std::string WriteTempFile(const std::string& dir, const std::string& name,
                          const std::vector<uint8_t>& bytes) {
  const std::string path = dir + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::span<const uint8_t> Bytes(std::string_view s) {
  return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// Value-parameterised over the server: S3ClientTest's tests run against versitygw and moto
// (what every S3 must do alike); S3ClientVersitygwTest's against versitygw only - signatures
// (moto checks none), virtual-hosted buckets, store restarts (moto loses its objects) and the
// retry and bound tests through FaultProxy, which test the client, not the server.
class S3ClientTest : public ::testing::TestWithParam<S3TestServerKind> {
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
    ASSERT_TRUE(server_->running() || server_->Restart().ok()) << server_->log_path();
    bucket_ = "bucket-" + std::to_string(++bucket_counter_);
    std::unique_ptr<S3Client> admin = NewClient(server_->endpoint_url());
    Status created = admin->CreateBucket(bucket_);
    ASSERT_TRUE(created.ok()) << created.ToString();
    char tmpl[] = "/tmp/seglog-s3test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  S3ClientOptions Options(const std::string& endpoint) const {
    S3ClientOptions o;
    o.endpoint_url = endpoint;
    o.region = server_->region();
    o.access_key_id = server_->access_key();
    o.secret_access_key = server_->secret_key();
    o.multipart_part_size = kS3MinPartSize;
    o.retry_backoff_ms = 20;
    o.retry_backoff_max_ms = 200;
    o.connect_timeout_ms = 2000;
    o.socket_timeout_ms = 5000;
    return o;
  }
  std::unique_ptr<S3Client> NewClient(const std::string& endpoint) const {
    return NewClient(Options(endpoint));
  }
  static std::unique_ptr<S3Client> NewClient(S3ClientOptions o) {
    Result<std::unique_ptr<S3Client>> c = S3Client::Create(std::move(o));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(*c) : nullptr;
  }

  static S3TestServers* servers_;
  static int bucket_counter_;
  S3TestServer* server_ = nullptr;
  std::string bucket_;
  std::string dir_;
};

S3TestServers* S3ClientTest::servers_ = nullptr;
int S3ClientTest::bucket_counter_ = 0;

std::string ServerName(const ::testing::TestParamInfo<S3TestServerKind>& info) {
  return S3TestServerName(info.param);
}

INSTANTIATE_TEST_SUITE_P(Servers, S3ClientTest,
                         ::testing::Values(S3TestServerKind::kVersityGateway,
                                           S3TestServerKind::kMoto),
                         ServerName);

class S3ClientVersitygwTest : public S3ClientTest {};

INSTANTIATE_TEST_SUITE_P(Servers, S3ClientVersitygwTest,
                         ::testing::Values(S3TestServerKind::kVersityGateway), ServerName);

TEST_P(S3ClientTest, PutGetRangeHeadDelete) {
  auto c = NewClient(server_->endpoint_url());
  const std::vector<uint8_t> data = RandomBytes(100000, 1);
  ASSERT_TRUE(c->PutObject(bucket_, "t/obj", data).ok());

  Result<std::vector<uint8_t>> all = c->GetObject(bucket_, "t/obj");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, data);

  Result<std::vector<uint8_t>> mid = c->GetObjectRange(bucket_, "t/obj", 1000, 5000);
  ASSERT_TRUE(mid.ok()) << mid.status().ToString();
  EXPECT_EQ(*mid, std::vector<uint8_t>(data.begin() + 1000, data.begin() + 6000));
  Result<std::vector<uint8_t>> tail = c->GetObjectRange(bucket_, "t/obj", 99990, 5000);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(*tail, std::vector<uint8_t>(data.end() - 10, data.end()));
  Result<std::vector<uint8_t>> past = c->GetObjectRange(bucket_, "t/obj", 100000, 10);
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(past.status().IsOutOfRange()) << past.status().ToString();

  Result<int64_t> size = c->HeadObject(bucket_, "t/obj");
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, 100000);

  ASSERT_TRUE(c->DeleteObject(bucket_, "t/obj").ok());
  ASSERT_TRUE(c->DeleteObject(bucket_, "t/obj").ok());  // already gone: OK
  EXPECT_TRUE(c->HeadObject(bucket_, "t/obj").status().IsNotFound());
  EXPECT_EQ(c->retries(), 0);
}

TEST_P(S3ClientTest, MissingObjectIsNotFoundNamingBucketAndKey) {
  auto c = NewClient(server_->endpoint_url());
  Result<std::vector<uint8_t>> r = c->GetObject(bucket_, "no/such/key");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(bucket_ + "/no/such/key"), std::string_view::npos);
  EXPECT_NE(r.status().message().find("NoSuchKey"), std::string_view::npos)
      << r.status().ToString();
  EXPECT_TRUE(c->GetObjectRange(bucket_, "no/such/key", 0, 10).status().IsNotFound());
  Result<std::vector<uint8_t>> nb = c->GetObject("nosuchbucket", "k");
  ASSERT_FALSE(nb.ok());
  EXPECT_NE(nb.status().message().find("NoSuchBucket"), std::string_view::npos);
  EXPECT_EQ(c->retries(), 0);
}

TEST_P(S3ClientTest, KeysNeedingEncodingAreSignedRight) {
  auto c = NewClient(server_->endpoint_url());
  const std::vector<std::string> keys = {"p/with space",  "p/plus+sign",
                                         "p/tilde~!*'()", "p/unicode-\xC3\xA9\xE2\x82\xAC",
                                         "p/a=b&c?d#e",   "p/percent%20"};
  for (const std::string& k : keys) {
    Status s = c->PutObject(bucket_, k, Bytes(k));
    ASSERT_TRUE(s.ok()) << k << ": " << s.ToString();
    Result<std::vector<uint8_t>> back = c->GetObject(bucket_, k);
    ASSERT_TRUE(back.ok()) << k << ": " << back.status().ToString();
    EXPECT_EQ(std::string(back->begin(), back->end()), k);
  }
  Result<std::vector<S3ListedObject>> listed = c->ListObjects(bucket_, "p/", 2);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<std::string> names;
  for (const auto& o : *listed) names.push_back(o.key);
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(names, sorted);
}

TEST_P(S3ClientTest, ListFollowsContinuationTokens) {
  auto c = NewClient(server_->endpoint_url());
  std::vector<std::string> want;
  for (int i = 0; i < 23; ++i) {
    const std::string key = fmt::format("seg/{:04d}", i);
    ASSERT_TRUE(c->PutObject(bucket_, key, Bytes(std::string(static_cast<size_t>(i), 'x'))).ok());
    want.push_back(key);
  }
  ASSERT_TRUE(c->PutObject(bucket_, "other/1", Bytes("x")).ok());
  const int64_t before = c->attempts();
  Result<std::vector<S3ListedObject>> listed = c->ListObjects(bucket_, "seg/", 5);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(c->attempts() - before, 5);  // 23 keys, 5 a page
  ASSERT_EQ(listed->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ((*listed)[i].key, want[i]);
    EXPECT_EQ((*listed)[i].size, static_cast<int64_t>(i));
  }
  Result<std::vector<S3ListedObject>> none = c->ListObjects(bucket_, "nothing/", 5);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(S3ClientTest, MultipartUploadOfALargeFile) {
  auto c = NewClient(server_->endpoint_url());
  const std::vector<uint8_t> data = RandomBytes(12 * 1024 * 1024 + 123, 2);
  const std::string path = WriteTempFile(dir_, "big.log", data);
  const int64_t before = c->attempts();
  Result<int64_t> sent = c->PutObjectFromFile(bucket_, "mp/big.log", path);
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  EXPECT_EQ(*sent, static_cast<int64_t>(data.size()));
  EXPECT_EQ(c->attempts() - before, 5);  // create, 3 parts (5 + 5 + 2 MiB), complete
  Result<int64_t> size = c->HeadObject(bucket_, "mp/big.log");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, static_cast<int64_t>(data.size()));
  Result<std::vector<uint8_t>> back = c->GetObject(bucket_, "mp/big.log");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
  // Around a part boundary.
  Result<std::vector<uint8_t>> edge =
      c->GetObjectRange(bucket_, "mp/big.log", kS3MinPartSize - 10, 20);
  ASSERT_TRUE(edge.ok());
  EXPECT_EQ(*edge, std::vector<uint8_t>(data.begin() + kS3MinPartSize - 10,
                                        data.begin() + kS3MinPartSize + 10));

  // A small file is one PUT.
  const std::string small = WriteTempFile(dir_, "small", RandomBytes(1000, 3));
  const int64_t before_small = c->attempts();
  ASSERT_TRUE(c->PutObjectFromFile(bucket_, "mp/small", small).ok());
  EXPECT_EQ(c->attempts() - before_small, 1);
  EXPECT_TRUE(c->PutObjectFromFile(bucket_, "mp/x", dir_ + "/missing").status().IsNotFound());
}

TEST_P(S3ClientVersitygwTest, WrongSecretFailsFastWithS3sCode) {
  S3ClientOptions o = Options(server_->endpoint_url());
  o.secret_access_key = "not-the-secret";
  auto c = NewClient(o);
  const auto start = Clock::now();
  Status s = c->PutObject(bucket_, "seg/x.log", Bytes("data"));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("SignatureDoesNotMatch"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find(bucket_ + "/seg/x.log"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find("HTTP 403"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(c->attempts(), 1);
  EXPECT_EQ(c->retries(), 0);
  EXPECT_LT(MsSince(start), 2000);
  // A wrong access key id too.
  o.access_key_id = "nobody";
  auto c2 = NewClient(o);
  Status s2 = c2->GetObject(bucket_, "k").status();
  EXPECT_FALSE(s2.ok());
  EXPECT_EQ(c2->retries(), 0);
}

TEST_P(S3ClientVersitygwTest, VirtualHostedStyle) {
  VersityGatewayOptions go;
  go.virtual_domain = "localhost";
  Result<std::unique_ptr<VersityGateway>> vgw = VersityGateway::Start(go);
  ASSERT_TRUE(vgw.ok()) << vgw.status().ToString();
  S3ClientOptions o = Options(fmt::format("http://localhost:{}", (*vgw)->port()));
  o.path_style_access = false;  // http://<bucket>.localhost:<port>/<key>
  auto c = NewClient(o);
  ASSERT_TRUE(c->CreateBucket("vhost").ok());
  ASSERT_TRUE(c->PutObject("vhost", "a/b", Bytes("virtual")).ok());
  Result<std::vector<uint8_t>> back = c->GetObject("vhost", "a/b");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(std::string(back->begin(), back->end()), "virtual");
  // The bucket really is the one the path-style client sees.
  S3ClientOptions po = Options((*vgw)->endpoint_url());
  auto pc = NewClient(po);
  Result<int64_t> size = pc->HeadObject("vhost", "a/b");
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, 7);
}

TEST_P(S3ClientVersitygwTest, RetriesOn503WithBackoffThenSucceeds) {
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_attempts = 4;
  o.retry_backoff_ms = 40;
  auto c = NewClient(o);
  (*proxy)->FailNext(2);  // 503 SlowDown twice
  const auto start = Clock::now();
  Status s = c->PutObject(bucket_, "r/ok", Bytes("after two 503s"));
  const int64_t elapsed = MsSince(start);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((*proxy)->requests(), 3);
  EXPECT_EQ(c->retries(), 2);
  // Backoffs of at least 40/2 and 80/2 ms (jitter keeps half or more).
  EXPECT_GE(elapsed, 60);
  Result<std::vector<uint8_t>> back = c->GetObject(bucket_, "r/ok");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::string(back->begin(), back->end()), "after two 503s");

  // 500 InternalError and 429 are retried too.
  (*proxy)->FailNext(1, 500, "InternalError");
  EXPECT_TRUE(c->GetObject(bucket_, "r/ok").ok());
  (*proxy)->FailNext(1, 429, "TooManyRequests");
  EXPECT_TRUE(c->GetObject(bucket_, "r/ok").ok());
  EXPECT_EQ(c->retries(), 4);
}

TEST_P(S3ClientVersitygwTest, GivesUpAfterTheBoundedAttempts) {
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_attempts = 3;
  o.retry_backoff_ms = 10;
  auto c = NewClient(o);
  (*proxy)->FailNext(100);
  Status s = c->PutObject(bucket_, "r/never", Bytes("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find("SlowDown"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find("gave up after 3 attempts"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find(bucket_ + "/r/never"), std::string_view::npos);
  EXPECT_EQ((*proxy)->requests(), 3);
}

TEST_P(S3ClientVersitygwTest, ApiCallTimeoutBoundsTheRetries) {
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_attempts = 100;
  o.retry_backoff_ms = 50;
  o.retry_backoff_max_ms = 50;
  o.api_call_timeout_ms = 400;
  auto c = NewClient(o);
  (*proxy)->FailNext(1000);
  const auto start = Clock::now();
  Status s = c->GetObject(bucket_, "k").status();
  const int64_t elapsed = MsSince(start);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("api.call.timeout"), std::string_view::npos) << s.ToString();
  EXPECT_LT(elapsed, 1500);
  EXPECT_GT((*proxy)->requests(), 2);
  EXPECT_LT((*proxy)->requests(), 100);
}

TEST_P(S3ClientVersitygwTest, ClientErrorsAreNotRetried) {
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  auto c = NewClient((*proxy)->endpoint_url());
  (*proxy)->FailNext(1, 403, "AccessDenied");
  Status s = c->PutObject(bucket_, "r/denied", Bytes("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("AccessDenied"), std::string_view::npos) << s.ToString();
  EXPECT_EQ((*proxy)->requests(), 1);
  EXPECT_EQ(c->retries(), 0);
}

TEST_P(S3ClientVersitygwTest, ConnectionRefusedIsRetriedThenFails) {
  // A port nothing listens on: a proxy started and destroyed.
  int dead_port = 0;
  {
    Result<std::unique_ptr<FaultProxy>> p = FaultProxy::Start(1);
    ASSERT_TRUE(p.ok());
    dead_port = (*p)->port();
  }
  S3ClientOptions o = Options(fmt::format("http://127.0.0.1:{}", dead_port));
  o.max_attempts = 3;
  o.retry_backoff_ms = 10;
  auto c = NewClient(o);
  Status s = c->PutObject(bucket_, "k", Bytes("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find("gave up after 3 attempts"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(c->attempts(), 3);
}

TEST_P(S3ClientVersitygwTest, AStalledServerTimesOut) {
  // The proxy holds every request 1.5 s; the attempt timeout is 300 ms.
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  (*proxy)->SetDelayMs(1500);
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_attempts = 2;
  o.api_call_attempt_timeout_ms = 300;
  auto c = NewClient(o);
  const auto start = Clock::now();
  Status s = c->GetObject(bucket_, "k").status();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Timeout"), std::string_view::npos) << s.ToString();
  EXPECT_LT(MsSince(start), 1400);
  EXPECT_EQ(c->attempts(), 2);
}

TEST_P(S3ClientVersitygwTest, NoMoreThanMaxConcurrentTransfers) {
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  (*proxy)->SetDelayMs(100);
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_concurrent_transfers = 2;
  auto c = NewClient(o);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      if (!c->PutObject(bucket_, fmt::format("conc/{}", i), Bytes("x")).ok()) failures++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ((*proxy)->requests(), 8);
  EXPECT_EQ((*proxy)->max_in_flight(), 2);  // never more, and the bound was reached
}

TEST_P(S3ClientVersitygwTest, StoreStoppedMidMultipartUploadAndRestarted) {
  const std::vector<uint8_t> data = RandomBytes(12 * 1024 * 1024, 4);
  const std::string path = WriteTempFile(dir_, "seg.log", data);
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_attempts = 8;
  o.retry_backoff_ms = 100;
  o.retry_backoff_max_ms = 400;
  auto c = NewClient(o);

  // The first time part 2 is asked for, the store goes down; it is back 500 ms later.
  std::thread restarter;
  std::atomic<bool> stopped{false};
  (*proxy)->SetHook([&](int, const std::string& line) {
    if (line.find("partNumber=2") != std::string::npos && !stopped.exchange(true)) {
      EXPECT_TRUE(server_->Stop().ok());
      restarter = std::thread([this] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        EXPECT_TRUE(server_->Restart().ok());
      });
    }
  });
  Result<int64_t> sent = c->PutObjectFromFile(bucket_, "mp/restarted.log", path);
  if (restarter.joinable()) restarter.join();
  (*proxy)->SetHook(nullptr);
  ASSERT_TRUE(stopped.load());
  EXPECT_GT(c->retries(), 0);
  // versitygw keeps multipart uploads on disk, so the retried parts and the completion
  // succeed after the restart.
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  Result<std::vector<uint8_t>> back = c->GetObject(bucket_, "mp/restarted.log");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == data);
}

TEST_P(S3ClientVersitygwTest, StoreDownForTheWholeUploadFailsCleanlyThenTheNextCopySucceeds) {
  const std::vector<uint8_t> data = RandomBytes(11 * 1024 * 1024, 5);
  const std::string path = WriteTempFile(dir_, "seg.log", data);
  Result<std::unique_ptr<FaultProxy>> proxy = FaultProxy::Start(server_->port());
  ASSERT_TRUE(proxy.ok());
  S3ClientOptions o = Options((*proxy)->endpoint_url());
  o.max_attempts = 3;
  o.retry_backoff_ms = 20;
  auto c = NewClient(o);
  std::atomic<bool> stopped{false};
  (*proxy)->SetHook([&](int, const std::string& line) {
    if (line.find("partNumber=") != std::string::npos && !stopped.exchange(true)) {
      EXPECT_TRUE(server_->Stop().ok());
    }
  });
  Result<int64_t> sent = c->PutObjectFromFile(bucket_, "mp/down.log", path);
  (*proxy)->SetHook(nullptr);
  ASSERT_FALSE(sent.ok());
  EXPECT_TRUE(sent.status().IsIOError()) << sent.status().ToString();
  EXPECT_NE(sent.status().message().find("multipart upload"), std::string_view::npos);
  EXPECT_NE(sent.status().message().find(bucket_ + "/mp/down.log"), std::string_view::npos)
      << sent.status().ToString();
  EXPECT_NE(sent.status().message().find("gave up after 3 attempts"), std::string_view::npos)
      << sent.status().ToString();

  ASSERT_TRUE(server_->Restart().ok());
  EXPECT_TRUE(c->HeadObject(bucket_, "mp/down.log").status().IsNotFound());
  Result<int64_t> again = c->PutObjectFromFile(bucket_, "mp/down.log", path);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  Result<std::vector<uint8_t>> back = c->GetObject(bucket_, "mp/down.log");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
}

// The moto harness itself, and what moto_server.h says of moto: it checks no signature and
// keeps objects in memory only.
TEST(MotoServerTest, AcceptsAnySecretAndRestartsEmptyOnTheSamePort) {
  Result<std::unique_ptr<MotoServer>> moto = MotoServer::Start();
  ASSERT_TRUE(moto.ok()) << moto.status().ToString();
  S3ClientOptions o;
  o.endpoint_url = (*moto)->endpoint_url();
  o.region = (*moto)->options().region;
  o.access_key_id = "anyone";
  o.secret_access_key = "not-any-secret-moto-knows";
  o.max_attempts = 1;
  Result<std::unique_ptr<S3Client>> c = S3Client::Create(o);
  ASSERT_TRUE(c.ok());
  Status created = (*c)->CreateBucket("moto-any-key");
  ASSERT_TRUE(created.ok()) << created.ToString();
  ASSERT_TRUE((*c)->PutObject("moto-any-key", "k", Bytes("signed with a wrong secret")).ok());
  const int port = (*moto)->port();
  ASSERT_TRUE((*moto)->Restart().ok()) << (*moto)->log_path();
  EXPECT_EQ((*moto)->port(), port);
  EXPECT_TRUE((*c)->HeadObject("moto-any-key", "k").status().IsNotFound());
  ASSERT_TRUE((*moto)->Stop().ok());
  EXPECT_FALSE((*moto)->running());
  EXPECT_FALSE((*c)->HeadObject("moto-any-key", "k").ok());  // nothing listens
}

TEST(MotoServerTest, MissingBinaryIsFailedPrecondition) {
  const char* before = std::getenv("SEGLOG_MOTO");
  const std::string saved = before ? before : "";
  ::setenv("SEGLOG_MOTO", "/nonexistent/moto_server", 1);
  Result<std::unique_ptr<MotoServer>> moto = MotoServer::Start();
  if (before) {
    ::setenv("SEGLOG_MOTO", saved.c_str(), 1);
  } else {
    ::unsetenv("SEGLOG_MOTO");
  }
  ASSERT_FALSE(moto.ok());
  EXPECT_EQ(moto.status().code(), Status::Code::kFailedPrecondition) << moto.status().ToString();
  EXPECT_NE(moto.status().message().find("SEGLOG_MOTO"), std::string_view::npos);
}

TEST(S3ClientOptionsTest, BadOptionsAreRefused) {
  S3ClientOptions o;
  o.access_key_id = "a";
  o.secret_access_key = "s";
  EXPECT_TRUE(S3Client::Create(o).ok());  // AWS's endpoint from the region
  o.endpoint_url = "ftp://x";
  EXPECT_TRUE(S3Client::Create(o).status().IsInvalidArgument());
  o.endpoint_url = "http://host:1/path";
  EXPECT_TRUE(S3Client::Create(o).status().IsInvalidArgument());
  o.endpoint_url = "http://host:1/";
  EXPECT_TRUE(S3Client::Create(o).ok());
  o.multipart_part_size = kS3MinPartSize - 1;
  EXPECT_TRUE(S3Client::Create(o).status().IsInvalidArgument());
  o.multipart_part_size = kS3MinPartSize;
  o.secret_access_key = "";
  EXPECT_TRUE(S3Client::Create(o).status().IsInvalidArgument());
}

TEST(S3ClientOptionsTest, UriEncodingIsSigV4s) {
  EXPECT_EQ(S3Client::UriEncode("a-Z_0.~/b c+%", true), "a-Z_0.~/b%20c%2B%25");
  EXPECT_EQ(S3Client::UriEncode("a/b=c&", false), "a%2Fb%3Dc%26");
  EXPECT_EQ(S3Client::UriEncode("\xC3\xA9", false), "%C3%A9");
}

}  // namespace
}  // namespace seglog
