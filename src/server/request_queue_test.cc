#include "server/request_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace seglog {
namespace {

struct Recorder {
  std::vector<Response::Action> actions;
  Responder Make() {
    return Responder([this](Response r) { actions.push_back(r.action); });
  }
};

QueuedRequest Request(uint64_t id, Recorder* r) {
  return QueuedRequest{RequestContext{id, "127.0.0.1:1", "PLAINTEXT", 0, "User:ANONYMOUS",
                                      "127.0.0.1", "PLAINTEXT", nullptr},
                       {},
                       r->Make(),
                       nullptr};
}

TEST(RequestQueueTest, FullQueueLinesRequestsUpInArrivalOrder) {
  Recorder rec;
  RequestQueue q(2);
  EXPECT_TRUE(q.Push(Request(1, &rec)));
  EXPECT_TRUE(q.Push(Request(2, &rec)));
  EXPECT_FALSE(q.Push(Request(3, &rec)));  // waits
  EXPECT_FALSE(q.Push(Request(4, &rec)));
  EXPECT_EQ(q.queued(), 2u);
  EXPECT_EQ(q.waiting(), 2u);
  for (uint64_t want = 1; want <= 4; ++want) {
    auto r = q.Pop();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->context.connection_id, want);
    r->responder.NoResponse();
  }
  EXPECT_EQ(q.queued(), 0u);
  EXPECT_EQ(q.waiting(), 0u);
  EXPECT_EQ(rec.actions.size(), 4u);
}

TEST(RequestQueueTest, CloseWakesPoppersAndDropsWhatIsLeft) {
  Recorder rec;
  RequestQueue q(1);
  std::atomic<int> woke{0};
  std::vector<std::thread> poppers;
  for (int i = 0; i < 3; ++i) {
    poppers.emplace_back([&] {
      while (q.Pop()) {
      }
      woke.fetch_add(1);
    });
  }
  q.Close();
  for (auto& t : poppers) t.join();
  EXPECT_EQ(woke.load(), 3);
  // After Close a request is dropped: its Responder reports it abandoned.
  EXPECT_FALSE(q.Push(Request(9, &rec)));
  ASSERT_EQ(rec.actions.size(), 1u);
  EXPECT_EQ(rec.actions[0], Response::Action::kAbandoned);

  RequestQueue full(1);
  Recorder rec2;
  EXPECT_TRUE(full.Push(Request(1, &rec2)));
  EXPECT_FALSE(full.Push(Request(2, &rec2)));
  full.Close();
  EXPECT_EQ(rec2.actions, (std::vector<Response::Action>{Response::Action::kAbandoned,
                                                         Response::Action::kAbandoned}));
}

TEST(ResponderTest, AnswersOnceAndReportsAnAbandonedRequest) {
  Recorder rec;
  {
    Responder r = rec.Make();
    EXPECT_FALSE(r.answered());
    r.CloseConnection();
    EXPECT_TRUE(r.answered());
  }
  { Responder dropped = rec.Make(); }
  {
    Responder a = rec.Make();
    Responder b = std::move(a);  // a no longer answers
    b.Send(ResponseBuffer());
  }
  EXPECT_EQ(rec.actions,
            (std::vector<Response::Action>{Response::Action::kCloseConnection,
                                           Response::Action::kAbandoned, Response::Action::kSend}));
  Responder twice = rec.Make();
  twice.NoResponse();
  EXPECT_DEATH(twice.NoResponse(), "answered twice");
}

}  // namespace
}  // namespace seglog
