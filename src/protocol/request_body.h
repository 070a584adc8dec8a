// ParseRequestBody: a request's body as Kafka's broker reads it off the wire.
//
// Kafka 4.4.0's rule (RequestContext.parseRequest -> AbstractRequest.parseRequest -> the
// generated `read(Readable, version)`): the body's fields are read in order and whatever bytes
// follow the last one are ignored, never checked. So a client that appends bytes a version does
// not define (librdkafka 2.16's Metadata v13 does) is answered, and a body cut short inside
// its fields is still an error (InvalidRequestException there, Corruption here). The generated
// `Parse` stays strict: it serves responses and coordinator records, whose writer is seglog.
//
// Thread safety: a pure function of its arguments.
#ifndef SEGLOG_PROTOCOL_REQUEST_BODY_H_
#define SEGLOG_PROTOCOL_REQUEST_BODY_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/protocol_reader.h"
#include "seglog/result.h"
#include "seglog/status.h"

namespace seglog::protocol {

// A request's decoded arrays may take at most this many times its body's bytes, plus the
// slack (ProtocolReader::ChargeArray). Kafka's requests stay well below: a Metadata request of
// short topic names decodes to about 4x, a Fetch with partitions to about 2-5x; a Fetch naming
// millions of empty topics (3 bytes each, 100 decoded) is refused instead of costing 34x.
inline constexpr size_t kDecodedSizeFactor = 8;
inline constexpr size_t kDecodedSizeSlack = 64 << 10;

// Decodes `Request` (a generated request struct) at `version` from the start of `body`;
// `*trailing`, when given, is set to how many bytes followed its fields, and `*decoded` to the
// bytes its arrays took (what the broker charges to its request memory pool).
template <typename Request>
Result<Request> ParseRequestBody(std::span<const uint8_t> body, int16_t version,
                                 size_t* trailing = nullptr, size_t* decoded = nullptr) {
  Request request;
  ProtocolReader reader(body);
  reader.set_allocation_budget(body.size() * kDecodedSizeFactor + kDecodedSizeSlack);
  Status s = request.Decode(&reader, version);
  if (decoded != nullptr) *decoded = reader.allocated();
  if (!s.ok()) return s;
  if (trailing != nullptr) *trailing = reader.remaining();
  return request;
}

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_REQUEST_BODY_H_
