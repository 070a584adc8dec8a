// ReadFetch: one pass of a Fetch request over the logs (fetch_handler.cc).
//
// Thread safety: a pure function over the thread-safe LogManager.
#ifndef SEGLOG_SERVER_FETCH_HANDLER_H_
#define SEGLOG_SERVER_FETCH_HANDLER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "seglog/topic_partition.h"
#include "server/broker_context.h"
#include "server/handlers.h"

namespace seglog {

struct FetchRead {
  protocol::FetchResponseData response;
  int64_t bytes = 0;                       // record bytes in the response
  bool has_error = false;                  // some partition (or the request) failed: answer at once
  std::vector<TopicPartition> partitions;  // what a parked fetch waits on
  // Records read from remote storage, which the response's records borrow.
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> remote_records;
};

// Reads every partition of `req` from its fetch offset, up to the partition and response
// limits (the first partition with data returns at least one whole batch, as Kafka's
// minOneMessage), bounded by the high watermark. A fetch offset inside a batch returns that
// whole batch. Below a tiered log's local log start offset the records come from remote
// storage (ctx.remote), with the aborted transactions of both tiers for read_committed.
FetchRead ReadFetch(const BrokerContext& ctx, const RequestContext& rc,
                    const protocol::FetchRequestData& req, int16_t version);

}  // namespace seglog

#endif  // SEGLOG_SERVER_FETCH_HANDLER_H_
