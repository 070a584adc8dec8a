// Connection: one client connection on its network thread (Kafka's KafkaChannel with its
// Selector's bookkeeping). It reads request frames (size, then bytes) ahead into a bounded
// line, hands them to the RequestQueue one at a time, writes each answer (bytes with
// gathered async writes, FileSlices with sendfile(2) on the non-blocking socket), and only
// then hands over the next request. It closes on a bad frame size, an I/O error, the client's
// disconnect, idleness (connections.max.idle.ms: no byte read or written for that long, even
// with a request in progress), a handler's "close connection", or shutdown.
//
// Memory: a frame's bytes are taken from the broker's request memory pool as they arrive and
// given back when nothing of the request is left (memory_pool.h); while the pool is exhausted
// the connection is muted - it reads nothing, and is woken by its processor when bytes return.
//
// Security, by its listener's protocol:
// - SSL, SASL_SSL: a TLS handshake first (Asio's SSL stream over the socket); bytes go through
//   it both ways, and FileSlices are read into memory and encrypted (this kernel offers no
//   kTLS to sendfile(2) through). On SSL the principal is the client certificate's subject,
//   mapped by ssl.principal.mapping.rules, or User:ANONYMOUS without one.
// - SASL_PLAINTEXT, SASL_SSL: every frame goes to the SaslAuthenticator until the client is
//   authenticated (frames no larger than sasl.server.max.receive.size); a failure is answered
//   after connection.failed.authentication.delay.ms and the connection closed. The principal is
//   the authenticated user's; a SaslHandshake on a session with an expiry re-authenticates
//   (KIP-368), and once it has expired any other request closes the connection.
//
// Lifecycle: created by its Processor, which holds it in its map until it closes; every
// pending asio operation holds a shared_ptr to it, so it lives until the last one completes.
//
// Thread safety: not thread-safe; every method runs on its processor's network thread.
// Answers from other threads arrive through the processor's Mailbox.
#ifndef SEGLOG_SERVER_CONNECTION_H_
#define SEGLOG_SERVER_CONNECTION_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>
#include "server/asio.h"

#include "server/asio_ssl.h"
#include "server/request_times.h"
#include "server/sasl_authenticator.h"
#include "server/server_state.h"

namespace seglog {

class Processor;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `host`: the client's IP as the acceptor counted the connection under it (un-counted under
  // the same when it closes, whatever the socket says by then).
  Connection(Processor* processor, ServerState* state, asio::ip::tcp::socket socket, uint64_t id,
             const ListenerRuntime* listener, std::string host);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts reading and the idle timer.
  void Start();
  // Shutdown: reads no more requests; closes once the request in progress (if any) is
  // answered and written.
  void Drain();
  // Closes now; pending operations end with operation_aborted. Idempotent.
  void Close();
  // The answer to the request in progress (posted here from the answering thread).
  void OnAnswer(Response response);
  // The request memory pool has bytes again: reads on if this connection was muted for it.
  // `overdraft`: the pool is stuck (memory_pool.h) and the caller took its relief for this
  // connection: the frame being received may complete whatever the pool has, and the relief
  // is given back when it is complete or the connection closes.
  void ResumeAfterMemory(bool overdraft = false);
  // Muted for memory while receiving a small frame (a heartbeat, a consumer's fetch, a small
  // produce): resumed before the large ones, so they do not wait behind them.
  bool WaitingForSmallFrame() const;

  uint64_t id() const { return id_; }
  const std::string& listener_name() const { return listener_->name; }

 private:
  struct Frame {
    std::vector<uint8_t> bytes;
    int64_t received_ms;
    int64_t received_ns;                   // MonotonicNs(), for the request's phase times
    std::shared_ptr<MemoryCharge> charge;  // its bytes in the request memory pool
  };

  void OnTlsHandshake(const asio::error_code& ec);
  // Fails the SASL or TLS authentication: after the delay, sends `response` (if any), closes.
  void FailAuthentication(std::vector<uint8_t> response, const std::string& reason);
  // Answers a frame the authenticator took, as if a handler had.
  void AnswerInline(std::vector<uint8_t> bytes);
  const std::string& principal() const;

  void ReadMore();
  void OnRead(const asio::error_code& ec, size_t n);
  // Splits bytes read into frames; false (connection closed) on a bad size.
  bool Consume(const uint8_t* data, size_t n);
  bool ReadAheadFull() const;
  // Gives the pool's relief back, if this connection holds it.
  void EndRelief();
  void MaybeDispatch();
  void RequestDone();

  // Writing one response: chunks_[next_chunk_...] of response_.
  void WriteNext();
  void SendFile();
  // TLS: a FileSlice read into memory and written through the stream.
  void SendFileTls();
  void OnWriteError(const asio::error_code& ec, const char* what);

  void ArmIdleTimer(std::chrono::milliseconds after);
  void OnIdleTimer(const asio::error_code& ec);
  void Touch() { last_activity_ = std::chrono::steady_clock::now(); }

  Processor* const processor_;
  ServerState* const state_;
  asio::ip::tcp::socket socket_;
  asio::steady_timer idle_timer_;
  const uint64_t id_;
  const ListenerRuntime* const listener_;
  // TLS (SSL, SASL_SSL): the context this connection started with, and the stream over socket_.
  std::shared_ptr<asio::ssl::context> tls_context_;
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls_;
  std::vector<uint8_t> tls_out_;              // the bytes of the TLS write in flight
  std::unique_ptr<SaslAuthenticator> sasl_;   // SASL_PLAINTEXT, SASL_SSL
  std::string principal_ = "User:ANONYMOUS";  // without SASL
  asio::steady_timer auth_timer_;             // the delay before a failed authentication closes
  bool close_after_write_ = false;            // the response being written ends the connection
  std::string client_address_;                // "ip:port"
  std::string client_host_;                   // "ip", as Kafka prints it after a '/'
  std::string channel_id_;                    // Kafka's "local-remote-id"

  // Reading.
  std::array<uint8_t, 64 * 1024> read_buffer_;
  bool read_pending_ = false;  // an async read is outstanding
  std::array<uint8_t, 4> size_bytes_{};
  size_t size_have_ = 0;  // bytes of the size prefix read so far
  int32_t frame_size_ = 0;
  std::vector<uint8_t> frame_;  // grows as bytes arrive, never ahead of them
  // The pool bytes of frame_, taken as its bytes arrive.
  std::shared_ptr<MemoryCharge> frame_charge_;
  // Muted for want of request memory: the bytes read but not yet taken wait in stash_.
  bool memory_muted_ = false;
  bool overdraft_ = false;  // the frame being received completes whatever the pool has
  bool relief_ = false;     // holds the pool's relief (until the frame completes)
  std::vector<uint8_t> stash_;
  std::deque<Frame> pending_;  // complete frames behind the one in progress
  size_t pending_bytes_ = 0;

  // The request in progress: handed to a handler, or its response being written.
  bool in_progress_ = false;
  bool writing_ = false;
  // Throttled by a client quota: no request is read or handed over until the timer fires.
  bool throttled_ = false;
  asio::steady_timer throttle_timer_;
  std::shared_ptr<MemoryCharge> request_charge_;  // the request in progress's pool bytes
  // The request in progress's phase times, when the server has a request observer.
  std::shared_ptr<RequestStamps> stamps_;
  RequestTimes times_;  // its api key and version
  int64_t request_received_ns_ = 0;
  int64_t answer_taken_ns_ = 0;  // the network thread took its answer
  Response response_;
  size_t next_chunk_ = 0;
  int64_t file_sent_ = 0;   // of the FileSlice chunk being sent
  bool size_sent_ = false;  // the 4-byte size prefix is written
  std::array<uint8_t, 4> response_size_{};
  std::vector<asio::const_buffer> gather_;  // the write in flight

  std::chrono::steady_clock::time_point last_activity_;
  bool draining_ = false;
  bool closed_ = false;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_CONNECTION_H_
