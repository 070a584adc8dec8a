// Processor: one network thread (Kafka's Processor) - an asio io_context run by one thread,
// owning the connections the acceptor gave it. Every Connection of a processor runs only on
// its thread, so connections need no locks.
//
// Lifecycle: Start() runs the thread; Drain() asks every connection to finish its request in
// progress and close; Stop() closes whatever is left and joins the thread.
//
// Thread safety: Start, Drain, Stop and Adopt may be called from any thread (they post to the
// network thread); the connection map is touched only on the network thread.
#ifndef SEGLOG_SERVER_PROCESSOR_H_
#define SEGLOG_SERVER_PROCESSOR_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include "server/asio.h"

#include "server/server_state.h"

namespace seglog {

class Processor {
 public:
  Processor(int id, ServerState* state);
  ~Processor();  // REQUIRES: Stop() was called (or Start() never was)
  Processor(const Processor&) = delete;
  Processor& operator=(const Processor&) = delete;

  void Start();
  // Takes an accepted socket (opened on io_context()) as a new connection of `listener`
  // (which outlives the processor), from `address` (the IP the acceptor counted it under).
  void Adopt(asio::ip::tcp::socket socket, const ListenerRuntime* listener, std::string address);
  void Drain();
  void Stop();

  asio::io_context& io_context() { return io_; }
  const std::shared_ptr<Mailbox>& mailbox() const { return mailbox_; }
  // Network thread only: a connection closed.
  void Remove(uint64_t connection_id);
  // Network thread only: the connection waits for the request memory pool; it is resumed
  // (Connection::ResumeAfterMemory) when the pool has bytes again.
  void WaitForMemory(uint64_t connection_id);
  // CPU time the network thread has used (0 before Start or if the clock cannot be read).
  // Any thread, while the processor is started.
  int64_t CpuNs() const;

 private:
  void ResumeMemoryWaiters();
  void ArmStuckCheck();

  const int id_;
  ServerState* const state_;
  asio::io_context io_{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::shared_ptr<Mailbox> mailbox_;
  std::thread thread_;
  // Network thread only.
  std::map<uint64_t, std::shared_ptr<Connection>> connections_;
  std::vector<uint64_t> memory_waiters_;  // in the order they were muted
  // While connections wait for memory: looks whether the pool is stuck (memory_pool.h).
  asio::steady_timer stuck_check_{io_};
  bool stuck_check_armed_ = false;
  bool draining_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_PROCESSOR_H_
