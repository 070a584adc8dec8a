// ReadFetch: one pass of a Fetch request over the logs (fetch_handler.cc), and the remote read
// a fetch below a tiered log's local log start waits for.
//
// Thread safety: pure functions over the thread-safe LogManager and RemoteLogManager.
#ifndef SEGLOG_SERVER_FETCH_HANDLER_H_
#define SEGLOG_SERVER_FETCH_HANDLER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "seglog/log.h"
#include "seglog/result.h"
#include "seglog/topic_partition.h"
#include "server/broker_context.h"
#include "server/handlers.h"

namespace seglog {

// The one partition of a fetch that remote storage must serve (Kafka's RemoteStorageFetchInfo):
// its place in the response and the read to make.
struct RemoteFetchInfo {
  TopicPartition tp;
  size_t topic_index = 0;      // in FetchResponseData::responses
  size_t partition_index = 0;  // in that topic's partitions
  int64_t fetch_offset = 0;
  int64_t max_bytes = 0;  // min(partition_max_bytes, what the response had left)
  bool min_one_message = false;
  int64_t bound = 0;  // the high watermark, or the last stable offset for read_committed
  bool read_committed = false;
};

// What a remote read found for a fetch: whole batches of one remote segment, and under
// read_committed the aborted transactions of both tiers they overlap.
struct RemoteFetchResult {
  std::vector<uint8_t> records;
  std::vector<AbortedTransaction> aborted;
};

struct FetchRead {
  protocol::FetchResponseData response;
  int64_t bytes = 0;                       // record bytes in the response
  bool has_error = false;                  // some partition (or the request) failed: answer at once
  std::vector<TopicPartition> partitions;  // what a parked fetch waits on
  // Set: this partition of the response (now without records, no error) waits for a remote
  // read (delayed_remote_fetch.h); CompleteRemoteFetch fills it in.
  std::optional<RemoteFetchInfo> remote;
  // Records read from remote storage, which the response's records borrow.
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> remote_records;
};

// Reads every partition of `req` from its fetch offset, up to the partition and response
// limits (the first partition with data returns at least one whole batch, as Kafka's
// minOneMessage), bounded by the high watermark. A fetch offset inside a batch returns that
// whole batch. Nothing is read from remote storage here: the first partition whose fetch
// offset is below its tiered log's local log start offset becomes `remote`, counted as its
// whole limit against the response's (Kafka's readFromLog: its size is unknown until read);
// later ones are answered without records (Kafka 4.4 reads every such partition in parallel;
// seglog one per fetch, docs/compatibility.md).
FetchRead ReadFetch(const BrokerContext& ctx, const RequestContext& rc,
                    const protocol::FetchRequestData& req, int16_t version);

// The read of `info` from remote storage (on a remote reader thread): the records of the remote
// segment holding the fetch offset and, for read_committed, the aborted transactions.
// OutOfRange when no remote segment holds the offset (any more); the store's errors otherwise.
Result<RemoteFetchResult> ReadRemoteFetch(RemoteLogManager* remote, const RemoteFetchInfo& info);

// Puts a finished remote read into `read`'s remote partition: its records (and aborted
// transactions), or OFFSET_OUT_OF_RANGE for OutOfRange, or UNKNOWN_SERVER_ERROR (logged) for
// any other failure, as Kafka answers a failed remote read. REQUIRES: read->remote is set.
void CompleteRemoteFetch(const BrokerContext& ctx, Result<RemoteFetchResult> result,
                         FetchRead* read);

// ReadFetch, then its remote read (if any) on the calling thread and CompleteRemoteFetch: the
// answer of a fetch whose remote read finishes within remote.fetch.max.wait.ms. For tests and
// tools; the broker waits for the read without blocking a thread (delayed_remote_fetch.h).
FetchRead ReadFetchWaitingForRemote(const BrokerContext& ctx, const RequestContext& rc,
                                    const protocol::FetchRequestData& req, int16_t version);

}  // namespace seglog

#endif  // SEGLOG_SERVER_FETCH_HANDLER_H_
