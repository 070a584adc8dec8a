// Connection; see connection.h.
#include "server/connection.h"

#include <fmt/format.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <thread>

#include "base/coding.h"
#include "io/file.h"
#include "protocol/generated/api_versions_request.h"
#include "server/processor.h"

namespace seglog {

namespace {

// Read-ahead: complete frames kept behind the request in progress. Past either bound the
// connection stops reading until the handlers catch up (the socket's buffers then fill and the
// client's writes block: backpressure).
constexpr size_t kMaxReadAheadRequests = 64;
constexpr size_t kMaxReadAheadBytes = 1 << 20;
// A new frame's buffer starts at most this big and grows only as bytes arrive, so a size
// prefix that claims 100 MB costs nothing until the bytes come.
constexpr size_t kInitialFrameReserve = 64 * 1024;
// sendfile(2) bytes per turn of the network thread before it lets other connections run.
constexpr int64_t kSendFileTurnBytes = 4 << 20;
// A frame this small, with nothing read ahead behind it on its connection, is taken whatever
// the request memory pool has left: a client of small requests (a consumer's fetch, a
// heartbeat) is not muted behind others' large ones. It costs the pool at most this much per
// connection beyond its capacity.
constexpr int32_t kSmallFrameBytes = 64 * 1024;

std::string EndpointString(const asio::ip::tcp::endpoint& e) {
  const std::string host = e.address().to_string();
  return e.address().is_v6() ? fmt::format("[{}]:{}", host, e.port())
                             : fmt::format("{}:{}", host, e.port());
}

int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Connection::Connection(Processor* processor, ServerState* state, asio::ip::tcp::socket socket,
                       uint64_t id, const ListenerRuntime* listener, std::string host)
    : processor_(processor),
      state_(state),
      socket_(std::move(socket)),
      idle_timer_(socket_.get_executor()),
      id_(id),
      listener_(listener),
      auth_timer_(socket_.get_executor()),
      throttle_timer_(socket_.get_executor()) {
  if (listener_->tls != nullptr) {
    tls_context_ = listener_->tls->Current();
    tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls_context_);
  }
  if (listener_->sasl.has_value()) {
    sasl_ = std::make_unique<SaslAuthenticator>(
        &*listener_->sasl, protocol::ApiVersionsRequestData::kHighestSupportedVersion);
  }
  asio::error_code ec;
  const asio::ip::tcp::endpoint remote = socket_.remote_endpoint(ec);
  const asio::ip::tcp::endpoint local = socket_.local_endpoint(ec);
  client_address_ = EndpointString(remote);
  client_host_ = std::move(host);
  channel_id_ = fmt::format("{}-{}-{}", EndpointString(local), client_address_, id_);
}

void Connection::Start() {
  asio::error_code ec;
  // sendfile(2) is called on the descriptor directly and must not block the network thread.
  socket_.non_blocking(true, ec);
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  socket_.set_option(asio::socket_base::keep_alive(true), ec);
  if (state_->options.socket_send_buffer_bytes != -1) {
    socket_.set_option(
        asio::socket_base::send_buffer_size(state_->options.socket_send_buffer_bytes), ec);
  }
  if (state_->options.socket_receive_buffer_bytes != -1) {
    socket_.set_option(
        asio::socket_base::receive_buffer_size(state_->options.socket_receive_buffer_bytes), ec);
  }
  Touch();
  if (state_->options.connections_max_idle_ms >= 0) {
    ArmIdleTimer(std::chrono::milliseconds(state_->options.connections_max_idle_ms));
  }
  if (tls_ != nullptr) {
    tls_->async_handshake(
        asio::ssl::stream_base::server,
        [self = shared_from_this()](const asio::error_code& e) { self->OnTlsHandshake(e); });
    return;
  }
  ReadMore();
}

void Connection::OnTlsHandshake(const asio::error_code& ec) {
  if (closed_) return;
  if (ec) {
    // Kafka's Selector logs a failed handshake at INFO with the client's address.
    state_->Info(fmt::format("Failed authentication with /{} (channelId={}) (SSL handshake failed)",
                             client_host_, channel_id_));
    state_->Debug(fmt::format("SSL handshake with /{} failed: {}", client_host_, ec.message()));
    Close();
    return;
  }
  Touch();
  if (sasl_ == nullptr) {
    const std::string subject = PeerSubjectName(tls_->native_handle());
    if (!subject.empty()) {
      Result<std::string> name = listener_->principal_mapper->Map(subject);
      if (!name.ok()) {
        state_->Info(fmt::format("Failed authentication with /{} (channelId={}) ({})", client_host_,
                                 channel_id_, name.status().message()));
        Close();
        return;
      }
      principal_ = "User:" + *name;
    }
  }
  ReadMore();
}

const std::string& Connection::principal() const {
  return sasl_ != nullptr ? sasl_->principal() : principal_;
}

void Connection::FailAuthentication(std::vector<uint8_t> response, const std::string& reason) {
  state_->Info(fmt::format("Failed authentication with /{} (channelId={}) ({})", client_host_,
                           channel_id_, reason));
  // Nothing more is read; the answer (if any) waits for the delay, then the connection closes.
  draining_ = true;
  pending_.clear();
  pending_bytes_ = 0;
  in_progress_ = true;
  auth_timer_.expires_after(
      std::chrono::milliseconds(state_->options.failed_authentication_delay_ms));
  auth_timer_.async_wait([self = shared_from_this(),
                          response = std::move(response)](const asio::error_code& ec) mutable {
    if (ec || self->closed_) return;
    if (response.empty()) {
      self->Close();
      return;
    }
    self->close_after_write_ = true;
    self->AnswerInline(std::move(response));
  });
}

void Connection::AnswerInline(std::vector<uint8_t> bytes) {
  in_progress_ = true;
  Response r;
  r.buffer.Append(std::span<const uint8_t>(bytes.data(), bytes.size()));
  OnAnswer(std::move(r));
}

void Connection::Drain() {
  if (closed_) return;
  draining_ = true;
  pending_.clear();
  pending_bytes_ = 0;
  if (!in_progress_) Close();
}

void Connection::Close() {
  if (closed_) return;
  auto self = shared_from_this();  // Remove() below may drop the processor's reference
  closed_ = true;
  asio::error_code ec;
  socket_.shutdown(asio::socket_base::shutdown_both, ec);
  socket_.close(ec);
  idle_timer_.cancel();
  auth_timer_.cancel();
  throttle_timer_.cancel();
  pending_.clear();
  frame_ = {};
  frame_charge_ = nullptr;
  stash_ = {};
  request_charge_ = nullptr;
  EndRelief();
  // response_ stays until the connection is destroyed: a cancelled write may still name its
  // buffers until its handler has run.
  processor_->Remove(id_);
  state_->handler->OnConnectionClosed(id_);
  state_->ConnectionClosed(listener_->name, client_host_);
}

// ---- Reading ----

bool Connection::ReadAheadFull() const {
  return pending_.size() >= kMaxReadAheadRequests || pending_bytes_ >= kMaxReadAheadBytes;
}

void Connection::ReadMore() {
  if (closed_ || draining_ || read_pending_ || memory_muted_ || throttled_ || ReadAheadFull()) {
    return;
  }
  read_pending_ = true;
  auto on_read = [self = shared_from_this()](const asio::error_code& ec, size_t n) {
    self->OnRead(ec, n);
  };
  if (tls_ != nullptr) {
    tls_->async_read_some(asio::buffer(read_buffer_), std::move(on_read));
  } else {
    socket_.async_read_some(asio::buffer(read_buffer_), std::move(on_read));
  }
}

void Connection::OnRead(const asio::error_code& ec, size_t n) {
  read_pending_ = false;
  if (closed_) return;
  if (ec) {
    if (ec != asio::error::operation_aborted) {
      state_->Debug(fmt::format("Connection with /{} (channelId={}) disconnected: {}", client_host_,
                                channel_id_, ec.message()));
    }
    Close();
    return;
  }
  Touch();
  if (draining_) return;  // shutting down: no new requests
  if (!Consume(read_buffer_.data(), n)) return;
  MaybeDispatch();
  ReadMore();
}

bool Connection::Consume(const uint8_t* data, size_t n) {
  size_t at = 0;
  while (true) {
    if (size_have_ < 4) {
      if (at >= n) break;
      const size_t take = std::min(4 - size_have_, n - at);
      std::memcpy(size_bytes_.data() + size_have_, data + at, take);
      size_have_ += take;
      at += take;
      if (size_have_ < 4) break;
      frame_size_ = LoadBEInt32(size_bytes_.data());
      // Before authentication a frame may be at most sasl.server.max.receive.size; an
      // authenticating client that sends more fails its authentication.
      const bool authenticating = sasl_ != nullptr && !sasl_->authenticated();
      const int32_t max =
          authenticating ? sasl_->max_receive_size() : state_->options.socket_request_max_bytes;
      if (authenticating && (frame_size_ < 0 || frame_size_ > max)) {
        FailAuthentication({}, fmt::format("Failing SASL authentication due to invalid receive "
                                           "size (size = {} larger than {})",
                                           frame_size_, max));
        return false;
      }
      if (frame_size_ < 0 || frame_size_ > max) {
        // Kafka's NetworkReceive refuses the size; its Selector logs and closes the channel.
        const std::string why =
            frame_size_ < 0
                ? fmt::format("Invalid receive (size = {})", frame_size_)
                : fmt::format("Invalid receive (size = {} larger than {})", frame_size_, max);
        state_->Warn(
            fmt::format("Unexpected error from /{} (channelId={}); closing connection: "
                        "org.apache.kafka.common.network.InvalidReceiveException: {}",
                        client_host_, channel_id_, why));
        Close();
        return false;
      }
      frame_.clear();
      frame_.reserve(std::min(static_cast<size_t>(frame_size_), kInitialFrameReserve));
      frame_charge_ = std::make_shared<MemoryCharge>(&state_->pool, 0, /*partial=*/true);
      if (frame_size_ <= kSmallFrameBytes && pending_.empty()) overdraft_ = true;
    }
    const size_t take = std::min(static_cast<size_t>(frame_size_) - frame_.size(), n - at);
    if (take > 0) {
      // The bytes are taken from the pool as they arrive; an exhausted pool mutes the
      // connection until requests in flight give bytes back.
      if (overdraft_) {
        state_->pool.ForceAllocate(static_cast<int64_t>(take));
      } else if (!state_->pool.TryAllocate(static_cast<int64_t>(take))) {
        stash_.assign(data + at, data + n);
        memory_muted_ = true;
        processor_->WaitForMemory(id_);
        state_->Debug(fmt::format(
            "Muting connection {}: the request memory pool (queued.max.request.bytes) is "
            "exhausted",
            channel_id_));
        return true;
      }
      frame_charge_->AddAllocated(static_cast<int64_t>(take));
      // Grown by doubling but never past the frame's size: the buffer holds what the pool
      // was charged for, not up to twice that.
      if (const size_t need = frame_.size() + take; need > frame_.capacity()) {
        frame_.reserve(
            std::min(static_cast<size_t>(frame_size_), std::max(need, frame_.capacity() * 2)));
      }
      frame_.insert(frame_.end(), data + at, data + at + take);
      at += take;
    }
    if (frame_.size() == static_cast<size_t>(frame_size_)) {
      frame_charge_->MarkComplete();
      overdraft_ = false;
      if (relief_) {  // the request now holds the relief until it gives its bytes back
        relief_ = false;
        frame_charge_->HoldRelief();
      }
      pending_bytes_ += frame_.size();
      pending_.push_back(
          Frame{std::move(frame_), WallClockMs(), MonotonicNs(), std::move(frame_charge_)});
      frame_ = {};
      frame_charge_ = nullptr;
      size_have_ = 0;
      continue;
    }
    if (at >= n) break;
  }
  return true;
}

bool Connection::WaitingForSmallFrame() const {
  return memory_muted_ && size_have_ == 4 && frame_size_ <= kSmallFrameBytes;
}

void Connection::EndRelief() {
  if (!relief_) return;
  relief_ = false;
  state_->pool.EndRelief();
}

void Connection::ResumeAfterMemory(bool overdraft) {
  if (closed_ || !memory_muted_) {
    if (overdraft) state_->pool.EndRelief();  // taken for this connection, which needs none
    return;
  }
  memory_muted_ = false;
  overdraft_ = overdraft;
  relief_ = overdraft;
  std::vector<uint8_t> stashed = std::move(stash_);
  stash_.clear();
  if (!stashed.empty() && !Consume(stashed.data(), stashed.size())) return;
  // A frame the stash completed is dispatched even when the next frame's bytes find the pool
  // exhausted again: its charge is not partial, so nothing else would ever let it go.
  MaybeDispatch();
  if (memory_muted_) return;  // still exhausted: waiting again
  ReadMore();
}

// ---- Requests ----

void Connection::MaybeDispatch() {
  if (closed_ || draining_ || in_progress_ || throttled_ || pending_.empty()) return;
  Frame frame = std::move(pending_.front());
  pending_.pop_front();
  pending_bytes_ -= frame.bytes.size();
  if (sasl_ != nullptr) {
    const int64_t now = WallClockMs();
    if (sasl_->authenticated() && !sasl_->StartsReauthentication(frame.bytes, now) &&
        sasl_->SessionExpired(now)) {
      // Kafka's Processor closes a connection whose session expired without re-authenticating.
      state_->Info(fmt::format(
          "Closing connection {} of {}: its SASL session expired and it did not re-authenticate",
          channel_id_, principal()));
      Close();
      return;
    }
    if (!sasl_->authenticated()) {
      SaslAuthenticator::Step step = sasl_->OnFrame(frame.bytes, now);
      switch (step.action) {
        case SaslAuthenticator::Step::Action::kSend:
          AnswerInline(std::move(step.response));
          return;
        case SaslAuthenticator::Step::Action::kClose:
          state_->Info(
              fmt::format("Closing connection from /{} (channelId={}) during SASL "
                          "authentication: {}",
                          client_host_, channel_id_, step.reason));
          Close();
          return;
        case SaslAuthenticator::Step::Action::kFail:
          FailAuthentication(std::move(step.response), step.reason);
          return;
        case SaslAuthenticator::Step::Action::kForward:
          break;  // ApiVersions: the broker answers it
      }
    }
  }
  in_progress_ = true;
  request_charge_ = frame.charge;
  stamps_ = nullptr;
  if (state_->options.request_observer && frame.bytes.size() >= 4) {
    stamps_ = std::make_shared<RequestStamps>();
    times_.api_key = LoadBEInt16(frame.bytes.data());
    times_.version = LoadBEInt16(frame.bytes.data() + 2);
    request_received_ns_ = frame.received_ns;
  }
  RequestContext context{id_,         client_address_, listener_->name,     frame.received_ms,
                         principal(), client_host_,    listener_->protocol, frame.charge};
  std::weak_ptr<Connection> weak = weak_from_this();
  if (state_->handler->HandlesInline(frame.bytes)) {
    // On this thread: an answer given during Handle is kept and taken below (no mailbox, no
    // wake-up); one given later, from another thread, goes through the mailbox as usual.
    struct InlineAnswer {
      bool handling = true;  // Handle has not returned yet
      std::optional<Response> response;
    };
    auto slot = std::make_shared<InlineAnswer>();
    const std::thread::id self_thread = std::this_thread::get_id();
    if (stamps_) RequestStamps::Stamp(&stamps_->dequeued_ns, MonotonicNs());
    Responder responder([mailbox = processor_->mailbox(), weak, slot, self_thread,
                         stamps = stamps_](Response response) mutable {
      if (stamps) RequestStamps::Stamp(&stamps->answered_ns, MonotonicNs());
      if (std::this_thread::get_id() == self_thread && slot->handling) {
        slot->response = std::move(response);
        return;
      }
      mailbox->Post([weak, response = std::move(response)]() mutable {
        if (auto c = weak.lock()) c->OnAnswer(std::move(response));
      });
    });
    try {
      state_->handler->Handle(context, std::move(frame.bytes), std::move(responder));
    } catch (const std::bad_alloc&) {
      // The responder, destroyed unanswered, closes the connection: this request fails, the
      // broker goes on.
      state_->Warn(
          fmt::format("Out of memory handling a request from /{} (channelId={}); "
                      "closing connection",
                      client_host_, channel_id_));
    }
    slot->handling = false;
    if (stamps_) RequestStamps::Stamp(&stamps_->local_done_ns, MonotonicNs());
    if (slot->response.has_value()) OnAnswer(std::move(*slot->response));
    return;
  }
  Responder responder([mailbox = processor_->mailbox(), weak, stamps = stamps_](Response response) {
    if (stamps) RequestStamps::Stamp(&stamps->answered_ns, MonotonicNs());
    mailbox->Post([weak, response = std::move(response)]() mutable {
      if (auto c = weak.lock()) c->OnAnswer(std::move(response));
    });
  });
  state_->queue.Push(
      QueuedRequest{std::move(context), std::move(frame.bytes), std::move(responder), stamps_});
}

void Connection::OnAnswer(Response response) {
  if (closed_) return;
  // Invariant: one answer per request handed over (Responder enforces it).
  if (!in_progress_ || writing_) {
    state_->Warn(fmt::format("An answer arrived for connection {} with no request in progress",
                             channel_id_));
    return;
  }
  answer_taken_ns_ = MonotonicNs();
  switch (response.action) {
    case Response::Action::kNoResponse:
      response_.throttle_ms = response.throttle_ms;
      RequestDone();
      return;
    case Response::Action::kCloseConnection:
      state_->Debug(fmt::format("Closing connection {} as its request handler asked", channel_id_));
      Close();
      return;
    case Response::Action::kAbandoned:
      if (!draining_) {
        state_->Warn(
            fmt::format("A request from /{} (channelId={}) was dropped without an answer; closing "
                        "connection",
                        client_host_, channel_id_));
      }
      Close();
      return;
    case Response::Action::kSend:
      break;
  }
  if (response.buffer.size() > INT32_MAX) {
    state_->Warn(
        fmt::format("A response of {} bytes for /{} (channelId={}) does not fit a frame; "
                    "closing connection",
                    response.buffer.size(), client_host_, channel_id_));
    Close();
    return;
  }
  response_ = std::move(response);
  StoreBE32(response_size_.data(), static_cast<uint32_t>(response_.buffer.size()));
  next_chunk_ = 0;
  file_sent_ = 0;
  size_sent_ = false;
  writing_ = true;
  WriteNext();
}

void Connection::RequestDone() {
  if (stamps_) {
    RequestTimes t = stamps_->Times(request_received_ns_, answer_taken_ns_, MonotonicNs());
    t.api_key = times_.api_key;
    t.version = times_.version;
    stamps_ = nullptr;
    state_->options.request_observer(t);
  }
  in_progress_ = false;
  writing_ = false;
  const int64_t throttle_ms = response_.throttle_ms;
  response_ = {};
  request_charge_ = nullptr;
  if (throttle_ms > 0 && !close_after_write_ && !draining_) {
    // KIP-219: the client past its quota has its answer; it is read again after the throttle.
    throttled_ = true;
    throttle_timer_.expires_after(std::chrono::milliseconds(throttle_ms));
    throttle_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      if (ec || self->closed_) return;
      self->throttled_ = false;
      self->MaybeDispatch();
      self->ReadMore();
    });
  }
  Touch();
  if (close_after_write_) {
    Close();
    return;
  }
  if (draining_) {
    Close();
    return;
  }
  MaybeDispatch();
  ReadMore();
}

// ---- Writing ----

void Connection::WriteNext() {
  if (closed_) return;
  const auto& chunks = response_.buffer.chunks();
  gather_.clear();
  if (!size_sent_) gather_.push_back(asio::buffer(response_size_));
  size_t end = next_chunk_;
  while (end < chunks.size()) {
    const auto* bytes = std::get_if<std::vector<uint8_t>>(&chunks[end]);
    if (bytes == nullptr) break;
    gather_.push_back(asio::buffer(*bytes));
    ++end;
  }
  if (!gather_.empty()) {
    auto on_written = [self = shared_from_this(), end](const asio::error_code& ec, size_t) {
      if (self->closed_) return;
      if (ec) {
        self->OnWriteError(ec, "write");
        return;
      }
      self->Touch();
      self->size_sent_ = true;
      self->next_chunk_ = end;
      self->WriteNext();
    };
    if (tls_ != nullptr) {
      // One contiguous buffer: Asio's SSL stream would make a TLS record of each piece.
      tls_out_.clear();
      for (const asio::const_buffer& b : gather_) {
        const auto* p = static_cast<const uint8_t*>(b.data());
        tls_out_.insert(tls_out_.end(), p, p + b.size());
      }
      asio::async_write(*tls_, asio::buffer(tls_out_), std::move(on_written));
    } else {
      asio::async_write(socket_, gather_, std::move(on_written));
    }
    return;
  }
  if (next_chunk_ < chunks.size()) {
    if (tls_ != nullptr) {
      SendFileTls();
    } else {
      SendFile();
    }
    return;
  }
  RequestDone();
}

void Connection::SendFile() {
  if (closed_) return;
  const FileSlice& region = std::get<FileSlice>(response_.buffer.chunks()[next_chunk_]);
  int64_t this_turn = 0;
  while (file_sent_ < region.length) {
    if (this_turn >= kSendFileTurnBytes) {
      asio::post(socket_.get_executor(), [self = shared_from_this()] { self->SendFile(); });
      return;
    }
    off_t offset = static_cast<off_t>(region.position + file_sent_);
    const size_t want = static_cast<size_t>(std::min<int64_t>(region.length - file_sent_, 1 << 30));
    const ssize_t n = ::sendfile(socket_.native_handle(), region.file->fd(), &offset, want);
    if (n > 0) {
      file_sent_ += n;
      this_turn += n;
      Touch();
      continue;
    }
    if (n == 0) {
      // The file is shorter than the region (truncated meanwhile): the frame cannot be
      // completed, so the client must not wait for the rest of it.
      state_->Warn(fmt::format(
          "Size of {} has been truncated during write: {} bytes of the region at {} missing; "
          "closing connection {}",
          region.file->path(), region.length - file_sent_, region.position, channel_id_));
      Close();
      return;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      socket_.async_wait(asio::socket_base::wait_write,
                         [self = shared_from_this()](const asio::error_code& ec) {
                           if (self->closed_) return;
                           if (ec) {
                             self->OnWriteError(ec, "sendfile");
                             return;
                           }
                           self->SendFile();
                         });
      return;
    }
    OnWriteError(asio::error_code(errno, asio::system_category()), "sendfile");
    return;
  }
  ++next_chunk_;
  file_sent_ = 0;
  WriteNext();
}

void Connection::SendFileTls() {
  if (closed_) return;
  const FileSlice& region = std::get<FileSlice>(response_.buffer.chunks()[next_chunk_]);
  if (file_sent_ >= region.length) {
    ++next_chunk_;
    file_sent_ = 0;
    WriteNext();
    return;
  }
  // The copy TLS needs: up to 256 KB of the file per write.
  constexpr int64_t kChunk = 256 << 10;
  const size_t want = static_cast<size_t>(std::min<int64_t>(region.length - file_sent_, kChunk));
  tls_out_.resize(want);
  size_t have = 0;
  while (have < want) {
    const ssize_t n = ::pread(region.file->fd(), tls_out_.data() + have, want - have,
                              static_cast<off_t>(region.position + file_sent_ + have));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      state_->Warn(fmt::format(
          "Size of {} has been truncated during write: {} bytes of the region at {} missing; "
          "closing connection {}",
          region.file->path(), region.length - file_sent_ - static_cast<int64_t>(have),
          region.position, channel_id_));
      Close();
      return;
    }
    have += static_cast<size_t>(n);
  }
  asio::async_write(*tls_, asio::buffer(tls_out_),
                    [self = shared_from_this()](const asio::error_code& ec, size_t n) {
                      if (self->closed_) return;
                      if (ec) {
                        self->OnWriteError(ec, "write");
                        return;
                      }
                      self->Touch();
                      self->file_sent_ += static_cast<int64_t>(n);
                      self->SendFileTls();
                    });
}

void Connection::OnWriteError(const asio::error_code& ec, const char* what) {
  if (ec != asio::error::operation_aborted) {
    state_->Debug(fmt::format("Connection with /{} (channelId={}) disconnected during {}: {}",
                              client_host_, channel_id_, what, ec.message()));
  }
  Close();
}

// ---- Idleness ----

void Connection::ArmIdleTimer(std::chrono::milliseconds after) {
  // A day at most: the steady clock's time points must not overflow; the timer re-arms.
  idle_timer_.expires_after(std::min(after, std::chrono::milliseconds(86400000)));
  idle_timer_.async_wait(
      [self = shared_from_this()](const asio::error_code& ec) { self->OnIdleTimer(ec); });
}

void Connection::OnIdleTimer(const asio::error_code& ec) {
  if (ec || closed_) return;
  // Idleness is time without I/O, as Kafka's Selector measures it: a request in progress does
  // not count as activity, so a client that stops reading its response is closed too (and its
  // parked work, response and file references go with the connection).
  const auto idle = std::chrono::milliseconds(state_->options.connections_max_idle_ms);
  const auto elapsed = std::chrono::steady_clock::now() - last_activity_;
  if (elapsed >= idle) {
    state_->Debug(fmt::format(
        "About to close the idle connection from {} due to being idle for "
        "{} millis",
        channel_id_, std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()));
    Close();
    return;
  }
  ArmIdleTimer(std::chrono::duration_cast<std::chrono::milliseconds>(idle - elapsed) +
               std::chrono::milliseconds(1));
}

}  // namespace seglog
