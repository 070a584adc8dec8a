// Broker: the API dispatcher. It implements the socket server's RequestHandler: decodes each
// request frame's header, finds the API in the served-API table (api_table.h), which parses
// the body at the version the header names and calls the API's handler (handlers.h), and
// encodes the response header and body into the ResponseBuffer, record batches as file
// regions. Requests it cannot parse, for APIs or versions it does not serve,
// close the connection with a log line naming the client, as Kafka's SocketServer does;
// ApiVersions of a version too new gets KIP-511's v0 answer instead.
//
// Lifecycle: built over an open LogManager; Shutdown() answers the parked fetches before the
// socket server stops. Owns the fetch purgatory.
// Thread safety: thread-safe (Handle runs on every request handler thread at once).
#ifndef SEGLOG_SERVER_BROKER_H_
#define SEGLOG_SERVER_BROKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocol/protocol_writer.h"
#include "server/broker_context.h"
#include "server/fetch_purgatory.h"
#include "server/request_handler.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

struct ApiCall;  // api_table.h

struct FetchRead;

class Broker : public RequestHandler {
 public:
  explicit Broker(BrokerContext context);
  ~Broker() override;

  void Handle(const RequestContext& context, std::vector<uint8_t> frame,
              Responder respond) override;
  void OnConnectionClosed(uint64_t connection_id) override;
  bool HandlesInline(const std::vector<uint8_t>& frame) const override;

  // Ends every parked fetch's wait (each is answered) and stops the purgatory's thread.
  void Shutdown();

  // What the transaction coordinator is started with: markers appended by this broker, each
  // waking the fetches parked on its partition. REQUIRES: the broker outlives the coordinator's
  // use of it (shut the coordinator down first).
  TransactionCoordinator::MarkerWriter MarkerWriter();

  const BrokerContext& context() const { return ctx_; }
  // Appends were made to `partitions`: the fetches parked on them are woken.
  void NotifyAppended(const std::vector<TopicPartition>& partitions);
  // A Fetch: answered now, or parked in the purgatory until enough data or its max wait.
  void ServeFetch(ApiCall& call);
  // A ShareFetch: answered now, or parked until records are acquired or its max wait
  // (share_fetch_handlers.cc).
  void ServeShareFetch(ApiCall& call);
  size_t parked_fetches() const { return purgatory_.parked(); }

  // The response frame's content (header then body) as the socket server sends it: the
  // writer's bytes with its file regions spliced in.
  static ResponseBuffer ToResponseBuffer(const protocol::ProtocolWriter& writer);

 private:
  // A fetch's quotas: records its bytes against the client's consumer_byte_rate and, when it
  // (or the request quota's `request_throttle_ms`) throttles, empties the response.
  // Counts a Fetch response's partitions in the broker's topic metrics.
  void CountFetch(const FetchRead& read) const;
  int64_t FetchThrottleMs(const std::string& user, const std::string& client_id, FetchRead* read,
                          int64_t request_throttle_ms);
  // A fetch with a partition below its tiered log's local log start: parked for at most
  // remote.fetch.max.wait.ms while a remote reader thread reads it (delayed_remote_fetch.h).
  void ParkRemoteFetch(ApiCall& call, FetchRead read, const std::string& user,
                       const std::string& client_id);

  BrokerContext ctx_;
  FetchPurgatory purgatory_;
};

}  // namespace seglog

#endif  // SEGLOG_SERVER_BROKER_H_
