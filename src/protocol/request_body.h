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

// Decodes `Request` (a generated request struct) at `version` from the start of `body`;
// `*trailing`, when given, is set to how many bytes followed its fields.
template <typename Request>
Result<Request> ParseRequestBody(std::span<const uint8_t> body, int16_t version,
                                 size_t* trailing = nullptr) {
  Request request;
  ProtocolReader reader(body);
  Status s = request.Decode(&reader, version);
  if (!s.ok()) return s;
  if (trailing != nullptr) *trailing = reader.remaining();
  return request;
}

}  // namespace seglog::protocol

#endif  // SEGLOG_PROTOCOL_REQUEST_BODY_H_
