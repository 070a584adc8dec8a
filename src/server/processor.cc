// Processor; see processor.h.
#include "server/processor.h"

#include <fmt/format.h>
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "server/connection.h"

namespace seglog {

Processor::Processor(int id, ServerState* state)
    : id_(id),
      state_(state),
      work_(asio::make_work_guard(io_)),
      mailbox_(std::make_shared<Mailbox>(&io_)) {
  // Once the request memory pool has bytes again, the muted connections read on. The
  // mailbox drops the wake-up once this processor stopped.
  state_->pool.AddListener(
      [mailbox = mailbox_, this] { mailbox->Post([this] { ResumeMemoryWaiters(); }); });
}

Processor::~Processor() {
  mailbox_->Close();
  if (thread_.joinable()) Stop();
}

void Processor::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), ("seglog-net-" + std::to_string(id_)).substr(0, 15).c_str());
    io_.run();
  });
}

void Processor::Adopt(asio::ip::tcp::socket socket, const ListenerRuntime* listener,
                      std::string address) {
  if (&socket.get_executor().context() != &io_) {
    // Its reads and writes would complete on another network thread, racing this one's.
    state_->Warn(fmt::format(
        "Closing a connection on listener {} handed to network thread {} with a socket of "
        "another network thread",
        listener->name, id_));
    asio::error_code ignored;
    socket.close(ignored);
    state_->ConnectionClosed(listener->name, address);
    return;
  }
  asio::post(
      io_, [this, socket = std::move(socket), listener, address = std::move(address)]() mutable {
        const uint64_t id = state_->next_connection_id.fetch_add(1, std::memory_order_relaxed);
        auto c = std::make_shared<Connection>(this, state_, std::move(socket), id, listener,
                                              std::move(address));
        connections_.emplace(id, c);
        state_->CountListenerConnection(listener->name, id_, +1);
        c->Start();
        if (draining_) c->Drain();
      });
}

void Processor::Remove(uint64_t connection_id) {
  auto it = connections_.find(connection_id);
  if (it == connections_.end()) return;
  state_->CountListenerConnection(it->second->listener_name(), id_, -1);
  connections_.erase(it);
}

int64_t Processor::CpuNs() const {
  // The network thread's CPU time: what it did not spend waiting in epoll.
  if (!thread_.joinable()) return 0;
  clockid_t clock;
  if (pthread_getcpuclockid(const_cast<std::thread&>(thread_).native_handle(), &clock) != 0) {
    return 0;
  }
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void Processor::WaitForMemory(uint64_t connection_id) {
  memory_waiters_.push_back(connection_id);
  ArmStuckCheck();
  // The pool may have been refilled between the refusal and now (by another thread): look
  // again on the next turn rather than wait for a wake-up that already happened.
  if (!state_->pool.exhausted()) {
    asio::post(io_, [this] { ResumeMemoryWaiters(); });
  }
}

void Processor::ArmStuckCheck() {
  if (stuck_check_armed_) return;
  stuck_check_armed_ = true;
  stuck_check_.expires_after(std::chrono::milliseconds(10));
  stuck_check_.async_wait([this](const asio::error_code& ec) {
    stuck_check_armed_ = false;
    if (ec) return;
    // Drop the waiters that closed meanwhile.
    std::erase_if(memory_waiters_, [this](uint64_t id) { return !connections_.count(id); });
    if (memory_waiters_.empty()) return;
    if (state_->pool.Stuck() && state_->pool.TryStartRelief()) {
      // Every byte in use belongs to a frame still arriving, all muted: none would ever finish.
      // The longest waiter completes its frame regardless, and its request then gives back.
      const uint64_t id = memory_waiters_.front();
      memory_waiters_.erase(memory_waiters_.begin());
      std::shared_ptr<Connection> c = connections_.at(id);
      state_->Debug(
          "The request memory pool is held by frames still arriving; letting one "
          "complete beyond it");
      c->ResumeAfterMemory(/*overdraft=*/true);
    }
    if (!memory_waiters_.empty()) ArmStuckCheck();
  });
}

void Processor::ResumeMemoryWaiters() {
  std::vector<uint64_t> waiters;
  waiters.swap(memory_waiters_);
  // Small frames first (in their order), then the rest in theirs: a large frame takes all
  // that a release gave back, and small requests would otherwise queue behind every one.
  std::stable_partition(waiters.begin(), waiters.end(), [this](uint64_t id) {
    auto it = connections_.find(id);
    return it != connections_.end() && it->second->WaitingForSmallFrame();
  });
  for (size_t i = 0; i < waiters.size(); ++i) {
    if (state_->pool.exhausted()) {
      // Still none: the rest keep waiting, in order.
      memory_waiters_.insert(memory_waiters_.begin(), waiters.begin() + i, waiters.end());
      return;
    }
    auto it = connections_.find(waiters[i]);
    if (it == connections_.end()) continue;
    std::shared_ptr<Connection> c = it->second;
    c->ResumeAfterMemory();
  }
}

void Processor::Drain() {
  asio::post(io_, [this] {
    draining_ = true;
    std::vector<std::shared_ptr<Connection>> all;
    for (auto& [id, c] : connections_) all.push_back(c);
    for (auto& c : all) c->Drain();  // may Remove() from connections_
  });
}

void Processor::Stop() {
  // Answers from now on go nowhere; then close what is left and let run() end.
  mailbox_->Close();
  asio::post(io_, [this] {
    std::vector<std::shared_ptr<Connection>> all;
    for (auto& [id, c] : connections_) all.push_back(c);
    for (auto& c : all) c->Close();
    memory_waiters_.clear();
    stuck_check_.cancel();
    work_.reset();
  });
  if (thread_.joinable()) thread_.join();
}

}  // namespace seglog
