#include "node/broker_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "server/test_client.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

// An ApiVersions v0 request (header v1: key 18, version 0, correlation id, client id "t").
std::vector<uint8_t> ApiVersionsV0(int32_t correlation_id) {
  std::vector<uint8_t> b = {0, 18, 0, 0};
  for (int shift = 24; shift >= 0; shift -= 8) {
    b.push_back(static_cast<uint8_t>(correlation_id >> shift));
  }
  b.insert(b.end(), {0, 1, 't'});
  return b;
}

int32_t Int32At(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<int32_t>((uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) |
                              (uint32_t{b[at + 2]} << 8) | uint32_t{b[at + 3]});
}

class BrokerServerTest : public ::testing::Test {
 protected:
  BrokerConfig Config(std::map<std::string, std::string> props = {}) {
    props["log.dirs"] = dir_.path();
    props["listeners"] = "PLAINTEXT://127.0.0.1:0";
    props.emplace("offsets.topic.num.partitions", "2");
    props.emplace("transaction.state.log.num.partitions", "2");
    auto c = BrokerConfig::FromProperties(props);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : BrokerConfig();
  }
  BrokerServer::Options Options() {
    BrokerServer::Options o;
    o.logger = [this](const std::string& line) {
      std::lock_guard<std::mutex> g(mu_);
      lines_.push_back(line);
    };
    return o;
  }
  std::vector<std::string> Lines() {
    std::lock_guard<std::mutex> g(mu_);
    return lines_;
  }
  // The index of the first line containing `text`, or -1.
  int IndexOf(const std::string& text) {
    auto lines = Lines();
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find(text) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  }
  bool CleanShutdownMarked() {
    return std::filesystem::exists(dir_.path() + "/.kafka_cleanshutdown");
  }

  testing::TempDir dir_;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST_F(BrokerServerTest, ServesOnThePortItBoundThenStopsInOrder) {
  auto server = BrokerServer::Start(Config(), Options());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const int port = (*server)->port();
  ASSERT_GT(port, 0);
  EXPECT_FALSE((*server)->cluster_id().empty());
  EXPECT_FALSE(CleanShutdownMarked());  // removed while the node runs

  auto client = testing::TestClient::Connect(port);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Send(testing::TestClient::Frame(ApiVersionsV0(41))));
  auto response = client->ReadFrame();
  ASSERT_TRUE(response.has_value());
  ASSERT_GE(response->size(), 6u);
  EXPECT_EQ(Int32At(*response, 0), 41);                // the correlation id
  EXPECT_EQ((*response)[4] << 8 | (*response)[5], 0);  // error_code NONE

  EXPECT_TRUE((*server)->Shutdown().ok());
  EXPECT_TRUE(client->WaitClosed());
  EXPECT_TRUE(CleanShutdownMarked());
  EXPECT_TRUE((*server)->Shutdown().ok());  // once only
  // Started: storage and its tasks, then the listener; stopped: the socket server's requests
  // before the logs close.
  const std::vector<int> order = {IndexOf("Loading logs"),
                                  IndexOf("Starting log cleanup"),
                                  IndexOf("Awaiting socket connections"),
                                  IndexOf("started (seglog"),
                                  IndexOf("shutting down"),
                                  IndexOf("Stopped socket server request processors"),
                                  IndexOf("Shutting down."),
                                  IndexOf("Shutdown complete."),
                                  IndexOf("shut down completed")};
  EXPECT_THAT(Lines(), ::testing::Contains(HasSubstr(fmt::format("127.0.0.1:{}", port))));
  EXPECT_TRUE(order.front() >= 0 && std::is_sorted(order.begin(), order.end()) &&
              std::adjacent_find(order.begin(), order.end()) == order.end())
      << ::testing::PrintToString(Lines());
}

TEST_F(BrokerServerTest, AFrontHandlerStandsBeforeTheBroker) {
  struct Front : RequestHandler {
    explicit Front(RequestHandler* b) : broker(b) {}
    void Handle(const RequestContext& context, std::vector<uint8_t> frame,
                Responder respond) override {
      ++seen;
      broker->Handle(context, std::move(frame), std::move(respond));
    }
    RequestHandler* broker;
    std::atomic<int> seen{0};
  };
  Front* front = nullptr;
  BrokerServer::Options o = Options();
  o.front = [&front](RequestHandler* broker) {
    auto f = std::make_unique<Front>(broker);
    front = f.get();
    return f;
  };
  auto server = BrokerServer::Start(Config(), std::move(o));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ASSERT_NE(front, nullptr);
  auto client = testing::TestClient::Connect((*server)->port());
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Send(testing::TestClient::Frame(ApiVersionsV0(5))));
  auto response = client->ReadFrame();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(Int32At(*response, 0), 5);
  EXPECT_EQ(front->seen.load(), 1);
}

TEST_F(BrokerServerTest, AStartThatFailsPartWayStopsWhatItStarted) {
  // Tiered storage refuses an unknown store after the logs and coordinators have started:
  // they are shut down cleanly (the directory's lock is free and its clean-shutdown marker
  // written), and no listener was bound.
  auto failed = BrokerServer::Start(
      Config({{"remote.log.storage.system.enable", "true"},
              {"remote.log.storage.manager.class.name", "com.example.Nowhere"}}),
      Options());
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().ToString(), HasSubstr("tiered storage"));
  EXPECT_THAT(failed.status().ToString(), HasSubstr("com.example.Nowhere"));
  EXPECT_TRUE(CleanShutdownMarked());
  EXPECT_GE(IndexOf("Shutdown complete."), 0);
  EXPECT_EQ(IndexOf("started (seglog"), -1);

  // A listener that cannot bind (the port is taken) fails last: everything else stops.
  auto first = BrokerServer::Start(Config(), Options());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  testing::TempDir other;
  auto props = std::map<std::string, std::string>{
      {"log.dirs", other.path()},
      {"listeners", fmt::format("PLAINTEXT://127.0.0.1:{}", (*first)->port())}};
  auto config = BrokerConfig::FromProperties(props);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto taken = BrokerServer::Start(*config, Options());
  ASSERT_FALSE(taken.ok());
  EXPECT_TRUE(std::filesystem::exists(other.path() + "/.kafka_cleanshutdown"));
  EXPECT_TRUE((*first)->Shutdown().ok());
}

}  // namespace
}  // namespace seglog
