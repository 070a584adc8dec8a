// SocketServer over real sockets on 127.0.0.1 (port 0): framing, ordering, limits, sendfile,
// misbehaving clients and shutdown. Every wait is bounded.
#include "server/socket_server.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "io/file.h"
#include "server/test_client.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::TestClient;

// Collects log lines; waits for one to appear.
class LogLines {
 public:
  std::function<void(const std::string&)> Logger() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
      cv_.notify_all();
    };
  }
  bool WaitFor(const std::string& part, int timeout_ms = 10000) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
      for (const auto& l : lines_) {
        if (l.find(part) != std::string::npos) return true;
      }
      return false;
    });
  }
  std::string All() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& l : lines_) out += l + "\n";
    return out;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// A handler built from a function.
class FnHandler : public RequestHandler {
 public:
  using Fn = std::function<void(const RequestContext&, std::vector<uint8_t>, Responder)>;
  explicit FnHandler(Fn fn) : fn_(std::move(fn)) {}
  void Handle(const RequestContext& c, std::vector<uint8_t> frame, Responder r) override {
    fn_(c, std::move(frame), std::move(r));
  }
  void OnConnectionClosed(uint64_t) override { closed.fetch_add(1); }
  bool HandlesInline(const std::vector<uint8_t>& frame) const override {
    return inline_when && inline_when(frame);
  }
  std::atomic<int> closed{0};
  // Which frames are handled on the network thread (unset: none). Set before the server starts.
  std::function<bool(const std::vector<uint8_t>&)> inline_when;

 private:
  Fn fn_;
};

ResponseBuffer Text(const std::string& s) {
  ResponseBuffer b;
  b.Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  return b;
}

std::string AsString(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

// Answers "echo:<payload>" at once.
void Echo(const RequestContext&, std::vector<uint8_t> frame, Responder r) {
  r.Send(Text("echo:" + AsString(frame)));
}

class SocketServerTest : public ::testing::Test {
 protected:
  SocketServerOptions Options() {
    SocketServerOptions o;
    o.listeners = {{"PLAINTEXT", "127.0.0.1", 0}};
    o.num_network_threads = 2;
    o.num_io_threads = 4;
    o.shutdown_timeout_ms = 5000;
    o.logger = log_.Logger();
    o.log_debug = true;
    return o;
  }
  void StartServer(SocketServerOptions o, RequestHandler* h) {
    auto s = SocketServer::Start(std::move(o), h);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    ASSERT_GT(server_->port(), 0);
  }
  std::unique_ptr<TestClient> Connect() {
    auto c = TestClient::Connect(server_->port());
    EXPECT_NE(c, nullptr);
    return c;
  }
  // Polls `pred` for up to 10 s.
  static bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  void ExpectEchoWorks() {
    auto c = Connect();
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->SendFrame("still-there"));
    EXPECT_EQ(c->ReadFrameString(), "echo:still-there");
  }

  // The handler lives in the fixture, so it outlives the server (destroyed first).
  FnHandler* MakeHandler(FnHandler::Fn fn) {
    handlers_.push_back(std::make_unique<FnHandler>(std::move(fn)));
    return handlers_.back().get();
  }

  LogLines log_;
  std::vector<std::unique_ptr<FnHandler>> handlers_;
  std::unique_ptr<SocketServer> server_;
};

TEST_F(SocketServerTest, FrameRoundTripWithContext) {
  std::mutex mu;
  std::vector<RequestContext> seen;
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    {
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(c);
    }
    Echo(c, std::move(f), std::move(r));
  });
  StartServer(Options(), &h);
  EXPECT_TRUE(
      log_.WaitFor(fmt::format("Awaiting socket connections on 127.0.0.1:{}", server_->port())));
  EXPECT_EQ(server_->port("PLAINTEXT"), server_->port());
  EXPECT_EQ(server_->port("OTHER"), -1);
  auto c = Connect();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->SendFrame("hello"));
  EXPECT_EQ(c->ReadFrameString(), "echo:hello");
  ASSERT_TRUE(c->SendFrame(""));  // a zero-size frame reaches the handler too
  EXPECT_EQ(c->ReadFrameString(), "echo:");
  // A frame split across many small writes.
  const std::vector<uint8_t> f = TestClient::Frame("split-into-bytes");
  for (uint8_t b : f) ASSERT_TRUE(c->Send(std::span<const uint8_t>(&b, 1)));
  EXPECT_EQ(c->ReadFrameString(), "echo:split-into-bytes");
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].client_address, fmt::format("127.0.0.1:{}", c->local_port()));
  EXPECT_EQ(seen[0].listener, "PLAINTEXT");
  EXPECT_GT(seen[0].connection_id, 0u);
  EXPECT_EQ(seen[1].connection_id, seen[0].connection_id);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  EXPECT_LE(seen[0].received_ms, now_ms);
  EXPECT_GT(seen[0].received_ms, now_ms - 60000);
}

// A pool that answers requests from its own threads after random delays.
class DelayedAnswers {
 public:
  explicit DelayedAnswers(int threads) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this, i] {
        std::mt19937 rng(static_cast<unsigned>(i));
        while (true) {
          std::function<void()> job;
          {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
            if (jobs_.empty()) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
          }
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
          job();
        }
      });
    }
  }
  ~DelayedAnswers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void Run(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Each answered request's phases reach the observer: a request parked 200 ms by its handler
// shows it as remote time, one sleeping 100 ms in its handler as local time, and their api
// key and version are the frame's.
TEST_F(SocketServerTest, RequestObserverSeesEachRequestsPhases) {
  std::mutex mu;
  std::vector<RequestTimes> seen;
  std::vector<std::thread> parked;
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    if (f[1] == 1) {  // api key 1: answered 200 ms later from another thread
      auto shared = std::make_shared<Responder>(std::move(r));
      std::lock_guard<std::mutex> lock(mu);
      parked.emplace_back([shared] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        shared->Send(Text("late"));
      });
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r.Send(Text("slow"));
  });
  SocketServerOptions o = Options();
  o.request_observer = [&](const RequestTimes& t) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(t);
  };
  StartServer(std::move(o), &h);
  auto c = Connect();
  ASSERT_NE(c, nullptr);
  // api key 1 v4, then api key 3 v12 (the header's first four bytes).
  ASSERT_TRUE(c->SendFrame(std::string("\x00\x01\x00\x04xxxx", 8)));
  EXPECT_EQ(c->ReadFrameString(), "late");
  ASSERT_TRUE(c->SendFrame(std::string("\x00\x03\x00\x0cxxxx", 8)));
  EXPECT_EQ(c->ReadFrameString(), "slow");
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return seen.size() == 2;
  }));
  std::lock_guard<std::mutex> lock(mu);
  for (auto& t : parked) t.join();
  constexpr int64_t kMs = 1'000'000;
  EXPECT_EQ(seen[0].api_key, 1);
  EXPECT_EQ(seen[0].version, 4);
  EXPECT_GE(seen[0].remote_ns, 190 * kMs);
  EXPECT_LT(seen[0].local_ns, 100 * kMs);
  EXPECT_EQ(seen[1].api_key, 3);
  EXPECT_EQ(seen[1].version, 12);
  EXPECT_GE(seen[1].local_ns, 95 * kMs);
  EXPECT_LT(seen[1].remote_ns, 50 * kMs);
  for (const RequestTimes& t : seen) {
    const int64_t sum =
        t.request_queue_ns + t.local_ns + t.remote_ns + t.response_queue_ns + t.response_send_ns;
    EXPECT_EQ(t.total_ns, sum);
  }
}

TEST_F(SocketServerTest, StatsCountConnectionsPerListenerAndThreadsIdle) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.listeners.push_back({"INTERNAL", "127.0.0.1", 0});
  StartServer(std::move(o), &h);
  auto a = TestClient::Connect(server_->port("PLAINTEXT"));
  auto b = TestClient::Connect(server_->port("PLAINTEXT"));
  auto c = TestClient::Connect(server_->port("INTERNAL"));
  ASSERT_TRUE(a && b && c);
  for (auto* client : {a.get(), b.get(), c.get()}) {
    ASSERT_TRUE(client->SendFrame("x"));
    EXPECT_EQ(client->ReadFrameString(), "echo:x");
  }
  auto count = [&](const std::string& listener) {
    int64_t n = 0;
    for (const auto& l : server_->stats().connections_by_listener) {
      if (l.listener == listener) n += l.count;
      EXPECT_GE(l.network_processor, 0);
      EXPECT_LT(l.network_processor, 2);
    }
    return n;
  };
  EXPECT_EQ(count("PLAINTEXT"), 2);
  EXPECT_EQ(count("INTERNAL"), 1);
  b.reset();
  EXPECT_TRUE(Eventually([&] { return count("PLAINTEXT") == 1; }));
  EXPECT_EQ(count("INTERNAL"), 1);
  // Four handler threads that did almost nothing have been idle almost all the time.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const SocketServer::Stats s = server_->stats();
  const int64_t elapsed = MonotonicNs() - s.started_ns;
  EXPECT_EQ(s.num_io_threads, 4);
  EXPECT_GT(s.handler_idle_ns, 4 * elapsed * 8 / 10);
  EXPECT_LE(s.handler_idle_ns, 4 * elapsed);
  EXPECT_GE(s.network_cpu_ns, 0);
  EXPECT_LT(s.network_cpu_ns, 2 * elapsed);
}

TEST_F(SocketServerTest, PipelinedRequestsAreHandledOneAtATimeAndAnsweredInOrder) {
  constexpr int kConnections = 3;
  constexpr int kRequests = 100;
  std::mutex mu;
  std::map<uint64_t, int> active;                // per connection, in a handler now
  std::map<uint64_t, std::vector<int>> handled;  // per connection, in handling order
  std::atomic<int> max_per_connection{0};
  std::atomic<int> all_active{0};
  std::atomic<int> max_all{0};
  auto pool = std::make_unique<DelayedAnswers>(4);
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    const int n = std::stoi(AsString(f));
    {
      std::lock_guard<std::mutex> lock(mu);
      const int a = ++active[c.connection_id];
      if (a > max_per_connection) max_per_connection = a;
      handled[c.connection_id].push_back(n);
    }
    const int all = ++all_active;
    if (all > max_all) max_all = all;
    auto shared = std::make_shared<Responder>(std::move(r));
    pool->Run([&, shared, n, id = c.connection_id] {
      {
        std::lock_guard<std::mutex> lock(mu);
        --active[id];
      }
      --all_active;
      shared->Send(Text(fmt::format("r{}", n)));
    });
  });
  StartServer(Options(), &h);
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int i = 0; i < kConnections; ++i) clients.push_back(Connect());
  // Every request of every connection is sent before any response is read.
  for (auto& c : clients) {
    std::vector<uint8_t> all;
    for (int i = 0; i < kRequests; ++i) {
      auto f = TestClient::Frame(std::to_string(i));
      all.insert(all.end(), f.begin(), f.end());
    }
    ASSERT_TRUE(c->Send(all));
  }
  for (auto& c : clients) {
    for (int i = 0; i < kRequests; ++i) {
      ASSERT_EQ(c->ReadFrameString(), fmt::format("r{}", i));
    }
  }
  EXPECT_EQ(max_per_connection.load(), 1);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(handled.size(), static_cast<size_t>(kConnections));
  for (const auto& [id, order] : handled) {
    ASSERT_EQ(order.size(), static_cast<size_t>(kRequests));
    for (int i = 0; i < kRequests; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  }
  std::cout << "requests of different connections in handlers at once, at most: " << max_all.load()
            << "\n";
  server_->Shutdown();
  pool.reset();
}

// Requests the handler takes inline run on the connection's network thread, answered there
// at once or later from another thread; mixed with queued ones they keep request order.
TEST_F(SocketServerTest, InlineRequestsRunOnTheNetworkThreadInOrder) {
  std::mutex mu;
  std::map<std::string, std::set<std::thread::id>> threads;  // "inline" / "queued"
  auto pool = std::make_unique<DelayedAnswers>(2);
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    const std::string s = AsString(f);
    {
      std::lock_guard<std::mutex> lock(mu);
      threads[s[0] == 'q' ? "queued" : "inline"].insert(std::this_thread::get_id());
    }
    if (s.rfind("i-later", 0) == 0) {  // parked: answered from a pool thread
      auto shared = std::make_shared<Responder>(std::move(r));
      pool->Run([shared, s] { shared->Send(Text("r:" + s)); });
      return;
    }
    r.Send(Text("r:" + s));
  });
  h.inline_when = [](const std::vector<uint8_t>& f) { return !f.empty() && f[0] == 'i'; };
  SocketServerOptions o = Options();
  o.num_network_threads = 1;
  StartServer(o, &h);
  auto c = Connect();
  ASSERT_NE(c, nullptr);
  std::vector<std::string> sent;
  std::vector<uint8_t> all;
  const char* kinds[] = {"i-now", "i-later", "q"};
  for (int i = 0; i < 90; ++i) {
    sent.push_back(fmt::format("{}-{}", kinds[(i * 7) % 3], i));
    auto f = TestClient::Frame(sent.back());
    all.insert(all.end(), f.begin(), f.end());
  }
  ASSERT_TRUE(c->Send(all));
  for (const std::string& s : sent) ASSERT_EQ(c->ReadFrameString(), "r:" + s);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(threads["inline"].size(), 1u);  // the one network thread
  for (const auto& t : threads["queued"]) EXPECT_EQ(threads["inline"].count(t), 0u);
  server_->Shutdown();
  pool.reset();
}

// A request parked by one connection and answered on the network thread while that thread
// handles another connection's inline request is delivered to its own connection.
TEST_F(SocketServerTest, AnInlineRequestMayAnswerAnotherConnectionsParkedRequest) {
  std::mutex mu;
  std::optional<Responder> parked;
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    const std::string s = AsString(f);
    std::lock_guard<std::mutex> lock(mu);
    if (s == "park") {
      parked.emplace(std::move(r));
      return;
    }
    if (s == "wake" && parked) {
      parked->Send(Text("woken"));
      parked.reset();
    }
    r.Send(Text("r:" + s));
  });
  h.inline_when = [](const std::vector<uint8_t>&) { return true; };
  SocketServerOptions o = Options();
  o.num_network_threads = 1;
  StartServer(o, &h);
  auto a = Connect();
  auto b = Connect();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->SendFrame("park"));
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return parked.has_value();
  }));
  ASSERT_TRUE(b->SendFrame("wake"));
  EXPECT_EQ(b->ReadFrameString(), "r:wake");
  EXPECT_EQ(a->ReadFrameString(), "woken");
  ASSERT_TRUE(a->SendFrame("again"));  // a's connection is in order after its parked answer
  EXPECT_EQ(a->ReadFrameString(), "r:again");
}

TEST_F(SocketServerTest, ABlockedRequestDoesNotBlockAnotherConnection) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    if (AsString(f) == "block") {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::seconds(10), [&] { return release; });
    }
    Echo(c, std::move(f), std::move(r));
  });
  StartServer(Options(), &h);
  auto blocked = Connect();
  auto other = Connect();
  ASSERT_TRUE(blocked->SendFrame("block"));
  ASSERT_TRUE(blocked->SendFrame("after-block"));
  ASSERT_TRUE(other->SendFrame("free"));
  EXPECT_EQ(other->ReadFrameString(), "echo:free");
  EXPECT_TRUE(blocked->QuietFor(100));  // still blocked, and its next request waits behind it
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  EXPECT_EQ(blocked->ReadFrameString(), "echo:block");
  EXPECT_EQ(blocked->ReadFrameString(), "echo:after-block");
}

TEST_F(SocketServerTest, BadSizesCloseTheConnectionInKafkasWords) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.socket_request_max_bytes = 1024;
  StartServer(std::move(o), &h);
  {
    auto c = Connect();
    ASSERT_TRUE(c->SendFrame(std::string(1024, 'a')));  // exactly the limit: served
    auto r = c->ReadFrameString();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->size(), 5u + 1024u);
    ASSERT_TRUE(c->SendSize(1025));
    EXPECT_TRUE(c->WaitClosed());
  }
  EXPECT_TRUE(log_.WaitFor("Invalid receive (size = 1025 larger than 1024)"));
  EXPECT_TRUE(log_.WaitFor("Unexpected error from /127.0.0.1 (channelId=127.0.0.1:"));
  EXPECT_THAT(log_.All(),
              HasSubstr("WARN [SocketServer listenerType=BROKER, nodeId=1] Unexpected error "));
  EXPECT_THAT(log_.All(), HasSubstr("closing connection: "
                                    "org.apache.kafka.common.network.InvalidReceiveException"));
  {
    auto c = Connect();
    ASSERT_TRUE(c->SendSize(-1));
    EXPECT_TRUE(c->WaitClosed());
  }
  EXPECT_TRUE(log_.WaitFor("Invalid receive (size = -1)"));
  // "GET " read as a size, as when a browser opens the port.
  {
    auto c = Connect();
    ASSERT_TRUE(c->Send("GET / HTTP/1.1\r\n\r\n"));
    EXPECT_TRUE(c->WaitClosed());
  }
  EXPECT_TRUE(log_.WaitFor("Invalid receive (size = 1195725856 larger than 1024)"));
  ExpectEchoWorks();
  EXPECT_TRUE(Eventually([&] { return server_->stats().open_connections == 0; }));
}

TEST_F(SocketServerTest, TruncatedFrameThenDisconnect) {
  FnHandler& h = *MakeHandler(Echo);
  StartServer(Options(), &h);
  for (int i = 0; i < 20; ++i) {
    auto c = Connect();
    ASSERT_TRUE(c->SendSize(100));
    ASSERT_TRUE(c->Send(std::string(static_cast<size_t>(i * 4), 'z')));
    if (i % 2) {
      c->Reset();
    } else {
      c->Close();
    }
  }
  ExpectEchoWorks();
  EXPECT_TRUE(Eventually([&] { return server_->stats().open_connections == 0; }));
  EXPECT_TRUE(Eventually([&] { return h.closed.load() == 21; }));
}

TEST_F(SocketServerTest, NoResponseAndCloseConnectionAnswers) {
  FnHandler& h = *MakeHandler([](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    const std::string s = AsString(f);
    if (s == "acks=0") {
      r.NoResponse();
    } else if (s == "garbage") {
      r.CloseConnection();
    } else if (s == "drop") {
      // The Responder dies unanswered.
    } else {
      Echo(c, std::move(f), std::move(r));
    }
  });
  StartServer(Options(), &h);
  auto c = Connect();
  ASSERT_TRUE(c->SendFrame("acks=0"));
  ASSERT_TRUE(c->SendFrame("acks=0"));
  ASSERT_TRUE(c->SendFrame("next"));
  EXPECT_EQ(c->ReadFrameString(), "echo:next");  // nothing came for the first two
  ASSERT_TRUE(c->SendFrame("garbage"));
  ASSERT_TRUE(c->SendFrame("never-read"));
  EXPECT_TRUE(c->WaitClosed());

  auto d = Connect();
  ASSERT_TRUE(d->SendFrame("drop"));
  EXPECT_TRUE(d->WaitClosed());
  EXPECT_TRUE(log_.WaitFor("was dropped without an answer; closing connection"));
  ExpectEchoWorks();
}

// A file of `size` bytes with a pattern; returns it opened.
std::shared_ptr<const File> PatternFile(const std::string& path, int64_t size,
                                        std::vector<uint8_t>* contents) {
  contents->resize(static_cast<size_t>(size));
  std::mt19937 rng(7);
  for (auto& b : *contents) b = static_cast<uint8_t>(rng());
  auto f = File::Open(path, File::Mode::kCreate);
  EXPECT_TRUE(f.ok());
  EXPECT_TRUE((*f)->WriteAt(0, *contents).ok());
  return std::shared_ptr<const File>(std::move(*f));
}

TEST_F(SocketServerTest, FileRegionsAreSentWithSendfile) {
  testing::TempDir dir;
  std::vector<uint8_t> contents;
  constexpr int64_t kSize = 6 << 20;
  auto file = PatternFile(dir.path() + "/segment.log", kSize, &contents);
  // Two regions, one of several MiB, between bytes chunks.
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t>, Responder r) {
    ResponseBuffer b = Text("head");
    b.AppendFileSlice({file, 10, kSize - 20});
    b.Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("mid"), 3));
    b.AppendFileSlice({file, 0, 5});
    b.Append(std::vector<uint8_t>(600, 't'));
    r.Send(std::move(b));
  });
  SocketServerOptions o = Options();
  o.socket_send_buffer_bytes = 16 * 1024;  // many partial sends
  StartServer(std::move(o), &h);
  auto c = TestClient::Connect(server_->port(), 16 * 1024);
  ASSERT_NE(c, nullptr);
  std::vector<uint8_t> want = {'h', 'e', 'a', 'd'};
  want.insert(want.end(), contents.begin() + 10, contents.end() - 10);
  want.insert(want.end(), {'m', 'i', 'd'});
  want.insert(want.end(), contents.begin(), contents.begin() + 5);
  want.insert(want.end(), 600, 't');
  for (int round = 0; round < 2; ++round) {  // the connection goes on after a region
    ASSERT_TRUE(c->SendFrame("fetch"));
    auto got = c->ReadFrame(30000);
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(got->size(), want.size());
    EXPECT_TRUE(*got == want);
  }
}

TEST_F(SocketServerTest, AFileShorterThanItsRegionClosesTheConnection) {
  testing::TempDir dir;
  std::vector<uint8_t> contents;
  auto file = PatternFile(dir.path() + "/short.log", 1000, &contents);
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t>, Responder r) {
    ResponseBuffer b;
    b.AppendFileSlice({file, 500, 1000});  // 500 bytes past the end
    r.Send(std::move(b));
  });
  StartServer(Options(), &h);
  auto c = Connect();
  ASSERT_TRUE(c->SendFrame("fetch"));
  EXPECT_TRUE(c->WaitClosed());
  EXPECT_TRUE(log_.WaitFor("has been truncated during write: 500 bytes"));
}

TEST_F(SocketServerTest, ClientLeavingMidResponseIsHarmless) {
  testing::TempDir dir;
  std::vector<uint8_t> contents;
  auto file = PatternFile(dir.path() + "/big.log", 32 << 20, &contents);
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    if (AsString(f) != "fetch") {
      Echo(c, std::move(f), std::move(r));
      return;
    }
    ResponseBuffer b = Text("x");
    b.AppendFileSlice({file, 0, 32 << 20});
    b.Append(std::vector<uint8_t>(100000, 'y'));  // a bytes chunk still to go
    r.Send(std::move(b));
  });
  SocketServerOptions o = Options();
  o.socket_send_buffer_bytes = 64 * 1024;
  StartServer(std::move(o), &h);
  for (int i = 0; i < 6; ++i) {
    auto c = TestClient::Connect(server_->port(), 64 * 1024);
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(c->SendFrame("fetch"));
    std::vector<uint8_t> some(static_cast<size_t>(1000 + i * 100000));
    ASSERT_TRUE(c->ReadExact(some.data(), some.size()));
    if (i % 2) {
      c->Reset();
    } else {
      c->Close();
    }
  }
  ExpectEchoWorks();
  EXPECT_TRUE(Eventually([&] { return server_->stats().open_connections == 0; }));
}

TEST_F(SocketServerTest, MaxConnectionsMakesNewConnectionsWaitForASlot) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.max_connections = 2;
  StartServer(std::move(o), &h);
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a->SendFrame("a"));
  ASSERT_TRUE(b->SendFrame("b"));
  EXPECT_EQ(a->ReadFrameString(), "echo:a");
  EXPECT_EQ(b->ReadFrameString(), "echo:b");
  // The third waits in the backlog (Kafka's acceptor waits for a slot): not served, not closed.
  auto extra = Connect();
  ASSERT_NE(extra, nullptr);
  ASSERT_TRUE(extra->SendFrame("waiting"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(server_->stats().open_connections, 2);
  a.reset();  // frees a slot: the waiting one is accepted and answered
  EXPECT_EQ(extra->ReadFrameString(), "echo:waiting");
  EXPECT_EQ(server_->stats().open_connections, 2);
  EXPECT_EQ(server_->stats().rejected, 0);
}

TEST_F(SocketServerTest, MaxConnectionsPerIpClosesTheExtraOnesInKafkasWords) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.max_connections_per_ip = 2;
  StartServer(std::move(o), &h);
  auto a = Connect();
  auto b = Connect();
  ASSERT_TRUE(a->SendFrame("a"));
  EXPECT_EQ(a->ReadFrameString(), "echo:a");
  auto extra = Connect();
  ASSERT_NE(extra, nullptr);
  EXPECT_TRUE(extra->WaitClosed());
  EXPECT_TRUE(
      log_.WaitFor("Rejected connection from /127.0.0.1, address already has the "
                   "configured maximum of 2 connections."));
  EXPECT_EQ(server_->stats().rejected, 1);
  b.reset();  // frees the address's slot
  EXPECT_TRUE(Eventually([&] { return server_->stats().open_connections == 1; }));
  ExpectEchoWorks();
}

TEST_F(SocketServerTest, PerIpOverridesAndListenerLimits) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.max_connections_per_ip = 0;  // nobody, but for the overrides
  o.max_connections_per_ip_overrides = "localhost:3, 10.1.2.3:7";
  StartServer(std::move(o), &h);
  std::vector<std::unique_ptr<TestClient>> open;
  for (int i = 0; i < 3; ++i) {
    open.push_back(Connect());
    ASSERT_TRUE(open.back()->SendFrame("x"));
    EXPECT_EQ(open.back()->ReadFrameString(), "echo:x");
  }
  auto fourth = Connect();
  EXPECT_TRUE(fourth->WaitClosed());
  EXPECT_TRUE(log_.WaitFor("address already has the configured maximum of 3 connections."));

  // Zero without overrides, and overrides that do not parse, are refused at start.
  SocketServerOptions bad = Options();
  bad.max_connections_per_ip = 0;
  auto refused = SocketServer::Start(std::move(bad), &h);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().ToString(),
              HasSubstr("max.connections.per.ip can be set to zero only if "
                        "max.connections.per.ip.overrides property is set."));
  for (const char* overrides : {"localhost", "localhost:x", "127.0.0.1:-1", "no.such.host.:1"}) {
    SocketServerOptions b = Options();
    b.max_connections_per_ip_overrides = overrides;
    auto r = SocketServer::Start(std::move(b), &h);
    ASSERT_FALSE(r.ok()) << overrides;
    EXPECT_THAT(r.status().ToString(), HasSubstr("max.connections.per.ip.overrides")) << overrides;
  }
}

TEST_F(SocketServerTest, ListenerMaxConnections) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  std::optional<Status> set = o.Set("listener.name.plaintext.max.connections", "1");
  ASSERT_TRUE(set.has_value() && set->ok());
  ASSERT_EQ(o.listener_max_connections.at("PLAINTEXT"), 1);
  StartServer(std::move(o), &h);
  auto a = Connect();
  ASSERT_TRUE(a->SendFrame("a"));
  EXPECT_EQ(a->ReadFrameString(), "echo:a");
  auto b = Connect();
  ASSERT_TRUE(b->SendFrame("b"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(server_->stats().open_connections, 1);
  a.reset();
  EXPECT_EQ(b->ReadFrameString(), "echo:b");
}

TEST_F(SocketServerTest, ConnectionCreationRateHoldsConnectionsPastIt) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.max_connection_creation_rate = 2;
  o.quota_window_num = 2;  // rates over at least one 1 s window
  StartServer(std::move(o), &h);
  std::vector<std::unique_ptr<TestClient>> clients;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) {
    clients.push_back(Connect());
    ASSERT_TRUE(clients.back()->SendFrame(fmt::format("c{}", i)));
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(clients[static_cast<size_t>(i)]->ReadFrameString(), fmt::format("echo:c{}", i));
  }
  // The third made 3 in the first second against 2 a second: (3 - 2) / 2 x 1 s = 500 ms.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(450));
  EXPECT_EQ(server_->stats().throttled, 1);
  EXPECT_EQ(server_->stats().rejected, 0);
}

TEST_F(SocketServerTest, AnIpQuotaClosesConnectionsPastItUnservedAfterTheThrottle) {
  std::atomic<int> calls{0};
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    calls.fetch_add(1);
    Echo(c, std::move(f), std::move(r));
  });
  SocketServerOptions o = Options();
  o.quota_window_num = 2;  // rates over at least one 1 s window
  o.ip_connection_rate = [](const std::string& address) -> std::optional<double> {
    return address == "127.0.0.1" ? std::optional<double>(1) : std::nullopt;
  };
  StartServer(std::move(o), &h);
  auto first = Connect();
  ASSERT_TRUE(first->SendFrame("a"));
  EXPECT_EQ(first->ReadFrameString(), "echo:a");
  // The second in the same second: 2 against 1 a second, (2 - 1) / 1 x 1 s = 1 s. Its request
  // is never read; the broker closes it once the second has passed.
  const auto start = std::chrono::steady_clock::now();
  auto second = Connect();
  ASSERT_TRUE(second->SendFrame("b"));
  EXPECT_TRUE(second->WaitClosed(5000));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(800));
  EXPECT_LT(waited, std::chrono::milliseconds(3000));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(h.closed.load(), 0);  // never a connection of the server's
  EXPECT_EQ(server_->stats().throttled, 1);
  EXPECT_EQ(server_->stats().open_connections, 1);  // the refused one was never counted
  // The first is untouched.
  ASSERT_TRUE(first->SendFrame("c"));
  EXPECT_EQ(first->ReadFrameString(), "echo:c");
}

TEST_F(SocketServerTest, AnExhaustedRequestMemoryPoolMutesConnectionsUntilBytesReturn) {
  std::mutex mu;
  std::vector<Responder> held;
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    if (AsString(f).rfind("hold", 0) == 0) {
      std::lock_guard<std::mutex> lock(mu);
      held.push_back(std::move(r));
      return;
    }
    Echo(c, std::move(f), std::move(r));
  });
  SocketServerOptions o = Options();
  o.queued_max_request_bytes = 1000;
  StartServer(std::move(o), &h);
  // 2000 bytes are granted (any bytes left grant a request, as Kafka's pool) and held.
  auto big = Connect();
  ASSERT_TRUE(big->SendFrame("hold" + std::string(1996, 'x')));
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return held.size() == 1;
  }));
  EXPECT_LE(server_->stats().request_memory_available, 0);
  // Now every other connection is muted, not dropped (a frame larger than the small ones
  // taken regardless).
  auto other = Connect();
  const std::string waiting = "wait" + std::string(100 * 1024, 'w');
  ASSERT_TRUE(other->SendFrame(waiting));
  EXPECT_TRUE(Eventually([&] { return server_->stats().memory_mutes >= 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(server_->stats().open_connections, 2);
  {
    std::lock_guard<std::mutex> lock(mu);
    held[0].Send(Text("done"));
  }
  EXPECT_EQ(big->ReadFrameString(), "done");
  // The held request's bytes are back: the muted connection reads on.
  EXPECT_EQ(other->ReadFrameString(), "echo:" + waiting);
  // A small frame is taken even from an exhausted pool.
  {
    std::lock_guard<std::mutex> lock(mu);
    held.clear();
  }
  ASSERT_TRUE(big->SendFrame("hold" + std::string(1996, 'x')));
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return held.size() == 1;
  }));
  auto small = Connect();
  ASSERT_TRUE(small->SendFrame("small"));
  EXPECT_EQ(small->ReadFrameString(), "echo:small");
  {
    std::lock_guard<std::mutex> lock(mu);
    held[0].Send(Text("done"));
  }
  EXPECT_EQ(big->ReadFrameString(), "done");
  EXPECT_TRUE(Eventually([&] { return server_->stats().request_memory_available == 1000; }));
}

TEST_F(SocketServerTest, IdleConnectionsAreClosed) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.connections_max_idle_ms = 300;
  StartServer(std::move(o), &h);
  auto idle = Connect();
  auto busy = Connect();
  ASSERT_TRUE(idle->SendFrame("once"));
  EXPECT_EQ(idle->ReadFrameString(), "echo:once");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 16; ++i) {  // 800 ms of a request every 50 ms
    ASSERT_TRUE(busy->SendFrame("ping"));
    ASSERT_EQ(busy->ReadFrameString(), "echo:ping");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(idle->WaitClosed(5000));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(250));
  ASSERT_TRUE(busy->SendFrame("still"));
  EXPECT_EQ(busy->ReadFrameString(), "echo:still");
  EXPECT_TRUE(log_.WaitFor("About to close the idle connection from"));
}

// Frames still arriving can hold the whole pool, each muted for the rest of its bytes: none
// would ever complete and give bytes back. One is let through beyond the pool instead.
TEST_F(SocketServerTest, FramesThatTogetherExhaustThePoolStillComplete) {
  FnHandler& h = *MakeHandler([](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    r.Send(Text(fmt::format("got {}", f.size())));
  });
  SocketServerOptions o = Options();
  o.queued_max_request_bytes = 256 * 1024;
  StartServer(std::move(o), &h);
  std::vector<std::unique_ptr<TestClient>> clients;
  std::vector<std::thread> senders;
  constexpr size_t kFrame = 1 << 20;  // four times the pool, each
  for (int i = 0; i < 4; ++i) clients.push_back(Connect());
  for (auto& c : clients) {
    senders.emplace_back([&c] { EXPECT_TRUE(c->SendFrame(std::string(kFrame, 'f'))); });
  }
  for (auto& c : clients) EXPECT_EQ(c->ReadFrameString(), fmt::format("got {}", kFrame));
  for (auto& t : senders) t.join();
  EXPECT_TRUE(Eventually([&] { return server_->stats().request_memory_available == 256 * 1024; }));
}

// A muted connection keeps the rest of its last read; that can hold the end of one frame and
// the start of the next. When resuming completes the frame and the next one's bytes find the pool
// exhausted again, the complete frame is still dispatched: its bytes are not a partial frame's,
// so no stuck check lets anything through, and nothing else would ever give them back.
TEST_F(SocketServerTest, AFrameCompletedWhileResumingIsDispatchedWhenTheNextIsMutedAgain) {
  FnHandler& h = *MakeHandler([](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    r.Send(Text(fmt::format("got {}", f.size())));
  });
  SocketServerOptions o = Options();
  o.queued_max_request_bytes = 1000;
  StartServer(std::move(o), &h);
  // Frames a little larger than the 64 KiB read (and than the small frames taken regardless):
  // the first read is granted and exhausts the pool, the next holds the first frame's end and
  // the second frame's start and is muted; the stuck check then lets the first frame complete.
  constexpr size_t kFrame = 70 * 1024;
  std::vector<uint8_t> both = TestClient::Frame(std::vector<uint8_t>(kFrame, 'a'));
  const std::vector<uint8_t> second = TestClient::Frame(std::vector<uint8_t>(kFrame, 'b'));
  both.insert(both.end(), second.begin(), second.end());
  auto c = Connect();
  ASSERT_TRUE(c->Send(both));
  EXPECT_EQ(c->ReadFrameString(), fmt::format("got {}", kFrame));
  EXPECT_EQ(c->ReadFrameString(), fmt::format("got {}", kFrame));
  EXPECT_TRUE(Eventually([&] { return server_->stats().request_memory_available == 1000; }));
}

// Many pipelining clients of frames larger than the pool, handled inline (as Produce), and a
// client of small requests beside them: every request is answered, none is dropped.
TEST_F(SocketServerTest, PipelinedFramesLargerThanThePoolAreAllAnswered) {
  FnHandler& h = *MakeHandler([](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    r.Send(Text(fmt::format("got {}", f.size())));
  });
  h.inline_when = [](const std::vector<uint8_t>&) { return true; };
  SocketServerOptions o = Options();
  o.queued_max_request_bytes = 4 << 20;
  o.num_network_threads = 3;
  StartServer(std::move(o), &h);
  static constexpr size_t kFrame = 2 << 20;
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int i = 0; i < 24; ++i) clients.push_back(Connect());
  std::vector<std::thread> threads;
  std::atomic<int> answered{0};
  for (auto& c : clients) {
    threads.emplace_back([&c, &answered] {
      const std::string frame(kFrame, 'p');
      if (!c->SendFrame(frame) || !c->SendFrame(frame)) return;
      for (int k = 0; k < 2; ++k) {
        if (c->ReadFrameString() == fmt::format("got {}", kFrame)) answered.fetch_add(1);
      }
    });
  }
  auto small = Connect();
  int small_answered = 0;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(small->SendFrame("small"));
    if (small->ReadFrameString() == "got 5") ++small_answered;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(answered.load(), 48);
  EXPECT_EQ(small_answered, 50);
  EXPECT_TRUE(Eventually([&] { return server_->stats().request_memory_available == 4 << 20; }));
  // Beyond the pool at worst by one frame let through a stuck pool at a time (and the small
  // frames taken regardless), whatever the number of network threads: each frame let through
  // must complete before the next is.
  EXPECT_GE(server_->stats().request_memory_low_water, -static_cast<int64_t>(kFrame + (256 << 10)))
      << "overdrawn by " << -server_->stats().request_memory_low_water;
}

// Idleness is time without I/O: a request in progress does not keep a connection open, nor
// does a response the client never reads.
TEST_F(SocketServerTest, IdlenessCountsWithARequestInProgressOrAResponseNotRead) {
  std::mutex mu;
  std::vector<Responder> never;
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    if (AsString(f) == "never") {
      std::lock_guard<std::mutex> lock(mu);
      never.push_back(std::move(r));
      return;
    }
    r.Send(Text(std::string(32 << 20, 'r')));  // far more than the socket buffers hold
  });
  SocketServerOptions o = Options();
  o.connections_max_idle_ms = 300;
  o.socket_send_buffer_bytes = 64 * 1024;
  StartServer(std::move(o), &h);
  auto parked = Connect();
  ASSERT_TRUE(parked->SendFrame("never"));
  auto not_reading = TestClient::Connect(server_->port(), 64 * 1024);
  ASSERT_TRUE(not_reading->SendFrame("big"));
  // Neither client reads: the server closes both once they have been idle 300 ms.
  EXPECT_TRUE(Eventually([&] { return server_->stats().open_connections == 0; }));
  EXPECT_TRUE(parked->WaitClosed(5000));
  EXPECT_TRUE(not_reading->WaitClosed(5000));
  EXPECT_TRUE(log_.WaitFor("About to close the idle connection from"));
  std::lock_guard<std::mutex> lock(mu);
  never.clear();
}

TEST_F(SocketServerTest, ShutdownFinishesTheRequestsInProgress) {
  std::atomic<int> arrived{0};
  std::vector<std::thread> answerers;
  std::mutex mu;
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t> f, Responder r) {
    arrived.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    answerers.emplace_back([r = std::move(r), s = AsString(f)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      r.Send(Text("late:" + s));
    });
  });
  StartServer(Options(), &h);
  auto a = Connect();
  auto b = Connect();
  auto quiet = Connect();  // no request: closed at once
  ASSERT_TRUE(a->SendFrame("one"));
  ASSERT_TRUE(a->SendFrame("queued-behind"));  // read ahead, not handled: dropped
  ASSERT_TRUE(b->SendFrame("two"));
  ASSERT_TRUE(Eventually([&] { return arrived.load() == 2; }));
  std::thread stopper([&] { server_->Shutdown(); });
  EXPECT_EQ(a->ReadFrameString(), "late:one");
  EXPECT_EQ(b->ReadFrameString(), "late:two");
  EXPECT_TRUE(a->WaitClosed());
  EXPECT_TRUE(b->WaitClosed());
  EXPECT_TRUE(quiet->WaitClosed());
  stopper.join();
  EXPECT_EQ(arrived.load(), 2);
  EXPECT_TRUE(log_.WaitFor("Shutdown completed"));
  EXPECT_EQ(TestClient::Connect(server_->port()), nullptr);  // no longer listening
  server_->Shutdown();                                       // idempotent
  std::lock_guard<std::mutex> lock(mu);
  for (auto& t : answerers) t.join();
}

TEST_F(SocketServerTest, ShutdownGivesUpOnARequestNeverAnswered) {
  std::mutex mu;
  std::vector<Responder> parked;  // answered only after the server is gone
  FnHandler& h = *MakeHandler([&](const RequestContext&, std::vector<uint8_t>, Responder r) {
    std::lock_guard<std::mutex> lock(mu);
    parked.push_back(std::move(r));
  });
  SocketServerOptions o = Options();
  o.shutdown_timeout_ms = 200;
  StartServer(std::move(o), &h);
  auto a = Connect();
  ASSERT_TRUE(a->SendFrame("parked"));
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard<std::mutex> lock(mu);
    return parked.size() == 1;
  }));
  server_->Shutdown();
  EXPECT_TRUE(a->WaitClosed());
  EXPECT_TRUE(log_.WaitFor("connections still had a request in progress after 200 ms"));
  server_.reset();
  std::lock_guard<std::mutex> lock(mu);
  parked[0].Send(Text("too late"));  // goes nowhere, harmlessly
}

TEST_F(SocketServerTest, AFullRequestQueueLinesRequestsUp) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> handled{0};
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait_for(lock, std::chrono::seconds(10), [&] { return release; });
    }
    handled.fetch_add(1);
    Echo(c, std::move(f), std::move(r));
  });
  SocketServerOptions o = Options();
  o.num_io_threads = 1;
  o.queued_max_requests = 1;
  StartServer(std::move(o), &h);
  std::vector<std::unique_ptr<TestClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(Connect());
    ASSERT_TRUE(clients.back()->SendFrame(fmt::format("c{}", i)));
  }
  // One in the handler, one queued, two waiting for room.
  EXPECT_TRUE(Eventually([&] {
    auto s = server_->stats();
    return s.queued_requests == 1 && s.waiting_requests == 2;
  }));
  EXPECT_EQ(handled.load(), 0);
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(clients[static_cast<size_t>(i)]->ReadFrameString(), fmt::format("echo:c{}", i));
  }
}

TEST_F(SocketServerTest, HundredsOfGarbageConnectionsDoNotDisturbAGoodOne) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.socket_request_max_bytes = 1 << 20;
  o.socket_listen_backlog_size = 1024;  // connects are not delayed by SYN retries
  o.log_debug = false;
  StartServer(std::move(o), &h);
  const int port = server_->port();
  std::atomic<bool> stop{false};
  std::atomic<int> good_rounds{0};
  std::thread good([&] {
    auto c = TestClient::Connect(port);
    ASSERT_NE(c, nullptr);
    for (int i = 0; i < 300 && !stop; ++i) {
      const std::string payload = fmt::format("good-{}", i);
      ASSERT_TRUE(c->SendFrame(payload));
      ASSERT_EQ(c->ReadFrameString(), "echo:" + payload);
      good_rounds.fetch_add(1);
    }
  });
  constexpr int kGarbage = 300;
  std::vector<std::thread> senders;
  for (int t = 0; t < 4; ++t) {
    senders.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(100 + t));
      std::vector<std::unique_ptr<TestClient>> mine;
      for (int i = 0; i < kGarbage / 4; ++i) {
        auto c = TestClient::Connect(port);
        if (c == nullptr) continue;
        const int kind = static_cast<int>(rng() % 4);
        std::vector<uint8_t> bytes(1 + rng() % 300);
        for (auto& b : bytes) b = static_cast<uint8_t>(rng());
        if (kind == 0) {  // a valid frame of random bytes
          auto f = TestClient::Frame(bytes);
          c->Send(f);
        } else if (kind == 1) {  // a size that promises more than comes
          c->SendSize(static_cast<int32_t>(1000 + rng() % 100000));
          c->Send(bytes);
        } else {  // random bytes
          c->Send(bytes);
        }
        mine.push_back(std::move(c));
      }
      for (size_t i = 0; i < mine.size(); ++i) {
        if (i % 2) mine[i]->Reset();
      }
    });
  }
  for (auto& s : senders) s.join();
  good.join();
  stop = true;
  EXPECT_EQ(good_rounds.load(), 300);
  EXPECT_TRUE(Eventually([&] { return server_->stats().accepted >= kGarbage + 1; }));
  ExpectEchoWorks();
}

TEST_F(SocketServerTest, BadOptionsAndBindFailures) {
  FnHandler& h = *MakeHandler(Echo);
  SocketServerOptions o = Options();
  o.num_io_threads = 0;
  o.queued_max_requests = 0;
  auto bad = SocketServer::Start(o, &h);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("Invalid value 0 for configuration num.io.threads"));
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("Invalid value 0 for configuration queued.max.requests"));
  StartServer(Options(), &h);
  SocketServerOptions same = Options();
  same.listeners = {{"PLAINTEXT", "127.0.0.1", server_->port()}};
  auto taken = SocketServer::Start(same, &h);
  ASSERT_FALSE(taken.ok());
  EXPECT_THAT(
      std::string(taken.status().message()),
      HasSubstr(fmt::format("Socket server failed to bind to 127.0.0.1:{}", server_->port())));
}

TEST_F(SocketServerTest, EveryListenerAcceptsAndNamesItself) {
  std::mutex mu;
  std::vector<std::string> listeners;
  FnHandler& h = *MakeHandler([&](const RequestContext& c, std::vector<uint8_t> f, Responder r) {
    {
      std::lock_guard<std::mutex> lock(mu);
      listeners.push_back(c.listener);
    }
    Echo(c, std::move(f), std::move(r));
  });
  SocketServerOptions o = Options();
  o.listeners = {{"PLAINTEXT", "127.0.0.1", 0}, {"INTERNAL", "127.0.0.1", 0}};
  StartServer(std::move(o), &h);
  const int internal = server_->port("INTERNAL");
  ASSERT_GT(internal, 0);
  EXPECT_NE(internal, server_->port());
  // Connections alternate between the listeners, so each listener's pending accept was set up
  // for one network thread while the other listener's accept moved the round robin on: the
  // socket must still be adopted by the thread whose io_context it was opened on.
  std::vector<std::unique_ptr<TestClient>> open;
  for (int round = 0; round < 3; ++round) {
    for (int port : {server_->port(), internal}) {
      auto c = TestClient::Connect(port);
      ASSERT_NE(c, nullptr);
      ASSERT_TRUE(c->SendFrame("x"));
      EXPECT_EQ(c->ReadFrameString(), "echo:x") << log_.All();
      open.push_back(std::move(c));
    }
  }
  EXPECT_EQ(log_.All().find("socket of another network thread"), std::string::npos) << log_.All();
  std::lock_guard<std::mutex> lock(mu);
  std::vector<std::string> want;
  for (int round = 0; round < 3; ++round) {
    want.push_back("PLAINTEXT");
    want.push_back("INTERNAL");
  }
  EXPECT_EQ(listeners, want);
}

TEST(WaitForTerminationSignalTest, ReturnsOnSigterm) {
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::kill(::getpid(), SIGTERM);
  });
  Result<int> got = WaitForTerminationSignal();
  sender.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, SIGTERM);
}

}  // namespace
}  // namespace seglog
