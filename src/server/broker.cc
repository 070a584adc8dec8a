// Broker: decode, dispatch, encode. See broker.h.
#include "server/broker.h"

#include <fmt/format.h>

#include "base/coding.h"
#include "protocol/generated/api_messages.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "protocol/kafka_error.h"
#include "protocol/request_body.h"
#include "remote/remote_log_manager.h"
#include "server/api_table.h"
#include "server/delayed_remote_fetch.h"
#include "server/features.h"
#include "server/fetch_handler.h"
#include "server/handlers.h"
#include "share/share_partition_manager.h"
#include "share/share_session_cache.h"

namespace seglog {

namespace {
using protocol::ApiKey;
using protocol::ProtocolReader;
using protocol::ProtocolWriter;
}  // namespace

Broker::Broker(BrokerContext context) : ctx_(std::move(context)) {}

Broker::~Broker() { Shutdown(); }

void Broker::Shutdown() { purgatory_.Shutdown(); }

TransactionCoordinator::MarkerWriter Broker::MarkerWriter() {
  return BrokerMarkerWriter(ctx_, [this](const TopicPartition& tp) { purgatory_.Notify({tp}); });
}

void Broker::OnConnectionClosed(uint64_t connection_id) {
  purgatory_.DropConnection(connection_id);
  // The connection's share sessions end: their members' records are released.
  if (ctx_.share_sessions != nullptr && ctx_.share_partitions != nullptr) {
    for (const ReleasedShareSession& s :
         ctx_.share_sessions->RemoveConnection(std::to_string(connection_id))) {
      ctx_.share_partitions->ReleaseSession(s);
    }
  }
  if (ctx_.telemetry != nullptr) ctx_.telemetry->ConnectionClosed(connection_id);
}

bool Broker::HandlesInline(const std::vector<uint8_t>& frame) const {
  if (frame.size() < 2) return true;  // answered by closing the connection
  const ServedApi* api = FindServedApiEntry(LoadBEInt16(frame.data()));
  if (api == nullptr) return false;
  switch (api->thread) {
    case ApiThread::kInline:
      return true;
    case ApiThread::kInlineUnlessAppendsMayFlush:
      return !ctx_.logs->AppendsMayFlush();
    case ApiThread::kInlineUnlessTiered:
      return ctx_.remote == nullptr;
    case ApiThread::kHandler:
      return false;
  }
  return false;
}

void Broker::NotifyAppended(const std::vector<TopicPartition>& partitions) {
  purgatory_.Notify(partitions);
}

ResponseBuffer Broker::ToResponseBuffer(const ProtocolWriter& writer) {
  ResponseBuffer out;
  const std::vector<uint8_t>& bytes = writer.bytes();
  size_t from = 0;
  for (const ProtocolWriter::Splice& s : writer.splices()) {
    out.Append(std::span<const uint8_t>(bytes.data() + from, s.offset - from));
    out.AppendFileSlice(s.region);
    from = s.offset;
  }
  out.Append(std::span<const uint8_t>(bytes.data() + from, bytes.size() - from));
  return out;
}

void Broker::Handle(const RequestContext& rc, std::vector<uint8_t> frame, Responder respond) {
  auto close = [&](const std::string& why) {
    ctx_.logger.Info(fmt::format("Closing socket connection to {} (connectionId={}): {}",
                                 rc.client_address, rc.connection_id, why));
    respond.CloseConnection();
  };
  if (frame.size() < 8) {
    close(fmt::format("Invalid request: {} bytes cannot hold a request header", frame.size()));
    return;
  }
  const int16_t api_key = LoadBEInt16(frame.data());
  const int16_t version = LoadBEInt16(frame.data() + 2);
  const int32_t correlation_id = LoadBEInt32(frame.data() + 4);
  const ServedApi* api = FindServedApiEntry(api_key);
  const int16_t api_versions_key = static_cast<int16_t>(ApiKey::kApiVersions);
  if (api_key == api_versions_key && version > api->versions.max_version) {
    // KIP-511: a v0 answer the client can read, naming the versions it may retry with.
    protocol::ApiVersionsResponseData resp;
    resp.error_code = kafka_error::kUnsupportedVersion;
    auto& v = resp.api_keys.emplace_back();
    v.api_key = api_versions_key;
    v.min_version = api->versions.min_version;
    v.max_version = api->versions.max_version;
    SendResponse(ctx_, api_key, 0, correlation_id, resp, respond);
    return;
  }
  if (api == nullptr || version < api->versions.min_accepted_version ||
      version > api->versions.max_version) {
    close(fmt::format("Received request api key {} with version {} which is not enabled",
                      ApiName(api_key), version));
    return;
  }
  ProtocolReader reader(frame);
  protocol::RequestHeaderData header;
  if (ctx_.metrics != nullptr) ctx_.metrics->RecordRequest(ApiName(api_key), version);
  Status hs = header.Decode(&reader, protocol::RequestHeaderVersion(api_key, version));
  if (!hs.ok()) {
    close("Error parsing request header: " + hs.ToString());
    return;
  }
  const size_t body_offset = reader.position();
  ApiCall call{*this,
               rc,
               header,
               api_key,
               version,
               correlation_id,
               std::move(frame),
               body_offset,
               std::move(respond)};
  api->handle(call);
}

void Broker::ServeFetch(ApiCall& call) {
  const RequestContext& rc = call.rc;
  const int16_t version = call.version;
  const int32_t correlation_id = call.correlation_id;
  auto parsed = call.Parse<protocol::FetchRequestData>();
  if (!parsed.ok()) {
    ctx_.logger.Info(
        fmt::format("Closing socket connection to {} (connectionId={}): Error getting "
                    "request for apiKey: FETCH, apiVersion: {}: {}",
                    rc.client_address, rc.connection_id, version, parsed.status().ToString()));
    call.respond.CloseConnection();
    return;
  }
  // The request no longer needs the frame (it has no records), so the parked copy owns it.
  auto request = std::make_shared<protocol::FetchRequestData>(std::move(parsed).value());
  const std::string user = QuotaUserOf(rc.principal);
  const std::string client_id = call.client_id();
  // Kafka's handleFetchRequest: the response is bounded by the broker's fetch.max.bytes and
  // by what the client's consumer_byte_rate quota allows in one window, whatever it asks.
  {
    double limit = ctx_.fetch_max_bytes;
    if (ctx_.quotas != nullptr) {
      limit = std::min(
          limit, ctx_.quotas->MaxValueInQuotaWindow(ClientQuotaType::kFetch, user, client_id));
    }
    const int32_t cap = static_cast<int32_t>(std::max(1.0, std::min(limit, double{INT32_MAX})));
    if (version < 3 || request->max_bytes > cap) request->max_bytes = cap;
    request->min_bytes = std::min(request->min_bytes, request->max_bytes);
  }
  const uint64_t sequence = purgatory_.append_sequence();
  FetchRead read = ReadFetch(ctx_, rc, *request, version);
  if (read.remote) {
    // Kafka's DelayedRemoteFetch: whatever min_bytes asks, answered when the remote read is
    // done or remote.fetch.max.wait.ms has passed (delayed_remote_fetch.h).
    ParkRemoteFetch(call, std::move(read), user, client_id);
    return;
  }
  if (read.has_error || read.bytes >= request->min_bytes || request->max_wait_ms <= 0 ||
      read.bytes >= request->max_bytes) {
    const int64_t throttle = FetchThrottleMs(user, client_id, &read, call.RequestThrottleMs());
    CountFetch(read);
    SendResponse(ctx_, static_cast<int16_t>(ApiKey::kFetch), version, correlation_id, read.response,
                 call.respond, throttle);
    return;
  }
  auto shared_respond = std::make_shared<Responder>(std::move(call.respond));
  purgatory_.Park(rc.connection_id, read.partitions, request->max_wait_ms, sequence,
                  [this, request, version, correlation_id, shared_respond, client = rc, user,
                   client_id](bool passed) {
                    // (A partition that now needs remote storage is answered without
                    // records: the client's next fetch reads it.)
                    FetchRead again = ReadFetch(ctx_, client, *request, version);
                    if (!passed && !again.has_error && again.bytes < request->min_bytes) {
                      return false;
                    }
                    const int64_t throttle = FetchThrottleMs(user, client_id, &again, 0);
                    CountFetch(again);
                    SendResponse(ctx_, static_cast<int16_t>(ApiKey::kFetch), version,
                                 correlation_id, again.response, *shared_respond, throttle);
                    return true;
                  });
}

void Broker::CountFetch(const FetchRead& read) const {
  if (ctx_.metrics == nullptr) return;
  for (const auto& t : read.response.responses) {
    std::string name = t.topic;
    if (name.empty()) name = TopicNameForId(ctx_, t.topic_id).value_or("");
    if (name.empty()) continue;
    for (const auto& p : t.partitions) {
      // Kafka counts the partitions its ReplicaManager reads: not those of unknown or
      // unauthorized topics, and not leadership errors; any other error is a failed fetch.
      const int16_t e = p.error_code;
      if (e == kafka_error::kUnknownTopicOrPartition || e == kafka_error::kUnknownTopicId ||
          e == kafka_error::kTopicAuthorizationFailed) {
        continue;
      }
      const bool failed = e != kafka_error::kNone && e != kafka_error::kNotLeaderOrFollower &&
                          e != kafka_error::kFencedLeaderEpoch &&
                          e != kafka_error::kUnknownLeaderEpoch;
      const int64_t bytes = p.records.has_value() ? p.records->size_bytes() : 0;
      ctx_.metrics->RecordFetch(name, bytes, failed);
    }
  }
}

void Broker::ParkRemoteFetch(ApiCall& call, FetchRead read, const std::string& user,
                             const std::string& client_id) {
  RemoteLogManager* remote = ctx_.remote;
  const RemoteFetchInfo info = *read.remote;
  auto slot = std::make_shared<RemoteFetchSlot>();
  auto waiter = std::make_shared<RemoteFetchWaiter>(slot);
  auto shared_read = std::make_shared<FetchRead>(std::move(read));
  auto shared_respond = std::make_shared<Responder>(std::move(call.respond));
  const int64_t request_throttle = call.RequestThrottleMs();
  const uint64_t key = purgatory_.Park(
      call.rc.connection_id, {}, remote->fetch_max_wait_ms(), purgatory_.append_sequence(),
      [this, waiter, shared_read, shared_respond, version = call.version,
       correlation_id = call.correlation_id, user, client_id, request_throttle](bool passed) {
        std::optional<Result<RemoteFetchResult>> done = waiter->slot().Take();
        if (!done && !passed) return false;
        // Expired: the remote partition keeps no records and no error (Kafka's local read
        // result); a read still running is dropped when it ends.
        if (done) CompleteRemoteFetch(ctx_, std::move(*done), shared_read.get());
        const int64_t throttle =
            FetchThrottleMs(user, client_id, shared_read.get(), request_throttle);
        CountFetch(*shared_read);
        SendResponse(ctx_, static_cast<int16_t>(ApiKey::kFetch), version, correlation_id,
                     shared_read->response, *shared_respond, throttle);
        shared_read->remote_records.clear();  // the response holds a copy
        return true;
      });
  if (key == 0) return;  // shutting down: answered already
  SubmitRemoteFetch(remote, info, slot, call.rc.memory);
  slot->SetWaker([this, key] { purgatory_.Wake(key); });
}

int64_t Broker::FetchThrottleMs(const std::string& user, const std::string& client_id,
                                FetchRead* read, int64_t request_throttle_ms) {
  if (ctx_.quotas == nullptr) return 0;
  // The response's size as the consumer_byte_rate quota counts it: its record bytes.
  const double bytes = static_cast<double>(read->bytes);
  const int64_t now = ctx_.NowMs();
  const int64_t bandwidth =
      ctx_.quotas->RecordAndGetThrottleMs(ClientQuotaType::kFetch, user, client_id, bytes, now);
  const int64_t throttle = std::max(bandwidth, request_throttle_ms);
  if (throttle > 0) {
    // Kafka answers a throttled fetch empty (no partitions, no error) and takes its bytes back
    // from the quota, as they are not sent.
    ctx_.quotas->Unrecord(ClientQuotaType::kFetch, user, client_id, bytes, now);
    protocol::FetchResponseData empty;
    empty.error_code = read->response.error_code;
    empty.session_id = read->response.session_id;
    read->response = std::move(empty);
    read->remote_records.clear();
  }
  SetThrottleTime(&read->response, throttle);
  return throttle;
}

}  // namespace seglog
