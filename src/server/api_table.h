// The one table of the APIs this broker serves. Each entry is one API key with the versions
// (what ApiVersions advertises, what dispatch accepts), the thread it runs on, and its handler.
// Broker::Handle dispatches from the table and HandleApiVersions advertises from it, so the two
// cannot drift apart (Kafka: ApiKeys with the broker listener's ApiVersionsResponse, and
// KafkaApis.handle's match).
//
// An ApiCall is one request on its way through: the frame, its parsed header, how to answer
// it (Reply, Close) and the broker that received it. A handler parses the body at the
// request's version (protocol/request_body.h: bytes after the known fields are ignored, as in
// Kafka; a body cut short closes the connection with Kafka's log line) and answers once, now or
// later.
//
// Thread safety: the table is immutable; an ApiCall belongs to one request's thread.
#ifndef SEGLOG_SERVER_API_TABLE_H_
#define SEGLOG_SERVER_API_TABLE_H_

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/generated/api_messages.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/protocol_writer.h"
#include "protocol/request_body.h"
#include "server/broker.h"
#include "server/handlers.h"
#include "server/request_handler.h"

namespace seglog {

// Kafka's name of an API key ("Produce"), or the number for one it does not know.
std::string ApiName(int16_t api_key);

// Encodes the response header and `body` at `version` and sends them; a body that cannot be
// encoded is logged and the connection closed.
template <typename Body>
void SendResponse(const BrokerContext& ctx, int16_t api_key, int16_t version,
                  int32_t correlation_id, const Body& body, Responder& respond,
                  int64_t throttle_ms = 0) {
  protocol::ProtocolWriter w;
  protocol::ResponseHeaderData header;
  header.correlation_id = correlation_id;
  Status s = header.Encode(&w, protocol::ResponseHeaderVersion(api_key, version));
  if (s.ok()) s = body.Encode(&w, version);
  if (!s.ok()) {
    ctx.logger.Info(fmt::format("Failed to encode the {} v{} response: {}", ApiName(api_key),
                                version, s.ToString()));
    respond.CloseConnection();
    return;
  }
  respond.Send(Broker::ToResponseBuffer(w), throttle_ms);
}

// Sets a response's throttle_time_ms, for the messages that have one.
template <typename Body>
void SetThrottleTime(Body* body, int64_t throttle_ms) {
  if constexpr (requires { body->throttle_time_ms = int32_t{0}; }) {
    body->throttle_time_ms = static_cast<int32_t>(std::min<int64_t>(throttle_ms, INT32_MAX));
  }
}

struct ApiCall {
  Broker& broker;
  const RequestContext& rc;
  const protocol::RequestHeaderData& header;
  int16_t api_key = 0;
  int16_t version = 0;
  int32_t correlation_id = 0;
  std::vector<uint8_t> frame;  // the whole request; the body starts at body_offset
  size_t body_offset = 0;
  Responder respond;

  // When the broker began handling the request (the request quota's time).
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  const BrokerContext& ctx() const { return broker.context(); }
  std::span<const uint8_t> body() const {
    return {frame.data() + body_offset, frame.size() - body_offset};
  }
  // Answers with `body`, throttled by the client's request quota (and `other_throttle_ms`, a
  // byte-rate quota's) as Kafka's sendResponseMaybeThrottle: throttle_time_ms in the response,
  // and the connection muted for that long once it is written.
  template <typename Body>
  void Reply(Body body, int64_t other_throttle_ms = 0) {
    const int64_t throttle = std::max(RequestThrottleMs(), other_throttle_ms);
    SetThrottleTime(&body, throttle);
    SendResponse(ctx(), api_key, version, correlation_id, body, respond, throttle);
  }
  // Records the time this request took against its client's request_percentage quota: 0, or
  // the throttle time.
  int64_t RequestThrottleMs() const;
  // The client's quota identity.
  std::string client_id() const { return header.client_id.value_or(""); }
  // The body, decoded (protocol::ParseRequestBody), with its decoded size charged to the
  // request's memory (RequestContext::memory).
  template <typename Request>
  Result<Request> Parse() {
    size_t decoded = 0;
    Result<Request> r = protocol::ParseRequestBody<Request>(body(), version, nullptr, &decoded);
    if (rc.memory != nullptr) rc.memory->Add(static_cast<int64_t>(decoded));
    return r;
  }
  // Closes the connection with Kafka's line for a body that does not parse.
  void ParseFailed(const Status& s);
  // Closes the connection, logging `why` with the client.
  void Close(const std::string& why);
};

// Where a request runs: on the network thread that read it (a quick answer from memory or
// the page cache) or on a request handler thread (anything that may wait: disk syncs, remote
// storage, coordinators' appends).
enum class ApiThread {
  kHandler,
  kInline,
  kInlineUnlessAppendsMayFlush,  // Produce: an append may fsync (flush.messages)
  kInlineUnlessTiered,           // Fetch, ListOffsets: a tiered log may read remote storage
};

struct ServedApi {
  ServedVersions versions;
  ApiThread thread;
  void (*handle)(ApiCall& call);
};

// The SASL and delegation-token APIs past authentication (sasl_handlers.cc).
void ServeSaslHandshake(ApiCall& c);
void ServeSaslAuthenticate(ApiCall& c);
void ServeCreateDelegationToken(ApiCall& c);
void ServeRenewDelegationToken(ApiCall& c);
void ServeExpireDelegationToken(ApiCall& c);
void ServeDescribeDelegationToken(ApiCall& c);

// Every served API, in key order.
const std::vector<ServedApi>& ServedApiTable();
const ServedApi* FindServedApiEntry(int16_t api_key);

}  // namespace seglog

#endif  // SEGLOG_SERVER_API_TABLE_H_
