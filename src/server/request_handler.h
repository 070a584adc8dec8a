// The transport's contract with the broker: the socket server hands each request frame to a
// RequestHandler with a Responder, and the handler answers through the Responder exactly once,
// from any thread, now or later (a long-polling fetch answers when data arrives or its wait
// ends). The server knows nothing of the messages inside the frames.
//
// Thread safety: RequestContext and Response are values. A Responder is owned by one thread
// at a time (move it to hand it over); its methods may be called from any thread. A
// RequestHandler is called from many request handler threads at once and must be thread-safe.
#ifndef SEGLOG_SERVER_REQUEST_HANDLER_H_
#define SEGLOG_SERVER_REQUEST_HANDLER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/memory_pool.h"
#include "server/response_buffer.h"

namespace seglog {

// Where a request came from.
struct RequestContext {
  uint64_t connection_id = 0;  // unique for the life of the server process, from 1
  std::string client_address;  // "ip:port" of the client ("[::1]:port" for IPv6)
  std::string listener;        // the listener name ("PLAINTEXT")
  int64_t received_ms = 0;     // wall clock (ms since the epoch) when its last byte was read
  // Who sent it, as Kafka's KafkaPrincipal prints it: "User:alice" (SASL), "User:CN=..." (a
  // TLS client certificate's subject, mapped), "User:ANONYMOUS" (no authentication).
  std::string principal = "User:ANONYMOUS";
  std::string client_host;                      // the client's IP address, for ACL host checks
  std::string security_protocol = "PLAINTEXT";  // the listener's
  // The request's bytes in the broker's request memory pool (null without a pool, as in
  // handler tests). A handler charges what it decodes to it; it is released when the last
  // copy of the context (and the connection's own) is gone.
  std::shared_ptr<MemoryCharge> memory;
};

// What a handler answers.
struct Response {
  enum class Action {
    kSend,             // send `buffer` as the response frame
    kNoResponse,       // send nothing (a Produce with acks=0); the next request proceeds
    kCloseConnection,  // close the connection without answering (Kafka's answer to a request
                       // it cannot parse)
    kAbandoned,        // set by the Responder's destructor when no answer was given: the
                       // connection is closed, and the server logs it
  };
  Action action = Action::kSend;
  ResponseBuffer buffer;  // kSend only
  // kSend, kNoResponse: a client quota's throttle (KIP-219): once the response is written, the
  // connection reads nothing more for this long.
  int64_t throttle_ms = 0;
};

// The one-shot answer channel of one request. Move-only. Answering twice is a programming
// error (aborts); a Responder destroyed without an answer closes the connection, so a lost
// request never hangs its connection (the server logs it).
class Responder {
 public:
  // `deliver` receives the answer, once, on the thread that answers. The socket server builds
  // these; handler unit tests can pass a function that records the Response.
  explicit Responder(std::function<void(Response)> deliver) : deliver_(std::move(deliver)) {}
  Responder(Responder&& other) noexcept : deliver_(std::move(other.deliver_)) {
    other.deliver_ = nullptr;
  }
  Responder& operator=(Responder&& other) noexcept;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;
  ~Responder();

  void Send(ResponseBuffer buffer, int64_t throttle_ms = 0) {
    Answer(Response{Response::Action::kSend, std::move(buffer), throttle_ms});
  }
  void NoResponse(int64_t throttle_ms = 0) {
    Answer(Response{Response::Action::kNoResponse, {}, throttle_ms});
  }
  void CloseConnection() { Answer(Response{Response::Action::kCloseConnection, {}, 0}); }
  // REQUIRES: not answered yet.
  void Answer(Response response);
  bool answered() const { return deliver_ == nullptr; }

 private:
  std::function<void(Response)> deliver_;  // null once answered (or moved from)
};

// Implemented by the broker (the API dispatcher).
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;

  // `frame` is one request, without its 4-byte size prefix; the handler owns it (a Produce may
  // keep its record bytes without copying them). Called on a request handler thread (on the
  // network thread that read it when HandlesInline(frame) said so); the
  // requests of one connection come one at a time, in the order they were sent: the next is
  // handled only after `respond` was answered and that response was written, so responses go
  // out in request order (Kafka mutes the channel the same way). Requests of different
  // connections are handled in parallel.
  // REQUIRES: returns promptly (parks long waits, e.g. a fetch's max.wait.ms, and answers
  // later from another thread); answers `respond` exactly once.
  virtual void Handle(const RequestContext& context, std::vector<uint8_t> frame,
                      Responder respond) = 0;

  // The connection closed (client, error, idle or shutdown): an answer to its request in
  // progress, if any, will be dropped, so a parked request of it may be given up. Called on a
  // network thread, possibly while that request is still in Handle.
  // REQUIRES: returns promptly; thread-safe.
  virtual void OnConnectionClosed(uint64_t connection_id) { (void)connection_id; }

  // Whether `frame` may be handled on the network thread that read it instead of being queued
  // for a request handler thread: true only for requests whose handling is bounded and short
  // (no fsync, no file creation or deletion, no waiting), where the hand-over to another
  // thread and back would cost more than the work. Called on a network thread.
  // REQUIRES: returns promptly; thread-safe.
  virtual bool HandlesInline(const std::vector<uint8_t>& frame) const {
    (void)frame;
    return false;
  }
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_REQUEST_HANDLER_H_
